"""Policy tests: what a pool's policy must do, written down as cases and checked offline.

A test file (YAML) names the configuration, a machine and cases::

    config: condor_config            # relative to this file; or a list; default: the project's roots
    machine: ep.yaml                 # a machine profile file, or an inline mapping (cpus: 16, ...)
    cases:
      - name: small job on an idle machine starts
        job: |                       # the job ad, condor_q -l form (or [ ... ])
          Owner = "alice"
          RequestMemory = 1024
        state: |                     # slot attributes that differ from an idle machine
          KeyboardIdle = 3600
        slot: 1                      # which slot (SlotID, or a name like slot1_1); default the first
        now: 2026-11-23T10:00:00     # a fixed clock (ISO time, or seconds since the epoch)
        expect:
          start: true                # the slot's START with this job as TARGET
          is_owner: false            # IS_OWNER of the slot (no job)
          rank: 10                   # the slot's RANK for this job
          matches: true              # both Requirements hold (a partitionable slot's resources too)
          preempt: false             # PREEMPT / SUSPEND / CONTINUE / KILL / WANT_SUSPEND / WANT_VACATE
          slots: {count: 1, cpus: 16, memory: 65536}   # the slot layout (count of all; size of `slot`)

Every case yields a :class:`CaseResult` with one :class:`Check` per expectation; a failing check
carries the explanation: for a match or START, each clause with the values on both sides of its
comparison and the file:line of the knob it was written in.
"""
from __future__ import annotations

import os
import re

from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.records import factory, record
from condorcfg.report import ReportView

POLICY_KNOBS = {"preempt": "PREEMPT", "suspend": "SUSPEND", "continue": "CONTINUE", "kill": "KILL",
                "want_suspend": "WANT_SUSPEND", "want_vacate": "WANT_VACATE"}
EXPECTATIONS = {"start", "is_owner", "rank", "matches", "slots", *POLICY_KNOBS}
CASE_KEYS = {"name", "job", "state", "slot", "now", "expect"}
FILE_KEYS = {"config", "machine", "cases"}
MAX_CASES = 10_000


@record
class Check:
    expectation: str
    expected: object
    actual: object
    ok: bool
    explanation: list = factory(list)  # lines


@record
class CaseResult:
    name: str
    file: str
    line: int
    checks: list = factory(list)
    error: str | None = None  # the case could not be run (a job ad that does not parse, ...)

    @property
    def ok(self) -> bool:
        return self.error is None and all(check.ok for check in self.checks)


def _fail(message: str, file: str, line: int = 0) -> CondorcfgError:
    return CondorcfgError(error(message, file, line or 0, 1, code="bad-policy-test"))


def _line(node, key=None) -> int:
    """The 1-based line of a ruamel mapping key (or of the node), 0 when unknown."""
    lc = getattr(node, "lc", None)
    try:
        return (lc.key(key)[0] if key is not None else lc.line) + 1
    except (AttributeError, KeyError, TypeError):
        return 0


