"""condorcfg diff as a pull-request review: git revisions, the fleet, restarts, security, markdown."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]


def _repo(tmp_path) -> Path:
    repo = tmp_path / "pool"
    shutil.copytree(ROOT / "examples" / "etc", repo / "etc")
    shutil.copytree(ROOT / "examples" / "machines", repo / "machines")
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\nmachine-profiles:\n"
                                          "  ep64: machines/ep-64core.yaml\n  static16: machines/ep-16core-static.yaml\n")
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=repo, check=True)
    (repo / "etc" / "config.d" / "50-tighten").write_text("START = $(START) && TARGET.RequestMemory <= 4096\n"
                                                          "NUM_CPUS = 8\nALLOW_WRITE = *.example.org\n")
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "tighten START"], cwd=repo, check=True)
    return repo


def _diff(repo, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run([sys.executable, "-m", "condorcfg", "diff", *args], cwd=repo, capture_output=True,
                          text=True, env=env)


def test_revisions_fleet_restart_and_security(tmp_path):
    repo = _repo(tmp_path)
    done = _diff(repo, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    values = {v["name"]: v for v in data["values"]}
    assert values["NUM_CPUS"]["restart"] and not values["START"]["restart"]
    assert values["ALLOW_WRITE"]["security"] and not values["NUM_CPUS"]["security"]
    assert values["START"]["new_source"].startswith("HEAD:etc/config.d/50-tighten:1")  # not the temporary tree
    machines = {m for change in data["slots"] for m in change["machines"]}
    assert machines == {"ep64", "static16"}
    markdown = _diff(repo, "HEAD~1", "HEAD", "--format", "markdown").stdout
    assert "needs a daemon restart" in markdown and "#### Slot ads on ep64" in markdown
    assert "#### Slot ads on static16" in markdown and "touching security" in markdown
    # one side from git, the other the work tree; nothing changed between HEAD and the work tree
    same = _diff(repo, "git:HEAD:etc/condor_config", "etc/condor_config", "--no-ads")
    assert same.returncode == 0 and "no difference in meaning" in same.stdout
    # the temporary trees of the revisions are removed
    import tempfile

    before = set(Path(tempfile.gettempdir()).glob("condorcfg-git-*"))
    _diff(repo, "HEAD~1", "HEAD", "--no-ads")
    assert set(Path(tempfile.gettempdir()).glob("condorcfg-git-*")) == before


def test_unusable_revisions_exit_2(tmp_path):
    repo = _repo(tmp_path)
    assert _diff(repo, "git:", "HEAD").returncode == 2
    assert _diff(repo, "git:nosuchrev", "HEAD").returncode == 2
    done = _diff(repo, "git:HEAD:etc/nothing", "HEAD")
    assert done.returncode == 2 and "does not exist in HEAD" in done.stderr and "Traceback" not in done.stderr
    done = _diff(repo, "--", "-rf", "HEAD")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_revision_gives_its_committed_bytes_and_nothing_outside(tmp_path):
    repo = _repo(tmp_path)
    (repo / "link").symlink_to("/etc/hostname")  # a link in the tree must not be followed or break the diff
    (repo / ".gitattributes").write_text("etc/condor_config export-ignore\n")  # no attribute filter applies
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "attributes and a link"], cwd=repo, check=True)
    done = _diff(repo, "HEAD~1", "HEAD", "--no-ads")
    assert done.returncode == 0 and "no difference in meaning" in done.stdout, done.stderr
    for outside in ("git:HEAD:/etc/hostname", "git:HEAD:../../etc/hostname"):
        done = _diff(repo, "git:HEAD:etc/condor_config", outside)
        assert done.returncode == 2 and "not a path inside the repository" in done.stderr
