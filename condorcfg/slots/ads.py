"""Build the ClassAd every slot of a machine would advertise (spec slot-ads.md §7–§9).

Takes the layout (which slots exist and what each owns) and publishes, per
slot: identity (Name, SlotID, SlotType…), resources (Cpus, Memory, Disk,
custom ``<Tag>`` attributes), machine-wide facts, the policy expressions of
the machine config ad with their ``SLOT_TYPE_<N>_`` overrides, STARTD_ATTRS
with their ``SLOT<n>_`` / ``SLOT_TYPE_<N>_`` precedence, and Start /
Requirements.  Expressions are stored parsed; a value that does not parse is
a Diagnostic, never an exception.  The dynamic attributes a running startd
measures (load, idle times, state) get the values of an idle, unclaimed
machine (``IDLE_MACHINE``) so local policy can be evaluated.
"""
from __future__ import annotations

import math
import re

from condorcfg.records import record
from condorcfg.slots.knobs import Knobs
from condorcfg.slots.layout import MAX_SLOT_AD_ATTRIBUTES, Layout, Slot, build_layout, slot_ad_limit
from condorcfg.slots.policy import LocalPolicy, evaluate_local_policy
from condorcfg.slots.policy_table import MISSPELLED_OVERRIDES, POLICY_ENTRIES, PUBLIC_POLICY, TYPE_OVERRIDES

# What a startd measures at run time, as on an idle machine nobody touches.
IDLE_MACHINE = {
    "Activity": "Idle",
    "LoadAvg": 0.0,
    "CondorLoadAvg": 0.0,
    "TotalLoadAvg": 0.0,
    "TotalCondorLoadAvg": 0.0,
    "KeyboardIdle": 86400,
    "ConsoleIdle": 86400,
    "LastBenchmark": 0,
    "CpuIsBusy": False,
}

DEFAULT_WITHIN_LIMITS = ("(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
                         "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk")
CUSTOM_WITHIN_LIMITS = (" && (TARGET.Request{tag} is UNDEFINED ||MY.{tag} >= ifThenElse(TARGET._condor_Request{tag} "
                        "is UNDEFINED,TARGET.Request{tag},TARGET._condor_Request{tag}))")
_LIST_SPLIT = re.compile(r"[,\s]+")
MIB = 1024 * 1024
# The slot ads of one machine printed (condor_status -l: ``Name = value`` lines) may take this much.
# Each ad repeats the machine's policy, so a long START (or STARTD_ATTRS value) is printed, held and
# compared once per slot: 4,096 slots x a 400 KiB START would be 1.6 GiB.  4,096 slots with a
# typical policy print about 12 MiB.
MAX_SLOT_AD_BYTES = 64 * MIB


@record
class SlotAd:
    ad: object  # condorcfg.classad.ClassAd
    slot_id: int
    type_id: int
    name: str
    slot: Slot
    local_policy: LocalPolicy | None = None


class SlotAds(list):
    """The slot ads of one machine, in slot-id order, plus every problem found building them."""

    def __init__(self, ads=(), diagnostics=None, layout: Layout | None = None, attributes: int = 0,
                 printed_bytes: int = 0):
        super().__init__(ads)
        self.diagnostics = list(diagnostics or [])
        self.layout = layout
        # what they hold (counted against MAX_SLOT_AD_ATTRIBUTES / MAX_SLOT_AD_BYTES): a caller that
        # keeps the ads of many machines can bound their sum without counting again
        self.attributes = attributes
        self.printed_bytes = printed_bytes

    @property
    def errors(self) -> list:
        return [d for d in self.diagnostics if d.severity == "error"]


def _names(text: str | None) -> list[str]:
    return [n for n in _LIST_SPLIT.split(text or "") if n]


class _Parser:
    """Parse expression text once; remember failures so each is reported once."""

    def __init__(self):
        from condorcfg.classad import parse

        self._parse = parse
        self._cache: dict[str, object] = {}

    def __call__(self, text: str):
        """The parsed node, or a string with the syntax error message."""
        if text not in self._cache:
            try:
                self._cache[text] = self._parse(text)
            except Exception as exc:  # ClassAdSyntaxError or anything the parser raises on bad input
                self._cache[text] = str(getattr(exc, "message", None) or exc) or "syntax error"
        return self._cache[text]


