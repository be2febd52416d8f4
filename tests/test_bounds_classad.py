"""Hostile ClassAd input ends in bounded time and memory, per command, with a diagnostic naming the limit.

condorcfg runs in CI on configuration anyone proposes, so each case a hostile-input campaign
found is closed here as a class, by generated families of inputs rather than the one example:

* regular expressions: every regex an evaluation (or command) matches shares one deadline,
  whatever the pattern; long literal patterns stay fast; the regex module gives HTCondor's
  answers where PCRE2 reads braces and escapes its own way;
* work: attributes that share work (``A_i = A_{i+1} + A_{i+1}``) and costly leaves under them
  (long strings, lists, eval(), unparse(), regexes) spend one budget for the whole command;
* no traceback: every function given extreme numbers or huge texts returns a value, and the
  values HTCondor gives (oracle) where it gives one.

Budgets are made small here (``command_budget(Budget(...))``) so the tests are quick; the
default limits are checked through the command line.
"""
from __future__ import annotations

import itertools
import random
import time
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from condorcfg.classad import budget as budget_module
from condorcfg.classad import functions
from condorcfg.classad.budget import Budget, command_budget
from condorcfg.classad.evaluator import evaluate
from condorcfg.classad.parser import ClassAdSyntaxError, parse
from condorcfg.classad.printer import unparse
from condorcfg.classad.values import ERROR, ClassAd, type_name

SLACK = 1.5  # seconds of CPU allowed on top of a budget (interpreter, loaded CI machine)


def cpu():
    return time.process_time()


def doubling_ad(leaf: str, levels: int = 40, extra: dict | None = None) -> ClassAd:
    """``A0 = A1 + A1`` ... ``A{levels} = leaf``: evaluating A0 runs ``leaf`` 2**levels times."""
    from condorcfg.classad.evaluator import as_ad

    ad = {f"A{i}": f"A{i + 1} + A{i + 1}" for i in range(levels)}
    ad[f"A{levels}"] = leaf
    ad.update(extra or {})
    return as_ad(ad)


# --- regular expressions: one deadline, whatever the pattern ---------------------------------------

def hostile_patterns(n: int = 30) -> list[tuple[str, str]]:
    """(pattern, subject) pairs that backtrack exponentially or polynomially in a backtracking engine."""
    a = "a" * n
    return [
        (f"(a?){{{n}}}a{{{n}}}", a),
        (f"(a{{1,{n}}}){{1,{n}}}b", a),
        ("(a+)+$", a + "!"),
        ("(a|aa)+$", a * 2 + "!"),
        ("(a*)*$", a * 2 + "!"),
        ("(.*a){20}", a + "b" * 2000),
        (r"^(\w+\s?)*$", "aaaa " * 12 + "!"),
        ("(x+x+)+y", "x" * 40),
        ("9" * 4000, "9" * 3999 + "8"),
        ("(?:9)" * 1500, "9" * 3000),
    ]


@pytest.mark.parametrize("pattern, subject", hostile_patterns())
def test_each_hostile_regex_ends_within_the_regex_time(pattern, subject):
    with command_budget(Budget(regex_seconds=0.2)) as budget:
        start = cpu()
        value = evaluate(f'regexp("{pattern}", "{subject}")')
        took = cpu() - start
    assert value is ERROR or type(value) is bool
    assert took < 0.2 + SLACK
    assert value is not ERROR or budget.spent == "regex"


def test_every_regex_of_an_evaluation_shares_one_deadline():
    # before: each caught pattern cost its own 2 s child process (six: 12 s), and the others ran unbounded
    parts = [f'isError(regexp("{p}", "{s}"))' for p, s in hostile_patterns()]
    with command_budget(Budget(regex_seconds=0.3)) as budget:
        start = cpu()
        value = evaluate(" + ".join(f"({p} ? 1 : 0)" for p in parts))
        took = cpu() - start
    assert isinstance(value, int)
    assert took < 0.3 + SLACK
    assert budget.spent == "regex" and "REGEX_SECONDS" in budget.message()


