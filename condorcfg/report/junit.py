"""JUnit XML report, the test-result format CI servers (Jenkins, GitLab, Azure, ...) all read.

``<testsuites>`` holds one ``<testsuite name="condorcfg">``; each finding is a failed
``<testcase>`` (``classname`` the file, ``name`` "CODE slug at file:line:col") whose
``<failure type="severity" message="...">`` carries the message, notes and fix as text.  Each
file read without a finding is a passing testcase named after the file, so dashboards show
what was checked, not only what failed.

The XML is built with ElementTree (it escapes markup); characters XML 1.0 cannot hold at all
(control characters other than tab and newline, lone surrogates) become U+FFFD first, since
ElementTree would write them and every parser would then reject the file.
"""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

# Not allowed in XML 1.0 (C0 controls but tab/newline; CR is folded into newline first),
# or allowed but discouraged and never meant in a message (DEL, C1 controls).
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _clean(text) -> str:
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    return _INVALID.sub("\ufffd", text)


def render(result, view) -> str:
    fallback = view.display_path(result.files[0]) if result.files else "condorcfg"
    cases = []
    flagged = set()  # files with a finding: they get no passing testcase
    for finding in result.findings:
        loc = finding.location
        title = " ".join(part for part in (finding.code, finding.rule) if part) or finding.severity
        if loc is not None and loc.file:
            path = view.display_path(loc.file)
            flagged.add(os.path.realpath(loc.file))
            where = f"{path}:{loc.line}:{loc.column}" if loc.line else path
            case = ET.Element("testcase", classname=_clean(path), name=_clean(f"{title} at {where}"))
        else:  # about the configuration as a whole
            case = ET.Element("testcase", classname=_clean(fallback), name=_clean(title))
        failure = ET.SubElement(case, "failure", type=finding.severity, message=_clean(finding.message))
        lines = [finding.message, *(f"note: {note}" for note in finding.notes)]
        if finding.fix:
            lines.append(f"help: {' '.join(finding.fix.split())}")
        failure.text = _clean("\n".join(lines))
        cases.append(case)
    failures = len(cases)
    for file in result.files:
        if os.path.realpath(file) not in flagged:
            path = _clean(view.display_path(file))
            cases.append(ET.Element("testcase", classname=path, name=path))

    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", name="condorcfg", **counts)
    suite = ET.SubElement(root, "testsuite", name="condorcfg", **counts, skipped="0")
    suite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
