"""Slot layout: which slots a startd builds and what each one owns (spec slot-ads.md §3, §6).

Counts the slot types (``NUM_SLOTS_TYPE_<N>``, else type 0 with ``NUM_SLOTS``),
parses each type's share string, then allocates like the startd: explicit
amounts first in slot-id order (the CPU remainder truncated to an integer
after every slot), auto shares afterwards (CPUs as reals, memory by integer
division, custom resources ceil-first), and finally binds device ids in slot
order.  Every slot that does not fit is an error Diagnostic pointing at the
knob responsible; ``SLOT_CONFIG_FAILURE_MODE`` decides which slots remain.
"""
from __future__ import annotations

import math
import re

from condorcfg.config.limits import BUDGET_CODE, BudgetExceeded
from condorcfg.diagnostics import ERROR
from condorcfg.records import factory, record
from condorcfg.slots.knobs import Knobs
from condorcfg.slots.resources import MachineTotals, machine_totals
from condorcfg.slots.shares import AUTO, ShareError, SlotRequest, c_int, parse_slot_type

FLOOR = -0.000001  # the startd's tolerance when checking what remains


FAILURE_MODES = ("CONTINUE", "CLEAR", "ABORT")
# bounds that keep hostile configs cheap; far above any real machine
MAX_SLOTS = 4096
MAX_TYPES = 1000
# Attributes the slot ads of one machine may hold in total (ads.py charges every ad, and the
# slot<N>_<Attr> copies STARTD_SLOT_ATTRS makes: n slots x n copies).  HTCondor publishes them
# all, but they grow with the product of two counts the configuration sets: five lines asked for
# 32 million (minutes, gigabytes).  256 static slots with 7 cross-slot attributes hold about
# 470,000, 4,096 slots with a usual ad about 250,000; at the limit `diff`, which holds both
# sides printed, peaks near 330 MB.
MAX_SLOT_AD_ATTRIBUTES = 524_288
_SHARE_KNOB = re.compile(r"^SLOT_TYPE_(\d+)$", re.IGNORECASE)
_COUNT_KNOB = re.compile(r"^NUM_SLOTS_TYPE_(\d+)$", re.IGNORECASE)


@record
class SlotType:
    type_id: int
    share_text: str | None
    share_knob: str | None  # the knob that gave the share string (for diagnostics)
    count: int
    count_knob: str
    partitionable: bool
    backfill: bool
    name_prefix: str
    request: SlotRequest | None = None  # None when the share string does not parse


@record
class Slot:
    slot_id: int
    type_id: int
    index: int  # 1-based position among the slots of its type
    partitionable: bool
    backfill: bool
    name_stem: str  # e.g. slot3
    execute: str | None
    cpus: float | None
    fractional_cpus: bool
    memory: int | None
    swap_fraction: float | None
    disk_fraction: float | None
    custom: dict[str, float | None] = factory(dict)
    constraints: dict[str, str] = factory(dict)
    ids: dict[str, list[str]] = factory(dict)
    broken: str | None = None

    @property
    def published_cpus(self) -> int | float:
        """Cpus as the startd advertises it: a real only when fractional CPUs are allowed."""
        cpus = self.cpus or 0.0
        return float(cpus) if self.fractional_cpus else c_int(cpus + 0.1)


@record
class Layout:
    totals: MachineTotals
    types: list[SlotType]
    slots: list[Slot]
    failure_mode: str
    diagnostics: list = factory(list)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else f"{number:.3f}".rstrip("0")


def _plural(number: float, word: str) -> str:
    return f"{_fmt(number)} {word}" + ("" if number == 1 else "s")


