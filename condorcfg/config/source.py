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
  file; in old mode comment lines inside a continuation are kept verbatim;
  ``#opt:strict`` marks the following lines strict (``NAME : value`` is then an error).

The result is a list of :class:`LogicalLine` with the file and the 1-based
first/last physical line numbers, so every later diagnostic can point at the
exact place.  Blank and comment logical lines are dropped here.
"""
from __future__ import annotations

# C's isspace() in the "C" locale - Python's str.isspace() also accepts Unicode spaces.
_SPACE = " \t\n\v\f\r"

MAX_LOGICAL_LINE = 4 * 1024 * 1024  # a single logical line larger than this is hostile input


class LogicalLine:
    """One logical line: ``text`` is trimmed and continuation-joined.

    ``line``/``end_line`` are the first and last physical lines (1-based), ``column`` the
    column of the first non-blank character of the first one.  (A slotted class, not a
    dataclass: the reader makes one per line and start-up time matters.)
    """

    __slots__ = ("text", "file", "line", "end_line", "column", "strict")

    def __init__(self, text: str, file: str, line: int, end_line: int, column: int = 1, strict: bool = False):
        self.text = text
        self.file = file
        self.line = line
        self.end_line = end_line
        self.column = column
        self.strict = strict  # after `#opt:strict`: obsolete `NAME : value` assignments are errors

    def __repr__(self) -> str:
        return f"LogicalLine({self.text!r}, {self.file!r}, {self.line}, {self.end_line}, {self.column})"


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
    """Split ``text`` into logical lines the way HTCondor does (:func:`iter_logical_lines` as objects).

    ``first_line`` numbers the first physical line (template bodies start
    mid-file).  Comment lines are returned only when ``keep_comments`` is
    true (they then start with ``#``); ``#opt:`` directives are always obeyed.
    """
    return [LogicalLine(text_, file, line, end_line, column, strict)
            for text_, line, end_line, column, strict in iter_logical_lines(text, first_line, keep_comments)]


CHUNK = 1 << 16  # characters split into physical lines at a time


def iter_logical_lines(text: str, first_line: int = 1, keep_comments: bool = False):
    """The logical lines of ``text`` one by one, each a tuple ``(text, line, end_line, column, strict)``.

    (Tuples, not :class:`LogicalLine` objects: the reader takes every line apart at once, and
    making an object per line costs start-up time.)  A generator that splits the text a chunk
    at a time: the reader processes each line before the next is made, so a huge file never
    has all its lines in memory at once and a per-load limit on statements stops it early.
    """
    old_comment_mode = False
    strict = False
    line_number = first_line - 1
    buf: list[str] | None = None  # pieces of the logical line being continued; None between lines
    size = 0  # total length of buf
    tail = ""  # last character of buf
    start_line = start_column = 0

    def directive_line(logical: str, end_line: int) -> tuple | None:
        """A blank or comment logical line: obey ``#opt:`` and return it only if comments are kept."""
        nonlocal old_comment_mode, strict
        if not logical.strip(_SPACE):
            return None
        if logical.startswith("#"):
            directive = logical.strip(_SPACE).lower()
            if directive == "#opt:oldcomment":
                old_comment_mode = True
            elif directive == "#opt:newcomment":
                old_comment_mode = False
            elif directive == "#opt:strict":
                strict = True
            if not keep_comments:
                return None
        return (logical, start_line, max(end_line, start_line), start_column, strict)

    terminated = text.rfind("\n") + 1  # text[:terminated] is the newline-terminated lines
    position = 0
    while position < terminated:
        chunk_end = text.find("\n", position + CHUNK) + 1 or terminated
        chunk = text[position:chunk_end - 1].split("\n")
        position = chunk_end
        for raw in chunk:
            line_number += 1
            if buf is None:
                # fast path: a complete line (no continuation pending, none started here)
                stripped = raw.strip(_SPACE)
                if not stripped:
                    continue
                first = stripped[0]
                if stripped[-1] != "\\":
                    if first != "#":
                        yield (stripped, line_number, line_number, raw.find(first) + 1, strict)
                        continue
                    if not keep_comments and stripped[:5].lower() != "#opt:":
                        continue  # a comment line (what directive_line() makes of it)
            piece = raw.rstrip(_SPACE)
            stripped = piece.lstrip(_SPACE)
            in_comment = stripped.startswith("#")
            if buf is None:
                start_line = line_number
                start_column = len(piece) - len(stripped) + 1
                if not stripped:
                    continue
                buf, size, tail = [stripped], len(stripped), stripped[-1]
            else:
                if in_comment and not old_comment_mode:
                    # new-comment mode: a comment inside a continuation counts as its last character only
                    stripped = stripped[-1:]
                    in_comment = False
                if stripped:
                    buf.append(stripped)
                    size += len(stripped)
                    tail = stripped[-1]
                if size > MAX_LOGICAL_LINE:
                    raise LineTooLong(line_number)
            # `tail` is the last character of the whole buffer, as HTCondor tests it (a blank
            # continuation line adds nothing, so the previous line's last character counts)
            if tail == "\\":
                # drop the backslash; buf holds only non-empty pieces, so the new tail is at hand
                # (searching back over emptied pieces made many `# c \` continuation lines quadratic)
                last = buf[-1][:-1]
                if last:
                    buf[-1] = last
                else:
                    buf.pop()
                size -= 1
                tail = buf[-1][-1] if buf else ""
                # a top-level comment ending in "\" does not continue (new-comment mode)
                if not (in_comment and not old_comment_mode):
                    continue
            logical = "".join(buf)
            buf = None
            if not logical:
                continue
            if logical[0] == "#" or logical[0] in _SPACE:
                found = directive_line(logical, line_number)
                if found is not None:
                    yield found
            else:
                yield (logical, start_line, line_number, start_column, strict)
    last_unterminated = text[position:]  # "" when the text ends with a newline
    found = None
    if last_unterminated:
        # the last line without a newline: appended raw - no trimming, no continuation, not counted
        if buf is None:
            start_line = line_number + 1
            start_column = len(last_unterminated) - len(last_unterminated.lstrip(_SPACE)) + 1
        found = directive_line("".join(buf or ()) + last_unterminated, line_number)
    elif buf is not None:
        found = directive_line("".join(buf), line_number)
    if found is not None:
        yield found
