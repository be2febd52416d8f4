"""Packaging: what a wheel carries is what the code looks for.

The installed product itself (a wheel in a fresh virtual environment, run from outside the
checkout) is exercised by tests/installed/, which `make test` runs after this suite.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from condorcfg import resources

ROOT = Path(__file__).resolve().parents[1]


def _setuptools():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_code_package_is_listed():
    listed = set(_setuptools()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "condorcfg").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_data_folders_are_mapped_into_the_package():
    setuptools = _setuptools()
    for name, package in resources.DATA_PACKAGES.items():
        assert setuptools["package-dir"][package] == name
        assert package in setuptools["packages"]
        assert (ROOT / name / "__init__.py").is_file()


def test_data_dirs_are_found_through_the_package():
    assert sorted(p.name for p in resources.data_dir("templates").glob("*.config")) == sorted(
        p.name for p in (ROOT / "templates").glob("*.config"))
    assert sorted(p.name for p in resources.data_dir("rules").glob("*.yaml")) == sorted(
        p.name for p in (ROOT / "rules").glob("*.yaml"))


def test_the_pre_commit_hook_definition():
    """Every commit runs the hook (deletions pass no file names), and `--` keeps names from being options."""
    from ruamel.yaml import YAML

    [hook] = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["language"], hook["entry"]) == ("condorcfg", "python", "condorcfg lint --pre-commit --")
    assert hook["always_run"] is True and hook["pass_filenames"] is True and hook["require_serial"] is True
    assert "files" not in hook  # condorcfg, not a name pattern, decides what is configuration


def test_the_readme_pins_the_current_release():
    import re

    from condorcfg import __version__

    assert re.findall(r"^\s+rev: (\S+)", (ROOT / "README.md").read_text(), re.M) == [f"v{__version__}"]
