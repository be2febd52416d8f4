"""SLOT_TYPE_<N> share strings (spec slot-ads.md §4–§5), parsed without any config."""
from __future__ import annotations

import pytest

from condorcfg.slots.shares import AUTO, ShareError, atof, parse_slot_type, split_items, standard_resource

# the manual's example machine: 4 cores, 256 MB (seeds/ep-policy-configuration-23.9.rst)
CPUS, MEMORY = 4, 256


def parse(text, custom=None, cpus=CPUS, memory=MEMORY):
    return parse_slot_type(text, 1, cpus, memory, custom or {})


@pytest.mark.parametrize("text", [
    "cpus=2, ram=128, swap=25%, disk=1/2",
    "cpus=1/2, memory=128, virt=25%, disk=50%",
    "c=1/2, m=50%, v=1/4, disk=1/2",
])
def test_manual_types_1_to_3_are_equivalent(text):
    request = parse(text)
    assert (request.cpus, request.memory, request.swap, request.disk) == (2, 128, 0.25, 0.5)


@pytest.mark.parametrize("text", ["c=25%, m=64, v=1/4, d=25%", "25%", "1/4"])
def test_manual_types_4_to_6_are_equivalent(text):
    request = parse(text)
    assert (request.cpus, request.memory, request.swap, request.disk) == (1, 64, 0.25, 0.25)


@pytest.mark.parametrize("text", ["mem=64", "mem=1/2", "mem=50%"])
def test_manual_memory_spellings_on_128_mb(text):
    assert parse(text, memory=128).memory == 64


def test_auto_and_unset_are_auto():
    request = parse("mem=auto")
    assert request.memory is AUTO and request.cpus is AUTO and request.disk is AUTO
    empty = parse("", custom={"GPUs": 2})
    assert empty.cpus is AUTO and empty.custom == {"GPUs": AUTO}


@pytest.mark.parametrize("text", ["cpus=1, ram=1/2, swap=50%", "cpus=1, disk=auto, 50%"])
def test_manual_default_share_examples(text):
    request = parse(text)
    assert request.cpus == 1 and request.memory == 128 and request.swap == 0.5 and request.disk is AUTO


def test_fraction_of_cpus_is_kept_real_and_memory_truncated():
    request = parse("1/3", cpus=16, memory=65536)
    assert request.cpus == pytest.approx(16 / 3) and request.memory == 21845


def test_custom_resources_match_case_insensitively_and_take_default_share():
    request = parse("cogs=50%,actuator=6,50%", custom={"Cogs": 16, "actuator": 8})
    assert request.custom == {"Cogs": 8, "actuator": 6}
    assert request.cpus == 2 and request.memory == 128
    request = parse("cogs=25%,actuator=1,25%", custom={"Cogs": 16, "actuator": 8})
    assert request.custom == {"Cogs": 4, "actuator": 1}


def test_constraint_after_colon_in_heredoc_value():
    request = parse('GPUs = 2 : Capability >= 8.0\n90%', custom={"GPUs": 4})
    assert request.custom["GPUs"] == 2 and request.constraints == {"GPUs": "Capability >= 8.0"}
    assert request.cpus == pytest.approx(3.6)


def test_newline_values_split_only_on_newlines():
    assert split_items("cpus = 2\nmemory = 10") == ["cpus = 2", "memory = 10"]
    assert split_items("cpus=2, memory=10\tdisk=1/2") == ["cpus=2", "memory=10", "disk=1/2"]


@pytest.mark.parametrize("name,resource", [
    ("c", "cpus"), ("CPU", "cpus"), ("", "cpus"), ("r", "memory"), ("Mem", "memory"), ("MEMORY", "memory"),
    ("s", "swap"), ("virt", "swap"), ("VirtualMemory", "swap"), ("d", "disk"), ("cores", None),
    ("mems", None), ("gpu", None)])
def test_resource_names_are_prefixes(name, resource):
    assert standard_resource(name) == resource


def test_minimum_cpu_and_memory_floor_is_one():
    request = parse("cpus=0, mem=0")
    assert request.cpus == 1 and request.memory == 1


def test_bare_min_allows_fractional_cpus():
    request = parse("min, cpus=0.5")
    assert request.fractional_cpus and request.cpus == 0.5
    assert parse("cpus=0.5").cpus == 1  # floored without a bare min
    alone = parse("min", cpus=16, memory=65536)
    assert alone.cpus == pytest.approx(16 / 128) and alone.memory == 512
    assert parse("cpus=min").cpus == 1


def test_space_before_equals_gives_zero_default():
    request = parse("cpus =2")
    assert request.cpus == 2 and request.memory == 1 and request.disk == 0 and request.swap == 0
    assert request.zero_default


def test_unknown_resource_with_zero_or_auto_share_is_ignored():
    assert parse("cpus=1, gpus=0").ignored == ["gpus"]
    assert parse("cpus=1, gpus=auto").ignored == ["gpus"]
    assert parse("cpus=1, gpus=50%").ignored == ["gpus"]


@pytest.mark.parametrize("text,fragment", [
    ("cpus = 2", 'cannot parse "="'),
    ("cpus=", "value after = is empty"),
    ("disk=100", "disk in slot type 1 must be a percentage or fraction"),
    ("swap=2", "swap in slot type 1 must be a percentage or fraction"),
    ("cpus=1, gpus=1", 'unknown resource "gpus"'),
    ("4", 'bad description of slot type 1: "4" is invalid'),
    ("150%", "bad description"),
    ("mem=1/0", "positive denominator"),
    ("1/", "positive denominator"),
])
def test_rejected_share_strings(text, fragment):
    with pytest.raises(ShareError) as info:
        parse(text)
    assert fragment in str(info.value)


def test_explicit_items_are_not_range_checked_here():
    assert parse("cpus=150%").cpus == 6 and parse("mem=200000").memory == 200000


def test_atof_is_c_like():
    assert atof("25%") == 25 and atof("junk") == 0 and atof(" 4.5x") == 4.5 and atof("1e2") == 100
