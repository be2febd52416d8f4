"""Slot layout checks (SLT): SLOT_TYPE_<N> syntax, over-committed machines, slot counts.

The layout itself is computed by :func:`condorcfg.slots.build_layout` (the startd's
algorithm, slot-ads.md sections 3-6); these checks turn its diagnostics into findings and
add the counting mistakes the startd silently accepts.
"""
from __future__ import annotations

import re

from condorcfg.lint.checks import check
from condorcfg.diagnostics import Text
from condorcfg.lint.checks._util import describe, effective, empty_macro_notes, is_user, value, word_span

_SLOT_KNOB = re.compile(r"(NUM_SLOTS_TYPE_\d+|SLOT_TYPE_\d+(_.+)?|NUM_SLOTS|NUM_CPUS|MEMORY|"
                        r"SLOT_CONFIG_FAILURE_MODE|MACHINE_RESOURCE_.+)", re.IGNORECASE)


def _layout(ctx):
    """The slot layout (computed once per lint run); None when a slot knob cannot even be expanded."""
    if not hasattr(ctx, "_h7_layout"):
        from condorcfg.diagnostics import CondorcfgError
        from condorcfg.slots import build_layout

        try:
            ctx._h7_layout = build_layout(ctx.config, ctx.machine)
        except CondorcfgError as exc:
            ctx._h7_layout = None  # a macro cycle or a limit reached: MAC202 or CFG006 reports it
            ctx.note_limit(exc)
    return ctx._h7_layout


def _definition_at(ctx, location):
    """The slot knob definition written at ``location`` (to report template ones at their `use`)."""
    if location is None:
        return None
    for name in ctx.names():
        if not _SLOT_KNOB.fullmatch(name):
            continue
        for definition in ctx.config.history(name):
            loc = definition.location
            if loc is not None and loc.file == location.file and loc.line == location.line:
                return definition
    return None


def _kind(message: str) -> str | None:
    """Which rule reports a layout diagnostic; None for the rest (shown by `condorcfg slots`)."""
    if re.match(r"SLOT_TYPE_\d+(: | has a bare item)", message):
        return "syntax"
    if " asks for " in message or "gets nothing from its auto share" in message:
        return "oversubscribed"
    return None


def _layout_findings(ctx, wanted):
    layout = _layout(ctx)
    for diagnostic in (layout.diagnostics if layout is not None else ()):
        kind = _kind(diagnostic.message)
        if kind != wanted:
            continue
        definition = _definition_at(ctx, diagnostic.location)
        if definition is not None and not is_user(definition) and definition.origin != "template":
            continue
        at = definition if definition is not None else diagnostic.location
        span = ctx.value_span(definition) if definition is not None and is_user(definition) else None
        notes = list(diagnostic.notes) + (empty_macro_notes(ctx, definition) if definition is not None else [])
        yield ctx.finding(diagnostic.message, at=at, span=span, notes=notes)


@check
def slot_type_syntax(ctx):
    yield from _layout_findings(ctx, "syntax")


@check
def slot_oversubscribed(ctx):
    if not ctx.machine_given:  # what does not depend on the machine: shares that add up to more than all of it
        yield from _shares_over_whole(ctx)
        yield from _over_declared_totals(ctx)
        return
    # One finding per slot type and shortage, not per slot (NUM_SLOTS_TYPE_1 = 48 would give 48 on one line):
    # the slots of a type that ask for the same thing and find the same left are named together.
    groups: dict[tuple, list] = {}
    for finding in _layout_findings(ctx, "oversubscribed"):
        found = _SLOT_OF_TYPE.match(finding.message)
        shape = "of"
        if found is None:
            found, shape = _SLOT_TYPE_PAREN.match(finding.message), "paren"
        rest = finding.message[found.end():] if found else finding.message
        key = (finding.location, shape if found else None, found.group(2) if found else None, rest)
        groups.setdefault(key, []).append((found.group(1) if found else None, finding))
    for (_location, shape, type_id, rest), members in groups.items():
        first = members[0][1]
        slots = [slot for slot, _finding in members if slot is not None]
        if len(members) > 1 and len(slots) == len(members):
            rest = rest.replace("asks for", "ask for", 1).replace("gets nothing from its", "get nothing from their", 1)
            where = f"of type {type_id}" if shape == "of" else f"(type {type_id})"
            first.message = f"slots {_ranges(slots)} {where} each {rest}"
        yield first


