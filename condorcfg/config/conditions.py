"""``if``/``elif`` conditions, accepted and rejected exactly as HTCondor 25.14.1 does (section 10.2).

A port of HTCondor's ``Test_config_if_expression``: after macro expansion (when the text holds a
``$``; an empty expansion is false) and an optional leading ``!``, :func:`characterize` sorts the
text by the classes of characters it holds, as ``Characterize_config_if_expression`` does, and
that class decides: a number is true unless C's ``atof`` of it is 0 (``1.5.2`` and ``1e`` are
numbers, true); ``true/false`` and ``yes/no/t/f``; ``defined NAME`` (non-empty raw value by the
lookup order), ``defined`` of a number or boolean (true), ``defined use CAT[:NAME]`` (template
exists); ``version OP X.Y[.Z]`` (sscanf: ``25.14.1.7`` is 25.14.1).  Everything else raises
:class:`ConditionError` with HTCondor's reason (``complex conditionals are not supported`` for
``defined -1`` or ``defined use ROLE:Execute2``, ``expression is not a conditional``, ...).
"""
from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Callable

VERSION = (25, 14, 1)  # the HTCondor version this tool reads configurations as

_BLANKS = " \t\n\v\f\r"

COMPLEX = "complex conditionals are not supported"
NOT_CONDITIONAL = "expression is not a conditional"
BAD_VERSION = "the version literal is invalid"
BAD_DEFINED = "defined argument must be param name, boolean, or number"
BAD_DEFINED_USE = "defined use meta argument with internal spaces will never match"


