"""The lint knowledge base: generated files up to date, look-ups, suggestions, vocabularies."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from condorcfg.lint import knowledge

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def test_generated_files_are_up_to_date(oracle):
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "make_knowledge.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_loaded_once_and_module_level_access(kb):
    assert knowledge.load() is kb
    assert knowledge.is_known_knob("START") is True  # module attribute delegates to the loaded base
    assert kb.version == "25.14.1"


def test_builtin_table_is_reused_not_copied():
    data = json.loads((ROOT / "condorcfg" / "lint" / "knowledge" / "knobs.json").read_text())
    assert "knobs" not in data  # the names/types come from condorcfg/config/default_table.py
    assert data["builtin_table_size"] > 1000


@pytest.mark.parametrize("name", ["START", "start", "NEGOTIATOR_INTERVAL", "STARTD.UPDATE_INTERVAL", "SLOT_TYPE_3",
                                  "NUM_SLOTS_TYPE_12", "SLOT2_STARTD_ATTRS", "MAXJOBRETIREMENTTIME", "RANK",
                                  "ALLOW_ADVERTISE_STARTD", "SEC_DAEMON_AUTHENTICATION_METHODS", "MAX_STARTD_LOG",
                                  "STARTD_CRON_GPU_EXECUTABLE", "JOB_ROUTER_ROUTE_Local", "FULL_HOSTNAME",
                                  "UTSNAME_NODENAME", "KeyboardBusy"])
def test_known_knobs(kb, name):
    assert kb.is_known_knob(name)


@pytest.mark.parametrize("name", ["MAX_JOB_RETIREMENT_TIME", "NEGOTIATOR_INTERVL", "FOO_BAR_BAZ", "STARD"])
def test_unknown_knobs(kb, name):
    assert not kb.is_known_knob(name)


@pytest.mark.parametrize("typo, best", [("MAX_JOB_RETIREMENT_TIME", "MAXJOBRETIREMENTTIME"),
                                        ("NEGOTIATOR_INTERVL", "NEGOTIATOR_INTERVAL"),
                                        ("MAX_CONCURRENT_UPLOAD", "MAX_CONCURRENT_UPLOADS"),
                                        ("STARTD.UPDATE_INTERVL", "STARTD.UPDATE_INTERVAL"),
                                        ("DAEMON_LST", "DAEMON_LIST")])
def test_did_you_mean(kb, typo, best):
    assert kb.suggest(typo)[0].upper() == best.upper()


def test_no_suggestion_for_unrelated_names(kb):
    assert kb.suggest("XYZZY_PLUGH_QUUX") == []


def test_types_come_from_the_builtin_table(kb):
    assert kb.knob_type("NUM_CPUS") == "int"
    assert kb.knob_type("USE_SHARED_PORT") == "bool"
    assert kb.knob_type("START") == "string"
    assert kb.knob_type("NOT_A_KNOB") is None


def test_obsolete_knobs(kb):
    assert kb.obsolete("HOSTALLOW_WRITE")["replacement"].startswith("ALLOW_")
    assert kb.obsolete("STARTD_EXPRS")["status"] == "deprecated"
    assert kb.obsolete("VIRTUAL_MACHINE_TYPE_1")["status"] == "removed"
    assert kb.obsolete("STARTD_LATCH_EXPRS") is None  # a current knob, despite the _EXPRS
    assert kb.obsolete("ALLOW_WRITE") is None


@pytest.mark.parametrize("name", ["KeyboardIdle", "keyboardidle", "LoadAvg", "Memory", "TotalCpus", "has_avx2",
                                  "DetectedGPUs", "Activity", "State"])
def test_machine_attributes_are_safe_without_a_job(kb, name):
    assert kb.is_machine_attribute(name)
    assert not kb.is_job_only_attribute(name)


@pytest.mark.parametrize("name", ["Owner", "RequestMemory", "RequestGPUs", "AcctGroup", "JobUniverse", "ImageSize",
                                  "RemoteOwner", "JobStart", "MemoryUsage"])
def test_job_attributes_are_undefined_without_a_job(kb, name):
    assert kb.is_job_only_attribute(name)


def test_daemon_names(kb):
    assert {"MASTER", "STARTD", "SCHEDD", "COLLECTOR", "NEGOTIATOR", "SHARED_PORT"} <= kb.daemons


def test_every_template_daemon_is_known(kb):
    """DAEMON_LIST appends in HTCondor's own templates name daemons the rules know."""
    import re

    text = "\n".join(p.read_text() for p in (ROOT / "templates").glob("*.config"))
    for found in re.finditer(r"DAEMON_LIST\s*=\s*\$\(DAEMON_LIST\)([^\n]*)", text):
        for daemon in found.group(1).split():
            if "$" not in daemon:
                assert daemon.upper() in kb.daemons, daemon


# ---------------------------------------------------------------- the manual is the knob list

_SAMPLE = {"N": "3", "SUBSYS": "SCHEDD", "DAEMONNAME": "STARTD", "LEVEL": "COMMAND", "ACCESS-LEVEL": "WRITE",
           "PERMISSION-LEVEL": "ADMINISTRATOR", "NAME": "MyName", "name": "STARTD"}