def run_file(path: str, project_roots: list[str] | None = None) -> list[CaseResult]:
    """Run the cases of one policy test file; CondorcfgError when the file itself cannot be used."""
    from condorcfg.inputs import load_document, read_text

    text, shown = read_text(path, "policy test file", utf8_only=True)
    if path.endswith(".json"):
        data, shown = load_document(path, "policy test file", "bad-policy-test")
    else:
        from condorcfg.inputs import MAX_YAML_SIZE, check_expanded_size, load_yaml, syntax_error

        if len(text) > MAX_YAML_SIZE:  # (ruamel.yaml is pure Python: bound what it parses)
            raise _fail(f"the policy test file is larger than {MAX_YAML_SIZE} characters (MAX_YAML_SIZE); split it "
                        f"or write it as JSON", shown, 1)
        try:
            data = load_yaml(text, typ="rt")  # (round-trip: keeps line numbers for the messages)
        except Exception as exc:
            raise syntax_error(exc, shown, "policy test file", "YAML", "bad-policy-test") from None
        check_expanded_size(data, shown, "policy test file", "bad-policy-test")
    if not isinstance(data, dict):
        raise _fail("a policy test file is a mapping with config, machine and cases", shown, 1)
    unknown = set(data) - FILE_KEYS
    if unknown:
        key = min(unknown, key=str)
        raise _fail(f"unknown key {str(key)!r}; a policy test file has {', '.join(sorted(FILE_KEYS))}", shown,
                    _line(data, key))
    base = os.path.dirname(os.path.abspath(path))
    top = _tree_top(base)
    configs = _configs(data.get("config"), base, project_roots, shown, _line(data, "config"), top)
    machine = _machine(data.get("machine"), base, shown, _line(data, "machine"), top)
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise _fail("'cases' must be a non-empty list of cases", shown, _line(data, "cases") or 1)
    if len(cases) > MAX_CASES:
        raise _fail(f"more than {MAX_CASES} cases in one file", shown, _line(data, "cases"))
    import condorcfg
    from condorcfg.slots import build_slot_ads

    from condorcfg.config.reader import UNUSABLE_INPUT

    config = condorcfg.load(configs, machine=machine, subsystem="STARTD", mode="repository")
    unusable = [d for d in config.diagnostics
                if (d.code in UNUSABLE_INPUT or d.code == "missing-host-file") and d.severity == "error"]
    if unusable:  # (HTCondor would refuse it: a policy test must not pass on part of a configuration)
        raise CondorcfgError(unusable[0])
    ads = build_slot_ads(config, machine)
    if not len(ads):
        problems = "; ".join(d.message for d in ads.errors) or "the layout gives no slot"
        raise _fail(f"the configuration gives this machine no slot: {problems}", shown, 1)
    return [_run_case(case, index, config, ads, shown, cases) for index, case in enumerate(cases)]


def _tree_top(base: str) -> str:
    """What a test file may name: the git work tree it is in, else the current directory when the file is
    under it, else the file's own directory.  A test file comes with the pull request: it must not make the
    runner read (and print) a file of the machine."""
    import subprocess

    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=base, capture_output=True, text=True,
                              timeout=30, check=False)
        if done.returncode == 0 and done.stdout.strip():
            return os.path.realpath(done.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    here, base = os.path.realpath(os.getcwd()), os.path.realpath(base)
    return here if base == here or base.startswith(here.rstrip(os.sep) + os.sep) else base


def _inside(base: str, value: str, top: str, shown: str, line: int, key: str) -> str:
    full = os.path.join(base, value)
    real = os.path.realpath(full)
    if os.path.isabs(value) or (real != top and not real.startswith(top.rstrip(os.sep) + os.sep)):
        raise _fail(f"{key} {value!r} leads outside {top}; a test file names files of its own repository "
                    f"(relative paths)", shown, line)
    return full


def _configs(value, base: str, roots, shown: str, line: int, top: str) -> list[str]:
    if value is None:
        if roots:
            return list(roots)
        raise _fail("name the configuration: `config: condor_config` (or set roots in the project settings)",
                    shown, 1)
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, str) and item for item in items):
        raise _fail("'config' is a path or a list of paths", shown, line)
    return [_inside(base, item, top, shown, line, "config") for item in items]


def _machine(value, base: str, shown: str, line: int, top: str):
    from condorcfg.machine import from_mapping, load_profile

    if value is None:
        return from_mapping({}, source="<default machine>")
    if isinstance(value, str):
        return load_profile(_inside(base, value, top, shown, line, "machine"))
    if isinstance(value, dict):
        try:
            return from_mapping(dict(value), source=f"{shown}:{line}")
        except (ValueError, TypeError) as exc:
            raise _fail(f"machine: {exc}", shown, line) from None
    raise _fail("'machine' is a profile file or a mapping (cpus, memory, ...)", shown, line)


