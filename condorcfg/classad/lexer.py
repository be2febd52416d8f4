"""ClassAd tokens, read the way HTCondor 25.x's lexer reads them.

HTCondor's lexer is context-sensitive: a ``-`` glues onto a following number
only when the previous token cannot end an operand (``3 -1`` is a
subtraction, ``f(-1)`` holds the literal -1), ``?`` blanks ``:`` is one elvis
token, integer literals with a leading zero are refused, and the *old* syntax
(config files, ``condor_status -l``) reads strings differently from the *new*
(``[ ... ]``) syntax.

The parser reads *items*: :func:`read` gives the list of items of a text and the
list of their start offsets, ending with :data:`END`.  Most texts are read by one
``findall()`` of a regular expression over the common tokens -- names, plain numbers,
operators, strings without escapes -- and their items are their texts, made into
values by the parser, which reads each once (a tuple per token was half of the
time of a parse).  A text with anything else -- comments, escapes, hex, ``.5``, a bad
character -- is read token by token by the reader that knows every rule: names and
operators are still their texts, literals are ``("LITERAL", value)`` and quoted names
``("QIDENT", name)``, and a ``-`` glued onto a number is in the literal.  On the
common texts the parser glues a ``-`` by position, which gives what the lexer's rule
gives there (tests/test_classad_grammar.py feeds lark :func:`tokenize`'s tokens,
glued by the lexer's rule, and compares the trees).

:func:`tokenize` gives the classic tokens ``(type, value, line, column)``, ending with
``('$END', None, ...)``: what errors describe, and what the grammar of record reads.
Offsets, not lines, are what :func:`read` and its errors carry: a text with newlines
is located once, at the end (:func:`located`).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

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
KEYWORDS: dict[str, tuple] = {}
for _word, _token in {"true": ("LITERAL", True), "false": ("LITERAL", False),
                      "undefined": ("LITERAL", UNDEFINED), "error": ("LITERAL", ERROR),
                      "is": ("EQOP", "is"), "isnt": ("EQOP", "isnt")}.items():
    for _spelling in _case_variants(_word):
        KEYWORDS[_spelling] = _token

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
    """An error at offset ``pos`` (line 1, column pos + 1: :func:`located` finds the line)."""
    return ClassAdSyntaxError(message, 1, pos + 1)


def line_locator(text: str):
    """``where(offset)``: the 1-based line and column of an offset in ``text`` (the line starts
    are found once, so locating every token of a long text stays linear)."""
    starts = [0]  # the offset each line starts at
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)

    def where(offset: int) -> tuple[int, int]:
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1
    return where


def located(text: str, exc: ClassAdSyntaxError) -> ClassAdSyntaxError:
    """``exc``, whose column is an offset + 1 on line 1, at its line and column in ``text``."""
    if exc.line != 1 or "\n" not in text:
        return exc
    line, column = line_locator(text)(exc.column - 1)
    return ClassAdSyntaxError(exc.message, line, column)


# ---------------------------------------------------------------------------- items

END = "$"  # the item after the last token: '$' starts no token

# What an item is, told by its first element: a token's first character, or a decoded literal's
# kind.  Every item has one of these keys (the common reader's regular expression makes sure).
NAME, NUMBER, STRING, QUOTED, OPERATOR, DECODED, DECODED_NAME, AT_END = range(8)
CLASS_OF = {c: NAME for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"}
CLASS_OF.update({c: NUMBER for c in "0123456789"})
CLASS_OF.update({c: OPERATOR for c in "-^+*/%~:,;()[]{}?.<>=!&|"})
CLASS_OF.update({'"': STRING, "'": QUOTED, "LITERAL": DECODED, "QIDENT": DECODED_NAME, END: AT_END})

# The common tokens, each with the blanks after it, read by one findall(): an item is a match
# without its blanks, and the start offsets are the running sums of the matches' lengths.
# Anything else -- '.5', '0x1f', '07', '1.', strings with backslashes, '? :' across blanks,
# comments, a bad character -- matches the last alternative, which takes the rest of the text:
# the sign that the reader knowing every rule must read it (no other alternative matches there,
# so the rest is not one common token and blanks).  A number is refused by lookahead rather than
# checked in a loop; no alternative backtracks over more than the run it matched.
_COMMON_TOKEN = (
    "(?:"
    "[A-Za-z_][A-Za-z0-9_]*"
    "|(?:[1-9][0-9]*|0(?![0-9]))(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![.eExX0-9])"
    f"|\\?:|\\?(?!{_BLANKS}*:)|>>>?|>=?|<<|<=?|==|=\\?=|=!=|=|!=?|&&?|\\|\\|?|/(?![/*])|\\.(?![0-9.])"
    "|[-^+*%~:,;()\\[\\]{}]"
    '|"[^"\\\\\\0]*"{new}'
    "|'[^'\\\\\\0]*'{new}"
    f"){_BLANKS}*"
)
# new syntax joins adjacent strings (blanks between): a string before another goes to the full reader
_NEW_STRING_END = f"(?!{_BLANKS}*[\"'])"
_COMMON_OLD = _COMMON_TOKEN.replace("{new}", "")
_COMMON_NEW = _COMMON_TOKEN.replace("{new}", _NEW_STRING_END)
_COMMON_OLD_RE, _COMMON_NEW_RE = (re.compile(f"{common}|(?s:.+)") for common in (_COMMON_OLD, _COMMON_NEW))
_ONE_OLD_RE, _ONE_NEW_RE = re.compile(_COMMON_OLD), re.compile(_COMMON_NEW)


def read(text: str, syntax: str = OLD) -> tuple[list, list]:
    """``(items, starts)``: the items of ``text`` (see the module's docstring), ending with END,
    and their start offsets.  Raises ClassAdSyntaxError (at an offset) for text no token reads."""
    old = syntax == OLD
    return _common_items(text, old) or _all_items(text, old)


def _common_items(text: str, old: bool) -> tuple[list, list] | None:
    """The items and offsets of a text made only of common tokens, else None."""
    lead = _WS_RE.match(text).end()
    matches = (_COMMON_OLD_RE if old else _COMMON_NEW_RE).findall(text, lead)
    if matches and not (_ONE_OLD_RE if old else _ONE_NEW_RE).fullmatch(matches[-1]):
        return None
    items = list(map(str.rstrip, matches))  # (no token ends with a blank)
    items.append(END)
    return items, list(accumulate(map(len, matches), initial=lead))


def number_value(item: str, negative: bool = False):
    """The value of a common number item (``15``, ``1.5``, ``2e-3``), negated if a '-' glued onto it."""
    if item.isdigit():
        if len(item) < 19:
            return -int(item) if negative else int(item)
        return from_chars("-" + item if negative else item)
    return -float(item) if negative else float(item)


def glued(items: list, starts: list, i: int) -> bool:
    """True when item ``i``, a '-' where an operand belongs, glues onto the common number right
    after it (the full reader glued its own, by the lexer's rule)."""
    nxt = items[i + 1]
    return CLASS_OF[nxt[0]] is NUMBER and starts[i + 1] == starts[i] + 1


def _all_items(text: str, old: bool) -> tuple[list, list]:
    """Every item of ``text`` by the full rules, and their offsets."""
    items: list = []
    starts: list = []
    append = items.append
    at = starts.append
    match = _TOKEN_RE.match
    operators = _OPERATOR_TOKENS
    keywords = KEYWORDS
    prev = None  # the type of the token before, for the '-' rule
    pos = 0
    while True:
        m = match(text, pos)
        kind = m.lastindex
        start = m.start(kind)
        pos = m.end()
        at(start)
        if kind == 1:
            word = m.group(1)
            append(word)
            token = keywords.get(word)
            prev = token[0] if token else "IDENT"
            continue
        if kind == 4:
            op = m.group(4)
            append(op)
            prev = operators[op][0]
            continue
        if kind == 2:
            digits = m.group(2)
            append(("LITERAL", int(digits) if len(digits) < 19 else from_chars(digits)))
            prev = "LITERAL"
        elif kind == 6 or (kind == 5 and prev in ENDS_OPERAND):
            pos = start + 1
            append("-")
            prev = "MINUS"
        elif kind == 11 and old:
            append(("LITERAL", m.group(11)[1:-1]))
            prev = "LITERAL"
        elif kind == 12 and old:
            append(("QIDENT", m.group(12)[1:-1]))
            prev = "QIDENT"
        elif kind in (5, 9, 14):
            token, pos = _number(text, start)
            prev = token[0]
            append("." if prev == "DOT" else ("LITERAL", token[1]))
        elif kind == 7:
            append("?:")
            prev = "ELVIS"
        elif kind == 8:
            append("?")
            prev = "QMARK"
        elif kind == 10:
            append(".")
            prev = "DOT"
        elif kind in (11, 12, 13):
            delim = text[start]
            value, pos = _string(text, start, delim, old)
            prev = "LITERAL" if delim == '"' else "QIDENT"
            append((prev, value))
        elif kind == 15:
            append(END)
            return items, starts
        elif kind == 3:
            raise _error(text, start, "unterminated /* comment: add the closing */")
        else:
            raise _bad_character(text, start)


def token_of(item, start: int, negative: bool = False) -> tuple:
    """The classic token ``(type, value, 1, column)`` of an item (``negative``: a '-' glued onto it)."""
    column = start + 1
    if type(item) is tuple:
        return (item[0], item[1], 1, column)
    cls = CLASS_OF[item[0]]
    if cls is NAME:
        keyword = KEYWORDS.get(item)
        return (keyword[0], keyword[1], 1, column) if keyword else ("IDENT", item, 1, column)
    if cls is NUMBER:
        return ("LITERAL", number_value(item, negative), 1, column)
    if cls is STRING:
        return ("LITERAL", item[1:-1], 1, column)
    if cls is QUOTED:
        return ("QIDENT", item[1:-1], 1, column)
    if cls is AT_END:
        return ("$END", None, 1, column)
    if item[0] == "?" and len(item) > 1:
        return ("ELVIS", "?:", 1, column)
    kind, value = _OPERATOR_TOKENS[item]
    return (kind, value, 1, column)


def tokens_of(items: list, starts: list) -> list[tuple]:
    """The classic tokens of items, a '-' glued onto a number by the lexer's rule (columns are offsets + 1)."""
    tokens = []
    prev = None
    k = 0
    while k < len(items):
        item = items[k]
        if item == "-" and prev not in ENDS_OPERAND and glued(items, starts, k):
            token = token_of(items[k + 1], starts[k], negative=True)
            k += 1
        else:
            token = token_of(item, starts[k])
        tokens.append(token)
        prev = token[0]
        k += 1
    return tokens


def tokenize(text: str, syntax: str = OLD) -> list[tuple]:
    """The classic tokens ``(type, value, line, column)`` of ``text``, ending with ``$END``."""
    try:
        tokens = tokens_of(*read(text, syntax))
    except ClassAdSyntaxError as exc:
        raise located(text, exc) from None
    if "\n" not in text:
        return tokens
    where = line_locator(text)
    return [(kind, value, *where(column - 1)) for kind, value, _, column in tokens]


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
