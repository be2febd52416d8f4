"""Parser and printer: the shared oracle vectors, HTCondor's lexical quirks, ads, limits."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from condorcfg.classad import ast, lexer
from condorcfg.classad.parser import MAX_DEPTH, ClassAdSyntaxError, parse, parse_ad, parse_ads
from condorcfg.classad.printer import unparse, unparse_ad
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd

ROOT = Path(__file__).resolve().parents[1]


def _load(shared, name):
    with open(shared("vectors", "classad", name)) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _try(text, syntax):
    try:
        return parse(text, syntax)
    except ClassAdSyntaxError:
        return None


# ---------------------------------------------------------------- shared vectors


def test_parse_vectors_native(shared):
    cases = _load(shared, "parse-vectors.jsonl")
    assert len(cases) >= 60
    failures = []
    for case in cases:
        node = _try(case["expr"], "new")
        got = None if node is None else unparse(node)
        if (node is not None) != case["native_full"] or got != case["native_unparse"]:
            failures.append((case["id"], case["expr"], got, case["native_unparse"]))
    assert not failures


def test_parse_vectors_old_syntax(shared):
    # condorcfg parses whole values (as the config reader does); the vector
    # records the prefix reader, so: a full old-syntax parse may only succeed
    # where the prefix reader succeeds, and then must print the same.
    failures = []
    for case in _load(shared, "parse-vectors.jsonl"):
        node = _try(case["expr"], "old")
        if node is None:
            if case["native_full"] and '"' not in case["expr"]:
                failures.append((case["id"], "old syntax rejected a valid expression"))
            continue
        if not case["old_prefix"] or unparse(node) != case["old_unparse"]:
            failures.append((case["id"], case["expr"], unparse(node), case["old_unparse"]))
    assert not failures


def test_every_vector_expression_and_attribute_parses(shared):
    failures = []
    cases = _load(shared, "vectors.jsonl")
    assert len(cases) > 600
    for case in cases:
        texts = [case["expr"]] + list((case.get("my") or {}).values()) + list((case.get("target") or {}).values())
        for text in texts:
            try:
                parse(text, "old")
            except ClassAdSyntaxError as exc:
                failures.append((case["id"], text, str(exc)))
    assert not failures


def test_newsyntax_vectors(shared):
    failures = []
    for case in _load(shared, "vectors-newsyntax.jsonl"):
        node = _try(case["expr"], "new")
        if (node is None) != (case["type"] == "parse_error"):
            failures.append(case["id"])
        for value in (case.get("my") or {}).values():
            if _try(value, "new") is None:
                failures.append(case["id"] + " my")
    assert not failures


def test_newsyntax_string_escapes(shared):
    # the string-valued new-syntax vectors whose expression is one literal: the parsed value prints as expected
    checked = 0
    for case in _load(shared, "vectors-newsyntax.jsonl"):
        node = _try(case["expr"], "new")
        if type(node) is ast.Literal and case["type"] == "string":
            assert unparse(node.value) == case["expect"], case["id"]
            checked += 1
    assert checked >= 5


def test_expected_values_round_trip_through_printer(shared):
    # every printed result in the vectors is itself ClassAd text: parsing it
    # (new syntax, as it was printed) and printing again must give it back
    checked = 0
    for case in _load(shared, "vectors.jsonl") + _load(shared, "vectors-newsyntax.jsonl"):
        if case["type"] in ("int", "real", "string", "bool", "list", "classad", "undefined", "error"):
            assert unparse(parse(case["expect"], "new")) == case["expect"], case["id"]
            checked += 1
    assert checked > 600


def test_literal_vectors_print_like_htcondor(shared):
    # expressions that are a literal, list or record print as the evaluated value
    checked = 0
    for case in _load(shared, "vectors.jsonl"):
        node = parse(case["expr"], "old")
        if type(node) in (ast.Literal, ast.ListExpr, ast.RecordExpr) and case["my"] is None:
            assert unparse(node) == case["expect"], case["id"]
            checked += 1
    assert checked >= 15


# ---------------------------------------------------------------- lexical rules


@pytest.mark.parametrize("text,printed", [
    ("3 -1", "3 - 1"), ("3-1", "3 - 1"), ("2--1", "2 - -1"), ("- 1", " -1"), ("- -1", " --1"),
    ("- - 1", " - -1"), ("f(-1)", "f(-1)"), ("x[- 1]", "x[ -1]"), ("-.5", "-5.000000000000000E-01"),
    ("- 9223372036854775808", " -0"), ("-9223372036854775808", "-9223372036854775808"),
    ("99999999999999999999", "0"), ("-010", "-10"), ("-0x10", "0"), ("00.5", "5.000000000000000E-01"),
    ("08.5", "8.500000000000000E+00"), ("0e5", "0.0"), ("-0.0", "-0.0"), ("1e-400", "0.0"),
    ("..a", ".a"), ("a . b", "a.b"), ("1 iS 1", "1 is 1"), ("1 ISNT 2", "1 isnt 2"), ("x =!= y", "x isnt y"),
    ("a ? : b", "a ?: b"), ("a ?\n: b", "a ?: b"), ("1 // c\n+ 2", "1 + 2"), ("/* c */ 7", "7"),
    ("'a' 'b'", "ab"), ("'my'.x", "my.x"), ("PARENT.x", "'PARENT'.x"), ("x.parent", "x.parent"),
    ("'true'", "'true'"), ("'is'", "'is'"), ("IFTHENELSE(a,b,c)", "IFTHENELSE(a,b,c)"), ("f (1)", "f(1)"),
    ("a?b:c", "a ? b : c"), ("1?2?3:4:5", "1 ? 2 ? 3 : 4 : 5"), ("!-x", " ! -x"),
    ('"\\101"', '"A"'), ('"\\400"', '" 0"'), ('"\\1"', '"\\001"'), ('"\\12x"', '"\\nx"'), ('"x\\?"', '"x?"'),
    ('"a\\x41"', '"ax41"'), ('"\x7f"', '"\\177"'), ('"\'"', '"\'"'),
])
def test_lexer_quirks_new_syntax(text, printed):
    assert unparse(parse(text, "new")) == printed


@pytest.mark.parametrize("text", [
    "08", "00", "010", "0x10", "0x", "1.", "1.e3", "1e", "1e+", "0.5e", "1..2", "a.5", "a.-1", "$x", "@", "`",
    "\\", "/* open", "1 /", "1 */ 2", "a ? /*c*/ : b", '"a" /*x*/ "b"', '"\\0"', "=?", "a =? b", "x.true",
    "x.is", "f(a)(b)", "a.b(1)", "()", "a[1,2]", "{1;2}", "[is=1]", '[ "a" = 1]', "[true=1]", "[1=2]",
    "undefined ?: +1", "x ?: !y", 'relTime("bogus")', 'relTime("1:2:3:4")', 'relTime("1e3")',
    'absTime("bogus")', 'absTime("")', 'absTime("197")', 'absTime("2020-01-01T00:00:00.5Z")',
    'absTime("1969-12-31T23:59:59Z")',
])
def test_rejected_like_htcondor(text):
    with pytest.raises(ClassAdSyntaxError):
        parse(text, "new")


def test_old_syntax_strings():
    assert parse('"a\\d"').value == "a\\d"
    assert parse('"say \\"hi\\" now"').value == 'say "hi" now'
    assert parse('"a\\"').value == "a\\"  # a trailing backslash before the closing quote is kept
    with pytest.raises(ClassAdSyntaxError):
        parse('"a" "b"')  # not joined in the old syntax
    assert parse('"a" "b"', "new").value == "ab"


def test_relative_time_literal_prints_as_reltime_but_is_a_real():
    node = parse('relTime("1:30.5")')
    assert node.value == 90.5 and unparse(node) == 'relTime("01:30.5")'
    assert unparse(parse('relTime("1d 2h 3m 4s")')) == 'relTime("1+02:03:04")'
    assert unparse(parse('relTime("0.0000001")')) == 'relTime("1e-07")'
    assert unparse(parse('relTime(("1:00"))')) == 'relTime(("1:00"))'  # not a bare literal: not folded


def test_absolute_time_literals():
    node = parse('absTime("2020-01-01T05:00:00+05:30")')
    assert node.value == AbsTime(1577836800 - 1800, 19800)  # 2019-12-31T23:30:00Z
    assert unparse(node) == 'absTime("2020-01-01T05:00:00+05:30")'
    assert unparse(parse('absTime("2020-13-45T00:00:00Z")')) == 'absTime("2021-02-14T00:00:00-00:00")'
    assert unparse(parse('absTime("2020-01-01T00:00:00+99:99")')) == 'absTime("2020-01-01T00:00:00+100:39")'
    assert unparse(parse('absTime("2020-01-01T00:00:00Z", 5)')) == 'absTime("2020-01-01T00:00:00Z",5)'


def test_scopes_and_references():
    node = parse("MY.Memory >= TARGET.RequestMemory && other.x && .y && parent.z && a.b")
    refs = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.BinaryOp):
            stack += [item.left, item.right]
        else:
            refs.append(item)
    scopes = sorted((type(r).__name__, getattr(r, "scope", None)) for r in refs)
    assert scopes == sorted([("AttrRef", "MY"), ("AttrRef", "TARGET"), ("AttrRef", "OTHER"),
                             ("AttrRef", "ROOT"), ("AttrRef", "PARENT"), ("Select", None)])


def test_positions_on_every_node():
    node = parse("a &&\n  f(b,  -1) ?: [x = 2]")
    assert (node.line, node.column) == (1, 1)
    elvis = node.right
    assert isinstance(elvis, ast.Elvis) and (elvis.line, elvis.column) == (2, 3)
    call = elvis.left
    assert [(a.line, a.column) for a in call.args] == [(2, 5), (2, 9)]
    assert (elvis.right.line, elvis.right.column) == (2, 16)
    with pytest.raises(ClassAdSyntaxError) as info:
        parse("a &&\n  (b ||")
    assert (info.value.line, info.value.column) == (2, 8)  # the end of the text


def test_records_keep_last_value_and_print_in_htcondor_order():
    node = parse("[b = 1; A = 2; ccc = 3; Zz = 4; a1 = 5; aa = 6; a = 7]")
    assert unparse(node) == "[ A = 7; b = 1; a1 = 5; aa = 6; Zz = 4; ccc = 3 ]"


def test_equality_ignores_positions_and_round_trips():
    assert parse("a + b") == parse("a   +\n b")
    for text in ["x ?: y.z[1]", "{ 1,[ a = 2 ] }", "-(1)", 'relTime("1:00") * 2', "a is b"]:
        assert parse(unparse(parse(text))) == parse(text)


# ---------------------------------------------------------------- ads


def test_old_and_new_syntax_ads():
    old = parse_ad('MyType = "Machine"\n# comment\nCpus = 4\nStart = Cpus > 2 && KeyboardIdle > 60\n')
    assert list(old) == ["MyType", "Cpus", "Start"]
    assert unparse(old["start"]) == "Cpus > 2 && KeyboardIdle > 60"
    assert (old["Start"].line, old["Start"].column) == (4, 9)
    new = parse_ad("[ MyType = \"Machine\"; Cpus = 4; 'odd name' = 1 ]")
    assert new["cpus"] == ast.Literal(4) and "odd name" in new
    assert unparse_ad(new) == "[ Cpus = 4; MyType = \"Machine\"; 'odd name' = 1 ]"
    assert unparse_ad(old, "old") == 'Cpus = 4\nStart = Cpus > 2 && KeyboardIdle > 60\nMyType = "Machine"\n'
    ads = parse_ads("A = 1\nB = 2\n\nA = 3\n")
    assert [unparse_ad(ad) for ad in ads] == ["[ A = 1; B = 2 ]", "[ A = 3 ]"]
    assert len(parse_ads("[a=1] [b=2]")) == 2


def test_bad_ads_report_positions():
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_ad("A = 1\nB = 2 +\n")
    assert info.value.line == 2 and "B" in info.value.message
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_ad("A = 1\njunk here\n")
    assert (info.value.line, info.value.column) == (2, 1)
    with pytest.raises(ClassAdSyntaxError):
        parse_ad("[a = 1")


def test_values_print():
    assert unparse(1.5) == "1.500000000000000E+00"
    assert unparse(float("-inf")) == 'real("-INF")'
    assert unparse([1, "a", UNDEFINED]) == '{ 1,"a",undefined }'
    assert unparse(ERROR) == "error"
    assert unparse(ClassAd({"b": parse("1"), "a": parse("x + 1")})) == "[ a = x + 1; b = 1 ]"
    assert unparse("é\n") == '"\\303\\251\\n"'


# ---------------------------------------------------------------- limits and speed


def test_deep_nesting_is_a_syntax_error_not_a_crash():
    ok = "(" * (MAX_DEPTH - 1) + "1" + ")" * (MAX_DEPTH - 1)
    assert unparse(parse(ok)) == ok
    for text in ["(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "[a=" * 5000 + "1" + "]" * 5000,
                 "- " * 20000 + "1", " + ".join(["x"] * 20000), "{" * 100000]:
        started = time.perf_counter()
        with pytest.raises(ClassAdSyntaxError):
            parse(text)
        assert time.perf_counter() - started < 2.0


def test_deep_ads_are_refused_too():
    with pytest.raises(ClassAdSyntaxError):
        parse_ads("[a = " + "- " * 5000 + "1]")
    with pytest.raises(ClassAdSyntaxError):
        parse_ads("A = " + "!" * 5000 + "x\n")


def test_huge_flat_input_is_linear():
    text = "{" + ",".join(str(i) for i in range(50000)) + "}"
    started = time.perf_counter()
    assert len(parse(text).items) == 50000
    assert time.perf_counter() - started < 3.0


def test_policy_expression_parses_fast():
    text = ('(KeyboardIdle > 15 * 60) && (((LoadAvg - CondorLoadAvg) <= 0.3) || (State != "Unclaimed" '
            '&& State != "Owner")) && (TARGET.RequestMemory <= MY.Memory) && (TARGET.RequestCpus <= MY.Cpus)')
    from condorcfg.classad.parser import _parse_uncached

    _parse_uncached(text, "old")
    batches = []
    for _ in range(5):  # best batch: the machine is shared, a slow batch says little
        started = time.perf_counter()
        for _ in range(40):
            _parse_uncached(text, "old")
        batches.append((time.perf_counter() - started) / 40)
    assert min(batches) < 0.0007, f"{min(batches) * 1e3:.3f} ms per parse"


def test_import_does_not_load_lark():
    code = "import sys, condorcfg.classad as c; c.parse('a + 1'); print('lark' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip() == "False", proc.stderr


# ---------------------------------------------------------------- the two token readers

_PIECES = list("aZ_09 1.5eExX-+*/%<>=!?:&|^~()[]{},;.\"'\\\n\t#@\u00e9\0") + [
    "//", "/*", "*/", "0x", "..", "1e5", "1.5e-3", "-1", "- 1", "12345678901234567890", "true", "IS", "isnt",
    "\\\"", "? :", "?:", "=?=", "=!=", ">>>", "MY", ".x", '"str"', "'q'", "07", "0.5", "-.5", "  "]


def test_the_common_token_reader_agrees_with_the_full_one():
    """lexer.py reads most texts with one findall() and hands the rest to the reader that knows
    every rule; on texts both take, both must give the same tokens (the common reader's items
    read by the lexer's rules, as tokenize() does)."""
    rng = random.Random(11)
    taken = 0
    for _ in range(30000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 16)))
        for old in (True, False):
            fast = lexer._common_items(text, old)
            if fast is None:
                continue  # the full reader's
            taken += 1
            assert lexer.tokens_of(*fast) == lexer.tokens_of(*lexer._all_items(text, old)), (text, old)
    assert taken > 8000


