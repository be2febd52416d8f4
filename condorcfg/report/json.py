"""JSON report: one object describing the whole run, for scripts and dashboards.

``findings`` is a list of objects with code, rule, severity, file, line, column, end_line,
end_column, knob, message, fix and notes (paths relative to the current directory, in the
messages too), and ``facts`` when the message has them: the values it was formatted from, a
place as ``{"file", "line", "column"}`` (see :class:`~condorcfg.diagnostics.Text`).  Around
it: the ``tool`` that wrote it, ``counts`` per severity plus the suppressed and baselined
findings and those the rule selection of the settings hid, the ``files`` read, the rule codes that ran (``rules_run``), the rules that could not
run and why (``skipped_rules``), and ``fatal`` (the reader rejected the configuration, so the
rules did not run), and ``settings``: what the settings hid per code and the severities they changed.  An object rather than a bare list so fields can be added without breaking
readers.

The JSON is ASCII (``ensure_ascii``): control, format and line-separator characters and lone
surrogates from the configuration are ``\\u00e9-style`` escapes, so printing the report can neither
act on a terminal nor fail on a strict UTF-8 stdout, and it is defused
(:func:`~condorcfg.textsafe.defuse_json`) with JSON escapes, so the data is unchanged.
"""
from __future__ import annotations


from condorcfg.report import json_layout
from condorcfg.textsafe import defuse_json


def render(result, view) -> str:
    from condorcfg import __version__

    items = []
    for finding in result.findings:
        item = finding.to_json()
        item["file"] = view.display_path(item["file"]) or None
        item["message"] = view.message(finding)
        item["notes"] = view.notes(finding)
        facts = finding.facts()
        if facts:
            item["facts"] = {name: dict(fact, file=view.display_path(fact["file"])) if isinstance(fact, dict)
                             else fact for name, fact in facts.items()}
        items.append(item)
    counts = {severity: result.count(severity) for severity in ("error", "warning", "info")}
    counts["suppressed"] = len(result.suppressed)
    counts["baselined"] = len(getattr(result, "baselined", None) or ())
    hidden = getattr(result, "hidden_by_settings", None) or {}
    counts["hidden_by_settings"] = sum(hidden.values())
    report = {
        "tool": {"name": "condorcfg", "version": __version__},
        "findings": items,
        "counts": counts,
        "files": [view.display_path(file) for file in result.files],
        "rules_run": sorted(rule.code for rule in result.rules_run),
        "skipped_rules": [{"code": rule.code, "rule": rule.name, "reason": reason}
                          for rule, reason in result.skipped_rules],
        "fatal": bool(result.fatal),
        "settings": {"hidden": dict(sorted(hidden.items())),
                     "severity_changes": [{"code": code, "rule_severity": was, "severity": now}
                                          for code, was, now in getattr(result, "severity_changes", None) or ()]},
    }
    return defuse_json(json_layout.dumps(report, {"findings", "skipped_rules"}) + "\n")