def test_a_spent_regex_budget_makes_later_regexes_error_at_once():
    with command_budget(Budget(regex_seconds=0.1)):
        assert evaluate(f'regexp("(a{{1,30}}){{1,30}}b", "{"a" * 30}")') is ERROR
        start = cpu()
        for _ in range(200):  # a command evaluating many more regexes: no time each
            assert evaluate('regexp("a", "a")') is ERROR
        assert cpu() - start < 0.5
        assert evaluate("1 + 1") == 2  # the rest of evaluation goes on, as after PCRE2's match limit


def test_regex_budget_is_per_command_across_evaluations():
    pattern, subject = hostile_patterns()[1]
    with command_budget(Budget(regex_seconds=0.3)):
        start = cpu()
        results = [evaluate(f'regexp("{pattern}", "{subject}")') for _ in range(20)]
        took = cpu() - start
    assert set(map(type_name, results)) == {"error"}
    assert took < 0.3 + SLACK  # 20 evaluations, one deadline


@pytest.mark.parametrize("text", [
    "9" * 5000, "ab" * 2500, "9999[9]" * 600, "(?:9)" * 1500, "99(?:)" * 1500, r"\." * 3000, " " * 4000,
    "(?:99|99)" * 800, "x{1}" * 1500,
])
def test_long_literal_patterns_keep_to_the_deadline(text):
    # the regex module builds its string-search tables in time cubic in a literal's length, deaf to
    # its timeout (5,000 characters: a minute); condorcfg never lets a literal grow long, so a long
    # pattern costs what its matching costs, and that keeps to the deadline
    subject = text.replace("\\", "").replace("[", "").replace("]", "").replace("(?:)", "")[:5000]
    for target in (subject, subject[:-1] + "#"):
        with command_budget(Budget(regex_seconds=0.3)):
            start = cpu()
            value = evaluate(f'regexp("{text}", "{target}")')
            assert cpu() - start < 0.3 + SLACK
        assert value in (True, False) or value is ERROR


_ATOMS = ["a", "b", "9", ".", "[ab]", "[^a]", r"\d", r"\.", "(?:ab)", "(a)", "(?:a|b)", "a?", "b*", "9+", "a{2}",
          "(?:b){1,2}", "^", "$", r"\b", "(?P<n>a)", " "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), min_size=20, max_size=120), st.text("ab9. ", max_size=60),
       st.sampled_from(["", "i", "x"]))
def test_breaking_literal_runs_never_changes_an_answer(atoms, subject, opts):
    import regex

    pattern = "".join(atoms)
    flags = (regex.IGNORECASE if "i" in opts else 0) | (regex.VERBOSE if "x" in opts else 0) | regex.VERSION0
    plain = regex.compile(pattern, flags)
    broken = regex.compile(functions._break_literal_runs(pattern, "x" in opts), flags)
    for text in (subject, subject * 3, "ab9" * 20):
        want, got = plain.search(text), broken.search(text)
        assert (want is None) == (got is None), (pattern, text)
        if want is not None:
            assert want.span() == got.span() and want.groups() == got.groups(), (pattern, text)


# PCRE2 reads a brace that starts no quantifier, and escapes the regex module knows, its own way
PCRE_SYNTAX = [
    'regexp("a{,2}", "a{,2}")', 'regexp("a{,2}", "aa")', 'regexp("a{ 2}", "aa")', 'regexp("a{2 }", "a{2 }")',
    'regexp("a{}", "a{}")', 'regexp("a{1,2,3}", "a{1,2,3}")', 'regexp("(ab){e<=1}", "ax")',
    'regexp("x{2,1}", "xx")', 'regexp("a{2}", "aa")', 'regexp("[[:digit:]]{3}", "x123")',
]


def test_regex_syntax_edges_give_htcondors_answers(oracle):
    cases = PCRE_SYNTAX + ['regexp("\\\\m", "m")', 'regexp("\\\\M", "M")']
    expected = oracle.classad_eval_many([{"expr": c} for c in cases])
    for case, want in zip(cases, expected):
        got = evaluate(parse(case, "new"))
        assert (type_name(got), unparse(got) if type_name(got) != "bool" else str(got).lower()) == \
            (want["type"], want["value"] if want["type"] != "string" else unparse(want["value"])), case


