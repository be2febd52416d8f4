"""Every rule's examples from rules/*.yaml, run through the whole linter (reader + all rules).

A ``fail`` example must give at least one finding of its rule, a ``pass`` example none.
Cases that cannot pass yet are listed, each with the reason, in
tests/data/lint_golden/known_example_failures.json; a listed case that starts passing fails
its test (so the list stays exact) until it is removed from the list.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import EXAMPLE_MACHINE, RuleFileError, RuleSet, load_rules  # (the pages' machine too)
from condorcfg.machine import MachineProfile, from_mapping

ROOT = Path(__file__).resolve().parents[1]
KNOWN_FAILURES_FILE = ROOT / "tests" / "data" / "lint_golden" / "known_example_failures.json"
KNOWN_FAILURES: dict[str, str] = json.loads(KNOWN_FAILURES_FILE.read_text())
try:
    RULES, LOAD_ERROR = load_rules([ROOT / "rules"]), None
except RuleFileError as exc:  # reported by test_rule_files_load, not as a collection crash
    RULES, LOAD_ERROR = RuleSet([]), exc.diagnostic.format()



def _cases():
    for rule in RULES:
        for kind, examples in (("fail", rule.fail_examples), ("pass", rule.pass_examples),
                               ("silent", rule.silent_examples)):
            for number, example in enumerate(examples, 1):
                yield pytest.param(rule, kind, example, id=f"{rule.code}-{kind}-{number}")


CASES = list(_cases()) or [pytest.param(None, None, None, id="no-rules-loaded")]


def _findings(example, tmp_path):
    path = tmp_path / "condor_config"
    path.write_text(example.config)
    machine = from_mapping(example.machine or {}, source="<example>",
                           base=MachineProfile(**EXAMPLE_MACHINE, source="<example>"))
    # each example is a whole configuration (rules that need one run)
    from condorcfg import releases

    targets = [releases.resolve(t) for t in example.target_version]
    return engine.run(str(path), machine=machine, settings=engine.LintSettings(select=["ALL"], target_versions=targets),
                      ruleset=RULES, whole=True).findings


@pytest.mark.parametrize("rule, kind, example", CASES)
def test_example(rule, kind, example, tmp_path, request):
    assert rule is not None, f"no rule examples to run: {LOAD_ERROR}"
    case_id = request.node.callspec.id
    findings = _findings(example, tmp_path)
    mine = [f for f in findings if f.code == rule.code]
    crashes = [f.message for f in findings if f.rule == engine.INTERNAL_ERROR]
    ok = bool(mine) if kind == "fail" else not mine
    where = f"{rule.file}:{example.line}"
    if case_id in KNOWN_FAILURES:
        assert not ok, (f"{case_id} ({where}) now behaves: remove it from {KNOWN_FAILURES_FILE.name} "
                        f"(was: {KNOWN_FAILURES[case_id]})")
        return
    assert not crashes, f"{where}: a rule crashed on this example: {crashes}"
    if kind == "fail":
        assert mine, f"{where}: fail example gave no {rule.code} finding; got {[f.format() for f in findings]}"
    else:
        assert not mine, f"{where}: pass example gave {[f.format() for f in mine]}"


def test_rule_files_load():
    assert LOAD_ERROR is None, LOAD_ERROR


def test_known_failures_name_existing_cases():
    ids = {case.id for case in CASES}
    stale = sorted(set(KNOWN_FAILURES) - ids)
    assert not stale, f"{KNOWN_FAILURES_FILE.name} lists cases that do not exist: {stale}"
    assert all(reason.strip() for reason in KNOWN_FAILURES.values()), "every known failure needs its reason"


def test_every_rule_has_a_fail_example():
    # No configuration alone provokes an internal error or a stale baseline entry (tests/test_baseline.py).
    from condorcfg.lint.declarative import NO_FAIL_EXAMPLE

    missing = [r.code for r in RULES if not r.fail_examples and (r.match or {}).get("engine") not in NO_FAIL_EXAMPLE]
    assert not missing


def test_rule_docs_are_up_to_date():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    from make_rule_docs import differences

    problems = differences()
    assert not problems, f"docs/rules is out of date ({problems}); run: python tools/make_rule_docs.py"
