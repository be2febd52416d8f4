"""Reading a Qube! requirement expression: ``qube.lark`` beside a transformer that builds plain data.

``parse(text)`` returns a tree of :class:`Number`, :class:`String`, :class:`Property`,
:class:`Unary` and :class:`Binary` nodes, operators spelled by one canonical word whichever form
was written (``==``, ``=`` and ``eq`` are all ``eq``), each with the 1-based column where it is
written (the position in the whole text: an expression spread over lines is shown on one).  Input it cannot read raises :class:`QubeError` with that column and what to do.

The tree is built while parsing (lark's LALR parser calls the transformer as it reduces), so a
deeply nested expression costs no recursion here; evaluation and translation recurse, so depth
is bounded (:data:`MAX_DEPTH`), and so is the text (:data:`MAX_LENGTH`).
"""
from __future__ import annotations

import os
from collections import namedtuple

MAX_LENGTH = 64 * 1024   # a requirement is one line; a megabyte of it is not a requirement
MAX_DEPTH = 1000         # operators nested in each other (parentheses included; a chain of 300 `and`s is 300)
INT_LIMIT = 2 ** 63      # integers are 64-bit, as in ClassAds

Number = namedtuple("Number", "value column depth")
String = namedtuple("String", "value column depth quoted")     # quoted: written in quotes (else a bare word)
Property = namedtuple("Property", "root name column depth")     # root: "host" or "job"; name: "processors.total"
Unary = namedtuple("Unary", "op operand column depth")          # op: not, neg, pos
Binary = namedtuple("Binary", "op left right column depth")

# Every spelling of an operator -> its canonical word.
OPERATORS = {
    "||": "or", "or": "or", "&&": "and", "and": "and", "|": "bor", "^": "xor", "xor": "xor", "&": "band",
    "==": "eq", "=": "eq", "eq": "eq", "!=": "ne", "<>": "ne", "ne": "ne",
    "<": "lt", "lt": "lt", ">": "gt", "gt": "gt", "<=": "le", "le": "le", ">=": "ge", "ge": "ge",
    "in": "in", "has": "has", "<<": "ls", "ls": "ls", ">>": "rs", "rs": "rs",
    "+": "add", "add": "add", "-": "sub", "sub": "sub", "min": "min", "max": "max",
    "*": "mul", "mul": "mul", "/": "div", "div": "div", "%": "mod", "mod": "mod",
    "!": "not", "not": "not",
}
# How each canonical operator is written in messages (the word form, as Qube's manual lists it).
SPELLING = {"bor": "|", "band": "&", "neg": "-", "pos": "+"}

# Terminal names of qube.lark, as a message says them.
_TOKEN_WORDS = {"NUMBER": "a number", "STRING": "a quoted string", "PROPERTY": "a property (host.x, job.x)",
                "WORD": "a word", "LPAR": "'('", "RPAR": "')'", "$END": "the end of the expression"}
_OPERAND_TOKENS = {"NUMBER", "STRING", "PROPERTY", "WORD", "LPAR", "BANG", "NOT_WORD", "PLUS", "MINUS"}


class QubeError(Exception):
    """An expression condorcfg cannot read or evaluate: the message and the 1-based column."""

    def __init__(self, message: str, column: int = 1):
        super().__init__(message)
        self.message = message
        self.column = column


def _parser():
    global _PARSER
    if _PARSER is None:
        from lark import Lark, Transformer, v_args

        @v_args(inline=True)
        class _Build(Transformer):
            def number(self, token):
                text = str(token)
                try:
                    value = float(text) if any(c in text for c in ".eE") else int(text)
                except ValueError:  # (more digits than Python converts)
                    raise QubeError(f"the number {text[:20]}... is too large", _at(token)) from None
                shown = text if len(text) <= 20 else text[:20] + "..."
                if isinstance(value, int) and not -INT_LIMIT <= value < INT_LIMIT:
                    raise QubeError(f"the number {shown} is out of range (integers are 64-bit)", _at(token))
                if value != value or value in (float("inf"), float("-inf")):
                    raise QubeError(f"the number {shown} is out of range", _at(token))
                return Number(value, _at(token), 1)

            def string(self, token):
                return String(str(token)[1:-1], _at(token), 1, True)

            def word(self, token):
                return String(str(token), _at(token), 1, False)

            def property(self, token):
                root, _, name = str(token).partition(".")
                return Property(root.lower(), name, _at(token), 1)

            def group(self, _open, inner, _close):
                return _deeper(inner, 1, _at(_open))

            def unary(self, op, operand):
                word = OPERATORS[str(op).lower()]
                word = {"sub": "neg", "add": "pos"}.get(word, word)
                return _deeper(Unary(word, operand, _at(op), operand.depth + 1), 0, _at(op))

            def binary(self, left, op, right):
                node = Binary(OPERATORS[str(op).lower()], left, right, _at(op), max(left.depth, right.depth) + 1)
                return _deeper(node, 0, _at(op))

        grammar = os.path.join(os.path.dirname(__file__), "qube.lark")
        with open(grammar, encoding="utf-8") as handle:
            _PARSER = Lark(handle.read(), parser="lalr", lexer="basic", transformer=_Build())
    return _PARSER


