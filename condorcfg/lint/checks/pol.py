"""Startd policy checks (POL): expressions evaluated where no job ad exists, constant policies.

IS_OWNER is evaluated by the startd with the slot ad alone (slot-ads.md section 10): a job
attribute there is UNDEFINED, and an IsOwner that is neither boolean nor number makes the
startd abort.  The checks follow expressions through macros and through the slot-ad
attributes they name (see :mod:`condorcfg.lint.checks._trace`).
"""
from __future__ import annotations

import re

from condorcfg.classad.analysis import UNKNOWN, constant_value as fold
from condorcfg.diagnostics import Text
from condorcfg.lint.checks import check
from condorcfg.lint.checks._outcomes import ANY_JOB, DEFINED, NO_JOB, E, T, U, Outcomes
from condorcfg.lint.checks._trace import Reach, full_chain, responsible, route, slot_attribute_knobs, span_for, \
    trace_attributes
from condorcfg.lint.checks.mac import finding_causes
from condorcfg.lint.checks._util import empty_macros, describe, effective, empty_macro_notes, expanded, exported_names, is_user, parsed, walk, \
    strip_parens
from condorcfg.lint.checks._util import value as config_value


def _job_only(ctx, reach, exported) -> bool:
    if reach.scope == "TARGET":
        return True
    if reach.scope not in (None, "MY") or reach.attribute.upper() in exported:
        return False
    return ctx.knowledge.is_job_only_attribute(reach.attribute)


def _owner_outcomes(ctx, node, exported) -> tuple[frozenset, frozenset, frozenset]:
    """What IsOwner can be without a job, with whatever job comes, and with a job defining what it reads."""
    attribute_knobs = slot_attribute_knobs(ctx, exported)

    def resolve(name):
        knob = attribute_knobs.get(name.upper())
        target = ctx.config.source(knob) if knob else None
        return parsed(ctx, target)[0] if target is not None else None

    def is_job_attribute(scope, name):
        return _job_only(ctx, Reach(name, scope, 0, 0, []), exported)

    return tuple(Outcomes(resolve, is_job_attribute, job).outcomes(node) for job in (NO_JOB, ANY_JOB, DEFINED))


@check
def job_attr_in_is_owner(ctx):
    definition = effective(ctx, "IS_OWNER")
    if definition is None:
        return
    exported = exported_names(ctx)
    node, _err, _text = parsed(ctx, definition)
    if node is None:
        return
    without_job, any_job, defining_job = _owner_outcomes(ctx, node, exported)
    # What the job attributes break (three-valued logic: `False && TARGET.X` is still False, so a job clause
    # AND-ed into START leaves the Owner state working): IsOwner undefined or error without a job where a job
    # defining the attributes makes it a value (the startd aborts), or never true without a job although it
    # can be with one (the Owner state is never entered).
    aborts = bool((without_job & {U, E}) - defining_job)
    never_owner = T in any_job and T not in without_job
    reported = set()
    for reach in trace_attributes(ctx, definition, slot_attribute_knobs(ctx, exported)):
        if not _job_only(ctx, reach, exported):
            continue
        # A job attribute IS_OWNER itself reads (as written, or through its $(MACROS)) is a mistake whatever the
        # operators: without a job it is always undefined, so the clause never depends on a job. Only one that
        # comes through START (IS_OWNER = (START =?= False)) is judged by what it does to the Owner state.
        direct = len(reach.path) == 1
        if not (aborts or never_owner or direct):
            continue
        chain = full_chain(ctx, reach)
        blame = responsible(chain)
        if blame is None:
            continue  # only HTCondor's own templates/defaults are involved
        shown = f"TARGET.{reach.attribute}" if reach.scope == "TARGET" else reach.attribute
        key = (id(blame), shown.upper())
        if key in reported:
            continue
        reported.add(key)
        through = route(chain)
        if aborts:
            message = (f"IS_OWNER refers to job attribute {shown}{through}; IS_OWNER is evaluated without a "
                       f"job, where {shown} is undefined, and then IsOwner is undefined: the startd aborts "
                       f"(\"Invalid evaluation of IsOwner\")")
        elif direct and not never_owner:
            message = Text("IS_OWNER = `{raw}` ({where}) refers to job attribute {attribute}{through}, but IS_OWNER "
                           "is evaluated without a job, where {attribute} is always undefined: a clause on it never "
                           "sees a job's value, so it cannot tell jobs apart (job conditions belong in START)",
                           raw=(definition.raw or "").strip(), where=describe(definition), attribute=shown,
                           through=through)
        else:
            message = Text("IS_OWNER = `{raw}` ({where}) depends on job attribute {attribute}{through}, which is "
                           "undefined where IS_OWNER is evaluated (no job); there it can never be true, so the slot "
                           "never enters the Owner state (a job clause that is OR-ed or negated makes START "
                           "undefined, not false)", raw=(definition.raw or "").strip(), where=describe(definition),
                           attribute=shown, through=through)
        notes = [Text("{name} is set at {where}", name=d.name, where=describe(d)) for d in chain if d is not blame]
        yield ctx.finding(message, at=blame, span=span_for(ctx, blame, chain, reach.attribute), notes=notes)


