"""Unit tests for the evaluator's limits and for built-in functions the vectors cannot pin down.

The value of almost every function is checked against HTCondor by
test_classad_vectors.py and test_classad_differential.py; this file covers
what needs no oracle: bounded time and memory on hostile input, the
injectable clock, PCRE syntax translation, and the value API.
"""
from __future__ import annotations

import pickle
import time

import pytest

from condorcfg.classad import functions
from condorcfg.classad.evaluator import MAX_DEPTH, as_ad, evaluate, to_python
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, ClassAdList, RelTime

NOW = 1_700_000_000  # 2023-11-14T22:13:20Z


def ev(text, my=None, target=None, now=NOW):
    return evaluate(text, my=my, target=target, now=now)


# --- hostile input ends in bounded time --------------------------------------------------------

def test_catastrophic_regex_is_cut_off():
    # (a{1,30}){1,30}b against a run of a's backtracks without end; the regex time stops it
    from condorcfg.classad.budget import REGEX_SECONDS

    start = time.process_time()
    result = ev(f'regexp("(a{{1,30}}){{1,30}}b", "{"a" * 30}")')
    elapsed = time.process_time() - start
    assert result is ERROR  # like PCRE2 hitting its match limit
    assert elapsed < REGEX_SECONDS + 2


def test_hostile_regex_in_list_functions_is_bounded_too():
    from condorcfg.classad.budget import REGEX_SECONDS

    subject = "a" * 60 + "b"
    start = time.process_time()
    # either the right answer in time (no match; (a*)*$ matches empty at the end), or error when the
    # time limit cuts it off (HTCondor: error, PCRE2's match limit)
    assert ev(f'regexpMember("(a|aa)+$", {{"{subject}"}})') in (False, ERROR)
    assert ev(f'stringList_regexpMember("(a*)*$", "{subject}")') in (True, ERROR)
    assert time.process_time() - start < 2 * REGEX_SECONDS + 2


def test_regexes_match_in_this_process_with_the_same_answers():
    # no child process any more: the regex module's timeout bounds every match in process
    assert functions.regex_run("(a+)+b", "xaab", "", None) is True
    assert functions.regex_run("(a+)+c", "xaab", "", None) is False
    assert functions.regex_run("(a+)", "caat", "f", "<\\1>") == "c<aa>t"
    assert functions.regex_run("(", "x", "", None) is ERROR


def test_string_amplification_is_capped():
    # each level multiplies the length by 9: without a cap this exhausts memory
    ad = {"A0": '"x"'}
    for i in range(1, 12):
        ad[f"A{i}"] = f'replaceAll("x", A{i - 1}, "xxxxxxxxx")'
    start = time.monotonic()
    assert ev("size(A11)", my=ad) is ERROR
    # ~4 s on an idle 2-core machine (the last allowed level builds a 43 MB string); generous for loaded CI
    assert time.monotonic() - start < 30


def test_exponential_attribute_sharing_hits_the_work_limit():
    ad = {f"B{i}": f"B{i + 1} + B{i + 1}" for i in range(40)}
    ad["B40"] = "1"
    start = time.monotonic()
    assert ev("B0", my=ad) is ERROR
    assert time.monotonic() - start < 20
    assert ev("B30", my=ad) == 1 << 10  # small sharing is fine


def test_attribute_chain_depth_matches_htcondor():
    # HTCondor 25 (EvalState depth 400): a chain of 399 references evaluates, 400 fails
    ad = {f"C{i}": f"C{i + 1}" for i in range(500)}
    ad["C500"] = "7"
    assert ev("C101", my=ad) == 7  # 399 references after the first
    assert ev("C100", my=ad) is ERROR
    plus = {f"D{i}": f"D{i + 1} + 1" for i in range(300)}
    plus["D300"] = "0"
    assert ev("D101", my=plus) == 199
    assert ev("D100", my=plus) is ERROR


def test_deep_expressions_do_not_raise():
    assert ev("1" + " + 1" * 350) == 351
    assert ev("1" + " + 1" * (MAX_DEPTH + 50)) is ERROR
    nested_lists = "{" * 200 + "}" * 200
    assert isinstance(ev(nested_lists), ClassAdList)


