"""ClassAd expression trees: plain, immutable-ish data with source positions.

Every node carries ``line``/``column`` (1-based, relative to the parsed text)
so lint findings can point inside an expression.  Positions do not take part
in equality: ``parse(unparse(e)) == e`` compares structure only.

The node classes are slotted classes written out by hand, not dataclasses: a parse makes
one object per node (a dataclass ``__init__`` and ``__dict__`` cost about twice as much),
and creating thirteen dataclasses costs every command ~7 ms of start-up.  Each class
lists its structure in ``FIELDS`` (what equality compares, in order); :meth:`Node.replace`
and :func:`fields_of` are what generic tree code uses.
"""
from __future__ import annotations


class Node:
    """A node of an expression tree; compared by type and ``FIELDS`` (positions are not compared)."""

    # ``_compiled``: the evaluator's compiled form of this tree, kept with it (a global cache of trees
    # made the garbage collector rescan thousands of them).  Until it is compiled: unset or None, or,
    # on a root the parser made, the number of its tokens (which bounds its nodes and its depth:
    # the evaluator reads such a tree without compiling it the first time)
    __slots__ = ("line", "column", "_compiled")
    FIELDS: tuple[str, ...] = ()  # the structure, in order
    __hash__ = None  # compared by structure and not frozen: not hashable (as the dataclasses were)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        # lists, as the dataclasses compared tuples: an element compares equal to itself first (a NaN value)
        return [getattr(self, name) for name in self.FIELDS] == [getattr(other, name) for name in self.FIELDS]

    def __repr__(self) -> str:  # position-free (the printer, which imports this module, spells text)
        return f"{type(self).__name__}(" + ", ".join(repr(getattr(self, name)) for name in self.FIELDS) + ")"

    def __getstate__(self):  # pickling (values and ads are picklable): the compiled form is not
        slots = {}
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name != "_compiled" and hasattr(self, name):
                    slots[name] = getattr(self, name)
        return None, slots

    def replace(self, **changes) -> "Node":
        """A copy with some fields changed (positions and ``spelling`` kept; not the compiled form)."""
        copy = object.__new__(type(self))
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name != "_compiled":
                    setattr(copy, name, changes[name] if name in changes else getattr(self, name))
        return copy


def fields_of(node: Node) -> list:
    """The structure of ``node``: its ``FIELDS`` values, in order (sub-nodes, lists, names, values)."""
    return [getattr(node, name) for name in node.FIELDS]


class Literal(Node):
    """int, float, str, bool, UNDEFINED, ERROR, AbsTime or RelTime value.

    ``spelling`` (rarely set) is the text HTCondor prints for this literal when
    that is not the canonical print of ``value``: HTCondor 25.14.1 folds
    ``relTime("1:00")`` at parse time into a literal that evaluates as the
    *real* 60.0 but prints back as ``relTime("01:00")``.  It is not compared.
    """

    __slots__ = ("value", "spelling")
    FIELDS = ("value",)

    def __init__(self, value: object, line: int = 0, column: int = 0, *, spelling: str | None = None):
        self.value = value
        self.spelling = spelling
        self.line = line
        self.column = column


class AttrRef(Node):
    """A name, optionally scoped: ``x``, ``MY.x``, ``TARGET.x``, ``.x`` (absolute).

    ``scope`` is ``None``, ``"MY"``, ``"TARGET"``, ``"OTHER"``, ``"PARENT"`` or
    ``"ROOT"`` (for a leading dot).  ``scope_text`` keeps the spelling written
    (``my``, ``Target`` ...) for printing.  ``quoted`` is true for ``'odd name'``.
    """

    __slots__ = FIELDS = ("name", "scope", "scope_text", "quoted")

    def __init__(self, name: str, scope: str | None = None, scope_text: str | None = None, quoted: bool = False,
                 line: int = 0, column: int = 0):
        self.name = name
        self.scope = scope
        self.scope_text = scope_text
        self.quoted = quoted
        self.line = line
        self.column = column


class Select(Node):
    """``base.name`` where ``base`` is an expression (not a scope keyword)."""

    __slots__ = FIELDS = ("base", "name")

    def __init__(self, base: Node, name: str, line: int = 0, column: int = 0):
        self.base = base
        self.name = name
        self.line = line
        self.column = column


class Subscript(Node):
    __slots__ = FIELDS = ("base", "index")

    def __init__(self, base: Node, index: Node, line: int = 0, column: int = 0):
        self.base = base
        self.index = index
        self.line = line
        self.column = column


class UnaryOp(Node):
    __slots__ = FIELDS = ("op", "operand")  # op: '-', '+', '!', '~'

    def __init__(self, op: str, operand: Node, line: int = 0, column: int = 0):
        self.op = op
        self.operand = operand
        self.line = line
        self.column = column


class BinaryOp(Node):
    __slots__ = FIELDS = ("op", "left", "right")  # op: '+', '==', '=?=', 'is', '&&', '<<', ...

    def __init__(self, op: str, left: Node, right: Node, line: int = 0, column: int = 0):
        self.op = op
        self.left = left
        self.right = right
        self.line = line
        self.column = column


class Conditional(Node):
    __slots__ = FIELDS = ("cond", "then", "otherwise")

    def __init__(self, cond: Node, then: Node, otherwise: Node, line: int = 0, column: int = 0):
        self.cond = cond
        self.then = then
        self.otherwise = otherwise
        self.line = line
        self.column = column


class Elvis(Node):
    """``left ?: right``: left unless it is undefined."""

    __slots__ = FIELDS = ("left", "right")

    def __init__(self, left: Node, right: Node, line: int = 0, column: int = 0):
        self.left = left
        self.right = right
        self.line = line
        self.column = column


class Call(Node):
    __slots__ = FIELDS = ("name", "args")  # name as written; look-up is case-insensitive

    def __init__(self, name: str, args: list, line: int = 0, column: int = 0):
        self.name = name
        self.args = args
        self.line = line
        self.column = column


class ListExpr(Node):
    __slots__ = FIELDS = ("items",)

    def __init__(self, items: list, line: int = 0, column: int = 0):
        self.items = items
        self.line = line
        self.column = column


class RecordExpr(Node):
    """``[ a = 1; b = 2 ]``: ordered (name, expr) pairs; a repeated name keeps the last."""

    __slots__ = FIELDS = ("attrs",)

    def __init__(self, attrs: list, line: int = 0, column: int = 0):
        self.attrs = attrs
        self.line = line
        self.column = column


class Paren(Node):
    """Parentheses as written: HTCondor prints them back."""

    __slots__ = FIELDS = ("inner",)

    def __init__(self, inner: Node, line: int = 0, column: int = 0):
        self.inner = inner
        self.line = line
        self.column = column


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
