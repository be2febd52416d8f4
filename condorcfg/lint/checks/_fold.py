"""Constant folding of ClassAd expressions for lint: is a policy the same whatever the ads say?

Every attribute reference and every call of a function that depends on time or on the
ads is *unknown*.  ``&&``/``||``/``?:`` fold when a known operand decides them
(``X && false`` is false for every X that is not an error, which is a lint-worthy
distinction only); anything else folds only when all its operands are known, by asking
the ClassAd evaluator.  The result is a Python value (True, 0, "x", UNDEFINED, ERROR)
or :data:`UNKNOWN`.

Folding evaluates the expression's constant parts (a regexp() of two literals, say), so it
pays from the ClassAd budget of the command (:mod:`condorcfg.classad.budget`), and one
fold from a budget of its own when no command opened one.  A part evaluated once a limit
of that budget is spent is UNKNOWN: its ERROR would be the budget's, not the expression's.
"""
from __future__ import annotations

from condorcfg.classad.functions import is_constant_call

UNKNOWN = object()
_MAX_NODES = 5000  # larger expressions are not folded (bounded work on hostile input)


def fold(node):
    """The constant value of ``node``, or UNKNOWN."""
    from condorcfg.classad.budget import command_budget

    budget = [_MAX_NODES]
    with command_budget():
        try:
            return _fold(node, budget)
        except RecursionError:
            return UNKNOWN


def _truth(value):
    """True/False for a decided boolean operand, None when it does not decide anything."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    return None


def _fold(node, budget):
    from condorcfg.classad import ast

    budget[0] -= 1
    if budget[0] < 0:
        return UNKNOWN
    if isinstance(node, ast.Paren):
        return _fold(node.inner, budget)
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.AttrRef):
        if node.scope is None and node.name.lower() in ("true", "false"):
            return node.name.lower() == "true"
        return UNKNOWN
    if isinstance(node, ast.BinaryOp) and node.op in ("&&", "||"):
        left = _fold(node.left, budget)
        right = _fold(node.right, budget)
        decisive = node.op == "||"  # True decides ||, False decides &&
        for side in (left, right):
            if side is not UNKNOWN and _truth(side) is decisive:
                return decisive
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        return _evaluate(node)
    if isinstance(node, ast.Conditional):
        cond = _fold(node.cond, budget)
        if cond is UNKNOWN:
            then, otherwise = _fold(node.then, budget), _fold(node.otherwise, budget)
            if then is not UNKNOWN and otherwise is not UNKNOWN and _same(then, otherwise):
                return then
            return UNKNOWN
        truth = _truth(cond)
        if truth is None:
            return _evaluate(node)
        return _fold(node.then if truth else node.otherwise, budget)
    if isinstance(node, ast.Call):
        if not is_constant_call(node.name, len(node.args)):  # the clock, chance, the ads, the host
            return UNKNOWN
        if node.name.lower() == "ifthenelse" and len(node.args) == 3:
            return _fold(ast.Conditional(node.args[0], node.args[1], node.args[2]), budget)
    from condorcfg.lint.checks._util import children

    parts = children(node)
    if any(_fold(part, budget) is UNKNOWN for part in parts):
        return UNKNOWN
    return _evaluate(node)


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _evaluate(node):
    from condorcfg.classad.budget import current

    try:
        from condorcfg.classad.evaluator import evaluate  # the package attribute can be shadowed by the submodule

        value = evaluate(node)
    except Exception:  # an evaluator gap must not turn into a finding
        return UNKNOWN
    budget = current()
    if budget is not None and budget.spent:
        return UNKNOWN  # evaluated with a limit spent: the value may be the limit's ERROR
    return value
