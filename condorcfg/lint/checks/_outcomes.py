"""What a policy expression can evaluate to in a slot ad with no job: ClassAd three-valued logic, abstractly.

An expression is mapped to the set of outcomes it can have over every state of the machine:
``T``/``F`` (true, false), ``U`` (UNDEFINED), ``E`` (ERROR) and ``V`` (any other value: a number,
a string, a list).  Attributes of the slot ad are assumed defined with any value (``T``, ``F`` or
``V``); a job attribute has the outcomes given as ``job``: ``U`` where there is no job (where
IS_OWNER is evaluated), :data:`ANY_JOB` for "whatever job comes" (it may not define the
attribute), :data:`DEFINED` for a job that defines it.  An attribute that a policy knob defines (START,
an exported STARTD_ATTRS name) is followed to that knob's expression.

The operators follow the ClassAd language: ``False && UNDEFINED`` is False, ``True || UNDEFINED``
is True, ``UNDEFINED =?= False`` is False, a comparison with UNDEFINED is UNDEFINED, and a
non-boolean in a logical operator is ERROR.  Anything not modelled (most functions) may have any
outcome, so the result over-approximates: a outcome missing from the set is one the expression
can never have.
"""
from __future__ import annotations

from condorcfg.classad import ast
from condorcfg.classad.values import ERROR, UNDEFINED

T, F, U, E, V = "T", "F", "U", "E", "V"
DEFINED = frozenset({T, F, V})
NO_JOB = frozenset({U})
ANY_JOB = DEFINED | NO_JOB
EVERYTHING = frozenset({T, F, U, E, V})
MAX_DEPTH = 100  # nesting (a chain of one operator counts once): deeper is "anything"

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_IDENTITY = {"=?=", "=!=", "is", "isnt"}


def _and(left: str, right: str) -> str:
    if left == F:
        return F
    if left in (E, V):
        return E
    if right in (E, V):
        return E
    if left == T:
        return right
    return F if right == F else U  # left is UNDEFINED


def _or(left: str, right: str) -> str:
    if left == T:
        return T
    if left in (E, V):
        return E
    if right in (E, V):
        return E
    if left == F:
        return right
    return T if right == T else U  # left is UNDEFINED


def _not(value: str) -> str:
    return {T: F, F: T, U: U}.get(value, E)


