"""Issue 27: precise findings with true advice (EXP402/KNB301, fragment KNB301, SLT604/SLT602, POL516/MAC203
severity, POL501 on job attributes IS_OWNER reads directly)."""
from __future__ import annotations

from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules
from condorcfg.machine import MachineProfile

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def lint(tmp_path, text, *, fragment=False, machine=None, whole=False, select=("ALL",)):
    path = tmp_path / "50-site.conf"
    path.write_text(text)
    settings = engine.LintSettings(select=list(select), fragment=fragment)
    findings = engine.run(str(path), settings=settings, ruleset=RULES, machine=machine, whole=whole).findings
    crashes = [f.message for f in findings if f.rule == engine.INTERNAL_ERROR]
    assert not crashes, crashes
    return findings


def codes(findings, code):
    return [f for f in findings if f.code == code]


def machine(cpus, memory=65536):
    return MachineProfile(hostname="ep.example.org", cpus=cpus, memory=memory, disk=100_000_000, swap=0,
                          ip="10.0.0.1", opsys="LINUX", arch="X86_64", source="<test>")


# -- 1. RACK = rack-12: the value needs quotes, it is not an append gone wrong ------------------------------------

def test_unquoted_text_naming_its_own_knob_is_knb301_not_exp402(tmp_path):
    findings = lint(tmp_path, "RACK = rack-12\nSTARTD_ATTRS = $(STARTD_ATTRS) RACK\n")
    assert not codes(findings, "EXP402"), [f.message for f in findings]
    [finding] = codes(findings, "KNB301")
    assert finding.severity == "error"
    assert "`rack - 12`" in finding.message and "RACK itself" in finding.message
    assert "undefined in the ad" in finding.message and "quotes" in finding.message
    assert finding.fix == 'RACK = "rack-12"'


def test_the_oracle_reads_rack_12_as_a_self_referring_expression():
    classad2 = pytest.importorskip("classad2")
    ad = classad2.ClassAd()
    ad["RACK"] = classad2.ExprTree("rack-12")
    assert str(ad.lookup("RACK")) == "rack - 12"
    assert ad.eval("RACK") == classad2.Value.Undefined  # `rack` is RACK itself: a loop


def test_a_bare_word_naming_its_own_knob_is_knb301(tmp_path):
    findings = lint(tmp_path, "STARTD_ATTRS = Site\nSite = site\n")
    assert not codes(findings, "EXP402")
    [finding] = codes(findings, "KNB301")
    assert "Site itself" in finding.message and finding.fix == 'Site = "site"'


def test_quoted_text_is_clean(tmp_path):
    findings = lint(tmp_path, 'RACK = "rack-12"\nSTARTD_ATTRS = $(STARTD_ATTRS) RACK\n')
    assert not codes(findings, "EXP402") and not codes(findings, "KNB301")


def test_exp402_still_reports_a_policy_self_reference(tmp_path):
    [finding] = codes(lint(tmp_path, "START = START && KeyboardIdle > 600\n"), "EXP402")
    assert "write $(START) instead" in finding.fix


def test_exp402_does_not_advise_appending_to_nothing(tmp_path):
    [finding] = codes(lint(tmp_path, "STARTD_ATTRS = Weight\nWeight = Weight * 2\n"), "EXP402")
    assert "$(Weight)" not in finding.fix and "no earlier value" in finding.fix


# -- 2. --fragment: an outside macro reached through a macro the fragment defines ---------------------------------

FRAGMENT = "END = $(N)\nIS_X = (SlotID <= $(END))\nSTARTD_ATTRS = $(STARTD_ATTRS) IS_X\n"


def test_fragment_outside_macro_through_a_local_macro_is_not_knb301(tmp_path):
    findings = lint(tmp_path, FRAGMENT, fragment=True)
    assert not codes(findings, "KNB301"), [f.message for f in findings]
    [summary] = codes(findings, "CFG009")
    assert "(N)" in summary.message and any("KNB301" in str(note) for note in summary.notes)


def test_fragment_expression_knob_through_a_local_macro_is_not_exp403(tmp_path):
    findings = lint(tmp_path, "END = $(N)\nSTART = (SlotID <= $(END))\n", fragment=True)
    assert not codes(findings, "EXP403"), [f.message for f in findings]


def test_whole_file_still_reports_it_and_names_the_root_macro(tmp_path):
    [finding] = codes(lint(tmp_path, FRAGMENT), "KNB301")
    assert "$(END) expands to nothing" in finding.message and "N is not defined" in finding.message
    assert finding.fix.startswith("define N ")


