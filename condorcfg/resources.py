"""Where the data shipped with the code lives: HTCondor's templates and the lint rules.

The repository keeps them in the top-level ``templates/`` and ``rules/`` folders;
``pyproject.toml`` maps those folders into the package as ``condorcfg.templates`` and
``condorcfg.rules``, so every kind of install (editable, wheel, ``--user``, ``--target``,
pipx, pre-commit's environment) finds them through :mod:`importlib.resources`, the same way.
"""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from condorcfg.diagnostics import CondorcfgError, Diagnostic

DATA_PACKAGES = {"templates": "condorcfg.templates", "rules": "condorcfg.rules"}


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """The folder of the data package ``name`` ("templates" or "rules") as a file-system path."""
    package = DATA_PACKAGES[name]
    try:
        found = files(package)
    except ModuleNotFoundError:
        found = None
    if not isinstance(found, Path) or not found.is_dir():
        raise CondorcfgError(Diagnostic(
            "error", f"this installation of condorcfg lacks its {name} (package data {package}); "
                     f"reinstall it with `pip install condorcfg` (a zipped install is not supported)",
            code="installation"))
    return found
