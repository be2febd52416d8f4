"""Human report: ``file:line:col: severity CODE slug message``, the source line, a caret, a summary.

Notes (provenance) and the fix follow each finding, and the first finding of each rule says
how to read that rule's page.  Quiet mode (``view.quiet``) keeps the findings with their
excerpts, notes and fixes but drops the docs hints and the summary, so a clean run prints
nothing at all (for scripts and pre-commit hooks that only want to see problems).

The caret underlines the finding's column range (``^~~~``) when it has one.  Colour is used
only when asked for (the CLI turns it on for a terminal unless ``NO_COLOR`` is set).

Everything taken from the configuration or the rules (paths, messages, notes, fixes, the
source line, skip reasons) is made :func:`~condorcfg.textsafe.printable` piece by piece (the
colour codes are the report's own), and the whole report is defused
(:func:`~condorcfg.textsafe.defuse`), so nothing in it acts on a terminal or a CI log.  The caret
is placed by the escaped text, so it stays under the column it points at.
"""
from __future__ import annotations

from condorcfg.report import source_line
from condorcfg.textsafe import defuse, printable

_COLORS = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_BOLD, _DIM, _RESET, _CARET = "\033[1m", "\033[2m", "\033[0m", "\033[1;32m"


def render(result, view) -> str:
    paint = (lambda code, text: f"{code}{text}{_RESET}") if view.color else (lambda code, text: text)
    out = []
    explained = set()
    for finding in result.findings:
        loc = finding.location
        where = ""
        if loc is not None:
            where = printable(view.display_path(loc.file))
            if loc.line:
                where += f":{loc.line}:{loc.column}"
            where = paint(_BOLD, where + ":") + " "
        severity, code = printable(finding.severity), printable(finding.code or "")
        head = f"{paint(_COLORS.get(finding.severity, ''), severity)} {paint(_BOLD, code)}"
        out.append(f"{where}{head} {printable(finding.rule or '')} {printable(view.message(finding, with_roles=True))}".rstrip())
        out.extend(_excerpt(finding, paint))
        for note in view.notes(finding):
            out.append(f"  = note: {printable(note)}")
        if finding.fix:
            out.append(f"  = help: {printable(' '.join(finding.fix.split()))}")
        if finding.code and finding.code not in explained and not view.quiet:  # the rule's page, once per rule
            explained.add(finding.code)
            out.append(f"  = docs: condorcfg explain {code}")
    if view.quiet:
        return defuse("\n".join(out) + "\n") if out else ""
    out.append(summary(result, paint))
    return defuse("\n".join(out) + "\n")


def _excerpt(finding, paint) -> list[str]:
    loc = finding.location
    text = source_line(loc.file, loc.line) if loc else None
    if text is None:
        return []
    text = text.expandtabs(1)  # keep columns: one tab = one column, as the reader counts them
    number = str(loc.line)
    pad = " " * len(number)
    start = max(loc.column, 1)
    if loc.end_column and (loc.end_line in (None, loc.line)) and loc.end_column > start:
        width = loc.end_column - start
    elif loc.end_line and loc.end_line > loc.line:
        width = max(len(text) - start + 1, 1)  # runs on past this line: underline to its end
    else:
        width = 1
    # Escapes widen what they replace: measure the caret on the escaped text, so it stays under it.
    before, span = text[:start - 1], text[start - 1:start - 1 + width]
    indent = len(printable(before)) + max(start - 1 - len(before), 0)
    width = max(len(printable(span)) + width - len(span), 1)
    marker = "^" + "~" * (width - 1)
    return [f" {number} | {printable(text)}",
            f" {pad} | {' ' * indent}{paint(_CARET, marker)}"]


def summary(result, paint=lambda code, text: text) -> str:
    counts = {s: result.count(s) for s in ("error", "warning", "info")}
    total = sum(counts.values())  # (with the findings a summary finding counts: lint/engine.py cap_listed)
    files = len(result.files)
    where = f" in {files} file{'s' * (files != 1)}" if files else ""
    if total:
        parts = ", ".join(f"{n} {s}{'s' * (n != 1 and s != 'info')}" for s, n in counts.items() if n)
        text = f"Found {total} finding{'s' * (total != 1)} ({parts}){where}"
        if len(result.findings) < total:
            text += f", {len(result.findings)} listed"
    else:
        text = f"No findings{where}"
    extras = []
    # what was hidden, and by what, is always said: a pull request's own settings or baseline may hide it
    if getattr(result, "baselined", None):
        extras.append(f"{len(result.baselined)} hidden by the baseline")
    if result.suppressed:
        extras.append(f"{len(result.suppressed)} suppressed")
    hidden = getattr(result, "hidden_by_settings", None) or {}
    if hidden:
        total_hidden = sum(hidden.values())
        codes = ", ".join(printable(code) for code in sorted(hidden))
        extras.append(f"{total_hidden} hidden by the rule selection of the settings ({codes})")
    changed = getattr(result, "severity_changes", None) or []
    if changed:
        extras.append("severity changed by the settings: " + ", ".join(
            f"{printable(code)} {printable(was)} -> {printable(now)}" for code, was, now in changed))
    if result.skipped_rules:
        why = "; ".join(dict.fromkeys(printable(reason) for _rule, reason in result.skipped_rules))
        extras.append(f"{len(result.skipped_rules)} rule{'s' * (len(result.skipped_rules) != 1)} skipped ({why})")
    if extras:
        text += "; " + ", ".join(extras)
    return paint(_BOLD, text + ".")