def test_two_values_broken_through_different_local_macros_stay_two_findings(tmp_path):
    text = ("A_END = $(N)\nB_END = $(N)\nSTARTD_ATTRS = IS_A IS_B\n"
            "IS_A = (SlotID <= $(A_END))\nIS_B = (SlotID <= $(B_END))\n")
    assert [f.location.line for f in codes(lint(tmp_path, text), "KNB301")] == [4, 5]
    assert not codes(lint(tmp_path, text, fragment=True), "KNB301")


# -- 3. SLT604 judges the evaluated NUM_CPUS; SLT602 without --machine against a declared NUM_CPUS / MEMORY ------

def test_num_cpus_expression_over_the_detected_cores(tmp_path):
    findings = lint(tmp_path, "NUM_CPUS = $(DETECTED_CORES) * 3\n", machine=machine(24))
    [finding] = codes(findings, "SLT604")
    assert "is 72 CPUs" in finding.message and "(24)" in finding.message


def test_num_cpus_expression_within_the_detected_cores(tmp_path):
    assert not codes(lint(tmp_path, "NUM_CPUS = $(DETECTED_CORES) - 2\n", machine=machine(24)), "SLT604")


def test_plain_num_cpus_message_is_unchanged(tmp_path):
    [finding] = codes(lint(tmp_path, "NUM_CPUS = 32\n", machine=machine(8)), "SLT604")
    assert finding.message.startswith("NUM_CPUS = 32 advertises more CPUs than the machine has (8)")


def test_slot_types_over_a_declared_num_cpus_without_machine(tmp_path):
    text = "NUM_CPUS = 8\nSLOT_TYPE_1 = cpus=2\nNUM_SLOTS_TYPE_1 = 3\nSLOT_TYPE_2 = cpus=1\nNUM_SLOTS_TYPE_2 = 4\n"
    [finding] = codes(lint(tmp_path, text), "SLT602")
    assert "ask for 10 CPUs" in finding.message and "NUM_CPUS = 8" in finding.message
    assert "3 x 2 (type 1) + 4 x 1 (type 2)" in finding.message


def test_slot_types_over_a_declared_memory_without_machine(tmp_path):
    text = "MEMORY = 16384\nRESERVED_MEMORY = 1024\nSLOT_TYPE_1 = cpus=1, memory=8000\nNUM_SLOTS_TYPE_1 = 2\n"
    [finding] = codes(lint(tmp_path, text), "SLT602")
    assert "16000 MiB of memory" in finding.message and "MEMORY - RESERVED_MEMORY = 15360" in finding.message


@pytest.mark.parametrize("text", [
    "NUM_CPUS = 8\nSLOT_TYPE_1 = cpus=4\nNUM_SLOTS_TYPE_1 = 2\n",  # fits
    "NUM_CPUS = $(DETECTED_CORES)\nSLOT_TYPE_1 = cpus=4\nNUM_SLOTS_TYPE_1 = 3\n",  # depends on the machine
    "SLOT_TYPE_1 = cpus=4\nNUM_SLOTS_TYPE_1 = 3\n",  # NUM_CPUS not declared
    "MEMORY = 16384\nSLOT_TYPE_1 = cpus=1, memory=8G\nNUM_SLOTS_TYPE_1 = 3\n",  # a unit: not weighed
])
def test_no_machine_independent_finding_when_it_depends_on_the_machine(tmp_path, text):
    assert not codes(lint(tmp_path, text), "SLT602")


# -- 4. harmless no-ops do not fail the default run ----------------------------------------------------------------

@pytest.mark.parametrize("code", ["POL516", "MAC203"])
def test_debatable_rules_are_info(code):
    [rule] = [r for r in RULES if r.code == code]
    assert rule.severity == "info"
    assert "not a warning" in rule.rationale


def test_policy_on_a_host_without_startd_is_info(tmp_path):
    [finding] = codes(lint(tmp_path, "DAEMON_LIST = MASTER, SCHEDD\nSTART = KeyboardIdle > 600\n"), "POL516")
    assert finding.severity == "info"


def test_identical_duplicate_is_info(tmp_path):
    [finding] = codes(lint(tmp_path, "NUM_CPUS = 4\nNUM_CPUS = 4\n"), "MAC203")
    assert finding.severity == "info" and "to the same value" in finding.message


# -- 5. IS_OWNER reading a job attribute, whatever the operators ---------------------------------------------------