# What a constant policy means for the pool.
_USELESS = {
    "START": (False, "START is always false: no job can ever start on this machine"),
    "IS_OWNER": (True, "IS_OWNER is always true: every slot stays in the Owner state and never runs jobs"),
    "PREEMPT": (True, "PREEMPT is always true: every job is preempted as soon as its retirement time ends"),
}


def _startd_configured(ctx) -> bool:
    """False when a DAEMON_LIST someone wrote has no STARTD: startd policy is then irrelevant."""
    definition = effective(ctx, "DAEMON_LIST")
    if definition is None:
        return True  # a fragment: the daemon list is set elsewhere
    value = (config_value(ctx, "DAEMON_LIST") or "").upper().replace(",", " ").split()
    return "STARTD" in value


@check
def constant_policy(ctx):
    if not _startd_configured(ctx):
        return
    for knob, (bad, meaning) in _USELESS.items():
        definition = effective(ctx, knob)
        if definition is None or not is_user(definition):
            continue
        if expanded(ctx, definition) is None:
            continue  # the expansion itself fails: MAC202 (a cycle) or CFG006 (a limit) reports it
        node, err, text = parsed(ctx, definition)
        if node is None:
            continue  # empty (POL509) or not an expression (EXP403)
        value = fold(node)
        if value is UNKNOWN:
            continue
        if knob == "START" and _is_falsy(value):
            shown = "undefined" if _is_undefined(value) else str(value)
            yield ctx.finding(f"{meaning} (it folds to {shown})", at=definition, span=ctx.value_span(definition))
        elif value is bad:
            yield ctx.finding(meaning, at=definition, span=ctx.value_span(definition))


@check
def empty_policy(ctx):
    if not _startd_configured(ctx):
        return
    for knob in _USELESS:
        definition = effective(ctx, knob)
        if definition is None or not is_user(definition) or not (definition.raw or "").strip():
            continue
        text = expanded(ctx, definition)
        if text is None or text.strip():
            continue  # the expansion fails (MAC202) or gives an expression (the other rules)
        yield ctx.finding(f"{knob} expands to nothing (`{definition.raw.strip()}`): an empty {knob} is undefined, "
                          f"so the startd treats it as false and the policy written here never applies",
                          at=definition, span=ctx.value_span(definition), notes=empty_macro_notes(ctx, definition),
                          causes=finding_causes(ctx, frozenset(n.upper() for n in empty_macros(ctx, definition))))


def _is_undefined(value) -> bool:
    from condorcfg.classad import UNDEFINED

    return value is UNDEFINED


def _is_falsy(value) -> bool:
    from condorcfg.classad import ERROR, UNDEFINED

    if value is UNDEFINED or value is ERROR:
        return True
    if isinstance(value, bool):
        return value is False
    if isinstance(value, (int, float)):
        return value == 0
    return True  # a string or list is not a boolean: the startd treats it as false


def _constant(ctx, knob):
    """(definition, folded value) for a user-written policy knob that is a constant, else None."""
    definition = effective(ctx, knob)
    if definition is None or not is_user(definition):
        return None
    node, _err, _text = parsed(ctx, definition)
    if node is None:
        return None
    value = fold(node)
    return None if value is UNKNOWN else (definition, value)


@check
def want_suspend_always(ctx):
    found = _constant(ctx, "WANT_SUSPEND")
    if found and found[1] is True:
        never = _constant(ctx, "PREEMPT")
        if effective(ctx, "PREEMPT") is None or (never and never[1] is False):
            return  # PREEMPT never fires anyway: not evaluating it changes nothing
        preempt = effective(ctx, "PREEMPT")
        notes = [Text("PREEMPT is set at {where} and will never be evaluated", where=describe(preempt))] \
            if preempt else []
        yield ctx.finding("WANT_SUSPEND is always true, so the startd suspends instead of preempting and never "
                          "evaluates PREEMPT", at=found[0], span=ctx.value_span(found[0]), notes=notes)