def _run_case(case, index: int, config, ads, shown: str, cases) -> CaseResult:
    from condorcfg.classad.values import ClassAd

    line = _line(cases[index]) if hasattr(cases, "lc") else 0
    if not isinstance(case, dict):
        return CaseResult(f"case {index + 1}", shown, line, error="a case is a mapping with name, job and expect")
    name = str(case.get("name") or f"case {index + 1}")
    result = CaseResult(name, shown, line)
    unknown = set(case) - CASE_KEYS
    expect = case.get("expect")
    if unknown:
        result.error = f"unknown key {str(min(unknown, key=str))!r}; a case has {', '.join(sorted(CASE_KEYS))}"
        return result
    if not isinstance(expect, dict) or not expect:
        result.error = "'expect' must name what should hold (start, is_owner, rank, matches, preempt, slots, ...)"
        return result
    wrong = set(expect) - EXPECTATIONS
    if wrong:
        result.error = (f"unknown expectation {str(min(wrong, key=str))!r}; known: "
                        f"{', '.join(sorted(EXPECTATIONS))}")
        return result
    try:
        slot = _pick_slot(ads, case.get("slot"))
        now = _now(case.get("now"))
        job = _ad(case.get("job") or "", "job")
        ad = ClassAd([(attribute, slot.ad[attribute]) for attribute in slot.ad])  # (the case's own copy)
        _apply_state(ad, case.get("state") or "", now)
    except ValueError as exc:
        result.error = str(exc)
        return result
    for expectation, expected in expect.items():
        result.checks.append(_check(expectation, expected, ad, job, slot, ads, config, now))
    return result


def _pick_slot(ads, wanted):
    if wanted is None:
        return ads[0]
    for slot in ads:
        if (isinstance(wanted, int) and not isinstance(wanted, bool) and slot.slot_id == wanted) or \
                (isinstance(wanted, str) and slot.name.split("@")[0].lower() == wanted.lower()):
            return slot
    names = ", ".join(s.name.split("@")[0] for s in ads)
    raise ValueError(f"no slot {wanted!r} on this machine (it has {names})")


_ISO = re.compile(r"\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d)?)?")


