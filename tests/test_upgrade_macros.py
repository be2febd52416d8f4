"""Issue 27: a name the configuration uses is a macro, never an unknown knob (UPG906, condorcfg upgrade).

HTCondor 10.0 had built-in CPUIdle, KeyboardBusy, MachineBusy, ActivationTimer, ... macros that later
releases dropped; a configuration that defines them itself and uses them in START or PREEMPT keeps
working in every release.  KNB303, UPG906 and ``condorcfg upgrade`` decide "used" with one function
(condorcfg.lint.checks._util.used_names).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules
from condorcfg.machine import MachineProfile

ROOT = Path(__file__).resolve().parents[1]
RULES = load_rules([ROOT / "rules"])

# from a real pool (issue 27): each defined here, used by another line
POOL = """\
CPUIdle = (LoadAvg <= 0.3)
KeyboardBusy = (KeyboardIdle < 60)
MachineBusy = ($(CPUIdle) == False || $(KeyboardBusy))
ActivationTimer = (time() - JobStart)
START = $(CPUIdle) && !$(KeyboardBusy)
PREEMPT = $(MachineBusy) && $(ActivationTimer) > 600
"""


def lint(tmp_path, text, targets, select=("UPG906",)):
    from condorcfg import releases

    path = tmp_path / "condor_config"
    path.write_text(text)
    settings = engine.LintSettings(select=list(select), target_versions=[releases.resolve(t) for t in targets])
    findings = engine.run(str(path), settings=settings, ruleset=RULES, whole=True).findings
    assert not [f for f in findings if f.rule == engine.INTERNAL_ERROR]
    return findings


@pytest.mark.parametrize("targets", [["25.14"], ["23.0", "25.14"], ["24.0"]])
def test_user_macros_are_not_unknown_knobs_of_a_target(tmp_path, targets):
    assert lint(tmp_path, POOL, targets) == []


@pytest.mark.parametrize("text", [
    "MachineBusy = (LoadAvg > 0.5)\nSTARTD_ATTRS = $(STARTD_ATTRS) MachineBusy\n",  # exported into the ad
    "ActivationTimer = (time() - JobStart)\nPREEMPT = ActivationTimer > 3600\n",      # an attribute of PREEMPT
    "KeyboardBusy = (KeyboardIdle < 60)\nif defined KeyboardBusy\n  START = !$(KeyboardBusy)\nendif\n",
], ids=["exported", "attribute", "defined-test"])
def test_every_kind_of_use_makes_a_macro(tmp_path, text):
    assert lint(tmp_path, text, ["25.14"]) == []


def test_an_unused_knob_a_target_lacks_is_still_reported(tmp_path):
    findings = lint(tmp_path, POOL + "STARTD_SENDS_ALIVES = true\nCPUBusy = (LoadAvg > 0.5)\n", ["25.14"])
    assert {(f.code, f.knob) for f in findings} == {("UPG906", "STARTD_SENDS_ALIVES"), ("UPG906", "CPUBusy")}


def test_knb303_and_upg906_decide_used_with_one_function(tmp_path):
    from condorcfg.lint.checks import _util, upg

    assert upg.is_used is _util.is_used
    path = tmp_path / "condor_config"
    path.write_text(POOL + "Unused = 1\n")
    import condorcfg

    ctx = engine.LintContext(condorcfg.load([str(path)], mode="repository"))
    assert {"CPUIDLE", "KEYBOARDBUSY", "MACHINEBUSY", "ACTIVATIONTIMER"} <= _util.used_names(ctx)
    assert "UNUSED" not in _util.used_names(ctx)
    # KNB303 (no targets): the same names are used, the unused one is reported
    findings = lint(tmp_path, POOL + "Unused = 1\n", [], select=("KNB303",))
    assert [f.knob for f in findings] == ["Unused"]


# ---------------------------------------------------------------- condorcfg upgrade

def _plan(tmp_path, text, old="10.0.9", new="25.14.1"):
    from condorcfg.upgrade import plan

    path = tmp_path / "condor_config"
    path.write_text(text)
    return plan([str(path)], old, new, machine=MachineProfile(), mode="repository")


def test_upgrade_does_not_call_user_macros_removed(tmp_path):
    result = _plan(tmp_path, POOL)
    changed = {c.knob: c for c in result.changes}
    for name in ("CPUIdle", "KeyboardBusy", "MachineBusy", "ActivationTimer", "START", "PREEMPT"):
        assert name not in changed, (name, changed.get(name))


def test_upgrade_lists_a_user_macro_only_when_what_it_refers_to_changes(tmp_path):
    """NonCondorLoadAvg was a built-in macro of 10.0: a user macro using it really does change."""
    result = _plan(tmp_path, "CPUIdle = ($(NonCondorLoadAvg) <= 0.3)\nSTART = $(CPUIdle)\n")
    changed = {c.knob: c for c in result.changes}
    assert changed["CPUIdle"].kind == "value" and changed["CPUIdle"].new is not None
    assert changed["CPUIdle"].new.strip() != "(undefined)" and "<= 0.3" in changed["CPUIdle"].new


def test_upgrade_still_lists_a_removed_knob_nothing_uses(tmp_path):
    result = _plan(tmp_path, POOL + "STARTD_SENDS_ALIVES = true\n")
    [removed] = [c for c in result.changes if c.kind == "removed"]
    assert (removed.knob, removed.old, removed.new) == ("STARTD_SENDS_ALIVES", "true", None)


def test_upgrade_text_shows_no_undefined_user_macro(tmp_path):
    from condorcfg.commands.upgrade import _text

    text = _text(_plan(tmp_path, POOL))
    assert not re.search(r"(CPUIdle|KeyboardBusy|MachineBusy|ActivationTimer):.*\(undefined\)", text)
    assert "has no CPUIDLE knob" not in text


# ---------------------------------------------------------------- the documented default fail-on

def test_the_rules_page_documents_the_real_default_fail_on():
    from condorcfg.diagnostics import DEFAULT_FAIL_ON

    page = (ROOT / "docs" / "rules" / "README.md").read_text()
    said = re.findall(r"default:? `?(error|warning|info)`?", page[page.index("fail-on"):])
    assert said and set(said) == {DEFAULT_FAIL_ON}, said
