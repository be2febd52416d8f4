"""JUnit XML report, the test-result format CI servers (Jenkins, GitLab, Azure, ...) all read.

``<testsuites>`` holds one ``<testsuite name="condorcfg">``; each finding is a failed
``<testcase>`` (``classname`` the file, ``name`` "CODE slug at file:line:col") whose
``<failure type="severity" message="...">`` carries the message, notes and fix as text.  Each
file read without a finding is a passing testcase named after the file, so dashboards show
what was checked, not only what failed.

The XML is built with ElementTree (it escapes markup).  Every piece of text is made
:func:`~condorcfg.textsafe.printable` first: besides keeping CI logs and terminals safe when
the report is printed, that removes every character XML 1.0 cannot hold (control characters,
lone surrogates, U+FFFE/U+FFFF), which ElementTree would write and every parser then reject.
The only raw line breaks are the report's own, between the message, its notes and the fix.
The document is defused (:func:`~condorcfg.textsafe.defuse_xml`) with character references,
so its data is unchanged.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from condorcfg.textsafe import defuse_xml, printable


def _clean(text) -> str:
    return printable(str(text))


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
        failure = ET.SubElement(case, "failure", type=_clean(finding.severity), message=_clean(view.message(finding, with_roles=True)))
        lines = [view.message(finding, with_roles=True), *(f"note: {note}" for note in view.notes(finding))]
        if finding.fix:
            lines.append(f"help: {' '.join(finding.fix.split())}")
        failure.text = "\n".join(_clean(line) for line in lines)
        cases.append(case)
    failures = len(cases)
    for file in result.files:
        if os.path.realpath(file) not in flagged:
            path = _clean(view.display_path(file))
            cases.append(ET.Element("testcase", classname=path, name=path))

    for rule, reason in result.skipped_rules:  # a rule that did not run is a skipped test, not a passed one
        case = ET.Element("testcase", classname="condorcfg.rules", name=_clean(f"{rule.code} {rule.name}"))
        ET.SubElement(case, "skipped", message=_clean(reason))
        cases.append(case)
    skipped = len(result.skipped_rules)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", name="condorcfg", **counts)
    suite = ET.SubElement(root, "testsuite", name="condorcfg", **counts, skipped=str(skipped))
    suite.extend(cases)
    ET.indent(root)
    return defuse_xml('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")
