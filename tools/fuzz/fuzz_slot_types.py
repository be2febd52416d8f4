"""Fuzz target: the ``SLOT_TYPE_<N>`` share parser and the slot builder behind it.

One input is one share string (the text after ``SLOT_TYPE_1 =``).  It goes

1. straight to :func:`condorcfg.slots.shares.parse_slot_type` (type 1 of a machine with 4 CPUs,
   8192 MiB and the custom resources GPUs = 2, ScratchBandwidth = 20), where
   :class:`~condorcfg.slots.shares.ShareError` is the documented refusal;
2. into a small configuration, ``SLOT_TYPE_1 = <input>`` after a fixed header, read in
   repository mode as the STARTD and turned into slot ads by
   :func:`condorcfg.slots.build_slot_ads`; the resource and policy attributes of every ad
   (:data:`PRINTED`) are printed as the ``long`` and ``json`` formats print them, with the
   diagnostics and the local policy, as ``condorcfg ads --policy`` does.  Which header is picked by the input
   length modulo 3: two static slots of type 1; one partitionable type 1 beside a static type 2;
   four static slots with ``SLOT_CONFIG_FAILURE_MODE = ABORT``.  An input with a newline adds
   configuration lines of its own (and a ``\\`` continuation or ``@=`` heredoc makes a
   multi-line share string).

Properties: only CondorcfgError / ClassAdSyntaxError (and ShareError from the direct call)
escape; time and memory bounds as in _common.py.

Run: ``python tools/fuzz/run.py slot_types`` (see docs/fuzzing.md).
"""
from __future__ import annotations

import os

import _common

HEADERS = (
    "MACHINE_RESOURCE_GPUs = 2\nMACHINE_RESOURCE_ScratchBandwidth = 20\nNUM_SLOTS_TYPE_1 = 2\n",
    "MACHINE_RESOURCE_GPUs = 2\nMACHINE_RESOURCE_ScratchBandwidth = 20\nNUM_SLOTS_TYPE_1 = 1\n"
    "SLOT_TYPE_1_PARTITIONABLE = True\nSLOT_TYPE_2 = cpus=1, memory=1024\nNUM_SLOTS_TYPE_2 = 1\n",
    "MACHINE_RESOURCE_GPUs = 2\nMACHINE_RESOURCE_ScratchBandwidth = 20\nNUM_SLOTS_TYPE_1 = 4\n"
    "SLOT_CONFIG_FAILURE_MODE = ABORT\n",
)
PRINTED = ("Name", "SlotType", "Cpus", "Memory", "Disk", "Swap", "GPUs", "AssignedGPUs", "ScratchBandwidth",
           "TotalSlotCpus", "TotalSlotMemory", "ChildCpus", "Start", "IsOwner", "Requirements")
CUSTOM = {"GPUs": 2.0, "ScratchBandwidth": 20.0}
_state: dict = {}


def setup() -> None:
    from condorcfg.machine import MachineProfile

    base = _common.scratch_dir("slots")
    _state.update(path=os.path.join(base, "condor_config"), base=base,
                  profile=MachineProfile(**_common.PROFILE_FIXED))


def check(data: bytes) -> None:
    import condorcfg
    from condorcfg.classad import unparse
    from condorcfg.slots import build_slot_ads
    from condorcfg.slots.output import _json_value, unparse_old
    from condorcfg.slots.shares import ShareError, parse_slot_type

    if not _state:
        setup()
    text = _common.decode_text(data)
    _common.guard(parse_slot_type, text, 1, 4.0, 8192, dict(CUSTOM), extra=(ShareError,))

    config_text = HEADERS[len(data) % len(HEADERS)] + "SLOT_TYPE_1 = " + text + "\n"
    with open(_state["path"], "wb") as handle:
        handle.write(config_text.encode("utf-8", "surrogateescape"))
    config = _common.guard(condorcfg.load, [_state["path"]], machine=_state["profile"], environ={},
                           mode="repository", cwd=_state["base"], subsystem="STARTD")
    if config is None:
        return
    ads = _common.guard(build_slot_ads, config, _state["profile"])
    if ads is None:
        return
    for slot in ads:  # (printing whole ads costs 2/3 of the time and hardly depends on the input)
        for name in PRINTED:
            if name in slot.ad:
                unparse_old(slot.ad[name])
                _json_value(slot.ad[name])
    for diagnostic in ads.diagnostics:
        diagnostic.format()
    for slot in ads:
        if slot.local_policy is not None:
            unparse(slot.local_policy.is_owner)
            unparse(slot.local_policy.start)


if __name__ == "__main__":
    _common.main("slot_types", check, setup,
                 packages=("condorcfg.slots", "condorcfg.config", "condorcfg.classad", "condorcfg.machine"))
