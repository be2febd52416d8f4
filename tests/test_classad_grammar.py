"""classad.lark is the grammar of record: the hand-written parser must build the trees it describes.

A reference parser is built here from ``condorcfg/classad/classad.lark`` with lark's
LALR(1) generator, fed the same tokens (``lexer.tokenize``) and building nodes with
the parser's own node builders (scope keywords, records, time literals).  Seeded
generators make valid expressions over every construct, near misses (tokens
dropped, doubled, swapped, inserted) and token soup; the HTCondor vectors and the
corpus's policy expressions are parsed too.  Both parsers must give the same tree
with the same positions, or both refuse at the same line and column.

The one allowed difference: an unreadable ``absTime("...")``/``relTime("...")`` is
refused by the hand-written parser when it reads the call, by lark's when it reduces
the call, after looking at the next token; when that token is itself an error the two
name different (both correct) first errors.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import lark
import pytest

from condorcfg.classad import ast, lexer
from condorcfg.classad import parser as classad_parser
from condorcfg.classad.parser import ClassAdSyntaxError

GRAMMAR = Path(classad_parser.__file__).with_name("classad.lark")


# ---------------------------------------------------------------- the reference parser


def _t(token) -> tuple:
    return (token.type, token.value, token.line, token.column)


class _Build(lark.Transformer):
    """One callback per alias of classad.lark (``?rule`` pass-throughs need none)."""

    def start(self, c):
        return c[0]

    def literal(self, c):
        return ast.Literal(c[0].value, c[0].line, c[0].column)

    def attr(self, c):
        return ast.AttrRef(c[0].value, quoted=c[0].type == "QIDENT", line=c[0].line, column=c[0].column)

    def absolute_attr(self, c):
        dot, name = c
        return ast.AttrRef(name.value, "ROOT", ".", name.type == "QIDENT", dot.line, dot.column)

    def select(self, c):
        return classad_parser.build_select(c[0], _t(c[2]))

    def subscript(self, c):
        return ast.Subscript(c[0], c[2], c[0].line, c[0].column)

    def elvis(self, c):
        return ast.Elvis(c[0], c[2], c[0].line, c[0].column)

    def unop(self, c):
        return ast.UnaryOp(c[0].value, c[1], c[0].line, c[0].column)

    def binop(self, c):
        return ast.BinaryOp(c[1].value, c[0], c[2], c[0].line, c[0].column)

    def conditional(self, c):
        return ast.Conditional(c[0], c[2], c[4], c[0].line, c[0].column)

    def call0(self, c):
        return classad_parser.build_call(_t(c[0]), [])

    def call(self, c):
        return classad_parser.build_call(_t(c[0]), c[2])

    def paren(self, c):
        return ast.Paren(c[1], c[0].line, c[0].column)

    def list0(self, c):
        return ast.ListExpr([], c[0].line, c[0].column)

    def list(self, c):
        return ast.ListExpr(c[1], c[0].line, c[0].column)

    def record0(self, c):
        return classad_parser.build_record(_t(c[0]), [])

    record0_semis = record0

    def record(self, c):
        return classad_parser.build_record(_t(c[0]), c[1])

    record_trail = record

    def record_lead(self, c):
        return classad_parser.build_record(_t(c[0]), c[2])

    record_both = record_lead

    def attr_def(self, c):
        return (c[0].value, c[2])

    def first_item(self, c):
        return [c[0]]

    def next_item(self, c):
        return c[0] + [c[2]]

    next_attr = next_item

    def same_list(self, c):
        return c[0]


class _TokenList(lark.lexer.Lexer):
    """Feeds lark the tokens condorcfg's lexer made (the grammar %declares its terminals)."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, tokens):
        for kind, value, line, column in tokens[:-1]:  # lark adds its own end
            yield lark.Token(kind, value, line=line, column=column)


