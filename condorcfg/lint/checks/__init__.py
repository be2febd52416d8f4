"""Registry of the Python lint checks, by the name a rule's ``check:`` key uses.

A check module in this package registers its functions with the decorator::

    from condorcfg.lint.checks import check

    @check("job_attr_in_is_owner")          # or plain @check: the function's own name
    def job_attr_in_is_owner(ctx):           # ctx: condorcfg.lint.engine.LintContext
        definition = ctx.config.source("IS_OWNER")
        ...
        yield ctx.finding("IS_OWNER refers to job attribute Owner", at=definition)

A check yields Diagnostics (``ctx.finding`` fills in the rule's code, slug and severity and
the template/override provenance).  Once its rule has MAX_FINDINGS_PER_RULE findings, the
rest are only counted by their place: a check that can make one per line may then, while
``ctx.counting``, yield ``ctx.place(at, span)`` instead.  The modules are imported on first
use only, so a lint run that needs no Python check never pays for them.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable

CheckFunction = Callable[..., Iterable]

_REGISTRY: dict[str, CheckFunction] = {}
_imported = False


def check(name: str | Callable | None = None):
    """Register a check function under ``name`` (default: the function's ``__name__``)."""

    def register(function: CheckFunction, key: str | None = None) -> CheckFunction:
        key = key or function.__name__
        existing = _REGISTRY.get(key)
        if existing is not None and existing is not function and (
                existing.__module__, existing.__qualname__) != (function.__module__, function.__qualname__):
            raise ValueError(f"lint check {key!r} registered twice: {existing.__module__} and {function.__module__}")
        _REGISTRY[key] = function
        return function

    if callable(name):  # used bare: @check
        return register(name)
    return lambda function: register(function, name)


def import_check_modules(modules=None) -> list[tuple[str, BaseException]]:
    """Import the check modules (all, or just those named, e.g. ``{"pol", "sec"}``) once each.

    Returns (module, error) for every module that failed to import so far.  A rule's checks
    normally live in the module named after its family (POL501 -> ``pol``), so a run of a few
    selected rules imports only their modules; :func:`get_check` imports the rest if needed.
    """
    global _imported
    if not _imported:
        wanted = sorted({entry[:-3] for directory in __path__ for entry in os.listdir(directory)
                         if entry.endswith(".py") and not entry.startswith("_")})
        if modules is None:
            _imported = True
        else:
            wanted = [name for name in wanted if name in modules]
        for name in wanted:
            if name in _attempted:
                continue
            _attempted.add(name)
            try:
                importlib.import_module(f"{__name__}.{name}")
            except Exception as exc:  # a broken check module must not stop the other rules
                _import_failures.append((f"{__name__}.{name}", exc))
    return list(_import_failures)


_import_failures: list[tuple[str, BaseException]] = []
_attempted: set[str] = set()


def get_check(name: str) -> CheckFunction | None:
    """The check registered as ``name``, or None (importing every check module if it is not yet known)."""
    if name not in _REGISTRY:
        import_check_modules()
    return _REGISTRY.get(name)


def registered() -> dict[str, CheckFunction]:
    import_check_modules()
    return dict(_REGISTRY)