def test_cycles_are_undefined_where_they_reenter():
    ad = {"X": "Y", "Y": "isUndefined(X)", "S": "S + 1", "V": "1 + W", "W": "V ?: 5"}
    assert ev("X", my=ad) is True
    assert ev("S", my=ad) is UNDEFINED
    assert ev("V", my=ad) == 6
    assert ev("[a = b; b = a].a") is UNDEFINED


def test_evaluation_failures_become_error():
    assert ev("random(0)") is ERROR
    assert ev("1 + random(-2.5)") is ERROR
    assert ev(".A") is ERROR  # absolute reference with no ad at all


# --- clock, randomness, environment ------------------------------------------------------------

def test_clock_is_injectable():
    assert ev("time()") == NOW
    assert ev("CurrentTime", my={}) == NOW
    assert ev("currentTime()") == AbsTime(NOW, 0)
    assert ev("formatTime()", now=0) == "Thu Jan  1 00:00:00 1970"
    assert ev("dayTime()") == RelTime(NOW % 86400)
    assert ev("time()", now=lambda: 42) == 42
    assert abs(evaluate("time()") - time.time()) < 5


def test_random_stays_in_range():
    for _ in range(50):
        assert 0 <= ev("random(3)") < 3
        assert 0.0 <= ev("random(2.5)") < 2.5
        assert 0.0 <= ev("random()") < 1.0
    assert ev('random("x")') is ERROR


def test_user_functions_without_configuration():
    assert ev('userHome("no_such_user_zz")') is UNDEFINED
    assert ev('userHome("no_such_user_zz", "/fallback")') == "/fallback"
    assert ev('userMap("nomap", "bob")') is UNDEFINED
    assert ev('userMap("nomap", "bob", "x", "dflt")') == "dflt"


# --- PCRE syntax -------------------------------------------------------------------------------

@pytest.mark.parametrize("pattern, subject, expected", [
    (r"abc\z", "xabc", True),
    (r"abc\Z", "xabc\n", True),
    ("[[:digit:]]+x", "a12x", True),
    ("[[:alpha:]]", "123", False),
    ("(?<year>[0-9]{4})-", "2024-01", True),
    (r"\Qa.b\E", "axb", False),
    (r"\Qa.b\E", "a.b", True),
    (r"\h+", "a \tb", True),
    ("[]a]", "]", True),
])
def test_pcre_constructs(pattern, subject, expected):
    assert functions.regex_match(pattern, subject, "") is expected


def test_regex_options_and_errors():
    assert functions.regex_match("A B", "ab", "ix") is True
    assert functions.regex_match("^b", "a\nb", "m") is True
    assert functions.regex_match("a.b", "a\nb", "s") is True
    assert functions.regex_match("(", "x", "") is ERROR
    assert ev('regexps("(a)", "xay", "[\\1]")') == "[a]"  # old syntax: the backslash stays
    assert ev('replaceAll("a*", "baaac", "-")') is ERROR  # an empty match in a global replacement


# --- conversions and helpers -------------------------------------------------------------------

def test_strtod_prefix():
    assert functions.strtod_prefix(" 42abc") == 42.0
    assert functions.strtod_prefix("0x1p3") == 8.0
    assert functions.strtod_prefix("-inf") == float("-inf")
    assert functions.strtod_prefix("abc") is None
    assert functions.strtod_prefix("") is None


def test_reltime_printing_follows_htcondor():
    assert functions.format_reltime(90) == "01:30"
    assert functions.format_reltime(-90.5) == "-01:30"
    assert functions.format_reltime(-0.5) == "00"
    assert functions.format_reltime(90061) == "1+01:01:01"
    assert functions.format_reltime(1e308) == "--24855+-3:-14:-8"


def test_unknown_function_and_arity():
    assert ev("nosuchfunction(1)") is ERROR
    assert ev("strcat()") == ""
    assert ev("substr(\"abc\")") is ERROR
    assert ev("ifThenElse(true, 1)") is ERROR
    assert all(name == name.lower() for name in functions.FUNCTIONS)


