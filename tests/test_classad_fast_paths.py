"""The evaluator's specialised closures give what its general ones give.

Some shapes compile to closures of their own for speed: a chain ``a && b && c`` is one
closure instead of nested ones, a comparison or int arithmetic with a constant right side
does not call it, and calls with constant arguments are folded.  Each is checked here
against the general form of the same expression on seeded random operands of every type,
so a fast path cannot drift from the semantics it short-cuts.
"""
from __future__ import annotations

import random

import pytest

from condorcfg.classad import evaluator, functions, parser
from condorcfg.classad.evaluator import compiled_with_cost, evaluate
from condorcfg.classad.values import ERROR

VALUES = ["true", "false", "undefined", "error", "0", "1", "-7", "3", "9223372036854775807", "2.5", "-0.0",
          "1e308", "real(\"NaN\")", '"abc"', '"ABC"', '"é"', '""', "{1, 2}", "[a = 1]", 'absTime("2024-01-31")',
          "relTime(90)"]


def _nested_binary(node, d):
    """The general compilation of a binary node (what _c_binary does without the chain form)."""
    p = d + 1
    lf, lmax = evaluator._compile(node.left, p)
    rf, rmax = evaluator._compile(node.right, p)
    fn = evaluator._BINARY_MAKERS[node.op](lf, rf)
    if lf.__code__ is evaluator._CONST_CODE and rf.__code__ is evaluator._CONST_CODE:
        fn = evaluator._fold(fn, lf, rf)
    return fn, max(lmax, p, rmax)


def test_a_logical_chain_is_the_nested_form(monkeypatch):
    rng = random.Random(20261126)
    atoms = VALUES + ["x", "y", "(x && y)", "(1 || z)", "size(x)", "x + 1"]
    for _ in range(1500):
        ops = [rng.choice(["&&", "||"]) for _ in range(rng.randint(2, 6))]
        text = rng.choice(atoms) + "".join(f" {op} {rng.choice(atoms)}" for op in ops)
        ad = {"x": rng.choice(VALUES), "y": rng.choice(VALUES)}
        chained = parser._parse_uncached(text, "old")
        fast = compiled_with_cost(chained)
        got = evaluate(chained, ad)
        with monkeypatch.context() as patch:
            patch.setattr(evaluator, "_c_logical_chain", _nested_binary)
            nested = parser._parse_uncached(text, "old")
            general = compiled_with_cost(nested)
            want = evaluate(nested, ad)
        assert fast[1:] == general[1:], text  # same static depth and node count
        assert repr(got) == repr(want), (text, ad)


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">=", "=?=", "=!=", "+", "-", "*", "/", "%"])
def test_a_constant_right_side_is_the_general_form(op):
    # `x op C` takes the constant fast path; `x op c_attr` (the same value read from the ad) does not
    for left in VALUES:
        for right in VALUES:
            ad = {"x": left, "c_attr": right}
            fast = evaluate(_compiled(f"x {op} {right}"), ad)
            general = evaluate(_compiled(f"x {op} c_attr"), ad)
            assert repr(fast) == repr(general), (left, op, right)


def _compiled(text: str):
    """A fresh tree, compiled (evaluated the first time, it would be read, not compiled)."""
    tree = parser._parse_uncached(text, "old")
    compiled_with_cost(tree)
    return tree


_ATOMS = VALUES + ["x", "y", "MY.x", "TARGET.y", "z", "TARGET.z", "size(x)", "strcat(x, y)", "{x, y}[0]", "-x",
                   "!y", "x ?: y", "(x ? y : 1)", "[a = x].a", "isUndefined(x)"]
_OPERATORS = ["&&", "||", "==", "!=", "<", "<=", ">", ">=", "=?=", "=!=", "is", "isnt", "+", "-", "*", "/", "%",
              "&", "|", "^", "<<", ">>", ">>>"]


def _expression(rng, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(_ATOMS)
    left, right = _expression(rng, depth - 1), _expression(rng, depth - 1)
    text = f"{left} {rng.choice(_OPERATORS)} {right}"
    return f"({text})" if rng.random() < 0.4 else text


def test_a_first_evaluation_is_the_compiled_one():
    """A fresh tree is read, not compiled, the first time it is evaluated (evaluator._interpret): the
    value must be the compiled one's, on every operator, operand type and scope."""
    rng = random.Random(20261126)
    read = 0
    for _ in range(4000):
        text = _expression(rng, rng.randint(1, 4))
        my = {"x": rng.choice(VALUES), "y": rng.choice(VALUES)}
        target = {"y": rng.choice(VALUES), "z": rng.choice(VALUES)} if rng.random() < 0.6 else None
        tree = parser._parse_uncached(text, "old")
        first = evaluate(tree, my, target, now=1_700_000_000)
        read += tree._compiled is None  # (read, not compiled: the next evaluation compiles)
        second = evaluate(tree, my, target, now=1_700_000_000)
        assert type(tree._compiled) is tuple
        assert repr(first) == repr(second), (text, my, target)
    assert read == 4000


def test_a_first_evaluation_pays_its_tokens_and_keeps_the_depth_limit():
    from condorcfg.classad.budget import Budget, command_budget

    tree = parser._parse_uncached("(a + 1) * 2 > b", "old")
    with command_budget(Budget(work=10**6)) as budget:
        evaluate(tree, {"a": "1", "b": "2"})
        assert 10**6 - budget.work == 9  # its nine tokens (the compiled form pays its nodes)
    # a tree of more tokens than the depth limit is compiled at once: its static depth decides
    deep = parser._parse_uncached("false && " + "(" * 450 + "1" + ")" * 450, "old")
    assert evaluate(deep) is ERROR and type(deep._compiled) is tuple
    chain = parser._parse_uncached("1" + " + 1" * 500, "old")  # 501 levels: compiled, and too deep
    assert evaluate(chain) is ERROR and type(chain._compiled) is tuple


@pytest.mark.parametrize("template, argument", [
    ("stringListSize({})", '"a,b,,c"'), ('versionGE({}, "10.0.0")', '"10.2.1"'), ("substr({}, 2, 3)", '"abcdef"'),
    ("toUpper({})", '"aé"'), ('strcmp({}, "B")', '"a"'), ("sprintf({}, 42)", '"%05d"'), ("size({})", '"é"'),
    ("int({})", '"12abc"'), ('ifThenElse({}, "y", "n")', "1"), ("ifThenElse({}, 1, 2)", "undefined"),
    ('strcat({}, "x")', '"ab"'), ("quantize({}, 4)", "10"), ("round({})", "2.5"),
])
def test_a_folded_call_is_the_call_at_run_time(template, argument):
    # with the argument written in, the call is folded when compiled; read from the ad, it runs
    tree = parser._parse_uncached(template.format(argument), "old")
    assert functions.const_value(compiled_with_cost(tree)[0])[0], "not folded"
    folded = evaluate(tree)
    general = evaluate(parser._parse_uncached(template.format("arg0"), "old"), {"arg0": argument})
    assert repr(folded) == repr(general)


def test_a_remembered_regex_answer_is_not_given_once_regex_time_is_spent():
    from condorcfg.classad.budget import Budget, command_budget

    quick = 'regexp("^a", "abc")'
    assert evaluate(quick) is True  # answered quickly: remembered
    with command_budget(Budget(regex_seconds=0.001)) as budget:
        assert evaluate('regexp("(x|xx)+$", "' + "x" * 40 + '!")') is ERROR
        assert budget.spent == "regex"
        assert evaluate(quick) is ERROR  # every match after the time is spent, as HTCondor's match limit
