"""Upgrade checks (UPG): knobs HTCondor 25 no longer reads.

Obsolete names come from the knowledge base (``obsolete`` table of knobs.json) and from
HTCondor's own ``use UPGRADE : DISCARD`` list.  The families that have rules of their own
(HOSTALLOW_*, VIRTUAL_MACHINE_*, *_EXPRS, old JOB_ROUTER_* syntax) are left to those rules.
"""
from __future__ import annotations

import re

from condorcfg.lint import authorization
from condorcfg.lint.checks import check
from condorcfg.lint.checks._releases import knows, releases_knowing
from condorcfg.lint.checks._util import is_used, is_user, user_definitions, value

# Covered by the declarative rules UPG901-UPG903 and RTR101.
_OWN_RULES = re.compile(r"HOSTALLOW_.+|HOSTDENY_.+|VIRTUAL_MACHINE_TYPE_\d+|NUM_VIRTUAL_MACHINES(_TYPE_\d+)?|"
                        r"VIRTUAL_MACHINES_CONNECTED_TO_\w+|(?!(\w+\.)?STARTD_VM_EXPRS$).*_EXPRS|"
                        r"JOB_ROUTER_(DEFAULTS|ENTRIES\w*)", re.IGNORECASE)
# Lists no release condorcfg knows reads (UPG903's *_EXPRS are still read): until 8.8 the startd read them only
# with ALLOW_VM_CRUFT; commit 962fd3d2e0 (8.9.0, "Remove ALLOW_VM_CRUFT") dropped them.
_NOT_READ = {"STARTD_VM_EXPRS": "STARTD_SLOT_ATTRS", "STARTD_VM_ATTRS": "STARTD_SLOT_ATTRS"}


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
        base = name.split(".")[-1].upper()
        if base in _NOT_READ:
            yield ctx.finding(f"{name} has no effect: HTCondor 9.0 and later do not read it (8.8 read it only with "
                              f"ALLOW_VM_CRUFT); use {_NOT_READ[base]} instead", at=definition)
            continue
        info = knowledge.obsolete(name)
        listed = authorization.parse_knob(name, ctx.primary_release)
        if info is not None and listed is not None and listed.kind in ("ALLOW", "DENY") and listed.level == "WRITE" \
                and listed.daemon:
            # ALLOW_WRITE_STARTD is still the startd's WRITE list (SecMan::getSecSetting); what 9.0 changed is
            # that DAEMON no longer falls back to it (HTCondor's condor_check_config calls it obsolete for that)
            daemon = listed.daemon
            yield ctx.finding(f"{name} is still the {listed.kind} list of WRITE at the {daemon.lower()}, but since "
                              f"HTCondor {authorization.DEFAULT_DENY_SINCE} the {daemon.lower()}'s DAEMON level (and "
                              f"through it ADVERTISE_*) no longer falls back to it as in 8.8 (HTCondor's "
                              f"condor_check_config calls it obsolete): if it was meant for daemons, set "
                              f"{listed.kind}_DAEMON_{daemon} or {listed.kind}_DAEMON", at=definition)
            continue
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


class _Ignored:
    """One HOSTALLOW_*/HOSTDENY_* line of the user, which HTCondor (9.0 and later) ignores, and what that costs."""

    def __init__(self, name, definition, lost: bool, message: str, fix: str):
        self.name, self.definition = name, definition
        self.lost = lost          # True: whom the line granted (refused) access is now refused (granted): UPG901
        self.message, self.fix = message, fix


def _first_set(ctx, names) -> str | None:
    """The first of ``names`` with a non-empty value (HTCondor's param() skips empty ones), as it is spelled."""
    for name in names:
        if (value(ctx, name) or "").strip():
            return name
    return None


def _none_set(names: list[str], daemon: str | None) -> str:
    shown = [n for n in names if not daemon or not n.startswith(f"{daemon}.")]
    forms = f" (nor {daemon}.ALLOW_...)" if daemon else ""
    if len(shown) == 2:
        return f"neither {shown[0]} nor {shown[1]}{forms} is set"
    return f"none of {', '.join(shown)}{forms} is set"


_IGNORED = f"(HTCondor {authorization.DEFAULT_DENY_SINCE} and later read only ALLOW_*/DENY_*)"