_PARSER = None


def _at(token) -> int:
    """A token's 1-based position in the whole expression (a column, for the usual one-line expression;
    lark's own column restarts on every line)."""
    return token.start_pos + 1


def _deeper(node, extra: int, column: int):
    depth = node.depth + extra
    if depth > MAX_DEPTH:
        raise QubeError(f"the expression is nested more than {MAX_DEPTH} levels deep", column)
    return node._replace(depth=depth) if extra else node


def parse(text: str):
    """The tree of a Qube requirement expression; QubeError (with a column) when it cannot be read."""
    if len(text) > MAX_LENGTH:
        raise QubeError(f"the expression is longer than {MAX_LENGTH} characters", MAX_LENGTH + 1)
    if not text.strip():
        raise QubeError("the expression is empty; write a requirement such as `host.os eq linux`", 1)
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

    try:
        return _parser().parse(text)
    except VisitError as exc:  # a QubeError raised while building the tree
        if isinstance(exc.orig_exc, QubeError):
            raise exc.orig_exc from None
        raise
    except QubeError:
        raise
    except UnexpectedCharacters as exc:
        raise QubeError(_unreadable(text, exc.pos_in_stream), exc.pos_in_stream + 1) from None
    except UnexpectedToken as exc:
        raise QubeError(_unexpected(exc), _token_column(exc, text)) from None
    except UnexpectedInput:  # (any other: the end came too early)
        raise QubeError("the expression ends too early", len(text) + 1) from None


def _unreadable(text: str, position: int) -> str:
    words = text[position:position + 40].split()
    piece = words[0][:20] if words and text[position:position + 1].strip() else text[position:position + 1]
    if text[position:position + 1] in ("\"", "'"):
        return f"the string starting here has no closing {text[position]}"
    hint = ("; quote values that contain operator characters, e.g. '2.6.17-1.2142_FC4smp'"
            if piece[:1].isdigit() or "-" in piece else "")
    return f"cannot read {piece!r} here{hint}"


def _unexpected(exc) -> str:
    token = exc.token
    expected = set(exc.expected or ())
    if token.type == "$END":
        wanted = ("a value, a property or '('" if expected & _OPERAND_TOKENS else
                  "')' (a parenthesis is not closed)" if "RPAR" in expected else "more")
        return f"the expression ends too early: expected {wanted}"
    found = _TOKEN_WORDS.get(token.type, f"the operator {str(token)!r}")
    if token.type in ("NUMBER", "STRING", "PROPERTY", "WORD"):
        found = f"{found} ({str(token)[:40]!r})"
    if expected & _OPERAND_TOKENS and not expected - _OPERAND_TOKENS:
        return f"expected a value, a property or '(' but found {found}"
    if token.type in ("NUMBER", "STRING", "PROPERTY", "WORD", "LPAR"):
        return (f"expected an operator but found {found}: two values with nothing between them "
                f"(quote a value that contains blanks)")
    return f"unexpected {found}"


def _token_column(exc, text: str) -> int:
    token = exc.token
    if token.type == "$END" or getattr(token, "start_pos", None) is None:
        return len(text.rstrip()) + 1
    return _at(token)


def deep_enough(depth: int):
    """Evaluating or translating recurses once per level: make room for ``depth`` levels (pure
    Python frames, which CPython 3.11+ keeps off the C stack)."""
    import sys

    needed = 4 * depth + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def spell(op: str) -> str:
    """How an operator is named in a message."""
    return SPELLING.get(op, op)