@check
def kill_always(ctx):
    found = _constant(ctx, "KILL")
    if found and found[1] is True:
        yield ctx.finding("KILL is always true: every vacate becomes an immediate hard kill, jobs get no time "
                          "to clean up", at=found[0], span=ctx.value_span(found[0]))


@check
def suspend_without_continue(ctx):
    suspend = effective(ctx, "SUSPEND")
    if suspend is None:
        return
    found = _constant(ctx, "CONTINUE")
    if not found or found[1] is not False:
        return
    node, _err, _text = parsed(ctx, suspend)
    if node is None or fold(node) is False:
        return  # SUSPEND never fires: nothing to continue
    preempt = config_value(ctx, "PREEMPT") or ""
    if "suspend" in preempt.lower():
        return  # PREEMPT bounds suspension (the Desktop policy's MaxSuspendTime clause)
    yield ctx.finding("CONTINUE is always false while SUSPEND can become true: a suspended job is never "
                      "resumed and, as PREEMPT does not mention suspension, it holds the slot forever",
                      at=found[0], span=ctx.value_span(found[0]),
                      notes=[Text("SUSPEND is set at {where}", where=describe(suspend))])


@check
def want_hold_without_preempt(ctx):
    hold = effective(ctx, "WANT_HOLD")
    if hold is None or not is_user(hold):
        return
    found = _constant(ctx, "WANT_HOLD")
    if found and found[1] is False:
        return
    preempt = ctx.config.source("PREEMPT")
    node = parsed(ctx, preempt)[0] if preempt is not None else None
    if node is not None and fold(node) is False:
        yield ctx.finding("WANT_HOLD is set but PREEMPT is always false: the startd only considers WANT_HOLD "
                          "when PREEMPT becomes true, so no job is ever held by this policy", at=hold,
                          span=ctx.value_span(hold), notes=[Text("PREEMPT comes from {where}", where=describe(preempt))])


@check
def rank_with_partitionable_slots(ctx):
    rank = effective(ctx, "RANK")
    if rank is None or not is_user(rank):
        return
    found = _constant(ctx, "RANK")
    if found and not found[1]:
        return  # RANK = 0 is the default behaviour
    try:
        from condorcfg.slots.layout import build_layout
    except ImportError:
        return
    from condorcfg.diagnostics import CondorcfgError

    try:
        layout = build_layout(ctx.config, ctx.machine)
    except CondorcfgError as exc:
        ctx.note_limit(exc)
        return  # a slot knob cannot be expanded: MAC202 (a cycle) or CFG006 (a limit) reports why
    types = getattr(layout, "types", None) or []
    if types and all(getattr(t, "partitionable", False) for t in types):
        yield ctx.finding("RANK has no effect here: every slot is partitionable, and the startd does not "
                          "preempt jobs on partitionable slots for a better rank", at=rank,
                          span=ctx.value_span(rank))


# ---------------------------------------------------------------- units of time knobs