@pytest.mark.parametrize("text", [
    "1" * 200_000 + "x", "/*" * 100_000, '"' * 100_000, "'" + "a" * 200_000, ("?" + " " * 100) * 2000,
    "1.5" * 70_000, "." * 200_000, "1e" * 100_000, '"\\' * 100_000, "0x" * 100_000, ("\n" * 100 + "a") * 2000,
])
def test_pathological_token_texts_are_linear(text):
    """findall() tries every offset: an alternative that backtracks over a long run would be quadratic."""
    started = time.process_time()
    for syntax in ("old", "new"):
        try:
            parse(text, syntax)
        except ClassAdSyntaxError:
            pass
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize("text, column, says", [
    ("a +", 4, "ends too early; expected an operand"),
    ("(a b", 4, "unexpected name 'b'; expected an operator or ')'"),
    ("f(a,)", 5, "unexpected ')'; expected an operand"),
    ("f(a b)", 5, "expected an operator, ',' or ')'"),
    ("{1 2}", 4, "expected an operator, ',' or '}'"),
    ("[a=1 b=2]", 6, "expected an operator, ';' or ']'"),
    ("[a 1]", 4, "expected '='"),
    ("a ?: -b", 6, "the right side of '?:' must be a simple operand"),
    ("1 2", 3, "already complete before it"),
    ("a ? b", 6, "expected ':'"),
    ("x.", 3, "expected a name after '.'"),
])
def test_syntax_errors_say_where_and_what_was_expected(text, column, says):
    with pytest.raises(ClassAdSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (1, column) and says in info.value.message, info.value