# --- work: one budget for the command ---------------------------------------------------------------

def test_shared_attributes_spend_one_budget_for_every_slot():
    # before: each evaluation had 2,000,000 dereferences of its own, times every slot (hours for 64 slots)
    ad = doubling_ad("1")
    with command_budget(Budget(work=200_000)) as budget:
        start = cpu()
        values = [evaluate("A0", my=ad) for _slot in range(64)]
        took = cpu() - start
    assert values == [ERROR] * 64
    assert budget.spent == "work" and budget.failed
    assert "WORK_LIMIT" in budget.message() and "200,000" in budget.message()
    assert took < 0.5 + SLACK


def test_an_evaluation_outside_any_command_has_a_budget_of_its_own():
    ad = doubling_ad("1")
    assert evaluate("A0", my=ad) is ERROR
    assert evaluate("A30", my=ad) == 1 << 10  # the next evaluation starts afresh
    assert budget_module.current() is None


def test_small_sharing_fits_the_budget():
    ad = doubling_ad("1", levels=12)
    with command_budget(Budget(work=100_000)) as budget:
        assert evaluate("A0", my=ad) == 4096
    assert budget.spent is None


BIG = "x" * 1_000_000
COSTLY_LEAVES = {
    "strcat of a long string": ('size(strcat(X, X, X, X, X, X, X, X, X, X, X, X, X, X, X))', {}),
    "strcat of a string many times": ("size(strcat(" + ", ".join(["X"] * 300) + "))", {}),
    "join of a long list": ("size(join(X, L))", {"L": "{" + ", ".join(["X"] * 200) + "}"}),
    "toUpper": ("size(toUpper(X))", {}),
    "substr": ("size(substr(X, 1))", {}),
    "string list": ('stringListSize(S)', {"S": '"' + "a," * 200_000 + '"'}),
    "string list member": ('stringListMember("b", S)', {"S": '"' + "a," * 200_000 + '"'}),
    "split": ("size(split(S))", {"S": '"' + "a " * 200_000 + '"'}),
    "args": ('size(argsToList(S))', {"S": '"' + "a " * 200_000 + '"'}),
    "environment": ('size(envV1ToV2(S))', {"S": '"' + "a=b;" * 100_000 + '"'}),
    "version compare": ("versionCmp(X, Y)", {"Y": '"' + "x" * 999_999 + 'y"'}),
    "string compare": ("X == Y", {"Y": '"' + "x" * 999_999 + 'y"'}),
    "identical": ("X =?= Y", {"Y": '"' + "x" * 999_999 + 'y"'}),
    "unparse": ("size(unparse(L))", {"L": "{" + ", ".join(["X"] * 50) + "}"}),
    "eval": ('eval(strcat("1 + ", E))', {"E": '"' + " + ".join(["1"] * 2000) + '"'}),
    "evalInEachContext": ("size(evalInEachContext(B, L))",
                          {"B": "1 + 2 + 3 + 4 + 5", "L": "{" + ", ".join(["[a = 1]"] * 2000) + "}"}),
    "unresolved": ("size(unresolved(U))", {"U": " + ".join(f"Z{i}" for i in range(3000))}),
    "regexp": ('regexp("(a{1,30}){1,30}b", "' + "a" * 30 + '")', {}),
    "replaceAll": ('size(replaceAll("x", X, "yy"))', {}),
    "regexpMember": ('regexpMember("b$", L)', {"L": "{" + ", ".join(['"a"'] * 3000) + "}"}),
}


@pytest.mark.parametrize("name", sorted(COSTLY_LEAVES))
def test_a_costly_leaf_under_shared_attributes_is_bounded(name):
    leaf, extra = COSTLY_LEAVES[name]
    ad = doubling_ad(leaf, extra={"X": f'"{BIG}"', **extra})
    with command_budget(Budget(work=400_000, bytes=64 * 1024 * 1024, regex_seconds=0.2)) as budget:
        start = cpu()
        value = evaluate("A0", my=ad)
        again = evaluate("A0", my=ad)
        took = cpu() - start
    assert value is ERROR and again is ERROR
    assert budget.spent in ("work", "bytes", "regex")
    assert took < 1.0 + SLACK, name


