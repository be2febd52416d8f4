"""SARIF 2.1.0 report, as GitHub code scanning wants it.

Every rule that ran is described in ``tool.driver.rules`` (summary, rationale, the rendered
rule page as help, default level); each result has a ``ruleId``/``ruleIndex``, a location
whose URI is relative to ``%SRCROOT%`` (the project directory), and a
``partialFingerprints.primaryLocationLineHash`` built from the rule, the file and the text of
the line, so an alert survives lines moving above it.

The JSON is ASCII and defused, as the JSON report's (:mod:`condorcfg.report.json`); a file
name that is not UTF-8 is percent-encoded byte by byte in its URI.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import quote

from condorcfg.report import source_line
from condorcfg.report import json_layout
from condorcfg.textsafe import defuse_json

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def render(result, view) -> str:
    from condorcfg import __version__

    rules = _rules(result, view)
    index = {rule.code: i for i, rule in enumerate(rules)}
    root = Path(view.root).resolve()
    seen: dict[str, int] = {}
    uris: dict[str, tuple[str, bool]] = {}
    results = []
    for finding in result.findings:
        item = {"ruleId": finding.code, "level": _LEVEL.get(finding.severity, "warning"),
                "message": {"text": _message(finding, view)}}
        if finding.code in index:
            item["ruleIndex"] = index[finding.code]
        if finding.roles:  # (the pool roles whose configuration has it)
            item["properties"] = {"roles": list(finding.roles)}
        loc = finding.location or (_fallback(result))
        if loc is not None:
            item["locations"] = [{"physicalLocation": _physical(loc, root, uris)}]
            text = (source_line(loc.file, loc.line) or "").strip() if loc.line else ""
            key = f"{finding.code}\0{_uri(loc.file, root, uris)[0]}\0{text}"
            digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            seen[digest] = seen.get(digest, 0) + 1
            item["partialFingerprints"] = {"primaryLocationLineHash": f"{digest}:{seen[digest]}"}
        results.append(item)
    run = {
        "tool": {"driver": {"name": "condorcfg", "version": __version__, "semanticVersion": __version__,
                            "rules": [_descriptor(r) for r in rules]}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if result.skipped_rules:  # rules that did not run, and why: a clean run is not a checked one
        run["invocations"] = [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [
                {"level": "note", "descriptor": {"id": rule.code},
                 "message": {"text": f"{rule.code} ({rule.name}) did not run: {reason}"}}
                for rule, reason in result.skipped_rules],
        }]
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return defuse_json(json_layout.dumps(log, {"results", "rules"}) + "\n")


def _rules(result, view) -> list:
    """The rules that ran plus any rule a finding names (e.g. the engine's own), ordered by code."""
    chosen = {rule.code: rule for rule in result.rules_run}
    if view.ruleset is not None:
        for finding in result.findings:
            rule = view.ruleset.get(finding.code or "")
            if rule is not None:
                chosen.setdefault(rule.code, rule)
    return [chosen[code] for code in sorted(chosen)]


def _descriptor(rule) -> dict:
    from condorcfg.report.rule_page import render_rule

    return {
        "id": rule.code,
        "name": "".join(word.capitalize() for word in rule.name.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.rationale.split())},
        "help": {"text": " ".join((rule.fix or rule.summary).split()), "markdown": render_rule(rule)},
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.enabled},
        "properties": {"tags": [rule.family, rule.name], "precision": "high"},
    }


def _message(finding, view) -> str:
    text = view.message(finding, from_root=True, with_roles=True)
    for note in view.notes(finding, from_root=True):
        text += f"\nnote: {note}"
    return text


def _uri(file: str, root: Path, known: dict | None = None) -> tuple[str, bool]:
    """(uri, relative-to-root?) for a file; ``known`` remembers answers (resolving a path costs
    system calls, and a report has thousands of findings in a few files)."""
    if known is not None:
        if file not in known:
            known[file] = _uri(file, root)
        return known[file]
    path = Path(file).resolve()
    try:
        # the file name's bytes: os.listdir gives undecodable ones as surrogates, which quote() rejects
        return quote(os.fsencode(path.relative_to(root).as_posix())), True
    except ValueError:
        return path.as_uri(), False


def _physical(loc, root: Path, known: dict | None = None) -> dict:
    uri, relative = _uri(loc.file, root, known)
    artifact = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = "%SRCROOT%"
    physical = {"artifactLocation": artifact}
    if loc.line:
        region = {"startLine": loc.line, "startColumn": max(loc.column, 1)}
        if loc.end_line and loc.end_line >= loc.line:
            region["endLine"] = loc.end_line
        if loc.end_column and (loc.end_line or loc.line) == loc.line and loc.end_column > region["startColumn"]:
            region["endColumn"] = loc.end_column
        physical["region"] = region
    return physical


def _fallback(result):
    """Findings about the configuration as a whole are shown on its first file (GitHub needs a location)."""
    from condorcfg.diagnostics import Location

    return Location(result.files[0], 1, 1) if result.files and os.path.exists(result.files[0]) else None