def _manual_macro_defs(shared) -> list[str]:
    import re

    names = set()
    for path in shared("reference", "htcondor", "docs").rglob("*.rst"):
        for match in re.finditer(r":macro-def:`([^`]+)`", path.read_text(encoding="utf-8")):
            names.add(re.sub(r"\[[^\]]*\]$", "", match.group(1)).strip())
    return sorted(names)


def _instance(spelling: str) -> str:
    """A name of a documented family: each placeholder replaced by a plausible value."""
    import re

    def fill(match):
        key = match.group(1)
        return _SAMPLE.get(key, _SAMPLE.get(key.upper(), "my_thing1"))
    return re.sub(r"<([^>]+)>", fill, spelling).replace("*", "READ")


def test_every_macro_def_of_the_manual_is_known(kb, shared):
    defs = _manual_macro_defs(shared)
    assert len(defs) > 1200
    unknown = [d for d in defs if not kb.is_known_knob(_instance(d))]
    assert unknown == []
    # and as SUBSYS./LOCALNAME. prefixed names, resolved against the base knob
    assert all(kb.is_known_knob("NEGOTIATOR_ALLOCATED." + _instance(d)) for d in defs[::7])


@pytest.mark.parametrize("name", ["DISK", "SLOT_CONFIG_FAILURE_MODE", "NUM_CLAIMS", "MAX_NUM_CPUS", "MAIL_FROM",
                                  "START_VANILLA_UNIVERSE", "STRICT_CLASSAD_EVALUATION", "DedicatedScheduler",
                                  "COLLECTOR_TIMEOUT_MULTIPLIER", "CONSUMPTION_GPUS", "SYSTEM_PERIODIC_HOLD_mem",
                                  "SYSTEM_PERIODIC_HOLD_mem_REASON", "SYSTEM_PERIODIC_HOLD_mem_SUBCODE",
                                  "MASTER_SCHEDD_BACKOFF_CEILING", "HA_NEGOTIATOR_LOCK_URL", "BENCHMARKS_mips_ARGS",
                                  "OSDF_PELICAN_URL", "COLLECTOR.MAX_FILE_DESCRIPTORS", "SLOT1_32_USER",
                                  "SLOT_TYPE_2_START", "SLOT4_EXECUTE", "MAX_NUM_COLLECTOR_AUDIT_LOG",
                                  "SEC_CLIENT_AUTHENTICATION_METHODS", "ALLOW_READ_COLLECTOR", "WANT_SUSPEND_VANILLA"])
def test_documented_knobs_and_families_are_known(kb, name):
    assert kb.is_known_knob(name)


@pytest.mark.parametrize("name", ["JOB_ROUTER_NUM_LOGS", "SCHEDD_NUM_LOGS", "STORK_LOG", "HDFS_DEBUG", "SlotWeight",
                                  "SEC_BOGUS_AUTHENTICATION", "ALLOW_EVERYTHING", "SLOT_TYPE_2_STRAT", "USE_FOO",
                                  "NEGOTIATOR_ALLOCATED.MATCH_LOG"])
def test_typos_are_not_swallowed_by_families(kb, name):
    assert not kb.is_known_knob(name)


def test_subsystems_a_configuration_adds():
    kb = knowledge.load()
    assert not kb.is_known_knob("NEGOTIATOR_ALLOCATED_LOG")
    assert kb.is_known_knob("NEGOTIATOR_ALLOCATED_LOG", {"NEGOTIATOR_ALLOCATED"})
    assert kb.is_known_knob("MASTER_NEGOTIATOR_ALLOCATED_CONTROLLER", {"negotiator_allocated"})
    assert not kb.is_known_knob("NEGOTIATOR_ALLOCATED_LOG")  # one configuration's daemons do not leak


@pytest.mark.parametrize("typo, best", [("SCHEDD_NUM_LOGS", "MAX_NUM_SCHEDD_LOG"),
                                        ("JOB_ROUTER_NUM_LOGS", "MAX_NUM_JOB_ROUTER_LOG"),
                                        ("SlotWeight", "SLOT_WEIGHT")])
def test_did_you_mean_uses_families(kb, typo, best):
    assert kb.suggest(typo)[0] == best


def test_manual_page_of_a_knob(kb):
    assert kb.manual_page("slot_config_failure_mode") == "admin-manual/configuration/startd.rst"
    assert kb.manual_page("NOT_A_KNOB") is None


def test_declared_daemons_are_bounded(tmp_path):
    """100,000 dotted names must not become a 100,000-branch regex (the run stays fast)."""
    import time

    from condorcfg.lint import engine

    path = tmp_path / "condor_config"
    path.write_text("".join(f"D{i}.X_LOG = 1\nD{i}_LOG = 1\n" for i in range(20_000)))
    started = time.process_time()
    findings = engine.run(str(path)).findings
    assert time.process_time() - started < 15
    assert any(f.code == "KNB303" for f in findings)
