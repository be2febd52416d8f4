"""Explain a match between a job ad and a slot ad, clause by clause.

The offline counterpart of ``condor_q -better-analyze``: the slot's
Requirements (START, WithinResourceLimits, …) are evaluated with the slot as
MY and the job as TARGET, the job's Requirements the other way round.  Each
side is split into its top-level ``&&`` clauses; a clause that is just a
reference to another attribute of the same ad (``START``) is opened up the
same way, so the failing clause is the one a person wrote.
"""
from __future__ import annotations

from condorcfg.records import factory, record


MAX_EXPANSION_DEPTH = 8  # attribute references opened up inside one another, at most


@record
class Clause:
    side: str  # "slot" or "job": whose Requirements it comes from
    origin: str  # the attribute it was written in (Requirements, Start, ...)
    text: str
    value: object
    values: str = ""  # a comparison's two sides evaluated ("128 <= 64"), else the value printed
    where: str = ""  # the line the clause was written at (the knob's definition), when known

    @property
    def ok(self) -> bool:
        return _true(self.value)


@record
class MatchResult:
    slot_name: str
    slot_ok: bool  # the slot's Requirements accept the job
    job_ok: bool  # the job's Requirements accept the slot
    clauses: list[Clause] = factory(list)

    @property
    def matches(self) -> bool:
        return self.slot_ok and self.job_ok

    @property
    def failing(self) -> list[Clause]:
        return [c for c in self.clauses if not c.ok]


def _true(value) -> bool:
    return value is True or (isinstance(value, (int, float)) and not isinstance(value, bool) and value != 0)


def split_and(node) -> list:
    """The top-level ``&&`` operands of an expression (parentheses around it removed)."""
    from condorcfg.classad.ast import BinaryOp, Paren

    while isinstance(node, Paren):
        node = node.inner
    if isinstance(node, BinaryOp) and node.op == "&&":
        return split_and(node.left) + split_and(node.right)
    return [node]


def _clauses(ad, attr: str, depth: int = 0, seen=None) -> list[tuple[str, object]]:
    """(origin, node) pairs for the clauses of ``ad[attr]``, opening same-ad references."""
    from condorcfg.classad.ast import AttrRef, Paren

    seen = set() if seen is None else seen
    seen.add(attr.lower())
    result = []
    for part in split_and(ad[attr]):
        inner = part
        while isinstance(inner, Paren):
            inner = inner.inner
        if (isinstance(inner, AttrRef) and (inner.scope in (None, "MY")) and inner.name in ad
                and inner.name.lower() not in seen and depth < MAX_EXPANSION_DEPTH):
            origin = next(name for name in ad if name.lower() == inner.name.lower())
            result.extend(_clauses(ad, origin, depth + 1, seen))
        else:
            result.append((attr, part))
    return result


def _evaluate(node, my, target, now=None):
    from condorcfg.classad import ERROR, evaluate

    try:
        return evaluate(node, my=my, target=target, now=now)
    except (RecursionError, MemoryError, ValueError, TypeError, ArithmeticError):
        return ERROR  # pathological expressions end as an error value, not a traceback


def explain_match(slot_ad, job_ad, slot_name: str = "", config=None) -> MatchResult:
    """Evaluate both Requirements and every clause of each, paying from one ClassAd budget (the command's).
    With ``config`` (the configuration the slot ad came from) each slot clause says where it was written."""
    from condorcfg.classad.budget import command_budget

    with command_budget():
        return _explain_match(slot_ad, job_ad, slot_name, config)


_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "is", "isnt")
# Slot ad attributes and the knob each is written as (the rest have the knob's own name).
_KNOBS = {"start": "START", "isowner": "IS_OWNER", "rank": "RANK", "requirements": "START"}


def operand_values(node, my, target, now=None) -> str:
    """A comparison's two sides evaluated (``128 <= 64``), or the value of anything else, printed."""
    from condorcfg.classad import parse, unparse
    from condorcfg.classad.ast import BinaryOp, Literal, Paren

    if isinstance(node, str):
        try:
            node = parse(node)
        except ValueError:
            return ""
    while isinstance(node, Paren):
        node = node.inner

    def shown(value) -> str:
        return unparse(Literal(value)) if isinstance(value, (bool, int, float, str)) else unparse(value)

    if isinstance(node, BinaryOp) and node.op in _COMPARISONS:
        return f"{shown(_evaluate(node.left, my, target, now))} {node.op} {shown(_evaluate(node.right, my, target, now))}"
    return shown(_evaluate(node, my, target, now))


def knob_location(config, attribute: str, path=str) -> str:
    """Where the knob a slot ad attribute is written as was set: ``file:line:col``, "`use X` at ...",
    or "HTCondor's default"; ``path`` writes each file."""
    definition = config.source(_KNOBS.get(attribute.lower(), attribute))
    if definition is None or getattr(definition, "origin", None) in ("default", None):
        return "HTCondor's default"
    if definition.origin == "template":
        return f"`use {definition.template}` at {definition.use_location.shown(path)}"
    location = getattr(definition, "location", None)
    return location.shown(path) if location is not None else "the environment"


def _explain_match(slot_ad, job_ad, slot_name: str, config=None) -> MatchResult:
    from condorcfg.classad import unparse

    evaluate = _evaluate
    slot_ok = _true(evaluate(slot_ad["Requirements"], my=slot_ad, target=job_ad)) if "Requirements" in slot_ad else True
    job_ok = _true(evaluate(job_ad["Requirements"], my=job_ad, target=slot_ad)) if "Requirements" in job_ad else True
    result = MatchResult(slot_name, slot_ok, job_ok)
    for side, my, target in (("slot", slot_ad, job_ad), ("job", job_ad, slot_ad)):
        if "Requirements" not in my:
            continue
        for origin, node in _clauses(my, "Requirements"):
            where = knob_location(config, origin, _display) if config is not None and side == "slot" else \
                ("the job" if side == "job" else "")
            result.clauses.append(Clause(side, origin, unparse(node), evaluate(node, my=my, target=target),
                                         operand_values(node, my, target), where))
    return result


def _display(file: str) -> str:
    from condorcfg.report import ReportView

    return ReportView().display_path(file)


def format_match(result: MatchResult, slot_names: list[str] | None = None) -> str:
    """The verdict and every clause for a person; names and clauses are made printable
    (:func:`~condorcfg.textsafe.printable`: they come from the configuration and the job ad).
    ``slot_names``: the slots this result stands for (identical ones are printed once)."""
    from condorcfg.classad import unparse
    from condorcfg.textsafe import printable

    verdict = "matches" if result.matches else "does NOT match"
    names = slot_names or [result.slot_name]
    shown = names[0] if len(names) == 1 else (f"{', '.join(names[:3])}{' ...' if len(names) > 3 else ''} "
                                              f"({len(names)} slots alike)")
    lines = [f"{printable(shown)}: job {verdict}"]
    for side, ok in (("slot", result.slot_ok), ("job", result.job_ok)):
        whose = "slot Requirements (START ...) against the job" if side == "slot" else "job Requirements against the slot"
        lines.append(f"  {whose}: {'true' if ok else 'false'}")
        for clause in (c for c in result.clauses if c.side == side):
            mark = "ok  " if clause.ok else "FAIL"
            values = clause.values or unparse(clause.value)
            where = f"  ({clause.where})" if clause.where and clause.where != "the job" else ""
            lines.append(f"    [{mark}] {printable(clause.origin)}: {printable(clause.text)}  "
                         f"-> {printable(values)}{printable(where)}")
    return "\n".join(lines)
