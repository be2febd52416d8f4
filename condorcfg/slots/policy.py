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


def evaluate_local_policy(ad, refs: dict | None = None) -> LocalPolicy:
    """Evaluate IsOwner (in the Owner state) and Start (in the predicted state) against ``ad`` alone.

    ``refs``: a dict kept across the slots of a machine (see :func:`undefined_references`).
    """
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
    undefined, job_refs = undefined_references(ad, ["IsOwner", "Start"], refs)
    return LocalPolicy(is_owner, start, state, undefined, job_refs)


def undefined_references(ad, roots: list[str], refs: dict | None = None) -> tuple[list[str], list[str]]:
    """(names not in the ad, TARGET names) reached from ``roots`` through the ad's own attributes.

    The slots of a machine share their expression trees: ``refs`` (a dict kept across calls) holds the
    distinct references of each tree, so a tree is walked once, not once per slot.  The references looked
    at are paid for from the command's ClassAd budget like an evaluation (a START naming 20,000 attributes
    costs 20,000 units per slot); once it is spent, the lists are left as far as they got.
    """
    from condorcfg.classad.budget import BudgetSpent, current

    refs = {} if refs is None else refs
    budget = current()
    undefined: dict[str, None] = {}  # (dicts as ordered sets: membership stays O(1) on long lists)
    job: dict[str, None] = {}
    seen: set[str] = set()
    pending = [r for r in roots if r in ad]  # breadth first, in the order the references are written
    try:
        for attr in pending:  # (grows while it is read)
            if attr.lower() in seen:
                continue
            seen.add(attr.lower())
            found = _distinct_refs(ad[attr], refs)
            if budget is not None:
                budget.charge_work(len(found))
            for scope, name in found:
                if scope in ("TARGET", "OTHER"):
                    job.setdefault(name)
                elif name in ad:
                    pending.append(name)
                elif name.lower() not in RUNTIME_ATTRS:
                    undefined.setdefault(name)
    except BudgetSpent:
        pass  # build_slot_ads reports the spent budget once for the machine
    return list(undefined), list(job)


def _distinct_refs(node, refs: dict) -> list[tuple[str, str]]:
    """(upper-case scope, name) of every reference in ``node``, first occurrence first, remembered in ``refs``
    by the tree's identity (the tree is kept with it, so its id is not reused)."""
    known = refs.get(id(node))
    if known is None or known[0] is not node:
        distinct = dict.fromkeys(((ref.scope or "").upper(), ref.name) for ref in attribute_refs(node))
        known = refs[id(node)] = (node, list(distinct))
    return known[1]


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
