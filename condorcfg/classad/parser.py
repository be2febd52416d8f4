"""Parse ClassAd expressions and ads the way HTCondor 25.x does (HTCondor mode).

Two layers:

* a hand-written lexer (:func:`tokenize`) that reproduces HTCondor's lexer,
  which is context-sensitive: a ``-`` glues onto a following number only when
  the previous token cannot end an operand (``3 -1`` is a subtraction, ``f(-1)``
  holds the literal -1), ``?`` blanks ``:`` is one elvis token, integer
  literals with a leading zero are rejected, and the *old* syntax (config
  files, ``condor_status -l``) reads strings differently from the *new*
  (``[ ... ]``) syntax;
* the LALR(1) tables lark generates from ``classad.lark``
  (``_parse_tables.py``, made by tools/make_classad_parser.py), run by a
  small driver whose reductions build :mod:`condorcfg.classad.ast` nodes
  directly -- no parse tree, no lark import at run time.

``absTime("...")`` / ``relTime("...")`` with one string-literal argument are
folded at parse time, as HTCondor does (an unparsable time string is a
syntax error).

Every syntax error is a :class:`ClassAdSyntaxError` (a ``ValueError``) with
a 1-based line and column.  Pathological input ends with such an error in
linear time: nesting deeper than :data:`MAX_DEPTH` is refused rather than
risking Python's recursion limit in later stages.
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache

from condorcfg.classad import ast, civil_time
from condorcfg.classad.printer import format_reltime_spelling, unparse
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd

# HTCondor refuses more than 1000 nested sub-expressions; condorcfg also caps
# the depth of the whole tree there, so that every recursive consumer
# (printer, evaluator, analysis) stays far from Python's recursion limit.
MAX_DEPTH = 1000

# Trees may be MAX_DEPTH (parser.py) levels deep and every stage walks them
# recursively: make sure Python's recursion limit leaves room for that.
if sys.getrecursionlimit() < 6000:
    sys.setrecursionlimit(6000)

OLD, NEW = "old", "new"

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class ClassAdSyntaxError(ValueError):
    """A ClassAd text HTCondor would not parse; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


# --------------------------------------------------------------------------- lexer

_KEYWORDS = {
    "true": ("LITERAL", True),
    "false": ("LITERAL", False),
    "undefined": ("LITERAL", UNDEFINED),
    "error": ("LITERAL", ERROR),
    "is": ("EQOP", "is"),
    "isnt": ("EQOP", "isnt"),
}

# (text, token type, value); longest first.  '=?=' and '=!=' are spelled
# 'is'/'isnt' in the tree: HTCondor does not tell them apart and prints 'is'.
_OPERATORS = [
    (">>>", "SHIFTOP", ">>>"), ("=?=", "EQOP", "is"), ("=!=", "EQOP", "isnt"),
    ("&&", "ANDAND", "&&"), ("||", "OROR", "||"), ("<=", "RELOP", "<="), (">=", "RELOP", ">="),
    ("<<", "SHIFTOP", "<<"), (">>", "SHIFTOP", ">>"), ("==", "EQOP", "=="), ("!=", "EQOP", "!="),
    ("&", "BAND", "&"), ("|", "BOR", "|"), ("^", "BXOR", "^"), ("<", "RELOP", "<"), (">", "RELOP", ">"),
    ("+", "PLUS", "+"), ("-", "MINUS", "-"), ("*", "MULOP", "*"), ("/", "MULOP", "/"), ("%", "MULOP", "%"),
    ("!", "NOTOP", "!"), ("~", "NOTOP", "~"), ("=", "ASSIGN", "="), (":", "COLON", ":"),
    (",", "COMMA", ","), (";", "SEMI", ";"), ("(", "LPAR", "("), (")", "RPAR", ")"),
    ("[", "LSQB", "["), ("]", "RSQB", "]"), ("{", "LBRACE", "{"), ("}", "RBRACE", "}"),
    ("?", "QMARK", "?"), (".", "DOT", "."),
]
_OPERATOR_TOKENS = {text: (kind, value) for text, kind, value in _OPERATORS}
# first character -> the operator texts starting with it, longest first
_OPS_BY_CHAR: dict[str, list[str]] = {}
for _text, _, _ in _OPERATORS:
    _OPS_BY_CHAR.setdefault(_text[0], []).append(_text)

# token types after which a '-' is the binary operator (HTCondor's list)
_ENDS_OPERAND = frozenset({"LITERAL", "IDENT", "QIDENT", "DOT", "RSQB", "RPAR", "RBRACE"})
_OPENERS = frozenset({"LPAR", "LSQB", "LBRACE"})
_CLOSERS = frozenset({"RPAR", "RSQB", "RBRACE"})