def _judge(ctx, name, definition) -> _Ignored:
    """What ignoring the line ``name`` changes (the facts: condorcfg.lint.authorization)."""
    release = ctx.primary_release
    parsed = authorization.parse_knob(name, release)
    kind = parsed.kind[len("HOST"):]  # ALLOW or DENY
    text = (value(ctx, name) or "").strip()
    head = f"{name} is ignored {_IGNORED}"
    if parsed.level is None:
        word = parsed.rest.split("_")[0]
        why = (f"OWNER is no permission level since HTCondor {authorization.OWNER_REMOVED_IN} (its commands need "
               f"ADMINISTRATOR)" if word == "OWNER" else f"{parsed.rest} names no permission level")
        return _Ignored(name, definition, False, f"{head}, and {why}: deleting it changes nothing", "delete it")
    level, daemon = parsed.level, parsed.daemon
    modern = re.sub(r"(?i)HOST(ALLOW|DENY)_", r"\1_", name, count=1)
    what = f"{modern} (the {level} list of the {daemon.lower()})" if daemon else modern
    if not text:
        return _Ignored(name, definition, False, f"{head} and empty (no release read an empty list): deleting it "
                        f"changes nothing", "delete it")
    who = f"the {daemon.lower()}" if daemon else "every daemon"
    legacy = (value(ctx, "LEGACY_ALLOW_SEMANTICS") or "").strip().lower() in ("true", "yes", "1", "t", "y")
    allow_names = authorization.lookup_knobs(level, daemon, "ALLOW", release, legacy)
    allow = _first_set(ctx, allow_names)
    implied = level in ("READ", "WRITE")  # (granted through the levels that imply them: IpVerify::Verify)
    if kind == "DENY":
        deny_names = authorization.lookup_knobs(level, daemon, "DENY", release, legacy)
        deny = _first_set(ctx, deny_names)
        if deny is not None:
            return _Ignored(name, definition, False, f"{head}: {who} refuses {level} to whom {deny} names, so "
                            f"deleting the line changes nothing (whoever only it names is not refused)",
                            f"delete it, or merge it into {deny}")
        if allow is None and not implied:
            return _Ignored(name, definition, False, f"{head}: {level} is refused to everyone anyway "
                            f"({_none_set(allow_names, daemon)}), so deleting the line changes nothing", "delete it")
        grants = (f"whatever {allow} grants them" if allow is not None else
                  f"{level} whenever a level implying it grants it "
                  f"({authorization.describe_levels(authorization.granted_through(level, release))})")
        return _Ignored(name, definition, True, f"{head}, and {_none_set(deny_names, daemon)}: the hosts and users "
                        f"this line refuses {level} now get {grants}", f"rename it to {what}")
    if allow is not None:
        return _Ignored(name, definition, False, f"{head}: {who} takes {level} access from {allow}, so deleting "
                        f"the line changes nothing (whoever it names has {level} only if {allow} grants it)",
                        f"delete it, or merge it into {allow}")
    everyone = text in ("*", "*/*")
    before = "allowed to everyone" if everyone else "granted to the hosts and users it names"
    at = f" by the {daemon.lower()}" if daemon else ""
    if implied:
        through = authorization.describe_levels(f"ALLOW_{other}" for other in authorization.granted_through(level,
                                                                                                             release))
        now = (f"is now granted{at} only to the identities {through} grant: for everyone else "
               f"{authorization.refused(level, daemon)}")
    else:
        now = f"is now refused to everyone{at}: {authorization.refused(level, daemon)}"
    message = f"{head}, and {_none_set(allow_names, daemon)}: {level} access, which this line {before}, {now}"
    return _Ignored(name, definition, True, message, f"rename it to {what}")


def _hostallow_lines(ctx):
    """An :class:`_Ignored` for each HOSTALLOW_*/HOSTDENY_* line of the user that HTCondor ignores and that is
    lost (UPG901) or dead (UPG905).  A line that loses nothing is yielded (as dead) only when no knob HTCondor
    reads uses it as a macro (ALLOW_WRITE = $(HOSTALLOW_WRITE); uses by other HOSTALLOW_* lines do not count);
    a lost one is yielded whoever uses it (ALLOW_WRITE = $(HOSTALLOW_ADMINISTRATOR) does not grant
    ADMINISTRATOR)."""
    from condorcfg.lint.checks._util import macro_references

    candidates = [name for name in ctx.names() if _HOSTALLOW.fullmatch(name.split(".")[-1])]
    if not candidates:
        return  # the usual case: no need to scan every value for references
    cached = ctx.shared.get("upg_hostallow")
    if cached is not None:
        yield from cached
        return
    found = ctx.shared["upg_hostallow"] = []
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
        readers = {r for r in referenced_by.get(name.upper(), set()) if not _HOSTALLOW.fullmatch(r.split(".")[-1])}
        judged = _judge(ctx, name, definition)
        if readers and not judged.lost:
            continue  # an ordinary macro some knob HTCondor reads takes its value: the line is not dead
        found.append(judged)
    yield from found


@check
def hostallow_knob(ctx):
    for line in _hostallow_lines(ctx) or ():
        if line.lost:
            yield ctx.finding(line.message, at=line.definition, fix=line.fix)


@check
def hostallow_ignored(ctx):
    for line in _hostallow_lines(ctx) or ():
        if not line.lost:
            yield ctx.finding(line.message, at=line.definition, fix=line.fix)


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
        if not lacking or is_used(ctx, name):
            continue  # (used: a macro other lines use, CPUIdle in START: every release reads it through them)
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
