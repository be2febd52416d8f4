"""Fuzz target: machine profiles (``--machine FILE``, YAML or JSON).

One input is written as ``profile.yaml`` and as ``profile.json`` and read with
:func:`condorcfg.machine.load_profile` (which goes through :mod:`condorcfg.inputs`).  Every
profile that loads is then used the way a command uses it: its host facts
(``host_facts()``, ``gpu_ids()``), and a small fixed configuration read against it in
repository mode with every knob expanded, plus the slot layout it gives
(:func:`condorcfg.slots.build_layout`: counts, shares, custom resources, device ids).

Properties: only CondorcfgError / ClassAdSyntaxError escape; time and memory bounds as in
_common.py.  (Whole slot *ads* are not built here: a profile may legitimately have 65536 CPUs,
and one ad per CPU would measure the ad builder, which fuzz_slot_types covers, not the profile.)

Run: ``python tools/fuzz/run.py profile`` (see docs/fuzzing.md).
"""
from __future__ import annotations

import os

import _common

CONFIG = """\
use FEATURE : PartitionableSlot
MACHINE_RESOURCE_INVENTORY_GPUs = $(DETECTED_GPUS)
NAME = $(FULL_HOSTNAME)-$(DETECTED_CPUS)-$(DETECTED_MEMORY)-$(OPSYSANDVER)-$(UTSNAME_RELEASE)
MEMORY_SHARE = $INT(DETECTED_MEMORY / 2)
IS_BIG = $(DETECTED_CORES) > 32
if $(IS_BIG)
  SLOT_TYPE_1 = cpus=50%, memory=50%
endif
"""
_state: dict = {}


def setup() -> None:
    base = _common.scratch_dir("profile")
    config = os.path.join(base, "condor_config")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    _state.update(base=base, config=config, yaml=os.path.join(base, "profile.yaml"),
                  json=os.path.join(base, "profile.json"))


def check(data: bytes) -> None:
    import condorcfg
    from condorcfg.machine import load_profile
    from condorcfg.slots import build_layout

    if not _state:
        setup()
    guard = _common.guard
    for kind in ("yaml", "json"):
        path = _state[kind]
        with open(path, "wb") as handle:
            handle.write(data)
        profile = guard(load_profile, path)
        if profile is None:
            continue
        profile.host_facts()
        profile.gpu_ids()
        config = guard(condorcfg.load, [_state["config"]], machine=profile, environ={}, mode="repository",
                       cwd=_state["base"], subsystem="STARTD")
        if config is None:
            continue
        for name in config.names():
            guard(config.value, name)
        guard(build_layout, config, profile)


if __name__ == "__main__":
    _common.main("profile", check, setup, extra_instrumented=_common.YAML_READER,
                 packages=("condorcfg.machine", "condorcfg.inputs", "condorcfg.config.host", "condorcfg.slots"))
