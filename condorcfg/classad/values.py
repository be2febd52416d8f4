"""ClassAd values in Python.

bool, int, float and str map to Python's types; UNDEFINED and ERROR are
singletons; absolute and relative times are small wrappers; a list is a
:class:`ClassAdList` (a Python ``list`` of expression trees plus the ad they
are evaluated in, because ClassAd lists are lazy); a record is a
:class:`ClassAd` (an ordered, case-insensitive mapping of name -> expression).
"""
from __future__ import annotations

from collections.abc import MutableMapping

from condorcfg.classad.ast import Literal, Node


class _Singleton:
    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:  # never truthy: guard against accidental use in Python conditions
        return False

    def __reduce__(self):
        return self._name


UNDEFINED = _Singleton("UNDEFINED")
ERROR = _Singleton("ERROR")


class AbsTime:
    """Seconds since the epoch plus a UTC offset in seconds."""

    __slots__ = ("seconds", "offset")

    def __init__(self, seconds: int | float, offset: int = 0):
        self.seconds = seconds
        self.offset = offset

    def __eq__(self, other):
        return isinstance(other, AbsTime) and self.seconds == other.seconds and self.offset == other.offset

    def __hash__(self):
        return hash(("abstime", self.seconds, self.offset))

    def __repr__(self):
        return f"AbsTime({self.seconds!r}, {self.offset!r})"


class RelTime:
    """A duration in seconds."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: int | float):
        self.seconds = seconds

    def __eq__(self, other):
        return isinstance(other, RelTime) and self.seconds == other.seconds

    def __hash__(self):
        return hash(("reltime", self.seconds))

    def __repr__(self):
        return f"RelTime({self.seconds!r})"


class ClassAdList(list):
    """A ClassAd list value: the element *expressions* (ast nodes) and their scope.

    ClassAd lists are lazy: ``{1, 1 + 1}`` evaluates to itself and prints as
    ``{ 1,1 + 1 }``; an element is evaluated when something looks at it, in
    the ad the list was written in (``scope``).  Elements computed by a
    function are stored as ``Literal`` nodes.  Use
    :func:`condorcfg.classad.evaluator.to_python` for plain Python values.
    """

    __slots__ = ("scope", "shared")

    def __init__(self, items=(), scope: "ClassAd | None" = None, shared: bool = False):
        super().__init__(items)
        self.scope = scope
        # HTCondor keeps lists built by some functions (split, argsToList ...) as a
        # different value kind: `=?=` between the two kinds is false, within a kind error
        self.shared = shared

    def __repr__(self) -> str:
        return f"ClassAdList({list.__repr__(self)})"

    def __reduce__(self):
        return (ClassAdList, (list(self), self.scope, self.shared))


def _as_node(value):
    """A stored attribute value as an expression tree (Python values become literals)."""
    if isinstance(value, (Node, str)):
        return value
    return Literal(value)


class ClassAd(MutableMapping):
    """An ordered record of attribute name -> expression tree, names case-insensitive.

    Values stored are :class:`condorcfg.classad.ast.Node` trees.  Assigning a
    ``str`` stores the *expression text* (parsed with the old syntax when the
    evaluator first needs it); :meth:`set_value` stores a Python value as a
    literal and :meth:`set_expr` parses text at once.  ``parent`` is the
    enclosing ad for nested records.

    Each entry is ``[spelling, expr, compiled, depth, constant]``: the
    evaluator caches the compiled form of ``expr`` in the entry (a new entry
    on reassignment); depth -1 marks a literal whose value is ``constant``.
    """

    __slots__ = ("_data", "parent")

    def __init__(self, items=None, parent: "ClassAd | None" = None):
        self._data: dict[str, list] = {}
        self.parent = parent
        if items:
            for key, value in (items.items() if hasattr(items, "items") else items):
                self[key] = value

    @classmethod
    def _from_entries(cls, entries: dict, parent: "ClassAd | None") -> "ClassAd":
        """A new ad sharing ``entries`` (key -> entry list) with another ad (evaluator fast path)."""
        ad = cls.__new__(cls)
        ad._data = dict(entries)
        ad.parent = parent
        return ad

    def __getitem__(self, name: str):
        return self._data[name.lower()][1]

    def __setitem__(self, name: str, expr) -> None:
        key = name.lower()
        old = self._data.get(key)
        # keep the first spelling, as HTCondor does when an attribute is reassigned
        self._data[key] = [old[0] if old else name, expr, None, 0, None]

    def __delitem__(self, name: str) -> None:
        del self._data[name.lower()]

    def __iter__(self):
        return (entry[0] for entry in list(self._data.values()))

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and name.lower() in self._data

    def lookup(self, name: str):
        """The expression of ``name`` or None (no KeyError, fast path for the evaluator)."""
        entry = self._data.get(name.lower())
        return entry[1] if entry else None

    def set_value(self, name: str, value) -> None:
        """Store a Python value (int, float, str, bool, UNDEFINED, ERROR, times, lists, ads) as a literal."""
        self[name] = _as_node(value) if not isinstance(value, str) else _as_node_str(value)

    def __eq__(self, other):
        if not isinstance(other, ClassAd):
            return NotImplemented
        return {k: e[1] for k, e in self._data.items()} == {k: e[1] for k, e in other._data.items()}

    __hash__ = None

    def __reduce__(self):
        return (ClassAd, ([(e[0], e[1]) for e in self._data.values()], self.parent))

    def __repr__(self) -> str:
        return f"ClassAd({ {e[0]: e[1] for e in self._data.values()}!r})"


def _as_node_str(value: str):
    return Literal(value)


def type_name(value) -> str:
    """The ClassAd type of a value, as HTCondor names it (``int``, ``real``, ``string``, ``classad``...)."""
    if value is UNDEFINED:
        return "undefined"
    if value is ERROR:
        return "error"
    if isinstance(value, bool):  # before int: bool is an int in Python
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "string"
    if isinstance(value, AbsTime):
        return "abstime"
    if isinstance(value, RelTime):
        return "reltime"
    if isinstance(value, ClassAd):
        return "classad"
    if isinstance(value, (list, tuple)):  # ClassAdList included
        return "list"
    return type(value).__name__
