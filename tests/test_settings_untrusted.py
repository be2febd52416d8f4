"""A pull request must not switch its own gate off silently (issue 28).

Its ``.condorcfg.yaml`` (``ignore``, ``select``, ``severity``) and baseline could make lint pass a
configuration with errors, and the text report said nothing.  Now: what the settings, the baseline
and suppressions hid is always counted in the summary (and in JSON); the limit and crash reports
(CFG006, CFG008, CFG003) can be neither deselected, re-graded nor baselined, nor can any rule that
cannot be suppressed; and ``--settings-from REV`` takes the settings and baseline as committed in the
base revision, so the change's own cannot hide its findings.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]
BASE_SETTINGS = "roots: [etc/condor_config]\nbaseline: .condorcfg-baseline.json\n"
BAD = 'IS_OWNER = Owner == "bob"\n'  # POL501: an error in every pool


def _git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True)


def _lint(repo: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    return subprocess.run([sys.executable, "-m", "condorcfg", "lint", *args], cwd=cwd or repo, capture_output=True,
                          text=True, env=env)


def _pool(tmp_path: Path) -> Path:
    """main: a clean configuration with project settings; the work tree then holds the pull request."""
    repo = tmp_path / "pool"
    (repo / "etc" / "config.d").mkdir(parents=True)
    (repo / "etc" / "condor_config").write_text("LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\nNUM_CPUS = 4\n")
    (repo / "etc" / "config.d" / "10-base").write_text("START = true\n")
    (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    return repo


def _baseline_accepting(repo: Path, code: str, knob: str, file: str = "etc/config.d/50-pr") -> str:
    return json.dumps({"condorcfg-baseline": 1, "findings": [
        {"code": code, "count": 1, "file": file, "knob": knob, "rule": ""}]})


# The ways a pull request's own settings can hide its POL501 error.
HIDERS = {
    "ignore-code": ("ignore: [POL501]\n", None),
    "ignore-prefix": ("ignore: [POL]\n", None),
    "ignore-slug": ("ignore: [job-attr-in-is-owner]\n", None),
    "ignore-all": ("ignore: [ALL]\n", None),
    "select-other": ("select: [SEC]\n", None),
    "severity-info": ("severity: {POL501: info}\n", None),
    "severity-prefix": ("severity: {POL: info}\n", None),
    "fail-on-error-and-info": ("fail-on: error\nseverity: {job-attr-in-is-owner: warning}\n", None),
    "baseline": ("", "baseline"),
}


@pytest.mark.parametrize("hider", sorted(HIDERS))
def test_what_the_pull_requests_settings_hide_is_said_and_settings_from_restores_the_gate(tmp_path, hider):
    repo = _pool(tmp_path)
    extra, baseline = HIDERS[hider]
    (repo / "etc" / "config.d" / "50-pr").write_text(BAD)
    (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS + extra)
    if baseline:
        (repo / ".condorcfg-baseline.json").write_text(_baseline_accepting(repo, "POL501", "IS_OWNER"))
    fooled = _lint(repo)
    summary = fooled.stdout.strip().splitlines()[-1]
    said = ("hidden by the baseline", "hidden by the rule selection", "severity changed by the settings")
    assert any(words in summary for words in said), fooled.stdout
    if "severity" in extra:
        assert "POL501 error -> " in summary
    # CI that takes the settings from the base branch sees the error, whatever the change's settings say
    gate = _lint(repo, "--settings-from", "main")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "error POL501" in gate.stdout and "hidden" not in gate.stdout.splitlines()[-1]


def test_json_counts_what_the_settings_hid(tmp_path):
    repo = _pool(tmp_path)
    (repo / "etc" / "config.d" / "50-pr").write_text(BAD + "ALLOW_WRITE = *\n")
    (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS + "ignore: [POL501]\nseverity: {SEC801: info}\n")
    report = json.loads(_lint(repo, "--format", "json").stdout)
    assert report["counts"]["hidden_by_settings"] == 1
    assert report["settings"] == {"hidden": {"POL501": 1}, "severity_changes": [
        {"code": "SEC801", "rule_severity": "error", "severity": "info"}]}


def test_settings_from_ignores_the_change_to_the_settings_file_and_the_baseline(tmp_path):
    repo = _pool(tmp_path)
    (repo / "etc" / "config.d" / "50-pr").write_text(BAD)
    (repo / ".condorcfg.yaml").write_text("roots: [etc/config.d/10-base]\nignore: [ALL]\n")  # roots moved too
    (repo / ".condorcfg-baseline.json").write_text(_baseline_accepting(repo, "POL501", "IS_OWNER"))
    done = _lint(repo, "--settings-from", "main", "--format", "json")
    report = json.loads(done.stdout)
    assert done.returncode == 1 and [f["code"] for f in report["findings"]] == ["POL501"]
    assert report["counts"]["baselined"] == 0
    # the base's own baseline (committed there) still applies
    (repo / ".condorcfg-baseline.json").write_text(_baseline_accepting(repo, "POL501", "IS_OWNER"))
    _git(repo, "add", ".condorcfg-baseline.json")
    _git(repo, "commit", "-qm", "accept")
    accepted = _lint(repo, "--settings-from", "HEAD", "--format", "json")
    assert accepted.returncode == 0 and json.loads(accepted.stdout)["counts"]["baselined"] == 1


def test_settings_from_a_subfolder_and_from_outside_the_repository(tmp_path):
    repo = _pool(tmp_path)
    (repo / "etc" / "config.d" / "50-pr").write_text(BAD)
    (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS + "ignore: [ALL]\n")
    inside = _lint(repo, "--settings-from", "main", cwd=repo / "etc" / "config.d")
    assert inside.returncode == 1 and "POL501" in inside.stdout
    outside = _lint(repo, "--settings-from", "main", cwd=tmp_path)
    assert outside.returncode == 2 and "not in a git work tree" in outside.stderr


@pytest.mark.parametrize("revision", ["--output=/tmp/x", "-p", "no-such-branch", "main:nope", ""])
def test_a_bad_settings_revision_is_a_usage_error(tmp_path, revision):
    repo = _pool(tmp_path)
    done = _lint(repo, f"--settings-from={revision}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--settings-from" in done.stderr
    assert not Path("/tmp/x").exists() or revision != "--output=/tmp/x"


def _fan_out(repo: Path, fan: int = 10, depth: int = 15) -> None:
    """A configuration that spends MAX_FILE_READS (CFG006)."""
    for level in range(depth):
        (repo / "etc" / f"f{level}.conf").write_text(f"X{level} = {level}\n" + f"include : $(CONFIG_ROOT)/f{level + 1}.conf\n" * fan)
    (repo / "etc" / f"f{depth}.conf").write_text("LEAF = 1\n")
    with open(repo / "etc" / "condor_config", "a") as handle:
        handle.write("include : $(CONFIG_ROOT)/f0.conf\n")


@pytest.mark.parametrize("how", ["baseline-entry", "write-baseline", "severity", "ignore", "ignore-all"])
def test_a_reached_limit_is_never_hidden(tmp_path, how):
    repo = _pool(tmp_path)
    _fan_out(repo)
    if how == "baseline-entry":
        (repo / ".condorcfg-baseline.json").write_text(json.dumps({"condorcfg-baseline": 1, "findings": [
            {"code": "CFG006", "count": 1, "file": "", "message": "anything", "rule": "limit-reached"}]}))
    elif how == "write-baseline":
        wrote = _lint(repo, "--write-baseline", ".condorcfg-baseline.json")
        assert wrote.returncode == 0
        assert "CFG006" not in (repo / ".condorcfg-baseline.json").read_text()
    else:
        setting = {"severity": "severity: {CFG006: info, CFG: info}\n", "ignore": "ignore: [CFG006]\n",
                   "ignore-all": "ignore: [ALL]\n"}[how]
        (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS + setting)
    done = _lint(repo, "--format", "json")
    report = json.loads(done.stdout)
    assert done.returncode == 2
    reached = [f for f in report["findings"] if f["code"] == "CFG006"]
    assert reached and all(f["severity"] == "error" for f in reached)


def test_generated_baselines_never_accept_a_rule_that_cannot_be_suppressed(tmp_path):
    """Whatever entries a baseline holds, a finding of a non-ignorable rule (a macro cycle) stays."""
    repo = _pool(tmp_path)
    (repo / "etc" / "config.d" / "50-pr").write_text("A_KNOB = $(B_KNOB)\nB_KNOB = $(A_KNOB)\n")
    rng = random.Random(2028)
    for _round in range(4):
        entries = []
        for _ in range(rng.randint(1, 6)):
            knob = rng.choice(["A_KNOB", "B_KNOB", None])
            entry = {"code": rng.choice(["MAC202", "CFG006", "CFG003"]), "count": rng.randint(1, 3),
                     "file": rng.choice(["etc/config.d/50-pr", ""]), "rule": ""}
            entry["knob" if knob else "message"] = knob or "macro cycle"
            entries.append(entry)
        (repo / ".condorcfg-baseline.json").write_text(json.dumps({"condorcfg-baseline": 1, "findings": entries}))
        done = _lint(repo, "--format", "json")
        report = json.loads(done.stdout)
        assert done.returncode == 1 and report["counts"]["baselined"] == 0
        assert any(f["code"] == "MAC202" for f in report["findings"])


@pytest.mark.parametrize("source", ["--output={out}", "-o{out}", "--output={out} ", "--ext-diff"])
def test_pre_commit_refs_never_reach_git_as_options(tmp_path, source):
    repo = _pool(tmp_path)
    out = tmp_path / "written-by-git"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    env.update(PRE_COMMIT_FROM_REF=source.format(out=out), PRE_COMMIT_TO_REF="HEAD")
    done = subprocess.run([sys.executable, "-m", "condorcfg", "lint", "--pre-commit", "--", "etc/config.d/10-base"],
                          cwd=repo, capture_output=True, text=True, env=env)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr
    assert not list(tmp_path.glob("written-by-git*"))  # (git would write to "{out}...HEAD")


def test_what_the_settings_hide_is_counted_in_the_same_reading(tmp_path, monkeypatch, capsys):
    """Counting the hidden findings costs the left-out rules only: the configuration is read once."""
    import condorcfg
    from condorcfg.cli import main

    repo = _pool(tmp_path)
    (repo / "etc" / "config.d" / "50-pr").write_text(BAD + "ALLOW_WRITE = *\n")
    (repo / ".condorcfg.yaml").write_text(BASE_SETTINGS + "ignore: [POL501, SEC]\n")
    reads = []
    real_load = condorcfg.load
    monkeypatch.setattr(condorcfg, "load", lambda *a, **k: reads.append(a) or real_load(*a, **k))
    monkeypatch.chdir(repo)
    assert main(["lint", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["hidden"] == {"POL501": 1, "SEC801": 1} and len(reads) == 1
    # a suppressed finding of a left-out rule is not counted again as hidden by the settings
    (repo / "etc" / "config.d" / "50-pr").write_text("# condorcfg: ignore[POL501] known\n" + BAD)
    assert main(["lint", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["hidden"] == {}


def test_a_baseline_is_read_in_one_pass_and_points_at_each_entrys_line(monkeypatch):
    from condorcfg.lint import baseline

    def read(n: int) -> tuple[int, list]:
        calls = []
        real = baseline._entry_lines
        monkeypatch.setattr(baseline, "_entry_lines", lambda lines: calls.append(len(lines)) or real(lines))
        entries = [{"code": "KNB303", "count": 1, "file": "f", "knob": f"K{i}", "rule": ""} for i in range(n)]
        text = '{"condorcfg-baseline": 1,\n "findings": [\n' + ",\n".join(" " + json.dumps(e) for e in entries) + "\n ]}\n"
        found = baseline.read("b.json", text)
        return sum(calls), found

    scanned, entries = read(2000)
    assert scanned == 2000 + 3 and [e.line for e in entries] == list(range(3, 2003))
