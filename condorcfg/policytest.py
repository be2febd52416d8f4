"""Policy tests: what a pool's policy must do, written down as cases and checked offline.

A test file (YAML) names the configuration, a machine and cases::

    config: condor_config            # relative to this file; or a list; default: the project's role
    role: ep                         # or: a role of the project settings (instead of config; a case
                                     # may name its own), read as its hosts read it
    machine: ep.yaml                 # a machine profile file, or an inline mapping (cpus: 16, ...);
                                     # default: the role's machine
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

What a test file may name.  A test file comes with the pull request, and the runner prints what
the files it names hold, so no file of the change may decide what may be read: the boundary is
the project folder (where the project settings are, else the current directory: ``project_dir``),
fixed before any test file is opened; nothing asks git (a committed bare repository can make git
call ``/`` the work tree).  A test file, a ``config:`` and a ``machine:`` file must each really be
(after following every symbolic link) inside it; a committed link leading out is refused, and its
target is not opened.  A test file the user names outside the project folder (not through a
link of the project) is the user's choice: its own folder is its boundary.

What a run may cost (one :class:`Run` per ``condorcfg test``; the YAML text and its aliases are
bounded by :func:`condorcfg.inputs.check_expanded_size`):

* :data:`MAX_CASE_WORK` units of case work, plus one per character of the test files read: a
  character of a job or state ad parsed, an attribute of the slot ad copied for a case;
* :data:`MAX_REPORT_CHARS` characters of failure text: errors, and the expected and actual value
  and the explanation of each failing check, counted as built (before cutting);
* per failing check, :data:`MAX_EXPLANATION_LINES` lines (the clauses that hold are left out
  first), and :data:`MAX_SHOWN_CHARS` characters of each value, clause or name shown.

Reaching a run's limit, or the command's ClassAd budget (:mod:`condorcfg.classad.budget`),
stops the run: the cases so far are reported, and :attr:`Run.stopped` names the limit (exit 2).
"""
from __future__ import annotations

import os
import re

from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.inputs import within
from condorcfg.records import factory, record
from condorcfg.report import ReportView

POLICY_KNOBS = {"preempt": "PREEMPT", "suspend": "SUSPEND", "continue": "CONTINUE", "kill": "KILL",
                "want_suspend": "WANT_SUSPEND", "want_vacate": "WANT_VACATE"}
EXPECTATIONS = {"start", "is_owner", "rank", "matches", "slots", *POLICY_KNOBS}
CASE_KEYS = {"name", "job", "state", "slot", "now", "expect", "role"}
FILE_KEYS = {"config", "machine", "cases", "role"}
MAX_CASES = 10_000  # cases in one file
MIB = 1024 * 1024
MAX_CASE_WORK = 4 * MIB  # units per run (~0.3-2 us each), plus one per character of test file read
MAX_REPORT_CHARS = 4 * MIB  # characters of failure text per run (a real failing run: a few KB a case)
MAX_EXPLANATION_LINES = 50  # lines explaining one failing check
MAX_SHOWN_CHARS = 300  # characters of one value, clause, expression or name shown


@record
class Check:
    expectation: str
    expected: object
    actual: object
    ok: bool
    explanation: list = factory(list)  # lines (at most MAX_EXPLANATION_LINES)
    built: int = 0  # characters of explanation made before cutting (what the run's report budget pays)


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


class Run:
    """What one run of policy tests may still spend (see the module docstring); ``stopped``: the
    diagnostic naming the limit that ended it, None while it goes on."""

    def __init__(self):
        self.work = MAX_CASE_WORK
        self.report = MAX_REPORT_CHARS
        self.stopped = None

    def stop(self, message: str, file: str, line: int) -> None:
        self.stopped = error(message, file, line or 0, 1, code="bad-policy-test")


def _fail(message: str, file: str, line: int = 0) -> CondorcfgError:
    return CondorcfgError(error(message, file, line or 0, 1, code="bad-policy-test"))


