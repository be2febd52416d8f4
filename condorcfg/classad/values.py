"""ClassAd values in Python.

bool, int, float, str and list map to Python's types; UNDEFINED and ERROR
are singletons; absolute and relative times are small wrappers; a record is
a :class:`ClassAd` (an ordered, case-insensitive mapping of name -> expression).
"""
from __future__ import annotations

from collections.abc import MutableMapping


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


class ClassAd(MutableMapping):
    """An ordered record of attribute name -> expression tree, names case-insensitive.

    Values stored are :class:`condorcfg.classad.ast.Node` trees; assigning a
    Python value or a string through :meth:`set_value` / :meth:`set_expr`
    converts it.  ``parent`` is the enclosing ad for nested records.
    """

    __slots__ = ("_data", "parent")

    def __init__(self, items=None, parent: "ClassAd | None" = None):
        self._data: dict[str, tuple[str, object]] = {}
        self.parent = parent
        if items:
            for key, value in (items.items() if hasattr(items, "items") else items):
                self[key] = value

    def __getitem__(self, name: str):
        return self._data[name.lower()][1]

    def __setitem__(self, name: str, expr) -> None:
        key = name.lower()
        old = self._data.get(key)
        # keep the first spelling, as HTCondor does when an attribute is reassigned
        self._data[key] = (old[0] if old else name, expr)

    def __delitem__(self, name: str) -> None:
        del self._data[name.lower()]

    def __iter__(self):
        return (spelled for spelled, _ in self._data.values())

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and name.lower() in self._data

    def lookup(self, name: str):
        """The expression of ``name`` or None (no KeyError, fast path for the evaluator)."""
        entry = self._data.get(name.lower())
        return entry[1] if entry else None

    def __repr__(self) -> str:
        return f"ClassAd({dict(self.items())!r})"
