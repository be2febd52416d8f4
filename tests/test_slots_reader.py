"""The slot builder on top of the real config reader: templates, heredocs, provenance, the oracle.

test_slots_layout.py checks the arithmetic on a dict-backed config; here the
same rules run through ``condorcfg.load`` so that ``use FEATURE : …``
templates, ``@=`` values and diagnostics locations behave as in HTCondor.
One oracle call checks that the reader gives the slot builder the same knob
values HTCondor 25.14.1 would.
"""
from __future__ import annotations

import pytest

import condorcfg
from condorcfg.classad import evaluate
from condorcfg.machine import MachineProfile
from condorcfg.slots import build_slot_ads

MACHINE = dict(hostname="ep01.example.org", cpus=16, memory=65536, disk=1000000, swap=0)


def build(tmp_path, text, **machine_kw):
    config = tmp_path / "condor_config"
    config.write_text(text)
    machine = MachineProfile(**{**MACHINE, **machine_kw})
    cfg = condorcfg.load(str(config), machine=machine)
    return build_slot_ads(cfg, machine), str(config)


def table(ads):
    return [(a.slot_id, a.type_id, evaluate(a.ad["SlotType"]), evaluate(a.ad["Cpus"]), evaluate(a.ad["Memory"]))
            for a in ads]


@pytest.mark.parametrize("text,expected", [
    ("", [(1, 0, "Partitionable", 16, 65536)]),
    ("use FEATURE : StaticSlots\n", [(i, 1, "Static", 1, 4096) for i in range(1, 17)]),
    ("use FEATURE : PartitionableSlot\n", [(1, 1, "Partitionable", 16, 65536)]),
    ("SLOT_TYPE_0_PARTITIONABLE = false\n", [(i, 0, "Static", 1, 4096) for i in range(1, 17)]),
    ("NUM_SLOTS = 4\n", [(i, 0, "Partitionable", 4, 16384) for i in range(1, 5)]),
    ("SLOT_TYPE_1 = cpus=4, mem=25%\nNUM_SLOTS_TYPE_1 = 2\nNUM_SLOTS_TYPE_2 = 4\n",
     [(1, 1, "Static", 4, 16384), (2, 1, "Static", 4, 16384)] + [(i, 2, "Static", 2, 8192) for i in range(3, 7)]),
])
def test_worked_examples_through_the_reader(tmp_path, text, expected):
    ads, _ = build(tmp_path, text)
    assert table(ads) == expected and not ads.errors


def test_error_in_a_template_knob_points_at_the_use_line(tmp_path):
    ads, path = build(tmp_path, "# p-slot plus one more\nuse FEATURE : PartitionableSlot\nNUM_SLOTS_TYPE_1 = 2\n")
    (error,) = ads.errors
    assert "slot 2 of type 1 asks for 16 CPUs, 0 remain" in error.message
    assert (error.location.file, error.location.line) == (path, 2)


def test_heredoc_share_with_gpu_constraint(tmp_path):
    text = """use FEATURE : GPUs
SLOT_TYPE_1 @=slot
   GPUs = 1 : "GPU-b"
   CPUs = 1
   Memory = 10
@slot
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = auto
NUM_SLOTS_TYPE_2 = 2
"""
    ads, _ = build(tmp_path, text, gpus=["GPU-a", "GPU-b", "GPU-c"])
    assert [evaluate(a.ad["AssignedGPUs"]) for a in ads] == ["GPU-b", "GPU-a", "GPU-c"]
    assert table(ads)[0] == (1, 1, "Static", 1, 10) and not ads.errors


def test_bad_share_reports_file_line_and_keeps_other_types(tmp_path):
    ads, path = build(tmp_path, "NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = disk=100\nNUM_SLOTS_TYPE_2 = 1\n")
    (error,) = ads.errors
    assert error.format().startswith(f"{path}:2:1: error: SLOT_TYPE_2: disk in slot type 2 must be a percentage")
    assert [a.type_id for a in ads] == [1]


ORACLE_CASE = """use FEATURE : StaticSlots
use FEATURE : GPUs
use POLICY : Desktop
SLOT_TYPE_2 @=slot
   GPUs = 1 : "GPU-1"
   CPUs = 1
@slot
NUM_SLOTS_TYPE_2 = 1
SLOT_TYPE_2_IsOwner = False
STARTD_ATTRS = $(STARTD_ATTRS) Site
Site = "x"
RESERVED_MEMORY = 512
"""
ORACLE_KNOBS = ["SLOT_TYPE_1_PARTITIONABLE", "SLOT_TYPE_2", "NUM_SLOTS_TYPE_2", "SLOT_TYPE_2_IsOwner",
                "STARTD_ATTRS", "Site", "START", "IS_OWNER", "SUSPEND", "CONTINUE", "PREEMPT", "KILL",
                "WANT_SUSPEND", "WANT_VACATE", "CpuBusy", "MaxJobRetirementTime", "MachineMaxVacateTime",
                "CLAIM_WORKLIFE", "RunBenchmarks", "SLOT_WEIGHT", "SYSTEM_STARTD_ATTRS", "COLLECTOR_HOST_STRING",
                "STARTD_LATCH_EXPRS", "SYSTEM_STARTD_LATCH_EXPRS", "STARTD_DETECT_GPUS", "RESERVED_MEMORY",
                "MAX_SLOT_TYPES", "MACHINE_RESOURCE_NAMES", "STARTD_RESOURCE_PREFIX", "STARTD_NAME", "RANK"]


@pytest.mark.oracle
def test_reader_gives_the_slot_builder_htcondors_values(tmp_path, oracle):
    expected = oracle.config_values(ORACLE_CASE, ORACLE_KNOBS)
    assert expected["error"] is None, expected["error"]
    config = tmp_path / "condor_config"
    (tmp_path / "case.conf").write_text(ORACLE_CASE)
    config.write_text(f"LOCAL_DIR = /opt/cc-local\nRELEASE_DIR = /opt/cc-release\nLOCAL_CONFIG_FILE =\n"
                      f"LOCAL_CONFIG_DIR =\ninclude : {tmp_path / 'case.conf'}\n")
    cfg = condorcfg.load(str(config), machine=MachineProfile(**{**MACHINE, "hostname": oracle.PINNED_HOST}))
    ours = {knob: cfg.value(knob) for knob in ORACLE_KNOBS}
    assert ours == expected["expect"]