_SPACE = " \t\n\r\f\v"
_WS_RE = re.compile(r"[ \t\n\r\f\v]*")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS_RE = re.compile(r"[0-9]*")
_HEX_RE = re.compile(r"[0-9A-Fa-f]*")
_ELVIS_RE = re.compile(r"\?[ \t\n\r\f\v]*:")

# first character -> what kind of token starts there (hand dispatch is faster than one big regex)
_CHAR_CLASS = {c: "space" for c in _SPACE}
_CHAR_CLASS.update({c: "word" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"})
_CHAR_CLASS.update({c: "digit" for c in "0123456789"})
_CHAR_CLASS.update({c: "op" for c in "-&|^<>+*/%!~=:,;()[]{}?."})
# a plain decimal integer (the common case), read without the full number() rules
_PLAIN_INT_RE = re.compile(r"(?:[1-9][0-9]*|0)(?![0-9.eExX])")

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v",
                   "\\": "\\", '"': '"', "'": "'", "?": "?"}


class _Lexer:
    """Turns text into (type, value, line, column) tuples, ending with ('$END', ...)."""

    __slots__ = ("text", "syntax", "pos", "line", "line_start", "tokens")

    def __init__(self, text: str, syntax: str):
        self.text = text
        self.syntax = syntax
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.tokens: list[tuple] = []

    def error(self, message: str, pos: int | None = None):
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        raise ClassAdSyntaxError(message, line, column)

    def _advance_lines(self, start: int, end: int) -> None:
        newlines = self.text.count("\n", start, end)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", start, end) + 1

    def skip_space(self) -> None:
        text, n = self.text, len(self.text)
        while True:
            start = self.pos
            pos = _WS_RE.match(text, start).end()
            if text.startswith("//", pos):
                end = text.find("\n", pos)
                pos = n if end < 0 else end
            elif text.startswith("/*", pos):
                end = text.find("*/", pos + 2)
                if end < 0:
                    self.pos = pos
                    self.error("unterminated /* comment: add the closing */")
                pos = end + 2
            self._advance_lines(start, pos)
            self.pos = pos
            if pos == start:
                return

    def run(self) -> list[tuple]:
        text, n = self.text, len(self.text)
        tokens = self.tokens
        append = tokens.append
        classes = _CHAR_CLASS
        operators = _OPERATOR_TOKENS
        match_space, match_word, match_int = _WS_RE.match, _IDENT_RE.match, _PLAIN_INT_RE.match
        depth = 0
        prev = None
        pos = 0
        while pos < n:
            ch = text[pos]
            cls = classes.get(ch, "other")
            if cls == "space":
                end = match_space(text, pos).end()
                if "\n" in text[pos:end]:
                    self._advance_lines(pos, end)
                pos = end
                continue
            line, column = self.line, pos - self.line_start + 1
            if cls == "word":
                word = match_word(text, pos).group()
                kind = _KEYWORDS.get(word.lower())
                append((kind[0], kind[1], line, column) if kind else ("IDENT", word, line, column))
                pos += len(word)
            elif cls == "digit":
                m = match_int(text, pos)
                if m:
                    digits = m.group()
                    append(("LITERAL", int(digits) if len(digits) < 19 else _from_chars(digits), line, column))
                    pos = m.end()
                else:
                    append(self.number(pos, line, column))
                    pos = self.pos
            elif cls == "op":
                if ch == "/" and text.startswith(("//", "/*"), pos):
                    self.pos = pos
                    self.skip_space()
                    pos = self.pos
                    continue
                for op_text in _OPS_BY_CHAR[ch]:
                    if text.startswith(op_text, pos):
                        break
                op_type, op_value = operators[op_text]
                if op_type == "MINUS" and prev not in _ENDS_OPERAND and self._starts_number(pos + 1):
                    append(self.number(pos, line, column))
                    pos = self.pos
                elif op_type == "QMARK" and _ELVIS_RE.match(text, pos):
                    end = _ELVIS_RE.match(text, pos).end()
                    self._advance_lines(pos, end)
                    append(("ELVIS", "?:", line, column))
                    pos = end
                elif op_type == "DOT" and self._starts_number(pos + 1, dots=True):
                    append(self.number(pos, line, column))
                    pos = self.pos
                else:
                    if op_type in _OPENERS:
                        depth += 1
                        if depth > MAX_DEPTH:
                            self.error(f"expression nested more than {MAX_DEPTH} levels deep", pos)
                    elif op_type in _CLOSERS:
                        depth -= 1
                    append((op_type, op_value, line, column))
                    pos += len(op_text)
            elif ch == '"':
                self.pos = pos
                append(("LITERAL", self.string('"'), line, column))
                pos = self.pos
            elif ch == "'":
                self.pos = pos
                append(("QIDENT", self.string("'"), line, column))
                pos = self.pos
            else:
                self._bad_character(pos)
            prev = tokens[-1][0]
        self.pos = pos
        append(("$END", None, self.line, n - self.line_start + 1))
        return tokens

    def _bad_character(self, pos: int):
        ch = self.text[pos]
        if ch == "#":
            self.error("'#' does not start a comment inside an expression; use // or /* */, or remove it", pos)
        if self.text.startswith("=?", pos):
            self.error("'=?' must be '=?=' (meta-equal)", pos)
        self.error(f"unexpected character {ch!r}", pos)

    def _starts_number(self, pos: int, dots: bool = False) -> bool:
        """A digit, or '.' and a digit, at pos (with dots: also a second '.', HTCondor's '..')."""
        text = self.text
        if pos < len(text) and "0" <= text[pos] <= "9":
            return True
        if dots:
            return text.startswith(".", pos)
        return text.startswith(".", pos) and pos + 1 < len(text) and "0" <= text[pos + 1] <= "9"

    def number(self, start: int, line: int, column: int) -> tuple:
        """An integer or real literal (HTCondor's tokenizeNumber), maybe with a glued '-'."""
        text = self.text
        pos = start + 1 if text[start] == "-" else start
        kind = None
        if text[pos] == "0" and text[pos + 1:pos + 2] in ("x", "X"):
            end = _HEX_RE.match(text, pos + 2).end()
            if end == pos + 2:
                self.error("'0x' must be followed by hexadecimal digits", start)
            pos, kind = end, "int"
        elif text[pos] == "0":
            end = _DIGITS_RE.match(text, pos).end()
            digits = text[pos:end]
            pos = end
            if text[pos:pos + 1] in (".", "e", "E"):
                kind = "real"
            elif any(d in "89" for d in digits):
                self.error(f"invalid number {text[start:pos]!r}: integers may not start with 0", start)
            else:
                kind = "int"
        elif text[pos] != ".":
            pos = _DIGITS_RE.match(text, pos).end()
            kind = "real" if text[pos:pos + 1] in (".", "e", "E") else "int"
        if text[pos:pos + 1] == ".":
            pos += 1
            if pos < len(text) and text[pos] == "." and kind is None:
                pos += 1  # HTCondor reads '..' as one '.' (and '..5' as a real)
            if pos < len(text) and "0" <= text[pos] <= "9":
                pos = _DIGITS_RE.match(text, pos).end()
                kind = "real"
            elif kind is not None:
                self.error(f"invalid number {text[start:pos]!r}: a digit must follow the '.'", start)
            else:
                self.pos = pos
                return ("DOT", ".", line, column)
        if kind == "real" and text[pos:pos + 1] in ("e", "E"):
            pos += 1
            if text[pos:pos + 1] in ("+", "-"):
                pos += 1
            end = _DIGITS_RE.match(text, pos).end()
            if end == pos:
                self.error(f"invalid number {text[start:end]!r}: the exponent needs digits", start)
            pos = end
        self.pos = pos
        literal = text[start:pos]
        if kind == "int":
            if literal[0] == "0" and len(literal) > 1:
                self.error(f"invalid number {literal!r}: HTCondor rejects integers with a leading 0 "
                           "(no octal or hex); write it in decimal", start)
            return ("LITERAL", _from_chars(literal), line, column)
        try:
            value = float(literal)
        except ValueError:  # '..5': strtod converts nothing
            value = 0.0
        return ("LITERAL", value, line, column)

    def string(self, delim: str) -> str:
        """A "string" or 'quoted name' starting at self.pos, in the lexer's syntax."""
        start = self.pos
        text = self.text
        if self.syntax == OLD:
            raw = self._raw_old(delim)
            value = raw
        else:
            pieces = []
            while True:
                pieces.append(self._raw_new(delim))
                # adjacent literals (blanks only between, no comments) are joined
                after = _WS_RE.match(text, self.pos).end()
                if text.startswith(delim, after):
                    self.pos = after
                    continue
                break
            value = _convert_escapes("".join(pieces))
            if value is None:
                self.error("a string may not contain a NUL character (\\0)", start)
        self._advance_lines(start, self.pos)
        return value

    def _raw_new(self, delim: str) -> str:
        text = self.text
        pos = self.pos + 1
        begin = pos
        n = len(text)
        while True:
            end = text.find(delim, pos)
            if end < 0:
                self.error(f"unterminated {'string' if delim == chr(34) else 'quoted name'}: "
                           f"add the closing {delim}", self.pos)
            backslashes = 0
            k = end - 1
            while k >= begin and text[k] == "\\":
                backslashes += 1
                k -= 1
            if backslashes % 2 == 0:
                break
            pos = end + 1
            if pos > n:
                break
        raw = text[begin:end]
        if "\0" in raw:
            self.error("a string may not contain a NUL character", self.pos)
        self.pos = end + 1
        return raw

    def _raw_old(self, delim: str) -> str:
        # Old syntax: a backslash is literal, except that \" is a quote when
        # more text (other than a newline) follows it on the line.
        text = self.text
        pos = self.pos + 1
        out = []
        begin = pos
        while True:
            end = text.find(delim, pos)
            if end < 0 or "\0" in text[pos:end]:
                self.error(f"unterminated {'string' if delim == chr(34) else 'quoted name'}: "
                           f"add the closing {delim}", self.pos)
            if end > begin and text[end - 1] == "\\" and end + 1 < len(text) and text[end + 1] != "\n":
                out.append(text[pos:end - 1] + delim)
                pos = end + 1
                continue
            out.append(text[pos:end])
            self.pos = end + 1
            return "".join(out)


def _from_chars(literal: str) -> int:
    """std::from_chars base 10: the longest [-]digits prefix; out of int64 range gives 0.

    More than 19 significant digits is out of range whatever they are, and is known so
    without converting (Python refuses to convert more than 4,300 digits).
    """
    match = re.match(r"-?[0-9]+", literal)
    if not match:
        return 0
    digits = match.group().lstrip("-").lstrip("0")
    if len(digits) > 19:
        return 0
    value = int(match.group())
    return value if INT64_MIN <= value <= INT64_MAX else 0


def _convert_escapes(raw: str) -> str | None:
    """New-syntax escapes (HTCondor's convert_escapes); None if the result holds a NUL."""
    if "\\" not in raw:
        return raw
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch != "\\" or i + 1 >= n:
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = raw[i + 1]
        if "0" <= nxt <= "7":
            # up to three octal digits, but never past \377
            limit = 3 if nxt <= "3" else 2
            j = i + 1
            while j < n and j < i + 1 + limit and "0" <= raw[j] <= "7":
                j += 1
            value = int(raw[i + 1:j], 8)
            if value == 0:
                return None
            out.append(value)
            i = j
        else:
            out += _SIMPLE_ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape")
            i += 2
    # bytes that are not UTF-8 survive as surrogates and print back as octal
    return out.decode("utf-8", "surrogateescape")


def tokenize(text: str, syntax: str = OLD) -> list[tuple]:
    """The token tuples ``(type, value, line, column)`` of ``text``, ending with ``$END``."""
    return _Lexer(text, syntax).run()


# --------------------------------------------------------------------------- time literals


def _atoi(text: str) -> int:
    match = re.match(r"\s*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


def parse_abstime_string(text: str) -> AbsTime | None:
    """HTCondor's absTime("...") string reader (lenient ISO 8601); None if it rejects the text."""
    s = text
    size = len(s)
    i = size - 1
    while i >= 0 and s[i] in _SPACE:
        i -= 1
    has_offset, tz_hours, tz_minutes = False, 0, 0
    if i > 0 and s[i] in "zZ":
        has_offset = True
        s = s[:i] + s[i + 1:]
    elif size > 5 and s[size - 5] in "+-":
        has_offset, s, tz_hours, tz_minutes = _extract_zone(s)
    elif size > 6 and s[size - 6] in "+-" and s[size - 3] == ":":
        s = s[:size - 3] + s[size - 2:]
        has_offset, s, tz_hours, tz_minutes = _extract_zone(s)
    size = len(s)

    def next_digit(k: int) -> int:
        while k < size and not s[k].isdigit():
            k += 1
        return k

    i = next_digit(0)
    if i > size - 4:
        return None
    fields = [_atoi(s[i:i + 4]), 0, 0, 0, 0, 0]  # year, month-1, day, hour, minute, second
    i = next_digit(i + 4)
    for index, adjust in ((1, -1), (2, 0), (3, 0), (4, 0), (5, 0)):
        if i <= size - 2:
            fields[index] = _atoi(s[i:i + 2]) + adjust
            i += 2
        i = next_digit(i)
    if i <= size - 1 and s[i].isdigit():
        return None
    year, month0, day, hour, minute, second = fields
    year += month0 // 12
    month0 %= 12
    try:
        days = civil_time.timegm(year, month0 + 1, 1) // 86400 + day - 1
    except (ValueError, OverflowError):
        return None
    wall = days * 86400 + hour * 3600 + minute * 60 + second
    offset = tz_hours * 3600 + tz_minutes * 60 if has_offset else civil_time.local_offset(wall)
    if wall - civil_time.local_offset(wall) == -1:  # mktime's failure value: HTCondor rejects that instant
        return None
    return AbsTime(wall - offset, offset)


def _extract_zone(s: str):
    off = s[len(s) - 5:]
    if off[0] in "+-" and off[1:].isdigit() and len(off) == 5:
        sign = 1 if off[0] == "+" else -1
        return True, s[:len(s) - 5], sign * _atoi(off[1:3]), sign * _atoi(off[3:5])
    return False, s, 0, 0


def parse_reltime_string(text: str) -> float | None:
    """HTCondor's relTime("...") string reader: ``[-][D+][HH:][MM:]SS[.f]`` or ``1d2h3m4s``; None if rejected."""
    s = text
    i = len(s) - 1

    def back_space(k: int) -> int:
        while k >= 0 and s[k] in _SPACE:
            k -= 1
        return k

    def back_digits(k: int) -> tuple[int, str]:
        start = k
        while k >= 0 and s[k].isdigit():
            k -= 1
        return k, s[k + 1:start + 1]

    def to_int(digits: str) -> int:
        significant = digits.lstrip("0")
        if len(significant) > 10:  # >= 2**31 whatever the digits (and too long for int() past 4,300)
            return 0
        value = int(significant) if significant else 0
        return value if value < 2 ** 31 else 0

    seconds = 0.0
    minutes = hours = days = 0
    negative = False
    i = back_space(i)
    if i >= 0 and (s[i] in "sS" or s[i].isdigit()):
        if s[i] in "sS":
            i -= 1
        i = back_space(i)
        i, digits = back_digits(i)
        if i >= 0 and s[i] == ".":
            i, more = back_digits(i - 1)
            digits = more + "." + digits
        try:
            seconds = float(digits) if digits not in ("", ".") else 0.0
        except ValueError:
            seconds = 0.0
    i = back_space(i)
    for unit in ("mM:", "hH:", "dD+"):
        if i >= 0 and s[i] in unit:
            i = back_space(i - 1)
            i, digits = back_digits(i)
            value = to_int(digits)
            if unit == "mM:":
                minutes = value
            elif unit == "hH:":
                hours = value
            else:
                days = value
        i = back_space(i)
    if i >= 0 and s[i] == "-":
        negative = True
        i -= 1
    i = back_space(i)
    if i >= 0:
        return None
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    return -total if negative else float(total)


def _fold_time_call(name: str, args: list, line: int, column: int):
    """absTime("...")/relTime("...") become literals at parse time (HTCondor's parser does this)."""
    lowered = name.lower()
    if lowered not in ("abstime", "reltime") or len(args) != 1:
        return None
    arg = args[0]
    if type(arg) is not ast.Literal or not isinstance(arg.value, str):
        return None
    if lowered == "abstime":
        value = parse_abstime_string(arg.value)
        if value is None:
            raise ClassAdSyntaxError(f"absTime({arg.value!r}): not a date HTCondor can read; "
                                     "write e.g. \"2024-01-31T12:00:00Z\"", line, column)
        return ast.Literal(value, line=line, column=column)
    seconds = parse_reltime_string(arg.value)
    if seconds is None:
        raise ClassAdSyntaxError(f"relTime({arg.value!r}): not a duration HTCondor can read; "
                                 "write e.g. \"1+02:03:04\" or \"90s\"", line, column)
    # HTCondor 25.14.1 quirk: the folded literal evaluates as a real number of
    # seconds but prints back as relTime("..."); keep both.
    return ast.Literal(seconds, spelling=f'relTime("{format_reltime_spelling(seconds)}")', line=line, column=column)


# --------------------------------------------------------------------------- parser driver


def _pos(item) -> tuple[int, int]:
    if type(item) is tuple:
        return item[2], item[3]
    return item.line, item.column


def _cb_literal(c):
    tok = c[0]
    return ast.Literal(tok[1], line=tok[2], column=tok[3])


def _cb_attr(c):
    tok = c[0]
    return ast.AttrRef(tok[1], quoted=tok[0] == "QIDENT", line=tok[2], column=tok[3])


def _cb_absolute_attr(c):
    dot, name = c
    return ast.AttrRef(name[1], scope="ROOT", scope_text=".", quoted=name[0] == "QIDENT",
                       line=dot[2], column=dot[3])


_SCOPES = {"my": "MY", "target": "TARGET", "other": "OTHER", "parent": "PARENT"}


def _cb_select(c):
    base, _dot, name = c
    if type(base) is ast.AttrRef and base.scope is None:
        scope = _SCOPES.get(base.name.lower())
        if scope:
            return ast.AttrRef(name[1], scope=scope, scope_text=base.name, line=base.line, column=base.column)
    return ast.Select(base, name[1], line=base.line, column=base.column)


def _cb_subscript(c):
    base = c[0]
    return ast.Subscript(base, c[2], line=base.line, column=base.column)


def _cb_elvis(c):
    left = c[0]
    return ast.Elvis(left, c[2], line=left.line, column=left.column)


def _cb_unop(c):
    tok = c[0]
    return ast.UnaryOp(tok[1], c[1], line=tok[2], column=tok[3])


def _cb_binop(c):
    left = c[0]
    return ast.BinaryOp(c[1][1], left, c[2], line=left.line, column=left.column)


def _cb_conditional(c):
    cond = c[0]
    return ast.Conditional(cond, c[2], c[4], line=cond.line, column=cond.column)


def _call(name_tok, args):
    line, column = name_tok[2], name_tok[3]
    folded = _fold_time_call(name_tok[1], args, line, column)
    if folded is not None:
        return folded
    return ast.Call(name_tok[1], args, line=line, column=column)


def _cb_call0(c):
    return _call(c[0], [])


def _cb_call(c):
    return _call(c[0], c[2])


def _cb_paren(c):
    tok = c[0]
    return ast.Paren(c[1], line=tok[2], column=tok[3])


def _cb_list0(c):
    tok = c[0]
    return ast.ListExpr([], line=tok[2], column=tok[3])


def _cb_list(c):
    tok = c[0]
    return ast.ListExpr(c[1], line=tok[2], column=tok[3])


def _record(tok, pairs):
    # A record is a map: a repeated name (any case) keeps the first spelling and
    # the last value, and HTCondor prints (and so iterates) attributes ordered
    # by name length, then case-insensitively by name.
    merged: dict[str, list] = {}
    for name, expr in pairs:
        key = name.lower()
        if key in merged:
            merged[key][1] = expr
        else:
            merged[key] = [name, expr]
    attrs = sorted(((n, e) for n, e in merged.values()), key=lambda pair: (len(pair[0]), pair[0].lower()))
    return ast.RecordExpr(attrs, line=tok[2], column=tok[3])


def _cb_record0(c):
    return _record(c[0], [])


def _cb_record(c):
    return _record(c[0], c[1])


def _cb_record_lead(c):
    return _record(c[0], c[2])


def _cb_record_both(c):
    return _record(c[0], c[2])


def _cb_attr_pair(c):
    return (c[0][1], c[2])


def _cb_first_item(c):
    return [c[0]]


def _cb_next_item(c):
    items = c[0]
    items.append(c[2])
    return items


def _cb_same_list(c):
    return c[0]


def _cb_start(c):
    return c[0]


_CALLBACKS = {
    "literal": _cb_literal, "attr": _cb_attr, "attr_def": _cb_attr_pair, "absolute_attr": _cb_absolute_attr,
    "select": _cb_select, "subscript": _cb_subscript, "elvis": _cb_elvis, "unop": _cb_unop,
    "binop": _cb_binop, "conditional": _cb_conditional, "call0": _cb_call0, "call": _cb_call,
    "paren": _cb_paren, "list0": _cb_list0, "list": _cb_list, "record0": _cb_record0,
    "record0_semis": _cb_record0, "record": _cb_record, "record_lead": _cb_record_lead,
    "record_trail": _cb_record, "record_both": _cb_record_both, "first_item": _cb_first_item,
    "next_item": _cb_next_item, "next_attr": _cb_next_item, "same_list": _cb_same_list,
    "start": _cb_start,
}

_TABLES = None


def _tables():
    global _TABLES
    if _TABLES is None:
        from condorcfg.classad import _parse_tables as t

        rules = []
        for lhs, size, callback in t.RULES:
            function = _CALLBACKS[callback] if callback else None
            rules.append((lhs, size, function))
        _TABLES = (t.START, t.ACCEPT, t.ACTIONS, t.GOTOS, rules)
    return _TABLES


_TOKEN_NAMES = {
    "$END": "end of input", "LITERAL": "a value", "IDENT": "a name", "QIDENT": "a 'quoted name'",
    "ELVIS": "'?:'", "QMARK": "'?'", "COLON": "':'", "DOT": "'.'", "ASSIGN": "'='", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
    "SEMI": "';'", "MINUS": "'-'", "PLUS": "'+'",
}


def _describe(tok) -> str:
    kind, value = tok[0], tok[1]
    if kind == "$END":
        return "end of input"
    if kind == "LITERAL":
        return f"value {unparse(value)}"
    if kind in ("IDENT", "QIDENT"):
        return f"name {value!r}"
    return repr(value)


def _syntax_error(tok, expected) -> ClassAdSyntaxError:
    expected = set(expected)
    if tok[0] == "$END":
        message = "the expression ends too early"
    else:
        message = f"unexpected {_describe(tok)}"
    if tok[0] == "ELVIS" or (tok[0] in ("MINUS", "PLUS", "NOTOP") and "LITERAL" in expected
                             and "MINUS" not in expected):
        hint = ("the right side of '?:' must be a simple operand (a value, a name, a call or "
                "a parenthesised expression); add parentheses")
    elif "$END" in expected:
        hint = "the expression is already complete before it: join it with an operator or remove it"
    elif "LITERAL" in expected or "IDENT" in expected:
        hint = "expected an operand (a value, a name, '(' ...)"
    else:
        wanted = sorted(_TOKEN_NAMES[e] for e in expected if e in _TOKEN_NAMES)
        hint = "expected " + " or ".join(wanted) if wanted else ""
    return ClassAdSyntaxError(f"{message}; {hint}" if hint else message, tok[2], tok[3])


# (state below, top state, terminal) -> the top state after every one-symbol
# pass-through reduction (`?rule`) the terminal triggers there.  An operand
# climbs about a dozen precedence levels that way; caching the whole climb
# makes it one look-up.  Bounded by states**2 * terminals, filled lazily.
_CLIMB: dict = {}


def _climb(below: int, top: int, kind: str, actions, gotos, rules) -> int:
    while True:
        act = actions[top].get(kind)
        if act is None or act >= 0 or rules[-1 - act][2] is not None:
            return top
        top = gotos[below][rules[-1 - act][0]]


def _run(tokens: list[tuple]):
    start, accept, actions, gotos, rules = _tables()
    climb_cache = _CLIMB
    states = [start]
    values: list = []
    push_state, push_value = states.append, values.append
    for tok in tokens:
        kind = tok[0]
        while True:
            top = states[-1]
            act = actions[top].get(kind)
            if act is None:
                raise _syntax_error(tok, actions[top].keys())
            if act >= 0:
                push_state(act)
                push_value(tok)
                break
            lhs, size, function = rules[-1 - act]
            if function is None:
                key = (states[-2], top, kind)
                new_top = climb_cache.get(key)
                if new_top is None:
                    new_top = climb_cache[key] = _climb(states[-2], top, kind, actions, gotos, rules)
                states[-1] = new_top
                continue
            children = values[-size:]
            del values[-size:]
            del states[-size:]
            top = gotos[states[-1]][lhs]
            push_state(top)
            push_value(function(children))
            if top == accept and kind == "$END":
                return values[-1]
    raise ClassAdSyntaxError("internal parser error: input ended without a result")


def _depth(node) -> int:
    """Depth of the tree, iteratively (a deep tree must not blow Python's stack here)."""
    deepest = 0
    stack = [(node, 1)]
    while stack:
        item, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest > MAX_DEPTH:
                return deepest
        for child in ast.children(item):
            stack.append((child, level + 1))
    return deepest



def _parse_uncached(text: str, syntax: str) -> ast.Node:
    if syntax not in (OLD, NEW):
        raise ValueError(f"syntax must be 'old' or 'new', not {syntax!r}")
    tokens = _Lexer(text, syntax).run()
    if len(tokens) == 1:
        raise ClassAdSyntaxError("empty expression: write a value or an expression", 1, 1)
    return _check_depth(_run(tokens), len(tokens))


def _check_depth(node, token_count: int):
    # a tree cannot be deeper than its token count: only long texts need the walk
    if token_count > MAX_DEPTH and _depth(node) > MAX_DEPTH:
        raise ClassAdSyntaxError(f"expression nested more than {MAX_DEPTH} levels deep "
                                 "(condorcfg's limit); split it into several attributes", node.line, node.column)
    return node


_parse_cached = lru_cache(maxsize=4096)(_parse_uncached)


def parse(text: str, syntax: str = OLD) -> ast.Node:
    """Parse one complete ClassAd expression into an :mod:`ast` tree.

    ``syntax="old"`` (the default) is the syntax of configuration values and
    ``condor_status -l`` output; ``"new"`` is the native ``[ ... ]`` syntax
    (C-style string escapes, adjacent strings joined).  Results are cached:
    treat the returned tree as immutable.
    """
    if len(text) > 10_000:
        return _parse_uncached(text, syntax)  # do not pin huge texts in the cache
    return _parse_cached(text, syntax)


# --------------------------------------------------------------------------- ads


def parse_ad(text: str, syntax: str | None = None) -> ClassAd:
    """One ad, in new syntax (``[ a = 1; b = 2 ]``) or old syntax (``Name = expr`` lines).

    ``syntax=None`` picks new syntax when the text starts with ``[``.  Old
    syntax with several blank-line separated ads is an error here: use
    :func:`parse_ads`.
    """
    ads = parse_ads(text, syntax)
    if len(ads) != 1:
        if not ads:
            return ClassAd()
        raise ClassAdSyntaxError(f"expected one ad, found {len(ads)} (blank lines separate ads); "
                                 "use parse_ads() for several", 1, 1)
    return ads[0]


def parse_ads(text: str, syntax: str | None = None) -> list[ClassAd]:
    """Every ad in ``text``: ``[...]`` ads one after another, or old-syntax ads separated by blank lines."""
    stripped = text.lstrip()
    if syntax is None:
        syntax = NEW if stripped.startswith("[") else OLD
    if syntax == NEW:
        return _parse_new_ads(text)
    return _parse_old_ads(text)


def _parse_new_ads(text: str) -> list[ClassAd]:
    lexer = _Lexer(text, NEW)
    tokens = lexer.run()
    ads = []
    start = 0
    while tokens[start][0] != "$END":
        tok = tokens[start]
        if tok[0] != "LSQB":
            raise ClassAdSyntaxError(f"expected '[' to start an ad, found {_describe(tok)}", tok[2], tok[3])
        # find the matching ']' and parse that slice as one record expression
        depth, end = 0, start
        while True:
            kind = tokens[end][0]
            if kind in _OPENERS:
                depth += 1
            elif kind in _CLOSERS:
                depth -= 1
                if depth == 0:
                    break
            elif kind == "$END":
                raise _syntax_error(tokens[end], {"RSQB"})
            end += 1
        eof = tokens[-1]
        record = _check_depth(_run(tokens[start:end + 1] + [("$END", None, eof[2], eof[3])]), end + 1 - start)
        if type(record) is not ast.RecordExpr:
            raise ClassAdSyntaxError("an ad must be a '[ name = value; ... ]' record", tok[2], tok[3])
        ads.append(ClassAd(record.attrs))
        start = end + 1
    return ads


# `Name = value`; '==', '=?=' and '=!=' are operators, not the assignment
_OLD_LINE_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=(?!=|\?=|!=)\s*(.*?)\s*$")


def _parse_old_ads(text: str) -> list[ClassAd]:
    ads: list[ClassAd] = []
    current: ClassAd | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.strip()
        if not content:
            current = None  # a blank line ends the ad
            continue
        if content.startswith("#"):
            continue
        match = _OLD_LINE_RE.match(line)
        if not match:
            column = len(line) - len(line.lstrip()) + 1
            raise ClassAdSyntaxError("expected 'Name = expression' (old ClassAd syntax)", number, column)
        name, value = match.group(1), match.group(2)
        if "." in name:
            raise ClassAdSyntaxError(f"attribute name {name!r} may not contain '.'", number, match.start(1) + 1)
        value_column = match.start(2) + 1
        try:
            expr = parse(value, OLD)
        except ClassAdSyntaxError as exc:
            # report the position in the whole text, not inside the value
            column = exc.column + (value_column - 1 if exc.line == 1 else 0)
            raise ClassAdSyntaxError(f"{name}: {exc.message}", number + exc.line - 1, column) from None
        if current is None:
            current = ClassAd()
            ads.append(current)
        current[name] = _shift(expr, number - 1, value_column - 1)
    return ads


def _shift(node, lines: int, columns: int):
    """Positions of an old-syntax value are relative to the value; move them to the file.

    Trees come from the parse cache and are shared, so this copies.
    """
    if not lines and not columns:
        return node
    import copy

    node = copy.deepcopy(node)
    stack = [node]
    while stack:
        item = stack.pop()
        if item.line == 1:
            item.column += columns
        item.line += lines
        stack.extend(child for child in ast.children(item))
    return node
