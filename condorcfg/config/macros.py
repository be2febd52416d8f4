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

from dataclasses import dataclass
from typing import TYPE_CHECKING

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

_ANYTHING, _IDCHAR_COLON, _SCAN_BRACKET = range(3)
_AFTER_COLON_EXTRA = frozenset("$ ,\\:")


def _is_idchar(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_./")


@dataclass(frozen=True)
class MacroRef:
    """A ``$(name)`` / ``$(name:default)`` written in a value; ``start``/``end`` index the text."""

    name: str
    default: str | None
    start: int
    end: int


@dataclass(frozen=True)
class Found:
    """One recognised macro: ``kind`` is NORMAL, DOUBLE_DOLLAR, FILENAME or a function name."""

    kind: str
    prefix: str  # text between "$" and "(" (the F letters for FILENAME)
    body: str
    start: int
    end: int  # index after the closing ")"


class ExpansionLimit(Exception):
    """Expansion did not finish within the bounds (a reference cycle or explosive growth)."""

    def __init__(self, reason: str, text: str):
        super().__init__(reason)
        self.reason = reason
        self.text = text


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


def next_macro(text: str, pos: int, skip: "Callable[[str, str], bool]") -> Found | None:
    """The leftmost recognised macro at or after ``pos`` that ``skip(kind, body)`` does not reject."""
    length = len(text)
    search = pos
    while True:
        dollar = text.find("$", search)
        if dollar < 0:
            return None
        p = dollar + 1
        if p < length and text[p] == "$":
            p += 1
        while p < length and (text[p].isascii() and (text[p].isalnum() or text[p] == "_")):
            p += 1
        if p >= length or text[p] != "(":
            search = p if p > dollar + 1 else dollar + 1
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
                if not _is_idchar(char):
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
    while True:
        found = next_macro(text, 0, _skip_for_expansion)
        if found is None:
            break
        text = text[:found.start] + evaluate(found) + text[found.end:]
        count += 1
        if count > MAX_SUBSTITUTIONS:
            raise ExpansionLimit(f"more than {MAX_SUBSTITUTIONS} substitutions", text)
        if len(text) > MAX_EXPANDED_SIZE:
            raise ExpansionLimit(f"the expanded text grew beyond {MAX_EXPANDED_SIZE} characters", text)
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
            raise ExpansionLimit("self-reference expansion does not terminate", text)
