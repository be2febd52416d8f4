"""Physical lines -> logical lines, exactly as HTCondor 25's config line reader does.

HTCondor's reader (``getline_implementation``) has several quirks that a
faithful re-implementation must copy (config-language.md section 3):

* each newline-terminated physical line is trimmed on both sides; the last
  line of a file *without* a newline is neither trimmed nor checked for a
  continuation backslash, and does not count as a line;
* a trailing ``\\`` removes itself and glues the next (trimmed) physical line
  on with no separator;
* in the default "new comment" mode, a ``#`` line inside a continuation
  contributes only its last character (so ``# note \\`` keeps the
  continuation going and ``# comment`` contributes ``t``);
* ``#opt:oldcomment`` / ``#opt:newcomment`` switch modes for the rest of the
  file; in old mode comment lines inside a continuation are kept verbatim.

The result is a list of :class:`LogicalLine` with the file and the 1-based
first/last physical line numbers, so every later diagnostic can point at the
exact place.  Blank and comment logical lines are dropped here.
"""
from __future__ import annotations

from dataclasses import dataclass

# C's isspace() in the "C" locale - Python's str.isspace() also accepts Unicode spaces.
_SPACE = " \t\n\v\f\r"

MAX_LOGICAL_LINE = 4 * 1024 * 1024  # a single logical line larger than this is hostile input


@dataclass(frozen=True)
class LogicalLine:
    """One logical line: ``text`` is trimmed and continuation-joined."""

    text: str
    file: str
    line: int  # first physical line (1-based)
    end_line: int  # last physical line consumed
    column: int = 1  # column of the first non-blank character of the first physical line


class LineTooLong(Exception):
    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def decode(data: bytes) -> str:
    """Config files are byte strings to HTCondor; decode UTF-8, keeping undecodable bytes as Latin-1."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _rstrip(text: str) -> str:
    return text.rstrip(_SPACE)


def _lstrip(text: str) -> str:
    return text.lstrip(_SPACE)


def logical_lines(text: str, file: str, first_line: int = 1, keep_comments: bool = False) -> list[LogicalLine]:
    """Split ``text`` into logical lines the way HTCondor does.

    ``first_line`` numbers the first physical line (template bodies start
    mid-file).  Comment lines are returned only when ``keep_comments`` is
    true (the reader needs them for ``#opt:`` directives; they then start
    with ``#``).
    """
    out: list[LogicalLine] = []
    old_comment_mode = False
    physical = text.split("\n")
    # A text ending in "\n" has no unterminated last line.
    terminated_count = len(physical) - 1
    last_unterminated = physical[-1]
    index = 0
    line_number = first_line - 1
    n = terminated_count
    while index < n or (index == n and last_unterminated):
        buf = ""  # the logical line being built
        start_line = line_number + 1
        start_column = 1
        first = True
        in_comment = False
        while True:
            if index >= n:
                # Unterminated last physical line (or nothing left): appended raw, no trim, no continuation.
                if index == n and last_unterminated:
                    raw = last_unterminated
                    index += 1
                    if first:
                        start_column = len(raw) - len(_lstrip(raw)) + 1
                    buf += raw
                break
            raw = physical[index]
            index += 1
            line_number += 1
            piece = _rstrip(raw)
            stripped = _lstrip(piece)
            if first:
                start_column = len(piece) - len(stripped) + 1
            in_comment = stripped.startswith("#")
            if in_comment and not first and not old_comment_mode:
                # new-comment mode: a comment inside a continuation counts as its last character only
                stripped = stripped[-1:]
                in_comment = False
            buf += stripped
            if len(buf) > MAX_LOGICAL_LINE:
                raise LineTooLong(line_number)
            first = False
            if buf.endswith("\\"):
                buf = buf[:-1]
                # A top-level comment ending in "\" does not continue (new mode only).
                if not (in_comment and not old_comment_mode):
                    continue
            break
        if not buf.strip(_SPACE):
            continue
        if buf.startswith("#"):
            directive = buf.strip(_SPACE).lower()
            if directive == "#opt:oldcomment":
                old_comment_mode = True
            elif directive == "#opt:newcomment":
                old_comment_mode = False
            if not keep_comments:
                continue
        out.append(LogicalLine(buf, file, start_line, max(line_number, start_line), start_column))
    return out
