"""Every evaluation vector HTCondor 25.14.1 produced (shared/vectors/classad) against condorcfg's evaluator.

Comparison follows spec/classad.md §12: the printed value and the type must
match; ads are compared as unordered maps of attribute -> printed expression
(HTCondor's attribute order is its hash order); lists element by element.
Cases that cannot pass are listed with the reason in
tests/data/classad_vector_exceptions.json, and a test checks that list is exact.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorcfg.classad.evaluator import evaluate
from condorcfg.classad.parser import ClassAdSyntaxError, parse
from condorcfg.classad.printer import unparse
from condorcfg.classad.values import ClassAd, type_name

EXCEPTIONS_FILE = Path(__file__).parent / "data" / "classad_vector_exceptions.json"
EXCEPTIONS = json.loads(EXCEPTIONS_FILE.read_text())["cases"]


def _load(shared, name):
    path = shared("vectors", "classad", name)
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _canonical(node_text: str) -> str:
    """Expected list/ad text, re-printed so attribute order and spacing are canonical."""
    return unparse(parse(node_text, syntax="new"))


def _ad_map(text_or_ad) -> dict:
    from condorcfg.classad import ast

    if isinstance(text_or_ad, ClassAd):
        return {name.lower(): unparse(text_or_ad[name]) for name in text_or_ad}
    node = parse(text_or_ad, syntax="new")
    assert isinstance(node, ast.RecordExpr), text_or_ad
    return {name.lower(): unparse(expr) for name, expr in node.attrs}


def run_case(case: dict, native: bool = False):
    """(matches, detail) for one vector."""
    text = case["expr"]
    if case["type"] == "parse_error":
        try:
            parse(text, syntax="new" if native else "old")
        except ClassAdSyntaxError:
            return True, "parse error as expected"
        return False, "parsed, HTCondor rejects it"
    tree = parse(text, syntax="new" if native else "old")
    value = evaluate(tree, my=case["my"], target=case["target"])
    got_type = type_name(value)
    if got_type != case["type"]:
        return False, f"type {got_type} ({unparse(value)}), expected {case['type']} ({case['expect']})"
    if case["type"] == "classad":
        ok = _ad_map(value) == _ad_map(case["expect"])
    elif case["type"] == "list":
        ok = unparse(value) == _canonical(case["expect"])
    else:
        ok = unparse(value) == case["expect"]
    return ok, f"got {unparse(value)}, expected {case['expect']}"


def _all_cases(shared):
    return ([(c, False) for c in _load(shared, "vectors.jsonl")]
            + [(c, True) for c in _load(shared, "vectors-newsyntax.jsonl")])


def test_vectors(shared):
    failures = {}
    total = 0
    for case, native in _all_cases(shared):
        total += 1
        ok, detail = run_case(case, native)
        if not ok:
            failures[case["id"]] = detail
    unexpected = {k: v for k, v in failures.items() if k not in EXCEPTIONS}
    assert not unexpected, f"{len(unexpected)} of {total} vectors fail:\n" + "\n".join(
        f"  {k}: {v}" for k, v in sorted(unexpected.items()))
    # the exception list must be exact: a case that passes now comes off the list
    stale = sorted(set(EXCEPTIONS) - set(failures))
    assert not stale, f"listed as failing but passing now: {stale}"


def test_vector_count(shared):
    assert len(_load(shared, "vectors.jsonl")) >= 632
    assert len(_load(shared, "vectors-newsyntax.jsonl")) >= 19


@pytest.mark.parametrize("group", ["scope", "policy", "nest"])
def test_vector_groups_use_ads(shared, group):
    # guard against a vector file that silently lost its two-ad cases
    cases = [c for c in _load(shared, "vectors.jsonl") if c["id"].startswith(group + "-")]
    assert cases and any(c["my"] is not None or group == "nest" for c in cases)
