"""Upgrade checks (UPG): knobs HTCondor 25 no longer reads.

Obsolete names come from the knowledge base (``obsolete`` table of knobs.json) and from
HTCondor's own ``use UPGRADE : DISCARD`` list.  The families that have rules of their own
(HOSTALLOW_*, VIRTUAL_MACHINE_*, *_EXPRS, old JOB_ROUTER_* syntax) are left to those rules.
"""
from __future__ import annotations

import re

from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import is_user, name_rule, user_definitions

# Covered by the declarative rules UPG901-UPG903 and RTR101.
_OWN_RULES = re.compile(r"HOSTALLOW_.+|HOSTDENY_.+|VIRTUAL_MACHINE_TYPE_\d+|NUM_VIRTUAL_MACHINES(_TYPE_\d+)?|"
                        r"VIRTUAL_MACHINES_CONNECTED_TO_\w+|.*_EXPRS|JOB_ROUTER_(DEFAULTS|ENTRIES\w*)",
                        re.IGNORECASE)


def _discard_list() -> set[str]:
    try:
        from condorcfg.config.templates import find_template
    except ImportError:
        return set()
    template = find_template("UPGRADE", "DISCARD")
    if template is None:
        return set()
    return {line.strip().upper() for line in template.body.splitlines()
            if line.strip() and not line.strip().startswith("#")}


@check
def obsolete_knob(ctx):
    knowledge = ctx.knowledge
    discard = None
    for name, definition in user_definitions(ctx):
        if _OWN_RULES.fullmatch(name):
            continue
        info = knowledge.obsolete(name)
        if info is not None and knowledge.builtin(name) is None:
            replacement = f"; use {info['replacement']} instead" if info.get("replacement") else ""
            yield ctx.finding(f"{name} has no effect in HTCondor {knowledge.version}: {info['note']}{replacement}",
                              at=definition)
            continue
        if discard is None:
            discard = _discard_list()
        if name.upper() in discard:
            yield ctx.finding(f"{name} belongs to a component HTCondor no longer ships (it is on HTCondor's own "
                              f"UPGRADE:DISCARD list); the setting does nothing", at=definition)


_HOSTALLOW = re.compile(r"HOST(ALLOW|DENY)_.+", re.IGNORECASE)


@check
def hostallow_knob(ctx):
    from condorcfg.lint.checks._util import macro_references

    candidates = [name for name in ctx.names() if _HOSTALLOW.fullmatch(name)]
    if not candidates:
        return  # the usual case: no need to scan every value for references
    referenced = set()
    for name in ctx.names():
        for definition in ctx.config.history(name):
            referenced.update(r.name.upper() for r in macro_references(definition.raw or ""))
            referenced.update(r.name.upper() for r in macro_references(getattr(definition, "text", "") or ""))
    for name in candidates:
        definition = ctx.config.source(name)
        if not is_user(definition) or name.upper() in referenced:
            continue  # used as an ordinary macro, e.g. ALLOW_WRITE = $(HOSTALLOW_WRITE)
        modern = name.upper().replace("HOST", "", 1)
        has_modern = ctx.config.source(modern) is not None
        consequence = (f"{modern} is set, so this line is dead" if has_modern else
                       f"and {modern} is not set, so that level is open to anyone instead")
        yield ctx.finding(f"{name} is ignored: HTCondor no longer reads HOSTALLOW_*/HOSTDENY_* knobs, "
                          f"{consequence}", at=definition, fix=f"rename it to {modern}",
                          severity="warning" if has_modern else None)


@check
def virtual_machine_knob(ctx):
    yield from name_rule(ctx, r"VIRTUAL_MACHINE_TYPE_\d+|NUM_VIRTUAL_MACHINES(_TYPE_\d+)?|"
                               r"VIRTUAL_MACHINES_CONNECTED_TO_(CONSOLE|KEYBOARD)",
                          "{knob} is ignored: slot layouts are configured with SLOT_TYPE_<N>, NUM_SLOTS_TYPE_<N> "
                          "and NUM_SLOTS")


@check
def exprs_knob(ctx):
    yield from name_rule(ctx, r"(\w+_)?(STARTD|SCHEDD|MASTER|COLLECTOR|NEGOTIATOR|SUBMIT|STARTD_JOB|STARTD_SLOT|"
                               r"STARTD_VM)_EXPRS",
                          "{knob} is deprecated: use the matching *_ATTRS knob (append to it)")
