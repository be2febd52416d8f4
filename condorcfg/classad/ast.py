"""ClassAd expression trees: plain, immutable-ish data with source positions.

Every node carries ``line``/``column`` (1-based, relative to the parsed text)
so lint findings can point inside an expression.  Positions do not take part
in equality: ``parse(unparse(e)) == e`` compares structure only.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=True, repr=False)
class Node:
    line: int = field(default=0, compare=False, kw_only=True)
    column: int = field(default=0, compare=False, kw_only=True)

    def __repr__(self) -> str:  # compact, position-free
        from condorcfg.classad.printer import unparse

        return f"<{type(self).__name__} {unparse(self)}>"


@dataclass(eq=True, repr=False)
class Literal(Node):
    """int, float, str, bool, UNDEFINED, ERROR, AbsTime or RelTime value.

    ``spelling`` (rarely set) is the text HTCondor prints for this literal when
    that is not the canonical print of ``value``: HTCondor 25.14.1 folds
    ``relTime("1:00")`` at parse time into a literal that evaluates as the
    *real* 60.0 but prints back as ``relTime("01:00")``.
    """

    value: object
    spelling: str | None = field(default=None, compare=False, kw_only=True)


@dataclass(eq=True, repr=False)
class AttrRef(Node):
    """A name, optionally scoped: ``x``, ``MY.x``, ``TARGET.x``, ``.x`` (absolute).

    ``scope`` is ``None``, ``"MY"``, ``"TARGET"``, ``"OTHER"``, ``"PARENT"`` or
    ``"ROOT"`` (for a leading dot).  ``scope_text`` keeps the spelling written
    (``my``, ``Target`` ...) for printing.  ``quoted`` is true for ``'odd name'``.
    """

    name: str
    scope: str | None = None
    scope_text: str | None = None
    quoted: bool = False


@dataclass(eq=True, repr=False)
class Select(Node):
    """``base.name`` where ``base`` is an expression (not a scope keyword)."""

    base: Node
    name: str


@dataclass(eq=True, repr=False)
class Subscript(Node):
    base: Node
    index: Node


@dataclass(eq=True, repr=False)
class UnaryOp(Node):
    op: str  # '-', '+', '!', '~'
    operand: Node


@dataclass(eq=True, repr=False)
class BinaryOp(Node):
    op: str  # '+', '==', '=?=', 'is', '&&', '<<', ...
    left: Node
    right: Node


@dataclass(eq=True, repr=False)
class Conditional(Node):
    cond: Node
    then: Node
    otherwise: Node


@dataclass(eq=True, repr=False)
class Elvis(Node):
    """``left ?: right``: left unless it is undefined."""

    left: Node
    right: Node


@dataclass(eq=True, repr=False)
class Call(Node):
    name: str  # as written; look-up is case-insensitive
    args: list


@dataclass(eq=True, repr=False)
class ListExpr(Node):
    items: list


@dataclass(eq=True, repr=False)
class RecordExpr(Node):
    """``[ a = 1; b = 2 ]``: ordered (name, expr) pairs; a repeated name keeps the last."""

    attrs: list


@dataclass(eq=True, repr=False)
class Paren(Node):
    """Parentheses as written: HTCondor prints them back."""

    inner: Node


def children(node: Node) -> tuple:
    """The direct sub-expressions of a node, in source order."""
    kind = type(node)
    if kind is BinaryOp or kind is Elvis:
        return (node.left, node.right)
    if kind is UnaryOp:
        return (node.operand,)
    if kind is Select:
        return (node.base,)
    if kind is Subscript:
        return (node.base, node.index)
    if kind is Paren:
        return (node.inner,)
    if kind is Conditional:
        return (node.cond, node.then, node.otherwise)
    if kind is Call:
        return tuple(node.args)
    if kind is ListExpr:
        return tuple(node.items)
    if kind is RecordExpr:
        return tuple(expr for _, expr in node.attrs)
    return ()


def walk(node: Node):
    """Every node of a tree, parents first (iterative: deep trees must not overflow the stack)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        yield current
        stack.extend(reversed(children(current)))