_DURATION = re.compile(r"(?i)(?<![\w.])(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_UNIT_WORD = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}


def _comment_durations(ctx, definition) -> list[tuple[float, int, str]]:
    """(amount, seconds per unit, text) of each duration in the comment lines just above ``definition``."""
    location = definition.location
    if location is None or not location.line:
        return []
    lines = ctx.source_lines(location.file)
    found, line = [], location.line - 1
    while line >= 1 and location.line - line <= 3 and lines[line - 1].lstrip().startswith("#"):
        for match in _DURATION.finditer(lines[line - 1]):
            unit = _UNIT_SECONDS[match.group(2)[0].lower()]
            found.append((float(match.group(1)), unit, match.group(0)))
        line -= 1
    return found


def _time_units(ctx, knob: str, what: str):
    definition = effective(ctx, knob)
    if not is_user(definition):
        return
    text = (config_value(ctx, knob) or "").strip()
    if not re.fullmatch(r"[0-9]{1,12}", text):  # (ASCII digits: str.isdigit() takes "²")
        return
    seconds = int(text)
    durations = _comment_durations(ctx, definition)
    if len(durations) != 1:
        return  # no comment, or one that names several durations: nothing to compare with
    amount, unit, said = durations[0]
    meant = amount * unit
    if unit == 1 or seconds == meant:
        return
    if seconds == amount or seconds == amount * (unit // 60):  # written in the comment's unit, or in minutes
        taken = _UNIT_WORD[unit] if seconds == amount else "minute"
        yield ctx.finding(f"{knob} = {seconds} is in seconds ({what}), but the comment above says {said}: that is "
                          f"{int(meant)} seconds; {seconds} reads as if it were in {taken}s", at=definition,
                          span=ctx.value_span(definition), fix=f"{knob} = {int(meant)}")


@check
def retirement_time_units(ctx):
    yield from _time_units(ctx, "MAXJOBRETIREMENTTIME", "the time a running job may retire before it is preempted")


@check
def claim_worklife_units(ctx):
    yield from _time_units(ctx, "CLAIM_WORKLIFE", "how long a claim may be reused for new jobs")


# ---------------------------------------------------------------- KILL, RANK

def _conjuncts(node) -> list:
    """The operands of a chain of && (through parentheses), without recursion: chains can be long."""
    from condorcfg.classad import ast

    found, pending = [], [node]
    while pending:
        current = strip_parens(pending.pop())
        if isinstance(current, ast.BinaryOp) and current.op == "&&":
            pending.extend((current.right, current.left))
        else:
            found.append(current)
    return found


def _state_test(node) -> tuple[str, str] | None:
    """("State" | "Activity", value) for ``State == "Claimed"`` (either order, ==, =?=, is)."""
    from condorcfg.classad import ast

    node = strip_parens(node)
    if not isinstance(node, ast.BinaryOp) or node.op not in ("==", "=?=", "is"):
        return None
    for left, right in ((node.left, node.right), (node.right, node.left)):
        left, right = strip_parens(left), strip_parens(right)
        if (isinstance(left, ast.AttrRef) and (left.scope or "MY").upper() == "MY"
                and left.name.lower() in ("state", "activity") and isinstance(right, ast.Literal)
                and isinstance(right.value, str)):
            return left.name.capitalize(), right.value
    return None


# KILL is evaluated while the slot vacates a job: State "Preempting", Activity "Vacating".
_WHEN_KILL = {"State": "preempting", "Activity": "vacating"}


def _user_expression(ctx, knob: str):
    """(definition, parsed expression) of a policy knob the user wrote, or (None, None)."""
    definition = effective(ctx, knob)
    if not is_user(definition):
        return None, None
    node = parsed(ctx, definition)[0]
    return (definition, node) if node is not None else (None, None)


@check
def kill_never_true(ctx):
    definition, node = _user_expression(ctx, "KILL")
    if node is None:
        return
    for conjunct in _conjuncts(node):
        test = _state_test(conjunct)
        if test is not None and test[1].lower() != _WHEN_KILL[test[0]]:
            yield ctx.finding(f"KILL requires {test[0]} to be \"{test[1]}\", but the startd evaluates KILL only while "
                              f"it vacates a job (State \"Preempting\", Activity \"Vacating\"): KILL is never true, "
                              f"so a job that does not leave gracefully is killed only when MachineMaxVacateTime "
                              f"runs out", at=definition, span=ctx.value_span(definition))
            return


@check
def rank_machine_attrs_only(ctx):
    definition, node = _user_expression(ctx, "RANK")
    if node is None:
        return
    references = ctx.references(node)
    if not references:
        return  # a constant: the default RANK is 0 too
    knowledge = ctx.knowledge
    for ref in references:
        scope = (ref.scope or "").upper()
        if scope == "MY":
            continue
        if scope or not knowledge.is_machine_attribute(ref.name):
            return  # TARGET.x, a job attribute, an exported knob (which may read the job), or a name that may be one
        if knowledge.is_job_attribute(ref.name):
            return
    names = ", ".join(dict.fromkeys(ref.name for ref in references))
    yield ctx.finding(f"RANK reads only attributes of the slot ({names}), so every job gets the same rank: it never "
                      f"prefers one job to another and never preempts a job for a better one", at=definition,
                      span=ctx.value_span(definition),
                      fix="rank by job attributes (TARGET.Owner == \"alice\", TARGET.RequestCpus), or remove RANK")


# ---------------------------------------------------------------- runtime limits and retirement

# A job's running time in a policy expression: the time since the job started (not since the current
# activity began: `time() - EnteredCurrentActivity` beside Activity == "Suspended" is time suspended).
_RUNTIME = re.compile(r"(?i)\(?\s*time\(\)\s*-\s*(?:MY\.|TARGET\.)?(?:JobStart|JobCurrentStartDate)\s*\)?|"
                      r"(?:MY\.|TARGET\.)?(?:TotalJobRunTime|RemoteWallClockTime)")


def _runtime_limit(ctx, definition) -> float | None:
    """The smallest N of a clause ``<running time> > N`` (or >=) in the expression, in seconds, or None."""
    from condorcfg.classad import ast
    from condorcfg.classad.printer import unparse

    node, _err, _text = parsed(ctx, definition)
    if node is None:
        return None
    limits = []
    for sub in walk(node):
        if not isinstance(sub, ast.BinaryOp) or sub.op not in (">", ">=", "<", "<="):
            continue
        left, right = (sub.left, sub.right) if sub.op in (">", ">=") else (sub.right, sub.left)
        limit = fold(right)
        if isinstance(limit, bool) or not isinstance(limit, (int, float)):
            continue
        if _RUNTIME.fullmatch(unparse(strip_parens(left)).strip()):  # unscaled: `(time() - JobStart) / 60` is not seconds
            limits.append(float(limit))
    return min(limits) if limits else None


def _retirement(ctx) -> tuple[object, float] | None:
    """(definition or None, seconds) of MAXJOBRETIREMENTTIME when it is a constant (unset: 0)."""
    definition = effective(ctx, "MAXJOBRETIREMENTTIME")
    if definition is None:
        return None, 0.0
    node, _err, _text = parsed(ctx, definition)
    value = fold(node) if node is not None else UNKNOWN
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return definition, float(value)


def _limit_and_retirement(ctx):
    """(the user's PREEMPT, its running-time limit, the retirement) or Nones, for POL514/POL515."""
    preempt = effective(ctx, "PREEMPT")
    if not is_user(preempt):
        return None, None, None
    return preempt, _runtime_limit(ctx, preempt), _retirement(ctx)


@check
def retirement_defeats_preempt(ctx):
    preempt, limit, retirement = _limit_and_retirement(ctx)
    if limit is None or retirement is None or retirement[0] is None or retirement[1] <= 0 or retirement[1] < limit:
        return  # (no retirement at all is POL515's case)
    definition, seconds = retirement
    yield ctx.finding(f"MAXJOBRETIREMENTTIME ({seconds:g} s) is at least the running-time limit of PREEMPT "
                      f"({limit:g} s): a job that reaches the limit still retires for up to {seconds:g} s more, so "
                      f"it runs for up to {limit + seconds:g} s and the limit never bites as written", at=definition,
                      span=ctx.value_span(definition), notes=[Text("PREEMPT is set at {where}", where=describe(preempt))],
                      fix="make the retirement time shorter than the limit, or lower the limit by it")


@check
def preempt_without_retirement(ctx):
    preempt, limit, retirement = _limit_and_retirement(ctx)
    if limit is None or retirement is None or retirement[1] > 0:
        return
    yield ctx.finding(f"PREEMPT stops jobs that run longer than {limit:g} s, and there is no retirement time "
                      f"(MAXJOBRETIREMENTTIME is 0): a job that reaches the limit is vacated at once and loses its "
                      f"work unless it checkpoints, however close it was to finishing", at=preempt,
                      span=ctx.value_span(preempt),
                      fix="give jobs time to finish: MAXJOBRETIREMENTTIME = <seconds> (shorter than the limit)")


def _is_startd(ctx, daemon: str) -> bool:
    """STARTD, or a daemon of DAEMON_LIST whose program is the startd (STARTD2 = $(STARTD), .../condor_startd)."""
    if daemon == "STARTD":
        return True
    program = (ctx.config.source(daemon).raw or "") if ctx.config.source(daemon) is not None else ""
    return bool(re.fullmatch(r"(?i)\s*(\$\(STARTD\)|\S*condor_startd)\s*", program))


_STARTD_ONLY = ("START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE", "IS_OWNER")


@check
def startd_policy_without_startd(ctx):
    daemons_definition = effective(ctx, "DAEMON_LIST")
    if not is_user(daemons_definition):
        return  # the daemons come from a role template or another file: nothing to say
    daemons = {d.strip().upper() for d in re.split(r"[\s,]+", config_value(ctx, "DAEMON_LIST") or "") if d.strip()}
    if not daemons or any(_is_startd(ctx, d) for d in daemons):
        return
    written = [(knob, effective(ctx, knob)) for knob in _STARTD_ONLY]
    written = [(knob, d) for knob, d in written if is_user(d)]
    if not written:
        return
    knob, definition = written[0]
    others = ", ".join(k for k, _d in written[1:4])
    yield ctx.finding("{knob}{others} is startd policy, but DAEMON_LIST ({where}) runs no STARTD on this host: "
                      "the setting has no effect here", knob=knob, others=f" (and {others})" if others else "",
                      where=describe(daemons_definition), at=definition, span=ctx.value_span(definition),
                      fix="add STARTD to DAEMON_LIST (use ROLE : Execute), or move the policy to the execute "
                          "nodes' configuration")


# Job attributes every job ad has (condor_submit and the schedd always write them): a comparison with
# them is never UNDEFINED for a real job.
_ALWAYS_IN_JOB = {"OWNER", "USER", "CLUSTERID", "PROCID", "JOBUNIVERSE", "CMD", "IWD", "QDATE", "JOBSTATUS",
                  "REQUESTCPUS", "REQUESTMEMORY", "REQUESTDISK", "REQUIREMENTS", "JOBPRIO", "IMAGESIZE",
                  "DISKUSAGE", "GLOBALJOBID", "ENTEREDCURRENTSTATUS", "NICEUSER", "RANK"}


@check
def strict_compare_undefined_attr(ctx):
    from condorcfg.classad import ast

    definition, node = _user_expression(ctx, "START")
    if node is None:
        return
    for conjunct in _conjuncts(node):
        if not isinstance(conjunct, ast.BinaryOp) or conjunct.op != "!=":
            continue
        for side, other in ((conjunct.left, conjunct.right), (conjunct.right, conjunct.left)):
            side, other = strip_parens(side), strip_parens(other)
            if not (isinstance(side, ast.AttrRef) and isinstance(other, ast.Literal)):
                continue
            scope = (side.scope or "").upper()
            is_job = scope == "TARGET" or (not scope and ctx.knowledge.is_job_only_attribute(side.name))
            if not is_job or side.name.upper() in _ALWAYS_IN_JOB:
                continue
            shown = f"{side.scope + '.' if side.scope else ''}{side.name}"
            yield ctx.finding(f"START requires {shown} != {_literal_text(other)}, but a job that does not define "
                              f"{side.name} makes that UNDEFINED, and START with it: such jobs never start here, "
                              f"where `=!=` (not identical to) would let them", at=definition,
                              span=ctx.value_span(definition), fix=f"write {shown} =!= {_literal_text(other)}")
            break


def _literal_text(node) -> str:
    from condorcfg.classad.printer import unparse

    return unparse(node)


@check
def group_quota_dynamic_oversum(ctx):
    """Sibling accounting groups whose GROUP_QUOTA_DYNAMIC_* sum to more than 1: the negotiator scales them down
    in proportion (the manual's group accounting section), so no group gets the fraction written."""
    names = [n for n in re.split(r"[\s,]+", config_value(ctx, "GROUP_NAMES") or "") if n]
    siblings: dict[str, list] = {}
    for group in dict.fromkeys(names):
        knob = f"GROUP_QUOTA_DYNAMIC_{group}"
        definition = ctx.config.source(knob)
        text = (config_value(ctx, knob) or "").strip()
        try:
            quota = float(text)
        except ValueError:
            continue  # (unset, or not a number: not a fraction to add up)
        if definition is None or quota <= 0 or quota != quota or quota == float("inf"):
            continue
        parent = group.rsplit(".", 1)[0] if "." in group else "<none>"
        siblings.setdefault(parent.lower(), []).append((group, quota, definition))
    for parent, groups in siblings.items():
        total = sum(quota for _group, quota, _definition in groups)
        if total <= 1.0 + 1e-9:
            continue
        shares = ", ".join(f"{group} {quota:g} -> {quota / total:.3g}" for group, quota, _d in groups)
        where = "the pool" if parent == "<none>" else f"group {parent}"
        last = max(groups, key=lambda item: (item[2].location.file, item[2].location.line)
                   if item[2].location is not None else ("", 0))
        yield ctx.finding(f"the dynamic quotas of the groups under {where} add up to {total:g}, more than 1: the "
                          f"negotiator scales them down in proportion so they sum to 1 ({shares})",
                          at=last[2], span=ctx.value_span(last[2]))
