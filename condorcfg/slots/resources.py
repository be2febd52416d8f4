"""The machine-wide resource pool the slots are carved from (spec slot-ads.md §2).

CPUs come from ``NUM_CPUS``, memory from ``MEMORY`` (else the profile) minus
``RESERVED_MEMORY``, disk from ``DISK`` (else the profile minus
``RESERVED_DISK``), swap from the profile, and custom resources from
``MACHINE_RESOURCE_<Tag>`` (a quantity or a list of ids, minus
``OFFLINE_MACHINE_RESOURCE_<Tag>``).  Inventory scripts are never run: their
answer comes from the machine profile (``gpus``, ``resources``).
"""
from __future__ import annotations

import re

from condorcfg.records import factory, record
from condorcfg.slots.knobs import Knobs

RESERVED_TAGS = {"cpu", "cpus", "disk", "swap", "mem", "memory", "ram"}
_RESOURCE_KNOB = re.compile(r"^MACHINE_RESOURCE_(?!NAMES$)(?!INVENTORY_)(.+)$", re.IGNORECASE)
_INVENTORY_KNOB = re.compile(r"^MACHINE_RESOURCE_INVENTORY_(.+)$", re.IGNORECASE)
_ID_LIST = re.compile(r"^\s*[\w.:-]+(?:[\s,]+[\w.:-]+)+\s*$")
_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$", re.ASCII)  # (float() strips ASCII blanks only)


@record
class CustomResource:
    tag: str  # spelled as in the config; attribute names use this spelling
    quantity: float  # usable (online) amount
    ids: list[str] | None = None  # device ids for non-fungible resources
    offline: list[str] = factory(list)
    knob: str | None = None  # where it was defined (for diagnostics)
    detected: float | None = None

    @property
    def detected_quantity(self) -> float:
        return self.quantity if self.detected is None else self.detected


@record
class MachineTotals:
    cpus: int  # NUM_CPUS: the CPU pool (an integer)
    detected_cpus: int
    memory: int  # MiB after RESERVED_MEMORY
    detected_memory: int
    disk: int  # KiB of the execute partition
    swap: int  # KiB
    resources: dict[str, CustomResource] = factory(dict)


def _split_ids(text: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", text.strip()) if part]


def _quantity(text: str) -> float | None:
    if _NUMBER.match(text):
        return float(text)
    if _ID_LIST.match(text):
        return None  # several plain words: a list of device ids, not an expression
    try:
        from condorcfg.classad import evaluate, parse

        value = evaluate(parse(text))
    except Exception:  # not an expression: a list of ids
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def machine_totals(knobs: Knobs, machine, problems: list) -> MachineTotals:
    """The machine pool; problems (reserved tags, bad numbers) are appended as Diagnostics."""
    cpus = knobs.integer("NUM_CPUS", machine.cpus, problems)
    if cpus < 1:
        problems.append(knobs.error(f"NUM_CPUS is {cpus}; a machine needs at least 1 CPU", "NUM_CPUS"))
        cpus = 1
    memory = knobs.integer("MEMORY", 0, problems) or machine.memory
    memory = max(memory - knobs.integer("RESERVED_MEMORY", 0, problems), 0)
    disk_knob = knobs.integer("DISK", 0, problems)
    disk = disk_knob or max(machine.disk - knobs.integer("RESERVED_DISK", 0, problems) * 1024, 0)
    totals = MachineTotals(cpus=cpus, detected_cpus=machine.cpus, memory=memory,
                           detected_memory=machine.memory, disk=disk, swap=machine.swap)
    totals.resources = custom_resources(knobs, machine, problems)
    return totals


def custom_resources(knobs: Knobs, machine, problems: list) -> dict[str, CustomResource]:
    names_filter = knobs.value("MACHINE_RESOURCE_NAMES")
    allowed = {tag.lower() for tag in _split_ids(names_filter)} if names_filter else None
    found: dict[str, CustomResource] = {}
    inventories: dict[str, str] = {}
    for name in knobs.cfg.names():
        inventory = _INVENTORY_KNOB.match(name)
        if inventory:
            if knobs.value(name) is not None:
                inventories.setdefault(inventory.group(1).lower(), name)
            continue
        match = _RESOURCE_KNOB.match(name)
        if not match or knobs.value(name) is None:
            continue
        tag = match.group(1)
        if tag.lower() in RESERVED_TAGS:
            problems.append(knobs.error(
                f"{name}: {tag!r} is a standard resource and cannot be a custom resource name "
                "(the startd refuses to start); rename the tag", name))
            continue
        if allowed is not None and tag.lower() not in allowed:
            continue
        text = knobs.value(name)
        quantity = _quantity(text)
        if quantity is not None:
            found[tag.lower()] = CustomResource(tag, quantity, knob=name)
        else:
            found[tag.lower()] = CustomResource(tag, 0, ids=_split_ids(text), knob=name)

    profile_resources = {str(k).lower(): (str(k), v) for k, v in (machine.resources or {}).items()}
    gpu_ids = machine.gpu_ids()
    if "gpus" not in found and "gpus" not in inventories and gpu_ids and knobs.value("STARTD_DETECT_GPUS"):
        inventories["gpus"] = "STARTD_DETECT_GPUS"  # current startds run GPU discovery by default
    for lowered, knob in inventories.items():
        if lowered in found or (allowed is not None and lowered not in allowed):
            continue
        tag = knob[len("MACHINE_RESOURCE_INVENTORY_"):] if knob.upper().startswith("MACHINE_RESOURCE_INVENTORY_") else "GPUs"
        if lowered == "gpus":
            if gpu_ids:
                found[lowered] = CustomResource(tag, 0, ids=list(gpu_ids), knob=knob)
            continue
        if lowered in profile_resources:
            _, detected = profile_resources[lowered]
            if isinstance(detected, list):
                found[lowered] = CustomResource(tag, 0, ids=[str(d) for d in detected], knob=knob)
            else:
                found[lowered] = CustomResource(tag, float(detected), knob=knob)
        else:
            problems.append(knobs.warning(
                f"{knob} names a script that condorcfg does not run; the resource {tag} is left out. "
                f"Give its result in the machine profile (resources: {{{tag}: <quantity or [ids]>}})", knob))

    for lowered, resource in found.items():
        offline_knob = f"OFFLINE_MACHINE_RESOURCE_{resource.tag}"
        offline = _split_ids(knobs.value(offline_knob) or "")
        if resource.ids is not None:
            resource.detected = float(len(resource.ids))
            wanted = {o.lower() for o in offline}
            resource.offline = [i for i in resource.ids if i.lower() in wanted]
            resource.ids = [i for i in resource.ids if i.lower() not in wanted]
            resource.quantity = float(len(resource.ids))
    return found