def _literal(value):
    # slots repeat the same values; literal nodes are never mutated, so they can be shared
    key = (type(value), value)
    node = _LITERALS.get(key)
    if node is None:
        from condorcfg.classad.ast import Literal

        if len(_LITERALS) >= _MAX_LITERALS:  # a long-lived process builds ads for many machines
            _LITERALS.clear()
        node = _LITERALS[key] = Literal(value)
    return node


_LITERALS: dict = {}
_MAX_LITERALS = 4096


def _number(value: float):
    return int(value) if float(value).is_integer() else float(value)


def build_slot_ads(cfg, machine=None, public: bool = False) -> SlotAds:
    """Every slot ad of ``machine`` under ``cfg``; ``public`` gives the collector's view.

    Every evaluation made for every slot pays from one ClassAd budget (the command's, when
    one is open): a policy that costs a lot costs it once for the machine, not once per
    slot.  When the budget runs out, that is an error diagnostic naming the limit.

    All the ads together hold at most ``MAX_SLOT_AD_ATTRIBUTES`` attributes and print as at
    most ``MAX_SLOT_AD_BYTES``: past either this raises
    :class:`~condorcfg.config.limits.BudgetExceeded` (a CondorcfgError naming the limit; every
    command exits 2), charged ad by ad, and before the slot<N>_<Attr> copies are made.
    """
    from condorcfg.classad.budget import command_budget

    if machine is None:
        machine = getattr(cfg, "machine", None)
    if machine is None:
        from condorcfg.machine import detect

        machine = detect()
    knobs = cfg if isinstance(cfg, Knobs) else Knobs(cfg)
    with command_budget() as budget:
        layout = build_layout(knobs, machine)
        builder = _AdBuilder(knobs, machine, layout)
        ads = [builder.slot_ad(slot, public) for slot in layout.slots]
        _publish_cross_slot_attrs(knobs, ads, builder.held)
    diagnostics = layout.diagnostics + builder.diagnostics
    if budget.spent:
        diagnostics.append(knobs.error(f"{budget.message()}; the slot ads' policy values (Start, IsOwner ...) "
                                       f"computed after that are not HTCondor's", "START"))
    return SlotAds(ads, diagnostics, layout, builder.held.count, builder.held.bytes)


def _publish_cross_slot_attrs(knobs: Knobs, ads: list[SlotAd], held: "_Held") -> None:
    """STARTD_SLOT_ATTRS: every slot's ad gets ``slot<k>_<Attr>`` from every slot k (spec §8.9).

    That is n x n copies, as the startd makes them: their number and size are known (and
    refused past MAX_SLOT_AD_ATTRIBUTES or MAX_SLOT_AD_BYTES) before any copy is made.
    """
    knob = next((k for k in ("STARTD_SLOT_ATTRS", "STARTD_SLOT_EXPRS", "SYSTEM_STARTD_SLOT_ATTRS")
                 if knobs.value(k) is not None), None)
    if knob is None:
        return
    names = (_names(knobs.value("STARTD_SLOT_ATTRS")) + _names(knobs.value("STARTD_SLOT_EXPRS"))
             + _names(knobs.value("SYSTEM_STARTD_SLOT_ATTRS")))
    remedy = "list fewer attributes in STARTD_SLOT_ATTRS, or use fewer slots"
    # every name is looked up in every ad: not done when that alone would pass the limit
    held.check(len(ads) * len(names), knob, lambda total: (
        f"{knob} names {len(names):,} attributes to look up in each of the {len(ads)} slot ads"), remedy)
    copies = []
    for source in ads:
        for attr in names:
            if attr in source.ad:
                copies.append((f"slot{source.slot_id}_{attr}", source.ad[attr]))
    held.charge(len(ads) * len(copies), knob, lambda total: (
        f"{knob} copies {len(copies):,} attributes (slot<N>_<Attr>) into each of the {len(ads)} slot ads, as the "
        f"startd does: the ads would hold {total:,} attributes"), remedy)
    size = held.printed(copies)
    held.charge_bytes(len(ads) * size, knob, lambda total: (
        f"{knob} copies {len(copies):,} attributes (slot<N>_<Attr>) of {size:,} bytes into each of the {len(ads)} "
        f"slot ads, as the startd does: the ads would print as {total / MIB:.1f} MiB"), remedy)
    for target in ads:
        for name, node in copies:
            target.ad[name] = node