def test_every_catalogued_function_is_implemented():
    # spec/classad.md §8.11
    catalogue = """absTime allCompare anyCompare argsToList avg bool ceil ceiling countMatches currentTime dayTime
    debug envV1ToV2 eval evalInEachContext floor formatTime getDays getDayOfMonth getDayOfWeek getDayOfYear getHours
    getMinutes getMonth getSeconds getYear identicalMember ifThenElse int interval isAbsTime isBoolean isClassAd
    isError isInteger isList isReal isRelTime isString isUndefined join listToArgs max member mergeEnvironment min
    pow quantize random real regexp regexpMember regexps relTime replace replaceAll round size split splitSlotName
    splitTime splitUserName strcat strcmp stricmp string stringListAvg stringListMax stringListMin stringListSize
    stringListSum stringListIMember stringListMember stringListISubsetMatch stringListSubsetMatch
    stringListsIntersect stringList_regexpMember substr sum time timeZoneOffset toLower toUpper unparse unresolved
    userHome userMap version_in_range versioncmp versionEQ versionGE versionGT versionLE versionLT""".split()
    missing = [name for name in catalogue if name.lower() not in functions.FUNCTIONS]
    assert not missing


# --- values API --------------------------------------------------------------------------------

def test_lists_are_lazy_and_convert_to_python():
    value = ev("{1, 1 + 1, A}", my={"A": '"x"'})
    assert isinstance(value, list) and len(value) == 3
    assert to_python(value) == [1, 2, "x"]
    assert to_python(ev("[a = 1; b = a + 1; c = {b}]")) == {"a": 1, "b": 2, "c": [2]}


def test_ads_accept_mappings_classads_and_text():
    ad = as_ad({"Memory": "2048", "Name": '"slot1"', "'odd name'": "3"})
    assert isinstance(ad, ClassAd)
    assert ev("Memory * 2", my=ad) == 4096
    assert ev("'odd name' + 1", my=ad) == 4
    assert ev("TARGET.Memory", my={}, target=ad) == 2048
    assert ev("Memory", my={}, target=ad) == 2048  # unscoped names fall back to TARGET
    assert ev("Memory", my=ad, target={"Memory": "1"}) == 2048
    assert ev("Bad", my={"Bad": "1 +"}) is ERROR


def test_values_pickle():
    ad = as_ad({"A": "1", "B": "A + 1"})
    assert ev("B", my=ad) == 2  # fills the compiled-code cache in the entries
    again = pickle.loads(pickle.dumps(ad))
    assert ev("B", my=again) == 2
    lst = ev("split(\"a b\")")
    assert pickle.loads(pickle.dumps(lst)) == lst
    assert pickle.loads(pickle.dumps(UNDEFINED)) is UNDEFINED


def test_trees_are_compiled_once():
    from condorcfg.classad.evaluator import compiled
    from condorcfg.classad.parser import parse

    tree = parse("A + 1")
    assert compiled(tree)[0] is compiled(tree)[0]
    assert evaluate(tree, my={"A": "1"}) == 2


def test_the_compiled_form_stays_with_its_tree_only():
    import gc

    from condorcfg.classad import parser
    from condorcfg.classad.evaluator import compiled
    from condorcfg.classad.parser import parse

    tree = parse("A + 1")
    assert evaluate(tree, my={"A": "1"}) == 2
    changed = tree.replace(op="-")  # a copy with another operator must not reuse the compiled "+"
    assert compiled(changed)[0] is not compiled(tree)[0] and evaluate(changed, my={"A": "1"}) == 0
    copied = pickle.loads(pickle.dumps(tree))
    assert copied == tree and evaluate(copied, my={"A": "1"}) == 2
    gc.collect()
    before = len(gc.get_objects())
    for i in range(200):  # fresh trees are freed with their compiled code: nothing accumulates
        evaluate(parser._parse_uncached(f"A + {i} * 2 > 3", "old"), my={"A": "1"})
    assert len(gc.get_objects()) - before < 200
