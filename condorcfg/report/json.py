"""JSON report: a list of findings, each with code, rule, severity, file, line, column,
end_line, end_column, message, fix and notes (paths relative to the current directory)."""
from __future__ import annotations

import json


def render(result, view) -> str:
    items = []
    for finding in result.findings:
        item = finding.to_json()
        item["file"] = view.display_path(item["file"]) or None
        items.append(item)
    return json.dumps(items, indent=2) + "\n"
