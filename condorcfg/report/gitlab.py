"""GitLab Code Quality report: a JSON array of issues, shown in merge requests and pipelines.

Each issue has the fields GitLab documents: ``description``, ``check_name`` (the rule code),
``fingerprint``, ``severity`` and ``location`` (``path`` relative to the project root, and
``lines.begin``/``lines.end``), plus the optional Code Climate ``categories`` and ``content``
(the fix and notes).

GitLab compares fingerprints between the base and the merge request to say which issues are
new or fixed, so the fingerprint hashes the rule code, the path and the knob (the message when
a finding names no knob) but not the line: moving a line must not turn an issue into "fixed" +
"new".  Identical keys get an occurrence number, as GitLab drops repeated fingerprints.

Severity: error -> ``major``, warning -> ``minor``, info -> ``info``.  That is what the common
linters' GitLab formatters do (e.g. eslint-formatter-gitlab); ``critical`` and ``blocker`` are
left to scanners that know about exploitability, which a configuration linter does not.

The JSON is ASCII and defused, as the JSON report's (:mod:`condorcfg.report.json`).
"""
from __future__ import annotations

import hashlib

from condorcfg.report import json_layout
from condorcfg.textsafe import defuse_json

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(result, view) -> str:
    seen: dict[str, int] = {}  # key -> occurrences so far
    used: set[str] = set()      # fingerprints given out
    issues = []
    for finding in result.findings:
        loc = finding.location
        if loc is not None and loc.file:
            path = view.root_path(loc.file)
            begin = max(loc.line or 1, 1)
            end = max(loc.end_line or begin, begin)
        else:  # about the configuration as a whole: GitLab needs a place, so its first file
            path = view.root_path(result.files[0]) if result.files else "."
            begin = end = 1
        issue = {
            "description": view.message(finding, from_root=True, with_roles=True),
            "check_name": finding.code or finding.rule or "condorcfg",
            "fingerprint": _fingerprint(finding, path, view, seen, used),
            "severity": SEVERITY.get(finding.severity, "minor"),
            "location": {"path": path, "lines": {"begin": begin, "end": end}},
            "categories": [_category(finding)],
        }
        body = _body(finding, view)
        if body:
            issue["content"] = {"body": body}
        issues.append(issue)
    return defuse_json(json_layout.dumps(issues, {json_layout.TOP}) + "\n")


def _fingerprint(finding, path: str, view, seen: dict[str, int], used: set[str]) -> str:
    # (places in the message relative to the root: the same in every checkout)
    key = "\0".join((finding.code or "", path, finding.knob or view.message(finding, from_root=True)))
    while True:
        seen[key] = seen.get(key, 0) + 1
        # The first occurrence keeps the plain hash, so a new duplicate changes no existing one.
        text = key if seen[key] == 1 else f"{key}\0{seen[key]}"
        # surrogatepass: a value or an undecodable file name may hold a lone surrogate
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if digest not in used:
            used.add(digest)
            return digest


def _category(finding) -> str:
    """A Code Climate category: security rules, style for advice, bug risk for the rest."""
    if (finding.code or "").upper().startswith("SEC"):
        return "Security"
    return "Style" if finding.severity == "info" else "Bug Risk"


def _body(finding, view) -> str:
    lines = [" ".join(finding.fix.split())] if finding.fix else []
    lines += [f"note: {note}" for note in view.notes(finding, from_root=True)]
    return "\n\n".join(lines)