def count_types(knobs: Knobs, totals: MachineTotals, problems: list) -> list[SlotType]:
    """The slot types that will have slots, in type order (spec §3)."""
    max_types = knobs.integer("MAX_SLOT_TYPES", 10, problems)
    if max_types > MAX_TYPES:
        problems.append(knobs.warning(
            f"MAX_SLOT_TYPES = {max_types} is more than condorcfg examines; only types up to {MAX_TYPES} are read",
            "MAX_SLOT_TYPES"))
        max_types = MAX_TYPES
    for bad in ("SLOT_TYPE_0", "NUM_SLOTS_TYPE_0", "VIRTUAL_MACHINE_TYPE_0"):
        if knobs.value(bad) is not None:
            problems.append(knobs.error(
                f"{bad} cannot be set: type 0 is the startd's internal default type; use SLOT_TYPE_1 "
                "and NUM_SLOTS_TYPE_1 instead", bad))
    for name in knobs.cfg.names():
        match = _SHARE_KNOB.match(name) or _COUNT_KNOB.match(name)
        # (a type number longer than 9 digits is above any MAX_SLOT_TYPES; int() of 4,300+ digits raises)
        if match and (len(match.group(1)) > 9 or int(match.group(1)) > max_types) and knobs.value(name) is not None:
            problems.append(knobs.warning(
                f"{name} is ignored: slot types go up to MAX_SLOT_TYPES = {max_types}", name))

    counts: dict[int, int] = {}
    for type_id in range(1, max_types + 1):
        knob = f"NUM_SLOTS_TYPE_{type_id}"
        count = knobs.integer(knob, 0, problems)
        if count < 0:
            problems.append(knobs.error(f"{knob} is {count}; the number of slots cannot be negative", knob))
            count = 0
        if count:
            counts[type_id] = count
        elif knobs.value(f"SLOT_TYPE_{type_id}") is not None:
            problems.append(knobs.warning(
                f"SLOT_TYPE_{type_id} is defined but {knob} is 0 (or unset), so no slot of type {type_id} "
                f"is created; set {knob}", f"SLOT_TYPE_{type_id}"))

    total = sum(counts.values()) if counts else 0
    if total > MAX_SLOTS:
        problems.append(knobs.error(
            f"the slot types ask for {total} slots; condorcfg builds at most {MAX_SLOTS} (no real machine has "
            "more); lower NUM_SLOTS_TYPE_<N>", next(f"NUM_SLOTS_TYPE_{t}" for t in counts)))
        counts = _clamp(counts, MAX_SLOTS)
    types: list[SlotType] = []
    if counts:
        if knobs.value("NUM_SLOTS") is not None:
            problems.append(knobs.warning(
                "NUM_SLOTS is ignored because NUM_SLOTS_TYPE_<N> is set; the typed slots decide the layout",
                "NUM_SLOTS"))
        for type_id, count in counts.items():
            types.append(_slot_type(knobs, type_id, count, f"NUM_SLOTS_TYPE_{type_id}", False, problems))
    else:
        partitionable = knobs.boolean("SLOT_TYPE_0_PARTITIONABLE", True, problems)
        count = knobs.integer("NUM_SLOTS", 1 if partitionable else totals.cpus, problems)
        if count < 0:
            problems.append(knobs.error(f"NUM_SLOTS is {count}; the number of slots cannot be negative", "NUM_SLOTS"))
            count = 0
        if count > MAX_SLOTS:
            problems.append(knobs.error(
                f"NUM_SLOTS = {count} is more than the {MAX_SLOTS} slots condorcfg builds; lower it", "NUM_SLOTS"))
            count = MAX_SLOTS
        types.append(_slot_type(knobs, 0, count, "NUM_SLOTS", True, problems))
    return types


def _clamp(counts: dict[int, int], limit: int) -> dict[int, int]:
    clamped, left = {}, limit
    for type_id, count in counts.items():
        if left <= 0:
            break
        clamped[type_id] = min(count, left)
        left -= clamped[type_id]
    return clamped


def _slot_type(knobs: Knobs, type_id: int, count: int, count_knob: str, default_p: bool, problems) -> SlotType:
    share_knob = f"SLOT_TYPE_{type_id}" if type_id else None
    share_text = knobs.value(share_knob) if share_knob else None
    p_knob = knobs.type_knob(type_id, "PARTITIONABLE")
    partitionable = knobs.to_boolean(knobs.value(p_knob) if p_knob else None, default_p, p_knob or "", problems)
    b_knob = knobs.type_knob(type_id, "BACKFILL")
    backfill = knobs.to_boolean(knobs.value(b_knob) if b_knob else None, False, b_knob or "", problems)
    prefix = knobs.type_value(type_id, "NAME_PREFIX", False) or knobs.value("STARTD_RESOURCE_PREFIX") or "slot"
    return SlotType(type_id, share_text, share_knob, count, count_knob, partitionable, backfill, prefix.strip())


