"""CFG006 limit-reached: a configuration that reaches one of condorcfg's limits is reported as
incompletely checked, in every report format, and the lint run fails closed (exit 2)."""
from __future__ import annotations

import json

import pytest

from condorcfg.classad.budget import Budget, command_budget
from condorcfg.cli import main
from condorcfg.lint import engine


def _fan_out(tmp_path, fan: int = 10, depth: int = 15):
    for level in range(depth):
        (tmp_path / f"f{level}.conf").write_text(f"X{level} = {level}\n" + f"include : f{level + 1}.conf\n" * fan)
    (tmp_path / f"f{depth}.conf").write_text("LEAF = 1\n")
    (tmp_path / "condor_config").write_text("include : f0.conf\n")
    (tmp_path / ".condorcfg.yaml").write_text("roots: [condor_config]\n")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab", "junit"])
def test_a_spent_reading_budget_is_reported_and_fails_closed(tmp_path, monkeypatch, capsys, fmt):
    _fan_out(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = main(["lint", "--format", fmt])
    out = capsys.readouterr().out
    assert status == 2
    assert "CFG006" in out and "MAX_FILE_READS" in out


def test_the_limit_cannot_be_deselected_or_suppressed(tmp_path, monkeypatch, capsys):
    _fan_out(tmp_path)
    (tmp_path / "f14.conf").write_text("# condorcfg: ignore-file[CFG006] hide it\n" +
                                       (tmp_path / "f14.conf").read_text())
    monkeypatch.chdir(tmp_path)
    status = main(["lint", "--ignore", "CFG006", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 2
    assert [f["code"] for f in report["findings"] if f["code"] == "CFG006"] == ["CFG006"]


@pytest.mark.parametrize("limit, budget", [("work", Budget(work=2_000)), ("bytes", Budget(bytes=20_000))])
def test_a_spent_classad_budget_is_a_finding(tmp_path, limit, budget):
    # lint folds START; evaluating it spends more than this (small) budget allows
    doubling = " + ".join(['size(strcat("' + "x" * 5000 + '", "y"))'] * 40)
    (tmp_path / "condor_config").write_text(f"START = ({doubling}) > 0\n")
    with command_budget(budget):
        result = engine.run([str(tmp_path / "condor_config")])
    reached = [f for f in result.findings if f.code == "CFG006"]
    assert len(reached) == 1 and reached[0].severity == "error"
    assert limit.upper() + "_LIMIT" in reached[0].message


def test_no_limit_no_finding(tmp_path):
    (tmp_path / "condor_config").write_text('START = size(strcat("a", "b")) > 0\n')
    with command_budget(Budget()):
        result = engine.run([str(tmp_path / "condor_config")])
    assert not [f for f in result.findings if f.code == "CFG006"]


def test_a_spent_regex_budget_is_a_warning(tmp_path):
    (tmp_path / "condor_config").write_text('START = regexp("(x|xx)+$", "' + "x" * 40 + '!")\n')
    with command_budget(Budget(regex_seconds=0.001)):
        result = engine.run([str(tmp_path / "condor_config")])
    assert not [f for f in result.findings if f.code == "CFG006"]  # (not a limit that fails the run)
    reached = [f for f in result.findings if f.code == "CFG008"]
    assert len(reached) == 1 and reached[0].severity == "warning" and "REGEX_SECONDS" in reached[0].message
