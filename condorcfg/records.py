"""Small record classes: what ``@dataclass`` gave condorcfg, without its start-up cost.

Creating a dataclass generates and compiles source code for each class (about 0.5-1 ms a
class), and ``import dataclasses`` brings ``inspect`` (~8 ms): a cold ``condorcfg lint``
spent ~25 ms of its start-up on them.  :func:`record` builds the same things from the class
body without compiling anything:

* the fields are the annotated names, in order; a class attribute is the field's default,
  ``factory(list)`` a default made fresh for each instance (dataclasses' ``default_factory``)
  and ``factory(dict, init=False)`` a field the constructor does not take;
* ``__init__(*fields)`` positional or by keyword, ``__repr__``, ``__eq__`` (same class, equal
  fields) and, with ``frozen=True``, ``__hash__`` (the instance is immutable by convention);
* :func:`as_dict` (``dataclasses.asdict``) and :func:`fields_of` (the names, from the class's
  ``__record_fields__``) for generic code.

Classes made in great numbers (statements, locations, tree nodes) are written out by hand
with ``__slots__`` instead: a generic ``__init__`` costs a few microseconds per instance.
"""
from __future__ import annotations

_MISSING = object()


class factory:
    """A field default made by calling ``make()`` for each instance; ``init=False``: not a parameter."""

    __slots__ = ("make", "init")

    def __init__(self, make, init: bool = True):
        self.make = make
        self.init = init


def record(cls=None, *, frozen: bool = False):
    """Class decorator (see the module docstring); ``@record`` or ``@record(frozen=True)``."""
    if cls is None:
        return lambda actual: _build(actual, frozen)
    return _build(cls, frozen)


def _build(cls, frozen: bool):
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = {}
    for name in names:
        default = cls.__dict__.get(name, _MISSING)
        if default is not _MISSING:
            defaults[name] = default
            if isinstance(default, factory):
                delattr(cls, name)  # an instance attribute, not a class attribute holding the factory
    parameters = tuple(n for n in names if not (isinstance(defaults.get(n), factory) and not defaults[n].init))
    later = tuple(n for n in names if n not in parameters)

    def __init__(self, *args, **kwargs):
        if len(args) > len(parameters):
            raise TypeError(f"{cls.__name__}() takes {len(parameters)} arguments, {len(args)} given")
        for name, value in zip(parameters, args):
            setattr(self, name, value)
        for name in parameters[len(args):]:
            value = kwargs.pop(name, _MISSING)
            if value is _MISSING:
                value = defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{cls.__name__}() is missing the argument {name!r}")
                if isinstance(value, factory):
                    value = value.make()
            setattr(self, name, value)
        if kwargs:
            raise TypeError(f"{cls.__name__}() got unexpected arguments {', '.join(map(repr, kwargs))}")
        for name in later:
            setattr(self, name, defaults[name].make())

    def _key(self) -> tuple:  # the constructor's fields (a field it does not take is a cache: not compared)
        return tuple(getattr(self, name) for name in parameters)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _key(self) == _key(other)

    def __repr__(self) -> str:
        return f"{cls.__qualname__}(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in parameters) + ")"

    cls.__init__ = __init__
    if "__eq__" not in cls.__dict__:
        cls.__eq__ = __eq__
        cls.__hash__ = (lambda self: hash(_key(self))) if frozen else None
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = __repr__
    cls.__record_fields__ = names
    return cls


def fields_of(instance) -> tuple[str, ...]:
    """The field names of a record instance or class, in order."""
    return instance.__record_fields__


def as_dict(value):
    """A record as a dict of its fields, recursively (records in lists, tuples and dicts too)."""
    names = getattr(type(value), "__record_fields__", None)
    if names is not None:
        return {name: as_dict(getattr(value, name)) for name in names}
    if isinstance(value, list):
        return [as_dict(item) for item in value]
    if isinstance(value, tuple):
        return tuple(as_dict(item) for item in value)
    if isinstance(value, dict):
        return {key: as_dict(item) for key, item in value.items()}
    return value
