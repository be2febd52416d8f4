"""Lint reports: one module per output format, each with ``render(result, view) -> str``.

``render(format, result, view)`` picks the module, imported only when used.
:class:`ReportView` carries what every format needs besides the findings: the rule set (for
rule metadata), the project root (relative paths, SARIF ``%SRCROOT%``), colour and quiet.

``statistics`` (counts per rule, for ``--statistics``) has the same signature but is not a
``--format``: it summarises a run instead of listing it.
"""
from __future__ import annotations

import os

from condorcfg.diagnostics import DEFAULT_FAIL_ON
from condorcfg.records import factory, record

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")


@record
class ReportView:
    ruleset: object = None
    root: str = "."          # SARIF %SRCROOT%: the project directory
    color: bool = False
    fail_on: str = DEFAULT_FAIL_ON
    quiet: bool = False      # text: the findings only, no summary or docs hints
    # paths already shown (a report has thousands of findings in a few files)
    _shown: dict = factory(dict, init=False)

    def display_path(self, file: str | None) -> str:
        """A path as the user wrote it relative to the current directory, when that is shorter."""
        if not file:
            return ""
        shown = self._shown.get(file)
        if shown is None:
            shown = self._shown[file] = self._display_path(file)
        return shown

    @staticmethod
    def _display_path(file: str) -> str:
        try:
            relative = os.path.relpath(file)
        except ValueError:
            return file
        return file if relative.startswith(".." + os.sep) or relative == ".." else relative

    def message(self, finding, from_root: bool = False, with_roles: bool = False) -> str:
        """A finding's message with the places in it written as this report writes paths; ``with_roles``:
        led by the pool roles it holds in (``[cm, ep] ...``), for formats with no field of their own."""
        text = finding.message_shown(self.root_path if from_root else self.display_path)
        roles = getattr(finding, "roles", ())
        return f"[{', '.join(roles)}] {text}" if with_roles and roles else text

    def notes(self, finding, from_root: bool = False) -> list[str]:
        return finding.notes_shown(self.root_path if from_root else self.display_path)

    def root_path(self, file: str) -> str:
        """A path relative to the project root with ``/`` separators (CI tools key on these),
        or the path as given when it lies outside the root."""
        key = ("root", file)
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = self._root_path(file)
        return shown

    def _root_path(self, file: str) -> str:
        try:
            # Resolved on both sides, as SARIF does, so a symlinked checkout still matches.
            relative = os.path.relpath(os.path.realpath(file), os.path.realpath(self.root))
        except ValueError:  # another drive on Windows
            return file
        if relative == ".." or relative.startswith(".." + os.sep):
            return file
        return relative.replace(os.sep, "/")


def markdown_text(value) -> str:
    """Text from a configuration, safe in a markdown table cell: printable, and every character markdown
    would read (links, emphasis, mentions, HTML, the cell separator) escaped."""
    import re

    from condorcfg.textsafe import printable

    return re.sub(r"([\\`*_\[\]<>|@#!~])", r"\\\1", printable(" ".join(str(value).split())))


def render(fmt: str, result, view: ReportView) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    import importlib

    return importlib.import_module(f"condorcfg.report.{fmt}").render(result, view)


def read_lines(file: str) -> list[str]:
    """The physical lines of a file as the reader numbers them ([] if unreadable).

    Decoded as the reader decodes (UTF-8, else Latin-1) and split on "\\n" only, as HTCondor's
    line reader does: ``str.splitlines()`` also splits on CR, form feed, U+2028 ..., so in a
    CR-only or form-feed file it would show a different line than the one a finding names.  A
    line's final CR (a CRLF file) is dropped: the reader trims it as blank space.
    """
    from condorcfg.config.source import decode

    try:
        if not os.path.isfile(file):  # a FIFO or device would block or never end
            return []
        with open(file, "rb") as handle:
            lines = decode(handle.read()).split("\n")
    except (OSError, ValueError):  # ValueError: a NUL byte in the name
        return []
    if not lines[-1]:
        lines.pop()  # the empty text after the final newline is no line
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def source_lines(file: str | None, _cache: dict = {}) -> list[str]:
    """:func:`read_lines`, cached per process until the file changes (size or modification time)."""
    if not file:
        return []
    try:
        info = os.stat(file)
        stamp = (info.st_mtime_ns, info.st_size)
    except (OSError, ValueError):
        return []
    cached = _cache.get(file)
    if cached is None or cached[0] != stamp:
        cached = _cache[file] = (stamp, read_lines(file))
    return cached[1]


def source_line(file: str | None, line: int) -> str | None:
    """Physical line ``line`` (1-based) of a file, as the reader numbers it (see :func:`source_lines`), or None."""
    if not file or not line:
        return None
    lines = source_lines(file)
    return lines[line - 1] if 0 < line <= len(lines) else None
