"""ClassAd tokens, read the way HTCondor 25.x's lexer reads them.

HTCondor's lexer is context-sensitive: a ``-`` glues onto a following number
only when the previous token cannot end an operand (``3 -1`` is a
subtraction, ``f(-1)`` holds the literal -1), ``?`` blanks ``:`` is one elvis
token, integer literals with a leading zero are refused, and the *old* syntax
(config files, ``condor_status -l``) reads strings differently from the *new*
(``[ ... ]``) syntax.

Two readers give the same tokens.  Most texts are read by one ``findall()`` of a
regular expression over the common tokens (names, plain numbers, operators, strings
without escapes); a text with anything else -- comments, escapes, hex, ``.5``, a bad
character -- is read token by token, by a regular expression whose matching group
names the kind, with the context-sensitive cases finished by hand.  A token is the
tuple ``(type, value, line, column)``; the list ends with ``('$END', None, ...)``.
"""
from __future__ import annotations

import re

from condorcfg.classad.values import ERROR, UNDEFINED

OLD, NEW = "old", "new"

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class ClassAdSyntaxError(ValueError):
    """A ClassAd text HTCondor would not parse; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


def _case_variants(word: str) -> list[str]:
    variants = [""]
    for ch in word:
        variants = [v + c for v in variants for c in {ch.lower(), ch.upper()}]
    return variants


# Keywords are case-insensitive: every spelling is a key, so a name is looked up without lower().
_KEYWORDS: dict[str, tuple] = {}
for _word, _token in {"true": ("LITERAL", True), "false": ("LITERAL", False),
                      "undefined": ("LITERAL", UNDEFINED), "error": ("LITERAL", ERROR),
                      "is": ("EQOP", "is"), "isnt": ("EQOP", "isnt")}.items():
    for _spelling in _case_variants(_word):
        _KEYWORDS[_spelling] = _token

# operator text -> (token type, value).  '=?=' and '=!=' are spelled 'is'/'isnt'
# in the tree: HTCondor does not tell them apart and prints 'is'.
_OPERATOR_TOKENS = {
    ">>>": ("SHIFTOP", ">>>"), "=?=": ("EQOP", "is"), "=!=": ("EQOP", "isnt"),
    "&&": ("ANDAND", "&&"), "||": ("OROR", "||"), "<=": ("RELOP", "<="), ">=": ("RELOP", ">="),
    "<<": ("SHIFTOP", "<<"), ">>": ("SHIFTOP", ">>"), "==": ("EQOP", "=="), "!=": ("EQOP", "!="),
    "&": ("BAND", "&"), "|": ("BOR", "|"), "^": ("BXOR", "^"), "<": ("RELOP", "<"), ">": ("RELOP", ">"),
    "+": ("PLUS", "+"), "-": ("MINUS", "-"), "*": ("MULOP", "*"), "/": ("MULOP", "/"), "%": ("MULOP", "%"),
    "!": ("NOTOP", "!"), "~": ("NOTOP", "~"), "=": ("ASSIGN", "="), ":": ("COLON", ":"),
    ",": ("COMMA", ","), ";": ("SEMI", ";"), "(": ("LPAR", "("), ")": ("RPAR", ")"),
    "[": ("LSQB", "["), "]": ("RSQB", "]"), "{": ("LBRACE", "{"), "}": ("RBRACE", "}"),
    "?": ("QMARK", "?"), ".": ("DOT", "."),
}

# token types after which a '-' is the binary operator (HTCondor's list)
ENDS_OPERAND = frozenset({"LITERAL", "IDENT", "QIDENT", "DOT", "RSQB", "RPAR", "RBRACE"})

_BLANKS = "[ \\t\\n\\r\\f\\v]"
# Blanks and comments, then one token.  Every non-blank character starts some alternative
# and the end of the text is one too, so a match never fails and never backtracks into the
# blanks (an unterminated '/*' is left to its own alternative).  Group numbers are the kinds.
_TOKEN_RE = re.compile(
    f"{_BLANKS}*(?:(?://[^\\n]*|/\\*(?s:.*?)\\*/){_BLANKS}*)*"
    "(?:"
    "([A-Za-z_][A-Za-z0-9_]*)"                 # 1 name or keyword
    "|((?:[1-9][0-9]*|0)(?![0-9.eExX]))"       # 2 plain decimal integer
    "|(/\\*)"                                  # 3 '/*' without its '*/'
    "|(>>>|=\\?=|=!=|&&|\\|\\||<=|>=|<<|>>|==|!=|[&|^<>+*/%!~=:,;()\\[\\]{}])"  # 4 operator
    "|(-(?=[0-9]|\\.[0-9]))"                   # 5 '-' before a number: glued unless it is binary
    "|(-)"                                     # 6 minus
    f"|(\\?{_BLANKS}*:)"                       # 7 elvis '?:'
    "|(\\?)"                                   # 8 question mark
    "|(\\.(?=[0-9.]))"                         # 9 '.5', or HTCondor's '..'
    "|(\\.)"                                   # 10 dot
    '|("[^"\\\\\\0]*")'                        # 11 string without backslash or NUL
    "|('[^'\\\\\\0]*')"                        # 12 quoted name without backslash or NUL
    "|([\"'])"                                 # 13 any other string or quoted name
    "|([0-9])"                                 # 14 any other number
    "|(\\Z)"                                   # 15 end of text
    "|([^ \\t\\n\\r\\f\\v])"                   # 16 a character no token starts with
    ")"
)

_WS_RE = re.compile(f"{_BLANKS}*")
_DIGITS_RE = re.compile(r"[0-9]*")
_HEX_RE = re.compile(r"[0-9A-Fa-f]*")

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v",
                   "\\": "\\", '"': '"', "'": "'", "?": "?"}


def _error(text: str, pos: int, message: str) -> ClassAdSyntaxError:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return ClassAdSyntaxError(message, line, column)


# The common tokens, read by one findall() call into (blanks, token) pairs: offsets are kept by
# adding lengths.  A token's first character tells its kind (1 name, 2 number, 3 operator,
# 4 string, 5 quoted name; literal numbers in the loop below: it runs for every token).
# Anything else -- '.5', '0x1f', '07', strings with backslashes, a bad character -- and comments
# send the whole text to the token-by-token reader above, which knows every rule: the last
# alternative takes one such character alone, which no kind accepts.  No alternative backtracks
# over what it matched.
_COMMON_RE = re.compile(
    f"({_BLANKS}*)("
    "[A-Za-z_][A-Za-z0-9_]*"
    "|[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    f"|\\?{_BLANKS}*:|>>>?|>=?|<<|<=?|==|=\\?=|=!=|=|!=?|&&?|\\|\\|?|[-^+*/%~:,;()\\[\\]{{}}?.]"
    '|"[^"\\\\\\0]*"'
    "|'[^'\\\\\\0]*'"
    "|.)",
    re.S,
)
_KIND_OF_FIRST = {c: 1 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"}
_KIND_OF_FIRST.update({c: 2 for c in "0123456789"})
_KIND_OF_FIRST.update({c: 3 for c in "-^+*/%~:,;()[]{}?.<>=!&|"})
_KIND_OF_FIRST.update({'"': 4, "'": 5})


def tokenize(text: str, syntax: str = OLD) -> list[tuple]:
    """The token tuples ``(type, value, line, column)`` of ``text``, ending with ``$END``."""
    tokens = None
    if "/*" not in text and "//" not in text:
        tokens = _common_tokens(text, syntax == OLD)
    if tokens is None:
        tokens = _all_tokens(text, syntax == OLD)
    if "\n" in text:
        return _with_lines(text, tokens)
    return tokens


def _common_tokens(text: str, old: bool) -> list[tuple] | None:
    """The tokens of a text made only of common tokens (columns are offsets + 1), else None."""
    tokens: list[tuple] = []
    append = tokens.append
    operators = _OPERATOR_TOKENS
    keywords = _KEYWORDS
    kind_of = _KIND_OF_FIRST.get
    ends_operand = ENDS_OPERAND
    prev = None  # the type of the token before
    minus = -1  # offset of a '-' that glues onto the number right after it
    pos = 0
    for blanks, item in _COMMON_RE.findall(text):
        if blanks:
            pos += len(blanks)
        kind = kind_of(item[0])
        if kind == 1:  # name
            token = keywords.get(item)
            if token:
                prev = token[0]
                append((prev, token[1], 1, pos + 1))
            else:
                prev = "IDENT"
                append(("IDENT", item, 1, pos + 1))
        elif kind == 3:  # operator
            if item == "-" and prev not in ends_operand and _starts_number(text, pos + 1):
                minus = pos  # read with the number after it
            elif item[0] == "?" and len(item) > 1:
                prev = "ELVIS"
                append(("ELVIS", "?:", 1, pos + 1))
            elif item == "." and text[pos + 1:pos + 2] in _DOT_FOLLOWERS:
                return None  # '.5', '..': the full rules
            else:
                prev, value = operators[item]
                append((prev, value, 1, pos + 1))
        elif kind == 2:  # number
            after = text[pos + len(item):pos + len(item) + 1]
            if after and after in ".eExX":
                return None  # '1.', '1.5e', '0x1f', '1.2.3': the full rules
            if item.isdigit():
                if item[0] == "0" and len(item) > 1:
                    return None  # refused (no octal): the full reader says why
                if minus >= 0:
                    value = -int(item) if len(item) < 19 else from_chars("-" + item)
                else:
                    value = int(item) if len(item) < 19 else from_chars(item)
            else:
                value = -float(item) if minus >= 0 else float(item)
            if minus >= 0:
                append(("LITERAL", value, 1, minus + 1))
                minus = -1
            else:
                append(("LITERAL", value, 1, pos + 1))
            prev = "LITERAL"
        elif kind is not None and len(item) > 1:  # a string or quoted name, closed
            if not old and (prev == "LITERAL" or prev == "QIDENT"):
                return None  # new syntax joins adjacent strings: the full reader does that
            if kind == 4:
                prev = "LITERAL"
                append(("LITERAL", item[1:-1], 1, pos + 1))
            else:
                prev = "QIDENT"
                append(("QIDENT", item[1:-1], 1, pos + 1))
        else:
            return None  # a character no common token starts with, or a string with escapes
        pos += len(item)
    append(("$END", None, 1, len(text) + 1))
    return tokens


_DOT_FOLLOWERS = frozenset("0123456789.")


def _starts_number(text: str, pos: int) -> bool:
    """A digit, or '.' and a digit, at ``pos``: a '-' before it glues onto the number."""
    ch = text[pos:pos + 1]
    if ch.isdigit() and ch.isascii():
        return True
    return ch == "." and text[pos + 1:pos + 2].isdigit() and text[pos + 1:pos + 2].isascii()


def _all_tokens(text: str, old: bool) -> list[tuple]:
    """Every token of ``text`` by the full rules (columns are offsets + 1)."""
    tokens: list[tuple] = []
    append = tokens.append
    match = _TOKEN_RE.match
    operators = _OPERATOR_TOKENS
    keywords = _KEYWORDS
    prev = None
    pos = 0
    while True:
        m = match(text, pos)
        kind = m.lastindex
        start = m.start(kind)
        pos = m.end()
        if kind == 1:
            word = m.group(1)
            token = keywords.get(word)
            prev = token[0] if token else "IDENT"
            append((prev, token[1], 1, start + 1) if token else ("IDENT", word, 1, start + 1))
            continue
        if kind == 4:
            prev, value = operators[m.group(4)]
            append((prev, value, 1, start + 1))
            continue
        if kind == 2:
            digits = m.group(2)
            append(("LITERAL", int(digits) if len(digits) < 19 else from_chars(digits), 1, start + 1))
        elif kind == 6 or (kind == 5 and prev in ENDS_OPERAND):
            pos = start + 1
            append(("MINUS", "-", 1, start + 1))
        elif kind == 11 and old:
            append(("LITERAL", m.group(11)[1:-1], 1, start + 1))
        elif kind == 12 and old:
            append(("QIDENT", m.group(12)[1:-1], 1, start + 1))
        elif kind in (5, 9, 14):
            token, pos = _number(text, start)
            append(token)
        elif kind == 7:
            append(("ELVIS", "?:", 1, start + 1))
        elif kind == 8:
            append(("QMARK", "?", 1, start + 1))
        elif kind == 10:
            append(("DOT", ".", 1, start + 1))
        elif kind in (11, 12, 13):
            delim = text[start]
            value, pos = _string(text, start, delim, old)
            append(("LITERAL" if delim == '"' else "QIDENT", value, 1, start + 1))
        elif kind == 15:
            append(("$END", None, 1, start + 1))
            break
        elif kind == 3:
            raise _error(text, start, "unterminated /* comment: add the closing */")
        else:
            raise _bad_character(text, start)
        prev = tokens[-1][0]
    return tokens


def _with_lines(text: str, tokens: list[tuple]) -> list[tuple]:
    """Tokens whose columns are offsets + 1, given their line and the column in it."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    out = []
    line = 0
    last = len(starts) - 1
    for kind, value, _, column in tokens:
        offset = column - 1
        while line < last and starts[line + 1] <= offset:
            line += 1
        out.append((kind, value, line + 1, offset - starts[line] + 1))
    return out


