"""``if``/``elif`` conditions, accepted and rejected exactly as HTCondor 25.14.1 does (section 10.2).

Accepted forms (after macro expansion when the text contains ``$``, and an
optional leading ``!``): a number (true unless 0), ``true/false/yes/no/t/f``,
``defined NAME`` (non-empty raw value by the lookup order), ``defined`` of a
number or boolean (true), ``defined use CAT[:NAME]`` (template exists),
``version OP X.Y[.Z]``.  Everything else raises :class:`ConditionError`
with HTCondor's reason text (``complex conditionals are not supported``,
``expression is not a conditional``, ...).
"""
from __future__ import annotations

import re

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Callable

VERSION = (25, 14, 1)  # the HTCondor version this tool reads configurations as

_BLANKS = " \t\n\v\f\r"
# (written so that no digit can be matched two ways: `\d+\.?\d*` backtracks quadratically on a long number)
_NUMBER = re.compile(r"-?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z")
_WORD = re.compile(r"[A-Za-z0-9_./]+\Z")
_BOOLEANS = {"true": True, "yes": True, "t": True, "false": False, "no": False, "f": False}
_VERSION_OPS = ("==", "!=", "<=", ">=", "=", "<", ">")
_VERSION_LITERAL = re.compile(r"[vV]?(\d+)\.(\d+)(?:\.(\d+))?\Z")

COMPLEX = "complex conditionals are not supported"
NOT_CONDITIONAL = "expression is not a conditional"
BAD_VERSION = "the version literal is invalid"
BAD_DEFINED = "defined argument must be param name, boolean, or number"
BAD_DEFINED_USE = "defined use meta argument with internal spaces will never match"


class ConditionError(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _simple_bool(text: str) -> bool | None:
    """The truth of a number or boolean word; None when ``text`` is neither."""
    if _NUMBER.match(text):
        return float(text) != 0.0
    return _BOOLEANS.get(text.lower())


def evaluate_condition(text: str, expand: Callable[[str], str], is_defined: Callable[[str], bool],
                       template_exists: Callable[[str, str | None], bool]) -> bool:
    """The truth of an if/elif condition; raises ConditionError when HTCondor rejects it."""
    expanded = False
    if "$" in text:
        text = expand(text)
        expanded = True
    text = text.strip(_BLANKS)
    negate = False
    if text.startswith("!"):
        negate = True
        text = text[1:].lstrip(_BLANKS)
    if not text:
        if expanded:
            return negate  # an empty expansion is false
        raise ConditionError(NOT_CONDITIONAL)
    result = _evaluate(text, is_defined, template_exists)
    return not result if negate else result


def _evaluate(text, is_defined, template_exists) -> bool:
    simple = _simple_bool(text)
    if simple is not None:
        return simple
    lowered = text.lower()
    if lowered == "defined" or (lowered.startswith("defined") and text[7] in _BLANKS):
        return _defined(text[7:].strip(_BLANKS), is_defined, template_exists)
    if lowered == "version" or (lowered.startswith("version") and text[7] in _BLANKS):
        return _version(text[7:].strip(_BLANKS))
    if _WORD.match(text):
        raise ConditionError(NOT_CONDITIONAL)
    raise ConditionError(COMPLEX)


def _defined(argument: str, is_defined, template_exists) -> bool:
    if not argument:
        return False
    if argument.lower().startswith("use") and (len(argument) == 3 or argument[3] in _BLANKS):
        meta = argument[3:].strip(_BLANKS)
        if any(c in _BLANKS for c in meta):
            raise ConditionError(BAD_DEFINED_USE)
        category, colon, name = meta.partition(":")
        return template_exists(category, name if colon else None)
    if any(c in _BLANKS for c in argument):
        raise ConditionError(BAD_DEFINED)
    if _simple_bool(argument) is not None:
        return True
    if not _WORD.match(argument):
        raise ConditionError(BAD_DEFINED)
    return is_defined(argument)


def _version(rest: str) -> bool:
    if not rest:
        raise ConditionError(BAD_VERSION)
    for op in _VERSION_OPS:
        if rest.startswith(op):
            literal = rest[len(op):].strip(_BLANKS)
            break
    else:
        raise ConditionError(COMPLEX)
    if not literal or not (literal[0].isdigit() or (literal[0] in "vV" and literal[1:2].isdigit())):
        raise ConditionError(COMPLEX if literal else BAD_VERSION)
    match = _VERSION_LITERAL.match(literal)
    if not match or _scanf_int(match.group(1)) < 6:
        raise ConditionError(BAD_VERSION)
    major, minor = _scanf_int(match.group(1)), _scanf_int(match.group(2))
    sub = _scanf_int(match.group(3)) if match.group(3) is not None else VERSION[2]
    mine, theirs = _version_number(*VERSION), _version_number(major, minor, sub)
    return {"==": mine == theirs, "=": mine == theirs, "!=": mine != theirs, "<": mine < theirs,
            "<=": mine <= theirs, ">": mine > theirs, ">=": mine >= theirs}[op]


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _scanf_int(digits: str) -> int:
    """A version field as ``sscanf("%d")`` reads it: strtol saturates at 64 bits, then the cast to int
    keeps the low 32 (2147483648 is -2147483648, 4294967321 is 25); never converts a huge string."""
    significant = digits.lstrip("0")
    value = (1 << 63) - 1 if len(significant) > 19 else min(int(significant or "0"), (1 << 63) - 1)
    return _int32(value)


def _version_number(major: int, minor: int, sub: int) -> int:
    """HTCondor compares versions as one int, major * 1000000 + minor * 1000 + sub (wrapping like C)."""
    return _int32(major * 1_000_000 + minor * 1000 + sub)
