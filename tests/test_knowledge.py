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
    assert "knobs" not in data  # the names/types come from condorcfg/config/builtin_defaults.json
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
