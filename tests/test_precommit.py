"""The pre-commit hook, end to end with the real ``pre-commit`` tool.

The hook repository is a throwaway git repo made from this working tree (tracked and
untracked-but-not-ignored files, so it works in a fresh CI clone and with uncommitted work);
pre-commit installs it like a user's ``.pre-commit-config.yaml`` would (a `language: python`
hook: a virtualenv and `pip install .`, dependencies from PyPI).  A user repository with a
config tree then gets a bad commit rejected and a good one accepted.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}

pytestmark = pytest.mark.slow


def _git(cwd, *args, env=None, check=True):
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, check=check)


def _hook_repo(target: Path) -> str:
    """Copy this working tree into a fresh git repo at ``target``; return its HEAD commit."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode == 0:
        files = [f for f in listed.stdout.split("\0") if f]
    else:  # not a git checkout (e.g. an unpacked sdist): take the tree minus build products
        skip = {".git", ".venv", "build", "__pycache__", ".pytest_cache"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
    for name in files:
        source = ROOT / name
        if source.is_file():  # listed but deleted in the working tree: skip
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    env = {**os.environ, **GIT_ENV}
    _git(target, "init", "-q", env=env)
    _git(target, "add", "-A", env=env)
    _git(target, "commit", "-q", "-m", "hook repo snapshot", env=env)
    return _git(target, "rev-parse", "HEAD", env=env).stdout.strip()


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory):
    """A user's repository with the condorcfg hook installed; returns (path, env)."""
    base = tmp_path_factory.mktemp("precommit")
    hook_repo = base / "hook-repo"
    hook_repo.mkdir()
    rev = _hook_repo(hook_repo)
    repo = base / "pool-config"
    repo.mkdir()
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(base / "pre-commit-home"), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("CONDORCFG_RULES_DIR", None)
    _git(repo, "init", "-q", env=env)
    (repo / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
          - repo: {hook_repo}
            rev: {rev}
            hooks:
              - id: condorcfg
    """))
    # The project's rules change as they are written; the hook itself is what is tested here,
    # so the project selects the engine's own rules and makes them fail the commit.
    (repo / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.condorcfg]
        roots = ["etc/condor_config"]
        select = ["CFG001", "CFG002"]
        severity = {CFG002 = "error"}
    """))
    etc = repo / "etc"
    (etc / "config.d").mkdir(parents=True)
    (etc / "condor_config").write_text("LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\nLOCAL_CONFIG_FILE =\n")
    (etc / "config.d" / "10-base").write_text("DAEMON_LIST = MASTER\n")
    (repo / "README").write_text("not a config\n")
    installed = subprocess.run([str(PRE_COMMIT), "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    _git(repo, "add", "-A", env=env)
    first = _git(repo, "commit", "-q", "-m", "initial", env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    return repo, env


def _commit(repo, env, files: dict[str, str], message: str):
    for name, text in files.items():
        (repo / name).write_text(text)
    _git(repo, "add", *files, env=env)
    return _git(repo, "commit", "-m", message, env=env, check=False)


def test_bad_commit_is_rejected(user_repo):
    repo, env = user_repo
    result = _commit(repo, env, {"etc/config.d/20-slots": "# condorcfg: ignore[NOPE001]\nNUM_SLOTS = 2\n"},
                     "bad")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "etc/config.d/20-slots:1:21: error CFG002 invalid-suppression" in output
    # Rejected: nothing was committed, the file is still staged.
    assert "20-slots" in _git(repo, "diff", "--cached", "--name-only", env=env).stdout
    _git(repo, "reset", "-q", env=env)
    (repo / "etc/config.d/20-slots").unlink()


def test_good_commit_is_accepted(user_repo):
    repo, env = user_repo
    result = _commit(repo, env, {"etc/config.d/20-slots": "NUM_SLOTS = 2\n"}, "good")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "condorcfg lint" in result.stdout + result.stderr  # the hook ran (and passed)


def test_non_config_files_do_not_run_the_hook(user_repo):
    repo, env = user_repo
    result = _commit(repo, env, {"README": "still not a config\n"}, "docs")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(no files to check)" in result.stdout + result.stderr


def test_the_files_regex_picks_htcondor_config_names():
    import re

    from ruamel.yaml import YAML

    [hook] = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["language"], hook["entry"]) == ("condorcfg", "python", "condorcfg lint --pre-commit")
    files = re.compile(hook["files"])
    for name in ("condor_config", "etc/condor/condor_config.local", "etc/condor/config.d/10-startd",
                 "pool/ce.conf", "hosts/ep02.config", "condor_config.local", "x/y.local"):
        assert files.search(name), name
    for name in ("README.md", "config.d/sub/dir/file", "scripts/deploy.sh", "condor_configs/notes.txt"):
        assert not files.search(name), name
