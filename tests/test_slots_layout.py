"""Slot layout (spec slot-ads.md §3, §6): the worked examples of §6.4 and every error path.

Uses the dict-backed FakeConfig so the arithmetic is tested on its own;
test_slots_ads.py runs the same machinery through the real reader.
"""
from __future__ import annotations

import pytest

from condorcfg.slots.layout import build_layout
from test_slots_support import FakeConfig, machine


def layout(text, **machine_kw):
    return build_layout(FakeConfig(text), machine(**machine_kw))


def summary(result):
    return [(s.slot_id, s.type_id, s.partitionable, s.published_cpus, s.memory) for s in result.slots]


def errors(result):
    return [d for d in result.diagnostics if d.severity == "error"]


# --- §6.4 worked examples: 16 CPUs, 65536 MiB ------------------------------------------------------

def test_nothing_configured_gives_one_partitionable_slot():
    result = layout("")
    assert summary(result) == [(1, 0, True, 16, 65536)]
    assert result.slots[0].disk_fraction == 1.0 and result.slots[0].swap_fraction == 1.0
    assert not result.diagnostics


def test_static_slots_feature():
    result = layout("NUM_SLOTS_TYPE_1 = 16\nSLOT_TYPE_1_PARTITIONABLE = false")
    assert summary(result) == [(i, 1, False, 1, 4096) for i in range(1, 17)]
    assert all(s.disk_fraction == pytest.approx(1 / 16) for s in result.slots)


def test_type0_static_defaults_num_slots_to_num_cpus():
    assert summary(layout("SLOT_TYPE_0_PARTITIONABLE = false")) == [(i, 0, False, 1, 4096) for i in range(1, 17)]


def test_num_slots_alone_gives_partitionable_slots():
    result = layout("NUM_SLOTS = 4")
    assert summary(result) == [(i, 0, True, 4, 16384) for i in range(1, 5)]
    assert all(s.swap_fraction == 0.25 for s in result.slots)


def test_explicit_then_auto():
    result = layout("SLOT_TYPE_1 = cpus=4, mem=25%\nNUM_SLOTS_TYPE_1 = 2\nNUM_SLOTS_TYPE_2 = 4")
    assert summary(result) == [(1, 1, False, 4, 16384), (2, 1, False, 4, 16384)] + [
        (i, 2, False, 2, 8192) for i in range(3, 7)]
    assert all(s.disk_fraction == pytest.approx(1 / 6) for s in result.slots)


def test_over_commit_names_the_knob_and_the_numbers():
    result = layout("SLOT_TYPE_1 = cpus=12\nNUM_SLOTS_TYPE_1 = 2")
    assert summary(result) == [(1, 1, False, 12, 65536)]  # CONTINUE: the 2nd slot is just not built
    (error,) = errors(result)
    assert error.message.startswith("slot 2 of type 1 asks for 12 CPUs, 4 remain")
    assert (error.location.file, error.location.line) == ("condor_config", 1)
    assert "does not build this slot" in error.notes[0]


def test_fractions_that_do_not_divide_the_cpus_over_commit():
    result = layout("SLOT_TYPE_1 = 1/3\nNUM_SLOTS_TYPE_1 = 3")
    assert summary(result) == [(1, 1, False, 5, 21845), (2, 1, False, 5, 21845)]
    assert "slot 3 of type 1 asks for 5.333 CPUs, 4 remain" in errors(result)[0].message
    result = layout("SLOT_TYPE_1 = 25%\nNUM_SLOTS_TYPE_1 = 4", cpus=10)
    assert len(result.slots) == 3 and "slot 4 of type 1" in errors(result)[0].message


def test_custom_resource_auto_shares_go_ceil_first():
    result = layout("MACHINE_RESOURCE_GPUs = 3\nNUM_SLOTS_TYPE_1 = 2")
    assert [s.custom["gpus"] for s in result.slots] == [2, 1]


def test_unknown_resource_zero_share_is_accepted():
    result = layout("SLOT_TYPE_1 = cpus=1, gpus=0\nNUM_SLOTS_TYPE_1 = 1")
    assert summary(result) == [(1, 1, False, 1, 65536)] and not errors(result)


def test_unknown_resource_positive_share_is_an_error():
    result = layout("SLOT_TYPE_1 = cpus=1, gpus=1\nNUM_SLOTS_TYPE_1 = 1")
    assert result.slots == []
    assert 'unknown resource "gpus" in slot type 1' in errors(result)[0].message


def test_space_around_equals_on_one_line_is_an_error():
    result = layout("SLOT_TYPE_1 = cpus = 2\nNUM_SLOTS_TYPE_1 = 1")
    assert result.slots == [] and 'cannot parse "="' in errors(result)[0].message


