"""Compare two configurations: effective knob values and the slot ads they give.

Both sides are read the same way (same machine profile, same subsystem), so a
difference is a real change of meaning, not of spelling: moving a knob to
another file, or replacing a literal by a macro with the same value, is not a
change.  Provenance of both sides is kept so a report can say where each
value came from.
"""
from __future__ import annotations

from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.records import record

# What the slot ads of one diff may cost, over every machine compared, both sides together
# (one machine is bounded by the slot layout's MAX_SLOTS = 4,096 per side; a fleet is not).
MAX_FLEET_SLOT_ADS = 32_768  # slot ads built (~0.15 ms each with its printing and comparing)
MAX_FLEET_LINES = 262_144  # configuration lines read to build them (~40 us each)
MAX_FLEET_ATTRIBUTES = 1_048_576  # attributes in those slot ads (both sides of one machine at its own limit)
MAX_LISTED_SLOT_CHANGES = 1000  # slot-ad changes listed per machine; the rest are counted


class FleetBudget:
    """The slot-ad work of all the machines of one diff; :meth:`charge` raises CondorcfgError (naming
    the limit) once it is spent.  Charged after each machine, so one machine at most goes past it."""

    def __init__(self):
        self.limits = {"MAX_FLEET_SLOT_ADS": MAX_FLEET_SLOT_ADS, "MAX_FLEET_LINES": MAX_FLEET_LINES,
                       "MAX_FLEET_ATTRIBUTES": MAX_FLEET_ATTRIBUTES}
        self.spent = dict.fromkeys(self.limits, 0)

    def charge(self, slot_ads: int = 0, lines: int = 0, attributes: int = 0) -> None:
        self.spent["MAX_FLEET_SLOT_ADS"] += slot_ads
        self.spent["MAX_FLEET_LINES"] += lines
        self.spent["MAX_FLEET_ATTRIBUTES"] += attributes
        for name, limit in self.limits.items():
            if self.spent[name] > limit:
                what = {"MAX_FLEET_SLOT_ADS": "slot ads", "MAX_FLEET_LINES": "configuration lines read",
                        "MAX_FLEET_ATTRIBUTES": "slot-ad attributes"}[name]
                raise CondorcfgError(error(
                    f"the machines compared take more than {limit:,} {what} (limit {name}, shared by every "
                    f"machine and both sides); compare fewer machines (--machine NAME) or --no-ads",
                    "<diff>", code="budget-exceeded"))


def _kind(old, new) -> str:
    if old is None:
        return "added"
    if new is None:
        return "removed"
    return "changed"


@record
class ValueChange:
    name: str
    old: str | None  # expanded value; None = not defined
    new: str | None
    old_source: object = None  # Definition or None
    new_source: object = None

    @property
    def kind(self) -> str:
        return _kind(self.old, self.new)

    @property
    def restart(self) -> str | None:
        """Where HTCondor says a change of this knob needs a daemon restart (None: condor_reconfig applies it)."""
        from condorcfg.lint import knowledge

        return knowledge.load().needs_restart(self.name)

    @property
    def security(self) -> bool:
        from condorcfg.lint import knowledge

        return knowledge.load().is_security(self.name)


@record
class SlotChange:
    slot: str  # the slot's Name attribute
    attribute: str | None  # None: the whole slot was added or removed
    old: str | None  # printed ClassAd value; None = absent
    new: str | None

    @property
    def kind(self) -> str:
        return _kind(self.old, self.new)


def _relocated(value: str | None, root: str | None) -> str | None:
    # Two checkouts of the same tree live in different directories; paths under
    # each side's CONFIG_ROOT are compared relative to it.
    if value is None or not root:
        return value
    return value.replace(root, "$(CONFIG_ROOT)")


def diff_values(old, new, names=None) -> list[ValueChange]:
    """Knobs whose effective value differs, over every name either side defines (or ``names``)."""
    old_root, new_root = old.value("CONFIG_ROOT"), new.value("CONFIG_ROOT")
    if old_root == new_root:
        old_root = new_root = None
    if names is None:
        seen: dict[str, str] = {}
        for name in list(old.names()) + list(new.names()):
            seen.setdefault(name.upper(), name)
        names = sorted(seen.values(), key=str.upper)
    changes = []
    for name in names:
        before, after = old.value(name), new.value(name)
        if _relocated(before, old_root) != _relocated(after, new_root):
            changes.append(ValueChange(name, before, after, old.source(name), new.source(name)))
    return changes


def _printed_ad(ad) -> dict[str, str]:
    from condorcfg.classad import unparse

    return {name: unparse(ad[name]) for name in ad}


class SlotChanges(list):
    """The slot-ad changes of one machine as listed, and how many more there are (``unlisted``): a change
    to every slot of a big machine (slot1_Memory ... in each of 4,000 ads) is counted, not listed."""

    unlisted = 0


def diff_slot_ads(old_ads, new_ads, limit: int = MAX_LISTED_SLOT_CHANGES) -> SlotChanges:
    """Per-slot attribute differences, at most ``limit`` listed; slots are paired by their Name."""
    before = {slot.name: _printed_ad(slot.ad) for slot in old_ads}
    after = {slot.name: _printed_ad(slot.ad) for slot in new_ads}
    changes = SlotChanges()

    def add(*change) -> None:
        if len(changes) < limit:
            changes.append(SlotChange(*change))
        else:
            changes.unlisted += 1

    for slot in sorted(set(before) | set(after)):
        if slot not in after:
            add(slot, None, "present", None)
            continue
        if slot not in before:
            add(slot, None, None, "present")
            continue
        old_attrs, new_attrs = before[slot], after[slot]
        spelled = {a.lower(): a for a in list(old_attrs) + list(new_attrs)}
        old_lower = {a.lower(): v for a, v in old_attrs.items()}
        new_lower = {a.lower(): v for a, v in new_attrs.items()}
        for key in sorted(spelled):
            if old_lower.get(key) != new_lower.get(key):
                add(slot, spelled[key], old_lower.get(key), new_lower.get(key))
    return changes