def _now(value):
    import time

    try:
        moment = _time(value)
        if moment is not None:
            time.gmtime(moment)  # (the clock attributes are computed from it: it must be a time here)
        return moment
    except (OverflowError, OSError, ValueError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith("now:"):
            raise
        raise ValueError(f"now: {value!r} is not a time this machine can represent") from None


def _time(value):
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    import datetime

    if isinstance(value, datetime.datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
        return int(stamp.timestamp())
    if isinstance(value, datetime.date):
        return int(datetime.datetime(value.year, value.month, value.day, tzinfo=datetime.timezone.utc).timestamp())
    if isinstance(value, str) and _ISO.fullmatch(value.strip()):
        stamp = datetime.datetime.fromisoformat(value.strip().replace(" ", "T"))
        return int(stamp.replace(tzinfo=stamp.tzinfo or datetime.timezone.utc).timestamp())
    raise ValueError(f"now: {value!r} is not a time (2026-11-23T10:00:00, or seconds since the epoch)")


def _ad(text, what: str):
    from condorcfg.classad import parse_ad

    if not isinstance(text, str):
        raise ValueError(f"'{what}' is an ad in condor_q -l form (Name = value lines)")
    try:
        return parse_ad(text)
    except (ValueError, RecursionError) as exc:
        where = f" (line {exc.line})" if getattr(exc, "line", 0) else ""
        raise ValueError(f"the {what} ad does not parse{where}: {getattr(exc, 'message', exc)}") from None


def _apply_state(ad, text: str, now) -> None:
    """The slot's attributes as the case sets them (and the clock's, with ``now``)."""
    from condorcfg.classad.ast import Literal

    if now is not None:
        import time

        moment = time.gmtime(now)
        for name, value in (("MyCurrentTime", now), ("CurrentTime", now), ("ClockMin", moment.tm_hour * 60 +
                                                                           moment.tm_min),
                            ("ClockDay", (moment.tm_wday + 1) % 7)):
            ad[name] = Literal(value)
    if text:
        state = _ad(text, "state")
        for name in state:
            ad[name] = state[name]


def _truth(value) -> bool | None:
    if value is True or value is False:
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return None


def _evaluate(node, my, target, now):
    from condorcfg.classad import ERROR, evaluate

    try:
        return evaluate(node, my=my, target=target, now=now)
    except (RecursionError, MemoryError, ValueError, TypeError, ArithmeticError):
        return ERROR


def _check(expectation: str, expected, ad, job, slot, ads, config, now) -> Check:
    from condorcfg.classad import parse, unparse

    if expectation == "slots":
        return _check_slots(expected, slot, ads)
    if expectation == "matches":
        from condorcfg.slots.match import explain_match

        found = explain_match(ad, job, slot.name, config)
        ok = found.matches == bool(expected)
        return Check(expectation, bool(expected), found.matches, ok, [] if ok else _explain_clauses(found))
    if expectation in ("start", "is_owner", "rank"):
        attribute = {"start": "Start", "is_owner": "IsOwner", "rank": "Rank"}[expectation]
        node = ad[attribute] if attribute in ad else None
        target = None if expectation == "is_owner" else job
        value = _evaluate(node, ad, target, now) if node is not None else (expectation == "start")
        knob = {"start": "START", "is_owner": "IS_OWNER", "rank": "RANK"}[expectation]
    else:
        knob = POLICY_KNOBS[expectation]
        text = config.value(knob)
        if not text or not text.strip():
            value = False  # an undefined policy expression never fires
            node = None
        else:
            try:
                node = parse(text)
            except ValueError as exc:
                return Check(expectation, expected, None, False, [f"{knob} does not parse: {exc}"])
            value = _evaluate(node, ad, job, now)
    if expectation == "rank":
        if isinstance(value, bool):
            value = float(value)  # (the startd reads RANK as a number: true is 1)
        ok = isinstance(value, (int, float)) and isinstance(expected, (int, float)) and \
            not isinstance(expected, bool) and float(value) == float(expected)
    else:
        ok = _truth(value) is not None and _truth(value) == bool(expected)
    explanation = [] if ok else _explain_expression(knob, node, ad, job if expectation != "is_owner" else None,
                                                    config, now)
    shown = value if isinstance(value, (bool, int, float)) else unparse(value) if hasattr(value, "__class__") else value
    return Check(expectation, expected, shown, ok, explanation)


def _check_slots(expected, slot, ads) -> Check:
    if not isinstance(expected, dict) or not set(expected) <= {"count", "cpus", "memory", "disk"}:
        return Check("slots", expected, None, False, ["slots: expect a mapping of count, cpus, memory, disk"])
    actual = {"count": len(ads)}
    for key, attribute in (("cpus", "Cpus"), ("memory", "Memory"), ("disk", "Disk")):
        if key in expected:
            actual[key] = _evaluate(slot.ad[attribute], slot.ad, None, None) if attribute in slot.ad else None
    wanted = {k: v for k, v in expected.items()}
    ok = all(actual.get(k) == v for k, v in wanted.items())
    explanation = [] if ok else [f"{k}: expected {wanted[k]}, the layout gives {actual.get(k)}"
                                 for k in wanted if actual.get(k) != wanted[k]]
    return Check("slots", wanted, {k: actual.get(k) for k in wanted}, ok, explanation)


def _explain_clauses(found) -> list[str]:
    return [f"[{'ok  ' if clause.ok else 'FAIL'}] {clause.side} {clause.origin}: {clause.text}  -> {clause.values}"
            f"  ({clause.where})" for clause in found.clauses]


def _explain_expression(knob: str, node, my, target, config, now) -> list[str]:
    from condorcfg.classad import unparse
    from condorcfg.slots.match import knob_location, operand_values, split_and

    where = knob_location(config, knob, ReportView().display_path)
    if node is None:
        return [f"{knob} is not set ({where})"]
    lines = [f"{knob} = {unparse(node)}  ({where})"]
    parts = split_and(node)
    if len(parts) > 1:
        for part in parts:
            mark = "ok  " if _truth(_evaluate(part, my, target, now)) else "FAIL"
            lines.append(f"  [{mark}] {unparse(part)}  -> {operand_values(part, my, target, now)}")
    else:
        lines[0] += f"  -> {operand_values(node, my, target, now)}"
    return lines