class _Pool:
    """What remains of the machine during the explicit pass (``AvailAttributes``)."""

    def __init__(self, totals: MachineTotals):
        self.cpus = totals.cpus  # an integer on purpose: the startd truncates after each slot
        self.memory = totals.memory
        self.swap = 1.0
        self.disk: dict[str | None, float] = {}
        self.custom = {key: res.quantity for key, res in totals.resources.items()}
        self.auto_cpus = self.auto_memory = self.auto_swap = 0
        self.auto_disk: dict[str | None, int] = {}
        self.auto_custom = {key: 0 for key in totals.resources}

    def shortfalls(self, slot: Slot) -> list[tuple[str, float, float]]:
        """(resource, asked, remaining) for every resource the slot does not fit in."""
        short = []
        if slot.cpus is not AUTO and not (slot.fractional_cpus and slot.cpus < 0.5):
            if c_int(self.cpus - slot.cpus) < FLOOR:
                short.append(("CPU", slot.cpus, self.cpus))
        if slot.memory is not AUTO and self.memory - slot.memory < FLOOR:
            short.append(("MiB of memory", slot.memory, self.memory))
        if slot.swap_fraction is not AUTO and self.swap - slot.swap_fraction < FLOOR:
            short.append(("% of swap", slot.swap_fraction * 100, self.swap * 100))
        disk_left = self.disk.get(slot.execute, 1.0)
        if slot.disk_fraction is not AUTO and disk_left - slot.disk_fraction < FLOOR:
            short.append(("% of disk", slot.disk_fraction * 100, disk_left * 100))
        for key, amount in slot.custom.items():
            if amount is not AUTO and self.custom.get(key, 0.0) - amount < FLOOR:
                short.append((key, amount, self.custom.get(key, 0.0)))
        return short

    def take(self, slot: Slot) -> None:
        if slot.cpus is AUTO:
            self.auto_cpus += 1
        elif not (slot.fractional_cpus and slot.cpus < 0.5):
            self.cpus = c_int(self.cpus - slot.cpus)
        if slot.memory is AUTO:
            self.auto_memory += 1
        else:
            self.memory -= slot.memory
        if slot.swap_fraction is AUTO:
            self.auto_swap += 1
        else:
            self.swap -= slot.swap_fraction
        if slot.disk_fraction is AUTO:
            self.auto_disk[slot.execute] = self.auto_disk.get(slot.execute, 0) + 1
        else:
            self.disk[slot.execute] = self.disk.get(slot.execute, 1.0) - slot.disk_fraction
        for key in self.custom:
            amount = slot.custom.get(key, AUTO)
            if amount is AUTO:
                self.auto_custom[key] += 1
            else:
                self.custom[key] -= amount

    def trim(self, slot: Slot, tags: dict[str, str]) -> str:
        """Shrink a request to what remains (CONTINUE mode, first slot of a type); the startd's reason text.

        Unlike the fit test this compares in floating point, as ``trim_request_to_fit`` does.
        """
        short = []
        if slot.cpus is not AUTO and not (slot.fractional_cpus and slot.cpus < 0.5) and self.cpus - slot.cpus < FLOOR:
            short.append(f"Cpus ({slot.cpus - self.cpus:.2f} short)")
            slot.cpus = float(self.cpus)
        if slot.memory is not AUTO and self.memory - slot.memory < FLOOR:
            short.append(f"Memory ({slot.memory - self.memory} short)")
            slot.memory = self.memory
        if slot.swap_fraction is not AUTO and self.swap - slot.swap_fraction < FLOOR:
            short.append(f"Swap ({(slot.swap_fraction - self.swap) * 100:.2f}% short)")
            slot.swap_fraction = self.swap
        disk_left = self.disk.get(slot.execute, 1.0)
        if slot.disk_fraction is not AUTO and disk_left - slot.disk_fraction < FLOOR:
            short.append(f"Disk ({(slot.disk_fraction - disk_left) * 100:.2f}% short)")
            slot.disk_fraction = disk_left
        for key, amount in slot.custom.items():
            left = self.custom.get(key, 0.0)
            if amount is not AUTO and left - amount < FLOOR:
                short.append(f"{tags[key]} ({amount - left:.2f} short)")
                slot.custom[key] = left
        return "Not enough " + " ".join(short)