@pytest.fixture(scope="module")
def reference():
    grammar = lark.Lark(GRAMMAR.read_text(), parser="lalr", lexer=_TokenList, transformer=_Build())

    def parse(text: str, syntax: str):
        tokens = lexer.tokenize(text, syntax)
        if len(tokens) == 1:
            raise ClassAdSyntaxError("empty expression", 1, 1)
        try:
            tree = grammar.parse(tokens)
            if classad_parser._depth(tree) > classad_parser.MAX_DEPTH:
                raise ClassAdSyntaxError("too deep", tree.line, tree.column)
            return tree
        except lark.exceptions.UnexpectedToken as exc:
            tok = exc.token
            if tok.type == "$END":
                raise ClassAdSyntaxError("end", tokens[-1][2], tokens[-1][3]) from None
            raise ClassAdSyntaxError("unexpected", tok.line, tok.column) from None
        except lark.exceptions.VisitError as exc:
            raise exc.orig_exc from None
    return parse


def _outcome(parse, text: str, syntax: str):
    """The tree as plain data with every node's position, or where it was refused."""
    try:
        return ("tree", _shape(parse(text, syntax)))
    except ClassAdSyntaxError as exc:
        timed = exc.message.startswith(("absTime(", "relTime("))
        return ("refused", exc.line, exc.column, timed)


def _shape(node):
    if isinstance(node, ast.Node):
        return (type(node).__name__, node.line, node.column, [_shape(f) for f in ast.fields_of(node)])
    if isinstance(node, (list, tuple)):
        return [_shape(item) for item in node]
    return (type(node).__name__, repr(node))


def _agree(reference, text: str, syntax: str) -> str | None:
    """None when both parsers agree on ``text``, else what differs."""
    ours = _outcome(lambda t, s: classad_parser._parse_uncached(t, s), text, syntax)
    theirs = _outcome(reference, text, syntax)
    if ours == theirs:
        return None
    if ours[0] == theirs[0] == "refused" and (ours[3] or theirs[3]):
        return None  # a time literal and a later error: each names a different first error
    return f"{text!r} ({syntax}): hand-written {ours[:3]} / lark {theirs[:3]}"


# ---------------------------------------------------------------- generators

NAMES = ["a", "B", "Memory", "KeyboardIdle", "x_1", "MY", "TARGET", "my", "target", "Other", "PARENT", "is",
         "ISNT", "True", "undefined", "ERROR", "'odd name'", "'q\\'x'"]
LITERALS = ["0", "1", "42", "-1", "-0", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
            "1.5", "-2.25", ".5", "-.5", "1e3", "2E-2", "1.5e+3", "0x1F", "0.0", '""', '"text"', '"a\\"b"',
            '"x\\ny"', '"tab\\t"', "true", "FALSE", "undefined", "error", "'quoted'"]
BINARY = ["||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", "is", "isnt", "IS", "<", "<=", ">", ">=", "<<", ">>",
          ">>>", "+", "-", "*", "/", "%"]
PREFIX = ["-", "+", "!", "~", "- ", "! "]
FUNCS = ["f", "strcat", "ifThenElse", "size", "'q f'", "absTime", "relTime", "member"]
TIMES = ['absTime("2024-01-31T12:00:00Z")', 'relTime("1:00")', 'relTime("1d2h")', 'absTime("junk")',
         'relTime("x")', 'absTime("2024-01-31", 0)']
BLANKS = ["", " ", "  ", "\n", "\t", " /* c */ ", "// note\n", "\r\n "]


def _blank(rng) -> str:
    return rng.choice(BLANKS) if rng.random() < 0.25 else rng.choice(["", " "])


