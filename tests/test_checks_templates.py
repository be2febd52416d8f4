"""No rule fires on something only HTCondor's own templates wrote."""
from __future__ import annotations

from pathlib import Path

import pytest

from condorcfg.config.templates import categories, template_names
from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])
# Templates that need arguments, given plausible ones; the argument knob is defined first.
ARGUMENTS = {
    ("POLICY", "PREEMPT_IF"): "LIMIT = MemoryUsage > 2 * RequestMemory\nuse POLICY : PREEMPT_IF(LIMIT)\n",
    ("POLICY", "WANT_HOLD_IF"): "LIMIT = MemoryUsage > 2 * RequestMemory\nuse POLICY : WANT_HOLD_IF(LIMIT, 42, big)\n",
    ("FEATURE", "AssignAccountingGroup"): "use FEATURE : AssignAccountingGroup(/etc/condor/groups.map)\n",
    ("FEATURE", "AssignProjectName"): "use FEATURE : AssignProjectName(projects, /etc/condor/projects.map)\n",
    ("FEATURE", "StartdCronPeriodic"): "use FEATURE : StartdCronPeriodic(GPU, 300, /usr/libexec/gpu, -v)\n",
    ("FEATURE", "StartdCronOneShot"): "use FEATURE : StartdCronOneShot(GPU, /usr/libexec/gpu)\n",
    ("FEATURE", "StartdCronContinuous"): "use FEATURE : StartdCronContinuous(GPU, /usr/libexec/gpu)\n",
    ("FEATURE", "ScheddCronPeriodic"): "use FEATURE : ScheddCronPeriodic(AUDIT, 300, /usr/libexec/audit)\n",
    ("FEATURE", "ScheddUsermapFile"): "use FEATURE : ScheddUsermapFile(groups, /etc/condor/groups.map)\n",
    ("FEATURE", "SetJobAttrFromUsermap"): "use FEATURE : SetJobAttrFromUsermap(AcctGroup, Owner, groups)\n",
}
# Engine/reader findings (CFG00x) report HTCondor's own errors for templates used without arguments.
OWN_CODES = ("MAC", "KNB", "EXP", "POL", "SLT", "TPL", "SEC", "UPG", "RTR", "CFG1")


def _cases():
    for category in categories():
        for name in template_names(category):
            text = ARGUMENTS.get((category, name), f"use {category} : {name}\n")
            yield pytest.param(text, id=f"{category}:{name}")


@pytest.mark.parametrize("text", list(_cases()))
def test_template_alone_gives_no_rule_finding(tmp_path, text):
    path = tmp_path / "condor_config"
    path.write_text(text)
    findings = engine.run(str(path), settings=engine.LintSettings(select=["ALL"]), ruleset=RULES).findings
    mine = [f.format() for f in findings if f.code and f.code.startswith(OWN_CODES)]
    assert mine == []


@pytest.mark.parametrize("text", [
    "",
    "use ROLE : Personal\n",
    "use ROLE : CentralManager, Submit, Execute\nuse SECURITY : recommended\nuse FEATURE : PartitionableSlot\n"
    "use POLICY : Hold_If_Memory_Exceeded\nCONDOR_HOST = cm.example.org\n",
], ids=["empty", "personal", "all-in-one"])
def test_stock_configurations_are_clean(tmp_path, text):
    path = tmp_path / "condor_config"
    path.write_text(text)
    findings = engine.run(str(path), settings=engine.LintSettings(select=["ALL"]), ruleset=RULES).findings
    assert [f.format() for f in findings] == []
