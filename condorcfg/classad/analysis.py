"""Static analysis of ClassAd expressions: the attributes they read, and partial evaluation.

* :func:`references` lists the attribute references an expression makes,
  with their scope (``MY``, ``TARGET``, ``OTHER``, ``PARENT``, ``ROOT`` or
  ``None`` for unscoped) and position.  Names bound by an enclosing record
  literal (``[ a = 1; b = a ]``: the ``a`` in ``b``) are internal and left
  out, as HTCondor resolves them inside the record.  For a selection
  ``e.name`` only the base is a reference (``name`` is looked up in ``e``).
* :func:`partial_evaluate` folds what can be known when only the slot (MY)
  ad is known, as when the startd evaluates a policy expression before a job
  is there: MY attributes are substituted and constant parts evaluated with
  the real evaluator; TARGET references and unscoped names MY does not define
  (they fall back to TARGET in a match) stay symbolic.  ``&&``, ``||``,
  ``?:`` and ``c ? a : b`` short-cut exactly as HTCondor evaluates them.
* :func:`constant_value` is the same folder with no ad at all, for lint: the
  value an expression has whatever the ads say, or :data:`UNKNOWN`.  It also
  takes the verdicts that hold for every value an unknown operand can have
  but an error (``X && false`` is false, ``c ? 1 : 1`` is 1): an error there is
  a different finding.

Folding evaluates constant parts with the evaluator, so it pays from the ClassAd
budget of the command (:mod:`condorcfg.classad.budget`); a part evaluated once a
limit of that budget is spent stays unfolded (its ERROR would be the budget's).
"""
from __future__ import annotations

from condorcfg.classad import ast
from condorcfg.classad import budget as _budget
from condorcfg.classad.functions import is_constant_call
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, RelTime
from condorcfg.records import factory, record


@record(frozen=True)
class Reference:
    name: str
    scope: str | None
    line: int
    column: int


def references(node: ast.Node) -> list[Reference]:
    """Every attribute reference in ``node``, in source order."""
    found: list[Reference] = []
    _collect(node, (), found)
    found.sort(key=lambda ref: (ref.line, ref.column))
    return found


def _collect(node, bound: tuple, found: list) -> None:
    kind = type(node)
    if kind is ast.AttrRef:
        if node.scope is None and node.name.lower() in bound:
            return
        found.append(Reference(node.name, node.scope, node.line, node.column))
    elif kind is ast.RecordExpr:
        inner = bound + tuple(name.lower() for name, _ in node.attrs)
        for _, expr in node.attrs:
            _collect(expr, inner, found)
    else:
        for child in ast.children(node):
            _collect(child, bound, found)



# ------------------------------------------------------------------ partial evaluation

_SPECIAL_NAMES = frozenset({"currenttime", "toplevel", "root", "self", "my", "parent", "target", "other"})
_SCALARS = (bool, int, float, str, AbsTime, RelTime)
_MAX_SUBSTITUTION_DEPTH = 64


@record
class PartialResult:
    """The reduced expression plus where each reference went."""

    node: ast.Node
    resolved: list[Reference] = factory(list)  # read from the MY ad
    unresolved: list[Reference] = factory(list)  # still symbolic (TARGET, unknown)


def partial_evaluate(node: ast.Node, my_ad) -> ast.Node:
    """``node`` reduced as far as knowing only the MY ad allows (see the module docstring)."""
    return partial_evaluate_detailed(node, my_ad).node


def partial_evaluate_detailed(node: ast.Node, my_ad) -> PartialResult:
    from condorcfg.classad.evaluator import as_ad

    result = PartialResult(node)
    folder = _Folder(as_ad(my_ad), result)
    result.node = folder.fold(node, ())
    return result


UNKNOWN = object()  # what constant_value() returns for an expression the ads decide
_MAX_CONSTANT_NODES = 5000  # larger expressions are not folded for lint (bounded work on hostile input)


class _TooBig(Exception):
    pass


