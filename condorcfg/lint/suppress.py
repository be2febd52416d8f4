"""Inline suppressions: ``# condorcfg: ignore[...]`` and ``# condorcfg: ignore-file[...]``.

Only a whole-line comment can carry one: HTCondor keeps a trailing ``# ...`` as part of the
value, so a suppression written after a value would change the configuration.

``# condorcfg: ignore[POL501, unquoted-attr] reason`` covers the next statement: the next
line that is neither blank nor a comment, with its ``\\`` continuation lines and, for a
``NAME @=tag`` heredoc, every line up to ``@tag``.  Several suppression comments stacked
above one statement all cover it.  ``# condorcfg: ignore-file[CODE] reason`` anywhere in a
file covers the whole file.  Codes are rule codes or slugs, case-insensitive.

The engine reports a suppression that hid nothing (``unused-suppression``) and one that is
malformed or names an unknown rule (``invalid-suppression``).
"""
from __future__ import annotations

import re
from bisect import bisect_left

from condorcfg.records import factory, record

_DIRECTIVE = re.compile(r"^\s*#\s*condorcfg\s*:\s*(?P<body>.*)$", re.IGNORECASE)
_IGNORE = re.compile(r"^(?P<kind>ignore-file|ignore)\s*\[(?P<codes>[^\]]*)\]\s*(?P<reason>.*)$", re.IGNORECASE)
_HEREDOC = re.compile(r"^\s*[^\s#=]+\s*@=\s*(?P<tag>\S+)\s*$")


@record
class Suppression:
    file: str
    line: int            # the comment's line
    column: int          # where the code list starts
    end_column: int
    codes: list[str]     # as written
    reason: str
    file_wide: bool
    first: int = 0       # covered lines (inclusive); 0 when nothing follows
    last: int = 0
    used: set[str] = factory(set)  # entries of `codes` (upper-case) that hid a finding
    spans: dict[str, tuple[int, int]] = factory(dict)  # code (upper) -> its columns

    def location_of(self, code: str):
        from condorcfg.diagnostics import Location

        start, end = self.spans.get(code.upper(), (self.column, self.end_column))
        return Location(self.file, self.line, start, self.line, end)

    def covers(self, line: int) -> bool:
        return self.file_wide or self.first <= line <= self.last


@record
class Problem:
    """A malformed suppression comment."""

    file: str
    line: int
    column: int
    end_column: int
    message: str


def scan(file: str, lines: list[str]) -> tuple[list[Suppression], list[Problem]]:
    """Find the suppression comments of one file (``lines`` without line ends).

    One pass over the lines, whatever their number and arrangement (stacked comments, unterminated
    heredocs): a line inside a heredoc's body is part of a value, never a suppression.
    """
    suppressions, problems = [], []
    if "condorcfg" not in "\n".join(lines).lower():
        return suppressions, problems  # (most files have none: no need to find where statements end)
    ends, in_body = _statement_ends(lines)
    following = _next_statement_lines(lines)
    for index, text in enumerate(lines):
        if in_body[index]:
            continue
        directive = _DIRECTIVE.match(text)
        if not directive:
            continue
        body = directive.group("body").rstrip()
        body_col = directive.start("body") + 1
        found = _IGNORE.match(body)
        if not found:
            problems.append(Problem(file, index + 1, body_col, len(text) + 1,
                                    f"cannot read this suppression {body!r}: write "
                                    f"'# condorcfg: ignore[CODE,...] reason' or "
                                    f"'# condorcfg: ignore-file[CODE,...] reason'"))
            continue
        codes_col = body_col + found.start("codes")
        spans = [(m.group(), codes_col + m.start(), codes_col + m.end())
                 for m in re.finditer(r"[^,\s]+", found.group("codes"))]
        codes = [code for code, _, _ in spans]
        if not codes:
            problems.append(Problem(file, index + 1, codes_col - 1, codes_col + 1,
                                    "empty suppression: name the rule codes or slugs it hides, "
                                    "e.g. ignore[POL501]"))
            continue
        file_wide = found.group("kind").lower() == "ignore-file"
        sup = Suppression(file, index + 1, codes_col, body_col + found.end("codes"), codes,
                          found.group("reason").strip(), file_wide,
                          spans={code.upper(): (start, end) for code, start, end in spans})
        if not file_wide:
            nxt = following[index + 1] if index + 1 < len(lines) else -1
            if nxt >= 0:  # the next statement line, to the end of its statement
                sup.first, sup.last = nxt + 1, ends[nxt] + 1
        suppressions.append(sup)
    return suppressions, problems


def _is_code(text: str) -> bool:
    return bool(text.strip()) and not text.lstrip().startswith("#")


def _next_statement_lines(lines: list[str]) -> list[int]:
    """For each 0-based index, the first index at or after it that is neither blank nor a comment (-1: none)."""
    following, nxt = [-1] * len(lines), -1
    for index in range(len(lines) - 1, -1, -1):
        if _is_code(lines[index]):
            nxt = index
        following[index] = nxt
    return following


def _statement_ends(lines: list[str]) -> tuple[list[int], list[bool]]:
    """For each 0-based index, the last index of the statement reading on from it (its ``\\``
    continuation lines, or a ``NAME @=tag`` heredoc's lines up to ``@tag``), and whether the line is
    inside a heredoc's body.  One forward pass."""
    count = len(lines)
    ends, in_body = list(range(count)), [False] * count
    index = 0
    while index < count:
        text = lines[index]
        heredoc = _HEREDOC.match(text) if _is_code(text) else None
        start = index
        if heredoc:
            end_marker = "@" + heredoc.group("tag")
            while index + 1 < count and lines[index].strip() != end_marker:
                index += 1
                in_body[index] = lines[index].strip() != end_marker
        else:
            while lines[index].rstrip().endswith("\\") and index + 1 < count:
                index += 1
        for line in range(start, index + 1):
            ends[line] = index
        index += 1
    return ends, in_body


class SuppressionIndex:
    """The suppressions of every linted file, looked up by a finding's file and line.

    A suppression covers the end of one statement, so those of a file are kept by the last line they
    cover: a finding's line finds its candidates by one bisection, however many suppressions there are.
    """

    def __init__(self, suppressions: list[Suppression]):
        self.all = suppressions
        self._file_wide: dict[str, list[Suppression]] = {}
        self._by_last: dict[str, dict[int, list[Suppression]]] = {}
        for sup in suppressions:
            if sup.file_wide:
                self._file_wide.setdefault(sup.file, []).append(sup)
            elif sup.last:
                self._by_last.setdefault(sup.file, {}).setdefault(sup.last, []).append(sup)
        self._lasts = {file: sorted(by_last) for file, by_last in self._by_last.items()}

    def find(self, file: str, line: int, code: str, slug: str) -> Suppression | None:
        """The suppression hiding a finding of rule ``code``/``slug`` at file:line, marking it used (the
        first in the file, as written, when several would)."""
        lasts = self._lasts.get(file)
        if lasts is None and file not in self._file_wide:
            return None  # (most files have no suppression: asked once per finding)
        keys = {code.upper(), slug.upper()}
        candidates = list(self._file_wide.get(file, ()))
        if lasts:
            at = bisect_left(lasts, line)
            if at < len(lasts):
                candidates += [sup for sup in self._by_last[file][lasts[at]] if sup.covers(line)]
        for sup in sorted(candidates, key=lambda sup: sup.line) if len(candidates) > 1 else candidates:
            for written in sup.codes:
                if written.upper() in keys:
                    sup.used.add(written.upper())
                    return sup
        return None