def test_the_bytes_budget_names_its_limit():
    ad = doubling_ad("size(strcat(X, X, X, X))", extra={"X": f'"{BIG}"'})
    with command_budget(Budget(bytes=20 * 1024 * 1024)) as budget:
        assert evaluate("A0", my=ad) is ERROR
    assert budget.spent == "bytes" and "BYTES_LIMIT" in budget.message()


def test_repeating_a_long_string_never_builds_it():
    # strcat/join of one 8 MB string 2,000 times: refused before joining (was a MemoryError at 16 GB)
    ad = {"X": '"' + "y" * 8_000_000 + '"'}
    tracemalloc.start()
    try:
        assert evaluate("strcat(" + ", ".join(["X"] * 2000) + ")", my=ad) is ERROR
        assert evaluate('join(",", {' + ", ".join(["X"] * 2000) + "})", my=ad) is ERROR
        assert evaluate("listToArgs({" + ", ".join(["X"] * 2000) + "})", my=ad) is ERROR
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 120 * 1024 * 1024


def test_a_long_string_list_costs_memory_in_proportion():
    # 16 M one-letter items would be ~1 GB of Python strings; the budget stops it first
    ad = {"S": '"' + "a," * 4_000_000 + '"'}
    with command_budget(Budget(bytes=64 * 1024 * 1024)) as budget:
        tracemalloc.start()
        try:
            value = evaluate("size(split(S))", my=ad)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert value is ERROR and budget.spent == "bytes"
    assert peak < 200 * 1024 * 1024


def test_a_spent_budget_fails_every_later_evaluation_at_once():
    with command_budget(Budget(work=50_000)) as budget:
        assert evaluate("A0", my=doubling_ad("1")) is ERROR
        start = cpu()
        assert all(evaluate("A5", my=doubling_ad("1", levels=5)) is ERROR for _ in range(500))
        assert cpu() - start < 1.0
    assert budget.failed


def test_budgets_nest_into_the_command_budget():
    with command_budget(Budget(work=10_000)) as outer:
        with command_budget() as inner:
            assert inner is outer
        assert budget_module.current() is outer
    assert budget_module.current() is None


def test_slot_ads_share_one_budget_and_say_so():
    from test_slots_support import FakeConfig, machine

    from condorcfg.slots import build_slot_ads

    config = "".join(f"A{i} = A{i + 1} + A{i + 1}\n" for i in range(40)) + "A40 = 1\n"
    config += "STARTD_ATTRS = " + " ".join(f"A{i}" for i in range(41)) + "\nSTART = A0 > 0\nNUM_SLOTS = 16\n"
    config += "NUM_SLOTS_TYPE_1 = 16\nSLOT_TYPE_1_PARTITIONABLE = false\n"
    with command_budget(Budget(work=300_000)):
        start = cpu()
        ads = build_slot_ads(FakeConfig(config), machine())
        took = cpu() - start
    assert took < 1.0 + SLACK
    errors = [d.message for d in ads.diagnostics if d.severity == "error"]
    assert any("WORK_LIMIT" in m for m in errors), errors
    assert not any("IsOwner evaluates to" in m for m in errors)  # no false claim about the policy


# --- no traceback: extreme numbers and huge texts ------------------------------------------------------

EXTREMES = ['real("INF")', 'real("-INF")', 'real("NaN")', "9223372036854775807", "-9223372036854775808", "1e308",
            "2147483648", "-1", "0", '"x"', '""', 'relTime(real("INF"))', 'relTime(real("NaN"))',
            "absTime(9223372036854775807)", "{1, 2}", "[a = 1]", "undefined", '"%Y%Y"',
            '"0x' + "f" * 5000 + '"', '"' + "9" * 5000 + '"', '"0x1p' + "9" * 5000 + '"', '"1e99999"',
            "[Year = 99999999999; Month = 99; Day = 99]"]


