"""Baselines: accepted findings stop failing, new ones still fail, stale entries are reported."""
from __future__ import annotations

import json

import pytest

from condorcfg.cli import main
from condorcfg.lint import baseline


@pytest.fixture
def lint(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CONDORCFG_RULES_DIR", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the project ends here
    (tmp_path / ".condorcfg.yaml").write_text("roots: [condor_config]\nbaseline: accepted.json\n")

    def invoke(*args):
        status = main(["lint", "--format", "json", *args])
        out, err = capsys.readouterr()
        return status, (json.loads(out) if out.strip() else None), err

    return invoke


OLD = 'IS_OWNER = Owner == "bob"\nHOSTALLOW_READ = *.example.org\n'


def test_accepted_findings_stop_failing_and_new_ones_do_not(lint, tmp_path):
    (tmp_path / "condor_config").write_text(OLD)
    status, report, _ = lint()
    assert status == 1 and {f["code"] for f in report["findings"]} >= {"POL501", "UPG901"}
    accepted = len(report["findings"])
    status, _, err = lint("--write-baseline", "accepted.json")
    assert status == 0 and f"({accepted} findings)" in err
    status, report, _ = lint()
    assert status == 0 and report["findings"] == [] and report["counts"]["baselined"] == accepted
    # lines move: still accepted (the key is rule, file and knob, not the line)
    (tmp_path / "condor_config").write_text("# a comment\n\nNUM_CPUS = 8\n" + OLD)
    status, report, _ = lint()
    assert status == 0 and report["findings"] == []
    # a new mistake fails, in the same file or another one
    (tmp_path / "condor_config").write_text(OLD + "HOSTALLOW_WRITE = *.example.org\n")
    status, report, _ = lint()
    assert status == 1 and [f["knob"] for f in report["findings"] if f["severity"] == "error"] == ["HOSTALLOW_WRITE"]


def test_a_fixed_finding_leaves_a_stale_entry(lint, tmp_path):
    (tmp_path / "condor_config").write_text(OLD)
    lint("--write-baseline", "accepted.json")
    (tmp_path / "condor_config").write_text("HOSTALLOW_READ = *.example.org\n")
    status, report, _ = lint()
    stale = [f for f in report["findings"] if f["code"] == "CFG005"]
    assert status == 1 and len(stale) == 1 and stale[0]["file"] == "accepted.json"  # (a warning fails the run)
    assert "IS_OWNER" in stale[0]["message"] and stale[0]["severity"] == "warning"
    lines = (tmp_path / "accepted.json").read_text().splitlines()
    assert '"knob": "IS_OWNER"' in lines[stale[0]["line"] - 1]


def test_a_broken_baseline_is_a_usage_error(lint, tmp_path):
    (tmp_path / "condor_config").write_text(OLD)
    (tmp_path / "accepted.json").write_text("{not json\n")
    status, report, err = lint()
    assert status == 2 and report is None and "accepted.json:1:1: error baseline: the baseline is not valid JSON" in err
    (tmp_path / "accepted.json").write_text('{"findings": []}\n')
    assert lint()[0] == 2
    status, _, err = lint("--baseline", "missing.json")
    assert status == 2 and "cannot read the baseline" in err


def test_the_file_is_one_entry_per_line_and_counts_copies(tmp_path):
    from condorcfg.diagnostics import Diagnostic, Location

    def finding(line, knob="A", code="KNB303"):
        return Diagnostic("warning", "m", Location(str(tmp_path / "c"), line), code=code, rule="r", knob=knob)

    path = str(tmp_path / "b.json")
    assert baseline.write(path, [finding(1), finding(9), finding(3, "B")], str(tmp_path)) == 2
    entries = baseline.read(path)
    assert [(e.knob, e.count, e.line) for e in entries] == [("A", 2, 3), ("B", 1, 4)]
    new, accepted, stale = baseline.apply([finding(5), finding(6), finding(7)], entries, str(tmp_path))
    assert (len(new), len(accepted)) == (1, 2) and [(e.knob, left) for e, left in stale] == [("B", 1)]


@pytest.mark.parametrize("setting", ["roots: [../outside/condor_config]", "baseline: /etc/passwd", "sysroot: /",
                                     "machine: ../profile.yaml", "roots: [link/condor_config]"])
def test_project_paths_stay_inside_the_project(setting, lint, tmp_path):
    (tmp_path / "condor_config").write_text(OLD)
    (tmp_path / "link").symlink_to("/etc")
    (tmp_path / ".condorcfg.yaml").write_text(setting + "\n")
    status, report, err = lint()
    assert status == 2 and report is None and "outside the project folder" in err, err


def test_linting_some_files_leaves_the_other_files_entries_alone(tmp_path, monkeypatch, capsys):
    """Issue 26: linting one file reported the whole baseline stale (59 x CFG005), and --write-baseline
    dropped the entries of every file it did not lint."""
    import json

    from condorcfg.cli import main

    for name, knob in (("a.conf", "UNKNOWN_A"), ("b.conf", "UNKNOWN_B")):
        (tmp_path / name).write_text(f"{knob} = 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "--write-baseline", "base.json", "a.conf", "b.conf"]) == 0
    capsys.readouterr()
    assert {e["file"] for e in json.loads((tmp_path / "base.json").read_text())["findings"]} == {"a.conf", "b.conf"}
    # one file linted: b.conf's entry is not stale, and a.conf's still hides its finding
    assert main(["lint", "--baseline", "base.json", "--format", "json", "a.conf"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == [] and report["counts"]["baselined"] == 1
    # a.conf fixed: its entry alone is stale
    (tmp_path / "a.conf").write_text("NUM_CPUS = 4\n")
    assert main(["lint", "--baseline", "base.json", "--format", "json", "a.conf"]) == 1
    stale = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "CFG005"]
    assert len(stale) == 1 and "UNKNOWN_A" in stale[0]["message"]
    # rewriting the baseline from a.conf alone keeps b.conf's entry
    assert main(["lint", "--write-baseline", "base.json", "a.conf"]) == 0
    assert [e["file"] for e in json.loads((tmp_path / "base.json").read_text())["findings"]] == ["b.conf"]
