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
    """Find the suppression comments of one file (``lines`` without line ends)."""
    suppressions, problems = [], []
    for index, text in enumerate(lines):
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
            sup.first, sup.last = _covered_lines(lines, index + 1)
        suppressions.append(sup)
    return suppressions, problems


def _covered_lines(lines: list[str], start: int) -> tuple[int, int]:
    """1-based first/last line of the statement after 0-based index ``start - 1``."""
    index = start
    while index < len(lines) and (not lines[index].strip() or lines[index].lstrip().startswith("#")):
        index += 1
    if index >= len(lines):
        return 0, 0
    first = index
    heredoc = _HEREDOC.match(lines[index])
    if heredoc:
        end_marker = "@" + heredoc.group("tag")
        while index + 1 < len(lines) and lines[index].strip() != end_marker:
            index += 1
    else:
        while lines[index].rstrip().endswith("\\") and index + 1 < len(lines):
            index += 1
    return first + 1, index + 1


class SuppressionIndex:
    """The suppressions of every linted file, looked up by a finding's file and line."""

    def __init__(self, suppressions: list[Suppression]):
        self.all = suppressions
        self._by_file: dict[str, list[Suppression]] = {}
        for sup in suppressions:
            self._by_file.setdefault(sup.file, []).append(sup)

    def find(self, file: str, line: int, code: str, slug: str) -> Suppression | None:
        """The suppression hiding a finding of rule ``code``/``slug`` at file:line, marking it used."""
        keys = {code.upper(), slug.upper()}
        for sup in self._by_file.get(file, ()):
            if not sup.covers(line):
                continue
            for written in sup.codes:
                if written.upper() in keys:
                    sup.used.add(written.upper())
                    return sup
        return None
