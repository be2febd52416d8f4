"""Parse a ``SLOT_TYPE_<N>`` share string into what one slot of that type asks for.

Mirrors the startd's slot-request parser (spec slot-ads.md §4–§5): items are
split on newlines when the value has one, else on commas and white space; a
bare value is the default share for every resource not named; resource names
are custom tags (exact, case-insensitive) or prefixes of cpus / ram|memory /
swap|virtualmemory / disk.  Pure functions over plain numbers: no config, no
ClassAds.
"""
from __future__ import annotations

import re

from condorcfg.records import factory, record

AUTO = None  # an ``auto`` share: decided after every explicit amount was taken
MINIMAL = -1.0 / 128  # ``min``: the fraction 1/128 (fractions are negative, like the startd)

# C's isspace() and isdigit() in the "C" locale: Python's \s and \d also take Unicode ones
_ATOF = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


class ShareError(ValueError):
    """A share string the startd rejects; ``item`` is the offending item text."""

    def __init__(self, message: str, item: str = ""):
        super().__init__(message)
        self.item = item


def atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix, 0.0 when there is none."""
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


def parse_share_value(text: str, type_id: int) -> tuple[float | None, bool]:
    """Return (share, is_min): AUTO, a negative fraction, or a positive absolute amount."""
    lowered = text.lower()
    if lowered in ("auto", "automatic"):
        return AUTO, False
    if lowered in ("min", "minimal"):
        return MINIMAL, True
    if "%" in text:
        return -(atof(text) / 100.0), False
    if "/" in text:
        denominator_text = text.split("/", 1)[1]
        denominator = atof(denominator_text) if denominator_text else 0.0
        if denominator <= 0:
            raise ShareError(
                f'cannot parse "{text}" in the description of slot type {type_id}: '
                "a fraction needs a positive denominator (like 1/4)", text)
        return -(atof(text) / denominator), False
    return atof(text), False


def c_int(value: float) -> int:
    """C's (int) cast as the startd's x86-64 build does it: an infinite, NaN or out-of-range
    amount (a share or profile of 1e999) becomes INT_MIN instead of a Python exception."""
    if value != value or not -2**31 <= value < 2**31:
        return -2**31
    return int(value)


def _local_amount(total: float, share: float | None, floor: float = 0, integer: bool = False):
    """A share as a quantity: fractions of ``total`` or the absolute amount, at least ``floor``."""
    if share is AUTO:
        return AUTO
    amount = -share * total if share < 0 else share
    if integer:
        amount = c_int(amount)
    return max(amount, floor)


@record
class SlotRequest:
    """What one slot of a type asks for; ``None`` means an auto share."""

    cpus: float | None
    memory: int | None  # MiB
    swap: float | None  # fraction of the machine's swap
    disk: float | None  # fraction of the execute partition
    custom: dict[str, float | None] = factory(dict)
    constraints: dict[str, str] = factory(dict)
    fractional_cpus: bool = False
    zero_default: bool = False  # a bare word or 0 gave every unnamed resource nothing
    ignored: list[str] = factory(list)  # unknown resources with a zero/auto share


STANDARD_NAMES = (("cpus", ("cpus",)), ("memory", ("ram", "memory")),
                  ("swap", ("swap", "virtualmemory")), ("disk", ("disk",)))


def standard_resource(name: str) -> str | None:
    """cpus / memory / swap / disk when ``name`` is a case-insensitive prefix of one (empty = cpus)."""
    lowered = name.lower()
    for resource, spellings in STANDARD_NAMES:
        if any(spelling.startswith(lowered) for spelling in spellings):
            return resource
    return None


def split_items(text: str) -> list[str]:
    separators = "\n" if "\n" in text else ", \t\r\n"
    return [item for item in re.split("[" + re.escape(separators) + "]", text) if item.strip()]


def parse_slot_type(text: str | None, type_id: int, num_cpus: float, memory: int,
                    custom_totals: dict[str, float]) -> SlotRequest:
    """Parse one share string against the machine totals; raises :class:`ShareError`."""
    tags = {tag.lower(): tag for tag in custom_totals}
    if not text or not text.strip():
        return SlotRequest(AUTO, AUTO, AUTO, AUTO, {tag: AUTO for tag in custom_totals})

    default_share: float | None = AUTO
    default_is_min = False
    fractional = False
    cpus = memory_amount = swap = disk = "unset"
    custom: dict[str, object] = {tag: "unset" for tag in custom_totals}
    constraints: dict[str, str] = {}
    ignored: list[str] = []

    for raw_item in split_items(text):
        item = raw_item.strip()
        if "=" not in item:
            default_share, default_is_min = parse_share_value(item, type_id)
            if not default_is_min and default_share is not AUTO and (default_share < -1 or default_share > 0):
                raise ShareError(
                    f'bad description of slot type {type_id}: "{item}" is invalid; give a percentage '
                    '(like "25%"), a fraction (like "1/4"), or list all resources (like "c=1, r=25%, s=25%, d=25%")',
                    item)
            if default_is_min:
                fractional = True
            continue
        name, value = item.split("=", 1)
        name, value = name.strip(), value.strip()
        if not value:
            raise ShareError(f'cannot parse "{item}" in the description of slot type {type_id}: '
                             "the value after = is empty (write name=value without spaces on a one-line value)",
                             item)
        constraint = ""
        if ":" in value:
            value, constraint = (part.strip() for part in value.split(":", 1))
        share, _ = parse_share_value(value, type_id)
        tag = tags.get(name.lower())
        if tag is not None:
            custom[tag] = _local_amount(custom_totals[tag], share)
            if constraint:
                constraints[tag] = constraint
            continue
        resource = standard_resource(name)
        if resource == "cpus":
            cpus = _local_amount(num_cpus, share, 0.0 if fractional else 1.0)
        elif resource == "memory":
            memory_amount = _local_amount(memory, share, 1, integer=True)
        elif resource in ("swap", "disk"):
            if share is not AUTO and share > 0:
                raise ShareError(f"{resource} in slot type {type_id} must be a percentage or fraction "
                                 f'(like {resource}=25%), not the absolute amount "{value}"', item)
            if resource == "swap":
                swap = _local_amount(1.0, share)
            else:
                disk = _local_amount(1.0, share)
        elif share is not AUTO and share > 0:
            known = ", ".join(["cpus", "memory", "disk", "swap", *custom_totals]) 
            raise ShareError(f'unknown resource "{name}" in slot type {type_id}; this machine has: {known}', item)
        else:
            ignored.append(name)

    floor = 0 if fractional else 1
    if cpus == "unset":
        cpus = _local_amount(num_cpus, default_share, float(floor))
    if memory_amount == "unset":
        memory_amount = _local_amount(memory, default_share, floor, integer=True)
    if swap == "unset":
        swap = _local_amount(1.0, default_share)
    if disk == "unset":
        disk = _local_amount(1.0, default_share)
    for tag, amount in custom.items():
        if amount == "unset":
            custom[tag] = _local_amount(custom_totals[tag], default_share)
    zero_default = default_share is not AUTO and default_share == 0
    return SlotRequest(cpus, memory_amount, swap, disk, custom, constraints, fractional, zero_default, ignored)
