"""MAC/KNB/EXP checks: cycles across files, bounded work, exported values, unknown knobs."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def lint(tmp_path, *texts, select, settings=None):
    paths = []
    for index, text in enumerate(texts, 1):
        path = tmp_path / f"{index:02d}.conf"
        path.write_text(text)
        paths.append(str(path))
    settings = settings or engine.LintSettings()
    settings.select = list(select)
    findings = engine.run(paths, settings=settings, ruleset=RULES).findings
    assert not [f for f in findings if f.rule == engine.INTERNAL_ERROR], findings
    return findings


def test_cycle_across_files_reported_once(tmp_path):
    findings = lint(tmp_path, "A = $(B) 1\n", "B = $(C) 2\nC = $(A) 3\n", select=["MAC202"])
    [finding] = findings
    assert "A -> B -> C -> A" in finding.message
    assert finding.location.file.endswith("01.conf") and finding.location.column == 5


def test_long_chains_are_bounded(tmp_path):
    text = "".join(f"K{i} = $(K{i + 1}) x\n" for i in range(3000)) + "K3000 = $(K0)\n"
    started = time.perf_counter()
    findings = lint(tmp_path, text, select=["MAC202", "MAC201", "EXP403", "POL501"])
    assert time.perf_counter() - started < 20
    assert [f.code for f in findings] == ["MAC202"]


def test_undefined_macro_span_and_suggestion(tmp_path):
    [finding] = lint(tmp_path, "NUM_CPU_LIMIT = 4\nLIMIT = $(NUM_CPU_LIMT) - 1\n", select=["MAC201"])
    assert (finding.location.line, finding.location.column, finding.location.end_column) == (2, 9, 24)
    assert "did you mean $(NUM_CPU_LIMIT)" in finding.message and "reads as ` - 1`" in finding.message


def test_subsystem_definitions_count_as_defined(tmp_path):
    assert lint(tmp_path, "STARTD.EXTRA = 1\nX = $(EXTRA)\n", select=["MAC201"]) == []


@pytest.mark.parametrize("text, severity", [
    ("STARTD_ATTRS = Site\nSite = CERN Geneva\n", "error"),
    ("SLOT1_STARTD_ATTRS = Site\nSite = 1.2.3\n", "error"),
    ("STARTD_ATTRS = Site\nSite = Geneva\n", "error"),  # a bare word: an attribute reference no ad defines, undefined in the ad
])
def test_unquoted_exported_values(tmp_path, text, severity):
    [finding] = lint(tmp_path, text, select=["KNB301"])
    assert finding.severity == severity and finding.location.line == 2


@pytest.mark.parametrize("text", ["STARTD_ATTRS = Site\nSite = \"CERN\"\n", "STARTD_ATTRS = Big\nBig = Memory > 1024\n",
                                  "STARTD_JOB_ATTRS = Owner\nOwner = bob\n", "Site = CERN Geneva\n"])
def test_values_that_are_fine(tmp_path, text):
    assert lint(tmp_path, text, select=["KNB301"]) == []


def test_unknown_knob_exemptions(tmp_path):
    text = ("NEGOTIATOR_INTERVL = 60\nHELPER = 5\nUSES_HELPER = $(HELPER)\nMY_ATTR = 1\nSTARTD_ATTRS = MY_ATTR\n"
            "SITE_TOOL_SETTING = x\n")
    settings = engine.LintSettings(known_knobs=["SITE_TOOL_.*"])
    findings = lint(tmp_path, text, select=["KNB303"], settings=settings)
    names = sorted(f.message.split()[0] for f in findings)
    assert names == ["NEGOTIATOR_INTERVL", "USES_HELPER"]
    assert "did you mean NEGOTIATOR_INTERVAL" in findings[0].message


def test_expr_syntax_names_the_empty_macro(tmp_path):
    [finding] = lint(tmp_path, "START = $(A) && KeyboardIdle > 60\n", select=["EXP403"])
    assert any("$(A) expands to nothing" in note for note in finding.notes)


def test_compare_undefined_inside_a_macro_reported_once(tmp_path):
    findings = lint(tmp_path, "NO_GPU = (TARGET.GPUs == UNDEFINED)\nSTART = $(NO_GPU) || KeyboardIdle > 1\n",
                    select=["EXP401"])
    assert [(f.location.line, f.location.column) for f in findings] == [(1, 23)]


def test_hostile_regex_is_only_compiled(tmp_path):
    started = time.perf_counter()
    findings = lint(tmp_path, 'START = regexp("(a+)+$", Name) && regexp("(x", Name)\n', select=["EXP405"])
    assert time.perf_counter() - started < 10
    assert len(findings) == 1 and "(x" in findings[0].message


def test_exponential_expansion_reported_once_in_bounded_time(tmp_path):
    text = "".join(f"E{i} = $(E{i + 1})$(E{i + 1})\n" for i in range(40)) + "E40 = x\nSTART = $(E0)\n"
    started = time.perf_counter()
    findings = lint(tmp_path, text, select=["MAC", "EXP", "POL", "KNB"])
    assert time.perf_counter() - started < 20
    # no cycle: a limit reached (MAX_EXPANDED_SIZE), at the first knob expanded (START, read by the rules)
    assert [(f.code, f.location.line) for f in findings if f.severity == "error"] == [("CFG006", 42)]
    assert "MAX_EXPANDED_SIZE" in [f for f in findings if f.code == "CFG006"][0].message


def test_deep_nesting_is_an_error_not_a_crash(tmp_path):
    text = "START = " + "(" * 3000 + "True" + ")" * 3000 + "\n"
    [finding] = lint(tmp_path, text, select=["EXP", "POL", "KNB"])
    assert finding.code == "EXP403" and "nested" in finding.message


def test_per_slot_override_of_an_exported_knob(tmp_path):
    [finding] = lint(tmp_path, 'STARTD_ATTRS = Site\nSite = "CERN"\nSLOT2_Site = Geneva West\n', select=["KNB301"])
    assert finding.location.line == 3 and "SLOT2_Site" in finding.message


def test_every_rule_survives_cycles_in_the_knobs_it_reads(tmp_path):
    """Cycles behind START, IS_OWNER, DAEMON_LIST, STARTD_ATTRS, SLOT_TYPE_1, ALLOW_WRITE: MAC202 only."""
    text = "".join(f"{knob} = $({knob}_A) x\n{knob}_A = $({knob}_B)\n{knob}_B = $({knob})\n" for knob in (
        "START", "IS_OWNER", "PREEMPT", "DAEMON_LIST", "STARTD_ATTRS", "SLOT_TYPE_1", "ALLOW_WRITE",
        "STARTD_EXPRS", "JOB_ROUTER_ENTRIES", "SEC_DEFAULT_AUTHENTICATION", "NUM_CPUS"))
    path = tmp_path / "cycles.conf"
    path.write_text(text + "NUM_SLOTS_TYPE_1 = 1\n")
    from condorcfg.machine import from_mapping

    findings = engine.run(str(path), machine=from_mapping({"cpus": 8, "memory": 16384}),
                          settings=engine.LintSettings(select=["ALL"]), ruleset=RULES).findings
    assert not [f.message for f in findings if f.rule == engine.INTERNAL_ERROR]
    assert {f.code for f in findings if f.severity == "error"} <= {"MAC202", "UPG903", "RTR101"}
    assert sum(1 for f in findings if f.code == "MAC202") == 11


def test_items_of_a_continued_list_are_pointed_at_on_their_own_line(tmp_path):
    findings = lint(tmp_path, "STARTD_ATTRS = $(STARTD_ATTRS) \\\n   HasFoo, \\\n   HasBar \\\n   HasBaz\nHasFoo = 1\n",
                    select=["KNB305"])
    assert [(f.location.line, f.location.column) for f in findings] == [(3, 4), (4, 4)]


def test_oversubscribed_slots_of_one_type_give_one_finding(tmp_path):
    from condorcfg.machine import MachineProfile

    path = tmp_path / "condor_config"
    path.write_text("NUM_CPUS = 8\nSLOT_TYPE_1 = cpus=2, memory=60%\nNUM_SLOTS_TYPE_1 = 4\n")
    findings = [f for f in engine.run(str(path), machine=MachineProfile(cpus=8, memory=16384)).findings
                if f.code == "SLT602"]
    assert len(findings) == 1 and findings[0].message.startswith("slots 2-4 of type 1 each ask for")


@pytest.mark.parametrize("text, code, reported", [
    ("SLOT_TYPE_1 = cpus=60%, memory=60%\nNUM_SLOTS_TYPE_1 = 2\n", "SLT602", True),   # 120% on any machine
    ("SLOT_TYPE_1 = 50%\nNUM_SLOTS_TYPE_1 = 2\n", "SLT602", False),
    ("SLOT_TYPE_1 = cpus=3\nNUM_SLOTS_TYPE_1 = 4\n", "SLT602", False),                # depends on the machine
    ("NUM_CPUS = 8\nNUM_SLOTS = 16\nSLOT_TYPE_0_PARTITIONABLE = false\n", "SLT603", True),
    ("NUM_SLOTS = 16\nSLOT_TYPE_0_PARTITIONABLE = false\n", "SLT603", False),         # depends on the machine
])
def test_slot_rules_without_a_machine_report_what_holds_on_every_machine(tmp_path, text, code, reported):
    path = tmp_path / "condor_config"
    path.write_text(text)
    result = engine.run(str(path))
    assert code not in {rule.code for rule, _why in result.skipped_rules}
    assert (code in {f.code for f in result.findings}) is reported


@pytest.mark.parametrize("text", [
    "NUM_SLOTS = " + "9" * 5000 + "\n",
    "NUM_SLOTS_TYPE_" + "7" * 5000 + " = 2\nSLOT_TYPE_" + "7" * 5000 + " = cpus=50%\n",
    "MEMORY = " + "1" * 5000 + "\n",
    "# 1 hour\nMAXJOBRETIREMENTTIME = " + "6" * 5000 + "\n",
    "MAXJOBRETIREMENTTIME = \u00b2\n",
])
def test_huge_or_odd_numbers_are_no_crash(tmp_path, text):
    path = tmp_path / "condor_config"
    path.write_text(text)
    assert not [f for f in engine.run(str(path)).findings if f.rule == engine.INTERNAL_ERROR]