def test_space_before_equals_warns_about_zero_shares():
    result = layout("SLOT_TYPE_1 = cpus =2\nNUM_SLOTS_TYPE_1 = 1")
    assert summary(result) == [(1, 1, False, 2, 1)]
    assert result.slots[0].disk_fraction == 0
    assert [d.severity for d in result.diagnostics] == ["warning"]


# --- seeds: the manual's examples ----------------------------------------------------------------

def test_manual_cogs_and_actuators():
    text = """MACHINE_RESOURCE_Cogs = 16
MACHINE_RESOURCE_actuator = 8
SLOT_TYPE_1 = cogs=50%,actuator=6,50%
SLOT_TYPE_1_PARTITIONABLE = TRUE
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = cogs=25%,actuator=1,25%
SLOT_TYPE_2_PARTITIONABLE = FALSE
NUM_SLOTS_TYPE_2 = 2
"""
    result = layout(text, cpus=4, memory=256)
    assert summary(result) == [(1, 1, True, 2, 128), (2, 2, False, 1, 64), (3, 2, False, 1, 64)]
    assert [s.custom for s in result.slots] == [{"cogs": 8, "actuator": 6}, {"cogs": 4, "actuator": 1},
                                               {"cogs": 4, "actuator": 1}]
    assert not result.diagnostics
    assert result.totals.resources["cogs"].tag == "Cogs"


def test_manual_gpu_constraints_bind_ids_in_slot_order():
    text = """MACHINE_RESOURCE_GPUs = GPU-1, GPU-2, GPU-6a96bd13, GPU-4
SLOT_TYPE_1 @=slot
   GPUs = 1 : "GPU-6a96bd13"
   CPUs = 1
   Memory = 10
@slot
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = auto
NUM_SLOTS_TYPE_2 = 2
"""
    result = layout(text)
    assert [s.ids["gpus"] for s in result.slots] == [["GPU-6a96bd13"], ["GPU-1", "GPU-2"], ["GPU-4"]]
    assert summary(result)[0] == (1, 1, False, 1, 10)


def test_offline_ids_are_withheld():
    result = layout("MACHINE_RESOURCE_GPUs = a, b, c\nOFFLINE_MACHINE_RESOURCE_GPUs = b")
    resource = result.totals.resources["gpus"]
    assert resource.ids == ["a", "c"] and resource.offline == ["b"] and resource.quantity == 2
    assert result.slots[0].ids["gpus"] == ["a", "c"]


def test_profile_gpus_with_inventory_feature():
    result = layout("MACHINE_RESOURCE_INVENTORY_GPUs = /usr/libexec/condor/condor_gpu_discovery -properties",
                    gpus=["G0", "G1"])
    assert result.totals.resources["gpus"].ids == ["G0", "G1"]
    assert result.totals.resources["gpus"].tag == "GPUs"


def test_too_few_ids_for_a_constraint_is_an_error():
    text = 'MACHINE_RESOURCE_GPUs = a, b\nSLOT_TYPE_1 @=s\nGPUs = 1 : "zzz"\ncpus = 1\n@s\nNUM_SLOTS_TYPE_1 = 1'
    result = layout(text)
    assert "needs 1 GPUs ids but only 0 match its constraint" in errors(result)[0].message
    assert result.slots[0].broken


def test_reserved_custom_resource_names_are_errors():
    result = layout("MACHINE_RESOURCE_Memory = 4")
    assert "standard resource" in errors(result)[0].message and not result.totals.resources


def test_machine_resource_names_filters_tags():
    result = layout("MACHINE_RESOURCE_NAMES = Cogs\nMACHINE_RESOURCE_Cogs = 4\nMACHINE_RESOURCE_Bells = 2")
    assert list(result.totals.resources) == ["cogs"]


def test_inventory_script_without_profile_data_warns():
    result = layout("MACHINE_RESOURCE_INVENTORY_Widgets = /bin/widgets")
    assert "does not run" in result.diagnostics[0].message and not result.totals.resources


# --- type counting and knobs -----------------------------------------------------------------------

def test_slot_type_0_is_an_error_and_numbering_is_consecutive():
    result = layout("SLOT_TYPE_0 = 50%\nNUM_SLOTS_TYPE_2 = 1\nNUM_SLOTS_TYPE_5 = 2")
    assert "SLOT_TYPE_0 cannot be set" in errors(result)[0].message
    assert [(s.slot_id, s.type_id) for s in result.slots] == [(1, 2), (2, 5), (3, 5)]


