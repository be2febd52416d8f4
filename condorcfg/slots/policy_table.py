"""Which knobs become which attributes of a slot ad (spec slot-ads.md §8.2, §8.7).

Data only: the policy entries of the machine config ad, the names a
``SLOT_TYPE_<N>_<name>`` override may use, and the attributes the public
(collector) ad keeps.
"""
from __future__ import annotations

# (attribute as spelled in the ad, knobs read in order, required, fallback expression or None)
POLICY_ENTRIES = (
    ("Start", ("START",), True, None),
    ("SUSPEND", ("SUSPEND",), True, None),
    ("CONTINUE", ("CONTINUE",), True, None),
    ("PREEMPT", ("PREEMPT",), True, None),
    ("KILL", ("KILL",), True, None),
    ("WANT_SUSPEND", ("WANT_SUSPEND",), True, None),
    ("WANT_VACATE", ("WANT_VACATE",), True, None),
    ("WANT_HOLD", ("WANT_HOLD",), False, "False"),
    ("WANT_HOLD_REASON", ("WANT_HOLD_REASON",), False, None),
    ("WANT_HOLD_SUBCODE", ("WANT_HOLD_SUBCODE",), False, None),
    ("CLAIM_WORKLIFE", ("CLAIM_WORKLIFE",), False, None),
    ("MaxJobRetirementTime", ("MaxJobRetirementTime",), False, None),
    ("MachineMaxVacateTime", ("MachineMaxVacateTime",), True, None),
    ("PERIODIC_CHECKPOINT", ("PERIODIC_CHECKPOINT",), False, None),
    ("RunBenchmarks", ("RunBenchmarks",), False, None),
    ("Rank", ("RANK",), False, None),
    ("SUSPEND_VANILLA", ("SUSPEND_VANILLA",), False, None),
    ("CONTINUE_VANILLA", ("CONTINUE_VANILLA",), False, None),
    ("PREEMPT_VANILLA", ("PREEMPT_VANILLA",), False, None),
    ("KILL_VANILLA", ("KILL_VANILLA",), False, None),
    ("WANT_SUSPEND_VANILLA", ("WANT_SUSPEND_VANILLA",), False, None),
    ("WANT_VACATE_VANILLA", ("WANT_VACATE_VANILLA",), False, None),
    ("START_BACKFILL", ("START_BACKFILL",), False, None),
    ("EVICT_BACKFILL", ("EVICT_BACKFILL",), False, None),
    ("FetchWorkDelay", ("FetchWorkDelay",), False, None),
    ("HIBERNATE", ("HIBERNATE",), False, None),
    ("Unhibernate", ("Unhibernate",), False, "MY.MachineLastMatchTime =!= UNDEFINED"),
    ("SlotWeight", ("SlotWeight",), False, "Cpus"),
    ("IsOwner", ("IsOwner", "IS_OWNER"), False, "(START =?= False)"),
    ("CpuBusy", ("CpuBusy", "cpu_busy"), False, "false"),
)

# SLOT_TYPE_<N>_<name> overrides honoured per slot type: the ad spellings, not the knob spellings
TYPE_OVERRIDES = (
    "START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE", "WANT_HOLD",
    "WANT_HOLD_REASON", "WANT_HOLD_SUBCODE", "CLAIM_WORKLIFE", "MaxJobRetirementTime",
    "MachineMaxVacateTime", "PERIODIC_CHECKPOINT", "RunBenchmarks", "Rank", "SUSPEND_VANILLA",
    "CONTINUE_VANILLA", "PREEMPT_VANILLA", "KILL_VANILLA", "WANT_SUSPEND_VANILLA", "WANT_VACATE_VANILLA",
    "START_BACKFILL", "EVICT_BACKFILL", "FetchWorkDelay", "HIBERNATE", "Unhibernate", "SlotWeight",
    "IsOwner", "CpuBusy",
)

# the knob spellings people write by mistake for a per-type override, and the spelling that works
MISSPELLED_OVERRIDES = {"is_owner": "IsOwner", "cpu_busy": "CpuBusy"}

# policy attributes the collector's copy of the ad keeps (spec §8.1); the rest stay in the startd
PUBLIC_POLICY = {"start", "requirements", "withinresourcelimits", "rank", "cpubusy", "slotweight",
                 "unhibernate", "machinemaxvacatetime", "maxjobretirementtime"}
