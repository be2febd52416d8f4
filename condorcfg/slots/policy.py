"""Local policy: what the startd decides about a slot before any job shows up (spec slot-ads.md §10).

IsOwner and Start are evaluated with the slot ad as MY and no TARGET, the
way the startd polls an unclaimed slot.  The startd starts a slot in the
Owner state and leaves it for Unclaimed when IsOwner is false; an IsOwner
that is neither boolean nor number makes the startd abort.  References that
stay undefined (no such attribute in the ad, or TARGET.x with no job) are
collected, following attribute references through the ad.
"""
from __future__ import annotations

from condorcfg.classad import ERROR, evaluate
from condorcfg.classad.ast import AttrRef, Literal, Node, fields_of
from condorcfg.records import factory, record

# measured at run time; condorcfg does not simulate them, so they are not "unknown"
RUNTIME_ATTRS = {
    "enteredcurrentstate", "enteredcurrentactivity", "mycurrenttime", "lastheardfrom", "jobstart",
    "cpubusytime", "cpubusyvalue", "lastperiodiccheckpoint", "machinelastmatchtime", "remoteuser",
    "remoteowner", "clientmachine", "jobid", "globaljobid", "currentrank", "retirementtimeremaining",
    "imagesize", "jobuniverse", "memoryusage", "diskusage", "residentsetsize", "proportionalsetsizekb",
    "cpususage", "executablesize", "niceuser", "stdoutmtime", "stderrmtime", "scratchdirfilecount",
    "mips", "kflops", "claimendtime", "totaljobruntime", "draining", "numdynamicslotstime",
}


@record
class LocalPolicy:
    """IS_OWNER and START evaluated against the slot ad alone, as the startd does with no job."""

    is_owner: object
    start: object
    state: str  # predicted initial state: "Owner" or "Unclaimed"
    undefined: list[str] = factory(list)  # names neither the ad nor a job defines
    job_references: list[str] = factory(list)  # TARGET.x: undefined without a job


def _is_decided(value) -> bool:
    return isinstance(value, (bool, int, float))


def evaluate_local_policy(ad) -> LocalPolicy:
    """Evaluate IsOwner (in the Owner state) and Start (in the predicted state) against ``ad`` alone."""
    def run(attr, default):
        if attr not in ad:
            return default
        try:
            return evaluate(ad[attr], my=ad)
        except (RecursionError, MemoryError, ValueError, TypeError, ArithmeticError):
            return ERROR  # pathological expressions end as an error value, not a traceback

    ad["State"] = Literal("Owner")
    is_owner = run("IsOwner", False)
    owner = _is_decided(is_owner) and bool(is_owner)
    state = "Owner" if owner else "Unclaimed"
    ad["State"] = Literal(state)
    start = run("Start", True)
    undefined, job_refs = undefined_references(ad, ["IsOwner", "Start"])
    return LocalPolicy(is_owner, start, state, undefined, job_refs)


def undefined_references(ad, roots: list[str]) -> tuple[list[str], list[str]]:
    """(names not in the ad, TARGET names) reached from ``roots`` through the ad's own attributes."""
    undefined: list[str] = []
    job: list[str] = []
    seen: set[str] = set()
    pending = [r for r in roots if r in ad]
    while pending:
        attr = pending.pop(0)
        if attr.lower() in seen:
            continue
        seen.add(attr.lower())
        for ref in attribute_refs(ad[attr]):
            scope = (ref.scope or "").upper()
            name = ref.name
            if scope in ("TARGET", "OTHER"):
                if name not in job:
                    job.append(name)
            elif name in ad:
                pending.append(name)
            elif name.lower() not in RUNTIME_ATTRS and name not in undefined:
                undefined.append(name)
    return undefined, job


def attribute_refs(node) -> list:
    """Every AttrRef in an expression tree, in source order (any node type, generically)."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, AttrRef):
            found.append(item)
        elif isinstance(item, Node):
            stack.extend(reversed(fields_of(item)))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return found