def _expr(rng, depth: int) -> str:
    """A valid expression (in both syntaxes, mostly; old and new read backslashes differently)."""
    b = _blank(rng)
    if depth <= 0:
        return rng.choice(LITERALS + NAMES)
    choice = rng.randrange(18)
    if choice == 0:
        return rng.choice(LITERALS)
    if choice == 1:
        return rng.choice(NAMES)
    if choice == 2:
        return f"{_expr(rng, depth - 1)}{b}{rng.choice(BINARY)}{_blank(rng)}{_expr(rng, depth - 1)}"
    if choice == 3:
        return f"{rng.choice(PREFIX)}{_expr(rng, depth - 1)}"
    if choice == 4:
        return f"({b}{_expr(rng, depth - 1)}{_blank(rng)})"
    if choice == 5:
        return f"{_expr(rng, depth - 1)}{b}?{_blank(rng)}{_expr(rng, depth - 1)}{b}:{b}{_expr(rng, depth - 1)}"
    if choice == 6:
        return f"{_operand(rng, depth - 1)}{b}?:{_blank(rng)}{_operand(rng, depth - 1)}"
    if choice == 7:
        return f"{_operand(rng, depth - 1)}.{rng.choice(NAMES)}"
    if choice == 8:
        return f"{_operand(rng, depth - 1)}[{b}{_expr(rng, depth - 1)}]"
    if choice == 9:  # HTCondor also takes ';' between arguments
        args = [_expr(rng, depth - 1) for _ in range(rng.randrange(4))]
        inner = (args[0] + "".join(rng.choice([",", ", ", ";", " ,"]) + arg for arg in args[1:]) if args
                 else rng.choice(["", " "]))
        return f"{rng.choice(FUNCS)}({inner})"
    if choice == 10:
        items = [_expr(rng, depth - 1) for _ in range(rng.randrange(4))]
        return "{" + b + rng.choice([",", ", "]).join(items) + _blank(rng) + "}"
    if choice == 11:
        pairs = [f"{rng.choice(NAMES[:6] + ['Name', 'a'])}{b}={_blank(rng)}{_expr(rng, depth - 1)}"
                 for _ in range(rng.randrange(4))]
        semis = lambda: rng.choice([";", "; ", ";;", " ; "])  # noqa: E731
        body = "".join(p + semis() for p in pairs)
        if pairs and rng.random() < 0.5:
            body = body.rstrip("; ")
        lead = semis() if rng.random() < 0.2 else ""
        return f"[{b}{lead}{body}{_blank(rng)}]"
    if choice == 12:
        return f".{rng.choice(NAMES[:5])}"
    if choice == 13:
        return rng.choice(TIMES)
    if choice == 14:
        return f"{rng.choice(['MY', 'TARGET', 'other', 'Parent'])}.{rng.choice(NAMES[:5])}"
    if choice == 15:
        return f"{_expr(rng, depth - 1)}{rng.choice(['-1', '- 1', '-.5', '+1'])}"
    if choice == 16:  # a chain of operators: precedence and associativity
        chain = _operand(rng, depth - 1)
        for _ in range(rng.randrange(2, 6)):
            chain += f"{_blank(rng)}{rng.choice(BINARY)}{_blank(rng)}{_operand(rng, depth - 1)}"
        return chain
    return f"{_expr(rng, depth - 1)}{b}{rng.choice(BINARY)}{b}{rng.choice(PREFIX)}{_expr(rng, depth - 1)}"


def _operand(rng, depth: int) -> str:
    return rng.choice([rng.choice(NAMES), rng.choice(LITERALS), rng.choice(NAMES), f"({_expr(rng, depth)})",
                       f"f({_expr(rng, depth)})", f"{rng.choice(NAMES)}.{rng.choice(NAMES)}"])


