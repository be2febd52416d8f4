"""The pre-commit hooks (`condorcfg lint --pre-commit --` and `condorcfg test`) on a copy of examples/pool.

The hook lints the roles a commit touches: those reading a changed file, those that looked where a
deleted file was, and every role when the settings, a machine profile or the baseline change.  The
hook is run in-process as pre-commit runs it (from the top of the repository, the staged files after
``--``, ``PRE_COMMIT=1``; ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF`` for a range), from outside the
repository with absolute paths, and once through pre-commit itself.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from condorcfg.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pool"
ROLES = ["cm", "ap", "ep-cpu", "ep-gpu"]
GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]
BAD = 'IS_OWNER = Owner == "bob"\n'  # POL501
LAYERS = {"cm": ["common", "roles/cm"], "ap": ["common", "roles/ap"],
          "ep-cpu": ["common", "roles/ep", "roles/ep-cpu"], "ep-gpu": ["common", "roles/ep", "roles/ep-gpu"]}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _write(repo: Path, name: str, text: str) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)


def _append(repo: Path, name: str, text: str) -> None:
    _write(repo, name, (repo / name).read_text() + text)


def _stage(repo: Path, *names: str) -> None:
    _git(repo, "add", "-A", "--", *names)


def _role_files(repo: Path, role: str) -> set[str]:
    """The files role ``role`` reads as the JSON report names them (relative to the repository)."""
    kept: dict[str, str] = {}
    for layer in LAYERS[role]:  # (the later folder's file wins on equal names)
        for path in sorted((repo / layer / "config.d").iterdir()):
            kept[path.name] = f"{layer}/config.d/{path.name}"
    files = {"common/condor_config", *kept.values()}
    return files | {"roles/ep-gpu/condor_config.local.j2"} if role == "ep-gpu" else files


def _all_files(repo: Path) -> set[str]:
    return set().union(*(_role_files(repo, role) for role in ROLES))


@pytest.fixture
def pool(tmp_path, monkeypatch) -> Path:
    """A copy of examples/pool as a git repository, the current directory, in the environment of a hook."""
    repo = tmp_path / "pool"
    shutil.copytree(EXAMPLE, repo)
    for key in list(os.environ):
        if key.upper().startswith(("_CONDOR_", "GIT_", "PRE_COMMIT")) or key in ("CONDOR_CONFIG", "GITHUB_ACTIONS"):
            monkeypatch.delenv(key)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the pool")
    monkeypatch.setenv("PRE_COMMIT", "1")  # (as pre-commit sets it for its hooks)
    monkeypatch.chdir(repo)
    return repo


def hook(capsys, *files: str, fmt: str = "json"):
    """The lint hook as pre-commit runs it: (exit status, report: JSON parsed, text as is, stderr)."""
    argv = ["lint", "--pre-commit", *(["--format", fmt] if fmt != "text" else []), "--", *map(str, files)]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if fmt == "json" else out), err


def findings(report: dict) -> list[tuple]:
    return [(f["code"], f["file"], f.get("roles")) for f in report["findings"]]


# ------------------------------------------------------------------------------------------------- what is linted

def test_the_clean_example_passes_the_hook(pool, capsys):
    code, report, err = hook(capsys, ".condorcfg.yaml")
    assert code == 0 and report["findings"] == [], err
    assert set(report["files"]) == _all_files(pool)


def test_changing_an_ep_gpu_fragment_lints_only_ep_gpu(pool, capsys):
    _append(pool, "roles/ep-gpu/config.d/65-gpus", "MAX_JOBS_RUNNING = 400\n")
    _stage(pool, "roles/ep-gpu/config.d/65-gpus")
    code, report, err = hook(capsys, "roles/ep-gpu/config.d/65-gpus")
    assert code == 0 and report["findings"] == [], err
    assert set(report["files"]) == _role_files(pool, "ep-gpu")
    _append(pool, "roles/ep-gpu/config.d/65-gpus", BAD)
    _stage(pool, "roles/ep-gpu/config.d/65-gpus")
    code, report, _ = hook(capsys, "roles/ep-gpu/config.d/65-gpus")
    assert code == 1 and findings(report) == [("POL501", "roles/ep-gpu/config.d/65-gpus", ["ep-gpu"])]
    assert set(report["files"]) == _role_files(pool, "ep-gpu")
    code, text, _ = hook(capsys, "roles/ep-gpu/config.d/65-gpus", fmt="text")
    assert code == 1 and "error POL501 job-attr-in-is-owner [ep-gpu] " in text and "in 13 files" in text


def test_changing_the_gpu_template_lints_only_ep_gpu(pool, capsys):
    _append(pool, "roles/ep-gpu/condor_config.local.j2", "{% if gpu_count > 2 %}" + BAD + "{% endif %}")
    _stage(pool, "roles/ep-gpu/condor_config.local.j2")
    code, report, err = hook(capsys, "roles/ep-gpu/condor_config.local.j2")
    assert code == 1, err
    assert findings(report) == [("POL501", "roles/ep-gpu/condor_config.local.j2", ["ep-gpu"])]
    assert set(report["files"]) == _role_files(pool, "ep-gpu")


def test_changing_a_shared_fragment_lints_all_four_roles(pool, capsys):
    _append(pool, "common/config.d/20-network", BAD)
    _stage(pool, "common/config.d/20-network")
    code, report, err = hook(capsys, "common/config.d/20-network")
    assert code == 1, err
    assert findings(report) == [("POL501", "common/config.d/20-network", ROLES)]
    assert set(report["files"]) == _all_files(pool)


def test_changing_the_ep_file_the_gpu_nodes_replace_lints_only_ep_cpu(pool, capsys):
    _append(pool, "roles/ep/config.d/70-start-policy", BAD)
    _stage(pool, "roles/ep/config.d/70-start-policy")
    code, report, _ = hook(capsys, "roles/ep/config.d/70-start-policy")
    assert code == 1 and findings(report) == [("POL501", "roles/ep/config.d/70-start-policy", ["ep-cpu"])]
    assert set(report["files"]) == _role_files(pool, "ep-cpu")


def test_a_new_file_in_the_shared_ep_folder_lints_both_execute_roles(pool, capsys):
    _write(pool, "roles/ep/config.d/90-owner", BAD)
    _stage(pool, "roles/ep/config.d/90-owner")
    code, report, _ = hook(capsys, "roles/ep/config.d/90-owner")
    assert code == 1 and findings(report) == [("POL501", "roles/ep/config.d/90-owner", ["ep-cpu", "ep-gpu"])]
    assert set(report["files"]) == _role_files(pool, "ep-cpu") | _role_files(pool, "ep-gpu")


def _commit_a_macro_and_its_use(pool: Path) -> None:
    """ep-gpu: 20-gpu-defs defines GPU_JOB, which 70-start-policy uses."""
    _write(pool, "roles/ep-gpu/config.d/20-gpu-defs", "GPU_JOB = (TARGET.RequestGPUs ?: 0) >= 1\n")
    policy = pool / "roles/ep-gpu/config.d/70-start-policy"
    text = policy.read_text()
    assert "&& (TARGET.RequestGPUs ?: 0) >= 1 \\" in text
    policy.write_text(text.replace("&& (TARGET.RequestGPUs ?: 0) >= 1 \\", "&& $(GPU_JOB) \\"))
    _git(pool, "add", "-A")
    _git(pool, "commit", "-qm", "a macro for GPU jobs")


def _undefined_gpu_job(report: dict) -> bool:
    return any("GPU_JOB" in f["message"] + " ".join(f["notes"]) and f["severity"] == "error"
               and f.get("roles") == ["ep-gpu"] for f in report["findings"])


def test_deleting_a_fragment_that_defines_a_macro_relints_its_role(pool, capsys, monkeypatch):
    _commit_a_macro_and_its_use(pool)
    code, report, err = hook(capsys, "roles/ep-gpu/config.d/70-start-policy")
    assert code == 0 and report["findings"] == [], err
    _git(pool, "rm", "-q", "roles/ep-gpu/config.d/20-gpu-defs")
    code, report, err = hook(capsys)  # (pre-commit passes no deleted file: it may pass nothing at all)
    assert code == 1 and _undefined_gpu_job(report), report["findings"]
    assert set(report["files"]) == _role_files(pool, "ep-gpu")
    code, report, _ = hook(capsys, "README.md")  # with another file of the commit
    assert code == 1 and _undefined_gpu_job(report)
    # in CI, pre-commit checks a range of commits: the deletion is found in it
    _git(pool, "commit", "-qm", "tidy up")
    code, report, _ = hook(capsys)
    assert code == 0 and report["files"] == []  # (nothing staged any more)
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "HEAD~1")
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "HEAD")
    code, report, _ = hook(capsys)
    assert code == 1 and _undefined_gpu_job(report)
    assert set(report["files"]) == _role_files(pool, "ep-gpu")


def test_deleting_a_replacing_file_relints_only_its_role(pool, capsys):
    """Deleting ep-gpu's 70-start-policy gives the GPU nodes ep's again: ep-gpu is linted, nothing else."""
    _git(pool, "rm", "-q", "roles/ep-gpu/config.d/70-start-policy")
    code, report, err = hook(capsys)
    assert code == 0, err
    assert set(report["files"]) == _role_files(pool, "ep-gpu")
    assert "roles/ep/config.d/70-start-policy" in report["files"]


@pytest.mark.parametrize("settings_file", [".condorcfg.yaml", "machines/gpu-4x.yaml", "machines/ep-16core.yaml"])
def test_changing_the_settings_or_a_profile_lints_all_roles(pool, capsys, settings_file):
    _write(pool, "common/config.d/35-owner", BAD)  # (already there: the change only re-checks it)
    _git(pool, "add", "-A")
    _git(pool, "commit", "-qm", "an old mistake", "--no-verify")
    _append(pool, settings_file, "# reviewed\n")
    _stage(pool, settings_file)
    code, report, err = hook(capsys, settings_file)
    assert code == 1, err
    assert set(report["files"]) == _all_files(pool)
    assert findings(report) == [("POL501", "common/config.d/35-owner", ROLES)]


def test_changing_the_baseline_lints_all_roles(pool, capsys):
    _write(pool, "roles/ep/config.d/90-owner", BAD)
    assert main(["lint", "--write-baseline", ".condorcfg-baseline.json"]) == 0
    capsys.readouterr()
    _append(pool, ".condorcfg.yaml", "baseline: .condorcfg-baseline.json\n")
    _git(pool, "add", "-A")
    _git(pool, "commit", "-qm", "adopt condorcfg")
    code, report, _ = hook(capsys, "README.md")
    assert code == 0 and report["files"] == []
    (pool / ".condorcfg-baseline.json").write_text('{"condorcfg-baseline": 1, "findings": []}\n')
    _stage(pool, ".condorcfg-baseline.json")
    code, report, err = hook(capsys, ".condorcfg-baseline.json")
    assert code == 1, err
    assert set(report["files"]) == _all_files(pool)
    assert findings(report) == [("POL501", "roles/ep/config.d/90-owner", ["ep-cpu", "ep-gpu"])]


@pytest.mark.parametrize("name", ["README.md", "tests/ep-gpu.yaml", "docs/runbook.txt"])
def test_files_no_role_reads_lint_nothing(pool, capsys, name):
    _write(pool, name, (pool / name).read_text() + "\nmore\n" if (pool / name).exists() else "notes\n")
    _stage(pool, name)
    code, report, err = hook(capsys, name)
    assert code == 0 and report["findings"] == [] and report["files"] == [], err
    code, text, err = hook(capsys, name, fmt="text")
    assert code == 0 and err == ""
    assert text in ("", "No findings.\n")  # (the text report's summary line: nothing was read)
    assert main(["lint", "--pre-commit", "-q", "--", name]) == 0
    assert capsys.readouterr() == ("", "")


def test_the_hook_from_outside_the_repository_gives_the_same_result(pool, capsys, monkeypatch):
    _write(pool, "roles/ep/config.d/90-owner", BAD)
    _stage(pool, "roles/ep/config.d/90-owner")
    code, inside, _ = hook(capsys, "roles/ep/config.d/90-owner", "README.md")
    monkeypatch.chdir(pool.parent)
    outside_code, outside, _ = hook(capsys, pool / "roles/ep/config.d/90-owner", pool / "README.md")
    assert (code, outside_code) == (1, 1)

    def absolute(report, cwd):
        return ([(f["code"], os.path.normpath(cwd / f["file"]), f["line"], f.get("roles")) for f in report["findings"]],
                sorted(os.path.normpath(cwd / f) for f in report["files"]))

    assert absolute(outside, pool.parent) == absolute(inside, pool)


# ------------------------------------------------------------------------------------------------- condorcfg test

def test_the_policy_test_hook(pool, capsys):
    assert main(["test"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("10 cases, 0 failed")
    _append(pool, "roles/ep-gpu/config.d/85-gpu-attributes", 'MachineOwner = "physics"\n')
    assert main(["test"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  a lab member's 1-GPU training job starts" in out and out.rstrip().endswith("10 cases, 1 failed")


# ------------------------------------------------------------------------------------------------- pre-commit itself

def test_through_pre_commit(pool, tmp_path):
    """pre-commit runs both hooks (this checkout's condorcfg as a local hook) on what is staged."""
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists():
        pytest.fail(f"pre-commit is not installed beside {sys.executable} (the test extra installs it)")
    condorcfg = f"{sys.executable} -m condorcfg"
    (pool / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n"
        f"      - {{id: condorcfg, name: condorcfg lint, entry: {condorcfg} lint --pre-commit --, language: system,"
        " always_run: true, pass_filenames: true, require_serial: true}\n"
        f"      - {{id: condorcfg-test, name: condorcfg policy tests, entry: {condorcfg} test, language: system,"
        " always_run: true, pass_filenames: false, require_serial: true}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "PYTHONPATH")}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")

    def pre_commit_run():
        done = subprocess.run([pre_commit, "run", "--color", "never"], cwd=pool, env=env, capture_output=True,
                              text=True, timeout=600)
        return done.returncode, done.stdout + done.stderr

    _git(pool, "add", ".pre-commit-config.yaml")
    code, output = pre_commit_run()
    assert code == 0, output
    _append(pool, "roles/ep-gpu/config.d/65-gpus", BAD)
    _stage(pool, "roles/ep-gpu/config.d/65-gpus")
    code, output = pre_commit_run()
    assert code == 1, output
    assert output.count("roles/ep-gpu/config.d/65-gpus:5:12: error POL501 job-attr-in-is-owner [ep-gpu] ") == 1
    assert "in 13 files" in output
    _git(pool, "checkout", "HEAD", "--", "roles/ep-gpu/config.d/65-gpus")
    _append(pool, "roles/ep/config.d/70-start-policy", "START = $(START) && TARGET.RequestCpus <= 2\n")
    _stage(pool, "roles/ep/config.d/70-start-policy")
    code, output = pre_commit_run()
    assert code == 1 and "FAIL  a pool user's 4-core analysis job needing CVMFS starts" in output, output