def _describe(short: list[tuple[str, float, float]], totals: MachineTotals) -> str:
    parts = []
    for what, asked, left in short:
        if what == "CPU":
            parts.append(f"asks for {_plural(asked, 'CPU')}, {_fmt(left)} remain")
        elif what.startswith("%"):
            parts.append(f"asks for {_fmt(round(asked, 3))}{what}, {_fmt(round(left, 3))}% remains")
        elif what.startswith("MiB"):
            parts.append(f"asks for {_fmt(asked)} {what}, {_fmt(left)} MiB remain")
        else:
            tag = totals.resources[what].tag
            parts.append(f"asks for {_fmt(asked)} {tag}, {_fmt(left)} remain")
    return "; ".join(parts)


def build_layout(cfg, machine) -> Layout:
    """Lay out the slots of ``machine`` under ``cfg`` (a Config per docs/design.md)."""
    knobs = cfg if isinstance(cfg, Knobs) else Knobs(cfg)
    problems: list = []
    totals = machine_totals(knobs, machine, problems)
    mode = (knobs.value("SLOT_CONFIG_FAILURE_MODE") or "CONTINUE").strip().upper()
    if mode not in FAILURE_MODES:
        problems.append(knobs.error(
            f"SLOT_CONFIG_FAILURE_MODE must be one of {', '.join(FAILURE_MODES)}, not {mode!r}",
            "SLOT_CONFIG_FAILURE_MODE"))
        mode = "CONTINUE"
    types = count_types(knobs, totals, problems)
    _check_resource_amounts(knobs, totals, types)
    custom_totals = {key: res.quantity for key, res in totals.resources.items()}
    fatal = False

    for slot_type in types:
        try:
            request = parse_slot_type(slot_type.share_text, slot_type.type_id, totals.cpus, totals.memory,
                                      custom_totals)
        except ShareError as exc:
            problems.append(knobs.error(f"{slot_type.share_knob}: {exc}", slot_type.share_knob,
                                        slot_type.count_knob))
            fatal = fatal or mode != "CONTINUE"
            continue
        slot_type.request = request
        if request.zero_default:
            problems.append(knobs.warning(
                f"{slot_type.share_knob} has a bare item that reads as the share 0, so every resource not "
                f"named gets nothing (memory 1 MiB, disk and swap 0): {slot_type.share_text.strip()!r}; "
                "write name=value without spaces, or a percentage", slot_type.share_knob))

    pool, slots = _Pool(totals), []
    for slot_type in types:
        request = slot_type.request
        if request is None or fatal:
            continue
        for index in range(1, slot_type.count + 1):
            slot_id = len(slots) + 1
            slot = _new_slot(knobs, slot_type, request, index, slot_id, problems)
            short = pool.shortfalls(slot)
            if short:
                knob = slot_type.share_knob if slot_type.share_text else slot_type.count_knob
                problems.append(knobs.error(
                    f"slot {index} of type {slot_type.type_id} {_describe(short, totals)} "
                    f"(machine: {totals.cpus} CPUs, {totals.memory} MiB)", knob, slot_type.count_knob,
                    notes=[_consequence(mode, index)]))
                if mode != "CONTINUE":
                    fatal = True
                    break
                if index > 1:
                    continue  # later slots of a type that does not fit are not created
                slot.broken = pool.trim(slot, {key: res.tag for key, res in totals.resources.items()})
            pool.take(slot)
            slots.append(slot)
        if fatal:
            break

    if not fatal:
        fatal = _auto_pass(knobs, totals, pool, slots, types, mode, problems)
    if not fatal:
        _bind_ids(knobs, totals, slots, types, problems)
    if fatal:
        slots = []
    return Layout(totals, types, slots, mode, problems)


