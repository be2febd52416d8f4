"""Counts per rule (``--statistics``, like ruff's): which rules fire most, for triaging a
configuration with many findings before reading them one by one.

One line per rule code, most frequent first (then by code), the counts right-aligned::

      12  KNB303  unknown-knob      [warning]
       3  POL501  preempt-no-limit  [error]

then the usual summary line.  Not a ``--format``: it summarises the findings instead of
listing them, so the CLI calls :func:`render` itself when ``--statistics`` is given.
Codes and slugs may come from a project's own rule files: they are printed
:func:`~condorcfg.textsafe.printable`, and the whole text defused.
"""
from __future__ import annotations

from condorcfg.lint.engine import unlisted_count
from condorcfg.report.text import _RESET, summary
from condorcfg.textsafe import defuse, printable

_ORDER = {"error": 0, "warning": 1, "info": 2}


def render(result, view) -> str:
    groups: dict[str, dict] = {}
    for finding in result.findings:
        code = printable(finding.code or finding.rule or "-")
        group = groups.setdefault(code, {"count": 0, "rule": printable(finding.rule or ""), "severities": set()})
        group["count"] += unlisted_count(finding) or 1  # (a summary finding: what it counts)
        group["severities"].add(printable(finding.severity))
    rows = sorted(groups.items(), key=lambda item: (-item[1]["count"], item[0]))
    out = []
    if rows:
        width = len(str(rows[0][1]["count"]))
        code_width = max(len(code) for code, _ in rows)
        rule_width = max(len(group["rule"]) for _, group in rows)
        for code, group in rows:
            # Severity overrides are per rule, so one severity is usual; a mix is shown whole.
            severity = "/".join(sorted(group["severities"], key=lambda s: (_ORDER.get(s, 3), s)))
            out.append(f"  {group['count']:>{width}}  {code:<{code_width}}  {group['rule']:<{rule_width}}"
                       f"  [{severity}]")
    paint = (lambda code, text: f"{code}{text}{_RESET}") if view.color else (lambda code, text: text)
    out.append(summary(result, paint))
    return defuse("\n".join(out) + "\n")
