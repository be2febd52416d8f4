"""Baselines: accept the findings a configuration has today, so only new ones fail a commit.

``condorcfg lint --write-baseline FILE`` records every finding; ``--baseline FILE`` (or
``baseline`` in the project settings) hides the findings the file lists and reports the
rest.  A finding is keyed on its rule, the file it is in (relative to the project) and the
knob it is about - never on a line number, so editing lines above an accepted finding does
not bring it back.  A finding that names no knob is keyed on its message instead.  Each key
carries a count: a second copy of an accepted problem is new.

An entry that matches no finding any more is stale (the problem was fixed, or the knob
renamed): it is reported, pointing at its line in the baseline file, so the file shrinks
as the configuration improves.

The file is JSON with one entry per line, so that its diffs review well and a stale entry
has a line to point at::

    {"condorcfg-baseline": 1,
     "findings": [
      {"code": "KNB303", "count": 1, "file": "etc/condor_config", "knob": "MAX_JOBS_RUNING", "rule": "unknown-knob"}
     ]}
"""
from __future__ import annotations

import json
import os
from collections import Counter

from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location
from condorcfg.records import record

FORMAT_KEY = "condorcfg-baseline"
FORMAT_VERSION = 1
MAX_BASELINE_SIZE = 64 * 1024 * 1024  # characters of one baseline file


class BaselineError(CondorcfgError):
    """A baseline file that cannot be used (exit 2)."""


@record(frozen=True)
class Entry:
    code: str
    file: str
    knob: str | None
    message: str | None  # only for findings that name no knob
    rule: str = ""
    count: int = 1
    line: int = 0  # where the entry is written in the baseline file

    @property
    def key(self) -> tuple:
        return self.code, self.file, self.knob or "", "" if self.knob else (self.message or "")


def relative_file(file: str | None, root: str) -> str:
    """A finding's file as the baseline names it: relative to the project, '/' separated."""
    if not file:
        return ""
    absolute = os.path.abspath(file)
    relative = os.path.relpath(absolute, os.path.abspath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute
    return relative.replace(os.sep, "/")


def key_of(finding: Diagnostic, root: str) -> tuple:
    file = relative_file(finding.location.file if finding.location else None, root)
    return finding.code or "", file, finding.knob or "", "" if finding.knob else finding.message


def write(path: str, findings: list[Diagnostic], root: str, kept: list[Entry] = ()) -> int:
    """Record ``findings``, and the ``kept`` entries of an earlier baseline (those of files not linted this
    time), in ``path``; returns the number of entries written."""
    counts: Counter = Counter()
    rules: dict[tuple, str] = {}
    for entry in kept:
        counts[entry.key] += entry.count
        rules[entry.key] = entry.rule
    for finding in findings:
        key = key_of(finding, root)
        counts[key] += 1
        rules[key] = finding.rule or ""
    lines = []
    for key in sorted(counts):
        code, file, knob, message = key
        item = {"code": code, "count": counts[key], "file": file, "rule": rules[key]}
        if knob:
            item["knob"] = knob
        else:
            item["message"] = message
        lines.append(" " + json.dumps(item, sort_keys=True, ensure_ascii=False))
    text = f'{{"{FORMAT_KEY}": {FORMAT_VERSION},\n "findings": [\n' + ",\n".join(lines) + "\n ]}\n"
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise BaselineError(Diagnostic("error", f"cannot write the baseline: {exc.strerror}", Location(path),
                                       code="baseline"))
    return len(lines)


def _fail(path: str, message: str, line: int = 0):
    raise BaselineError(Diagnostic("error", message, Location(path, line, 1), code="baseline",
                                   notes=["write a new one with `condorcfg lint --write-baseline FILE`"]))


def read_text(path: str) -> str:
    """The text of the baseline file ``path``; :class:`BaselineError` when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(MAX_BASELINE_SIZE + 1)
    except OSError as exc:
        _fail(path, f"cannot read the baseline: {exc.strerror}")
    except UnicodeDecodeError:
        _fail(path, "the baseline is not UTF-8 text")


def read(path: str, text: str | None = None) -> list[Entry]:
    """The entries of a baseline file (``text``: its content, already read); :class:`BaselineError`
    (file:line) if it is not one."""
    def fail(message: str, line: int = 0):
        _fail(path, message, line)

    if text is None:
        text = read_text(path)
    if len(text) > MAX_BASELINE_SIZE:
        fail(f"the baseline is larger than {MAX_BASELINE_SIZE:,} characters (MAX_BASELINE_SIZE); it is refused")
    try:
        data = json.loads(text)
    except ValueError as exc:
        fail(f"the baseline is not valid JSON: {getattr(exc, 'msg', exc)}", getattr(exc, "lineno", 0))
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION or not isinstance(
            data.get("findings"), list):
        fail(f'not a condorcfg baseline (version {FORMAT_VERSION}): expected {{"{FORMAT_KEY}": '
             f'{FORMAT_VERSION}, "findings": [...]}}', 1)
    entry_lines = _entry_lines(text.splitlines())
    entries = []
    for index, item in enumerate(data["findings"]):
        line = entry_lines[index] if index < len(entry_lines) else 0
        if not (isinstance(item, dict) and isinstance(item.get("code"), str) and isinstance(item.get("file"), str)
                and isinstance(item.get("count", 1), int) and item.get("count", 1) > 0
                and isinstance(item.get("knob", ""), str) and isinstance(item.get("message", ""), str)):
            fail("a baseline entry needs code and file (strings), a positive count, and a knob or message", line)
        entries.append(Entry(item["code"], item["file"], item.get("knob") or None, item.get("message"),
                             str(item.get("rule", "")), item.get("count", 1), line))
    return entries


def _entry_lines(lines: list[str]) -> list[int]:
    """The line of each entry, in order, when the file is written one entry per line (one pass: a
    baseline of 100,000 entries was read in 13 minutes when each entry searched the file again)."""
    return [number for number, text in enumerate(lines, 1) if text.lstrip().startswith("{") and '"code"' in text]


def apply(findings: list[Diagnostic], entries: list[Entry], root: str):
    """Split ``findings`` into (new, baselined) and list the stale entries with what is left of them."""
    remaining = Counter()
    for entry in entries:
        remaining[entry.key] += entry.count
    new, accepted = [], []
    for finding in findings:
        key = key_of(finding, root)
        if remaining[key] > 0:
            remaining[key] -= 1
            accepted.append(finding)
        else:
            new.append(finding)
    stale = []
    for entry in entries:
        left = min(remaining[entry.key], entry.count)
        if left > 0:
            stale.append((entry, left))
            remaining[entry.key] -= left
    return new, accepted, stale
