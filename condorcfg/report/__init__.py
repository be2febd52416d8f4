"""Lint reports: one module per output format, each with ``render(result, view) -> str``.

``render(format, result, view)`` picks the module, imported only when used.
:class:`ReportView` carries what every format needs besides the findings: the rule set (for
rule metadata), the project root (relative paths, SARIF ``%SRCROOT%``), colour and quiet.

``statistics`` (counts per rule, for ``--statistics``) has the same signature but is not a
``--format``: it summarises a run instead of listing it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")


@dataclass
class ReportView:
    ruleset: object = None
    root: str = "."          # SARIF %SRCROOT%: the project directory
    color: bool = False
    fail_on: str = "error"
    quiet: bool = False      # text: the findings only, no summary or docs hints

    def display_path(self, file: str | None) -> str:
        """A path as the user wrote it relative to the current directory, when that is shorter."""
        if not file:
            return ""
        try:
            relative = os.path.relpath(file)
        except ValueError:
            return file
        return file if relative.startswith(".." + os.sep) or relative == ".." else relative

    def root_path(self, file: str) -> str:
        """A path relative to the project root with ``/`` separators (CI tools key on these),
        or the path as given when it lies outside the root."""
        try:
            # Resolved on both sides, as SARIF does, so a symlinked checkout still matches.
            relative = os.path.relpath(os.path.realpath(file), os.path.realpath(self.root))
        except ValueError:  # another drive on Windows
            return file
        if relative == ".." or relative.startswith(".." + os.sep):
            return file
        return relative.replace(os.sep, "/")


def render(fmt: str, result, view: ReportView) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    import importlib

    return importlib.import_module(f"condorcfg.report.{fmt}").render(result, view)


def source_line(file: str | None, line: int, _cache: dict = {}) -> str | None:
    """One line of a file (cached per process), or None."""
    if not file or not line:
        return None
    lines = _cache.get(file)
    if lines is None:
        try:
            with open(file, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            lines = []
        _cache[file] = lines
    return lines[line - 1] if 0 < line <= len(lines) else None