class ConditionError(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# Characterize_config_if_expression's classes of characters (HTCondor 25 config.cpp)
_SPACE, _DIGIT, _ALPHA, _IDENT, _CMP, _SUM, _LOGIC, _GROUP = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80
_MONEY, _COLON, _OTHER, _FLOAT, _MACRO = 0x100, 0x200, 0x400, 0x1000, 0x2000
EMPTY, NUMBER, BOOL, IDENTIFIER, MACRO, VERSION_TEST, IFDEF, COMPLEX_KIND = range(8)
_IDENTIFIER_SETS = frozenset({_ALPHA | _DIGIT, _ALPHA | _DIGIT | _FLOAT, _ALPHA | _IDENT, _ALPHA | _IDENT | _DIGIT,
                              _ALPHA | _IDENT | _DIGIT | _FLOAT})
_VERSION_SETS = frozenset({_ALPHA | _SPACE | _CMP | _DIGIT, _ALPHA | _SPACE | _CMP | _DIGIT | _FLOAT})
_DEFINED_SETS = frozenset({_ALPHA | _SPACE, _ALPHA | _SPACE | _COLON, _ALPHA | _SPACE | _IDENT,
                           _ALPHA | _SPACE | _IDENT | _COLON, _ALPHA | _SPACE | _DIGIT, _ALPHA | _SPACE | _DIGIT | _IDENT,
                           _ALPHA | _SPACE | _DIGIT | _FLOAT, _ALPHA | _SPACE | _DIGIT | _IDENT | _FLOAT})
# (patterns few conditions need are compiled when used, through re's cache: compiling costs start-up time)
_C_NUMBER_PREFIX = r"[ \t\n\v\f\r]*[-+]?(\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


def _matches_literal(text: str, literal: str, no_trailing_token: bool = True) -> bool:
    """matches_literal_ignore_case: ``literal`` after blanks, case folded with ``| 0x20``; then only
    blanks (``no_trailing_token``) or anything but a letter or digit."""
    rest = text.lstrip(_BLANKS)
    if len(rest) < len(literal) or any(chr(ord(c) | 0x20) != want for c, want in zip(rest, literal)):
        return False
    rest = rest[len(literal):]
    if no_trailing_token:
        return not rest.strip(_BLANKS)
    return not (rest[:1].isascii() and rest[:1].isalnum())


def characterize(text: str, keyword_check: bool) -> int:
    """What kind of condition ``text`` is, by the classes of characters it holds (HTCondor's rules:
    ``1.5.2`` and ``1e`` are numbers, ``defined use R:Execute2`` is complex)."""
    if len(text) > 256:  # (remembered only when short: a hostile line must not be pinned in memory)
        return _characterize(text, keyword_check)
    return _characterize_remembered(text, keyword_check)


def _characterize(text: str, keyword_check: bool) -> int:
    body = text.lstrip(_BLANKS)
    if not body:
        return EMPTY
    begin = body
    if body.startswith("-"):  # a leading minus is not a sum
        body = body[1:]
    kinds = 0
    count = len(body)
    for index, ch in enumerate(body):
        after = body[index + 1] if index + 1 < count else ""
        if "0" <= ch <= "9":
            kinds |= _DIGIT
        elif ch == ".":
            kinds |= _FLOAT if kinds == _DIGIT or not after or "0" <= after <= "9" else _IDENT
        elif ch in "eE":
            kinds |= _FLOAT if kinds & ~_FLOAT == _DIGIT else _ALPHA
        elif ch in "-+":
            if kinds != _DIGIT | _FLOAT:
                kinds |= _SUM
        elif "a" <= ch <= "z" or "A" <= ch <= "Z":
            kinds |= _ALPHA
        elif ch in "_/":
            kinds |= _IDENT
        elif ch in "<=>":
            kinds |= _CMP
        elif ch == "!" and after == "=":
            kinds |= _CMP
        elif ch == "$":
            kinds |= _MONEY | (_MACRO if after == "(" else 0)
        elif ch in _BLANKS:
            if after and after not in _BLANKS:
                kinds |= _SPACE  # only blanks inside count
        elif ch in "&|":
            kinds |= _LOGIC
        elif ch in "{|}()[]":
            kinds |= _GROUP
        elif ch == ":":
            kinds |= _COLON
        else:
            kinds |= _OTHER
    if kinds == 0:
        return EMPTY
    if kinds in (_DIGIT, _DIGIT | _FLOAT):
        return NUMBER
    if kinds == _ALPHA:
        if _matches_literal(text, "false") or _matches_literal(text, "true"):
            return BOOL
        if keyword_check and _matches_literal(begin, "version"):
            return VERSION_TEST
        if keyword_check and _matches_literal(begin, "defined"):
            return IFDEF
        return IDENTIFIER
    if kinds in _IDENTIFIER_SETS:
        return IDENTIFIER
    if kinds in _VERSION_SETS:
        return VERSION_TEST if keyword_check and _matches_literal(begin, "version", False) else COMPLEX_KIND
    if kinds in _DEFINED_SETS:
        return IFDEF if keyword_check and _matches_literal(begin, "defined", False) else COMPLEX_KIND
    if kinds & _MACRO and not kinds & ~(_MONEY | _IDENT | _ALPHA | _DIGIT | _MACRO | _COLON):
        return MACRO
    return COMPLEX_KIND


_characterize_remembered = lru_cache(maxsize=4096)(_characterize)  # configurations repeat their conditions


def _atof(text: str) -> float:
    """C's atof: the longest number at the start (``1.5.2`` is 1.5, ``0e-`` is 0), else 0."""
    match = re.match(_C_NUMBER_PREFIX, text)
    return float(match.group().strip(_BLANKS)) if match else 0.0


def _crufty_bool(text: str) -> bool | None:
    if _matches_literal(text, "yes") or _matches_literal(text, "t"):
        return True
    if _matches_literal(text, "no") or _matches_literal(text, "f"):
        return False
    return None


def evaluate_condition(text: str, expand: Callable[[str], str], is_defined: Callable[[str], bool],
                       template_exists: Callable[[str, str | None], bool], version: tuple = VERSION) -> bool:
    """The truth of an if/elif condition; raises ConditionError when HTCondor rejects it.  ``version``:
    the release read as (``version >= 24.0`` compares with it)."""
    expanded = False
    if "$" in text:
        text = expand(text).rstrip(_BLANKS)
        expanded = True
    text = text.lstrip(_BLANKS)
    negate = False
    if text.startswith("!"):
        negate = True
        text = text[1:].lstrip(_BLANKS)
    if expanded and not text:
        return negate  # an empty expansion is false
    result = _evaluate(text, is_defined, template_exists, version)
    return not result if negate else result


# `defined NAME` with a plain name, the usual condition: what the character classes below decide
# for it, without walking the text twice (NAME starts with a letter: never a number)
_DEFINED_NAME = re.compile(r"[dD][eE][fF][iI][nN][eE][dD][ \t\n\v\f\r]+([A-Za-z][A-Za-z0-9_]*)")


def _evaluate(text, is_defined, template_exists, version=VERSION) -> bool:
    simple = _DEFINED_NAME.fullmatch(text)
    if simple is not None:
        name = simple.group(1)
        return name.lower() in ("true", "false") or is_defined(name) or _crufty_bool(name) is not None
    return _evaluate_classified(text, is_defined, template_exists, version)


def _evaluate_classified(text, is_defined, template_exists, version=VERSION) -> bool:
    kind = characterize(text, True)
    if kind == NUMBER:
        number = _atof(text)
        return number < 0 or number > 0
    if kind == BOOL:
        return _matches_literal(text, "true")
    if kind == IDENTIFIER:
        crufty = _crufty_bool(text)
        if crufty is not None:
            return crufty
    if kind == VERSION_TEST:
        return _version(text[7:].lstrip(_BLANKS), version)
    if kind == IFDEF:
        return _defined(text[7:].lstrip(_BLANKS), is_defined, template_exists)
    raise ConditionError(COMPLEX if kind == COMPLEX_KIND else NOT_CONDITIONAL)


def _defined(argument: str, is_defined, template_exists) -> bool:
    if not argument:
        return False
    kind = characterize(argument, False)
    if kind == IDENTIFIER:
        return is_defined(argument) or _crufty_bool(argument) is not None
    if kind in (NUMBER, BOOL):
        return True
    if argument[:4].lower() == "use ":
        meta = argument[4:].lstrip(_BLANKS)
        if any(c in " \t\r" for c in meta):
            raise ConditionError(BAD_DEFINED_USE)
        category, colon, name = meta.partition(":")
        return template_exists(category, name if colon and name else None)
    raise ConditionError(BAD_DEFINED)


def _version(rest: str, version: tuple = VERSION) -> bool:
    """``version OP X.Y[.Z]`` as HTCondor reads it: ``!`` negates, one of ``<=>`` then an optional
    ``=``, then sscanf("%d.%d.%d") (more fields are ignored: ``25.14.1.7`` is 25.14.1)."""
    negated = rest.startswith("!")
    if negated:
        rest = rest[1:]
    op = 0
    if rest[:1] in ("<", "=", ">"):
        op, rest = ord(rest[0]) - ord("="), rest[1:]
    or_equal = rest.startswith("=")
    if or_equal:
        rest = rest[1:]
    rest = rest.lstrip(_BLANKS)
    if rest[:1] in ("v", "V"):
        rest = rest[1:]
    fields = _scanf_version(rest)
    if len(fields) < 2 or fields[0] < 6:
        raise ConditionError(BAD_VERSION)
    major, minor = fields[0], fields[1]
    sub = fields[2] if len(fields) > 2 else version[2]
    mine, theirs = _version_number(*version), _version_number(major, minor, sub)
    difference = (mine > theirs) - (mine < theirs)
    result = difference == op or (or_equal and difference == 0)
    return not result if negated else result


_SCANF_INT = r"[ \t\n\v\f\r]*([-+]?)(\d+)"  # (compiled when used: see _C_NUMBER_PREFIX)


def _scanf_version(text: str) -> list[int]:
    """The fields sscanf(text, "%d.%d.%d") fills (each %d skips blanks and takes a sign)."""
    fields: list[int] = []
    position = 0
    while len(fields) < 3:
        if fields:
            if text[position:position + 1] != ".":
                break
            position += 1
        match = re.compile(_SCANF_INT).match(text, position)
        if not match:
            break
        value = _scanf_int(match.group(2))
        fields.append(_int32(-value) if match.group(1) == "-" else value)
        position = match.end()
    return fields


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