def test_max_slot_types_and_ignored_num_slots():
    result = layout("MAX_SLOT_TYPES = 2\nNUM_SLOTS_TYPE_3 = 1\nNUM_SLOTS = 3")
    assert any("ignored" in d.message for d in result.diagnostics)
    assert len(result.slots) == 3  # type 3 out of range, so type 0 with NUM_SLOTS


def test_defined_type_with_zero_count_warns():
    result = layout("SLOT_TYPE_1 = 50%")
    assert "NUM_SLOTS_TYPE_1 is 0" in result.diagnostics[0].message
    assert summary(result) == [(1, 0, True, 16, 65536)]


def test_memory_reserved_and_num_cpus():
    result = layout("NUM_CPUS = 8\nMEMORY = 32768\nRESERVED_MEMORY = 768")
    assert summary(result) == [(1, 0, True, 8, 32000)]
    assert result.totals.detected_cpus == 16 and result.totals.detected_memory == 65536


def test_name_prefix_and_backfill():
    result = layout("NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1_NAME_PREFIX = gpu\nSTARTD_RESOURCE_PREFIX = vm\n"
                    "NUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_2_BACKFILL = true")
    assert [s.name_stem for s in result.slots] == ["gpu1", "vm2"] and result.slots[1].backfill


@pytest.mark.parametrize("mode,count", [("CLEAR", 0), ("ABORT", 0), ("CONTINUE", 1)])
def test_failure_modes(mode, count):
    result = layout(f"SLOT_CONFIG_FAILURE_MODE = {mode}\nSLOT_TYPE_1 = cpus=12\nNUM_SLOTS_TYPE_1 = 2")
    assert len(result.slots) == count and len(errors(result)) == 1


def test_first_slot_of_type_that_does_not_fit_is_built_broken():
    result = layout("SLOT_TYPE_1 = cpus=10\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = cpus=10\nNUM_SLOTS_TYPE_2 = 1")
    assert [s.broken for s in result.slots] == [None, "Not enough Cpus (4.00 short)"]
    assert result.slots[1].cpus == 6


def test_auto_share_left_with_nothing_is_an_error():
    result = layout("SLOT_TYPE_1 = cpus=16\nNUM_SLOTS_TYPE_1 = 1\nNUM_SLOTS_TYPE_2 = 1")
    (error,) = errors(result)
    assert "slot 2 (type 2) gets nothing from its auto share: 0 CPUs remain" in error.message
    assert result.slots[1].broken


def test_memory_and_disk_over_commit():
    result = layout("SLOT_TYPE_1 = mem=60%\nNUM_SLOTS_TYPE_1 = 2")
    assert "asks for 39321 MiB of memory, 26215 MiB remain" in errors(result)[0].message
    result = layout("SLOT_TYPE_1 = disk=3/4\nNUM_SLOTS_TYPE_1 = 2")
    assert "asks for 75% of disk, 25% remains" in errors(result)[0].message


def test_separate_execute_partitions_have_separate_disk_budgets():
    result = layout("SLOT_TYPE_1 = disk=100%\nNUM_SLOTS_TYPE_1 = 2\nSLOT2_EXECUTE = /scratch2")
    assert not errors(result) and [s.disk_fraction for s in result.slots] == [1.0, 1.0]


def test_bad_numbers_are_diagnostics_not_crashes():
    result = layout("NUM_SLOTS_TYPE_1 = lots\nNUM_CPUS = -3\nSLOT_CONFIG_FAILURE_MODE = maybe")
    messages = " | ".join(d.message for d in errors(result))
    assert "NUM_SLOTS_TYPE_1 must be a whole number" in messages
    assert "NUM_CPUS is -3" in messages and "SLOT_CONFIG_FAILURE_MODE must be one of" in messages


def test_hostile_counts_are_bounded():
    import time

    start = time.perf_counter()
    result = layout("NUM_SLOTS_TYPE_1 = 100000000\nMAX_SLOT_TYPES = 1000000000")
    assert time.perf_counter() - start < 5
    assert len(result.slots) == 4096
    assert any("at most 4096" in d.message for d in errors(result))
    result = layout("NUM_SLOTS = 99999999\nSLOT_TYPE_0_PARTITIONABLE = false")
    assert len(result.slots) == 4096 and errors(result)


def test_long_id_lists_bind_quickly():
    import time

    ids = ", ".join(f"dev{i}" for i in range(200000))
    start = time.perf_counter()
    result = layout(f"MACHINE_RESOURCE_Devs = {ids}\nNUM_SLOTS_TYPE_1 = 4000", cpus=4000, memory=4000000)
    assert time.perf_counter() - start < 10
    assert [len(s.ids["devs"]) for s in result.slots[:2]] == [50, 50] and not errors(result)
