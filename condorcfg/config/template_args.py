"""Template arguments: the items of a ``use`` line and the ``$(N...)`` argument macros of a body.

``use CAT : A, B(x, y)`` names templates separated by blanks and/or commas, each with
optional arguments in parentheses (nested ``()``/``[]`` are skipped when looking for the
closing one).  Before a template body is parsed, its argument macros are replaced
(config-language.md 13.4): ``$(0)`` the whole argument text, ``$(0#)`` the number of
non-blank arguments, ``$(N)`` the N-th non-blank argument, ``$(N?)`` 1/0 whether it
exists, ``$(N+)`` the text from the N-th argument on, ``$(N:default)`` /
``$(N+:default)`` a default.  Blank arguments are skipped when numbering and commas are
never protected by quotes - both exactly as HTCondor does.
"""
from __future__ import annotations

import re

_BLANKS = " \t\n\v\f\r"
_META_HEAD = re.compile(r"\$\((\d+)([?#+]?)")


def use_items(text: str):
    """``name`` / ``name(args)`` items of a use line (blank and/or comma separated); args None if absent."""
    index = 0
    length = len(text)
    while index < length:
        while index < length and (text[index] in _BLANKS or text[index] == ","):
            index += 1
        if index >= length:
            return
        start = index
        while index < length and text[index] not in _BLANKS and text[index] not in ",(":
            index += 1
        name = text[start:index]
        probe = index
        while probe < length and text[probe] in _BLANKS:
            probe += 1
        args = None
        if probe < length and text[probe] == "(":
            depth = 0
            close = probe
            while close < length:
                char = text[close]
                if char in "([":
                    depth += 1
                elif char in ")]":
                    depth -= 1
                    if depth == 0:
                        break
                close += 1
            if close < length:
                args = text[probe + 1:close]
                index = close + 1
            else:  # no closing parenthesis: HTCondor reads what follows "(" as more names
                index = probe + 1
        if name:
            yield name, args


def substitute_arguments(body: str, args: str | None) -> str:
    """Replace the template argument macros ``$(0)``, ``$(N)``, ``$(N?)``, ``$(N#)``, ``$(N+)``, ``$(N:d)``."""
    whole = args or ""
    raw_parts = whole.split(",")
    # (text, end offset of the comma after it or None) of each non-blank argument
    arguments: list[tuple[str, int | None]] = []
    offset = 0
    for position, part in enumerate(raw_parts):
        end = offset + len(part)
        if part.strip(_BLANKS):
            arguments.append((part.strip(_BLANKS), end if position < len(raw_parts) - 1 else None))
        offset = end + 1

    def remainder(number: int) -> str | None:
        if number <= 1:
            return whole
        if number - 2 >= len(arguments):
            return None
        comma = arguments[number - 2][1]
        return None if comma is None else whole[comma + 1:]

    def replace(number: int, flag: str, default: str | None) -> str:
        if number == 0 and flag in ("", "+"):
            text = whole.strip(_BLANKS)
            return text if text or default is None else default
        if flag == "#":
            if number == 0:
                return str(len(arguments))
            rest = remainder(number)
            return rest.strip(_BLANKS) if rest is not None else (default or "")
        if flag == "?":
            if number == 0:
                return "1" if whole.strip(_BLANKS) else "0"
            return "1" if number <= len(arguments) else "0"
        if flag == "+":
            rest = remainder(number)
            if rest is None or rest == "":
                return default if default is not None else ""
            return rest.strip(_BLANKS)
        if number <= len(arguments):
            return arguments[number - 1][0]
        return default if default is not None else ""

    return _substitute_meta(body, replace)


def _substitute_meta(body: str, replace) -> str:
    """Find ``$(<digits>[?#+][:default])`` (the default may hold nested parentheses) and replace each."""
    out = []
    position = 0
    while True:
        match = _META_HEAD.search(body, position)
        if match is None:
            out.append(body[position:])
            return "".join(out)
        end = match.end()
        default = None
        if body.startswith(":", end):
            depth = 1
            scan = end + 1
            while scan < len(body):
                if body[scan] == "(":
                    depth += 1
                elif body[scan] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                scan += 1
            if scan >= len(body):
                out.append(body[position:end])
                position = end
                continue
            default = body[end + 1:scan]
            end = scan + 1
        elif body.startswith(")", end):
            end += 1
        else:
            out.append(body[position:end])
            position = end
            continue
        out.append(body[position:match.start()])
        out.append(replace(int(match.group(1)), match.group(2), default))
        position = end
