"""Registry of the Python lint checks, by the name a rule's ``check:`` key uses.

A check module in this package registers its functions with the decorator::

    from condorcfg.lint.checks import check

    @check("job_attr_in_is_owner")          # or plain @check: the function's own name
    def job_attr_in_is_owner(ctx):           # ctx: condorcfg.lint.engine.LintContext
        definition = ctx.config.source("IS_OWNER")
        ...
        yield ctx.finding("IS_OWNER refers to job attribute Owner", at=definition)

A check yields Diagnostics (``ctx.finding`` fills in the rule's code, slug and severity and
the template/override provenance).  The modules are imported on the first lookup only, so a
lint run that needs no Python check never pays for them.
"""
from __future__ import annotations

import importlib
import pkgutil
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


def import_check_modules() -> list[tuple[str, BaseException]]:
    """Import every module of this package once; return (module, error) for those that fail."""
    global _imported
    failures = []
    if not _imported:
        _imported = True
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_"):
                continue
            try:
                importlib.import_module(f"{__name__}.{info.name}")
            except Exception as exc:  # a broken check module must not stop the other rules
                failures.append((f"{__name__}.{info.name}", exc))
        _import_failures.extend(failures)
    return list(_import_failures)


_import_failures: list[tuple[str, BaseException]] = []


def get_check(name: str) -> CheckFunction | None:
    """The check registered as ``name``, or None."""
    if name not in _REGISTRY:
        import_check_modules()
    return _REGISTRY.get(name)


def registered() -> dict[str, CheckFunction]:
    import_check_modules()
    return dict(_REGISTRY)