def _calls(rng: random.Random):
    """Every function with every one-argument extreme, and a fixed sample of two- and three-argument ones."""
    for name, (low, high, _impl, _kind) in sorted(functions.FUNCTIONS.items()):
        top = min(3 if high is None else high, 3)
        for n in range(low, top + 1):
            combos = list(itertools.product(EXTREMES, repeat=n)) if n <= 1 else \
                [tuple(rng.choice(EXTREMES) for _ in range(n)) for _ in range(60)]
            for args in combos:
                yield f"{name}({', '.join(args)})"


def test_no_function_raises_on_extreme_arguments():
    crashes = []
    for text in _calls(random.Random(20261123)):
        try:
            tree = parse(text)
        except ClassAdSyntaxError:
            continue  # relTime("x") / absTime("x") of a literal are parse errors, as in HTCondor
        try:
            value = evaluate(tree)
            unparse(value)
        except Exception as exc:  # the finding: any exception at all
            crashes.append(f"{text[:80]}: {type(exc).__name__}: {exc}")
    assert not crashes, "\n".join(crashes[:20])


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_integer_literals_of_any_length_read_as_htcondor_reads_them(digits):
    # std::from_chars: out of range gives 0 (Python's int() refuses more than 4,300 digits)
    for syntax in ("old", "new"):
        assert evaluate(parse("1" * digits, syntax)) == 0
        assert evaluate(parse("-" + "7" * digits, syntax)) == 0
        assert evaluate(parse("0" * 0 + "5" + "0" * 0, syntax)) == 5
    assert evaluate(parse(f'relTime("{"9" * digits}d")')) == evaluate(parse('relTime("0")'))


EDGES = [
    'relTime(real("INF"))', 'relTime(real("NaN"))', 'relTime(real("-INF"))', 'string(relTime(real("INF")))',
    'getDays(relTime(real("INF")))', 'getHours(relTime(real("NaN")))', 'getSeconds(relTime(real("INF")))',
    'getYear(relTime(real("INF")))', 'int(relTime(real("NaN")))', 'int(real("INF"))', 'int(real("NaN"))',
    'floor(real("INF"))', 'ceiling(real("NaN"))', 'round(real("-INF"))', 'absTime(real("INF"))',
    'absTime(real("NaN"))', "absTime(9223372036854775807)", "absTime(1e300)", 'absTime(relTime(real("INF")))',
    "formatTime(1e300)", 'formatTime(real("INF"))', 'interval(real("INF"))', "interval(9223372036854775807)",
    'quantize(real("INF"), 9223372036854775807)', 'quantize(real("NaN"), 2)', 'quantize(5, real("INF"))',
    "pow(2, 9223372036854775807)", "pow(10, 400)", "pow(-2, 63)", "pow(2.0, 99999)", "pow(0, -1)",
    'int("0x1p99999")', 'real("0x1p99999")', 'real("0x' + "f" * 300 + '")', 'int("1e999999")',
    'substr("abc", 9223372036854775807)', 'substr("abc", -9223372036854775808, 9223372036854775807)',
    'substr("abc", 1, -9223372036854775808)', "relTime(9223372036854775807)",
    "string(relTime(-9223372036854775808))", "relTime(9223372036854775807) * 2", "1" * 5000, "-" + "1" * 5000,
    '1e' + "9" * 5000, 'relTime("' + "9" * 5000 + '")', 'relTime("1:' + "9" * 5000 + '")',
    'int("' + "9" * 5000 + '")',
]


def test_extreme_values_are_htcondors(oracle):
    expected = oracle.classad_eval_many([{"expr": c} for c in EDGES])
    wrong = []
    for case, want in zip(EDGES, expected):
        got = evaluate(parse(case))
        text = {"bool": lambda v: str(v).lower(), "string": lambda v: v}.get(type_name(got), unparse)(got)
        want_text = want.get("value")
        if want.get("type") == "real" and type_name(got) in ("real", "reltime"):
            want_text = unparse(evaluate(parse(want_text)))  # HTCondor's %g print, read back
            text = unparse(got) if type_name(got) == "real" else text
        if type_name(got) == "reltime" and want.get("type") == "real":
            continue  # the oracle reports a relative time of infinity as a real; the text is checked above
        if (type_name(got), text) != (want.get("type"), want_text):
            wrong.append(f"{case[:60]}: got {type_name(got)} {text[:40]}, HTCondor {want}")
    assert not wrong, "\n".join(wrong)