@pytest.mark.parametrize("text, attribute", [
    ('IS_OWNER = (KeyboardIdle < 120) && (AcctGroup =!= "group_physics")\n', "AcctGroup"),
    ('IS_OWNER = (KeyboardIdle < 120) || (Owner =?= "bob")\n', "Owner"),
    ("IS_OWNER = (KeyboardIdle < 120) && isUndefined(TARGET.RequestGpus)\n", "TARGET.RequestGpus"),
    ('GROUP_OK = (AcctGroup =!= "group_physics")\nIS_OWNER = (KeyboardIdle < 120) && $(GROUP_OK)\n', "AcctGroup"),
])
def test_is_owner_reading_a_job_attribute_is_reported_whatever_the_operator(tmp_path, text, attribute):
    [finding] = codes(lint(tmp_path, text, whole=True), "POL501")
    assert f"job attribute {attribute}" in finding.message and "always undefined" in finding.message


def test_the_oracle_says_the_exemption_never_applies():
    classad2 = pytest.importorskip("classad2")
    slot = classad2.ClassAd({"KeyboardIdle": 60})
    expr = classad2.ExprTree('(KeyboardIdle < 120) && (AcctGroup =!= "group_physics")')
    assert expr.eval(slot) is True  # AcctGroup is undefined without a job: the clause is always true


@pytest.mark.parametrize("text", [
    "use POLICY : Desktop\nSTART = $(START) && (TARGET.AcctGroup =!= \"group_physics\")\n",
    "use POLICY : Desktop\nSTART = KeyboardIdle > 900 && Owner != \"guest\"\n",
    "IS_OWNER = (START =?= False)\nSTART = KeyboardIdle > 900 && (TARGET.AcctGroup =!= \"group_physics\")\n",
])
def test_a_job_clause_in_start_under_is_owner_start_false_stays_silent(tmp_path, text):
    assert not codes(lint(tmp_path, text, whole=True), "POL501")


# -- a local-named daemon's <LOCALNAME>_<attr> (held-out set: gwms factory secondary schedds) -----------------

LOCAL_NAMED = """\
SCHEDDGLIDEINS1 = $(SCHEDD)
SCHEDDGLIDEINS1_ARGS = -local-name scheddglideins1
SCHEDD.SCHEDDGLIDEINS1.SCHEDD_NAME = schedd_glideins1
SCHEDDGLIDEINS1_SPOOL_DIR_STRING = "/var/lib/condor/spool1"
SCHEDD.SCHEDDGLIDEINS1.SCHEDD_EXPRS = SPOOL_DIR_STRING
DAEMON_LIST = $(DAEMON_LIST), SCHEDDGLIDEINS1
"""


def test_a_local_named_daemons_exported_value_is_neither_unknown_nor_undefined(tmp_path):
    """config_fill_ad (condor_config.cpp) looks up <LOCALNAME>_<attr> before <attr> for each attribute a
    daemon started with -local-name exports: SCHEDDGLIDEINS1_SPOOL_DIR_STRING is the knob it reads."""
    path = tmp_path / "condor_config"
    path.write_text(LOCAL_NAMED)
    codes = [(f.code, f.knob) for f in engine.lint(str(path))]
    assert not [c for c in codes if c[0] in ("KNB303", "KNB305")], codes
    path.write_text(LOCAL_NAMED.replace("SCHEDDGLIDEINS1_SPOOL", "OTHERNAME_SPOOL"))
    codes = [f.code for f in engine.lint(str(path))]
    assert "KNB303" in codes and "KNB305" in codes  # (no such local name: still unknown, still undefined)


def test_a_docker_volume_named_in_docker_mount_volumes_is_a_known_knob(tmp_path):
    """docker_proc.cpp reads DOCKER_VOLUME_DIR_<name> (and _MOUNT_IF) for each volume DOCKER_MOUNT_VOLUMES names."""
    path = tmp_path / "condor_config"
    path.write_text("DOCKER_MOUNT_VOLUMES = SCRATCH, CVMFS\nDOCKER_VOLUME_DIR_SCRATCH = /scratch\n"
                    "DOCKER_VOLUME_DIR_CVMFS = /cvmfs:/cvmfs:ro\nDOCKER_VOLUME_DIR_CVMFS_MOUNT_IF = HasCVMFS\n")
    assert not [f for f in engine.lint(str(path)) if f.code == "KNB303"]


# -- SEC810/SEC811: a security requirement is read by its first letter (SecMan::sec_alpha_to_sec_req) -----------

