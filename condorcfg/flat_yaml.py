"""A fast reader for flat YAML: the shape of nearly every machine profile.

ruamel.yaml is pure Python and costs about 20 ms to import and 5-20 ms to read even a
ten-line profile: most of a cold ``condorcfg value`` or ``lint --machine``.  A machine
profile is almost always a flat mapping::

    hostname: ep01.example.org   # a comment
    cpus: 64
    gpus: [GPU-1a2b3c4d, GPU-2b3c4d5e]

:func:`load` reads exactly that subset - ``key: scalar`` lines, comments, blank lines and
one-line ``[a, b]`` lists - and returns what ``ruamel.yaml.YAML(typ="safe").load`` returns
for it.  Whatever it is not sure of (another scalar form, indentation, a repeated key, a
directive, quotes with escapes...) makes it return None, and the caller reads the text with
ruamel.yaml: the fast path never decides anything the full parser would decide differently
(``tests/test_flat_yaml.py`` checks it against ruamel.yaml on generated documents).
"""
from __future__ import annotations

import re

# a key, then ":" and a blank (or the end), then the value and an optional " # comment"
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*?))?(?:[ ]+#.*)?")
# scalars whose YAML 1.2 meaning is certain: a decimal int without sign or leading zero, the two
# lower-case booleans, a word starting with a letter (so never a number, date or special float)
# that is not one of the other spellings of true/false/null, and dotted numbers with at least
# two dots (an address: never a float)
_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.@/+-]*|[0-9]+(?:\.[0-9]+){2,}")
_NOT_WORDS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"})
_QUOTED = re.compile(r'"([^"\\]*)"|\'([^\']*)\'')


class _NotFlat(Exception):
    """The text is outside the subset: let the full parser read it."""


def _scalar(text: str):
    if _INT.fullmatch(text):
        return int(text)
    if text == "true":
        return True
    if text == "false":
        return False
    if _WORD.fullmatch(text) and text not in _NOT_WORDS:
        return text
    quoted = _QUOTED.fullmatch(text)
    if quoted:
        return quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
    raise _NotFlat()


def _value(text: str):
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip(" ")
        if not inner:
            return []
        return [_scalar(item.strip(" ")) for item in inner.split(",")]
    return _scalar(text)


def load(text: str) -> dict | None:
    """The mapping a flat YAML document holds, or None when the text is not (only) that."""
    data: dict = {}
    try:
        for line in text.split("\n"):
            if line.endswith("\r"):
                raise _NotFlat()
            stripped = line.strip(" ")
            if not stripped or stripped.startswith("#"):
                if "\t" in line:
                    raise _NotFlat()
                continue
            match = _LINE.fullmatch(line.rstrip(" "))
            if match is None or match.group(2) is None:
                raise _NotFlat()  # indented, a nested block, an empty value, a tab, a directive...
            key = match.group(1)
            if key in data or key in _NOT_WORDS:
                raise _NotFlat()
            data[key] = _value(match.group(2))
    except _NotFlat:
        return None
    return data or None
