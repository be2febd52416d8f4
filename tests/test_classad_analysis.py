"""Static analysis: references() and partial_evaluate()."""
from __future__ import annotations

import pytest

from condorcfg.classad.analysis import Reference, partial_evaluate, partial_evaluate_detailed, references
from condorcfg.classad.evaluator import evaluate
from condorcfg.classad.parser import parse, parse_ad
from condorcfg.classad.printer import unparse
from condorcfg.classad.values import RelTime


def _names(text):
    return [(r.name, r.scope) for r in references(parse(text))]


def test_references_with_scopes_and_positions():
    refs = references(parse("MY.Memory >= TARGET.RequestMemory &&\n  Owner == \"x\" && .Top && parent.P"))
    assert refs == [Reference("Memory", "MY", 1, 1), Reference("RequestMemory", "TARGET", 1, 14),
                    Reference("Owner", None, 2, 3), Reference("Top", "ROOT", 2, 19),
                    Reference("P", "PARENT", 2, 27)]


def test_references_skip_names_bound_in_record_literals():
    assert _names("[a = 1; b = a + c].b") == [("c", None)]
    assert _names("[a = 1; b = [c = a + d]]") == [("d", None)]
    assert _names("[a = 1; b = TARGET.a]") == [("a", "TARGET")]


def test_references_through_selections_calls_and_lists():
    assert _names("x.y.z + f(g, {h, i[j]}) ?: k") == [("x", None), ("g", None), ("h", None), ("i", None),
                                                         ("j", None), ("k", None)]


SLOT = parse_ad("Cpus = 4\nMemory = 2048\nState = \"Unclaimed\"\nHalf = Memory / 2\nLoop = Loop + 1\n")


def _pe(text):
    return unparse(partial_evaluate(parse(text), SLOT))


def test_partial_evaluation_folds_the_slot_side():
    assert _pe("TARGET.RequestMemory <= MY.Memory") == "TARGET.RequestMemory <= 2048"
    assert _pe("Cpus > 2 && KeyboardIdle > 60") == "true && KeyboardIdle > 60"
    assert _pe("Cpus > 8 && TARGET.x") == "false"
    assert _pe("Cpus < 8 || TARGET.x") == "true"
    assert _pe("Half * 2") == "2048"
    assert _pe("State == \"Unclaimed\" ? TARGET.a : TARGET.b") == "TARGET.a"
    assert _pe("MY.NoSuch ?: Cpus") == "4"
    assert _pe("TARGET.x ?: Cpus") == "TARGET.x ?: 4"
    assert _pe("time() > Cpus") == "time() > 4"
    assert _pe("Loop") == "(Loop + 1)"  # a cycle stays symbolic


def test_partial_evaluation_reports_where_references_went():
    result = partial_evaluate_detailed(parse("Memory >= RequestMemory && TARGET.Cpus <= Cpus"), SLOT)
    assert [r.name for r in result.resolved] == ["Memory", "Cpus"]
    assert [(r.name, r.scope) for r in result.unresolved] == [("RequestMemory", None), ("Cpus", "TARGET")]


def test_partial_evaluation_agrees_with_full_evaluation_when_everything_is_known():
    for text in ["Cpus * 2 + Memory", "State =?= \"Unclaimed\" && Cpus >= 4", "Half / 3.0", "Cpus ?: 1"]:
        folded = partial_evaluate(parse(text), SLOT)
        assert unparse(folded) == unparse(evaluate(parse(text), my=SLOT)), text


@pytest.mark.parametrize("text, expected", [
    # HTCondor 25.14.1 (classad2): only a literal string is read as a time, when the text is parsed;
    # a string made at run time comes back unchanged from absTime() and as relTime(0) from relTime()
    ('absTime(strcat("2024-01-31T12:00:00Z", ""))', "2024-01-31T12:00:00Z"),
    ('relTime(strcat("1:00", ""))', RelTime(0)),
])
def test_folding_does_not_turn_a_run_time_string_into_a_time(text, expected):
    tree = parse(text)
    assert evaluate(tree) == expected
    assert evaluate(partial_evaluate(tree, SLOT)) == expected