def _clip(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """``text`` cut at ``limit`` characters, saying how many more there were."""
    return text if len(text) <= limit else f"{text[:limit]}… {len(text) - limit} more characters"


def _bounded(value):
    """A check's expected or actual value as the reports show it: a short scalar as it is, a slots
    mapping with its values bounded, anything else as text cut at MAX_SHOWN_CHARS."""
    if value is None or isinstance(value, bool) or (isinstance(value, (int, float)) and
                                                    len(repr(value)) <= MAX_SHOWN_CHARS):
        return value
    if isinstance(value, dict) and len(value) <= 4:  # slots: {count, cpus, memory, disk}
        return {_clip(str(k)): _bounded(v) if not isinstance(v, (dict, list)) else _clip(str(v))
                for k, v in value.items()}
    return _clip(value if isinstance(value, str) else str(value))


def _line(node, key=None) -> int:
    """The 1-based line of a ruamel mapping key (or of the node), 0 when unknown."""
    lc = getattr(node, "lc", None)
    try:
        return (lc.key(key)[0] if key is not None else lc.line) + 1
    except (AttributeError, KeyError, TypeError):
        return 0


def run_file(path: str, project=None, run: Run | None = None, only: set[str] | None = None) -> list[CaseResult]:
    """Run the cases of one policy test file; CondorcfgError when the file itself cannot be used.

    ``project`` (a :class:`~condorcfg.lint.project.ProjectConfig`; default: none, in the current directory)
    gives the roles and the trust boundary (its folder); ``run`` (default: one for this file) what the
    cases may still spend; once it is ``stopped`` no more cases are run.  ``only``: run just the cases of
    these roles (``--role``; their hosts included).
    """
    from condorcfg.inputs import load_document, read_text
    from condorcfg.lint.project import ProjectConfig

    run = run if run is not None else Run()
    project = project if project is not None else ProjectConfig(directory=os.getcwd())
    top = inside_boundary(path, project.directory, "policy test file")
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
        check_expanded_size(data, shown, "policy test file", "bad-policy-test", text_size=len(text))
    run.work += len(text)  # a file's own text pays for the work of its cases: big files are not refused
    if not isinstance(data, dict):
        raise _fail("a policy test file is a mapping with config, machine and cases", shown, 1)
    unknown = set(data) - FILE_KEYS
    if unknown:
        key = min(unknown, key=str)
        raise _fail(f"unknown key {_clip(str(key))!r}; a policy test file has {', '.join(sorted(FILE_KEYS))}", shown,
                    _line(data, key))
    base = os.path.dirname(os.path.abspath(path))
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise _fail("'cases' must be a non-empty list of cases", shown, _line(data, "cases") or 1)
    if len(cases) > MAX_CASES:
        raise _fail(f"more than {MAX_CASES} cases in one file (MAX_CASES); split it", shown, _line(data, "cases"))
    case_roles = any(isinstance(case, dict) and "role" in case for case in cases)
    if data.get("config") is not None and (data.get("role") is not None or case_roles):
        raise _fail("a test file names its configuration with `config` or with `role`, not both", shown,
                    _line(data, "role") or _line(data, "config"))
    machine = (_machine(data.get("machine"), base, shown, _line(data, "machine"), top)
               if data.get("machine") is not None else None)
    targets = _Targets(project, data, base, machine, shown, top)
    from condorcfg.classad.budget import current

    results = []
    for index, case in enumerate(cases):
        line = _line(cases[index]) if hasattr(cases, "lc") else 0
        role = case.get("role", data.get("role")) if isinstance(case, dict) else data.get("role")
        if only is not None and role not in only and not any(name.startswith(f"{role}@") for name in only):
            continue
        config, ads, slots = targets.get(role, line)
        result = _run_case(case, index, line, config, ads, slots, shown, run)
        budget = current()
        if budget is not None and budget.failed and run.stopped is None:
            # every evaluation from here on is ERROR: this case's verdict and the later ones would be wrong
            run.stop(f"the cases from here on are not run: {budget.message()}", shown, line)
        if run.stopped is not None:
            break
        results.append(result)
    return results


def boundary(path: str, project_dir: str) -> str:
    """The folder whose files the test file (or directory of them) ``path`` may name: the project
    folder when ``path`` is in it, as written or really (a link into the project is harmless);
    else, for a path the user named outside the project, its own folder."""
    top = os.path.realpath(project_dir)
    named = os.path.abspath(path)
    folder = os.path.realpath(os.path.dirname(named))
    return top if within(named, top) or within(folder, top) else folder


def inside_boundary(path: str, project_dir: str, what: str) -> str:
    """The :func:`boundary` of ``path`` (a test file, or a directory of them); CondorcfgError, before it is
    opened (it may be a link to /etc/shadow), when it really lies outside it."""
    top = boundary(path, project_dir)
    if not within(os.path.realpath(path), top):
        raise _fail(f"the {what} is a symbolic link (or in a linked folder) leading outside {top}; name one of "
                    f"the project folder, not a link to one elsewhere", path)
    return top


def _inside(base: str, value: str, top: str, shown: str, line: int, key: str) -> str:
    full = os.path.join(base, value)
    if os.path.isabs(value) or not within(os.path.realpath(full), top):  # (a link counts as where it leads)
        raise _fail(f"{key} {_clip(value)!r} leads outside {top}; a test file names files of the project folder "
                    f"(relative paths, no links leading out)", shown, line)
    return full


class _Targets:
    """The configurations a file's cases run on (its `config`, or the role a case or the file names), each
    read and its slot ads built once."""

    def __init__(self, project, data, base: str, machine, shown: str, top: str):
        self.project, self.data, self.base, self.machine, self.shown, self.top = project, data, base, machine, shown, top
        self.built: dict = {}

    def get(self, role_name, line: int):
        key = role_name if role_name is not None else ""
        if key not in self.built:
            self.built[key] = self._build(role_name, line)
        return self.built[key]

    def _build(self, role_name, line: int):
        import condorcfg
        from condorcfg import roles
        from condorcfg.config.reader import UNUSABLE_INPUT
        from condorcfg.lint.project import root_role
        from condorcfg.machine import from_mapping
        from condorcfg.slots import build_slot_ads

        project, shown = self.project, self.shown
        if role_name is not None and not isinstance(role_name, str):
            raise _fail("'role' is the name of a role of the project settings", shown, line)
        if role_name is None and self.data.get("config") is not None:
            value, config_line = self.data.get("config"), _line(self.data, "config")
            items = value if isinstance(value, list) else [value]
            if not items or not all(isinstance(item, str) and item for item in items):
                raise _fail("'config' is a path or a list of paths", shown, config_line)
            paths = [_inside(self.base, item, self.top, shown, config_line, "config") for item in items]
            # (read as lint reads a root given on the command line: the project's sysroot applies)
            role = root_role(project, paths[0], single=True)
            machine = self.machine or from_mapping({}, source="<default machine>")
            config = condorcfg.load(paths, machine=machine, subsystem="STARTD", mode="repository", host=role.host,
                                    allowed_dirs=roles.allowed_dirs(project))
        else:
            known = project.all_roles()
            if role_name is None:
                if len(known) != 1:
                    names = ", ".join(r.name for r in known)
                    raise _fail(f"name the configuration: `role: NAME` ({names})" if names else
                                "name the configuration: `config: condor_config` (or set roles in the project "
                                "settings)", shown, line or 1)
                role = known[0]
            else:
                found = [r for r in known if r.name == role_name] or [r for r in known
                                                                       if r.name.startswith(f"{role_name}@")]
                if len(found) > 1:
                    raise _fail(f"role {_clip(role_name)!r} has several hosts ({', '.join(r.name for r in found)}); "
                                f"name one", shown, line or _line(self.data, "role") or 1)
                if not found:
                    names = ", ".join(r.name for r in known if r.name) or "none"
                    raise _fail(f"no role named {_clip(role_name)!r} in the project settings (its roles: {names})",
                                shown, line or _line(self.data, "role") or 1)
                role = found[0]
            machine = self.machine or roles.machine(role, project, None) or from_mapping({}, source="<default machine>")
            config = roles.read(role, project, machine=machine, subsystem="STARTD")
        unusable = [d for d in config.diagnostics
                    if (d.code in UNUSABLE_INPUT or d.code == "missing-host-file") and d.severity == "error"]
        if unusable:  # (HTCondor would refuse it: a policy test must not pass on part of a configuration)
            raise CondorcfgError(unusable[0])
        ads = build_slot_ads(config, machine)
        if not len(ads):
            problems = "; ".join(d.message for d in ads.errors) or "the layout gives no slot"
            raise _fail(_clip(f"the configuration gives this machine no slot: {problems}"), shown, line or 1)
        return config, ads, _slot_index(ads)


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


def _run_case(case, index: int, line: int, config, ads, slots, shown: str, run: Run) -> CaseResult:
    from condorcfg.classad.values import ClassAd

    if not isinstance(case, dict):
        return _charged(CaseResult(f"case {index + 1}", shown, line,
                                   error="a case is a mapping with name, job and expect"), run)
    name = _clip(str(case.get("name") or f"case {index + 1}"))
    result = CaseResult(name, shown, line)
    unknown = set(case) - CASE_KEYS
    expect = case.get("expect")
    if unknown:
        result.error = f"unknown key {str(min(unknown, key=str))!r}; a case has {', '.join(sorted(CASE_KEYS))}"
        return _charged(result, run)
    if not isinstance(expect, dict) or not expect:
        result.error = "'expect' must name what should hold (start, is_owner, rank, matches, preempt, slots, ...)"
        return _charged(result, run)
    wrong = set(expect) - EXPECTATIONS
    if wrong:
        result.error = (f"unknown expectation {str(min(wrong, key=str))!r}; known: "
                        f"{', '.join(sorted(EXPECTATIONS))}")
        return _charged(result, run)
    try:
        slot = _pick_slot(ads, slots, case.get("slot"))
        now = _now(case.get("now"))
        job_text, state_text = case.get("job") or "", case.get("state") or ""
        # the work of this case, before it is done: ten thousand cases each parsing a big ad, or copying a
        # big slot ad, cost what no single case shows
        run.work -= len(slot.ad) + sum(len(t) for t in (job_text, state_text) if isinstance(t, str))
        if run.work < 0:
            run.stop(f"the cases from here on are not run: this run's case work limit (MAX_CASE_WORK, "
                     f"{MAX_CASE_WORK:,} units plus one per character of the test files: characters of job and "
                     f"state ads parsed, slot attributes copied per case) is spent; use fewer or smaller cases",
                     shown, line)
            return result
        job = _ad(job_text, "job")
        ad = ClassAd([(attribute, slot.ad[attribute]) for attribute in slot.ad])  # (the case's own copy)
        _apply_state(ad, state_text, now)
    except ValueError as exc:
        result.error = str(exc)
        return _charged(result, run)
    for expectation, expected in expect.items():
        check = _check(expectation, expected, ad, job, slot, ads, config, now)
        check.expected, check.actual = _bounded(check.expected), _bounded(check.actual)
        result.checks.append(check)
    return _charged(result, run)


def _charged(result: CaseResult, run: Run) -> CaseResult:
    """``result`` with its failure text paid for from the run's report budget (the run stops when it is
    spent); errors and explanation lines cut to what is shown."""
    spent = 0
    if result.error:
        spent += len(result.error)
        result.error = _clip(result.error)
    for check in result.checks:
        if not check.ok:
            spent += len(str(check.expected)) + len(str(check.actual)) + check.built
    run.report -= spent
    if run.report < 0 and run.stopped is None:
        run.stop(f"the cases from here on are not run: this run's failures reached the report limit "
                 f"(MAX_REPORT_CHARS, {MAX_REPORT_CHARS:,} characters of errors, values and explanations); "
                 f"fix the first failures, or run fewer test files at once", result.file, result.line)
    return result


def _slot_index(ads) -> dict:
    """Each slot by SlotID and by lower-case name: a case finds its slot at once, however many there are."""
    index = {}
    for slot in ads:
        index.setdefault(slot.slot_id, slot)
        index.setdefault(slot.name.split("@")[0].lower(), slot)
    return index


def _pick_slot(ads, slots: dict, wanted):
    if wanted is None:
        return ads[0]
    key = wanted.lower() if isinstance(wanted, str) else wanted if isinstance(wanted, int) and \
        not isinstance(wanted, bool) else None
    if key is not None and key in slots:
        return slots[key]
    names = [s.name.split("@")[0] for s in ads[:10]]
    more = f" and {len(ads) - 10} more" if len(ads) > 10 else ""
    raise ValueError(f"no slot {_clip(repr(wanted))} on this machine (it has {', '.join(names)}{more})")


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
        return Check(expectation, bool(expected), found.matches, ok, *(([], 0) if ok else _explain_clauses(found)))
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
                message = f"{knob} does not parse: {exc}"
                return Check(expectation, expected, None, False, *_explained([(_clip(message), False)], len(message)))
            value = _evaluate(node, ad, job, now)
    if expectation == "rank":
        if isinstance(value, bool):
            value = float(value)  # (the startd reads RANK as a number: true is 1)
        ok = isinstance(value, (int, float)) and isinstance(expected, (int, float)) and \
            not isinstance(expected, bool) and float(value) == float(expected)
    else:
        ok = _truth(value) is not None and _truth(value) == bool(expected)
    explanation = ([], 0) if ok else _explain_expression(knob, node, ad, job if expectation != "is_owner" else None,
                                                         config, now)
    shown = value if isinstance(value, (bool, int, float)) else unparse(value) if hasattr(value, "__class__") else value
    return Check(expectation, expected, shown, ok, *explanation)


def _check_slots(expected, slot, ads) -> Check:
    if not isinstance(expected, dict) or not set(expected) <= {"count", "cpus", "memory", "disk"}:
        return Check("slots", expected, None, False,
                     *_explained([("slots: expect a mapping of count, cpus, memory, disk", False)]))
    actual = {"count": len(ads)}
    for key, attribute in (("cpus", "Cpus"), ("memory", "Memory"), ("disk", "Disk")):
        if key in expected:
            actual[key] = _evaluate(slot.ad[attribute], slot.ad, None, None) if attribute in slot.ad else None
    wanted = {k: v for k, v in expected.items()}
    ok = all(actual.get(k) == v for k, v in wanted.items())
    explanation = ([], 0) if ok else _explained([(f"{k}: expected {_clip(str(wanted[k]))}, the layout gives "
                                                  f"{_clip(str(actual.get(k)))}", False)
                                                 for k in wanted if actual.get(k) != wanted[k]])
    return Check("slots", wanted, {k: actual.get(k) for k in wanted}, ok, *explanation)


def _explained(lines: list[tuple[str, bool]], built: int | None = None) -> tuple[list[str], int]:
    """(the lines shown, characters built) of an explanation given as (line, holds) pairs: at most
    MAX_EXPLANATION_LINES lines; past that the lines of clauses that hold are left out first, and the
    last line says how many are not shown.  ``built``: the characters made for it, before its values
    were cut (default: the lines' own)."""
    built = sum(len(text) for text, _ in lines) if built is None else built
    if len(lines) <= MAX_EXPLANATION_LINES:
        return [text for text, _ in lines], built
    room = MAX_EXPLANATION_LINES - 1
    holding_room = max(0, room - sum(1 for _, holds in lines if not holds))
    shown = []
    for text, holds in lines:
        if len(shown) == room:
            break
        if holds:
            if not holding_room:
                continue
            holding_room -= 1
        shown.append(text)
    return shown + [f"… {len(lines) - len(shown)} more lines not shown"], built


def _explain_clauses(found) -> tuple[list[str], int]:
    built = sum(len(c.text) + len(c.values) + len(c.origin) + len(c.where) for c in found.clauses)
    return _explained([(f"[{'ok  ' if clause.ok else 'FAIL'}] {clause.side} {_clip(clause.origin)}: "
                        f"{_clip(clause.text)}  -> {_clip(clause.values)}  ({_clip(clause.where)})", clause.ok)
                       for clause in found.clauses], built)


def _explain_expression(knob: str, node, my, target, config, now) -> tuple[list[str], int]:
    from condorcfg.classad import unparse
    from condorcfg.slots.match import knob_location, operand_values, split_and

    where = _clip(knob_location(config, knob, ReportView().display_path))
    if node is None:
        return _explained([(f"{knob} is not set ({where})", False)])
    text = unparse(node)
    head, built = f"{knob} = {_clip(text)}  ({where})", len(text)  # (the head is always shown: what the knob says)
    parts = split_and(node)
    if len(parts) == 1:
        values = operand_values(node, my, target, now)
        return _explained([(f"{head}  -> {_clip(values)}", False)], built + len(values))
    lines = [(head, False)]
    for part in parts:
        holds = bool(_truth(_evaluate(part, my, target, now)))
        part_text, values = unparse(part), operand_values(part, my, target, now)
        built += len(part_text) + len(values)
        lines.append((f"  [{'ok  ' if holds else 'FAIL'}] {_clip(part_text)}  -> {_clip(values)}", holds))
    return _explained(lines, built)