_SLOT_OF_TYPE = re.compile(r"^slot (\d+) of type (\d+) ")
_SLOT_TYPE_PAREN = re.compile(r"^slot (\d+) \(type (\d+)\) ")


def _shares_over_whole(ctx):
    """Slot types whose percentages or fractions of a resource, times their slot counts, exceed 100%:
    over-subscribed on every machine, so reported without a machine profile."""
    from condorcfg.slots.shares import ShareError, parse_share_value, split_items, standard_resource

    asked: dict[str, float] = {}
    writers: dict[str, list] = {}
    for name in _typed_counts(ctx):
        type_id = _integer(name.upper().rsplit("_", 1)[1])
        if type_id is None:
            continue
        count = _integer(value(ctx, name) or "")
        definition = effective(ctx, f"SLOT_TYPE_{type_id}")
        if count is None or not is_user(definition):
            continue
        default, named = None, {}
        try:
            for item in split_items(value(ctx, f"SLOT_TYPE_{type_id}") or ""):
                item = item.strip()
                if "=" not in item:
                    default = parse_share_value(item, type_id)[0]
                    continue
                resource = standard_resource(item.split("=", 1)[0].strip())
                if resource is not None:
                    named[resource] = parse_share_value(item.split("=", 1)[1].split(":", 1)[0].strip(), type_id)[0]
        except ShareError:
            continue  # SLT601 reports it
        for resource in ("cpus", "memory", "swap", "disk"):
            share = named.get(resource, default)
            if share is not None and share < 0:  # a fraction of the machine (absolute amounts depend on it)
                asked[resource] = asked.get(resource, 0.0) + count * -share
                writers.setdefault(resource, []).append((type_id, count, -share, definition))
    for resource, total in asked.items():
        if total <= 1.0 + 1e-6:
            continue
        parts = [f"{count} x {share * 100:g}% (type {type_id})" for type_id, count, share, _d in writers[resource]]
        definition = writers[resource][-1][3]
        yield ctx.finding(f"the slot types ask for {total * 100:g}% of the machine's {resource}: "
                          f"{' + '.join(parts)}; whatever the machine, the last slots get less than they ask for",
                          at=definition, span=ctx.value_span(definition))


_PLAIN_MACRO = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)\)")


def _machine_independent(ctx, name: str, depth: int = 0) -> bool:
    """Whether ``name``'s value is the same on every machine: no host fact (DETECTED_CORES, ...) and no
    configuration function ($INT(), $RANDOM_CHOICE(), ...) in it or in the macros it refers to."""
    definition = ctx.config.source(name)
    if definition is None:
        return True
    if getattr(definition, "origin", "file") == "host" or depth > 16:
        return False
    raw = definition.raw or ""
    refs = _PLAIN_MACRO.findall(raw)
    if raw.count("$") != len(refs):
        return False
    return all(_machine_independent(ctx, ref, depth + 1) for ref in refs if ref.upper() != name.upper())


def _declared_total(ctx, knob: str) -> tuple | None:
    """(definition, amount) of NUM_CPUS or MEMORY when the user declares it the same for every machine."""
    from condorcfg.slots.knobs import Knobs

    definition = effective(ctx, knob)
    if not is_user(definition) or not _machine_independent(ctx, knob):
        return None
    text = value(ctx, knob)
    if text is None or not text.strip():
        return None
    amount = Knobs(ctx.config).to_integer(text, -1, knob)
    return (definition, amount) if amount >= 1 else None