class _Held:
    """What the slot ads of one machine hold so far: attributes (against MAX_SLOT_AD_ATTRIBUTES) and
    printed bytes (against MAX_SLOT_AD_BYTES).  A charge past a limit raises before it is added:
    ``what(total)`` (made only then) says what the total would be, ``remedy`` what to change."""

    def __init__(self, knobs: Knobs, layout: Layout):
        self.knobs, self.count, self.bytes = knobs, 0, 0
        self.count_knob = layout.types[0].count_knob if layout.types else None
        self._sizes: dict[int, tuple] = {}  # id(tree) -> (tree, printed length): trees are shared by the slots

    def charge(self, attributes: int, knob: str | None, what, remedy: str) -> None:
        self.check(attributes, knob, what, remedy)
        self.count += attributes

    def check(self, attributes: int, knob: str | None, what, remedy: str) -> None:
        """Raise as :meth:`charge` would, without adding."""
        if self.count + attributes > MAX_SLOT_AD_ATTRIBUTES:
            raise slot_ad_limit(self.knobs, what(self.count + attributes), remedy, knob, self.count_knob)

    def charge_bytes(self, size: int, knob: str | None, what, remedy: str) -> None:
        if self.bytes + size > MAX_SLOT_AD_BYTES:
            raise slot_ad_limit(self.knobs, what(self.bytes + size), remedy, knob, self.count_knob,
                                "MAX_SLOT_AD_BYTES", f"{MAX_SLOT_AD_BYTES // MIB} MiB")
        self.bytes += size

    def printed(self, items) -> int:
        """Bytes of ``Name = value`` lines for ``(name, tree)`` pairs; each tree is printed once."""
        from condorcfg.classad import unparse

        sizes, total = self._sizes, 0
        for name, tree in items:
            known = sizes.get(id(tree))
            if known is None or known[0] is not tree:  # (the tree is kept, so its id is not reused)
                known = sizes[id(tree)] = (tree, len(unparse(tree)))
            total += len(name) + known[1] + 4
        return total


