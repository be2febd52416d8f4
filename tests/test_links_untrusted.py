"""A symbolic link committed in a repository counts as where it points (issue 28).

``ln -s /etc/passwd config.d/20`` used to make lint quote a passwd line, and a link
``config.d/40`` to a file outside the repository put its ``SECRET_TOKEN`` line in a GitHub
annotation through the hook.  Every file reached through a directory (a given config.d, a
LOCAL_CONFIG_DIR), and every file the hook names, is refused when its real place is outside what
was given; links that stay inside are read as before.  The variants are generated: where the link
sits, where it points, and which command and format reads it.
"""
from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "hunter2-condorcfg-secret"
FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit")


def _layout(tmp_path: Path, target: str, name: str) -> tuple[Path, Path]:
    """A repository whose etc/config.d holds a good file and a link ``name`` of kind ``target``."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    secret_text = f"SECRET_TOKEN = {SECRET}\nwww-data:x:33:33:{SECRET}:/var/www\n"
    (outside / "secret.conf").write_text(secret_text)
    (outside / "dir" / "10.conf").write_text(secret_text)
    repo = tmp_path / "repo"
    config_d = repo / "etc" / "config.d"
    config_d.mkdir(parents=True)
    (repo / "shared").mkdir()
    (repo / "shared" / "inside.conf").write_text("START = true\n")
    (repo / "etc" / "condor_config").write_text("LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\n")
    (config_d / "10-good").write_text("NUM_CPUS = 4\n")
    link = config_d / name
    targets = {
        "outside-file": outside / "secret.conf",
        "outside-relative": Path(os.path.relpath(outside / "secret.conf", config_d)),
        "absolute-system": Path("/etc/passwd"),
        "outside-dir-file": outside / "dir" / "10.conf",
        "inside-file": Path(os.path.relpath(repo / "shared" / "inside.conf", config_d)),
    }
    os.symlink(targets[target], link)
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\n")
    return repo, link


def _lint(repo: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    return subprocess.run([sys.executable, "-m", "condorcfg", "lint", *args], cwd=cwd or repo,
                          capture_output=True, text=True, env=env)


def _cases():
    rng = random.Random(28)
    targets = ("outside-file", "outside-relative", "absolute-system", "outside-dir-file")
    names = ("20", "40-site.conf", "99 zz", "-o.conf")
    modes = ("roots", "config-d-given", "hook-roots", "hook-no-roots", "file-given")
    every = list(itertools.product(targets, names, modes))
    rng.shuffle(every)
    return every[:24]


@pytest.mark.parametrize("target,name,mode", _cases())
def test_a_link_leading_out_is_never_read(tmp_path, target, name, mode):
    repo, link = _layout(tmp_path, target, name)
    relative = str(link.relative_to(repo))
    fmt = random.Random(f"{target}{name}{mode}").choice(FORMATS)
    if mode == "roots":
        done = _lint(repo, "--format", fmt)
    elif mode == "config-d-given":
        done = _lint(repo, "--format", fmt, "etc/config.d")
    elif mode == "hook-roots":
        done = _lint(repo, "--format", fmt, "--pre-commit", "--", relative)
    elif mode == "hook-no-roots":
        (repo / ".condorcfg.yaml").unlink()
        done = _lint(repo, "--format", fmt, "--pre-commit", "--", relative, "etc/config.d/10-good")
    else:
        done = _lint(repo, "--format", fmt, "--", relative)
    output = done.stdout + done.stderr
    assert SECRET not in output and "www-data" not in output, output
    assert "Traceback" not in output
    # the link is reported (CFG110) and the run fails: a reviewer sees that something was not read
    assert done.returncode == 1, output
    assert "CFG110" in output and "symbolic link" in output


@pytest.mark.parametrize("mode", ("roots", "config-d-given", "hook-roots"))
def test_a_link_inside_the_repository_is_read(tmp_path, mode):
    repo, link = _layout(tmp_path, "inside-file", "30-inside")
    args = {"roots": [], "config-d-given": ["etc/config.d"],
            "hook-roots": ["--pre-commit", "--", str(link.relative_to(repo))]}[mode]
    done = _lint(repo, "--format", "json", *args)
    assert "CFG110" not in done.stdout, done.stdout
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr


def test_the_hook_sees_a_changed_link_even_where_it_points_outside(tmp_path):
    """A commit that only adds the link must still lint the roots (and report the link)."""
    repo, link = _layout(tmp_path, "outside-file", "40")
    done = _lint(repo, "--pre-commit", "--", str(link.relative_to(repo)))
    assert done.returncode == 1 and "CFG110" in done.stdout and SECRET not in done.stdout


def test_value_at_a_terminal_still_reads_as_htcondor_does(tmp_path):
    """`value` keeps HTCondor's behaviour (the administrator's own host): a link is followed."""
    repo, _link = _layout(tmp_path, "inside-file", "30-inside")
    done = subprocess.run([sys.executable, "-m", "condorcfg", "value", "--config", "etc/condor_config", "START"],
                          cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip().lower() == "true", done.stdout + done.stderr


@pytest.mark.parametrize("command", ["lint", "diff"])
def test_a_machine_profile_named_on_the_command_line_that_links_out_is_not_read(tmp_path, command):
    repo, _link = _layout(tmp_path, "inside-file", "30-inside")
    (tmp_path / "outside" / "prof.yaml").write_text(f"hostname: {SECRET}\ncpus: 4\n")
    (repo / "machines").mkdir()
    os.symlink(tmp_path / "outside" / "prof.yaml", repo / "machines" / "ep.yaml")
    with open(repo / "etc" / "config.d" / "10-good", "a") as handle:
        handle.write("LEAK = $(FULL_HOSTNAME)\n")
    args = (["lint", "--machine", "machines/ep.yaml"] if command == "lint" else
            ["diff", "--no-ads", "--machine", "machines/ep.yaml", "etc/condor_config", "etc/condor_config"])
    done = subprocess.run([sys.executable, "-m", "condorcfg", *args], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 2 and SECRET not in done.stdout + done.stderr
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr


def test_diff_never_asks_git_from_inside_the_change_where_the_repository_is(tmp_path):
    """A folder holding HEAD, objects/ and refs/ (with core.worktree) is a repository to git: committed into
    the folder diff runs from, it made git:origin/main mean the pull request's own choice."""
    git = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
           "-c", "commit.gpgsign=false"]

    def repository(folder, config: str, message: str):
        """``folder/<config>`` holding the text committed, origin/main pointing at it."""
        (folder / config).parent.mkdir(parents=True)
        (folder / config).write_text(message)
        subprocess.run([*git, "init", "-q"], cwd=folder, check=True)
        subprocess.run([*git, "add", "-A"], cwd=folder, check=True)
        subprocess.run([*git, "commit", "-qm", "commit"], cwd=folder, check=True)
        subprocess.run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=folder, check=True)

    evil, mono = tmp_path / "evil", tmp_path / "mono"
    pool = mono / "pool"
    repository(evil, "etc/condor_config", "EVIL_FROM_DECOY = 1\n")
    repository(mono, "pool/etc/condor_config", "NUM_CPUS = 4\n")
    import shutil

    for name in ("HEAD", "objects", "refs"):  # the pull request's decoy repository, in pool/
        source = evil / ".git" / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, pool / name)
    (pool / "config").write_text("[core]\n\tbare = false\n\tworktree = .\n")
    (pool / "etc" / "condor_config").write_text("NUM_CPUS = 4\nBAD = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run([sys.executable, "-m", "condorcfg", "diff", "--no-ads", "git:origin/main:pool/etc/condor_config",
                           "./etc/condor_config"], cwd=pool, capture_output=True, text=True, env=env)
    assert "EVIL_FROM_DECOY" not in done.stdout + done.stderr, done.stdout
    assert done.returncode == 1 and "BAD" in done.stdout, done.stdout + done.stderr