def _near_miss(rng, text: str, syntax: str) -> str:
    """``text`` with one token dropped, doubled, swapped with the next, or a stray token inserted."""
    try:
        tokens = lexer.tokenize(text, syntax)[:-1]
    except ClassAdSyntaxError:
        return text
    if not tokens:
        return text
    # cut the text at token starts so each piece is one token and the blanks after it
    lines = text.split("\n")
    starts = [sum(len(line) + 1 for line in lines[:tok[2] - 1]) + tok[3] - 1 for tok in tokens] + [len(text)]
    pieces = [text[starts[k]:starts[k + 1]] for k in range(len(tokens))]
    head = text[:starts[0]]
    k = rng.randrange(len(pieces))
    action = rng.randrange(4)
    if action == 0:
        del pieces[k]
    elif action == 1:
        pieces.insert(k, pieces[k])
    elif action == 2 and k + 1 < len(pieces):
        pieces[k], pieces[k + 1] = pieces[k + 1], pieces[k]
    else:
        pieces.insert(k, rng.choice(["(", ")", "[", "]", "{", "}", ",", ";", "?", ":", "?:", "=", ".", "x ", "1 ",
                                     "+", "-", "!", "&&"]))
    return head + "".join(pieces)


SOUP = ["a", "1", "-1", "(", ")", "[", "]", "{", "}", ",", ";", "?", ":", "?:", "=", ".", "..", "+", "-", "!", "~",
        "*", "&&", "||", "==", "is", '"s"', "'q'", "f(", " ", "MY.", "[a=1]", 'absTime("junk")', 'relTime("1:00")']


def _texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        valid = _expr(rng, rng.randrange(1, 6))
        yield valid
        yield _near_miss(rng, valid, "old")
        yield "".join(rng.choice(SOUP) for _ in range(rng.randrange(1, 10)))


# ---------------------------------------------------------------- the tests


def _compare(reference, texts, syntaxes=("old", "new")) -> tuple[list[str], int]:
    """(what differs, how many texts were compared) over ``texts`` in each syntax.

    Texts the lexer refuses are skipped: tokens are shared, only the parse is being compared."""
    problems, compared = [], 0
    for text in texts:
        for syntax in syntaxes:
            try:
                lexer.tokenize(text, syntax)
            except ClassAdSyntaxError:
                continue
            problem = _agree(reference, text, syntax)
            if problem:
                problems.append(problem)
            compared += 1
    return problems, compared


@pytest.mark.parametrize("seed", range(4))
def test_generated_texts_parse_as_the_grammar_says(reference, seed):
    problems, compared = _compare(reference, _texts(seed, 1500))
    assert not problems, f"{len(problems)} of {compared}:\n" + "\n".join(problems[:20])
    assert compared > 4000


def test_the_generator_makes_trees_and_refusals(reference):
    """The comparison is only worth something if both outcomes are common."""
    outcomes = {"tree": 0, "refused": 0}
    for text in _texts(99, 400):
        outcomes[_outcome(reference, text, "old")[0]] += 1
    assert outcomes["tree"] > 300 and outcomes["refused"] > 300, outcomes


def test_vector_texts_parse_as_the_grammar_says(reference, shared):
    texts = set()
    for name in ("parse-vectors.jsonl", "vectors.jsonl", "vectors-newsyntax.jsonl"):
        for line in shared("vectors", "classad", name).read_text().splitlines():
            if line.strip():
                texts.add(json.loads(line)["expr"])
    problems, compared = _compare(reference, sorted(texts))
    assert not problems, "\n".join(problems[:20])
    assert compared > 1000


def test_deep_and_long_texts_agree(reference):
    for text in ["(" * 300 + "x" + ")" * 300, " + ".join(["x"] * 3000), "-" * 200 + "1", "!" * 500 + "a",
                 "a ?: " * 300 + "b", "a ? b : " * 300 + "c", "{" + ",".join(["[a=1;b={2}]"] * 300) + "}",
                 "a" + ".b" * 500 + "[1]" * 300]:
        assert _agree(reference, text, "old") is None


def test_corpus_values_parse_as_the_grammar_says(reference, shared):
    """Every value of the real configurations (policy expressions, lists, paths...) as an expression."""
    values = set()
    for line in shared("corpus", "real", "golden.jsonl").read_text().splitlines():
        if line.strip():
            values.update(v for v in json.loads(line)["params"].values() if isinstance(v, str) and v.strip())
    problems, compared = _compare(reference, sorted(values), ("old",))
    assert not problems, "\n".join(problems[:20])
    assert compared > 1000
