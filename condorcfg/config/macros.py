"""``$(...)`` references: finding them, and expanding text the way HTCondor does.

HTCondor expands a value by repeatedly finding the *leftmost* recognised
reference, replacing it with the referenced knob's raw text (or a function's
result, or the default), and scanning again from the start until nothing is
left (config-language.md section 8).  The substituted text is therefore
re-scanned together with its surroundings; a few odd inputs (nested
defaults, a substitution completing an earlier ``$(``) depend on that, so it
is copied here exactly, including the scanner's rules:

* ``$(NAME)`` / ``$(NAME:default)``: NAME is ``A-Z a-z 0-9 _ . /``; after the
  first ``:`` blanks, ``$ , \\ :`` are allowed too and a ``(`` skips to the
  next ``)``; anything else makes the text literal;
* ``$$(...)`` is left for the daemons (never expanded here);
* ``$(DOLLAR)`` becomes ``$`` only at the very end, so it is never re-expanded;
* ``$FUNC(body)`` bodies end at the first ``)``.

HTCondor hangs on reference cycles and exponential self-growth; here every
expansion is bounded (:data:`MAX_SUBSTITUTIONS`, :data:`MAX_EXPANDED_SIZE`)
and overrunning raises :class:`ExpansionLimit`, which the Config turns into a
diagnostic naming the cycle.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Callable

NORMAL = "$"  # $(NAME)
DOUBLE_DOLLAR = "$$"  # $$(ATTR) - left alone
FILENAME = "F"  # $F<letters>(x)
FUNCTIONS = ("ENV", "RANDOM_CHOICE", "RANDOM_INTEGER", "CHOICE", "SUBSTR", "INT", "REAL", "STRING",
             "EVAL", "BASENAME", "DIRNAME")
FILENAME_LETTERS = frozenset("pdnxbqafwuPDNXBQAFWU")

MAX_SUBSTITUTIONS = 20_000
MAX_EXPANDED_SIZE = 1_000_000
MAX_WORK = 50_000_000  # characters copied over all substitutions of one expansion

_ANYTHING, _IDCHAR_COLON, _SCAN_BRACKET = range(3)
_AFTER_COLON_EXTRA = frozenset("$ ,\\:")


_IDCHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./")
_PREFIX_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# fast path for the common body: identifier characters up to ")" (no default)
_PLAIN_BODY = re.compile(r"[A-Za-z0-9_./]*\)")
# a whole plain reference whose default has no "$" and no parentheses
_PLAIN_REF = re.compile(r"\$\(([A-Za-z0-9_./]*)(?::[A-Za-z0-9_./ ,\\:]*)?\)")


def _is_idchar(char: str) -> bool:
    return char in _IDCHARS


@dataclass(frozen=True)
class MacroRef:
    """A ``$(name)`` / ``$(name:default)`` written in a value; ``start``/``end`` index the text."""

    name: str
    default: str | None
    start: int
    end: int


class Found:
    """One recognised macro: ``kind`` is NORMAL, DOUBLE_DOLLAR, FILENAME or a function name.

    ``prefix`` is the text between "$" and "(" (the letters for FILENAME); ``end`` is the
    index after the closing ")".  (Slotted, not a dataclass: expansion makes many of these.)
    """

    __slots__ = ("kind", "prefix", "body", "start", "end")

    def __init__(self, kind: str, prefix: str, body: str, start: int, end: int):
        self.kind = kind
        self.prefix = prefix
        self.body = body
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Found({self.kind!r}, {self.prefix!r}, {self.body!r}, {self.start}, {self.end})"


class ExpansionLimit(Exception):
    """Expansion did not finish within the bounds (a reference cycle or explosive growth).

    ``growth`` is True when a size/work bound was hit (the text kept growing), False when
    nesting was too deep; only a search of the references can tell a cycle from mere growth.
    """

    def __init__(self, reason: str, text: str, growth: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.text = text
        self.growth = growth


def _classify(prefix: str, next_char: str) -> tuple[str, int] | None:
    """Which macro a ``$prefix(`` starts, and how its body is scanned; None if not a macro."""
    if prefix == "":
        return NORMAL, _IDCHAR_COLON
    if prefix == "$":
        return DOUBLE_DOLLAR, (_SCAN_BRACKET if next_char == "[" else _IDCHAR_COLON)
    if prefix in FUNCTIONS:
        return prefix, (_IDCHAR_COLON if prefix == "ENV" else _ANYTHING)
    if prefix[0] == "F" and all(c in FILENAME_LETTERS for c in prefix[1:]):
        return FILENAME, _ANYTHING
    return None


_PREFIX_RUN = re.compile(r"[A-Za-z0-9_]*")


def next_macro(text: str, pos: int, skip: "Callable[[str, str], bool]") -> Found | None:
    """The leftmost recognised macro at or after ``pos`` that ``skip(kind, body)`` does not reject.

    The walk over "$" characters is HTCondor's: a "$" consumed as the second character of
    "$$" or skipped over with a failed prefix is never a start position itself.
    """
    length = len(text)
    search = pos
    while True:
        dollar = text.find("$", search)
        if dollar < 0:
            return None
        p = dollar + 1
        if p < length and text[p] == "$":
            p += 1
        p = _PREFIX_RUN.match(text, p).end()
        if p >= length or text[p] != "(":
            search = p
            continue
        prefix = text[dollar + 1:p]
        kind = _classify(prefix, text[p + 1] if p + 1 < length else "")
        if kind is None:
            search = p
            continue
        kind, body_rule = kind
        name_start = p + 1
        q = name_start
        ok = True
        if body_rule == _ANYTHING:
            q = text.find(")", name_start)
            if q < 0:
                ok = False
        elif body_rule == _IDCHAR_COLON and _PLAIN_BODY.match(text, name_start):
            q = text.index(")", name_start)
        elif body_rule == _IDCHAR_COLON:
            after_colon = False
            while q < length and text[q] != ")":
                char = text[q]
                q += 1
                if char == ":" and not after_colon:
                    after_colon = True
                    continue
                if after_colon:
                    if char == "(":
                        close = text.find(")", q)
                        if close >= 0:
                            q = close + 1
                        continue
                    if char in _AFTER_COLON_EXTRA:
                        continue
                if char not in _IDCHARS:
                    ok = False
                    break
            if ok and q >= length:
                ok = False
        else:  # _SCAN_BRACKET
            marker = text.find("])", name_start)
            if marker < 0:
                ok = False
            else:
                q = marker + 1
        if not ok:
            search = name_start
            continue
        body = text[name_start:q]
        if skip(kind, body):
            search = q
            continue
        return Found(kind, prefix[1:] if kind == FILENAME else prefix, body, dollar, q + 1)


def _skip_for_expansion(kind: str, body: str) -> bool:
    return kind == DOUBLE_DOLLAR or (kind == NORMAL and body.upper() == "DOLLAR")


def _only_dollar(kind: str, body: str) -> bool:
    return not (kind == NORMAL and body.upper() == "DOLLAR")


def references(text: str) -> list[MacroRef]:
    """Every ``$(NAME)``/``$(NAME:default)`` written in ``text`` (nested defaults included), for lint."""
    refs: list[MacroRef] = []
    pos = 0
    while True:
        found = next_macro(text, pos, lambda kind, body: kind != NORMAL or body.upper() == "DOLLAR")
        if found is None:
            return refs
        name, colon, default = found.body.partition(":")
        refs.append(MacroRef(name, default if colon else None, found.start, found.end))
        pos = found.start + 2  # look inside the default too


def function_arguments(text: str) -> list[str]:
    """The words that dollar functions in ``text`` may read as knob names (``$INT(X)``, ``$CHOICE(1, L)``...).

    Used to find reference cycles that go through a function; the caller keeps the words that
    are defined knobs.
    """
    words: list[str] = []
    pos = 0
    while True:
        found = next_macro(text, pos, lambda kind, body: kind in (NORMAL, DOUBLE_DOLLAR) or kind == "ENV")
        if found is None:
            return words
        words.extend(w.strip() for w in found.body.split(",") if w.strip() and all(c in _IDCHARS for c in w.strip()))
        pos = found.start + 2


def split_body(body: str) -> tuple[str, str | None]:
    """``NAME:default`` -> (NAME, default); no colon -> (NAME, None)."""
    name, colon, default = body.partition(":")
    return name, (default if colon else None)


Evaluator = "Callable[[Found], str]"  # evaluate(found) -> replacement text


def expand(text: str, evaluate: Evaluator) -> str:
    """Expand every macro in ``text``; ``evaluate(found)`` gives the replacement of one macro."""
    if "$" not in text:
        return text
    count = 0
    work = 0
    size_limit = max(MAX_EXPANDED_SIZE, 2 * len(text))
    resume = 0
    while True:
        dollar = text.find("$", resume)
        if dollar < 0:
            break
        plain = _PLAIN_REF.match(text, dollar)
        if plain is not None and plain.group(1).upper() != "DOLLAR":
            # fast path: the first "$" starts a plain $(NAME) / $(NAME:default) - exactly what
            # next_macro would return for it
            found = Found(NORMAL, "", text[dollar + 2:plain.end() - 1], dollar, plain.end())
        else:
            found = next_macro(text, dollar, _skip_for_expansion)
            if found is None:
                break
        text = text[:found.start] + evaluate(found) + text[found.end:]
        # HTCondor rescans from the start; scanning from the first "$" before the replacement
        # finds the same leftmost macro (nothing before that "$" can start one)
        resume = text.find("$", 0, found.start)
        if resume < 0:
            resume = found.start
        count += 1
        work += len(text)
        if count > MAX_SUBSTITUTIONS:
            raise ExpansionLimit(f"it needs more than {MAX_SUBSTITUTIONS} substitutions (the limit)", text, True)
        if work > MAX_WORK:
            raise ExpansionLimit(f"substituting copies more than {MAX_WORK} characters (the limit)", text, True)
        if len(text) > size_limit:
            raise ExpansionLimit(f"the expanded text grows beyond {size_limit} characters (the limit)", text, True)
    return replace_dollar(text)


def replace_dollar(text: str) -> str:
    """Turn each ``$(DOLLAR)`` into ``$`` (last step of an expansion; the result is not rescanned for macros)."""
    while "$" in text:
        found = next_macro(text, 0, _only_dollar)
        if found is None:
            break
        text = text[:found.start] + "$" + text[found.end:]
    return text


def self_names(name: str, prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """Names that count as "self" when assigning ``name``: itself, and without a subsystem/local prefix."""
    upper = name.upper()
    for prefix in prefixes:
        if prefix and upper.startswith(prefix.upper() + ".") and len(upper) > len(prefix) + 1:
            return upper, upper[len(prefix) + 1:]
    return (upper,)


def expand_self(text: str, selves: tuple[str, ...], evaluate: Evaluator) -> str:
    """Expand only references to the knob being assigned (``$(X)``, ``$(X:d)``, ``$F..(X)``)."""
    if "$" not in text:
        return text

    upper = text.upper()
    for self_name in selves:
        if self_name in upper:
            break
    else:
        return text  # cheap test first: no self reference is possible

    def skip(kind: str, body: str) -> bool:
        if kind == NORMAL:
            return body.partition(":")[0].upper() not in selves
        if kind == FILENAME:
            return body.upper() not in selves
        return True

    count = 0
    while True:
        found = next_macro(text, 0, skip)
        if found is None:
            return text
        text = text[:found.start] + evaluate(found) + text[found.end:]
        count += 1
        if count > MAX_SUBSTITUTIONS or len(text) > MAX_EXPANDED_SIZE:
            raise ExpansionLimit("self-reference expansion does not terminate", text, True)
