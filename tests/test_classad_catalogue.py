"""The catalogue of built-in ClassAd functions (condorcfg.classad.functions) is the one source of
facts about them: which are not constant (clock, chance, context, host) and which argument is a
regular expression.  Static analysis, the constant folder and the lint rules read it; nothing in
condorcfg keeps a second list, and every name it lists is a function the evaluator has."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import condorcfg
from condorcfg.classad.analysis import UNKNOWN, constant_value as fold
from condorcfg.classad import functions
from condorcfg.classad.parser import parse
from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def test_every_fact_names_a_function_the_evaluator_has():
    for table in (functions.DEPENDS_ON, functions.REGEX_ARGUMENT, functions.NOW_WITHOUT_ARGUMENTS):
        assert set(table) <= set(functions.FUNCTIONS), set(table) - set(functions.FUNCTIONS)
    assert set(functions.DEPENDS_ON.values()) <= {"clock", "chance", "context", "host"}
    for name, index in functions.REGEX_ARGUMENT.items():
        assert functions.FUNCTIONS[name][0] > index  # the pattern argument is always given


def _function_tables(module):
    """Module-level sets and dicts of a module whose keys are mostly ClassAd function names."""
    known = {name.lower() for name in functions.FUNCTIONS}
    shared = {id(value) for value in vars(functions).values()}
    for attribute, value in vars(module).items():
        if id(value) in shared:  # the catalogue's own table, imported
            continue
        if isinstance(value, (set, frozenset, dict)) and len(value) >= 3 and all(isinstance(k, str) for k in value):
            called = [k for k in value if k.lower() in known or k.lower().replace("_", "") in known]
            if len(called) >= len(value) / 2:
                yield attribute, value


def test_no_module_keeps_its_own_list_of_functions():
    """A second copy drifted twice (EXP404 folded formatTime(); EXP405 spelled a name wrongly)."""
    copies = []
    for info in pkgutil.walk_packages(condorcfg.__path__, "condorcfg."):
        if info.name in ("condorcfg.classad.functions", "condorcfg.__main__") or ".commands" in info.name:
            continue
        module = importlib.import_module(info.name)
        copies += [f"{info.name}.{attribute}" for attribute, _ in _function_tables(module)]
    assert not copies, f"function facts kept outside the catalogue: {copies}"


@pytest.mark.parametrize("text, constant", [
    ('absTime("2024-01-31T12:00:00Z")', True),
    ("absTime()", False),
    ("time()", False),
    ("random(10)", False),
    ('substr(formatTime(), 0, 3) == "Sat"', False),
    ('formatTime(0, "%a")', False),  # local time of the host: not the pool's on a CI runner
    ('eval("1 + 1")', False),
    ('strcat("a", "b")', True),
    ('stringListMember("a", "a,b")', True),
    ('splitUserName("a@b")', True),
    ("noSuchFunction(1)", True),  # always ERROR
])
def test_folding_follows_the_catalogue(text, constant):
    node = parse(text)
    assert (fold(node) is not UNKNOWN) == constant


def _lint(tmp_path, text, select):
    path = tmp_path / "condor_config"
    path.write_text(text)
    settings = engine.LintSettings()
    settings.select = list(select)
    return engine.run([str(path)], settings=settings, ruleset=RULES).findings


@pytest.mark.parametrize("start", [
    'substr(formatTime(), 0, 3) == "Sat"',
    'getDayOfWeek(absTime()) == 6',
    "time() % 2 == 0",
    "random(2) == 1",
])
def test_a_start_that_depends_on_the_time_is_not_called_constant(tmp_path, start):
    """EXP404 said `START = substr(formatTime(),0,3) == "Sat"` was always false: wrong on Saturdays."""
    assert not _lint(tmp_path, f"START = {start}\n", ["EXP404"])


def test_a_constant_start_is_still_reported(tmp_path):
    assert _lint(tmp_path, 'START = strcat("a", "b") == "c"\n', ["EXP404"])


@pytest.mark.parametrize("call", [
    'stringList_regexpMember("[a-", "x,y")',
    'stringlist_regexpmember("(", "x,y", ",")',
    'regexp("[a-", "x")',
    'regexpMember("a{2,1}", {"b"})',
    'replaceAll("(", "x", "y")',
])
def test_every_regex_function_has_its_pattern_checked(tmp_path, call):
    """EXP405 spelled stringlistregexpmember and never checked that function's pattern."""
    findings = _lint(tmp_path, f"START = {call}\n", ["EXP405"])
    assert len(findings) == 1 and "not a valid regular expression" in findings[0].message


@pytest.mark.parametrize("call", ['regexp("(?i)a++b", "x")', 'stringList_regexpMember("^a.*$", "x,y")',
                                  r'regexp("\\d{2}", "12")', 'regexp("(?<n>a)\\\\k<n>", "aa")'])
def test_valid_patterns_are_not_reported(tmp_path, call):
    assert not _lint(tmp_path, f"START = {call}\n", ["EXP405"])


@pytest.mark.parametrize("text, folded", [
    ('strcat("a", "b") == "ab"', "true"),
    ('toUpper("a") == "A"', "true"),
    ("absTime() > 0", None),
    ('substr(formatTime(), 0, 3) == "Sat"', None),
    ("random(3) < 5", None),
])
def test_partial_evaluation_follows_the_catalogue(text, folded):
    from condorcfg.classad import analysis
    from condorcfg.classad.printer import unparse

    reduced = unparse(analysis.partial_evaluate(parse(text), {}))
    if folded is None:
        assert reduced.replace(" ", "") == text.replace(" ", "")
    else:
        assert reduced == folded
