"""Qube! requirement expressions (../shared/spec/qube.md, ../shared/seeds/qube-requirements.txt).

* every operator of the spec's table, word and symbol forms, gives the documented result;
* every example of the seed and the spec parses and evaluates as documented for a render host;
* malformed expressions give a message with the right column, bounded input gives an error, not a crash;
* translation: the documented translations, the problems reported instead of guessed, and a
  seeded property test: for random expressions, hosts and jobs, the ClassAd translation
  evaluated by condorcfg's ClassAd evaluator (itself differential-tested against HTCondor) in the
  machine ad, with the job ad as TARGET, is true exactly when the Qube evaluation is;
* the command line (exit codes, formats, messages).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from condorcfg.classad import evaluate as classad_evaluate, parse as classad_parse, parse_ad
from condorcfg.classad.printer import format_string
from condorcfg.qube.evaluate import evaluate, properties, show, truth
from condorcfg.qube.syntax import MAX_DEPTH, QubeError, parse
from condorcfg.qube.translate import load_map, read_map, translate

# The spec's operator table: (word form, symbol forms, example with {op}, result).
OPERATORS = [
    ("min", [], "10 {op} 12", "10"), ("max", [], "10 {op} 12", "12"),
    ("sub", ["-"], "10 {op} 8", "2"), ("add", ["+"], "1 {op} 2", "3"), ("mul", ["*"], "3 {op} 4", "12"),
    ("div", ["/"], "14 {op} 7", "2"), ("mod", ["%"], "10 {op} 4", "2"), ("xor", ["^"], "12 {op} 8", "4"),
    (None, ["&"], "12 {op} 8", "8"), (None, ["|"], "8 {op} 4", "12"), ("rs", [">>"], "4 {op} 1", "2"),
    ("ls", ["<<"], "4 {op} 1", "8"), ("in", [], '"v" {op} "x,y,v"', "true"), ("has", [], '"x,y,v" {op} "v"', "true"),
    ("not", ["!"], "{op} 1", "false"), ("eq", ["==", "="], "10 {op} 10", "true"), ("ne", ["!=", "<>"], "10 {op} 10", "false"),
    ("and", ["&&"], "1 {op} 0", "false"), ("or", ["||"], "1 {op} 0", "true"), ("lt", ["<"], "5 {op} 10", "true"),
    ("gt", [">"], "5 {op} 10", "false"), ("le", ["<="], "4 {op} 6", "true"), ("ge", [">="], "4 {op} 6", "false"),
]


def _forms():
    for word, symbols, example, result in OPERATORS:
        for form in ([word, word.upper()] if word else []) + symbols:
            yield example.format(op=form), result


@pytest.mark.parametrize("expression,result", list(_forms()))
def test_every_operator_of_the_table(expression, result):
    assert show(evaluate(parse(expression))) == result


# A render host and a job, for the examples users write.
HOST = properties({"os": "linux", "name": "qb002", "processors": {"total": 2}, "processor_speed": 2400,
                   "kernel_version": "2.6.17-1.2142_FC4smp", "jobtypes": ["maya", "nuke"],
                   "duty": {"id": "12,13"}, "group": "host01,host05", "flag": {"remove_logs": True}})
JOB = properties({"type": "maya", "user": "qb002", "id": 14})

EXAMPLES = [  # (expression, value for HOST and JOB)
    ("host.os eq linux", "true"), ("host.name ne \"qb001\"", "true"), ('"maya" in host.jobtypes', "true"),
    ("host.processors.total == 2", "true"), ("host.processors.total > 10", "false"),
    ("(host.os == 'winnt') and host.processor_speed >= 100", "false"),
    ("host.kernel_version eq '2.6.17-1.2142_FC4smp'", "true"), ("job.type in host.jobtypes", "true"),
    ("job.user eq host.name", "true"), ("not (job.id in host.duty.id)", "true"),
    ("host.name eq host01", "false"), ("host.group has host05", "true"), ("host.flag.remove_logs", "1"),
    ("HOST.OS EQ linux AND Host.Processors.Total >= 2", "true"),
]


@pytest.mark.parametrize("expression,value", EXAMPLES)
def test_the_examples_users_write(expression, value):
    assert show(evaluate(parse(expression), HOST, JOB)) == value


def test_the_seeds_fused_example_says_where_an_operator_is_missing():
    # The vendor page runs two examples together: "host.flag.remove_logs" and "host.group has host05".
    with pytest.raises(QubeError) as info:
        parse("host.flag.remove_logs host.group has host05")
    assert info.value.column == 23 and "two values with nothing between them" in info.value.message


@pytest.mark.parametrize("expression,column,words", [
    ("host.kernel_version eq 2.6.17-1.2142_FC4smp", 24, "quote values that contain operator characters"),
    ("host.os eq", 11, "ends too early"),
    ("(host.os eq linux", 18, "')'"),
    ("host.os eq 'linux", 12, "no closing '"),
    ("host.os eq linux )", 18, "unexpected"),
    ("1 + * 2", 5, "expected a value"),
    ("   ", 1, "empty"),
    ("9" * 25, 1, "out of range"),
    ("host.os eq li$nux", 14, "cannot read"),
])
def test_malformed_expressions_name_the_column(expression, column, words):
    with pytest.raises(QubeError) as info:
        parse(expression)
    assert info.value.column == column and words in info.value.message, info.value.message


def test_deep_and_long_input_ends_with_an_error_not_a_crash():
    with pytest.raises(QubeError, match="nested more than"):
        parse("(" * (MAX_DEPTH + 5) + "1" + ")" * (MAX_DEPTH + 5))
    with pytest.raises(QubeError, match="longer than"):
        parse("1 + " * 20000 + "1")
    chain = " and ".join(f"host.name ne h{i}" for i in range(300))  # a long exclusion list is fine
    assert evaluate(parse(chain), HOST) is True
    assert translate(parse(chain), load_map()).expression.count("&&") == 299


@pytest.mark.parametrize("expression,problem", [
    ("1 / 0", "division by zero"), ("linux + 1", "add needs numbers"), ("2.5 & 1", "whole numbers"),
    ("1 << 64", "shift count"), ("2 mod 0", "mod by zero"),
])
def test_evaluation_errors_are_reported_with_their_column(expression, problem):
    with pytest.raises(QubeError, match=problem) as info:
        evaluate(parse(expression))
    assert info.value.column == expression.index(expression.split()[1]) + 1


def test_integers_are_64_bit_as_in_classads():
    assert evaluate(parse("9223372036854775807 + 1")) == -2 ** 63
    assert evaluate(parse("(0 - 9223372036854775807 - 1) / -1")) == 2 ** 63 - 1
    assert evaluate(parse("-7 / 2")) == -3 and evaluate(parse("-7 % 2")) == -1


def test_a_missing_property_is_empty_and_listed():
    missing = []
    assert evaluate(parse('host.jobtypes has maya or host.gpu.count > 0'), {}, {}, missing) is False
    assert missing == ["host.jobtypes", "host.gpu.count"]


# ----------------------------------------------------------------- translation

@pytest.mark.parametrize("expression,classad", [
    ("host.os eq linux", 'OpSys =?= "LINUX"'),
    ('host.name ne "qb001"', 'Machine =!= "qb001"'),
    ("host.processors.total > 10", "TotalCpus > 10"),
    ("host.os in 'linux,osx' and host.memory.total / 1024 >= 16", 'stringListMember(OpSys, "LINUX,OSX", ",") && '
                                                                  "TotalMemory / 1024 >= 16"),
    ("job.user eq host.name", "TARGET.Owner =?= Machine"),
    ("not (host.os eq winnt or host.processors.total lt 2)", '!(OpSys =?= "WINDOWS" || TotalCpus < 2)'),
    ("host.name lt m", 'strcmp(Machine, "m") < 0'),
    ("host.processors.total min 4 >= 2", "min({TotalCpus, 4}) >= 2"),
    ("host.name", 'Machine =!= "" && Machine =!= "0"'),
    ("host.processors.total", "TotalCpus != 0"),
])
def test_documented_translations(expression, classad):
    assert translate(parse(expression), load_map()) == (classad, [])


@pytest.mark.parametrize("expression,column,words", [
    ('"maya" in host.jobtypes', 11, "host.jobtypes has no ClassAd attribute"),
    ("host.processors.total eq many", 23, "compares a number with text"),
    ("host.os lt linux", 9, "renames"),
    ("host.os eq LINUX", 9, "what the map renames another value to"),
    ("host.os eq host.name", 9, "only be compared with a literal"),
    ("host.processors.total % 2.5 == 1", 23, "takes integers only"),
    ("'a\\b' eq host.name", 1, "backslash"),
])
def test_what_cannot_be_translated_is_reported_not_guessed(expression, column, words):
    result = translate(parse(expression), load_map())
    assert result.expression is None
    assert [(p.column, words in p.message) for p in result.problems] == [(column, True)], result.problems


def test_property_maps_are_checked():
    assert read_map({"host.jobtypes": {"attribute": "QubeJobTypes"}}, "m")["host.jobtypes"].type == "string"
    for bad, words in [({"os": {"attribute": "OpSys"}}, "not a Qube property"),
                       ({"host.os": {"attribute": "Op Sys"}}, "not a ClassAd attribute"),
                       ({"host.os": {"attribute": "OpSys", "type": "bool"}}, "type must be"),
                       ({"host.os": {"attribute": "OpSys", "values": {"a": "X", "b": "X"}}}, "same ClassAd value"),
                       ({"host.os": {"attribute": "OpSys", "colour": 1}}, "unknown key"), ([], "a mapping")]:
        with pytest.raises(QubeError, match=words):
            read_map(bad, "m")


# A site map beside the default one: the site properties of the examples.
SITE_MAP = dict(load_map(), **read_map({
    "host.jobtypes": {"attribute": "QubeJobTypes", "type": "string"},
    "host.group": {"attribute": "QubeGroups", "type": "string"},
    "job.type": {"attribute": "TARGET.QubeJobType", "type": "string"},
    "job.id": {"attribute": "TARGET.ClusterId", "type": "number"},
}, "site map"))
WORDS = ["linux", "winnt", "osx", "Linux", "qb001", "qb002", "maya", "nuke", "m", "a", "b", ""]
NUMBERS = [0, 1, 2, 3, 4, 7, 10, 16, 64, -1, -5, 2 ** 62, 2.5, 0.5]
BINARY = ["eq", "==", "=", "ne", "!=", "<>", "lt", "<", "gt", ">", "le", "<=", "ge", ">=", "in", "has", "and", "&&",
          "or", "||", "add", "+", "sub", "-", "mul", "*", "div", "/", "mod", "%", "min", "max", "xor", "^", "&", "|",
          "ls", "<<", "rs", ">>"]


def _random_value(rng, name: str, entry):
    if entry.type == "number":
        return rng.choice([0, 1, 2, 4, 8, 16, 64, 128, 4096, -3])
    if name in ("host.jobtypes", "host.group"):
        return ",".join(rng.sample([w for w in WORDS if w], rng.randint(0, 3)))
    words = [w for w in WORDS if not entry.values or w not in entry.values.values()]
    return rng.choice(words + (list(entry.values) if entry.values else []))


def _random_expression(rng, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        kind = rng.random()
        if kind < 0.45:
            return rng.choice(sorted(SITE_MAP))
        if kind < 0.75:
            return str(rng.choice(NUMBERS))
        word = rng.choice([w for w in WORDS if w] + ["x,y,maya", "linux,osx", "10", "2.5"])
        return f'"{word}"' if rng.random() < 0.5 or "," in word or word[0].isdigit() else word
    if rng.random() < 0.15:
        return f"{rng.choice(['not ', '!', '-'])}({_random_expression(rng, depth - 1)})"
    return f"({_random_expression(rng, depth - 1)}) {rng.choice(BINARY)} ({_random_expression(rng, depth - 1)})"


def _ads(rng):
    host, job, machine, target = {}, {}, [], []
    for name, entry in SITE_MAP.items():
        value = _random_value(rng, name, entry)
        root, _, prop = name.partition(".")
        (host if root == "host" else job)[prop] = value
        shown = format_string(entry.values.get(value, value) if entry.values else value) \
            if isinstance(value, str) else str(value)
        attribute = entry.attribute.split(".")[-1]
        (machine if root == "host" else target).append(f"{attribute} = {shown}")
    return host, job, parse_ad("[" + "; ".join(machine) + "]"), parse_ad("[" + "; ".join(target) + "]")


def test_translations_are_true_exactly_when_the_qube_requirement_is():
    rng = random.Random(20261126)
    compared = untranslated = 0
    for _ in range(3000):
        expression = _random_expression(rng, rng.randint(1, 4))
        tree = parse(expression)
        result = translate(tree, SITE_MAP)
        if result.problems:
            untranslated += 1
            continue
        for _host in range(3):
            host, job, machine, target = _ads(rng)
            try:
                expected = truth(evaluate(tree, properties(host), properties(job)))
            except QubeError:
                expected = False  # Qube refuses the requirement (a division by zero ...): no match
            got = classad_evaluate(classad_parse(result.expression), my=machine, target=target)
            assert (got is True) == expected, (expression, result.expression, host, job, got)
            compared += 1
    assert compared > 3000 and untranslated < 1800, (compared, untranslated)  # (random text in arithmetic)


# ----------------------------------------------------------------- the command line

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "condorcfg", "qube", *args], capture_output=True, text=True)


def test_eval_prints_the_value_and_notes_missing_properties(tmp_path):
    host = tmp_path / "host.yaml"
    host.write_text("os: linux\nprocessors:\n  total: 8\njobtypes: [maya, nuke]\n")
    done = _cli("eval", "host.os eq linux and host.processors.total >= 4 and job.type in host.jobtypes",
                "--host", str(host), "--job", "type=maya")
    assert (done.returncode, done.stdout.split()[-1]) == (0, "true")
    done = _cli("eval", "host.gpus > 0", "--host", str(host), "--format", "json")
    assert json.loads(done.stdout) == {"value": False, "type": "bool", "text": "false", "missing": ["host.gpus"]}
    assert "host.gpus is not among the host properties" in done.stderr


def test_bad_expressions_and_inputs_exit_2_with_a_located_message(tmp_path):
    done = _cli("eval", "host.os eq")
    assert done.returncode == 2 and done.stderr.startswith("expr:11: error: ") and "Traceback" not in done.stderr
    bad = tmp_path / "host.yaml"
    bad.write_text("os: [linux\n")
    done = _cli("eval", "host.os eq linux", "--host", str(bad))
    assert done.returncode == 2 and f"{bad}:" in done.stderr and "not valid YAML" in done.stderr
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefg", "bcdefgh")))
    done = _cli("eval", "host.os eq linux", "--host", str(bomb))
    assert done.returncode == 2 and "MAX_YAML_VALUES" in done.stderr


def test_translate_prints_classad_or_the_problems(tmp_path):
    done = _cli("translate", "host.os eq linux and host.processors.total >= 4")
    assert (done.returncode, done.stdout.strip()) == (0, 'OpSys =?= "LINUX" && TotalCpus >= 4')
    done = _cli("translate", '"maya" in host.jobtypes')
    assert done.returncode == 1 and done.stdout == "" and "expr:11: error: host.jobtypes" in done.stderr
    site = tmp_path / "map.yaml"
    site.write_text("host.jobtypes: {attribute: QubeJobTypes, type: string}\n")
    done = _cli("translate", '"maya" in host.jobtypes', "--map", str(site), "--format", "json")
    assert json.loads(done.stdout) == {"expression": 'stringListMember("maya", QubeJobTypes, ",")', "problems": []}
    site.write_text("host.jobtypes: {type: string}\n")
    done = _cli("translate", "host.os eq linux", "--map", str(site))
    assert done.returncode == 2 and "attribute" in done.stderr and "Traceback" not in done.stderr


def test_any_input_gives_a_value_or_a_located_error():
    """Token soup and raw characters: parse, evaluate and translate give a result or a QubeError."""
    rng = random.Random(7)
    tokens = ["host.os", "job.id", "(", ")", "'a'", '"b,c"', "1", "2.5", "-", "!", "not", "and", "||", "<>", "=",
              "in", "has", "min", "<<", "%", "linux", "9" * 30, "'", '"', "$", "\x1b[2J", "é", "\t", "0"]
    for i in range(4000):
        text = (" ".join(rng.choice(tokens) for _ in range(rng.randint(1, 12))) if i % 2 else
                "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(0, 30))))
        try:
            tree = parse(text)
        except QubeError as exc:
            assert 1 <= exc.column <= len(text) + 1 and exc.message, (text, exc.column)
            continue
        try:
            evaluate(tree, HOST, JOB)
        except QubeError as exc:
            assert 1 <= exc.column <= len(text), (text, exc.column)
        result = translate(tree, SITE_MAP)
        assert (result.expression is None) == bool(result.problems)
        if result.expression is not None:
            classad_parse(result.expression)  # the translation is always valid ClassAd


def test_numerals_written_as_strings_keep_their_text_where_qube_uses_text():
    host = properties({"name": "010"})
    for expression in ('"010" in host.name', 'not "00" or host.name eq x', '"0.0" and 1', '"1.0" in host.name'):
        tree = parse(expression)
        expected = truth(evaluate(tree, host, {}))
        result = translate(tree, load_map())
        assert result.problems == [], expression
        machine = parse_ad(f"[Machine = {format_string(host['name'])}]")
        assert (classad_evaluate(classad_parse(result.expression), my=machine) is True) == expected, expression


def test_odd_input_that_once_raised():
    assert evaluate(parse("host.x == 5"), properties({"x": "\x1c5"})) is False  # (int() refuses U+001C: text)
    with pytest.raises(QubeError):
        parse("\x0b" + " " * 25 + "x")
    for digits in (400, 5000):
        assert evaluate(parse(f'"{"9" * digits}" == 1')) is False  # text, not a number past a double
    with pytest.raises(QubeError, match="unknown key"):
        read_map({"host.os": {"attribute": "OpSys", 1: "a", "foo": "b"}}, "m")


def test_an_expression_over_several_lines_is_located_on_one():
    with pytest.raises(QubeError) as info:
        parse("host.os eq linux and\n  host.name eq")
    assert info.value.column == len("host.os eq linux and\n  host.name eq") + 1
    with pytest.raises(QubeError) as info:
        parse("host.os eq linux\nand ) x")
    assert info.value.column == len("host.os eq linux\nand ") + 1