def _over_declared_totals(ctx):
    """Slot types whose absolute CPUs (memory), times their slot counts, exceed a NUM_CPUS (MEMORY) that the
    configuration declares for every machine: over-subscribed whatever the machine."""
    from condorcfg.slots.knobs import Knobs
    from condorcfg.slots.shares import ShareError, parse_slot_type

    cpus = _declared_total(ctx, "NUM_CPUS")
    memory = _declared_total(ctx, "MEMORY")
    if memory is not None:
        reserved = effective(ctx, "RESERVED_MEMORY")
        if reserved is not None and not _machine_independent(ctx, "RESERVED_MEMORY"):
            memory = None
        else:
            held = Knobs(ctx.config).integer("RESERVED_MEMORY", 0)
            memory = (memory[0], max(memory[1] - held, 0), held) if held >= 0 else None
    if cpus is None and memory is None:
        return
    asked = {"cpus": [], "memory": []}  # resource -> (type, count, amount, absolute, definition)
    for name in _typed_counts(ctx):
        type_id = _integer(name.upper().rsplit("_", 1)[1])
        count = _integer(value(ctx, name) or "")
        share_name = f"SLOT_TYPE_{type_id}"
        definition = effective(ctx, share_name)
        if type_id is None or not count or count < 0 or not is_user(definition):
            continue
        if not (_machine_independent(ctx, name) and _machine_independent(ctx, share_name)):
            continue
        text = value(ctx, share_name) or ""
        try:
            request = parse_slot_type(text, type_id, cpus[1] if cpus else 1, memory[1] if memory else 1, {})
        except ShareError:
            continue  # SLT601 reports it (or it names a resource the machine provides)
        absolute = _absolute_items(text)
        if cpus is not None and request.cpus is not None and not request.fractional_cpus \
                and float(request.cpus).is_integer() and "unit:cpus" not in absolute:
            asked["cpus"].append((type_id, count, int(request.cpus), "cpus" in absolute, definition))
        if memory is not None and request.memory is not None and "unit:memory" not in absolute:
            asked["memory"].append((type_id, count, int(request.memory), "memory" in absolute, definition))
    for resource, declared, unit in (("cpus", cpus, "CPUs"), ("memory", memory, "MiB of memory")):
        parts = asked[resource]
        total = sum(count * amount for _t, count, amount, _a, _d in parts)
        if declared is None or total <= declared[1] or not any(a for _t, _c, _m, a, _d in parts):
            continue  # (only fractions: SLT602's percentage sum says it already)
        knob = "NUM_CPUS" if resource == "cpus" else "MEMORY"
        have = f"{knob} = {declared[1]}"
        if resource == "memory" and declared[2]:
            have = f"MEMORY - RESERVED_MEMORY = {declared[1]}"
        shown = " + ".join(f"{count} x {amount} (type {type_id})" for type_id, count, amount, _a, _d in parts)
        definition = parts[-1][4]
        yield ctx.finding(Text("the slot types ask for {total} {unit} ({shown}) but {have} ({where}), whatever the "
                               "machine: the startd cannot build every slot as written", total=total, unit=unit,
                               shown=shown, have=have, where=describe(declared[0])),
                          at=definition, span=ctx.value_span(definition))


def _absolute_items(text: str) -> set[str]:
    """The standard resources a share string gives as an absolute amount (`cpus=4`, `memory=8G`)."""
    from condorcfg.slots.shares import ShareError, parse_share_value, split_items, standard_resource

    found = set()
    try:
        for item in split_items(text):
            if "=" not in item:
                continue
            resource = standard_resource(item.split("=", 1)[0].strip())
            amount = item.split("=", 1)[1].split(":", 1)[0].strip()
            if resource is not None and re.search(r"[A-Za-z]", amount) and amount.lower() not in ("auto", "automatic"):
                found.add("unit:" + resource)  # (`8G`: a unit this model does not weigh; such a type is left out)
            elif resource is not None and amount:
                share = parse_share_value(amount, 0)[0]
                if share is not None and share > 0:
                    found.add(resource)
    except ShareError:
        pass
    return found


def _ranges(numbers: list[str]) -> str:
    """``2-4, 7``: consecutive slot numbers joined."""
    values = sorted({int(n) for n in numbers})
    parts, start = [], values[0]
    for previous, current in zip(values, values[1:] + [None]):
        if current != previous + 1:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = current
    return ", ".join(parts)


def _integer(text):
    stripped = str(text).strip(" \t\n\r\f\v")  # (C's blanks: Python's strip() also drops "\x1e")
    return int(stripped) if _DIGITS.fullmatch(stripped) else None