def _bad_character(text: str, pos: int) -> ClassAdSyntaxError:
    ch = text[pos]
    if ch == "#":
        return _error(text, pos, "'#' does not start a comment inside an expression; use // or /* */, or remove it")
    if text.startswith("=?", pos):
        return _error(text, pos, "'=?' must be '=?=' (meta-equal)")
    return _error(text, pos, f"unexpected character {ch!r}")


def _number(text: str, start: int) -> tuple[tuple, int]:
    """An integer or real literal at ``start`` (HTCondor's tokenizeNumber), maybe with a glued '-'.

    Returns the token (column = offset + 1) and the offset after it.
    """
    pos = start + 1 if text[start] == "-" else start
    kind = None
    if text[pos] == "0" and text[pos + 1:pos + 2] in ("x", "X"):
        end = _HEX_RE.match(text, pos + 2).end()
        if end == pos + 2:
            raise _error(text, start, "'0x' must be followed by hexadecimal digits")
        pos, kind = end, "int"
    elif text[pos] == "0":
        end = _DIGITS_RE.match(text, pos).end()
        digits = text[pos:end]
        pos = end
        if text[pos:pos + 1] in (".", "e", "E"):
            kind = "real"
        elif any(d in "89" for d in digits):
            raise _error(text, start, f"invalid number {text[start:pos]!r}: integers may not start with 0")
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
            raise _error(text, start, f"invalid number {text[start:pos]!r}: a digit must follow the '.'")
        else:
            return ("DOT", ".", 1, start + 1), pos
    if kind == "real" and text[pos:pos + 1] in ("e", "E"):
        pos += 1
        if text[pos:pos + 1] in ("+", "-"):
            pos += 1
        end = _DIGITS_RE.match(text, pos).end()
        if end == pos:
            raise _error(text, start, f"invalid number {text[start:end]!r}: the exponent needs digits")
        pos = end
    literal = text[start:pos]
    if kind == "int":
        if literal[0] == "0" and len(literal) > 1:
            raise _error(text, start, f"invalid number {literal!r}: HTCondor rejects integers with a leading 0 "
                                      "(no octal or hex); write it in decimal")
        return ("LITERAL", from_chars(literal), 1, start + 1), pos
    try:
        value = float(literal)
    except ValueError:  # '..5': strtod converts nothing
        value = 0.0
    return ("LITERAL", value, 1, start + 1), pos


