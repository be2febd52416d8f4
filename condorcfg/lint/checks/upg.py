"""Upgrade checks (UPG): knobs HTCondor 25 no longer reads.

Obsolete names come from the knowledge base (``obsolete`` table of knobs.json) and from
HTCondor's own ``use UPGRADE : DISCARD`` list.  The families that have rules of their own
(HOSTALLOW_*, VIRTUAL_MACHINE_*, *_EXPRS, old JOB_ROUTER_* syntax) are left to those rules.
"""
from __future__ import annotations

import re

from condorcfg.lint.checks import check
from condorcfg.lint.checks._releases import knows, releases_knowing
from condorcfg.lint.checks._util import is_user, user_definitions

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
    targets = ctx.targets
    for name, definition in user_definitions(ctx):
        if _OWN_RULES.fullmatch(name):
            continue
        if targets and all(knows(release, name) for release in targets):
            continue  # every release the pool runs still reads it
        info = knowledge.obsolete(name)
        if info is not None and knowledge.builtin(name) is None:
            replacement = f"; use {info['replacement']} instead" if info.get("replacement") else ""
            state = "is deprecated" if info.get("status") == "deprecated" else "has no effect"
            yield ctx.finding(f"{name} {state} in HTCondor {knowledge.version}: {info['note']}{replacement}",
                              at=definition)
            continue
        if discard is None:
            discard = _discard_list()
        if name.upper() in discard:
            yield ctx.finding(f"{name} belongs to a component HTCondor no longer ships (it is on HTCondor's own "
                              f"UPGRADE:DISCARD list); the setting does nothing", at=definition)


_HOSTALLOW = re.compile(r"HOST(ALLOW|DENY)_.+", re.IGNORECASE)


def _hostallow_lines(ctx):
    """(name, definition, modern name, modern is set, lost) for each HOSTALLOW_*/HOSTDENY_* line of the user
    that HTCondor ignores; ``lost``: the line meant to restrict a level (or deny hosts) that nothing restricts
    now, whoever uses the line as a macro (ALLOW_WRITE = $(HOSTALLOW_ADMINISTRATOR) does not restrict
    ADMINISTRATOR).  A line that no such level loses is yielded (as dead) only when no knob HTCondor reads
    uses it as a macro (ALLOW_WRITE = $(HOSTALLOW_WRITE); uses by other HOSTALLOW_* lines do not count)."""
    from condorcfg.lint.checks._util import macro_references

    candidates = [name for name in ctx.names() if _HOSTALLOW.fullmatch(name)]
    if not candidates:
        return  # the usual case: no need to scan every value for references
    referenced_by: dict[str, set[str]] = {}
    for name in ctx.names():
        for definition in ctx.config.history(name):
            for text in (definition.raw or "", getattr(definition, "text", "") or ""):
                for ref in macro_references(text):
                    referenced_by.setdefault(ref.name.upper(), set()).add(name.upper())
    for name in candidates:
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        modern = name.upper().replace("HOST", "", 1)
        readers = {r for r in referenced_by.get(name.upper(), set()) if not _HOSTALLOW.fullmatch(r.split(".")[-1])}
        has_modern = ctx.config.source(modern) is not None
        allows_all = name.upper().startswith("HOSTALLOW") and (definition.raw or "").strip() == "*"
        lost = not has_modern and not allows_all
        if readers and not lost:
            continue  # an ordinary macro some knob HTCondor reads takes its value: the line is not dead
        yield name, definition, modern, has_modern, lost


@check
def hostallow_knob(ctx):
    for name, definition, modern, _has_modern, lost in _hostallow_lines(ctx) or ():
        if not lost:
            continue
        what = "open to anyone instead" if name.upper().startswith("HOSTALLOW") else "not denied to those hosts"
        yield ctx.finding(f"{name} is ignored: HTCondor no longer reads HOSTALLOW_*/HOSTDENY_* knobs, and {modern} "
                          f"is not set, so that level is {what}", at=definition, fix=f"rename it to {modern}")


@check
def hostallow_ignored(ctx):
    for name, definition, modern, has_modern, lost in _hostallow_lines(ctx) or ():
        if lost:
            continue
        why = f"{modern} is set" if has_modern else "it allows everyone, which changes nothing"
        yield ctx.finding(f"{name} is ignored: HTCondor no longer reads HOSTALLOW_*/HOSTDENY_* knobs ({why}), so "
                          f"this line is dead", at=definition, fix=f"delete it, or merge it into {modern}")


@check
def knob_unknown_in_target(ctx):
    targets = ctx.targets
    if not targets:
        return
    for name, definition in user_definitions(ctx):
        if getattr(definition, "origin", "file") != "file":
            continue
        having = releases_knowing(name)
        if not having or ctx.knowledge.obsolete(name.split(".")[-1]) is not None:
            continue  # no release has it: KNB303's business; a removed feature's knob: UPG904 says more
        lacking = [release for release in targets if release not in having]
        if not lacking:
            continue
        newer = [r for r in having if all(_older(t, r) for t in lacking)]
        older = [r for r in having if all(_older(r, t) for t in lacking)]
        why = (f"of the releases condorcfg knows, {newer[0]} and later have it" if newer and len(newer) == len(having)
               else f"of the releases condorcfg knows, {older[-1]} and earlier have it"
               if older and len(older) == len(having) else f"the releases that have it: {', '.join(having)}")
        shown = " and ".join(f"HTCondor {t}" for t in lacking)
        yield ctx.finding("{knob} is not a knob {releases} {verb} ({why}), so there it has no effect",
                          knob=name, releases=shown, verb="knows" if len(lacking) == 1 else "know", why=why,
                          at=definition)


def _older(one: str, other: str) -> bool:
    from condorcfg import releases

    known = releases.known()
    return known.index(one) < known.index(other)


@check
def refused_by_target(ctx):
    for release in ctx.targets:
        config, problem = ctx.read_as(release)
        if problem is None:
            continue
        yield ctx.finding("HTCondor {release} refuses this configuration: {reason}", release=release,
                          reason=problem.text, at=problem.location, notes=list(problem.notes))