_DIGITS = re.compile(r"[+-]?[0-9]{1,18}")  # (longer: not a count any machine has; int() of 4,300+ digits raises)


# compiled once: these are tried against every name of the configuration
_NUM_SLOTS_TYPE = re.compile(r"NUM_SLOTS_TYPE_\d+", re.IGNORECASE)
_SLOT_TYPE = re.compile(r"SLOT_TYPE_(\d+)")
_SLOT_TYPE_KNOB = re.compile(r"SLOT_TYPE_(\d+)_(.+)")


@check
def num_slots_exceeds_cpus(ctx):
    definition = effective(ctx, "NUM_SLOTS")
    if not is_user(definition):
        return
    if any(_NUM_SLOTS_TYPE.fullmatch(n) and n.upper() != "NUM_SLOTS_TYPE_0"
           for n in ctx.names()):
        return  # NUM_SLOTS only counts type-0 slots when no slot types are defined
    slots = _integer(value(ctx, "NUM_SLOTS"))
    if ctx.machine_given:
        layout = _layout(ctx)
        cpus = layout.totals.cpus if layout is not None else None
    else:  # without a machine: only when the configuration pins NUM_CPUS itself
        cpus = _integer(value(ctx, "NUM_CPUS") or "") if is_user(effective(ctx, "NUM_CPUS")) else None
        cpus = cpus if cpus is not None and cpus >= 1 else None  # (below 1: the startd uses 1; not pinned then)
    if slots is not None and cpus and slots > cpus:
        yield ctx.finding(f"NUM_SLOTS = {slots} but this machine has {cpus} CPUs: NUM_SLOTS cannot create more "
                          f"slots than CPUs (the startd builds at most {cpus})", at=definition,
                          span=ctx.value_span(definition),
                          fix="to advertise more CPUs than the machine has, raise NUM_CPUS instead")


@check
def num_cpus_oversubscribed(ctx):
    definition = effective(ctx, "NUM_CPUS")
    if not is_user(definition):
        return
    layout = _layout(ctx)  # NUM_CPUS as the startd reads it: an integer, or an expression it evaluates
    if layout is None:
        return
    cpus, detected = layout.totals.cpus, layout.totals.detected_cpus
    if not detected or cpus <= detected:
        return
    written = " ".join((definition.raw or "").split())
    shown = f"NUM_CPUS = {written}" if written == str(cpus) else f"NUM_CPUS = {written} is {cpus} CPUs and"
    yield ctx.finding(f"{shown} advertises more CPUs than the machine has ({detected}): jobs will share cores",
                      at=definition, span=ctx.value_span(definition))


@check
def slot_type_zero(ctx):
    for name in ("SLOT_TYPE_0", "NUM_SLOTS_TYPE_0"):
        definition = effective(ctx, name)
        if is_user(definition):
            yield ctx.finding(f"{name} is not allowed: slot type 0 is the implicit type used by NUM_SLOTS, and "
                              f"the startd refuses to start when {name} is set", at=definition,
                              fix="number explicit slot types from 1 (SLOT_TYPE_1, NUM_SLOTS_TYPE_1)")


@check
def slot_type_incomplete(ctx):
    names = {n.upper(): n for n in ctx.names()}
    types = {}
    for upper in names:
        found = _SLOT_TYPE.fullmatch(upper)
        if found and found.group(1) != "0":
            types[found.group(1)] = upper
    for type_id, upper in sorted(types.items(), key=lambda item: (len(item[0]), item[0])):
        definition = ctx.config.source(upper)
        if not is_user(definition):
            continue
        count = ctx.config.source(f"NUM_SLOTS_TYPE_{type_id}")
        if count is None:
            yield ctx.finding(f"SLOT_TYPE_{type_id} is defined but NUM_SLOTS_TYPE_{type_id} is not: there is no "
                              f"default count, so the startd creates no slots of this type", at=definition,
                              fix=f"add NUM_SLOTS_TYPE_{type_id} = <count>")
    for upper, name in names.items():
        found = _SLOT_TYPE_KNOB.fullmatch(upper)
        if not found or found.group(1) == "0" or found.group(1) in types:
            continue
        if ctx.config.source(f"NUM_SLOTS_TYPE_{found.group(1)}") is not None:
            continue
        definition = ctx.config.source(name)
        if is_user(definition):
            yield ctx.finding(f"{name} configures slot type {found.group(1)}, which is not defined (no "
                              f"SLOT_TYPE_{found.group(1)} or NUM_SLOTS_TYPE_{found.group(1)}): it has no effect",
                              at=definition)