def _string(text: str, start: int, delim: str, old: bool) -> tuple[str, int]:
    """A "string" or 'quoted name' at ``start`` in the given syntax: (value, offset after it)."""
    if old:
        return _raw_old(text, start, delim)
    pieces = []
    pos = start
    while True:
        raw, pos = _raw_new(text, pos, delim)
        pieces.append(raw)
        # adjacent literals (blanks only between, no comments) are joined
        after = _WS_RE.match(text, pos).end()
        if not text.startswith(delim, after):
            break
        pos = after
    value = _convert_escapes("".join(pieces))
    if value is None:
        raise _error(text, start, "a string may not contain a NUL character (\\0)")
    return value, pos


def _unterminated(text: str, start: int, delim: str) -> ClassAdSyntaxError:
    what = "string" if delim == '"' else "quoted name"
    return _error(text, start, f"unterminated {what}: add the closing {delim}")


def _raw_new(text: str, start: int, delim: str) -> tuple[str, int]:
    pos = begin = start + 1
    n = len(text)
    while True:
        end = text.find(delim, pos)
        if end < 0:
            raise _unterminated(text, start, delim)
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
        raise _error(text, start, "a string may not contain a NUL character")
    return raw, end + 1


def _raw_old(text: str, start: int, delim: str) -> tuple[str, int]:
    # Old syntax: a backslash is literal, except that \" is a quote when
    # more text (other than a newline) follows it on the line.
    pos = begin = start + 1
    out = []
    while True:
        end = text.find(delim, pos)
        if end < 0 or "\0" in text[pos:end]:
            raise _unterminated(text, start, delim)
        if end > begin and text[end - 1] == "\\" and end + 1 < len(text) and text[end + 1] != "\n":
            out.append(text[pos:end - 1] + delim)
            pos = end + 1
            continue
        out.append(text[pos:end])
        return "".join(out), end + 1


def from_chars(literal: str) -> int:
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
