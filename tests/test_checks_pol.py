"""POL501 (job-attr-in-is-owner) and EXP404 (constant-policy): reach-through and provenance."""
from __future__ import annotations

from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def lint(tmp_path, *texts, select=("POL501",), whole=True):
    """Lint files written in order (01.conf, 02.conf, ...) as one (whole) configuration."""
    paths = []
    for index, text in enumerate(texts, 1):
        path = tmp_path / f"{index:02d}.conf"
        path.write_text(text)
        paths.append(str(path))
    findings = engine.run(paths, settings=engine.LintSettings(select=list(select)), ruleset=RULES,
                          whole=whole).findings
    crashes = [f.message for f in findings if f.rule == engine.INTERNAL_ERROR]
    assert not crashes, crashes
    return findings


def test_direct_job_attribute_points_at_it(tmp_path):
    [finding] = lint(tmp_path, 'IS_OWNER = Owner == "bob"\n')
    assert finding.severity == "error" and finding.code == "POL501"
    assert (finding.location.line, finding.location.column, finding.location.end_column) == (1, 12, 17)
    assert "job attribute Owner" in finding.message


def test_target_scope_is_a_job_attribute(tmp_path):
    [finding] = lint(tmp_path, "IS_OWNER = KeyboardIdle < 60 || TARGET.RequestCpus > 4\n")
    assert "TARGET.RequestCpus" in finding.message


def test_machine_attributes_are_fine(tmp_path):
    assert lint(tmp_path, "IS_OWNER = KeyboardIdle < 600 && (LoadAvg - CondorLoadAvg) > 0.3\n") == []


def test_reach_through_a_macro_points_at_the_macro_reference(tmp_path):
    [finding] = lint(tmp_path, "BIG_JOB = RequestMemory > 8192\nIS_OWNER = $(BIG_JOB) || KeyboardIdle < 60\n")
    # BIG_JOB's own line is not an expression knob; the user's IS_OWNER line brought it in
    assert "through $(BIG_JOB)" in finding.message
    assert (finding.location.line, finding.location.column) in ((1, 11), (2, 12))


def test_macro_from_a_builtin_default_is_blamed_on_the_users_line(tmp_path):
    [finding] = lint(tmp_path, "IS_OWNER = $(SmallJob)\n")
    assert finding.location.line == 1 and "ImageSize" in finding.message


def test_macro_defined_in_another_file_is_reported_where_the_job_attribute_is_written(tmp_path):
    findings = lint(tmp_path, "IS_OWNER = $(CHECK)\n", 'CHECK = TARGET.Owner == "x"\n')
    [finding] = findings
    assert finding.location.file.endswith("02.conf") and finding.location.line == 1
    assert any("IS_OWNER" in note for note in finding.notes)


def test_reach_through_start_under_the_desktop_policy(tmp_path):
    """IS_OWNER = (START =?= False) from the template; the user's START line is what is wrong."""
    [finding] = lint(tmp_path, "use POLICY : Desktop\n", 'START = $(START) || Owner == "alice"\n')
    assert finding.location.file.endswith("02.conf") and finding.location.line == 1
    assert finding.severity == "error"  # OR-ed: START undefined when the machine is busy, Owner state lost
    assert "POLICY:DESKTOP" in finding.message and "Owner" in finding.message
    assert "never enters the Owner state" in finding.message


def test_job_clause_anded_into_start_keeps_the_owner_state(tmp_path):
    """False && UNDEFINED is False: with the keyboard busy IsOwner is still true (HTCondor agrees)."""
    assert lint(tmp_path, "use POLICY : Desktop\n", 'START = $(START) && Owner != "guest"\n') == []


def test_shipped_policies_alone_are_clean(tmp_path):
    for name in ("Desktop", "UWCS_Desktop", "Desktop_Idle", "Desktop_Hours", "Always_Run_Jobs"):
        assert lint(tmp_path, f"use POLICY : {name}\n") == [], name


def test_exported_knob_is_followed_into_its_expression(tmp_path):
    findings = lint(tmp_path, 'STARTD_ATTRS = NightOwl\nNightOwl = RemoteOwner =?= "alice"\nIS_OWNER = NightOwl\n')
    [finding] = findings
    assert finding.location.line == 2 and "RemoteOwner" in finding.message


def test_exported_machine_only_knob_is_fine(tmp_path):
    assert lint(tmp_path, "STARTD_ATTRS = Busy\nBusy = KeyboardIdle < 60\nIS_OWNER = Busy\n") == []


def test_attribute_loops_terminate(tmp_path):
    findings = lint(tmp_path, 'IS_OWNER = START =?= False\nSTART = IsOwner =!= True && Owner == "x"\n')
    assert len(findings) == 1 and "Owner" in findings[0].message


# ------------------------------------------------------------------ constant-policy


def test_start_expanding_to_nothing(tmp_path):
    [finding] = lint(tmp_path, "START = $(NOT_DEFINED_ANYWHERE)\n", select=("POL509", "EXP404"))
    assert finding.code == "POL509" and finding.severity == "error" and "expands to nothing" in finding.message
    assert finding.notes == ["$(NOT_DEFINED_ANYWHERE) expands to nothing here (it is not defined)"]
    # a file linted on its own may get the macro from the files it is composed with
    assert lint(tmp_path, "START = $(NOT_DEFINED_ANYWHERE)\n", select=("POL509",), whole=False) == []
    assert lint(tmp_path, "MYSTART = KeyboardIdle > 60\n", "START = $(MYSTART)\n", select=("POL509",)) == []


@pytest.mark.parametrize("text", ["START = False\n", "START = (KeyboardIdle > 60) && (1 == 2)\n",
                                  "IS_OWNER = 2 > 1\n", "PREEMPT = True || KeyboardIdle > 60\n"])
def test_constant_policies(tmp_path, text):
    assert len(lint(tmp_path, text, select=("EXP404",))) == 1


@pytest.mark.parametrize("text", ["START = KeyboardIdle > 60\n", "PREEMPT = False\n", "IS_OWNER = False\n",
                                  "DAEMON_LIST = MASTER SCHEDD\nSTART = False\n",
                                  "START = time() > 0 && False || KeyboardIdle > 1\n"])
def test_policies_that_are_not_useless(tmp_path, text):
    assert lint(tmp_path, text, select=("EXP404",)) == []