@pytest.mark.parametrize("text, whole, codes", [
    ("SEC_DEFAULT_AUTHENTICATION = REQUIRED,PASSWORD\n", False, ["SEC811"]),
    ("SEC_DEFAULT_AUTHENTICATION = $(SEC_DEFAULT_AUTHENTICATION),PASSWORD\n", False, ["SEC811"]),
    ("SEC_DEFAULT_AUTHENTICATION = $(SEC_DEFAULT_AUTHENTICATION),PASSWORD\n", True, ["SEC810", "SEC811"]),
    ("SEC_DAEMON_INTEGRITY = IDTOKENS\n", True, ["SEC810"]),
    ("SEC_DAEMON_INTEGRITY = IDTOKENS\n", False, []),  # (a fragment's value may be decided elsewhere: no claim)
    ("SEC_DEFAULT_AUTHENTICATION = yes\nSEC_CLIENT_ENCRYPTION = False\nSEC_READ_INTEGRITY = optional\n", True, []),
])
def test_a_security_requirement_is_read_by_its_first_letter(tmp_path, text, whole, codes):
    path = tmp_path / "condor_config"
    path.write_text(text)
    found = sorted(f.code for f in engine.lint(str(path), whole=whole) if f.code in ("SEC810", "SEC811"))
    assert found == codes


@pytest.mark.oracle
def test_what_sec810_quotes_is_the_value_htcondor_reads(oracle, tmp_path):
    text = "SEC_DEFAULT_AUTHENTICATION = $(SEC_DEFAULT_AUTHENTICATION),PASSWORD\n"
    expected = oracle.config_values(text, ["SEC_DEFAULT_AUTHENTICATION"])
    assert expected["error"] is None and expected["expect"]["SEC_DEFAULT_AUTHENTICATION"] == ",PASSWORD"
    path = tmp_path / "condor_config"
    path.write_text(text)
    [finding] = [f for f in engine.lint(str(path), whole=True) if f.code == "SEC810"]
    assert "= ,PASSWORD is no security requirement" in finding.message


def test_dynamic_group_quotas_that_add_up_to_more_than_one(tmp_path):
    """POL518: the manual's group accounting section: siblings' dynamic quotas over 1 are scaled down in
    proportion; a subgroup's quota (a dotted group name) is a known knob, not SUBSYS.X."""
    path = tmp_path / "condor_config"
    path.write_text("GROUP_NAMES = group_physics, group_chemistry, group_physics.hep, group_physics.lep\n"
                    "GROUP_QUOTA_DYNAMIC_group_physics = 0.7\nGROUP_QUOTA_DYNAMIC_group_chemistry = 0.5\n"
                    "GROUP_QUOTA_DYNAMIC_group_physics.hep = 0.75\nGROUP_QUOTA_DYNAMIC_group_physics.lep = 0.25\n")
    findings = engine.lint(str(path))
    [finding] = [f for f in findings if f.code == "POL518"]
    assert "add up to 1.2" in finding.message and "group_physics 0.7 -> 0.583" in finding.message
    assert not [f for f in findings if f.code == "KNB303"]


def test_a_line_that_repeats_htcondors_default_is_not_blamed_for_it(tmp_path):
    """FLOCK_COLLECTOR_HOSTS = $(FLOCK_TO) and SYSTEM_STARTD_ATTRS = COLLECTOR_HOST_STRING DedicatedScheduler are
    param_info.in's own defaults (a condor_config_val -dump copies them): what they name behaves as on every
    host without the line, so neither MAC201 nor KNB305 reports it; the same names elsewhere still are."""
    path = tmp_path / "condor_config"
    path.write_text("FLOCK_COLLECTOR_HOSTS = $(FLOCK_TO)\nSYSTEM_STARTD_ATTRS = COLLECTOR_HOST_STRING DedicatedScheduler\n")
    assert not [f for f in engine.lint(str(path)) if f.code in ("MAC201", "KNB305")]
    path.write_text("FLOCK_COLLECTOR_HOSTS = $(FLOCK_TO) cm2.example.org\nSTARTD_ATTRS = DedicatedScheduler\n")
    assert sorted(f.code for f in engine.lint(str(path)) if f.code in ("MAC201", "KNB305")) == ["KNB305", "MAC201"]


@pytest.mark.parametrize("text, found", [
    ("use FEATURE : GPUs\nCONSUMPTION_POLICY = True\n", True),
    ("use FEATURE : GPUs\nCONSUMPTION_POLICY = True\nCONSUMPTION_GPUS = quantize(target.RequestGPUs ?: 0, {1})\n", False),
    ("SLOT_TYPE_2_CONSUMPTION_POLICY = True\nMACHINE_RESOURCE_FPGA = 2\nSLOT_TYPE_2_CONSUMPTION_FPGA = 1\n", False),
    ("use FEATURE : GPUs\nCONSUMPTION_POLICY = False\n", False),
])
def test_a_consumption_policy_needs_one_for_each_custom_resource(tmp_path, text, found):
    """SLT611: the manual (CONSUMPTION_<Resource>): each resource a partitionable slot advertises must have a
    consumption policy, and custom resources have no default one."""
    path = tmp_path / "condor_config"
    path.write_text(text)
    assert bool([f for f in engine.lint(str(path)) if f.code == "SLT611"]) is found
