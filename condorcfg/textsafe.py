"""Text from a configuration made safe to print on a terminal or in a CI log.

condorcfg runs in CI on configuration anyone can propose, and prints knob values, file names,
heredoc bodies and messages built from them.  Printed raw, such text can move the cursor, set
the window title or clear the screen (escape sequences), forge lines (CR, line breaks),
reorder what is shown (bidi controls: "Trojan source"), crash a strict UTF-8 stdout (lone
surrogates), or become a CI workflow command.  This module is the one place that says what is
escaped; what the reader stores is never changed, only what is printed.

The rule, :func:`printable`: every character ``str.isprintable()`` rejects is written as a
visible escape, the way Python's ``repr()`` writes it.  That is the Unicode categories Cc (C0
controls including tab, CR and LF, DEL, C1 controls including NEL), Cf (format characters:
bidi embeddings/overrides/isolates U+202A-U+202E and U+2066-U+2069, LRM/RLM, zero-width
characters, BOM, soft hyphen, tag characters), Cs (lone surrogates, e.g. the undecodable bytes
of a file name), Co (private use), Cn (unassigned), Zl/Zp (U+2028, U+2029) and Zs other than
the ASCII space (no-break and other Unicode spaces, which look like a space but are not one to
HTCondor).  Escape forms: ``\\t``, ``\\n``, ``\\r``; ``\\xHH`` below U+0100; ``\\uHHHH``;
``\\UHHHHHHHH``.  A tab is escaped too (``\\t``) rather than kept: output stays one visible
character per column and one value per line.  A backslash is not escaped, so Windows paths
and regular expressions print as written; the escapes are for reading, not for parsing back.

CI logs also act on ordinary printable text, so :func:`defuse` is applied to each complete
output (it needs whole lines):

* GitHub Actions runs a line whose text, after leading whitespace, starts with ``::`` and holds
  another ``::`` (``::error file=...::``, ``::stop-commands::TOKEN``): the first colon of such a
  line is escaped.  A line like ``::1`` (an IPv6 address) is not a command and stays as is.
* GitHub's legacy form ``##[command]``, Azure Pipelines' ``##vso[...]`` and TeamCity's
  ``##teamcity[...]`` act anywhere in a line: the second ``#`` of ``##`` followed by letters and
  ``[`` is escaped.

The escape of a defused character depends on the output's syntax, so that JSON and XML stay
exact (``\\u0023`` inside a JSON string and ``&#35;`` in XML read back as ``#``).
"""
from __future__ import annotations

import re

_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
# The common case in one C-level pass: C0 controls, DEL and C1 controls.
_CONTROLS = {code: _NAMED.get(code, f"\\x{code:02x}") for code in (*range(0x20), *range(0x7F, 0xA0))}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

# A line the GitHub runner reads as a workflow command: after leading whitespace "::", then
# another "::" on the same line.  The runner splits lines at CR as well as LF.
_COMMAND_LINE = re.compile(r"(?:^|(?<=\r))([^\S\r\n]*):(?=:[^\r\n]*::)", re.MULTILINE)
# "##[", "##vso[", "##teamcity[": act anywhere in a line; the second '#' is the one escaped.
_LEGACY_COMMAND = re.compile(r"(?<=#)#(?=[A-Za-z]*\[)")

_TEXT, _JSON, _XML = ("\\x3a", "\\x23"), ("\\u003a", "\\u0023"), ("&#58;", "&#35;")


def _escape(char: str) -> str:
    """The visible escape of one character, as ``repr()`` writes it."""
    code = ord(char)
    if code < 0x100:
        return _NAMED.get(code, f"\\x{code:02x}")
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escape_match(match: re.Match) -> str:
    char = match.group()
    return char if char.isprintable() else _escape(char)


def printable(text: str) -> str:
    """``text`` with every non-printable character written as a visible escape (see the module doc).

    The result is a single line of printable characters without surrogates, so a strict UTF-8
    stdout can always write it.  Text with nothing to escape is returned as it is.
    """
    if text.isprintable():  # the usual case, decided in C
        return text
    text = text.translate(_CONTROLS)
    if text.isprintable():
        return text
    return _NON_ASCII.sub(_escape_match, text)  # rare: format characters, surrogates, odd spaces


def _defuse(text: str, escapes: tuple[str, str]) -> str:
    """Escape the first colon of a ``::`` command line and the second ``#`` of a ``##...[`` command."""
    colon, hash_ = escapes
    if "::" in text:
        text = _COMMAND_LINE.sub(lambda m: m.group(1) + colon, text)
    if "##" in text:
        text = _LEGACY_COMMAND.sub(lambda _m: hash_, text)
    return text


def defuse(text: str) -> str:
    """A complete text output (its line breaks intended) with no line a CI runner would execute."""
    return _defuse(text, _TEXT)


def defuse_json(text: str) -> str:
    """:func:`defuse` for JSON text: the escapes are JSON string escapes, so the data is unchanged.

    (In JSON only a string can hold ``#``, and no line of indented JSON starts with ``:``, so
    the escapes always land inside a string.)
    """
    return _defuse(text, _JSON)


def defuse_xml(text: str) -> str:
    """:func:`defuse` for XML text: character references, so the document's data is unchanged."""
    return _defuse(text, _XML)


def safe_line(text: str) -> str:
    """One output line built from any text: :func:`printable` (line breaks too), then :func:`defuse`."""
    return defuse(printable(text))


def safe_lines(text: str) -> str:
    """Text whose line breaks are meant (a rule page): each line made :func:`printable`, then defused."""
    return defuse("\n".join(printable(line) for line in text.split("\n")))
