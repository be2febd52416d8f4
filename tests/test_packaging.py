"""Packaging: what a wheel carries is what the code looks for.

The installed product itself (a wheel in a fresh virtual environment, run from outside the
checkout) is exercised by tests/installed/, which `make test` runs after this suite.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

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
    assert sorted(p.name for p in Path(resources.data_dir("templates")).glob("*.config")) == sorted(
        p.name for p in (ROOT / "templates").glob("*.config"))
    assert sorted(p.name for p in Path(resources.data_dir("rules")).glob("*.yaml")) == sorted(
        p.name for p in (ROOT / "rules").glob("*.yaml"))


def test_the_pre_commit_hook_definition():
    """Every commit runs the hook (deletions pass no file names), and `--` keeps names from being options."""
    from ruamel.yaml import YAML

    hook, tests = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["language"], hook["entry"]) == ("condorcfg", "python", "condorcfg lint --pre-commit --")
    assert hook["always_run"] is True and hook["pass_filenames"] is True and hook["require_serial"] is True
    assert "files" not in hook  # condorcfg, not a name pattern, decides what is configuration
    # policy tests: no file names at all (the tests name their configuration), so none can be an option
    assert (tests["id"], tests["entry"], tests["pass_filenames"]) == ("condorcfg-test", "condorcfg test", False)


def test_the_readme_pins_a_commit_that_exists():
    """Every pin of condorcfg in the README (pre-commit `rev:`, the Action, pip) is one commit of this
    repository that provides the hooks: a new user's `rev:` must resolve (there are no release tags)."""
    import re
    import shutil
    import subprocess

    readme = (ROOT / "README.md").read_text()
    pins = set(re.findall(r"^\s+rev: (\S+)", readme, re.M)) | set(re.findall(r"condorcfg@([\w.]+)", readme))
    assert len(pins) == 1 and re.fullmatch(r"[0-9a-f]{40}", next(iter(pins))), pins
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the pinned commit cannot be looked up")
    commit = next(iter(pins))
    hooks = subprocess.run(["git", "show", f"{commit}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True,
                           text=True)
    assert hooks.returncode == 0, f"the README pins {commit}, which is not a commit of this repository"
    assert "id: condorcfg\n" in hooks.stdout and "id: condorcfg-test\n" in hooks.stdout
    ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=ROOT)
    assert ancestor.returncode == 0, f"{commit} is not in the history of HEAD"


def test_the_github_action():
    """A composite action that installs this repository, lints, uploads SARIF, and fails on findings."""
    import re

    from ruamel.yaml import YAML

    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    scripts = [step["run"] for step in steps if "run" in step]
    assert any("pip install" in s and "CONDORCFG_SOURCE" in s for s in scripts)
    assert any("--format sarif" in s for s in scripts)
    assert any(step.get("uses", "").startswith("github/codeql-action/upload-sarif@") for step in steps)
    # no ${{ ... }} inside a script: inputs reach the shell as environment variables only
    assert not [s for s in scripts if re.search(r"\$\{\{", s)]
    assert set(action["inputs"]) >= {"args", "sarif-file", "upload-sarif"}


def _readme_yaml(first_line: str) -> str:
    import re

    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    [block] = [b for b in blocks if b.startswith(first_line)]
    return block


def _check_schema(builtin: str, path) -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", builtin, str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_action_and_the_readme_recipes_follow_the_published_schemas(tmp_path):
    _check_schema("vendor.github-actions", ROOT / "action.yml")
    workflow = tmp_path / "condorcfg.yml"
    workflow.write_text(_readme_yaml("# .github/workflows/condorcfg.yml"))
    _check_schema("vendor.github-workflows", workflow)
    gitlab = tmp_path / ".gitlab-ci.yml"
    gitlab.write_text(_readme_yaml("# .gitlab-ci.yml"))
    _check_schema("vendor.gitlab-ci", gitlab)


def test_the_readme_limits_table_matches_the_code():
    """The security model's table of limits is documentation of constants: it must not drift."""
    import importlib
    import re

    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^  \| `([A-Z_]+)` \| ([^|]+) \| `([a-z_/]+)\.py` \|$", text, re.MULTILINE)
    assert len(rows) >= 10
    units = {"files": 1, "statements": 1, "macro": 1, "units": 1, "slots": 1, "MiB": 1 << 20, "KiB": 1 << 10,
             "s": 1}
    for name, size, module in rows:
        value = getattr(importlib.import_module("condorcfg." + module.replace("/", ".")), name)
        number, unit = re.match(r"([\d.]+) (\w+)", size).groups()
        assert float(number) * units.get(unit, 1) == value, (name, size, value)


def test_every_action_is_pinned_by_commit_and_no_workflow_interpolates_into_a_script():
    """A tag can be moved to other code; an expression in a `run:` line is script injection
    (a branch name is chosen by whoever opens the pull request)."""
    import re

    from ruamel.yaml import YAML

    blocks = [(ROOT / "action.yml").read_text()]
    blocks += [b for b in re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
               if b.startswith("# .github/workflows/")]
    assert len(blocks) >= 3
    for text in blocks:
        data = YAML(typ="safe").load(text)
        steps = data["runs"]["steps"] if "runs" in data else [s for job in data["jobs"].values() for s in job["steps"]]
        for step in steps:
            uses = step.get("uses", "")
            if uses and not uses.startswith("your-org/"):  # (the reader's own pin of condorcfg)
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses
            assert "${{" not in step.get("run", ""), step["run"]