def slot_ad_limit(knobs: Knobs, what: str, remedy: str, knob: str | None, fallback: str | None = None,
                  limit: str = "MAX_SLOT_AD_ATTRIBUTES", bound: str = f"{MAX_SLOT_AD_ATTRIBUTES:,} attributes"):
    """The error refusing slot ads past one of their limits (a CondorcfgError: every command exits 2)."""
    return BudgetExceeded(knobs.diagnostic(
        ERROR, f"{what}, more than the {bound} condorcfg builds for the slot ads of one machine (limit {limit}); "
               f"{remedy}", knob, fallback, code=BUDGET_CODE), limit)


def _check_resource_amounts(knobs: Knobs, totals: MachineTotals, types: list[SlotType]) -> None:
    """Refuse, before allocating, a layout whose amounts alone pass MAX_SLOT_AD_ATTRIBUTES.

    Every slot holds an amount of every resource (the four standard ones and each custom one), and
    its ad publishes each as an attribute; allocating them costs slots x resources, which two short
    knobs can make huge (NUM_SLOTS = 4096 and thousands of MACHINE_RESOURCE_<Tag>).
    """
    slots, resources = sum(t.count for t in types), 4 + len(totals.resources)
    if slots * resources > MAX_SLOT_AD_ATTRIBUTES:
        custom = next(iter(totals.resources.values())).knob if totals.resources else None
        raise slot_ad_limit(knobs, f"{slots} slots with {resources} resources each ({resources - 4} custom) hold "
                                   f"{slots * resources:,} amounts, each an attribute of a slot ad",
                            "define fewer custom resources (MACHINE_RESOURCE_<Tag>) or fewer slots",
                            custom, types[0].count_knob if types else None)


def _consequence(mode: str, index: int) -> str:
    if mode == "ABORT":
        return "with SLOT_CONFIG_FAILURE_MODE = ABORT the startd exits"
    if mode == "CLEAR":
        return "with SLOT_CONFIG_FAILURE_MODE = CLEAR the startd builds no slots at all"
    if index == 1:
        return "the startd builds this slot trimmed to what remains and marks it broken"
    return "the startd does not build this slot"


def _new_slot(knobs: Knobs, slot_type: SlotType, request: SlotRequest, index: int, slot_id: int, problems) -> Slot:
    execute = knobs.value(f"SLOT{slot_id}_EXECUTE") or knobs.value("EXECUTE")
    slot = Slot(slot_id, slot_type.type_id, index, slot_type.partitionable, slot_type.backfill,
                f"{slot_type.name_prefix}{slot_id}", execute, request.cpus, request.fractional_cpus,
                request.memory, request.swap, request.disk, dict(request.custom), dict(request.constraints))
    if execute is None:
        problems.append(knobs.error(f"EXECUTE (or SLOT{slot_id}_EXECUTE) is not defined, so slot {slot_id} "
                                    "has no execute directory", "EXECUTE"))
        slot.broken = "no execute directory"
    return slot