class Outcomes:
    """``outcomes(node)``: the set of outcomes of an expression (see the module docstring).

    ``resolve(name)`` gives the parsed expression of a slot-ad attribute that a knob defines, or None;
    ``is_job_attribute(scope, name)`` says whether a reference reads the job ad; ``job``: the outcomes
    of a job attribute (:data:`NO_JOB`, :data:`ANY_JOB` or :data:`DEFINED`).
    """

    def __init__(self, resolve, is_job_attribute, job: frozenset = NO_JOB):
        self.resolve = resolve
        self.is_job_attribute = is_job_attribute
        self.job = job
        self._active: set[str] = set()
        self._memo: dict[str, frozenset] = {}

    def outcomes(self, node, depth: int = 0) -> frozenset:
        if depth > MAX_DEPTH:
            return EVERYTHING
        if isinstance(node, ast.Paren):
            return self.outcomes(node.inner, depth + 1)
        if isinstance(node, ast.Literal):
            return frozenset({_literal(node.value)})
        if isinstance(node, ast.AttrRef):
            return self._reference(node, depth)
        if isinstance(node, ast.UnaryOp):
            inner = self.outcomes(node.operand, depth + 1)
            if node.op == "!":
                return frozenset(_not(v) for v in _as_logical(inner) - {V})
            return _arithmetic(inner)
        if isinstance(node, ast.BinaryOp):
            return self._binary(node, depth)
        if isinstance(node, ast.Conditional):
            return self._choose(self.outcomes(node.cond, depth + 1), node.then, node.otherwise, depth)
        if isinstance(node, ast.Elvis):
            left = self.outcomes(node.left, depth + 1)
            result = set(left - {U})
            if U in left:
                result |= self.outcomes(node.right, depth + 1)
            return frozenset(result)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        return EVERYTHING

    def _reference(self, node, depth: int) -> frozenset:
        scope = (node.scope or "").upper() or None
        name = node.name.upper()
        if scope is None and name in ("TRUE", "FALSE"):
            return frozenset({T if name == "TRUE" else F})
        if scope is None and name == "UNDEFINED":
            return frozenset({U})
        if scope is None and name == "ERROR":
            return frozenset({E})
        if self.is_job_attribute(scope, node.name):
            return self.job
        if scope in (None, "MY"):
            if name in self._memo:
                return self._memo[name]
            if name in self._active:
                return frozenset({U})  # HTCondor: a reference cycle evaluates to UNDEFINED
            expression = self.resolve(node.name)
            if expression is not None:
                self._active.add(name)
                try:
                    found = self._memo[name] = self.outcomes(expression, depth + 1)
                finally:
                    self._active.discard(name)
                return found
        return DEFINED  # an attribute of the slot ad (or of the machine), value unknown

    def _binary(self, node, depth: int) -> frozenset:
        op = node.op
        if op in ("&&", "||"):  # a chain `a && b && c` (left-nested) is walked, not recursed into
            operands = [node.right]
            first = node.left
            while isinstance(first, ast.BinaryOp) and first.op == op:
                operands.append(first.right)
                first = first.left
            combine = _and if op == "&&" else _or
            result = self._logical(first, depth)
            for operand in reversed(operands):
                right = self._logical(operand, depth)
                result = frozenset(combine(a, b) for a in result for b in right)
            return result
        left = self.outcomes(node.left, depth + 1)
        right = self.outcomes(node.right, depth + 1)
        if op in _IDENTITY:
            same = _identical(left, right)
            return same if op in ("=?=", "is") else frozenset(_not(v) for v in same)
        if op in _COMPARE:
            result = set()
            if U in left or U in right:
                result.add(U)
            if E in left or E in right:
                result.add(E)
            if (left & DEFINED) and (right & DEFINED):
                result |= {T, F}  # (values of one type, as a policy compares them)
            return frozenset(result)
        return _arithmetic(left | right)

    def _logical(self, node, depth: int) -> frozenset:
        """The outcomes of an operand of && or ||: a number literal is true or false, other values as _as_logical."""
        inner = node
        while isinstance(inner, ast.Paren):
            inner = inner.inner
        if isinstance(inner, ast.Literal) and type(inner.value) in (int, float):
            return frozenset({T if inner.value else F})
        return _as_logical(self.outcomes(node, depth + 1))

    def _choose(self, condition: frozenset, then, otherwise, depth: int) -> frozenset:
        result = set()
        if T in condition:
            result |= self.outcomes(then, depth + 1)
        if F in condition:
            result |= self.outcomes(otherwise, depth + 1)
        if U in condition:
            result.add(U)
        if V in condition:  # a number chooses like a boolean; another value is ERROR
            result |= self.outcomes(then, depth + 1) | self.outcomes(otherwise, depth + 1)
            result.add(E)
        elif E in condition:
            result.add(E)
        return frozenset(result)

    def _call(self, node, depth: int) -> frozenset:
        name = node.name.lower()
        args = node.args
        if name == "ifthenelse" and len(args) == 3:
            return self._choose(self.outcomes(args[0], depth + 1), args[1], args[2], depth)
        if name in ("isundefined", "iserror") and len(args) == 1:
            inner = self.outcomes(args[0], depth + 1)
            wanted = U if name == "isundefined" else E
            return frozenset(({T} if wanted in inner else set()) | ({F} if inner - {wanted} else set()))
        for arg in args:  # evaluated for the references it follows (cycles, memo); the result is unknown
            self.outcomes(arg, depth + 1)
        return EVERYTHING


def _as_logical(outcomes: frozenset) -> frozenset:
    """What a value is to && and ||: a number counts as true or false (non-zero), as in HTCondor; another
    value (a string, a list) is ERROR - V stands for both, so it may be any of the three."""
    return outcomes | {T, F, E} if V in outcomes else outcomes


def _literal(value) -> str:
    if value is True:
        return T
    if value is False:
        return F
    if value is UNDEFINED:
        return U
    if value is ERROR:
        return E
    return V


def _arithmetic(operands: frozenset) -> frozenset:
    result = set()
    if U in operands:
        result.add(U)
    if E in operands:
        result.add(E)
    if operands & DEFINED:
        result.add(V)
    return frozenset(result)


def _identical(left: frozenset, right: frozenset) -> frozenset:
    """``=?=``: true when both sides can be the same value, false unless both are the same constant."""
    result = set()
    if (left & right) - {V} or (V in left and V in right):
        result.add(T)
    if not (len(left) == 1 and left == right and V not in left):
        result.add(F)
    return frozenset(result)
