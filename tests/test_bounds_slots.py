"""Slot ads cannot run away with the product of two counts a configuration sets.

A startd publishes, in every slot ad, ``slot<k>_<Attr>`` for every slot k and every attribute of
STARTD_SLOT_ATTRS: n x n attributes, which five lines made 32 million (minutes, 13 GB).  The
slot ads of one machine are bounded (MAX_SLOT_AD_ATTRIBUTES attributes, MAX_SLOT_AD_BYTES printed),
the count checked before the work is done, and every command that builds ads ends with the
limit's name and exit 2.  Under the limits the ads are HTCondor's, n x n copies included.
The other products in slots/ are bounded or made linear too: slots x custom resources (the
layout), slots x STARTD_ATTRS names, slots x the length of a policy (its printing, its reference
walk, a knob read as a number), slots x the ids of a device constraint.  Work is counted, not timed.
"""
from __future__ import annotations

import random

import pytest

import condorcfg
from condorcfg import classad as classad_module
from condorcfg.classad import ClassAd, parse, unparse
from condorcfg.classad.budget import WORK_LIMIT
from condorcfg.cli import main
from condorcfg.config.limits import BudgetExceeded
from condorcfg.machine import MachineProfile
from condorcfg.slots import ads as ads_module, knobs as knobs_module, layout as layout_module, policy as policy_module
from condorcfg.slots import build_layout, build_slot_ads
from condorcfg.slots.ads import MAX_SLOT_AD_BYTES
from condorcfg.slots.layout import MAX_SLOT_AD_ATTRIBUTES

REPORTED = "EXECUTE = /var/lib/condor/execute\nNUM_SLOTS = 4000\nSTARTD_SLOT_ATTRS = Cpus, Memory\n"


def load(tmp_path, text, cpus=4096, memory=None, name="condor_config"):
    path = tmp_path / name
    path.write_text(text)
    machine = MachineProfile(hostname="big.example.org", cpus=cpus, memory=memory or cpus * 2048)
    return condorcfg.load([str(path)], machine=machine, subsystem="STARTD"), machine


def profile(tmp_path, cpus=4096):
    path = tmp_path / "machine.yaml"
    path.write_text(f"hostname: big.example.org\ncpus: {cpus}\nmemory: {cpus * 2048}\n")
    return str(path)


@pytest.fixture
def attributes_set(monkeypatch):
    """Counts every attribute put in any ClassAd: the work of building slot ads."""
    count = [0]
    original = ClassAd.__setitem__

    def counted(self, name, expr):
        count[0] += 1
        original(self, name, expr)

    monkeypatch.setattr(ClassAd, "__setitem__", counted)
    return count


def counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls."""
    calls = [0]
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


# --- STARTD_SLOT_ATTRS: n x n ----------------------------------------------------------------------------

def test_the_reported_configuration_is_refused_before_the_copies(tmp_path, attributes_set):
    config, machine = load(tmp_path, REPORTED)
    with pytest.raises(BudgetExceeded) as caught:
        build_slot_ads(config, machine)
    diagnostic = caught.value.diagnostic
    assert caught.value.limit == "MAX_SLOT_AD_ATTRIBUTES" and diagnostic.code == "budget-exceeded"
    assert "MAX_SLOT_AD_ATTRIBUTES" in diagnostic.message and "8,000 attributes" in diagnostic.message
    assert diagnostic.location.line == 3  # STARTD_SLOT_ATTRS
    # the 4000 ads themselves (about 60 attributes each) were built; not one of the 32 million copies
    assert attributes_set[0] < 4000 * 80


@pytest.mark.parametrize("argv", [
    ["ads"], ["ads", "--format", "json"], ["ads", "--format", "new", "--public"], ["ads", "--slot", "3"],
    ["match", "--job", "JOB"], ["match", "--job", "JOB", "--format", "json"],
    ["diff"], ["diff", "--format", "json"], ["diff", "--format", "markdown"], ["test"],
])
def test_every_command_that_builds_ads_exits_2_naming_the_limit(tmp_path, monkeypatch, capsys, argv):
    over = "EXECUTE = /x\nNUM_SLOTS = 1024\nSLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_SLOT_ATTRS = Cpus\n"
    (tmp_path / "old.conf").write_text(over)
    (tmp_path / "new.conf").write_text(over + "SUSPEND = True\n")
    (tmp_path / "job").write_text("RequestCpus = 1\nRequestMemory = 1\nRequestDisk = 1\n")
    machine = profile(tmp_path, 1024)
    (tmp_path / "policy.yaml").write_text("config: old.conf\nmachine: machine.yaml\ncases:\n  - name: c\n"
                                          "    expect:\n      slots: {count: 1024}\n")
    monkeypatch.chdir(tmp_path)
    command = argv[0]
    args = [a.replace("JOB", "job") for a in argv[1:]]
    if command in ("ads", "match"):
        args += ["--config", "old.conf", "--machine", machine]
    elif command == "diff":
        args += ["old.conf", "new.conf", "--machine", machine]
    else:
        args += ["policy.yaml"]
    status = main([command, *args])
    out, err = capsys.readouterr()
    assert status == 2
    assert "MAX_SLOT_AD_ATTRIBUTES" in err and "Traceback" not in err + out
    assert "copies 1,024 attributes (slot<N>_<Attr>) into each of the 1024 slot ads" in err


def _boundary_variant(seed: int) -> tuple[str, int, int, bool]:
    rng = random.Random(seed)
    slots = rng.choice([rng.randint(2, 40), rng.randint(300, 760)])
    present = rng.sample(["Cpus", "Memory", "State", "Activity", "Disk", "LoadAvg"], rng.randint(1, 3))
    listed = present + rng.sample(["NoSuchAttr", "Nope"], rng.randint(0, 2))  # names no ad has are copied by none
    static = rng.random() < 0.7
    text = (f"EXECUTE = /x\nNUM_SLOTS = {slots}\nSLOT_TYPE_0_PARTITIONABLE = {not static}\n"
            f"STARTD_SLOT_ATTRS = {', '.join(rng.sample(listed, len(listed)))}\n")
    return text, slots, len(present), rng.random() < 0.5


@pytest.mark.parametrize("seed", range(10))
def test_cross_slot_attributes_up_to_the_limit_are_htcondors(tmp_path, attributes_set, seed):
    text, slots, present, public = _boundary_variant(seed)
    without, machine = load(tmp_path, text.replace("STARTD_SLOT_ATTRS", "# STARTD_SLOT_ATTRS"), cpus=slots,
                            name="without")
    attributes_set[0] = 0
    own = build_slot_ads(without, machine, public=public)
    own_work = attributes_set[0]
    held = own.attributes  # (the names STARTD_ATTRS ... list count for every slot, set or not)
    assert held >= sum(len(a.ad) for a in own)
    config, machine = load(tmp_path, text, cpus=slots)
    attributes_set[0] = 0
    if held + slots * slots * present > MAX_SLOT_AD_ATTRIBUTES:
        with pytest.raises(BudgetExceeded, match="MAX_SLOT_AD_ATTRIBUTES"):
            build_slot_ads(config, machine, public=public)
        assert attributes_set[0] == own_work  # the same ads, and not one copy
        return
    ads = build_slot_ads(config, machine, public=public)
    assert ads.attributes == held + slots * slots * present
    assert sum(len(a.ad) for a in ads) == sum(len(a.ad) for a in own) + slots * slots * present
    names = [n.strip() for n in text.split("STARTD_SLOT_ATTRS = ")[1].split(",")]
    for target in ads:  # every ad: slot<k>_<Attr> of every slot k (itself too), the source's own expression
        copied = sorted(n for n in target.ad if n.startswith("slot") and "_" in n)
        assert copied == sorted(f"slot{k.slot_id}_{n}" for k in ads for n in names if n in k.ad)
    for source in ads[:3]:
        for name in names:
            if name in source.ad:
                assert all(t.ad[f"slot{source.slot_id}_{name}"] is source.ad[name] for t in ads)


def test_a_256_core_machine_with_static_slots_and_cross_slot_attributes_passes(tmp_path):
    config, machine = load(tmp_path, "EXECUTE = /x\nuse POLICY : Desktop\nNUM_SLOTS = 256\n"
                                     "SLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_SLOT_ATTRS = State, Activity, "
                                     "EnteredCurrentActivity, Cpus, Memory, LoadAvg, KeyboardIdle, Disk\n", cpus=256)
    ads = build_slot_ads(config, machine)
    assert len(ads) == 256 and not ads.errors
    assert unparse(ads[7].ad["slot200_Activity"]) == '"Idle"' and unparse(ads[0].ad["slot256_Cpus"]) == "1"
    assert ads.attributes < MAX_SLOT_AD_ATTRIBUTES


def test_4096_slots_with_a_real_policy_pass(tmp_path):
    config, machine = load(tmp_path, "EXECUTE = /x\nuse POLICY : Desktop\nNUM_SLOTS = 4096\n"
                                     "SLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_ATTRS = Site\nSite = \"x\"\n")
    ads = build_slot_ads(config, machine)
    assert len(ads) == 4096 and not ads.errors
    assert ads.attributes < MAX_SLOT_AD_ATTRIBUTES // 2 and ads.printed_bytes < MAX_SLOT_AD_BYTES // 4


# --- the other products -----------------------------------------------------------------------------------

@pytest.mark.parametrize("custom", [130, 5000])
def test_slots_times_custom_resources_is_refused_before_the_layout_is_made(tmp_path, monkeypatch, custom):
    text = "EXECUTE = /x\nNUM_SLOTS = 4096\nSLOT_TYPE_0_PARTITIONABLE = false\n" + "".join(
        f"MACHINE_RESOURCE_R{i} = 4096\n" for i in range(custom))
    config, machine = load(tmp_path, text)
    made = counting(monkeypatch, layout_module, "_new_slot")
    with pytest.raises(BudgetExceeded, match="MAX_SLOT_AD_ATTRIBUTES") as caught:
        build_layout(config, machine)
    assert made[0] == 0 and f"({custom} custom)" in caught.value.diagnostic.message
    # lint builds the layout too: it does not make it either, and ends without a traceback
    status = main(["lint", str(tmp_path / "condor_config"), "--machine", profile(tmp_path)])
    assert made[0] == 0 and status in (0, 1, 2)


def test_custom_resources_under_the_limit_are_laid_out(tmp_path):
    custom = MAX_SLOT_AD_ATTRIBUTES // 1024 - 4  # 1024 slots x (4 + custom) amounts: exactly the limit
    text = "EXECUTE = /x\nNUM_SLOTS = 1024\nSLOT_TYPE_0_PARTITIONABLE = false\n" + "".join(
        f"MACHINE_RESOURCE_R{i} = 1024\n" for i in range(custom))
    config, machine = load(tmp_path, text, cpus=1024)
    result = build_layout(config, machine)
    assert len(result.slots) == 1024 and all(s.custom == {f"r{i}": 1.0 for i in range(custom)} for s in result.slots)


def test_names_startd_attrs_lists_count_for_every_slot(tmp_path, monkeypatch):
    names = 100_000
    text = "EXECUTE = /x\nNUM_SLOTS = 4096\nSLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_ATTRS = " + ", ".join(
        f"N{i}" for i in range(names)) + "\n"
    config, machine = load(tmp_path, text)
    built = counting(monkeypatch, ads_module._AdBuilder, "slot_ad")
    with pytest.raises(BudgetExceeded, match="MAX_SLOT_AD_ATTRIBUTES"):
        build_slot_ads(config, machine)
    assert built[0] <= MAX_SLOT_AD_ATTRIBUTES // names + 1  # not 4096 slots x 100,000 look-ups


def _long_or(terms: list[str]) -> str:
    """``a || b || ...`` in groups of 100 (one flat chain would nest past the parser's depth limit)."""
    return " || ".join("(" + " || ".join(terms[i:i + 100]) + ")" for i in range(0, len(terms), 100))


def test_a_long_policy_printed_in_every_ad_is_bounded(tmp_path, monkeypatch):
    start = _long_or([f"(TARGET.Attribute{i} =?= {i})" for i in range(12_000)])
    config, machine = load(tmp_path, f"EXECUTE = /x\nNUM_SLOTS = 4096\nSLOT_TYPE_0_PARTITIONABLE = false\n"
                                     f"START = {start}\n")
    built = counting(monkeypatch, ads_module._AdBuilder, "slot_ad")
    printed_start = [0]
    original = classad_module.unparse

    def counted(tree):
        text = original(tree)
        printed_start[0] += len(text) > len(start) // 2
        return text

    monkeypatch.setattr(classad_module, "unparse", counted)
    with pytest.raises(BudgetExceeded, match="MAX_SLOT_AD_BYTES") as caught:
        build_slot_ads(config, machine)
    assert "Start" in caught.value.diagnostic.message and caught.value.diagnostic.location.line == 4
    assert built[0] <= MAX_SLOT_AD_BYTES // len(original(parse(start))) + 1
    assert printed_start[0] == 1  # measured once, not once per slot


def test_policy_references_are_walked_once_per_expression(tmp_path, monkeypatch):
    refs = [f"TARGET.Attribute{i}" for i in range(2000)]
    start = _long_or([f"({r} =?= 1)" for r in refs + refs[:10]])  # (repeated names are listed once)

    def build(slots):
        config, machine = load(tmp_path, f"EXECUTE = /x\nNUM_SLOTS = {slots}\nSLOT_TYPE_0_PARTITIONABLE = false\n"
                                         f"START = {start}\n", cpus=slots)
        walks = counting(monkeypatch, policy_module, "attribute_refs")
        ads = build_slot_ads(config, machine)
        monkeypatch.undo()
        return ads, walks[0]

    small, small_walks = build(4)
    large, large_walks = build(256)
    assert small_walks == large_walks  # not once per slot
    assert all(a.local_policy.job_references == [r.split(".")[1] for r in refs] for a in large[:100])
    # each slot's walk is paid for from the ClassAd work budget: past it the walk stops, the error says so
    config, machine = load(tmp_path, f"EXECUTE = /x\nNUM_SLOTS = 900\nSLOT_TYPE_0_PARTITIONABLE = false\n"
                                     f"START = {start}\n", cpus=900)
    looked_at = [0]
    original = policy_module._distinct_refs

    def counted(node, known):
        found = original(node, known)
        looked_at[0] += len(found)
        return found

    monkeypatch.setattr(policy_module, "_distinct_refs", counted)
    ads = build_slot_ads(config, machine)
    assert any("WORK_LIMIT" in d.message for d in ads.errors)
    assert looked_at[0] <= WORK_LIMIT + len(refs)


def test_a_knob_read_as_a_number_is_evaluated_once_for_all_slots(tmp_path, monkeypatch):
    long_true = " + ".join("(" + "+".join(["1"] * 100) + ")" for _ in range(50))
    config, machine = load(tmp_path, f"EXECUTE = /x\nNUM_SLOTS = 512\nSLOT_TYPE_0_PARTITIONABLE = false\n"
                                     f"ENABLE_STARTD_DAEMON_AD = {long_true}\nIS_LOCAL_STARTD = {long_true}+(2)\n",
                           cpus=512)
    evaluated = counting(monkeypatch, knobs_module, "_evaluate_number")
    ads = build_slot_ads(config, machine)
    assert len(ads) == 512 and evaluated[0] == 2
    assert unparse(ads[0].ad["IsLocalStartd"]) == "true" and unparse(ads[0].ad["MyType"]) == '"Slot"'


def _reference_binding(ids, wanted_per_slot, allowed):
    """The binding as the startd (and condorcfg before) does it: each slot the first unused ids its
    constraint allows, in machine order."""
    used, bound = set(), []
    for wanted in wanted_per_slot:
        taken = [d for d in ids if d in allowed and d not in used][:wanted]
        used.update(taken)
        bound.append(taken)
    return bound


@pytest.mark.parametrize("seed", range(6))
def test_device_constraints_bind_like_the_startd_in_linear_work(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    ids = [f"GPU-{i}" for i in rng.sample(range(400), rng.randint(20, 120))]
    allowed = set(rng.sample(ids, rng.randint(1, len(ids)))) | {"GPU-nowhere"}
    slots, wanted = rng.randint(2, 60), rng.randint(0, 3)
    quoted = ", ".join(f'"{d}"' for d in sorted(allowed))
    text = (f"EXECUTE = /x\nMACHINE_RESOURCE_GPUs = {', '.join(ids)}\nSLOT_TYPE_1 @=s\n  GPUs = {wanted} : {quoted}\n"
            f"  CPUs = 1\n  Memory = 1\n@s\nNUM_SLOTS_TYPE_1 = {slots}\n")
    config, machine = load(tmp_path, text, cpus=64)
    parsed = counting(monkeypatch, layout_module, "_constraint_ids")
    result = build_layout(config, machine)
    assert parsed[0] == 1  # the constraint is read once for all the slots of its type
    expected = _reference_binding(ids, [wanted] * len(result.slots), allowed)  # (slots past the GPUs are not made)
    assert [s.ids["gpus"] for s in result.slots] == expected
    short = [d for d in result.diagnostics if "match its constraint" in d.message]
    assert len(short) == sum(len(b) < wanted for b in expected)


def test_a_constraint_condorcfg_cannot_read_is_said_once_per_type(tmp_path):
    text = ("EXECUTE = /x\nMACHINE_RESOURCE_GPUs = a, b, c, d\nSLOT_TYPE_1 @=s\n  GPUs = 1 : Capability > 7\n"
            "  CPUs = 1\n  Memory = 1\n@s\nNUM_SLOTS_TYPE_1 = 3\n")
    config, machine = load(tmp_path, text, cpus=8)
    result = build_layout(config, machine)
    assert [s.ids["gpus"] for s in result.slots] == [["a"], ["b"], ["c"]]
    assert sum("device properties" in d.message for d in result.diagnostics) == 1


def test_lint_reports_the_slot_ad_limit_as_limit_reached(tmp_path):
    from condorcfg.lint import engine
    from condorcfg.machine import from_mapping

    text = "NUM_SLOTS = 4000\n" + "".join(f"MACHINE_RESOURCE_R{i} = 1\n" for i in range(5000))
    (tmp_path / "condor_config").write_text(text)
    result = engine.run([str(tmp_path / "condor_config")], machine=from_mapping({"cpus": 4096}), whole=True)
    reached = [f for f in result.findings if f.code == "CFG006"]
    assert len(reached) == 1 and "MAX_SLOT_AD_ATTRIBUTES" in reached[0].message
