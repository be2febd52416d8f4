"""Where the data shipped with the code lives: HTCondor's templates and the lint rules.

The repository keeps them in the top-level ``templates/`` and ``rules/`` folders;
``pyproject.toml`` maps those folders into the package as ``condorcfg.templates`` and
``condorcfg.rules``, so every kind of install (editable, wheel, ``--user``, ``--target``,
pipx, pre-commit's environment) finds them the same way: through the import system, as the
folder of the data package (what ``importlib.resources.files`` gives for a package on the file
system, without its 11 ms of imports on every start-up).
"""
from __future__ import annotations

import os
import sys
from functools import lru_cache

from condorcfg.diagnostics import CondorcfgError, Diagnostic

DATA_PACKAGES = {"templates": "condorcfg.templates", "rules": "condorcfg.rules"}


@lru_cache(maxsize=None)
def data_dir(name: str) -> str:
    """The folder of the data package ``name`` ("templates" or "rules") as a file-system path.

    (A string, not a ``pathlib.Path``: reading a configuration needs no pathlib, whose import
    with ``urllib.parse`` and ``ipaddress`` costs ~5 ms of every ``condorcfg value``.)
    """
    package = DATA_PACKAGES[name]
    try:
        __import__(package)  # (not importlib.import_module: importing importlib brings warnings)
        locations = list(sys.modules[package].__path__)
    except (ImportError, AttributeError):
        locations = []
    found = locations[0] if len(locations) == 1 else None
    if found is None or not os.path.isdir(found):
        raise CondorcfgError(Diagnostic(
            "error", f"this installation of condorcfg lacks its {name} (package data {package}); "
                     f"reinstall it with `pip install condorcfg` (a zipped install is not supported)",
            code="installation"))
    return found
