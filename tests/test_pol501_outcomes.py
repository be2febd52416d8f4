"""POL501's three-valued reading of IsOwner, checked against HTCondor's evaluator.

For generated START policies (read-once formulas of machine clauses and job clauses joined with
&&, ||, !, ?: and parentheses; seeded), IsOwner = (START =?= False) is evaluated by the oracle in
a slot ad for every state of the machine attributes the policy reads: once without a job (where
the startd evaluates IsOwner) and once against every job the job clauses can tell apart.  The set
of outcomes (true / false / undefined / error / other) must equal what
:class:`condorcfg.lint.checks._outcomes.Outcomes` says; on read-once formulas of independent
clauses its abstraction is exact.  Then the rule is run on the same policies: it reports exactly
those where the job clauses break the Owner state.
"""
from __future__ import annotations

import itertools
import random

import pytest

from condorcfg.classad.parser import parse
from condorcfg.lint.checks._outcomes import ANY_JOB, NO_JOB, Outcomes

# (clause, attribute, values it takes in the oracle's enumeration)
MACHINE = [("KeyboardIdle > 900", "KeyboardIdle", ["0", "2000"]),
           ("LoadAvg < 0.3", "LoadAvg", ["0.1", "0.9"]),
           ("Memory >= 4096", "Memory", ["1024", "8192"]),
           ("ConsoleIdle > 60", "ConsoleIdle", ["5", "600"])]
# (None: the job does not define the attribute)
JOB = [('TARGET.Owner == "alice"', "Owner", ['"alice"', '"bob"', None]),
       ("TARGET.RequestMemory > 100", "RequestMemory", ["50", "200", None]),
       ("TARGET.JobUniverse =?= 5", "JobUniverse", ["5", "1", None]),
       ("isUndefined(TARGET.Foo)", "Foo", [None, "1"]),
       ('TARGET.Bar =!= "z"', "Bar", ['"z"', '"q"', None])]


def _formula(rng: random.Random, clauses: list, depth: int = 0) -> str:
    if depth >= 3 or len(clauses) == 1 or rng.random() < 0.25:
        text = clauses.pop()
        return f"!({text})" if rng.random() < 0.2 else text
    shape = rng.random()
    left = _formula(rng, clauses, depth + 1)
    if not clauses:
        return left
    right = _formula(rng, clauses, depth + 1)
    if shape < 0.1 and clauses:
        return f"(({left}) ? ({right}) : ({_formula(rng, clauses, depth + 1)}))"
    op = "&&" if shape < 0.55 else "||"
    text = f"({left} {op} {right})"
    return f"!{text}" if rng.random() < 0.15 else text


def _policies(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        machine = rng.sample(MACHINE, rng.randint(1, 3))
        job = rng.sample(JOB, rng.randint(1, 2))
        used = machine + job
        rng.shuffle(used)
        yield _formula(rng, [c[0] for c in used]), machine, job


def _kind(result: dict) -> str:
    if "error" in result:
        return "E"
    if result["type"] == "bool":
        return "T" if result["value"].lower() == "true" else "F"
    return {"undefined": "U", "error": "E"}.get(result["type"], "V")


def _cases(start: str, machine, job):
    """Oracle cases: every machine state, without a job and with every job; (case, with_job) pairs."""
    for values in itertools.product(*(c[2] for c in machine)):
        my = {"START": start, **{c[1]: v for c, v in zip(machine, values)}}
        yield {"expr": "START =?= False", "my": my}, False
        for job_values in itertools.product(*(c[2] for c in job)):
            target = {c[1]: v for c, v in zip(job, job_values) if v is not None}
            yield {"expr": "START =?= False", "my": my, "target": target}, True


def _abstract(start: str, with_job: bool) -> frozenset:
    job_attrs = {c[1].upper() for c in JOB}
    resolve = {"START": parse(start)}.get
    outcomes = Outcomes(lambda name: resolve(name.upper()),
                        lambda scope, name: scope == "TARGET" or (scope is None and name.upper() in job_attrs),
                        job=ANY_JOB if with_job else NO_JOB)
    return outcomes.outcomes(parse("START =?= False"))


def test_isowner_outcomes_match_htcondor(oracle):
    policies = list(_policies(150, seed=501))
    cases, index = [], []
    for number, (start, machine, job) in enumerate(policies):
        for case, with_job in _cases(start, machine, job):
            cases.append(case)
            index.append((number, with_job))
    results = oracle.classad_eval_many(cases)
    seen: dict[tuple[int, bool], set] = {}
    for (number, with_job), result in zip(index, results):
        seen.setdefault((number, with_job), set()).add(_kind(result))
    mismatches = []
    for number, (start, _machine, _job) in enumerate(policies):
        for with_job in (False, True):
            want, got = seen[(number, with_job)], set(_abstract(start, with_job))
            if want != got:
                mismatches.append((start, with_job, sorted(want), sorted(got)))
    assert mismatches == []


@pytest.mark.parametrize("start, reported", [
    ('$(START) && TARGET.Owner == "x"', False),            # AND-ed job clause: Owner state still works
    ('KeyboardIdle > 900 || TARGET.Owner == "x"', True),   # OR-ed: START undefined when the keyboard is busy
    ('!(TARGET.Owner == "x")', True),                      # negated: undefined whatever the machine does
    ('$(START) && (TARGET.Owner =!= "x")', False),          # guarded
    ('$(START) && (isUndefined(TARGET.X) || TARGET.X > 1)', False),
])
def test_rule_follows_three_valued_logic(tmp_path, start, reported):
    from condorcfg.lint import engine

    path = tmp_path / "condor_config"
    path.write_text(f"use POLICY : Desktop\nSTART = {start}\n")
    codes = [f.code for f in engine.run(str(path)).findings]
    assert ("POL501" in codes) is reported