def _auto_pass(knobs, totals, pool: _Pool, slots: list[Slot], types, mode, problems) -> bool:
    """Replace auto shares with amounts (``computeAutoShares``); True when the mode makes it fatal."""
    remain = dict(pool.custom)
    remain_count = dict(pool.auto_custom)
    by_type = {t.type_id: t for t in types}
    for slot in slots:
        failures = []
        if slot.cpus is AUTO:
            share = pool.cpus / pool.auto_cpus
            if (share <= 0) if slot.fractional_cpus else (share < 1):
                failures.append(f"{_fmt(pool.cpus)} CPUs remain for {pool.auto_cpus} slots with an auto CPU share")
                share = 0.0
            slot.cpus = share
        if slot.memory is AUTO:
            share = pool.memory // pool.auto_memory
            if share < 1:
                failures.append(f"{pool.memory} MiB remain for {pool.auto_memory} slots with an auto memory share")
                share = 0
            slot.memory = share
        if slot.swap_fraction is AUTO:
            share = pool.swap / pool.auto_swap
            if share <= 0:
                failures.append("no swap remains for the slots with an auto swap share")
                share = 0.0
            slot.swap_fraction = share
        if slot.disk_fraction is AUTO:
            share = pool.disk.get(slot.execute, 1.0) / pool.auto_disk[slot.execute]
            if share <= 0:
                failures.append("no disk remains for the slots with an auto disk share")
                share = 0.0
            slot.disk_fraction = share
        for key in pool.custom:
            if slot.custom.get(key, AUTO) is AUTO:
                if pool.custom[key] < 1:
                    slot.custom[key] = 0.0
                else:
                    amount = float(math.ceil(remain[key] / remain_count[key]))
                    slot.custom[key] = amount
                    remain[key] -= amount
                remain_count[key] -= 1
        if failures:
            slot_type = by_type[slot.type_id]
            knob = slot_type.share_knob if slot_type.share_text else slot_type.count_knob
            problems.append(knobs.error(
                f"slot {slot.slot_id} (type {slot.type_id}) gets nothing from its auto share: "
                + "; ".join(failures), knob, slot_type.count_knob,
                notes=["explicit shares of other slots took everything; lower them or give this type explicit amounts"]))
            if mode != "CONTINUE":
                return True
            slot.broken = slot.broken or "Not enough resources left for auto shares"
    return False


def _bind_ids(knobs, totals, slots: list[Slot], types, problems) -> None:
    """Give each slot concrete device ids, in slot order, honouring ``: "id"`` constraints."""
    by_type = {t.type_id: t for t in types}
    for key, resource in totals.resources.items():
        if resource.ids is None:
            continue
        ids = resource.ids
        order = {device: n for n, device in enumerate(ids)}
        used: set[str] = set()
        cursor = 0  # every id before the cursor is used: id lists may be long, keep binding linear
        # a constraint is shared by every slot of its type: its ids are read and put in machine order
        # once, and (as for the cursor above) every id before its own cursor is used
        by_constraint: dict[str, list | None] = {}  # constraint -> [ids in machine order, cursor]
        warned: set[tuple] = set()  # (type, constraint): said once per type, not once per slot
        for slot in slots:
            wanted = c_int(slot.custom.get(key) or 0)
            constraint = slot.constraints.get(key)
            chosen = None
            if constraint:
                if constraint not in by_constraint:
                    chosen_ids = _constraint_ids(constraint)
                    by_constraint[constraint] = None if chosen_ids is None else [
                        sorted((d for d in chosen_ids if d in order), key=order.get), 0]
                chosen = by_constraint[constraint]
                if chosen is None and (slot.type_id, constraint) not in warned:
                    warned.add((slot.type_id, constraint))
                    problems.append(knobs.warning(
                        f"the {resource.tag} constraint {constraint!r} of slot type {slot.type_id} depends on "
                        "device properties that condorcfg does not know; ids are bound in order ignoring it",
                        by_type[slot.type_id].share_knob))
            if chosen is not None:
                allowed, at = chosen
                taken = []
                while len(taken) < wanted and at < len(allowed):
                    if allowed[at] not in used:
                        taken.append(allowed[at])
                    at += 1
                chosen[1] = at
            else:
                taken = []
                while len(taken) < wanted and cursor < len(ids):
                    if ids[cursor] not in used:
                        taken.append(ids[cursor])
                    cursor += 1
            if len(taken) < wanted:
                slot_type = by_type[slot.type_id]
                problems.append(knobs.error(
                    f"slot {slot.slot_id} (type {slot.type_id}) needs {wanted} {resource.tag} ids but only "
                    f"{len(taken)} {'match its constraint' if chosen is not None else 'are left'}",
                    slot_type.share_knob, slot_type.count_knob))
                slot.broken = slot.broken or f"Not enough {resource.tag} devices"
            used.update(taken)
            slot.ids[key] = taken


def _constraint_ids(constraint: str) -> set[str] | None:
    """Ids named by a constraint made only of quoted strings (``"GPU-1"`` or ``"a", "b"``)."""
    parts = [p.strip() for p in constraint.split(",")]
    if parts and all(len(p) >= 2 and p[0] == p[-1] == '"' for p in parts):
        return {p[1:-1] for p in parts}
    return None
