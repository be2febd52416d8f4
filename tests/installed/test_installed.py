"""The product users install: the wheel in a fresh virtual environment, run from outside the checkout.

An editable install finds its data files through the checkout and hides packaging mistakes
(templates or rules missing from the wheel, paths guessed from ``sys.prefix``).  Here the wheel
is built from this tree, installed (not editable) into a new virtual environment, and every
command is run from a directory outside the checkout; then a throwaway pool-configuration
repository uses the README's ``.pre-commit-config.yaml``, pinned to a release tag, so pre-commit
builds the hook's own environment from the hook repository exactly as it does for users.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from condorcfg import __version__

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}

pytestmark = pytest.mark.slow


def _run(argv, cwd, env=None, check=True, timeout=600):
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def _clean_env(**extra) -> dict:
    """The environment of a user's shell: no checkout on the path, no test-only overrides."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CONDORCFG_RULES_DIR", "GITHUB_ACTIONS", "CONDOR_CONFIG", "VIRTUAL_ENV")}
    env.update(NO_COLOR="1", **extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(condorcfg executable, a working directory outside the checkout)."""
    base = tmp_path_factory.mktemp("installed")
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, ROOT], cwd=base)
    [wheel] = dist.glob("condorcfg-*.whl")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=base)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], cwd=base, env=_clean_env())
    outside = base / "work"
    outside.mkdir()
    return venv / "bin" / "condorcfg", outside


def _condorcfg(installed, *args, cwd=None, env=None):
    exe, outside = installed
    return _run([exe, *args], cwd=cwd or outside, env=env or _clean_env(), check=False)


def test_the_installed_package_is_not_the_checkout(installed):
    exe, outside = installed
    python = exe.with_name("python")
    where = _run([python, "-c", "import condorcfg, condorcfg.resources as r; "
                                "print(condorcfg.__file__); print(r.data_dir('templates')); print(r.data_dir('rules'))"],
                 cwd=outside, env=_clean_env()).stdout.split()
    assert all("site-packages" in path and not path.startswith(str(ROOT)) for path in where), where
    assert _condorcfg(installed, "--version").stdout.strip() == f"condorcfg {__version__}"


def test_value_reads_templates(installed):
    config = EXAMPLES / "etc" / "condor_config"
    result = _condorcfg(installed, "value", "--config", config, "--machine", EXAMPLES / "machines" / "ep-64core.yaml",
                        "START", "IS_OWNER", "NUM_CPUS")
    assert result.returncode == 0, result.stderr
    assert "unknown template" not in result.stderr
    # an AUTO_USE template of the schedd (built-in AUTO_USE_FEATURE_PelicanRetryPolicy = $(IsSchedd))
    result = _condorcfg(installed, "value", "--config", config, "--subsystem", "SCHEDD", "PelicanRetry_MaxRetries")
    assert (result.returncode, result.stdout.strip()) == (0, "4"), result.stderr


def test_ads_lint_and_diff_on_the_example_pool(installed, tmp_path):
    config = EXAMPLES / "etc" / "condor_config"
    machine = EXAMPLES / "machines" / "ep-64core.yaml"
    ads = _condorcfg(installed, "ads", "--config", config, "--machine", machine, "--format", "json")
    assert ads.returncode == 0, ads.stderr
    assert [ad["Name"] for ad in json.loads(ads.stdout)][:1] == ["slot1@ep01.example.org"]
    lint = _condorcfg(installed, "lint", "--config-root", config, "--machine", machine, "--format", "json")
    report = json.loads(lint.stdout)
    assert lint.returncode == 0 and report["tool"]["version"] == __version__, lint.stdout + lint.stderr
    assert report["counts"]["error"] == 0 and len(report["files"]) > 3
    new = tmp_path / "new"
    shutil.copytree(EXAMPLES / "etc", new)
    (new / "config.d" / "99-more").write_text("NUM_CPUS = 8\n")
    diff = _condorcfg(installed, "diff", config, new / "condor_config", "--machine", machine, "--format", "json")
    assert diff.returncode == 1, diff.stderr
    assert [c["name"] for c in json.loads(diff.stdout)["values"]] == ["NUM_CPUS"]


def test_the_corpus_reads_the_same_installed(installed, shared, tmp_path, capsys):
    """Every real configuration with `use` lines (templates) gives the installed wheel the same values
    as the tested checkout."""
    from condorcfg.cli import main

    real = shared("corpus", "real")
    rows = [json.loads(line) for line in (real / "golden.jsonl").read_text().splitlines() if line.strip()]
    users = [row["file"] for row in rows if row.get("loaded") and not row.get("templated")
             and re.search(r"^\s*use\s", (real / row["file"]).read_text(errors="replace"), re.M | re.I)]
    assert len(users) >= 20
    profile = tmp_path / "ep.yaml"
    profile.write_text("hostname: ep.example.org\ncpus: 8\nmemory: 16384\nip: 10.0.0.8\n")
    for name in users:
        argv = ["dump", "--format", "json", "--machine", str(profile), "--config", str(real / name)]
        assert main(argv) == 0, name
        expected = json.loads(capsys.readouterr().out)
        result = _condorcfg(installed, *argv)
        assert result.returncode == 0 and "unknown template" not in result.stderr, (name, result.stderr)
        got = json.loads(result.stdout)
        assert got == expected, (name, sorted(k for k in expected if got.get(k) != expected[k]))


def test_rules_and_explain_come_with_the_package(installed):
    listing = _condorcfg(installed, "rules")
    assert listing.returncode == 0 and "POL501" in listing.stdout
    page = _condorcfg(installed, "explain", "POL501")
    assert page.returncode == 0 and "IS_OWNER" in page.stdout


def test_a_pull_request_that_tightens_start_is_reviewed(installed, tmp_path):
    """A pool-config repository: the change adds a config.d file that tightens START and pins NUM_CPUS.
    The markdown diff names the machines whose slots change and says a restart is needed; the policy
    test the change breaks fails with the clause, its values and the line it came from."""
    repo = tmp_path / "pool"
    shutil.copytree(EXAMPLES / "etc", repo / "etc")
    shutil.copytree(EXAMPLES / "machines", repo / "machines")
    (repo / "tests").mkdir()
    shutil.copy(EXAMPLES / "tests" / "policy.yaml", repo / "tests" / "policy.yaml")  # (../etc, ../machines)
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\npolicy-tests: [tests]\nmachine-profiles:\n"
                                          "  ep64: machines/ep-64core.yaml\n  gpu: machines/gpu-node.yaml\n")
    env = _clean_env(**GIT_ENV)
    _git(repo, "init", "-q", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-qm", "pool", env=env)
    assert _condorcfg(installed, "test", cwd=repo, env=env).returncode == 0
    (repo / "etc" / "config.d" / "50-small-jobs-only").write_text(
        "START = $(START) && TARGET.RequestMemory <= 4096\nNUM_CPUS = 32\n")
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-qm", "small jobs only", env=env)
    review = _condorcfg(installed, "diff", "HEAD~1", "HEAD", "--format", "markdown", cwd=repo, env=env)
    assert review.returncode == 1, review.stderr
    assert "needs a daemon restart" in review.stdout and "`NUM_CPUS`" in review.stdout
    assert "#### Slot ads on ep64, gpu" in review.stdout or (
        "#### Slot ads on ep64" in review.stdout and "#### Slot ads on gpu" in review.stdout)
    tests = _condorcfg(installed, "test", cwd=repo, env=env)
    assert tests.returncode == 1, tests.stdout + tests.stderr
    assert "FAIL  a small analysis job starts on an idle node" in tests.stdout
    assert "TARGET.RequestMemory <= 4096  -> 8192 <= 4096" in tests.stdout
    assert "50-small-jobs-only:1:1" in tests.stdout


def test_release_tables_come_with_the_package(installed, tmp_path):
    config = tmp_path / "condor_config"
    config.write_text("use SECURITY : recommended_v9_0\nSTARTD_SENDS_ALIVES = true\n")
    result = _condorcfg(installed, "upgrade", "--from", "23.0", "--format", "markdown", str(config))
    assert result.returncode == 1 and "STARTD\\_SENDS\\_ALIVES" in result.stdout, result.stderr
    config.write_text("use SECURITY : recommended\n")
    result = _condorcfg(installed, "lint", "--target-version", "23.0", "--target-version", "25.14", "--select",
                        "UPG907", "--format", "json", str(config))
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["UPG907"], result.stderr


def test_qube_grammar_and_property_map_come_with_the_package(installed):
    result = _condorcfg(installed, "qube", "translate", "host.os eq linux and host.processors.total >= 4")
    assert (result.returncode, result.stdout.strip()) == (0, 'OpSys =?= "LINUX" && TotalCpus >= 4'), result.stderr
    result = _condorcfg(installed, "qube", "eval", "host.os eq linux", "--host", "os=linux")
    assert (result.returncode, result.stdout.strip()) == (0, "true"), result.stderr


# ------------------------------------------------------------------ pre-commit in a pool repository

def _git(cwd, *args, env, check=True):
    return _run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd, env=env,
                check=check)


def _hook_repository(target: Path, env) -> str:
    """This tree as a hook repository; its commit (what a user's `rev:` pins: the README pins a commit)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            text=True)
    assert listed.returncode == 0, "tests/installed needs a git checkout of condorcfg"
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():  # listed but deleted in the working tree: skip
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "-q", env=env)
    _git(target, "add", "-A", env=env)
    _git(target, "commit", "-q", "-m", "release", env=env)
    return _git(target, "rev-parse", "HEAD", env=env).stdout.strip()


def _readme_pre_commit_config(hook_repo: Path, commit: str) -> str:
    """The README's .pre-commit-config.yaml, pointed at the local hook repository and its commit."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    [block] = [b for b in blocks if "id: condorcfg" in b]
    assert re.search(r"rev: [0-9a-f]{40}\n", block), "the README must pin a commit (tests/test_packaging.py: it exists)"
    block = re.sub(r"rev: [0-9a-f]{40}", f"rev: {commit}", block)
    return re.sub(r"repo: \S+.*", f"repo: {hook_repo}", block)


POOL = {
    ".condorcfg.yaml": "roots: [etc/condor/condor_config]\nsysroot: .\n",
    "etc/condor/condor_config": textwrap.dedent("""\
        CONDOR_HOST = cm.example.org
        use ROLE : Execute
        use SECURITY : recommended
        LOCAL_CONFIG_DIR = /etc/condor/config.d
    """),
    "etc/condor/config.d/20-defs": "MYSTART = KeyboardIdle > 15 * 60\n",
    "etc/condor/config.d/30-policy": "START = $(MYSTART)\n",
    "etc/logrotate.d/condor.conf": "/var/log/condor/*Log {\n  weekly\n}\n",
}


@pytest.fixture(scope="module")
def pool(installed, tmp_path_factory):
    """A pool-configuration repository with the README's hook installed; returns (path, env)."""
    base = tmp_path_factory.mktemp("pool")
    env = _clean_env(**GIT_ENV, PRE_COMMIT_HOME=str(base / "pre-commit-home"))
    exe, _ = installed
    env["PATH"] = f"{exe.parent}{os.pathsep}{env.get('PATH', '')}"  # the installed condorcfg, for the baseline
    hook_repo = base / "condorcfg"
    hook_repo.mkdir()
    commit = _hook_repository(hook_repo, env)
    repo = base / "pool-config"
    repo.mkdir()
    _git(repo, "init", "-q", env=env)
    (repo / ".pre-commit-config.yaml").write_text(_readme_pre_commit_config(hook_repo, commit))
    for name, text in POOL.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    pre_commit = Path(sys.executable).with_name("pre-commit")
    _run([pre_commit, "install"], cwd=repo, env=env)
    _git(repo, "add", "-A", env=env)
    first = _git(repo, "commit", "-q", "-m", "a clean pool", env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "mutable reference" not in first.stdout + first.stderr  # rev is a commit, not a branch
    return repo, env


def _commit(repo, env, message, write=(), delete=()):
    for name, text in dict(write).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    if write:
        _git(repo, "add", *dict(write), env=env)
    if delete:
        _git(repo, "rm", "-q", *delete, env=env)
    result = _git(repo, "commit", "-m", message, env=env, check=False)
    return result.returncode, result.stdout + result.stderr


def _undo(repo, env):
    _git(repo, "reset", "-q", "--hard", "HEAD", env=env)
    _git(repo, "clean", "-qfd", env=env)


def test_a_job_attribute_in_is_owner_is_rejected(pool):
    repo, env = pool
    status, output = _commit(repo, env, "exec policy", write={"etc/condor/config.d/50-exec": 'IS_OWNER = Owner == "bob"\n'})
    _undo(repo, env)
    assert status != 0, output
    assert output.count("etc/condor/config.d/50-exec:1:12: error POL501 job-attr-in-is-owner") == 1, output


def test_deleting_the_file_that_defines_a_macro_is_rejected(pool):
    repo, env = pool
    status, output = _commit(repo, env, "tidy up", delete=["etc/condor/config.d/20-defs"])
    _undo(repo, env)
    assert status != 0, output
    assert "etc/condor/config.d/30-policy:1:9: error POL509 empty-policy START expands to nothing" in output


def test_a_clean_commit_and_other_files_are_accepted(pool):
    repo, env = pool
    status, output = _commit(repo, env, "tune", write={"etc/condor/config.d/40-tune": "MAX_JOBS_RUNNING = 500\n"})
    assert status == 0, output
    # not HTCondor configuration: never linted, whatever its name
    status, output = _commit(repo, env, "logs", write={"etc/logrotate.d/condor.conf": "IS_OWNER = Owner == 1\n"})
    assert status == 0, output


def test_file_names_are_never_options(pool):
    repo, env = pool
    names = {"etc/condor/config.d/--project=evil.conf": "", "etc/condor/config.d/-oreport.conf": "",
             "evil.conf": "ignore: [ALL]\n", "etc/condor/config.d/50-exec": 'IS_OWNER = Owner == "bob"\n'}
    status, output = _commit(repo, env, "sneaky", write=names)
    _undo(repo, env)
    assert status != 0 and "POL501" in output, output
    assert not (repo / "report.conf").exists()


def test_with_a_baseline_old_findings_stop_blocking_and_new_ones_do_not(pool):
    repo, env = pool
    old = {"etc/condor/config.d/50-exec": 'IS_OWNER = Owner == "bob"\n'}
    for name, text in old.items():
        (repo / name).write_text(text)
    written = _run(["condorcfg", "lint", "--write-baseline", ".condorcfg-baseline.json"], cwd=repo, env=env)
    assert "wrote 1 baseline entry" in written.stderr
    settings = POOL[".condorcfg.yaml"] + "baseline: .condorcfg-baseline.json\n"
    status, output = _commit(repo, env, "adopt condorcfg",
                             write={**old, ".condorcfg.yaml": settings,
                                    ".condorcfg-baseline.json": (repo / ".condorcfg-baseline.json").read_text()})
    assert status == 0, output
    status, output = _commit(repo, env, "more tuning", write={"etc/condor/config.d/40-tune": "MAX_JOBS_RUNNING = 900\n"})
    assert status == 0, output
    status, output = _commit(repo, env, "a new mistake",
                             write={"etc/condor/config.d/60-more": "START = $(MYSTRAT)\n"})
    _undo(repo, env)
    assert status != 0 and "POL509" in output and "POL501" not in output, output


# ------------------------------------------------------------------ the example pool's hooks, installed

POOL_BAD = 'IS_OWNER = Owner == "bob"\n'  # POL501


@pytest.fixture
def example_pool(installed, tmp_path):
    """A copy of examples/pool as a git repository (its four roles); returns (path, env)."""
    env = _clean_env(**GIT_ENV)
    repo = tmp_path / "pool"
    shutil.copytree(EXAMPLES / "pool", repo)
    _git(repo, "init", "-q", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "--no-verify", "-m", "the pool", env=env)
    return repo, env


def _pool_hooks(installed, repo: Path, env, files=(), project=False) -> dict:
    """Both hooks of the installed wheel, run as pre-commit runs them (from the top of the repository,
    relative names) and from elsewhere (absolute names; `condorcfg test --project`); each side's results
    with the paths made comparable."""
    _, outside = installed
    runs = {}
    for where, cwd in (("inside", repo), ("outside", outside)):
        names = [str(name) if where == "inside" else str(repo / name) for name in files]
        settings = ["--project", str(repo / ".condorcfg.yaml")] if where == "outside" and project else []
        lint_json = _condorcfg(installed, "lint", "--pre-commit", "--format", "json", *settings, "--", *names,
                               cwd=cwd, env=env)
        lint_text = _condorcfg(installed, "lint", "--pre-commit", *settings, "--", *names, cwd=cwd, env=env)
        tests = _condorcfg(installed, "test", *(["--project", str(repo / ".condorcfg.yaml")]
                                                if where == "outside" else []), cwd=cwd, env=env)
        assert "Traceback" not in lint_json.stderr + lint_text.stderr + tests.stderr
        assert lint_json.returncode in (0, 1) and tests.returncode in (0, 1), lint_json.stderr + tests.stderr
        report = json.loads(lint_json.stdout)
        shown = os.path.relpath(repo, cwd)
        runs[where] = {
            "lint": lint_json.returncode,
            "text": (lint_text.returncode, _relative_to(lint_text.stdout, repo, shown)),
            "findings": [(f["code"], os.path.normpath(cwd / f["file"]), f["line"], f.get("roles"))
                         for f in report["findings"]],
            "files": sorted(os.path.normpath(cwd / f) for f in report["files"]),
            "test": (tests.returncode, _relative_to(tests.stdout, repo, shown)),
        }
    assert runs["inside"] == runs["outside"]
    return runs["inside"]


def _relative_to(text: str, repo: Path, shown: str) -> str:
    """A text report as run from the top of the repository (a path is shown relative to where condorcfg ran,
    or absolute when that is shorter)."""
    text = text.replace(f"{repo}/", "")
    return text.replace(f"{shown}/", "") if shown != "." else text


def _role_files(repo: Path, *layers: str) -> list[str]:
    kept = {}
    for layer in ("common", *layers):
        for path in sorted((repo / layer / "config.d").iterdir()):
            kept[path.name] = str(path)
    return sorted([str(repo / "common" / "condor_config"), *kept.values()])


def test_the_example_pools_hooks_installed_inside_and_outside(example_pool, installed):
    repo, env = example_pool
    clean = _pool_hooks(installed, repo, env, [".condorcfg.yaml"])
    assert clean["lint"] == 0 and clean["findings"] == [] and len(clean["files"]) == 23
    assert clean["test"][0] == 0 and clean["test"][1].rstrip().endswith("10 cases, 0 failed")
    # a change of an ep-gpu fragment: only that role is linted, the policy tests still pass
    (repo / "roles/ep-gpu/config.d/65-gpus").write_text((repo / "roles/ep-gpu/config.d/65-gpus").read_text() + POOL_BAD)
    _git(repo, "add", "-A", env=env)
    gpu = _pool_hooks(installed, repo, env, ["roles/ep-gpu/config.d/65-gpus"])
    assert gpu["lint"] == 1 and gpu["findings"] == [
        ("POL501", str(repo / "roles/ep-gpu/config.d/65-gpus"), 5, ["ep-gpu"])]
    assert gpu["files"] == sorted(_role_files(repo, "roles/ep", "roles/ep-gpu")
                                  + [str(repo / "roles/ep-gpu/condor_config.local.j2")])
    assert "error POL501 job-attr-in-is-owner [ep-gpu] " in gpu["text"][1] and gpu["test"][0] == 0
    # a shared fragment: all four roles, the finding once
    _git(repo, "reset", "-q", "--hard", "HEAD", env=env)
    (repo / "common/config.d/30-logging").write_text((repo / "common/config.d/30-logging").read_text() + POOL_BAD)
    _git(repo, "add", "-A", env=env)
    shared = _pool_hooks(installed, repo, env, ["common/config.d/30-logging"])
    assert shared["lint"] == 1 and [(code, roles) for code, _, _, roles in shared["findings"]] == [
        ("POL501", ["cm", "ap", "ep-cpu", "ep-gpu"])]
    assert shared["files"] == clean["files"]
    # a file no role reads: nothing is linted
    _git(repo, "reset", "-q", "--hard", "HEAD", env=env)
    (repo / "README.md").write_text((repo / "README.md").read_text() + "\nmore\n")
    _git(repo, "add", "-A", env=env)
    readme = _pool_hooks(installed, repo, env, ["README.md"])
    assert readme["lint"] == 0 and readme["files"] == [] and readme["findings"] == []


def test_the_example_pools_hooks_installed_catch_a_deletion_and_a_broken_policy(example_pool, installed):
    repo, env = example_pool
    (repo / "roles/ep-gpu/config.d/20-gpu-defs").write_text("GPU_JOB = (TARGET.RequestGPUs ?: 0) >= 1\n")
    policy = repo / "roles/ep-gpu/config.d/70-start-policy"
    policy.write_text(policy.read_text().replace("&& (TARGET.RequestGPUs ?: 0) >= 1 \\", "&& $(GPU_JOB) \\"))
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "--no-verify", "-m", "a macro for GPU jobs", env=env)
    assert _pool_hooks(installed, repo, env, ["roles/ep-gpu/config.d/70-start-policy"])["lint"] == 0
    # deleting the file defining the macro: ep-gpu is linted again (pre-commit names no deleted file)
    _git(repo, "rm", "-q", "roles/ep-gpu/config.d/20-gpu-defs", env=env)
    for files, project in (([], True), (["README.md"], False)):
        deleted = _pool_hooks(installed, repo, env, files, project=project)
        assert deleted["lint"] == 1 and deleted["findings"] and all(
            roles == ["ep-gpu"] for _, _, _, roles in deleted["findings"])
        assert "GPU_JOB" in deleted["text"][1]
    # a START the CPU nodes' policy tests reject: the test hook fails, the same from anywhere
    _git(repo, "reset", "-q", "--hard", "HEAD", env=env)
    start = repo / "roles/ep/config.d/70-start-policy"
    start.write_text(start.read_text() + "START = $(START) && TARGET.RequestCpus <= 2\n")
    _git(repo, "add", "-A", env=env)
    broken = _pool_hooks(installed, repo, env, ["roles/ep/config.d/70-start-policy"])
    assert broken["lint"] == 0 and broken["test"][0] == 1
    assert "FAIL  a pool user's 4-core analysis job needing CVMFS starts" in broken["test"][1]
    assert broken["test"][1].rstrip().endswith("10 cases, 1 failed")