def _typed_counts(ctx) -> list[str]:
    """NUM_SLOTS_TYPE_<N> knobs (N >= 1) whose value is not 0: when there is one, the startd makes only typed
    slots and ignores NUM_SLOTS (slot-ads.md 3, countTypes)."""
    found = []
    for name in ctx.names():
        if _NUM_SLOTS_TYPE.fullmatch(name) and name.upper() != "NUM_SLOTS_TYPE_0":
            text = (value(ctx, name) or "").strip()
            if text and _integer(text) != 0:
                found.append(name)
    return sorted(found)


@check
def num_slots_ignored_with_slot_types(ctx):
    definition = effective(ctx, "NUM_SLOTS")
    if not is_user(definition) or not (definition.raw or "").strip():
        return
    typed = _typed_counts(ctx)
    if not typed:
        return
    asked = _integer(value(ctx, "NUM_SLOTS") or "")
    counts = [_integer(value(ctx, name) or "") for name in typed]
    if asked is None or None in counts or asked == sum(counts):
        return  # the typed slots are as many as NUM_SLOTS says (the common copy-paste): nothing is lost
    yield ctx.finding(f"NUM_SLOTS = {asked} is ignored: {', '.join(typed[:3])} {'is' if len(typed) == 1 else 'are'} "
                      f"set, and then the startd creates only the typed slots ({sum(counts)})", at=definition,
                      span=ctx.value_span(definition),
                      fix="remove NUM_SLOTS, or give its count to NUM_SLOTS_TYPE_<N>")


@check
def num_slots_partitionable_by_default(ctx):
    definition = effective(ctx, "NUM_SLOTS")
    if not is_user(definition) or _typed_counts(ctx):
        return
    count = _integer(value(ctx, "NUM_SLOTS") or "")
    if count is None or count < 2:
        return
    from condorcfg.slots.knobs import Knobs

    if not Knobs(ctx.config).boolean("SLOT_TYPE_0_PARTITIONABLE", True):
        return  # static type-0 slots asked for explicitly
    yield ctx.finding(f"NUM_SLOTS = {count} alone makes {count} partitionable slots, each owning 1/{count} of the "
                      f"machine (type-0 slots are partitionable by default since HTCondor 23.0), not {count} static "
                      f"slots", at=definition, span=ctx.value_span(definition),
                      fix="for static slots add SLOT_TYPE_0_PARTITIONABLE = false (or use FEATURE : StaticSlots); "
                          "for one partitionable slot remove NUM_SLOTS")


_MEMORY_ITEM = re.compile(r"(?i)(?<![A-Za-z0-9_])(mem|memory|ram)\s*=\s*(\d+)(?![\d.%/A-Za-z])")


@check
def memory_units(ctx):
    """MEMORY and a slot type's memory= are MiB: a small plain number was meant in GiB."""
    memory = effective(ctx, "MEMORY")
    if is_user(memory):
        amount = _integer(value(ctx, "MEMORY") or "")
        if amount is not None and 0 < amount < 1024:
            yield ctx.finding(f"MEMORY = {amount} is in MiB: the machine advertises {amount} MiB of memory; "
                              f"{amount} GiB is {amount * 1024}", at=memory, span=ctx.value_span(memory),
                              fix=f"MEMORY = {amount * 1024}")
    for name in ctx.names():
        if not _SLOT_TYPE.fullmatch(name.upper()):
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        for found in _MEMORY_ITEM.finditer(value(ctx, name) or ""):
            amount = _integer(found.group(2))
            if amount is None:
                continue
            if 0 < amount < 1024:
                yield ctx.finding(f"{found.group(0).strip()} in {name} is in MiB (a slot of {amount} MiB); {amount} GiB "
                                  f"is {found.group(1)}={amount}G", at=definition,
                                  span=word_span(ctx, definition, found.group(0).strip()),
                                  fix=f"write the unit: {found.group(1)}={amount}G")