def constant_value(node: ast.Node):
    """The value of ``node`` whatever the ads say (a scalar, UNDEFINED or ERROR), or :data:`UNKNOWN`.

    Every attribute reference, and every call that reads the clock, chance, the ads or the
    host, is unknown (see the module docstring for the verdicts taken over unknown operands).
    """
    with _budget.command_budget():
        folder = _Folder(None, PartialResult(node), whatever_the_ads=True)
        try:
            folded = folder.fold(node, ())
        except (RecursionError, _TooBig):
            return UNKNOWN
    return folded.value if type(folded) is ast.Literal else UNKNOWN


def _is_const(node) -> bool:
    return type(node) is ast.Literal


def _literal(value, like: ast.Node) -> ast.Node | None:
    if value is UNDEFINED or value is ERROR or isinstance(value, _SCALARS):
        return ast.Literal(value, line=like.line, column=like.column)
    return None


class _Folder:
    def __init__(self, my_ad, result: PartialResult, whatever_the_ads: bool = False):
        self.my = my_ad
        self.result = result
        self.whatever_the_ads = whatever_the_ads  # constant_value(): verdicts over unknown operands
        self.nodes_left = _MAX_CONSTANT_NODES if whatever_the_ads else -1

    def _evaluate(self, node: ast.Node) -> ast.Node:
        """Evaluate a subtree whose operands are all constants; keep it if the value is not a scalar."""
        from condorcfg.classad.evaluator import evaluate

        try:
            value = evaluate(node)
        except Exception:  # noqa: BLE001 - an evaluator failure must not end the analysis
            return node
        budget = _budget.current()
        if budget is not None and budget.spent:
            return node  # evaluated with a limit spent: the value may be the limit's ERROR
        if self.whatever_the_ads:  # lists and ads too: lint asks for the value, not a tree to print
            return ast.Literal(value, node.line, node.column)
        folded = _literal(value, node)
        return folded if folded is not None else node

    def _truth(self, node):
        """'true'/'false'/'undefined'/'error' for a constant in a logical position, else None."""
        if not _is_const(node):
            return None
        value = node.value
        if value is UNDEFINED:
            return "undefined"
        if value is ERROR:
            return "error"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return "true" if value != 0 or value != value else "false"
        return "error"

    def fold(self, node: ast.Node, expanding: tuple) -> ast.Node:
        if self.nodes_left >= 0:
            self.nodes_left -= 1
            if self.nodes_left < 0:
                raise _TooBig
        kind = type(node)
        if kind is ast.Literal:
            return node
        if kind is ast.AttrRef:
            return self._attr(node, expanding)
        if kind is ast.BinaryOp and node.op in ("&&", "||"):
            return self._logical(node, expanding)
        if kind is ast.Conditional:
            cond = self.fold(node.cond, expanding)
            truth = self._truth(cond)
            if truth == "true":
                return self.fold(node.then, expanding)
            if truth == "false":
                return self.fold(node.otherwise, expanding)
            if truth in ("undefined", "error"):
                return ast.Literal(UNDEFINED if truth == "undefined" else ERROR, line=node.line, column=node.column)
            then, otherwise = self.fold(node.then, expanding), self.fold(node.otherwise, expanding)
            if self.whatever_the_ads and _is_const(then) and _is_const(otherwise) \
                    and type(then.value) is type(otherwise.value) and then.value == otherwise.value:
                return then  # c ? 1 : 1 is 1 whatever c is (but an error)
            return ast.Conditional(cond, then, otherwise, line=node.line, column=node.column)
        if kind is ast.Elvis:
            left = self.fold(node.left, expanding)
            if _is_const(left):
                return self.fold(node.right, expanding) if left.value is UNDEFINED else left
            return ast.Elvis(left, self.fold(node.right, expanding), line=node.line, column=node.column)
        if kind is ast.RecordExpr or kind is ast.ListExpr:
            return node  # values in their own right; their insides are evaluated lazily
        if kind is ast.Call:
            if self.whatever_the_ads and node.name.lower() == "ifthenelse" and len(node.args) == 3:  # lazy, like ?:
                return self.fold(ast.Conditional(*node.args, line=node.line, column=node.column), expanding)
            args = [self.fold(arg, expanding) for arg in node.args]
            rebuilt = ast.Call(node.name, args, line=node.line, column=node.column)
            if is_constant_call(node.name, len(args)) and all(_is_const(a) for a in args):
                return self._evaluate(rebuilt)
            return rebuilt
        if kind is ast.Paren:
            inner = self.fold(node.inner, expanding)
            return inner if _is_const(inner) else ast.Paren(inner, line=node.line, column=node.column)
        if kind is ast.UnaryOp:
            operand = self.fold(node.operand, expanding)
            rebuilt = ast.UnaryOp(node.op, operand, line=node.line, column=node.column)
            return self._evaluate(rebuilt) if _is_const(operand) else rebuilt
        if kind is ast.BinaryOp:
            left, right = self.fold(node.left, expanding), self.fold(node.right, expanding)
            rebuilt = ast.BinaryOp(node.op, left, right, line=node.line, column=node.column)
            return self._evaluate(rebuilt) if _is_const(left) and _is_const(right) else rebuilt
        if kind is ast.Select:
            base = self.fold(node.base, expanding)
            return ast.Select(base, node.name, line=node.line, column=node.column)
        if kind is ast.Subscript:
            base, index = self.fold(node.base, expanding), self.fold(node.index, expanding)
            return ast.Subscript(base, index, line=node.line, column=node.column)
        return node

    def _logical(self, node: ast.BinaryOp, expanding: tuple) -> ast.Node:
        left = self.fold(node.left, expanding)
        truth = self._truth(left)
        short = "false" if node.op == "&&" else "true"
        if truth == short:  # false && x, true || x: the right side is never looked at
            return ast.Literal(truth == "true", line=node.line, column=node.column)
        if truth == "error":
            return ast.Literal(ERROR, line=node.line, column=node.column)
        right = self.fold(node.right, expanding)
        rebuilt = ast.BinaryOp(node.op, left, right, line=node.line, column=node.column)
        if _is_const(left) and _is_const(right):
            return self._evaluate(rebuilt)
        # undefined && false is false, undefined || true is true, whatever is on the left (but an error)
        if _is_const(right) and self._truth(right) == short and (truth is not None or self.whatever_the_ads):
            return ast.Literal(short == "true", line=node.line, column=node.column)
        return rebuilt

    def _attr(self, node: ast.AttrRef, expanding: tuple) -> ast.Node:
        ref = Reference(node.name, node.scope, node.line, node.column)
        key = node.name.lower()
        if node.scope in (None, "MY") and self.my is not None and key in self.my \
                and key not in expanding and len(expanding) < _MAX_SUBSTITUTION_DEPTH:
            self.result.resolved.append(ref)
            expr = self.my[node.name]
            if isinstance(expr, str):  # mappings of name -> expression text
                from condorcfg.classad.parser import ClassAdSyntaxError, parse

                try:
                    expr = parse(expr)
                except ClassAdSyntaxError:
                    self.result.resolved.pop()
                    self.result.unresolved.append(ref)
                    return node
            if not isinstance(expr, ast.Node):
                folded = _literal(expr, node)
                return folded if folded is not None else node
            value = self.fold(expr, expanding + (key,))
            if type(value) in (ast.Literal, ast.AttrRef, ast.Paren, ast.Call):
                return value
            return ast.Paren(value, line=node.line, column=node.column)
        if node.scope is None and key in _SPECIAL_NAMES:
            self.result.unresolved.append(ref)
            return node
        if node.scope == "MY":
            # MY.x of an attribute the slot does not have: undefined, no fallback
            if self.my is not None and key not in expanding:
                self.result.resolved.append(ref)
                return ast.Literal(UNDEFINED, line=node.line, column=node.column)
        self.result.unresolved.append(ref)
        return node
