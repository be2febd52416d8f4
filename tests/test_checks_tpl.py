"""TPL rules: provenance messages name the `use` line that a later assignment undoes."""
from __future__ import annotations

from pathlib import Path

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def lint(tmp_path, *texts, select=("TPL",)):
    paths = []
    for index, text in enumerate(texts, 1):
        path = tmp_path / f"{index:02d}-conf"
        path.write_text(text)
        paths.append(str(path))
    findings = engine.run(paths, settings=engine.LintSettings(select=list(select)), ruleset=RULES).findings
    assert not [f for f in findings if f.rule == engine.INTERNAL_ERROR]
    return findings


def test_plain_assignment_discards_a_template_contribution(tmp_path):
    [finding] = lint(tmp_path, "# limits\nuse POLICY : Preempt_If_Memory_Exceeded\n", "PREEMPT = False\n")
    assert finding.code == "TPL701"
    assert finding.location.file.endswith("02-conf") and finding.location.line == 1
    first = str(tmp_path / "01-conf")
    assert finding.message.startswith(f"`PREEMPT = False` discards what `use POLICY : Preempt_If_Memory_Exceeded` "
                                      f"at {first}:2:1 added")


def test_appending_keeps_the_contribution(tmp_path):
    assert lint(tmp_path, "use POLICY : Preempt_If_Memory_Exceeded\n",
                "PREEMPT = ($(PREEMPT)) || (KeyboardIdle < 60)\n") == []


def test_assignment_before_the_template_is_fine(tmp_path):
    assert lint(tmp_path, "PREEMPT = KeyboardIdle < 60\n", "use POLICY : Preempt_If_Memory_Exceeded\n") == []


def test_daemon_list_that_keeps_the_daemon_is_fine(tmp_path):
    assert lint(tmp_path, "use ROLE : Execute\nDAEMON_LIST = MASTER STARTD SHARED_PORT\n") == []


def test_attrs_list_replaced_in_another_file(tmp_path):
    [finding] = lint(tmp_path, "STARTD_ATTRS = HasSSD\nHasSSD = true\n", "STARTD_ATTRS = HasGPU\nHasGPU = true\n")
    assert finding.location.file.endswith("02-conf") and "HASSSD" in finding.message


def test_whole_policy_after_composing(tmp_path):
    [finding] = lint(tmp_path, "use POLICY : Hold_If_Memory_Exceeded\n", "use POLICY : Always_Run_Jobs\n")
    assert finding.code == "TPL702" and finding.location.file.endswith("02-conf")
    assert "use POLICY : Hold_If_Memory_Exceeded" in finding.message


def test_duplicate_use_across_files(tmp_path):
    [finding] = lint(tmp_path, "use ROLE : Execute\n", "use role:execute\n")
    assert finding.code == "TPL703" and finding.location.file.endswith("02-conf")