class _AdBuilder:
    def __init__(self, knobs: Knobs, machine, layout: Layout):
        self.knobs, self.machine, self.layout = knobs, machine, layout
        self.parse = _Parser()
        self.diagnostics: list = []
        self._reported: set = set()
        self.held = _Held(knobs, layout)
        # What does not change from slot to slot is read once: a knob's value may be long, and
        # reading it once per slot would cost slots x its length.
        self._booleans: dict[tuple, bool] = {}
        self._lists: dict[str | None, list[str]] = {}
        self._read: dict = {}
        self.refs: dict = {}  # the references of each expression tree (policy.undefined_references)
        self.policy = self._policy_entries()
        self.machine_attrs = self._machine_attrs_pass()
        self.host = machine.hostname
        startd_name = knobs.value("STARTD_NAME")
        if startd_name:
            startd_name = startd_name.strip()
            self.daemon_name = startd_name if "@" in startd_name else f"{startd_name}@{self.host}"
        else:
            self.daemon_name = self.host

    # -- diagnostics ----------------------------------------------------------------
    def _once(self, key, make) -> None:
        """Report ``make()`` the first time ``key`` comes up (made only then: it may quote a long value)."""
        if key not in self._reported:
            self._reported.add(key)
            self.diagnostics.append(make())

    def _bool(self, text: str | None, default: bool, knob: str | None) -> bool:
        """A boolean knob asked for once per slot, read once, its problem reported once per knob."""
        key = (text, default, knob)
        if key not in self._booleans:
            problems: list = []
            self._booleans[key] = self.knobs.to_boolean(text, default, knob or "", problems)
            for problem in problems:
                self._once(("bool", (knob or "").lower()), lambda: problem)
        return self._booleans[key]

    def _read_once(self, key, read):
        """``read()`` the first time ``key`` is asked for; what it gave after that."""
        if key not in self._read:
            self._read[key] = read()
        return self._read[key]

    def _list(self, text: str | None) -> list[str]:
        """The names a list knob's value gives (split once per value)."""
        if text not in self._lists:
            self._lists[text] = _names(text)
        return self._lists[text]

    # -- machine config ad (§8.2) ----------------------------------------------------
    def _policy_entries(self) -> list[tuple[str, object]]:
        entries = []
        for attr, knob_names, required, fallback in POLICY_ENTRIES:
            knob = next((k for k in knob_names if self.knobs.value(k) is not None), None)
            if knob is None:
                if required:
                    self.diagnostics.append(self.knobs.error(
                        f'{knob_names[0]} is set to an empty value, but the startd requires it ("Required attribute '
                        f'{knob_names[0]} is not defined"); remove the empty assignment or give an expression',
                        knob_names[0]))
                    continue
                if fallback is None:
                    continue
                text = fallback
            else:
                text = self.knobs.value(knob)
            node = self.parse(text)
            if isinstance(node, str):
                self.diagnostics.append(self.knobs.error(
                    f"{knob} is not a valid ClassAd expression, so the startd will not start "
                    f"(Syntax error in {knob} expression): {node}", knob))
                continue
            entries.append((attr, node))
        return entries

    # -- STARTD_ATTRS (§8.7c, §9) ------------------------------------------------------
    def _attr_value(self, attr: str, knob: str):
        """Parsed value of knob ``knob`` published as ``attr``, or None (reported once)."""
        text = self.knobs.value(knob)
        if text is None:
            return None
        node = self.parse(text)
        if isinstance(node, str):
            self._once(("attr", knob.lower()), lambda: self.knobs.warning(
                f"{knob} = {text.strip()} is not a ClassAd expression, so the startd leaves {attr} out of the "
                f"slot ads ({node}); quote a string value: {knob} = \"{text.strip()}\"", knob))
            return None
        return node

    def _machine_attrs_pass(self) -> list[tuple[str, object]]:
        names = (_names(self.knobs.value("STARTD_ATTRS")) + _names(self.knobs.value("STARTD_EXPRS"))
                 + _names(self.knobs.value("SYSTEM_STARTD_ATTRS")))
        if self.knobs.value("STARTD_EXPRS") is not None:
            self.diagnostics.append(self.knobs.warning(
                "STARTD_EXPRS is obsolete and only partly honoured (not per slot); list the names in STARTD_ATTRS",
                "STARTD_EXPRS"))
        published = []
        for attr in names:
            node = self._attr_value(attr, attr)
            if node is not None:
                published.append((attr, node))
        return published

    def _slot_attrs_pass(self, slot: Slot) -> list[tuple[str, object]]:
        knobs, n, t = self.knobs, slot.slot_id, slot.type_id
        type_attrs = knobs.type_value(t, "STARTD_ATTRS", fall_back_to_global=False)
        names = list(self._list(type_attrs if type_attrs is not None else knobs.value("STARTD_ATTRS")))
        for extra in (f"SLOT{n}_STARTD_ATTRS", "STARTD_LATCH_EXPRS", "SYSTEM_STARTD_ATTRS",
                      "SYSTEM_STARTD_LATCH_EXPRS"):
            names += self._list(knobs.value(extra))
        # each name is looked up for each slot, set or not: it counts as an attribute of the slot's ad
        self.held.charge(len(names), "STARTD_ATTRS", lambda total: (
            f"slot {n} of {len(self.layout.slots)} looks up {len(names):,} names (STARTD_ATTRS ...): with the "
            f"slot ads before it, {total:,} attributes"), "list fewer names in STARTD_ATTRS, or use fewer slots")
        published = []
        for attr in names:
            knob = (knobs.type_knob(t, f"SLOT{n}_{attr}", fall_back_to_global=False)
                    or (f"SLOT{n}_{attr}" if knobs.value(f"SLOT{n}_{attr}") is not None else None)
                    or knobs.type_knob(t, attr))
            if knob is None:
                continue
            node = self._attr_value(attr, knob)
            if node is not None:
                published.append((attr, node))
        return published

    # -- per-type policy overrides (§8.7a) ------------------------------------------------
    def _type_overrides(self, type_id: int) -> list[tuple[str, object]]:
        table = self.knobs.type_tables.get(type_id, {})
        overrides = []
        for name in TYPE_OVERRIDES:
            knob = table.get(name.lower())
            if knob is None or self.knobs.value(knob) is None:
                continue
            node = self.parse(self.knobs.value(knob))
            if isinstance(node, str):
                if name == "START":
                    continue  # reported with Start, which the startd then publishes as error
                self._once(("override", knob.lower()), lambda: self.knobs.warning(
                    f"{knob} is not a valid ClassAd expression; the startd silently keeps the global "
                    f"{name} for slot type {type_id}: {node}", knob))
                continue
            overrides.append(("Start" if name == "START" else name, node))
        for wrong, right in MISSPELLED_OVERRIDES.items():
            knob = table.get(wrong)
            if knob is not None:
                self._once(("misspelled", knob.lower()), lambda: self.knobs.warning(
                    f"{knob} is ignored: per-type policy overrides use the ad spelling, "
                    f"SLOT_TYPE_{type_id}_{right}", knob))
        return overrides

    # -- one slot ----------------------------------------------------------------------------
    def slot_ad(self, slot: Slot, public: bool) -> SlotAd:
        from condorcfg.classad import ClassAd

        knobs, totals, machine = self.knobs, self.layout.totals, self.machine
        ad = ClassAd()
        lit = _literal
        daemon_ad = self._read_once("daemon ad", lambda: knobs.boolean("ENABLE_STARTD_DAEMON_AD", True) if (
            (knobs.value("ENABLE_STARTD_DAEMON_AD") or "auto").strip().lower() != "auto") else True)

        # config ad: policy entries, then per-type overrides (later assignments win)
        for attr, node in self.policy + self._type_overrides(slot.type_id):
            ad[attr] = node
        ad["MyType"] = lit("Slot" if daemon_ad else "Machine")
        if daemon_ad:
            ad["HasStartDaemonAd"] = lit(True)
        ad["TargetType"] = lit("Job")
        name = f"{slot.name_stem}@{self.daemon_name}"
        ad["Name"] = lit(name)
        ad["Machine"] = lit(self.host)
        ad["IsLocalStartd"] = lit(self._bool(knobs.value("IS_LOCAL_STARTD"), False, "IS_LOCAL_STARTD"))
        for attr, node in self.machine_attrs:
            ad[attr] = node

        # slot resources (§8.4)
        # a broken slot advertises nothing usable but keeps its provisioned totals
        zero_cpus = 0.0 if slot.fractional_cpus else 0
        ad["Cpus"] = lit(zero_cpus if slot.broken else slot.published_cpus)
        ad["TotalSlotCpus"] = lit(slot.published_cpus)
        ad["Memory"] = lit(0 if slot.broken else slot.memory)
        ad["TotalSlotMemory"] = lit(slot.memory or 0)
        disk = math.ceil(totals.disk * (slot.disk_fraction or 0.0))
        ad["Disk"] = lit(disk)
        ad["TotalDisk"] = lit(totals.disk)
        ad["TotalSlotDisk"] = lit(float(disk))
        ad["VirtualMemory"] = lit(int(totals.swap * (slot.swap_fraction or 0.0)))
        ad["TotalVirtualMemory"] = lit(totals.swap)
        for key, resource in totals.resources.items():
            amount = int(slot.custom.get(key) or 0)  # published as an int (spec §8.4)
            ad[resource.tag] = lit(0 if slot.broken else amount)
            ad[f"TotalSlot{resource.tag}"] = lit(amount)
            if resource.ids is not None:
                ad[f"Assigned{resource.tag}"] = lit(",".join(slot.ids.get(key, [])))
                if resource.offline:
                    ad[f"Offline{resource.tag}"] = lit(",".join(resource.offline))
        if slot.broken:
            ad["SlotBrokenReason"] = lit(slot.broken)

        # machine-wide static (§8.3)
        ad["Arch"] = lit(machine.arch)
        ad["OpSys"] = lit(machine.opsys.upper())
        ad["UidDomain"] = lit(knobs.value("UID_DOMAIN") or self.host)
        ad["FileSystemDomain"] = lit(knobs.value("FILESYSTEM_DOMAIN") or self.host)
        ad["TotalCpus"] = lit(float(totals.cpus))
        ad["TotalMemory"] = lit(totals.memory)
        ad["DetectedCpus"] = lit(totals.detected_cpus)
        ad["DetectedMemory"] = lit(totals.detected_memory)
        ad["TotalSlots"] = lit(len(self.layout.slots))
        for resource in totals.resources.values():
            ad[f"Total{resource.tag}"] = lit(_number(resource.quantity))
            ad[f"Detected{resource.tag}"] = lit(_number(resource.detected_quantity))
        ad["MachineResources"] = lit(" ".join(["Cpus", "Memory", "Disk", "Swap",
                                               *(r.tag for r in totals.resources.values())]))
        slot_attrs = self._slot_attrs_pass(slot)
        for attr, node in slot_attrs:
            ad[attr] = node

        ad["SlotID"] = lit(slot.slot_id)
        if slot.backfill:
            ad["SlotBackfill"] = lit(True)
        ad["SlotTypeID"] = lit(slot.type_id)
        ad["SlotType"] = lit("Partitionable" if slot.partitionable else "Static")
        if slot.partitionable:
            ad["PartitionableSlot"] = lit(True)
            ad["NumDynamicSlots"] = lit(0)
            if self._read_once("claimable", lambda: knobs.boolean("ENABLE_CLAIMABLE_PARTITIONABLE_SLOTS", False)):
                ad["MaxClaimTime"] = lit(self._read_once(
                    "claim time", lambda: knobs.integer("MAX_PARTITIONABLE_SLOT_CLAIM_TIME", 3600)))
        self._slot_weight(ad, slot)
        policy_knob = knobs.type_knob(slot.type_id, "CONSUMPTION_POLICY")
        consumption = slot.partitionable and self._bool(
            knobs.value(policy_knob) if policy_knob else None, False, policy_knob)
        if consumption:
            self._consumption(ad, slot)

        # dynamic ad (§8.5, §8.6)
        for attr, value in IDLE_MACHINE.items():
            ad[attr] = lit(value)
        self._start_and_requirements(ad, slot, consumption)
        policy = _evaluate_local_policy(ad, self.refs)
        self._check_is_owner(slot, policy)
        if public:
            _to_public(ad, self._listed_attrs(slot_attrs))
        # (the names of slot_attrs were counted when they were looked up)
        self.held.charge(max(len(ad) - len(slot_attrs), 0), self.held.count_knob, lambda total: (
            f"the ads of slots 1 to {slot.slot_id} of {len(self.layout.slots)} hold {total:,} attributes"),
            "publish fewer attributes per slot (STARTD_ATTRS, custom resources), or use fewer slots")
        # every ad prints the machine's policy again: long values cost slots x their length
        held, size = self.held, self.held.printed((n, ad[n]) for n in ad)
        longest = None
        if held.bytes + size > MAX_SLOT_AD_BYTES:  # (about to refuse: name the longest, whose knob is to blame)
            longest = max(ad, key=lambda n: held.printed([(n, ad[n])]))
        held.charge_bytes(size, longest, lambda total: (
            f"the ads of slots 1 to {slot.slot_id} of {len(self.layout.slots)} would print as {total / MIB:.1f} MiB "
            f"(condor_status -l; {longest} takes {held.printed([(longest, ad[longest])]):,} bytes of slot "
            f"{slot.slot_id}'s)"),
            f"shorten {longest} (every slot publishes it), or use fewer slots")
        return SlotAd(ad, slot.slot_id, slot.type_id, name, slot, policy)

    def _check_is_owner(self, slot: Slot, policy: LocalPolicy) -> None:
        from condorcfg.classad.budget import current

        if isinstance(policy.is_owner, (bool, int, float)):
            return
        budget = current()
        if budget is not None and budget.failed:
            return  # error only because the evaluation budget ran out: build_slot_ads says so once

        from condorcfg.classad import unparse

        knob = (self.knobs.type_tables.get(slot.type_id, {}).get("isowner")
                or next((k for k in ("IsOwner", "IS_OWNER") if self.knobs.value(k) is not None), "IS_OWNER"))
        refs = policy.job_references + policy.undefined
        because = f" (it uses {', '.join(refs)}, undefined without a job)" if refs else ""
        self._once(("isowner", knob.lower()), lambda: self.knobs.error(
            f"IsOwner evaluates to {unparse(policy.is_owner)} for slot {slot.slot_id} when no job is "
            f"present{because}; the startd aborts (\"Invalid evaluation of IsOwner\"). IS_OWNER may only use "
            "machine attributes", knob))

    def _slot_weight(self, ad, slot: Slot) -> None:
        knob = self.knobs.type_knob(slot.type_id, "SLOT_WEIGHT") or self.knobs.type_knob(slot.type_id, "SlotWeight")
        node = self.parse(self.knobs.value(knob)) if knob else self.parse("Cpus")
        if isinstance(node, str):
            self._once(("weight", knob.lower()), lambda: self.knobs.error(
                f"{knob} is not a valid ClassAd expression, so the startd will not start (Bad slot weight "
                f"expression): {node}", knob))
            node = self.parse("Cpus")
        ad["SlotWeight"] = node

    def _resource_names(self) -> list[str]:
        return ["Cpus", "Memory", "Disk", *(r.tag for r in self.layout.totals.resources.values())]

    def _consumption(self, ad, slot: Slot) -> None:
        """Consumption<Res> of a p-slot with a consumption policy (spec §8.3), swap excluded."""
        for res in self._resource_names():
            knob = self.knobs.type_knob(slot.type_id, f"CONSUMPTION_{res}")
            text = self.knobs.value(knob) if knob else (
                f"ifthenelse(target.Request{res} =?= undefined, 0, target.Request{res})")
            node = self.parse(text)
            if isinstance(node, str):
                self._once(("consumption", knob.lower()), lambda: self.knobs.error(
                    f"{knob} is not a valid ClassAd expression: {node}", knob))
                continue
            ad[f"Consumption{res}"] = node

    def _start_and_requirements(self, ad, slot: Slot, consumption: bool = False) -> None:
        knob = self.knobs.type_knob(slot.type_id, "START")
        start = self.parse(self.knobs.value(knob)) if knob else self.parse("True")
        if isinstance(start, str):
            if knob and knob.upper() != "START":  # a bad global START was already reported as fatal
                self._once(("start", knob.lower()), lambda: self.knobs.error(
                    f"{knob} is not a valid ClassAd expression, so slots of type {slot.type_id} advertise "
                    f"Start = error and never match: {start}", knob))
            from condorcfg.classad import ERROR

            start = _literal(ERROR)
        ad["Start"] = start
        limits = self.parse(self._read_once(("limits", consumption), lambda: self._limits_text(consumption)))
        if isinstance(limits, str):
            self._once(("limits",), lambda: self.knobs.error(
                f"WithinResourceLimits is not a valid ClassAd expression: {limits}", "WithinResourceLimits"))
        else:
            ad["WithinResourceLimits"] = limits
        ad["Requirements"] = self.parse("START && (WithinResourceLimits)" if slot.partitionable else "START")

    def _limits_text(self, consumption: bool) -> str:
        """WithinResourceLimits as the startd writes it (the same for every slot alike)."""
        limits_text = self.knobs.value("WithinResourceLimits")
        if limits_text is None and consumption:
            limits_text = "(" + " && ".join(
                f"ifThenElse(TARGET._cp_orig_Request{r} isnt UNDEFINED, TARGET.Request{r} <= MY.{r}, "
                f"MY.Consumption{r} <= MY.{r})" for r in self._resource_names()) + ")"
        if limits_text is None:
            limits_text = DEFAULT_WITHIN_LIMITS + "".join(
                CUSTOM_WITHIN_LIMITS.format(tag=r.tag) for r in self.layout.totals.resources.values()) + ")"
        return limits_text

    def _listed_attrs(self, slot_attrs: list[tuple[str, object]]) -> set[str]:
        return {attr.lower() for attr, _ in self.machine_attrs + slot_attrs}


def _to_public(ad, listed: set[str]) -> None:
    """Drop what only the startd's internal ad holds (spec §8.1)."""
    policy_names = {entry[0].lower() for entry in POLICY_ENTRIES}
    for attr in list(ad):
        lowered = attr.lower()
        if lowered in policy_names and lowered not in PUBLIC_POLICY and lowered not in listed:
            del ad[attr]
    if "Rank" not in ad:
        ad["Rank"] = _literal(0.0)
    if "MaxJobRetirementTime" not in ad:
        ad["MaxJobRetirementTime"] = _literal(0)


def _evaluate_local_policy(ad, refs: dict | None = None) -> LocalPolicy:
    return evaluate_local_policy(ad, refs)