# --- memory: a remembered syntax error keeps nothing of its callers alive ---------------------------

def test_cached_syntax_errors_keep_no_caller_alive():
    """The text cache remembers parse failures; raising a cached exception object attached each
    caller's frames (and, through them, whole configurations) to it: fuzzing saw 17 KB per input."""
    import gc
    import weakref

    from condorcfg.classad.evaluator import compiled_text_with_cost

    class Holder:
        pass

    def caller(text):
        holder = Holder()  # a local of the frame that sees the error
        try:
            compiled_text_with_cost(text)
        except ClassAdSyntaxError as exc:
            error = (exc.message, exc.line, exc.column, str(exc))
        return weakref.ref(holder), error

    texts = ["1 +", "a = = 1", 'strcat("x', "f(,)"] * 3  # each bad text several times: cached, raised again
    results = [caller(text) for text in texts]
    gc.collect()
    assert all(ref() is None for ref, _ in results)
    by_text: dict = {}
    for text, (_, error) in zip(texts, results):
        assert by_text.setdefault(text, error) == error  # the same diagnostic every time


# --- parsing: 2 s per MiB of text, whatever its shape -------------------------------------------------

MIB = 1 << 20


def _one_mib(kind: str) -> str:
    """About 1 MiB of expression text of one shape (nesting within the depth limit)."""
    rng = random.Random(kind)
    if kind == "list-of-clauses":
        item = '(TARGET.RequestMemory <= MY.Memory && KeyboardIdle > 15 * 60 || Owner == "alice")'
        return "{" + ",".join([item] * (MIB // (len(item) + 1))) + "}"
    if kind == "strings":
        return "{" + ",".join(f'"s{i}\\n\\t\\"{"é" * (i % 5)}"' for i in range(MIB // 14)) + "}"
    if kind == "numbers":
        return "{" + ",".join(str(rng.choice([rng.randint(0, 10 ** 12), rng.random() * 1e5, -rng.random()]))
                              for _ in range(MIB // 12)) + "}"
    if kind == "calls":
        return "{" + ",".join(f'strcat(A{i % 97}, "x", ifThenElse(B, 3, 4.5))' for i in range(MIB // 40)) + "}"
    if kind == "records":
        return "{" + ",".join(f"[ a{i} = {i}; b = a{i} + 1; c = {{ 1, 2 }} ]" for i in range(MIB // 36)) + "}"
    if kind == "nested-parens":  # 900 levels deep, repeated in a list
        deep = "(" * 900 + "x" + ")" * 900
        return "{" + ",".join([deep] * (MIB // len(deep))) + "}"
    if kind == "comments-and-blanks":
        return "{" + ",".join(f"  /* c{i} */ a{i} // x\n" for i in range(MIB // 22)) + "}"
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["list-of-clauses", "strings", "numbers", "calls", "records", "nested-parens",
                                  "comments-and-blanks"])
@pytest.mark.parametrize("syntax", ["old", "new"])
def test_a_mib_of_expression_text_parses_within_two_seconds(kind, syntax):
    from condorcfg.classad.parser import _parse_uncached

    text = _one_mib(kind)
    start = cpu()
    try:
        _parse_uncached(text, syntax)
    except ClassAdSyntaxError:  # (old syntax reads strings differently: a refusal is an answer too)
        pass
    took = cpu() - start
    assert took < 2 * len(text) / MIB + SLACK, f"{len(text) / MIB:.2f} MiB of {kind} took {took:.1f} s"


def test_an_evaluation_is_charged_its_tree_size():
    """compiled_with_cost counts the nodes while compiling (no second walk): the same count as tree_size."""
    from condorcfg.classad import evaluator
    from condorcfg.classad.parser import _parse_uncached

    from test_classad_grammar import _texts

    checked = 0
    for text in _texts(5, 2000):
        try:
            tree = _parse_uncached(text, "old")
        except ClassAdSyntaxError:
            continue
        assert evaluator.compiled_with_cost(tree)[2] == evaluator.tree_size(tree), text
        checked += 1
    assert checked > 1500
