"""Configuration templates (templates/*.config, condorcfg.config.templates) against HTCondor itself.

Two groups of tests:

* the data: all 82 templates of HTCondor 25.14.1 are there, spelled as HTCondor spells
  them, found case-insensitively, with correct file/line provenance; unknown names
  are rejected;
* the behaviour: for every template (parameterised ones with representative
  arguments, several with a preamble), ``use CAT : Name`` read by ``condorcfg.load``
  gives exactly HTCondor's value for every knob the template touches - the names its
  body assigns (recursively through nested ``use``), every knob whose value HTCondor
  shows changed against the same config without the ``use`` line, and every name
  condorcfg defines.  Configs HTCondor rejects must be rejected too.

All oracle runs happen in one child process that re-reads the configuration with
``htcondor2.reload_config()`` for each case (a fatal case kills the child; the runner
records its error and starts a new child for the remaining cases).  Differences that
condorcfg cannot match (host facts a machine profile cannot carry, reader features still
missing) are listed with their reason in tests/data/templates_known_differences.json;
the test fails on any other difference and on any listed one that has gone away.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from condorcfg.config import templates as tpl

KNOWN_DIFFERENCES_FILE = Path(__file__).with_name("data") / "templates_known_differences.json"

# (case id, preamble lines, use line).  The argument choices follow the samples in
# shared/spec/templates.md; a few extra cases cover mechanics (case, several names, twice).
CASES: list[tuple[str, str, str]] = [
    ("role-centralmanager", "", "use ROLE : CentralManager"),
    ("role-execute", "", "use ROLE : Execute"),
    ("role-ghtc-cm", "", "use ROLE : get_htcondor_central_manager"),
    ("role-ghtc-execute", "", "use ROLE : get_htcondor_execute"),
    ("role-ghtc-submit", "", "use ROLE : get_htcondor_submit"),
    ("role-personal", "", "use ROLE : Personal"),
    ("role-submit", "", "use ROLE : Submit"),
    ("role-three-lowercase", "", "use role : execute, submit centralmanager"),
    ("role-execute-twice", "", "use ROLE : Execute\nuse ROLE : Execute"),
    ("sec-fips", "", "use SECURITY : FIPS"),
    ("sec-ghtc-idtokens", "", "use SECURITY : get_htcondor_idtokens"),
    ("sec-ghtc-idtokens-host", "CONDOR_HOST = cm.example.org", "use SECURITY : get_htcondor_idtokens"),
    ("sec-host-based", "", "use SECURITY : HOST_BASED"),
    ("sec-recommended", "", "use SECURITY : recommended"),
    ("sec-recommended-args", "", "use SECURITY : recommended(svc, admin@x, extra1, extra2)"),
    ("sec-recommended-v24", "", "use SECURITY : recommended_v24_0"),
    ("sec-recommended-v9", "", "use SECURITY : recommended_v9_0"),
    ("sec-recommended-v9-args", "", "use SECURITY : recommended_v9_0(svc, admin@x, extra1)"),
    ("sec-recommended-v9-blank", "", "use SECURITY : recommended_v9_0(a, )"),
    ("sec-strong", "", "use SECURITY : STRONG"),
    ("sec-user-based", "", "use SECURITY : USER_BASED"),
    ("sec-with-authentication", "", "use SECURITY : WITH_AUTHENTICATION"),
    ("pol-always-run-jobs", "", "use POLICY : ALWAYS_RUN_JOBS"),
    ("pol-desktop", "", "use POLICY : DESKTOP"),
    ("pol-desktop-hours", "", "use POLICY : DESKTOP_HOURS"),
    ("pol-desktop-hours-args", "", "use POLICY : DESKTOP_HOURS(7, 19)"),
    ("pol-desktop-idle", "", "use POLICY : DESKTOP_IDLE"),
    ("pol-desktop-idle-hours", "", "use POLICY : DESKTOP_IDLE(9, 17)"),
    ("pol-desktop-idle-days", "", "use POLICY : DESKTOP_IDLE(9, 17, 1, 5)"),
    ("pol-hold-cpus", "", "use POLICY : HOLD_IF_CPUS_EXCEEDED"),
    ("pol-hold-disk", "", "use POLICY : HOLD_IF_DISK_EXCEEDED"),
    ("pol-hold-memory", "", "use POLICY : HOLD_IF_MEMORY_EXCEEDED"),
    ("pol-hold-runtime", "", "use POLICY : HOLD_IF_RUNTIME_EXCEEDS"),
    ("pol-hold-runtime-arg", "", "use POLICY : HOLD_IF_RUNTIME_EXCEEDS(7200)"),
    ("pol-limit-runtimes", "", "use POLICY : LIMIT_JOB_RUNTIMES"),
    ("pol-limit-runtimes-arg", "", "use POLICY : LIMIT_JOB_RUNTIMES(3600)"),
    ("pol-only-registered-ckpt", "", "use POLICY : OnlyRegisteredCheckpointDestinations"),
    ("pol-preempt-if", "MY_TRIGGER = (MemoryUsage > 2*RequestMemory)", "use POLICY : PREEMPT_IF(MY_TRIGGER)"),
    ("pol-preempt-if-noarg", "", "use POLICY : PREEMPT_IF"),
    ("pol-preempt-if-stacked",
     "MY_TRIGGER = (MemoryUsage > 2*RequestMemory)\nPREEMPT = (Owner == \"bad\")\nWANT_SUSPEND = False\n"
     "MAXJOBRETIREMENTTIME = 300", "use POLICY : PREEMPT_IF(MY_TRIGGER)"),
    ("pol-preempt-cpus", "", "use POLICY : PREEMPT_IF_CPUS_EXCEEDED"),
    ("pol-preempt-disk", "", "use POLICY : PREEMPT_IF_DISK_EXCEEDED"),
    ("pol-preempt-memory", "", "use POLICY : PREEMPT_IF_MEMORY_EXCEEDED"),
    ("pol-preempt-runtime", "", "use POLICY : PREEMPT_IF_RUNTIME_EXCEEDS"),
    ("pol-preempt-runtime-arg", "", "use POLICY : PREEMPT_IF_RUNTIME_EXCEEDS(7200)"),
    ("pol-publish-cpususage", "", "use POLICY : STARTD_PUBLISH_CpusUsage"),
    ("pol-uwcs-desktop", "", "use POLICY : UWCS_DESKTOP"),
    ("pol-want-hold-if", "MY_TRIGGER = (DiskUsage > 1000)",
     "use POLICY : WANT_HOLD_IF(MY_TRIGGER, 42, my reason, with comma)"),
    ("pol-want-hold-if-2args", "MY_TRIGGER = (DiskUsage > 1000)", "use POLICY : WANT_HOLD_IF(MY_TRIGGER, 42)"),
    ("pol-memory-then-disk", "", "use POLICY : HOLD_IF_MEMORY_EXCEEDED\nuse POLICY : PREEMPT_IF_DISK_EXCEEDED"),
    ("feat-adstash", "", "use FEATURE : ADSTASH"),
    ("feat-assign-acct", "", "use FEATURE : AssignAccountingGroup(/etc/condor/acct.map)"),
    ("feat-assign-acct-nocheck", "", "use FEATURE : AssignAccountingGroup(/etc/condor/acct.map, false)"),
    ("feat-assign-acct-noarg", "", "use FEATURE : AssignAccountingGroup"),
    ("feat-assign-project", "", "use FEATURE : AssignProjectName(projmap)"),
    ("feat-assign-project-file", "", "use FEATURE : AssignProjectName(projmap, /etc/condor/proj.map)"),
    ("feat-child-collector", "", "use FEATURE : ChildCollector(2)"),
    ("feat-child-collector-port", "", "use FEATURE : ChildCollector(3, 9620)"),
    ("feat-cloud-aws", "", "use FEATURE : CommonCloudAttributesAWS"),
    ("feat-cloud-google", "", "use FEATURE : CommonCloudAttributesGoogle"),
    ("feat-continuous-hook", "", "use FEATURE : ContinuousCronHook(STARTD_CRON, tagc, /usr/bin/hook, -x 1)"),
    ("feat-default-ckpt", "", "use FEATURE : DefaultCheckpointDestination"),
    ("feat-default-ckpt-prefix", "DEFAULT_CHECKPOINT_DESTINATION_PREFIX = s3://bucket/ckpt",
     "use FEATURE : DefaultCheckpointDestination"),
    ("feat-ganglia", "", "use FEATURE : GANGLIA"),
    ("feat-gpus", "", "use FEATURE : GPUs"),
    ("feat-gpus-args", "", "use FEATURE : GPUs(-extra -args)"),
    ("feat-gpus-monitor", "", "use FEATURE : GPUsMonitor"),
    ("feat-hpc-annex", "", "use FEATURE : HPC_ANNEX"),
    ("feat-hpc-annex-personal", "use ROLE : Personal", "use FEATURE : HPC_ANNEX"),
    ("feat-instance-ids", "", "use FEATURE : JobsHaveInstanceIDs"),
    ("feat-krb", "", "use FEATURE : KRB"),
    ("feat-librarian", "", "use FEATURE : LIBRARIAN"),
    ("feat-librarian-args", "", "use FEATURE : LIBRARIAN(1GB, /var/lib/lib.db)"),
    ("feat-metricd", "", "use FEATURE : METRICD"),
    ("feat-metricd-shared", "PROMETHEUS_HTTP_PORT = 9618\nSHARED_PORT_PORT = 9618", "use FEATURE : METRICD"),
    ("feat-monitor", "", "use FEATURE : Monitor(FOO, Periodic, 60, /usr/bin/mon, SUM:Foo, PEAK:FooMem)"),
    ("feat-oauth", "", "use FEATURE : OAUTH"),
    ("feat-oneshot-hook", "", "use FEATURE : OneShotCronHook(SCHEDD_CRON, tago, /usr/bin/hook)"),
    ("feat-pslot", "", "use FEATURE : PartitionableSlot"),
    ("feat-pslot-args", "", "use FEATURE : PartitionableSlot(2, cpus=50%, mem=50%)"),
    ("feat-pelican-cache", "", "use FEATURE : PelicanCache"),
    ("feat-pelican-cache-args", "", "use FEATURE : PelicanCache(10GB, /scratch/cache, example.org)"),
    ("feat-pelican-retry", "", "use FEATURE : PelicanRetryPolicy"),
    ("feat-periodic-hook", "", "use FEATURE : PeriodicCronHook(STARTD_CRON, tagp, 300, /usr/bin/hook, -v)"),
    ("feat-periodic-hook-3args", "", "use FEATURE : PeriodicCronHook(STARTD_CRON, tagp, 300)"),
    ("feat-policy-fragments", "", "use FEATURE : POLICY_EXPR_FRAGMENTS"),
    ("feat-hours-to-start", "", "use FEATURE : POLICY_HOURS_TO_START"),
    ("feat-hours-to-start-args", "", "use FEATURE : POLICY_HOURS_TO_START(6, 18, 2, 6)"),
    ("feat-remote-config", "", "use FEATURE : REMOTE_CONFIG"),
    ("feat-remote-config-args", "", "use FEATURE : REMOTE_CONFIG(START, RANK)"),
    ("feat-remote-runtime", "", "use FEATURE : REMOTE_RUNTIME_CONFIG"),
    ("feat-remote-runtime-args", "", "use FEATURE : REMOTE_RUNTIME_CONFIG(START, RANK)"),
    ("feat-schedd-cron-cont", "", "use FEATURE : ScheddCronContinuous(dcc, /usr/bin/h6)"),
    ("feat-schedd-cron-oneshot", "", "use FEATURE : ScheddCronOneShot(dos, /usr/bin/h4)"),
    ("feat-schedd-cron-periodic", "", "use FEATURE : ScheddCronPeriodic(dpp, 120, /usr/bin/h5)"),
    ("feat-usermap-file", "", "use FEATURE : ScheddUsermapFile(mymap, /etc/condor/my.map)"),
    ("feat-setattr-usermap-file", "",
     "use FEATURE : SetJobAttrFromUsermap(Dept, Owner, deptmap, /etc/condor/dept.map)"),
    ("feat-setattr-usermap", "", "use FEATURE : SetJobAttrFromUsermap(Dept, Owner, deptmap)"),
    ("feat-startd-cron-cont", "", "use FEATURE : StartdCronContinuous(scc, /usr/bin/h3)"),
    ("feat-startd-cron-oneshot", "", "use FEATURE : StartdCronOneShot(sos, /usr/bin/h1)"),
    ("feat-startd-cron-periodic", "", "use FEATURE : StartdCronPeriodic(spp, 60, /usr/bin/h2, a1)"),
    ("feat-static-slots", "", "use FEATURE : StaticSlots"),
    ("feat-static-slots-args", "", "use FEATURE : StaticSlots(2, 4, cpus=1, mem=25%)"),
    ("feat-static-slots-2args", "", "use FEATURE : StaticSlots(3, 4)"),
    ("feat-testingmode", "", "use FEATURE : TESTINGMODE_POLICY_VALUES"),
    ("feat-uwcs-values", "", "use FEATURE : UWCS_DESKTOP_POLICY_VALUES"),
    ("exp-collector-node", "", "use EXPERIMENTAL : CollectorNode(1)"),
    ("exp-collector-node-port", "", "use EXPERIMENTAL : CollectorNode(2, 9700)"),
    ("exp-had", "", "use EXPERIMENTAL : HAD"),
    ("exp-had-fixed", "", "use EXPERIMENTAL : HADFixedPort(SCHEDD, cm.example.org, 51450, 41450)"),
    ("exp-had-replication", "", "use EXPERIMENTAL : HADReplication(SCHEDD, cm.example.org, 51450, 41450)"),
    ("exp-had-shared", "", "use EXPERIMENTAL : HADSharedPort(SCHEDD, cm.example.org)"),
    ("upg-discard", "", "use UPGRADE : DISCARD"),
    ("upg-discard-vmware", "", "use UPGRADE : DISCARD_VMWARE"),
    ("upg-discardif", "", "use UPGRADE : DISCARDIF"),
    ("upg-discardifx", "", "use UPGRADE : DISCARDIFX"),
    ("upg-discardx", "", "use UPGRADE : DISCARDX"),
    ("err-unknown-name", "", "use ROLE : NoSuchRole"),
    ("err-unknown-second", "", "use ROLE : Execute NoSuchRole"),
    ("err-limit-job-runtime", "", "use POLICY : Limit_Job_Runtime"),
    ("err-hold-if-memory-exceeds", "", "use POLICY : Hold_If_Memory_Exceeds"),
    ("err-unknown-category", "", "use NOCAT : Foo"),
    ("sub-startd-desktop", "", "use POLICY : DESKTOP"),
    ("sub-schedd-hpc-annex", "COLLECTOR_HOST = cm.example.org", "use FEATURE : HPC_ANNEX"),
    ("sub-master-child-collector", "", "use FEATURE : ChildCollector(2)"),
    ("sub-collector-collector-node", "", "use EXPERIMENTAL : CollectorNode(4, 9700)"),
    # AUTO_USE_<CATEGORY>_<Name> = <true> applies the template after every config source
    # (files, local files, _CONDOR_ overrides), in order of the knob names; the schedd's
    # built-in AUTO_USE_FEATURE_PelicanRetryPolicy = $(IsSchedd) uses PelicanRetryPolicy.
    ("auto-use-role-execute", "", "AUTO_USE_ROLE_Execute = true"),
    ("auto-use-order", "", "AUTO_USE_ROLE_Submit = true\nauto_use_role_execute = yes\nAUTO_USE_FEATURE_GANGLIA = 1"),
    ("auto-use-after-assignments", "",
     "JOB_TRANSFORM_NAMES = mine\nAUTO_USE_FEATURE_PelicanRetryPolicy = true\nPelicanRetry_MaxRetries = 9"),
    ("auto-use-schedd-default", "", "# nothing: the schedd's built-in AUTO_USE_FEATURE_PelicanRetryPolicy"),
    ("auto-use-schedd-off", "", "AUTO_USE_FEATURE_PelicanRetryPolicy = false"),
    ("auto-use-prefixed-ignored", "", "TOOL.AUTO_USE_ROLE_Execute = true"),
]

# Cases read as a daemon instead of the TOOL subsystem (prefixed knobs such as
# SCHEDD.COLLECTOR_HOST and the per-subsystem defaults then apply).
SUBSYSTEM_CASES = {"sub-startd-desktop": "STARTD", "sub-schedd-hpc-annex": "SCHEDD",
                   "sub-master-child-collector": "MASTER", "sub-collector-collector-node": "COLLECTOR",
                   "auto-use-schedd-default": "SCHEDD", "auto-use-schedd-off": "SCHEDD"}
# Templates a case applies without a `use` line (their body's knobs are compared too).
IMPLICIT_TEMPLATES = {"auto-use-schedd-default": [("FEATURE", "PelicanRetryPolicy")],
                      "auto-use-schedd-off": [("FEATURE", "PelicanRetryPolicy")],
                      "sub-schedd-hpc-annex": [("FEATURE", "PelicanRetryPolicy")]}

# Values that differ on every read: compared only for being defined on both sides.
RANDOM_KNOBS = {"PERIODIC_CHECKPOINT", "UWCS_PERIODIC_CHECKPOINT"}

# Values that change between the oracle's runs for reasons other than the config: each case
# has its own directory (CONFIG_ROOT) and a fatal case restarts the child process (PID, PPID).
NOT_CONFIG_DRIVEN = {"CONFIG_ROOT", "PID", "PPID"}

PINNED_HOST = "oracle-host.example.org"
PROBE = "CONDORCFG_PROBE"

# 82 templates in six categories, spelled as HTCondor's table spells them.
EXPECTED_NAMES = {
    "ROLE": "CentralManager Execute get_htcondor_central_manager get_htcondor_execute get_htcondor_submit "
            "Personal Submit",
    "SECURITY": "FIPS get_htcondor_idtokens HOST_BASED recommended recommended_v24_0 recommended_v9_0 STRONG "
                "USER_BASED WITH_AUTHENTICATION",
    "POLICY": "ALWAYS_RUN_JOBS DESKTOP DESKTOP_HOURS DESKTOP_IDLE HOLD_IF_CPUS_EXCEEDED HOLD_IF_DISK_EXCEEDED "
              "HOLD_IF_MEMORY_EXCEEDED HOLD_IF_RUNTIME_EXCEEDS LIMIT_JOB_RUNTIMES "
              "OnlyRegisteredCheckpointDestinations PREEMPT_IF PREEMPT_IF_CPUS_EXCEEDED PREEMPT_IF_DISK_EXCEEDED "
              "PREEMPT_IF_MEMORY_EXCEEDED PREEMPT_IF_RUNTIME_EXCEEDS STARTD_PUBLISH_CpusUsage UWCS_DESKTOP "
              "WANT_HOLD_IF",
    "FEATURE": "ADSTASH AssignAccountingGroup AssignProjectName ChildCollector CommonCloudAttributesAWS "
               "CommonCloudAttributesGoogle ContinuousCronHook DefaultCheckpointDestination GANGLIA GPUs "
               "GPUsMonitor HPC_ANNEX JobsHaveInstanceIDs KRB LIBRARIAN METRICD Monitor OAUTH OneShotCronHook "
               "PartitionableSlot PelicanCache PelicanRetryPolicy PeriodicCronHook POLICY_EXPR_FRAGMENTS "
               "POLICY_HOURS_TO_START REMOTE_CONFIG REMOTE_RUNTIME_CONFIG ScheddCronContinuous ScheddCronOneShot "
               "ScheddCronPeriodic ScheddUsermapFile SetJobAttrFromUsermap StartdCronContinuous "
               "StartdCronOneShot StartdCronPeriodic StaticSlots TESTINGMODE_POLICY_VALUES "
               "UWCS_DESKTOP_POLICY_VALUES",
    "EXPERIMENTAL": "CollectorNode HAD HADFixedPort HADReplication HADSharedPort",
    "UPGRADE": "DISCARD DISCARD_VMWARE DISCARDIF DISCARDIFX DISCARDX",
}


# --------------------------------------------------------------------------- the data


def test_all_templates_present_with_htcondor_spelling():
    assert sorted(tpl.categories()) == sorted(EXPECTED_NAMES)
    for category, names in EXPECTED_NAMES.items():
        assert tpl.template_names(category) == names.split(), category
    assert sum(len(tpl.template_names(c)) for c in tpl.categories()) == 82


def test_index_of_the_spec_lists_the_same_templates(shared):
    text = shared("spec", "templates.md").read_text()
    for category, names in EXPECTED_NAMES.items():
        line = re.search(rf"^\* \*\*{category}\*\*: (.*)$", text, re.M).group(1)
        assert sorted(line.split(", "), key=str.upper) == sorted(names.split(), key=str.upper)


def test_lookup_is_case_insensitive_and_returns_provenance():
    found = tpl.find_template("feature", "staticslots")
    assert (found.category, found.name, found.qualified_name) == ("FEATURE", "StaticSlots", "FEATURE:StaticSlots")
    assert found is tpl.find_template(" FEATURE ", "STATICSLOTS")
    assert tpl.template_names("role") == tpl.template_names("ROLE")
    assert found.body.splitlines()[0] == "NUM_SLOTS_TYPE_$(1:1)=$(2:$(NUM_CPUS))"


@pytest.mark.parametrize("category", sorted(EXPECTED_NAMES))
def test_body_lines_map_to_file_lines(category):
    for name in tpl.template_names(category):
        template = tpl.find_template(category, name)
        lines = Path(template.file).read_text().splitlines()
        assert re.match(rf"{name}\s+@=", lines[template.line - 2]), name  # header just above
        for offset, body_line in enumerate(template.body.splitlines()):
            assert lines[template.line - 1 + offset].strip() == body_line.strip(), (name, offset)


@pytest.mark.parametrize("category, name", [
    ("ROLE", "NoSuchRole"), ("POLICY", "Limit_Job_Runtime"), ("POLICY", "Hold_If_Memory_Exceeds"),
    ("POLICY", "Preempt_If_Memory_Exceeds"), ("NOCAT", "Execute"), ("ROLE", ""), ("ROLE", "Execute(1)"),
])
def test_unknown_templates_are_not_found(category, name):
    assert tpl.find_template(category, name) is None


def _statements(body: str) -> list[str]:
    """What HTCondor parses from a body: trimmed lines without blank and comment lines."""
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_bodies_are_the_ones_compiled_into_htcondor(oracle):
    """templates/*.config against the template table inside the installed HTCondor 25.14.1 library."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    try:
        import make_defaults
    finally:
        sys.path.pop(0)
    library = make_defaults.Library(make_defaults.find_library())
    compiled = make_defaults.template_tables(library)
    assert sorted(compiled) == sorted(tpl.categories())
    for category, entries in compiled.items():
        assert tpl.template_names(category) == list(entries), category
        for name, body in entries.items():
            assert _statements(tpl.find_template(category, name).body) == _statements(body), f"{category}:{name}"


def test_template_files_are_plain_config_that_htcondor_reads(oracle):
    """Every category file is valid HTCondor config: reading it defines one knob per template."""
    for category in tpl.categories():
        path = tpl.find_template(category, tpl.template_names(category)[0]).file
        text = Path(path).read_text()
        result = oracle.config_values(text, ["DISCARDIF", "STRONG", "EXECUTE_NOT_THERE"])
        assert result["error"] is None, (category, result["error"])


def test_damaged_template_file_is_a_diagnostic_not_a_traceback(tmp_path):
    from condorcfg.diagnostics import CondorcfgError

    bad = tmp_path / "role.config"
    bad.write_text("# ok\nExecute @=end\n  DAEMON_LIST = $(DAEMON_LIST) STARTD\n")
    with pytest.raises(CondorcfgError) as info:
        tpl.parse_template_file(bad, "ROLE")
    assert info.value.diagnostic.location.line == 2 and "closing `@end`" in info.value.diagnostic.message
    bad.write_text("Execute = STARTD\n")
    with pytest.raises(CondorcfgError) as info:
        tpl.parse_template_file(bad, "ROLE")
    assert info.value.diagnostic.location.line == 1
    bad.write_text("A @=x\n@x\na @=y\n@y\n")
    with pytest.raises(CondorcfgError, match="defined twice"):
        tpl.parse_template_file(bad, "ROLE")


def test_empty_tag_and_empty_body(tmp_path):
    good = tmp_path / "x.config"
    good.write_text("A @=\n  X = 1\n@\nB @=end\n@end\n")
    a, b = tpl.parse_template_file(good, "X")
    assert (a.body, a.line, b.body, b.line) == ("X = 1\n", 2, "", 5)


# --------------------------------------------------------------------------- HTCondor as the oracle

_BATCH_CHILD = r'''
import json, os, sys
import htcondor2 as h
PROBE = "CONDORCFG_PROBE"
for line in sys.stdin:
    case = json.loads(line)
    os.environ["CONDOR_CONFIG"] = case["config"]
    h.set_subsystem(case["subsystem"])
    h.reload_config()
    values = {}
    for name in list(h.param.keys()) + case["extra"]:
        if name.upper() == PROBE:
            continue
        h.param[PROBE] = "$(%s:CONDORCFGUNSETSENTINEL)" % name
        value = h.param.get(PROBE)
        if value != "CONDORCFGUNSETSENTINEL":
            values[name.upper()] = value
    print(json.dumps({"id": case["id"], "values": values}), flush=True)
'''


def _write_case(directory: Path, case_id: str, body: str) -> Path:
    """The same files for HTCondor and condorcfg: a top file (pinned host and dirs) including the case."""
    case_dir = directory / case_id
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "case.conf").write_text(body + "\n")
    top = case_dir / "condor_config"
    top.write_text(f"LOCAL_DIR = /opt/cc-local\nRELEASE_DIR = /opt/cc-release\nNETWORK_HOSTNAME = {PINNED_HOST}\n"
                   f"LOCAL_CONFIG_FILE =\nLOCAL_CONFIG_DIR =\ninclude : {case_dir / 'case.conf'}\n")
    return top


def _run_oracle(requests: list[dict]) -> dict[str, dict]:
    """Run all requests in as few child processes as possible; a fatal config ends one child."""
    results: dict[str, dict] = {}
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    pending = list(requests)
    while pending:
        env["CONDOR_CONFIG"] = pending[0]["config"]  # the import reads this one first
        proc = subprocess.run([sys.executable, "-c", _BATCH_CHILD], env=env, capture_output=True, text=True,
                              input="".join(json.dumps(r) + "\n" for r in pending), timeout=120)
        done = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        for item in done:
            results[item["id"]] = {"values": item["values"], "error": None}
        pending = pending[len(done):]
        if pending and proc.returncode != 0:
            failed = pending.pop(0)
            results[failed["id"]] = {"values": None, "error": proc.stderr.strip()[-600:] or "exit %d" % proc.returncode}
        elif pending:
            raise RuntimeError(f"oracle child stopped early: {proc.stderr[-400:]}")
    return results


def _literal_names(category: str, name: str, seen: set | None = None) -> set[str]:
    """Knob names a template body assigns literally (no $(...) in the name), through nested uses."""
    seen = set() if seen is None else seen
    template = tpl.find_template(category, name)
    if template is None or template.qualified_name in seen:
        return set()
    seen.add(template.qualified_name)
    names: set[str] = set()
    depth = 0  # inside a nested @= block, lines are value text
    for line in template.body.splitlines():
        text = line.strip()
        if depth:
            depth -= text.startswith("@")
            continue
        nested = re.match(r"use\s+(\w+)\s*:\s*(\w+)", text, re.I)
        if nested:
            names |= _literal_names(nested.group(1), nested.group(2), seen)
            continue
        assign = re.match(r"([A-Za-z_][\w.]*)\s*(\+?=|@=)", text)
        if assign and assign.group(1).lower() not in {"if", "elif", "else", "endif", "error", "warning"}:
            names.add(assign.group(1).upper())
            depth += assign.group(2) == "@="
    return names


def _uses(use_lines: str, case_id: str | None = None) -> list[tuple[str, str]]:
    """(category, name) of the templates a case's lines use: `use` lines and AUTO_USE_ knobs."""
    found = list(IMPLICIT_TEMPLATES.get(case_id, []))
    for line in use_lines.splitlines():
        auto = re.match(r"auto_use_([a-z]+)_(\w+)\s*=", line, re.I)
        if auto:
            found.append((auto.group(1), auto.group(2)))
        match = re.match(r"use\s+(\w+)\s*:\s*(.*)$", line, re.I)
        if not match:
            continue
        for item in re.findall(r"(\w+)\s*(?:\([^)]*\))?", re.sub(r"\([^)]*\)", "()", match.group(2))):
            found.append((match.group(1), item))
    return found


@pytest.fixture(scope="session")
def template_oracle(oracle, tmp_path_factory):
    """HTCondor's values for every case and for every distinct preamble without the use line."""
    directory = tmp_path_factory.mktemp("template-cases")
    requests, tops = [], {}
    bases = sorted({(pre, SUBSYSTEM_CASES.get(case_id, "TOOL")) for case_id, pre, _ in CASES})
    for index, (preamble, subsystem) in enumerate(bases):
        top = _write_case(directory, f"base-{index}", preamble)
        requests.append({"id": f"base-{index}", "config": str(top), "extra": [], "subsystem": subsystem})
    for case_id, preamble, use in CASES:
        top = _write_case(directory, case_id, f"{preamble}\n{use}" if preamble else use)
        tops[case_id] = top
        extra = sorted({n for cat, name in _uses(use, case_id) for n in _literal_names(cat, name)})
        requests.append({"id": case_id, "config": str(top), "extra": extra,
                         "subsystem": SUBSYSTEM_CASES.get(case_id, "TOOL")})
    results = _run_oracle(requests)
    base = {key: results[f"base-{i}"] for i, key in enumerate(bases)}
    return {"results": results, "base": base, "tops": tops}


@pytest.fixture(scope="session")
def host_profile(template_oracle):
    """A machine profile with the host facts HTCondor saw, so both sides expand the same facts.

    Every fact the cases expand is taken from the oracle's values (a profile's missing keys get
    fixed defaults, not this host's): the addresses too, IPv6 included (empty when it has none).
    """
    from condorcfg.machine import from_mapping

    values = template_oracle["base"][("", "TOOL")]["values"]
    return from_mapping({"hostname": values["FULL_HOSTNAME"], "cpus": values["DETECTED_CPUS"],
                         "memory": values["DETECTED_MEMORY"], "ip": values["IP_ADDRESS"],
                         "ipv6": values.get("IPV6_ADDRESS") or ""}, source="<oracle host>")


def _compare_case(case_id: str, preamble: str, use: str, template_oracle, host_profile) -> list[str]:
    """Differences between condorcfg and HTCondor for one case, as 'knob: why' strings."""
    import condorcfg
    from condorcfg.diagnostics import CondorcfgError

    oracle_result = template_oracle["results"][case_id]
    top = template_oracle["tops"][case_id]
    subsystem = SUBSYSTEM_CASES.get(case_id, "TOOL")
    try:
        cfg = condorcfg.load(str(top), machine=host_profile, subsystem=subsystem)
    except CondorcfgError as exc:
        if oracle_result["error"] is not None:
            return []
        return [f"<load>: condorcfg rejects the config ({exc.diagnostic.message}) but HTCondor accepts it"]
    if oracle_result["error"] is not None:
        return ["<load>: HTCondor rejects the config but condorcfg accepts it: "
                + oracle_result["error"].splitlines()[0]]
    after = oracle_result["values"]
    before = template_oracle["base"][(preamble, subsystem)]["values"]
    touched = {n for cat, name in _uses(use, case_id) for n in _literal_names(cat, name)}
    touched |= {n for n in set(after) | set(before) if after.get(n) != before.get(n) and n not in NOT_CONFIG_DRIVEN}
    touched |= {n.upper() for n in cfg.names()}
    problems = []
    for knob in sorted(touched):
        expected, actual = after.get(knob), cfg.value(knob)
        if knob in RANDOM_KNOBS:
            expected, actual = expected is not None, actual is not None
        if expected != actual:
            problems.append(f"{knob}: HTCondor {expected!r}, condorcfg {actual!r}")
    return problems


def _applicable_known_differences(template_oracle) -> dict[str, dict[str, str]]:
    """The listed differences whose host condition holds on this machine: case -> knob -> reason."""
    conditions = {"always": True,
                  "oracle-host-has-ipv6": bool(template_oracle["base"][("", "TOOL")]["values"].get("IPV6_ADDRESS"))}
    listed = json.loads(KNOWN_DIFFERENCES_FILE.read_text())["differences"]
    applicable = {}
    for case, knobs in listed.items():
        assert case in {c for c, _, _ in CASES}, f"known difference for unknown case {case}"
        for knob, entry in knobs.items():
            assert entry["when"] in conditions and entry["reason"], (case, knob)
            if conditions[entry["when"]]:
                applicable.setdefault(case, {})[knob] = entry["reason"]
    return applicable


def test_every_template_case_matches_htcondor(template_oracle, host_profile):
    known = _applicable_known_differences(template_oracle)
    found: dict[str, list[str]] = {}
    for case_id, preamble, use in CASES:
        problems = _compare_case(case_id, preamble, use, template_oracle, host_profile)
        if problems:
            found[case_id] = problems
    unexplained = {case: [p for p in problems if p.split(":")[0] not in known.get(case, {})]
                   for case, problems in found.items()}
    unexplained = {case: problems for case, problems in unexplained.items() if problems}
    stale = {case: sorted(set(knobs) - {p.split(":")[0] for p in found.get(case, [])})
             for case, knobs in known.items()}
    stale = {case: knobs for case, knobs in stale.items() if knobs}
    passed = len(CASES) - len(found)
    assert not unexplained, f"{passed}/{len(CASES)} cases match; differences:\n" + json.dumps(unexplained, indent=1)
    assert not stale, "listed as known differences but now matching (remove them): " + json.dumps(stale)


def test_error_cases_are_the_ones_htcondor_rejects(template_oracle):
    """The oracle side itself: exactly these cases are fatal in HTCondor, with its messages."""
    errors = {case: result["error"] for case, result in template_oracle["results"].items() if result["error"]}
    assert sorted(errors) == sorted([
        "err-hold-if-memory-exceeds", "err-limit-job-runtime", "err-unknown-category", "err-unknown-name",
        "err-unknown-second", "feat-assign-acct-noarg", "feat-periodic-hook-3args", "pol-preempt-if-noarg",
        "pol-want-hold-if-2args", "upg-discard"])
    assert "use ROLE: does not recognise NoSuchRole" in errors["err-unknown-name"]
    assert "Internal Configuration Error: use UPGRADE: DISCARD is invalid" in errors["upg-discard"]
    assert "requires an argument" in errors["pol-preempt-if-noarg"]


def test_every_template_has_an_oracle_case():
    used = {(cat.upper(), name.upper()) for _, _, use in CASES for cat, name in _uses(use)}
    for category in tpl.categories():
        for name in tpl.template_names(category):
            assert (category, name.upper()) in used, f"{category}:{name} has no case"