def _partitionable_types(ctx) -> dict[int, bool]:
    """Slot type -> partitionable, for the types the startd creates (typed ones, else type 0)."""
    from condorcfg.slots.knobs import Knobs

    knobs = Knobs(ctx.config)
    typed = _typed_counts(ctx)
    if not typed:  # type 0: partitionable unless SLOT_TYPE_0_PARTITIONABLE is false
        return {0: knobs.boolean("SLOT_TYPE_0_PARTITIONABLE", True)}
    types = {}
    for name in typed:
        type_id = _integer(name.upper().rsplit("_", 1)[1])
        if type_id is None:
            continue
        types[type_id] = knobs.boolean(f"SLOT_TYPE_{type_id}_PARTITIONABLE", False)
    return types


@check
def consumption_policy_on_static_slot(ctx):
    from condorcfg.slots.knobs import Knobs

    knobs = Knobs(ctx.config)
    types = _partitionable_types(ctx)
    glob = effective(ctx, "CONSUMPTION_POLICY")
    if is_user(glob) and knobs.boolean("CONSUMPTION_POLICY", False) and not any(types.values()):
        static = ", ".join(str(t) for t in sorted(types))
        yield ctx.finding(f"CONSUMPTION_POLICY is true, but every slot type this machine gets ({static}) is static: "
                          f"consumption policies apply to partitionable slots only, so it has no effect",
                          at=glob, span=ctx.value_span(glob),
                          fix="make the slot type partitionable (SLOT_TYPE_<N>_PARTITIONABLE = true), or remove it")
    for type_id, partitionable in sorted(types.items()):
        name = f"SLOT_TYPE_{type_id}_CONSUMPTION_POLICY"
        definition = effective(ctx, name)
        if partitionable or not is_user(definition) or not knobs.boolean(name, False):
            continue
        yield ctx.finding(f"{name} is true, but slot type {type_id} is static: consumption policies apply to "
                          f"partitionable slots only, so it has no effect", at=definition,
                          span=ctx.value_span(definition),
                          fix=f"add SLOT_TYPE_{type_id}_PARTITIONABLE = true, or remove it")


_CUSTOM_RESOURCE = re.compile(r"MACHINE_RESOURCE_(?:INVENTORY_)?([A-Za-z][A-Za-z0-9_]*)", re.IGNORECASE)
_CONSUMPTION_POLICY = re.compile(r"(?:SLOT_TYPE_(\d+)_)?CONSUMPTION_POLICY", re.IGNORECASE)


def _true(text: str | None) -> bool:
    return (text or "").strip().lower() in ("true", "yes", "1", "t", "y")


@check
def custom_resource_without_consumption(ctx):
    """A partitionable slot with a consumption policy advertises a custom resource that has none: the manual
    (startd configuration, CONSUMPTION_<Resource>): "each resource advertised by the slot must have such a
    policy configured ... Custom resources have no default consumption policy"."""
    names = ctx.names()
    enabled = [(name, found.group(1)) for name in names if (found := _CONSUMPTION_POLICY.fullmatch(name))
               and _true(value(ctx, name))]
    if not enabled:
        return
    resources: dict[str, str] = {}
    for name in names:
        found = _CUSTOM_RESOURCE.fullmatch(name)
        if found and found.group(1).upper() != "NAMES" and (value(ctx, name) or "").strip():
            resources.setdefault(found.group(1).upper(), name)
    for policy, slot_type in enabled:
        definition = effective(ctx, policy)
        for resource, knob in sorted(resources.items()):
            candidates = [f"CONSUMPTION_{resource}"] + ([f"SLOT_TYPE_{slot_type}_CONSUMPTION_{resource}"]
                                                         if slot_type else [])
            if any((value(ctx, c) or "").strip() for c in candidates):
                continue
            yield ctx.finding(f"{policy} = True, but the custom resource {resource} ({knob}) has no "
                              f"{candidates[-1]}: custom resources have no default consumption policy, and each "
                              f"resource a partitionable slot advertises must have one",
                              at=definition, span=ctx.value_span(definition) if definition is not None else None)
