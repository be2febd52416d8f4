"""Shared test fixtures: where ../shared is, and whether the HTCondor oracle is installed."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CONDORCFG_SHARED", ROOT.parent / "shared"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # so tests can `import oracle`


def shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"shared test material missing: {path} (CI keeps ../shared beside the clone; "
                    f"set CONDORCFG_SHARED to point elsewhere)")
    return path


@pytest.fixture(scope="session")
def shared():
    return shared_path


@pytest.fixture(scope="session")
def oracle():
    import oracle as oracle_module

    if not oracle_module.available():
        # Loud, not silent: the differential tests are the core of the suite.
        pytest.fail("the htcondor==25.14.1 oracle is not installed; run `make test` (installs the test extra)")
    return oracle_module
