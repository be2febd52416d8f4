"""condorcfg diff on an untrusted pull request (issue 28, round 2).

* a name that is both a path and a revision is refused (a PR's decoy files named ``HEAD`` or
  ``origin/main`` must not turn a revision into a file that hides its change);
* every string the PR controls stays inside its markdown code span (no image, HTML or mention);
* the slot-ad work of a fleet has one budget, and identical profiles are computed once;
* a git revision is written to disk only as far as the configuration reaches, within budgets,
  and its temporary tree is removed on SIGTERM, SIGHUP and SIGINT too.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

import condorcfg
from commonmark import code_spans
from condorcfg import gitside
from condorcfg.cli import main
from condorcfg.commands import diff as diff_command
from condorcfg.config import hostview, reader
from condorcfg.diagnostics import CondorcfgError
from condorcfg.diff import SlotChange, ValueChange, diff_values

ROOT = Path(__file__).resolve().parents[1]
GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]
BASE = "ALLOW_WRITE = *.example.org\nNUM_CPUS = 4\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


def _environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(extra)
    return env


def _diff(repo: Path, *args: str, **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "condorcfg", "diff", *args], cwd=repo, capture_output=True,
                          text=True, env=_environment(**extra))


def _repo(tmp_path: Path, config: str = BASE) -> Path:
    repo = tmp_path / "pool"
    (repo / "etc").mkdir(parents=True)
    (repo / "etc" / "condor_config").write_text(config)
    (repo / "machine.yaml").write_text("hostname: ep.example.org\ncpus: 4\nmemory: 8192\n")
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\nmachine: machine.yaml\n")
    _git(repo, "init", "-q")
    _commit(repo, "base")
    return repo


# -- 1. a name that is both a path and a revision ----------------------------------------------------------

def test_decoy_files_named_like_revisions_are_refused_end_to_end(tmp_path):
    repo = _repo(tmp_path)
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "update-ref", "refs/remotes/origin/main", base)
    # The pull request opens every door, and commits decoys holding the old configuration.
    (repo / "etc" / "condor_config").write_text(BASE.replace("*.example.org", "*"))
    for decoy in ("HEAD", "origin/main", "HEAD~1"):
        (repo / decoy).parent.mkdir(parents=True, exist_ok=True)
        (repo / decoy).write_text(BASE)
    _commit(repo, "open ALLOW_WRITE, and decoys")
    done = _diff(repo, "origin/main", "HEAD", "--format", "markdown", "--no-ads")
    assert done.returncode == 2, done.stdout
    assert "No change" not in done.stdout and done.stdout == ""
    assert "ambiguous" in done.stderr and "git:origin/main" in done.stderr and "./origin/main" in done.stderr
    assert "Traceback" not in done.stderr
    for old, new in (("HEAD~1", "HEAD"), ("origin/main", "git:HEAD")):
        assert _diff(repo, old, new, "--no-ads").returncode == 2
    # said explicitly, each meaning works: the revisions show the change, the files are the decoys
    done = _diff(repo, "git:origin/main", "git:HEAD", "--format", "markdown", "--no-ads")
    assert done.returncode == 1 and "ALLOW_WRITE" in done.stdout and "No change" not in done.stdout
    done = _diff(repo, "git:HEAD~1", "git:HEAD", "--format", "json", "--no-ads")
    assert [v["name"] for v in json.loads(done.stdout)["values"]] == ["ALLOW_WRITE"]
    done = _diff(repo, "./origin/main", "./HEAD", "--no-ads")
    assert done.returncode == 0 and "no difference in meaning" in done.stdout


def _names_of(repo: Path, rng: random.Random) -> list[str]:
    """Revision names of every form: relative, parents, branches with slashes, tags, short SHAs."""
    sha = _git(repo, "rev-parse", "HEAD")
    return ["HEAD", "HEAD~1", "HEAD^", "HEAD~2", "HEAD^1", "main", "origin/main", "v1.0", "release/2.0",
            "feature/x/y", sha[:7], sha[:rng.randint(8, 12)], sha]


def test_generated_names_that_are_both_path_and_revision_are_ambiguous(tmp_path):
    repo = _repo(tmp_path)
    (repo / "etc" / "condor_config").write_text(BASE + "NUM_CPUS = 8\n")
    _commit(repo, "second")
    (repo / "etc" / "condor_config").write_text(BASE + "NUM_CPUS = 16\n")
    _commit(repo, "third")
    for ref in ("refs/remotes/origin/main", "refs/heads/feature/x/y", "refs/tags/v1.0", "refs/tags/release/2.0"):
        _git(repo, "update-ref", ref, "HEAD~1")
    rng = random.Random(2028)
    names = _names_of(repo, rng)
    for name in names:  # first: each one is a revision when no path has its name
        assert gitside.is_git_side(name, str(repo)), name
    for _ in range(3):
        for name in rng.sample(names, len(names)):
            target = repo / name
            as_directory = rng.random() < 0.5
            if as_directory:
                target.mkdir(parents=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(BASE)
            with pytest.raises(CondorcfgError) as caught:
                gitside.is_git_side(name, str(repo))
            assert caught.value.diagnostic.code == "ambiguous-side", name
            assert f"git:{name}" in caught.value.diagnostic.message and f"./{name}" in caught.value.diagnostic.message
            # explicit forms are never ambiguous
            assert gitside.is_git_side(f"git:{name}", str(repo)) is True
            assert gitside.is_git_side(f"./{name}", str(repo)) is False
            assert gitside.is_git_side(str(target), str(repo)) is False
            shutil.rmtree(target) if as_directory else target.unlink()
            for parent in Path(name).parents:  # (origin/, feature/x/ ...)
                if str(parent) != "." and (repo / parent).is_dir() and not any((repo / parent).iterdir()):
                    (repo / parent).rmdir()


def test_ambiguous_name_exits_2_through_the_command(tmp_path, monkeypatch, capsys):
    repo = _repo(tmp_path)
    (repo / "etc" / "condor_config").write_text(BASE + "NUM_CPUS = 8\n")
    _commit(repo, "second")
    monkeypatch.chdir(repo)
    rng = random.Random(28)
    for name in rng.sample(["HEAD", "HEAD~1", "HEAD^", "main"], 2):
        (repo / name).write_text(BASE)
        assert main(["diff", name, "git:HEAD", "--no-ads", "--format", "markdown"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "ambiguous" in captured.err
        (repo / name).unlink()
    # git:REV with no path is the project's roots at REV, like a bare revision
    assert main(["diff", "git:HEAD~1", "HEAD", "--no-ads", "--format", "json"]) == 1
    assert [v["name"] for v in json.loads(capsys.readouterr().out)["values"]] == ["NUM_CPUS"]


# -- 2. markdown made of hostile strings --------------------------------------------------------------------

HOSTILE_PIECES = ["`", "``", "```", "<img src=http://t.example/p.png>", "![x](http://t.example/p.png)", "|",
                  "\n", "\r\n", "@octocat", "@org/team", "#1", "*", "_", "[a](http://t.example)", "\\", " ",
                  "&lt;", "<!--", "~~", ":+1:", "\t", "\u202e", "<script>", "<", ">", "&", "x", "knob",
                  "::error::x", "##[group]"]


def _hostile(rng: random.Random) -> str:
    return "".join(rng.choice(HOSTILE_PIECES) for _ in range(rng.randint(1, 7)))


def _check_markdown(markdown: str, expected_spans: list[str]) -> None:
    """No markup can come from the strings: outside code spans no image, HTML, mention or stray
    backtick; each table row has its five cells; each string shows in a span exactly as printable."""
    from condorcfg.textsafe import printable

    found = []
    for line in markdown.split("\n"):
        spans, outside = code_spans(line)
        assert "`" not in outside, line  # an unbalanced code span
        assert "<" not in outside and "![" not in outside and "](" not in outside, line
        assert "@" not in outside and "&" not in outside, line
        if line.startswith("|"):
            spans = [span.replace("\\|", "|") for span in spans]
            cells = len(re.findall(r"(?<!\\)\|", outside)) - 1
            assert cells in (4, 5), line
        found += spans
    for text in expected_spans:
        shown = printable(text)
        assert shown in found or any(span.endswith("…") and shown.startswith(span[:-1]) for span in found), text


class _Place:
    def __init__(self, text: str):
        self.text = text

    def describe(self) -> str:
        return self.text


def test_generated_hostile_strings_stay_in_their_code_spans():
    rng = random.Random(1028)
    for _ in range(80):
        name, old, new, place, label, slot, attribute, host = (_hostile(rng) for _ in range(8))
        values = [ValueChange(name, old, new, _Place(place), _Place(place)),
                  ValueChange("START", None, new, None, _Place(place))]
        fleet = [([host, "ep64"], [SlotChange(slot, attribute, old, new), SlotChange(slot, None, None, "present")])]
        markdown = diff_command._markdown(values, fleet, (label, label + "x"), 2)
        _check_markdown(markdown, [name, place, label, slot, attribute]
                        + ([host] if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", host) else []))
        assert "#### Slot ads on " in markdown and ", ep64\n" in markdown  # (a plain name stays plain)
        rows = [line for line in markdown.split("\n") if line.startswith("|")]  # (no line break from a string)
        assert len(rows) == 2 + len(values) + sum(2 + len(changes) for _names, changes in fleet)
        assert sum(line.startswith("#") for line in markdown.split("\n")) == 1 + len(fleet)


def test_hostile_file_names_in_a_real_diff(tmp_path, monkeypatch, capsys):
    rng = random.Random(4028)
    monkeypatch.chdir(tmp_path)
    for index in range(12):
        directory = tmp_path / f"case{index}"
        directory.mkdir()
        names = []
        for side in ("a", "b"):
            name = _hostile(rng).replace("/", "_").replace("\0", "") + side
            names.append(name)
            value = re.sub(r"[\r\n\\]", " ", _hostile(rng))  # (a value is one line with no continuation)
            (directory / name).write_text(f"ALLOW_WRITE = {'*' if side == 'b' else 'x'}\nSITE = {value}\n")
        status = main(["diff", f"./case{index}/{names[0]}", f"./case{index}/{names[1]}", "--no-ads",
                       "--format", "markdown"])
        markdown = capsys.readouterr().out
        assert status == 1 and "ALLOW_WRITE" in markdown
        _check_markdown(markdown, [f"./case{index}/{names[0]}", f"./case{index}/{names[1]}"])


# -- 3a. the fleet: one budget, identical profiles once ------------------------------------------------------

def _fleet_project(tmp_path: Path, profiles: list[str], slots: int) -> Path:
    project = tmp_path / "fleet"
    (project / "machines").mkdir(parents=True)
    (project / "etc").mkdir()
    base = f"NUM_SLOTS = {slots}\nSTART = TRUE\nSUSPEND = FALSE\nPREEMPT = FALSE\nKILL = FALSE\n"
    (project / "etc" / "old").write_text(base)
    (project / "etc" / "new").write_text(base + "RANK = 1\n")
    lines = ["roots: [etc/old]", "machine-profiles:"]
    for index, text in enumerate(profiles):
        (project / "machines" / f"m{index}.yaml").write_text(text)
        lines.append(f"  m{index}: machines/m{index}.yaml")
    (project / ".condorcfg.yaml").write_text("\n".join(lines) + "\n")
    return project


def _counting_builds(monkeypatch) -> list:
    import condorcfg.slots

    calls, real = [], condorcfg.slots.build_slot_ads

    def counted(config, machine=None, public=False):
        ads = real(config, machine, public)
        calls.append(len(ads))
        return ads

    monkeypatch.setattr(condorcfg.slots, "build_slot_ads", counted)
    return calls


def _profile(cpus: int, memory: int) -> str:
    return f"hostname: ep.example.org\ncpus: {cpus}\nmemory: {memory}\n"


def test_generated_fleets_compute_each_distinct_profile_once(tmp_path, monkeypatch, capsys):
    rng = random.Random(3028)
    for round_ in range(4):
        kinds = [_profile(rng.choice([4, 8, 16]), rng.choice([8192, 16384])) for _ in range(rng.randint(1, 4))]
        profiles = [rng.choice(kinds) for _ in range(rng.randint(2, 30))]
        project = _fleet_project(tmp_path / f"r{round_}", profiles, 3)
        monkeypatch.chdir(project)
        calls = _counting_builds(monkeypatch)
        assert main(["diff", "etc/old", "etc/new", "--format", "json"]) == 1
        report = json.loads(capsys.readouterr().out)
        assert len(calls) == 2 * len(set(profiles))  # both sides of each distinct profile, no more
        assert {m for change in report["slots"] for m in change["machines"]} == {f"m{i}" for i in
                                                                                 range(len(profiles))}


def test_the_issue_fleet_of_100_identical_4000_slot_machines_builds_one(tmp_path, monkeypatch, capsys):
    project = _fleet_project(tmp_path, [_profile(64, 262144)] * 100, 4000)
    monkeypatch.chdir(project)
    calls = _counting_builds(monkeypatch)
    assert main(["diff", "etc/old", "etc/new", "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert calls == [4000, 4000]
    assert "#### Slot ads on " + ", ".join(f"m{i}" for i in range(100)) in markdown
    assert "slot ads change on 100 of 100 machines" in markdown


@pytest.mark.parametrize("limit", ["MAX_FLEET_SLOT_ADS", "MAX_FLEET_LINES"])
def test_distinct_machines_share_one_budget(tmp_path, monkeypatch, capsys, limit):
    import condorcfg.diff

    rng = random.Random(5028)
    profiles = [_profile(cpus, 8192) for cpus in rng.sample(range(4, 200), 40)]
    project = _fleet_project(tmp_path, profiles, 50)
    monkeypatch.chdir(project)
    monkeypatch.setattr(condorcfg.diff, limit, 500 if limit == "MAX_FLEET_SLOT_ADS" else 60)
    calls = _counting_builds(monkeypatch)
    assert main(["diff", "etc/old", "etc/new"]) == 2
    captured = capsys.readouterr()
    assert limit in captured.err and captured.out == ""
    # charged after each machine: the work stops one machine (two builds of 50 slots) past the limit
    if limit == "MAX_FLEET_SLOT_ADS":
        assert sum(calls) == 600
    else:
        assert 0 < len(calls) <= 12


# -- 3b. a revision is written only as far as the configuration reaches --------------------------------------

def _reaching_repo(tmp_path: Path, rng: random.Random, noise_files: int = 300) -> tuple[Path, set[str]]:
    """A repository whose configuration reaches some files (includes, LOCAL_CONFIG_DIR, LOCAL_CONFIG_FILE)
    among noise it does not reach; returns it and the files a read opens."""
    repo = tmp_path / "pool"
    etc = repo / "etc"
    (etc / "config.d").mkdir(parents=True)
    reached = {"etc/condor_config"}
    chain = rng.randint(0, 4)
    lines = ["LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d"]
    if chain:
        (etc / "inc").mkdir()
        lines.append("include : $(CONFIG_ROOT)/inc/i0")
        for step in range(chain):
            following = f"include : $(CONFIG_ROOT)/inc/i{step + 1}\n" if step + 1 < chain else ""
            (etc / "inc" / f"i{step}").write_text(f"STEP{step} = {step}\n{following}")
            reached.add(f"etc/inc/i{step}")
    if rng.random() < 0.5:
        lines.append("LOCAL_CONFIG_FILE = $(CONFIG_ROOT)/local/one $(CONFIG_ROOT)/local/two")
        (etc / "local").mkdir()
        for name in ("one", "two"):
            (etc / "local" / name).write_text(f"LOCAL_{name.upper()} = {rng.randint(0, 99)}\n")
            reached.add(f"etc/local/{name}")
        (etc / "local" / "unread").write_text("UNREAD = 1\n")
    (etc / "condor_config").write_text("\n".join(lines) + "\nNUM_CPUS = 4\n")
    for index in range(rng.randint(1, 6)):
        (etc / "config.d" / f"{index:02d}-part").write_text(f"PART{index} = {rng.randint(0, 999)}\n")
        reached.add(f"etc/config.d/{index:02d}-part")
    (etc / "config.d" / "skipped~").write_text("SKIPPED = 1\n")  # excluded by LOCAL_CONFIG_DIR_EXCLUDE_REGEXP
    (etc / "config.d" / "sub").mkdir()
    (etc / "config.d" / "sub" / "deeper").write_text("DEEPER = 1\n")
    for index in range(noise_files):  # never reached
        folder = repo / "data" / f"d{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}").write_bytes(b"x" * rng.randint(1, 50))
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\n")
    _git(repo, "init", "-q")
    _commit(repo, "base")
    return repo, reached


def _tree_files(directory: str) -> dict[str, int]:
    """Every file under ``directory`` with the disk space it takes (st_blocks, not its length)."""
    found = {}
    for folder, _dirs, files in os.walk(directory):
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, directory)] = os.lstat(path).st_blocks * 512
    return found


def test_generated_trees_write_only_what_the_configuration_reaches(tmp_path):
    rng = random.Random(6028)
    for round_ in range(5):
        repo, reached = _reaching_repo(tmp_path / f"r{round_}", rng)
        side = gitside.open_side("HEAD", str(repo), [str(repo / "etc" / "condor_config")], None)
        try:
            config = condorcfg.load(side.paths, mode="repository")
            written = _tree_files(side.directory)
            # what the read opened holds its committed bytes; the rest of config.d is there, empty (its listing)
            listed = {"etc/config.d/skipped~"}
            assert set(written) == reached | listed
            assert side.files_written == len(reached | listed)
            committed = sum((repo / path).stat().st_size for path in reached)
            assert side.bytes_written == committed
            assert os.path.getsize(os.path.join(side.directory, "etc/config.d/skipped~")) == 0
            assert not any(path.startswith("data/") for path in written)
            assert side.entries_listed < 40  # the folders on the way, never data/
            # the same meaning as the work tree (the revision's whole checkout)
            assert diff_values(condorcfg.load(str(repo / "etc" / "condor_config"), mode="repository"), config) == []
        finally:
            side.cleanup()
        assert not os.path.exists(side.directory) and hostview.path_observer is None


def test_a_blob_past_the_file_limit_is_never_written(tmp_path, monkeypatch):
    repo = _repo(tmp_path, BASE + "include : $(CONFIG_ROOT)/big\n")
    size = reader.MAX_FILE_SIZE + 1024 * 1024  # (the issue's 268 MB blob of zeros, scaled to 17 MiB)
    with open(repo / "etc" / "big", "wb") as handle:
        handle.truncate(size)
    (repo / "etc" / "unreached").write_bytes(b"\0" * 4096)
    _commit(repo, "a big blob")
    side = gitside.open_side("HEAD", str(repo), [str(repo / "etc" / "condor_config")], None)
    try:
        with pytest.raises(CondorcfgError) as caught:
            condorcfg.load(side.paths, mode="repository")
        assert caught.value.diagnostic.code == "file-too-large"
        disk = _tree_files(side.directory)
        assert set(disk) == {"etc/condor_config", "etc/big"}
        assert sum(disk.values()) < 64 * 1024  # the stand-in is sparse: no block of it is written
        assert side.bytes_written == len(BASE + "include : $(CONFIG_ROOT)/big\n")
    finally:
        side.cleanup()
    done = _diff(repo, "HEAD~1", "HEAD", "--no-ads", TMPDIR=str(tmp_path))
    assert done.returncode == 2 and "larger than" in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.glob(f"{gitside.PREFIX}*"))


def test_a_blob_is_streamed_not_held(tmp_path):
    repo = _repo(tmp_path, BASE + "include : $(CONFIG_ROOT)/large\n")
    (repo / "etc" / "large").write_text(("#" * 1023 + "\n") * 8192)  # 8 MiB, under the file limit
    _commit(repo, "large")
    side = gitside.open_side("git:HEAD:etc/condor_config", str(repo), [], None)
    try:
        tracemalloc.start()
        assert side.ask(os.path.join(side.directory, "etc", "large"))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert os.path.getsize(os.path.join(side.directory, "etc", "large")) == 8 * 1024 * 1024
        assert peak < 1024 * 1024  # a few chunks of gitside.CHUNK, not the blob
    finally:
        side.cleanup()


@pytest.mark.parametrize("limit, value", [("MAX_FILES", 20), ("MAX_BYTES", 3000), ("MAX_ENTRIES", 50)])
def test_the_revision_budgets_end_the_diff_with_exit_2(tmp_path, monkeypatch, capsys, limit, value):
    repo = _repo(tmp_path, BASE + "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\n")
    (repo / "etc" / "config.d").mkdir()
    for index in range(60):
        (repo / "etc" / "config.d" / f"{index:02d}").write_text(f"K{index} = {'v' * 90}\n")
    _commit(repo, "sixty parts")
    monkeypatch.setattr(gitside, limit, value)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert main(["diff", "HEAD~1", "HEAD", "--no-ads"]) == 2
    captured = capsys.readouterr()
    assert limit in captured.err and captured.out == ""
    assert not list(tmp_path.glob(f"{gitside.PREFIX}*"))


def test_every_revision_given_to_git_follows_end_of_options(tmp_path):
    repo = _repo(tmp_path, BASE + "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\n")
    (repo / "etc" / "config.d").mkdir()
    (repo / "etc" / "config.d" / "part").write_text("PART = 1\n")
    _commit(repo, "part")
    log = tmp_path / "git.log"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {log}\nexec {shutil.which('git')} \"$@\"\n")
    (fake / "git").chmod(0o755)
    path = f"{fake}{os.pathsep}{os.environ['PATH']}"
    assert _diff(repo, "HEAD~1", "git:HEAD", "--no-ads", PATH=path).returncode == 1
    calls = log.read_text().splitlines()
    revision_calls = [c for c in calls if c.startswith(("rev-parse --verify", "ls-tree"))]
    assert len(revision_calls) >= 4 and all("--end-of-options" in c for c in revision_calls)
    for hostile in ("git:-rf", "git:--output=x", "git:-c:etc/condor_config"):
        done = _diff(repo, hostile, "HEAD", "--no-ads", PATH=path)
        assert done.returncode == 2 and "not a commit" in done.stderr and "Traceback" not in done.stderr
    assert not any("-rf" in c or "--output" in c or "-c:" in c for c in log.read_text().splitlines())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_mid_unpack_leaves_no_temporary_tree(tmp_path, signum):
    repo = _repo(tmp_path)
    (repo / "etc" / "condor_config").write_text(BASE + "NUM_CPUS = 8\n")
    _commit(repo, "second")
    temporary, marker, fake = tmp_path / "tmp", tmp_path / "blocked", tmp_path / "bin"
    temporary.mkdir()
    fake.mkdir()
    # a git whose cat-file (the unpacking) blocks until it is killed
    (fake / "git").write_text(f"#!/bin/sh\nif [ \"$1\" = cat-file ]; then : > {marker}; exec sleep 600; fi\n"
                              f"exec {shutil.which('git')} \"$@\"\n")
    (fake / "git").chmod(0o755)
    process = subprocess.Popen([sys.executable, "-m", "condorcfg", "diff", "HEAD~1", "HEAD", "--no-ads"],
                               cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_environment(PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
                                                TMPDIR=str(temporary)))
    try:
        for _ in range(6000):  # (waits for the unpacking to start; no bound on how long it takes is asserted)
            if marker.exists() or process.poll() is not None:
                break
            time.sleep(0.01)
        assert marker.exists(), process.communicate()
        assert len(list(temporary.glob(f"{gitside.PREFIX}*"))) == 1  # it exists while the diff runs
        process.send_signal(signum)
        _out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signum and "Traceback" not in err
    assert list(temporary.iterdir()) == []


# -- 3a'. a change to every slot of a big machine: counted past MAX_LISTED_SLOT_CHANGES, in every format --------

@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_slot_changes_past_the_listed_limit_are_counted(tmp_path, monkeypatch, capsys, fmt):
    from condorcfg import diff as diff_module
    from condorcfg.cli import main

    monkeypatch.setattr(diff_module, "MAX_LISTED_SLOT_CHANGES", 25)
    monkeypatch.setattr(diff_module.diff_slot_ads, "__defaults__", (25,))
    project = _fleet_project(tmp_path, [_profile(64, 262144)], 60)
    (project / "etc" / "old").write_text("NUM_SLOTS = 60\nSTARTD_ATTRS = SITE_TAG\nSITE_TAG = 1\n")
    (project / "etc" / "new").write_text("NUM_SLOTS = 60\nSTARTD_ATTRS = SITE_TAG\nSITE_TAG = 2\n")
    monkeypatch.chdir(project)
    assert main(["diff", "etc/old", "etc/new", "--format", fmt]) == 1
    out = capsys.readouterr().out
    if fmt == "json":
        data = json.loads(out)
        assert len(data["slots"]) == 25 and data["slots_not_listed"] == [{"machines": ["m0"], "count": 35}]
    else:
        assert "35 more slot-ad changes not listed" in out and "MAX_LISTED_SLOT_CHANGES" in out
        assert out.count("SITE_TAG") <= 25 + 3  # the listed changes, and the knob itself


def test_the_fleet_attributes_share_one_budget(tmp_path, monkeypatch, capsys):
    from condorcfg import diff as diff_module
    from condorcfg.cli import main

    monkeypatch.setattr(diff_module, "MAX_FLEET_ATTRIBUTES", 5_000)
    project = _fleet_project(tmp_path, [_profile(cpus, 262144) for cpus in (40, 41, 42, 43)], 40)
    monkeypatch.chdir(project)
    assert main(["diff", "etc/old", "etc/new"]) == 2
    assert "MAX_FLEET_ATTRIBUTES" in capsys.readouterr().err


def test_a_git_side_reads_a_path_that_climbs_out_of_a_folder(tmp_path):
    """`include : $(LOCAL_CONFIG_DIR)/../extra.conf`: the folder before `..` must exist in the revision's tree."""
    repo = tmp_path / "r"
    (repo / "etc" / "condor" / "config.d").mkdir(parents=True)
    (repo / "etc" / "condor" / "condor_config").write_text(
        "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\ninclude : $(LOCAL_CONFIG_DIR)/../extra.conf\n")
    (repo / "etc" / "condor" / "config.d" / "10").write_text("A = 1\n")
    (repo / "etc" / "condor" / "extra.conf").write_text("EXTRA = 1\n")
    (repo / ".condorcfg.yaml").write_text("roots: [etc/condor/condor_config]\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    _commit(repo, "base")
    done = _diff(repo, "--no-ads", "git:HEAD", "./etc/condor/condor_config")
    assert done.returncode == 0 and "no difference in meaning" in done.stdout, done.stdout + done.stderr
