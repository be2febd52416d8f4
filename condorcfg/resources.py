"""Where the data folders shipped beside the code live (templates/, rules/).

In a source checkout or an editable install they sit at the top of the
repository; a wheel installs them under ``<prefix>/share/condorcfg/``.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    checkout = Path(__file__).resolve().parents[1] / name
    if checkout.is_dir():
        return checkout
    installed = Path(sys.prefix) / "share" / "condorcfg" / name
    if installed.is_dir():
        return installed
    return checkout  # let the caller report the missing folder by its usual path
