"""Report formats beyond their goldens (tests/test_reports.py): the JSON object's shape, what
GitLab Code Quality and JUnit readers need, ``--statistics`` and quiet text, and every format on
the awkward inputs (no findings, no location, a file outside the project root).
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from condorcfg.diagnostics import Diagnostic, Location
from condorcfg.lint import engine
from condorcfg.report import FORMATS, ReportView, render
from condorcfg.report.statistics import render as statistics
from test_lint_engine import DATA
from test_reports import _render, report_inputs  # noqa: F401  (report_inputs is a fixture)


def _finding(code="KNB303", line=3, severity="warning", file=None, knob="FOO", message="unknown knob FOO",
             **kw):
    location = Location(file, line, 1, line, 4) if file else None
    return Diagnostic(severity, message, location, code=code, rule=kw.pop("rule", "unknown-knob"), knob=knob,
                      **kw)


def _gitlab(result, root) -> list:
    return json.loads(render("gitlab", result, ReportView(root=str(root))))


# ---------------------------------------------------------------- json

def test_json_is_one_object_describing_the_run(tmp_path, monkeypatch):
    from condorcfg import __version__

    monkeypatch.chdir(tmp_path)
    conf = str(tmp_path / "condor_config")
    skipped = SimpleNamespace(code="SLT101", name="slot-overcommit")
    result = engine.LintResult(findings=[_finding(file=conf), _finding(code="CFG003", knob=None)],
                               suppressed=[_finding(file=conf)], files=[conf],
                               rules_run=[SimpleNamespace(code="KNB303"), SimpleNamespace(code="CFG003")],
                               skipped_rules=[(skipped, "needs --machine")], baselined=[_finding(file=conf)])
    report = json.loads(render("json", result, ReportView(root=str(tmp_path))))
    assert report["tool"] == {"name": "condorcfg", "version": __version__}
    assert report["counts"] == {"error": 0, "warning": 2, "info": 0, "suppressed": 1, "baselined": 1,
                                "hidden_by_settings": 0}
    assert report["files"] == ["condor_config"]  # relative to the current directory, as in findings
    assert report["rules_run"] == ["CFG003", "KNB303"]
    assert report["skipped_rules"] == [{"code": "SLT101", "rule": "slot-overcommit", "reason": "needs --machine"}]
    assert report["fatal"] is False
    first, no_location = report["findings"]
    assert first["knob"] == "FOO" and first["line"] == 3 and first["file"] == "condor_config"
    assert no_location["file"] is None and no_location["line"] is None


# ---------------------------------------------------------------- gitlab

def test_gitlab_issues_have_what_gitlab_needs(report_inputs, monkeypatch):
    issues = json.loads(_render("gitlab", report_inputs, monkeypatch))
    assert isinstance(issues, list) and len(issues) == 4
    for issue in issues:
        assert isinstance(issue["description"], str) and issue["description"]
        assert isinstance(issue["check_name"], str) and issue["check_name"]
        assert isinstance(issue["fingerprint"], str) and len(issue["fingerprint"]) == 64
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert issue["location"]["path"] == "config/condor_config"
        lines = issue["location"]["lines"]
        assert isinstance(lines["begin"], int) and lines["begin"] >= 1 and lines["end"] >= lines["begin"]
        assert set(issue) <= {"description", "check_name", "fingerprint", "severity", "location",
                              "categories", "content"}
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    assert [issue["severity"] for issue in issues] == ["major", "minor", "minor", "minor"]


def test_gitlab_fingerprint_survives_lines_moving(tmp_path):
    conf = str(tmp_path / "condor_config")
    before = _gitlab(engine.LintResult(findings=[_finding(file=conf, line=3)]), tmp_path)
    after = _gitlab(engine.LintResult(findings=[_finding(file=conf, line=40)]), tmp_path)
    assert before[0]["fingerprint"] == after[0]["fingerprint"]
    assert after[0]["location"] == {"path": "condor_config", "lines": {"begin": 40, "end": 40}}
    other_knob = _gitlab(engine.LintResult(findings=[_finding(file=conf, knob="BAR")]), tmp_path)
    assert other_knob[0]["fingerprint"] != before[0]["fingerprint"]


def test_gitlab_duplicates_get_distinct_fingerprints_and_the_first_is_unchanged(tmp_path):
    conf = str(tmp_path / "condor_config")
    single = _gitlab(engine.LintResult(findings=[_finding(file=conf, line=3)]), tmp_path)
    twice = _gitlab(engine.LintResult(findings=[_finding(file=conf, line=3), _finding(file=conf, line=9)]),
                    tmp_path)
    assert twice[0]["fingerprint"] == single[0]["fingerprint"] != twice[1]["fingerprint"]


def test_gitlab_locations_without_a_place_or_outside_the_root(tmp_path):
    conf = str(tmp_path / "project" / "condor_config")
    (tmp_path / "project").mkdir()
    outside = "/etc/condor/condor_config.local"
    result = engine.LintResult(findings=[_finding(code="CFG003", knob=None),
                                         _finding(file=outside, code="SEC201", severity="error"),
                                         _finding(file=conf, severity="info", line=0)],
                               files=[conf])
    first, second, third = _gitlab(result, tmp_path / "project")
    assert first["location"] == {"path": "condor_config", "lines": {"begin": 1, "end": 1}}
    assert second["location"]["path"] == outside
    assert second["categories"] == ["Security"] and second["severity"] == "major"
    assert third["categories"] == ["Style"] and third["severity"] == "info"
    assert third["location"]["lines"] == {"begin": 1, "end": 1}
    [nowhere] = _gitlab(engine.LintResult(findings=[_finding(knob=None)]), tmp_path)
    assert nowhere["location"]["path"] == "."


# ---------------------------------------------------------------- junit

def test_junit_parses_and_counts(report_inputs, monkeypatch):
    root = ET.fromstring(_render("junit", report_inputs, monkeypatch))
    assert root.tag == "testsuites"
    [suite] = root
    assert suite.get("name") == "condorcfg"
    cases = suite.findall("testcase")
    assert suite.get("tests") == str(len(cases)) == "4"
    assert suite.get("failures") == "4" and suite.get("errors") == "0"
    first = cases[0]
    assert first.get("classname") == "config/condor_config"
    assert first.get("name") == "TST001 hostallow-knob at config/condor_config:2:19"
    failure = first.find("failure")
    assert failure.get("type") == "error"
    assert failure.get("message") == "HOSTALLOW_WRITE is no longer read by HTCondor"
    assert "help: Rename it to the matching ALLOW_* knob." in failure.text


def test_junit_lists_clean_files_and_survives_bad_characters(tmp_path):
    bad, clean = str(tmp_path / "bad.conf"), str(tmp_path / "clean.conf")
    nasty = "bell\x07 escape\x1b[0m cr\r\nnul\x00 <tag> & \"quote\" tab\tend \ud800"
    result = engine.LintResult(findings=[_finding(file=bad, message=nasty, notes=["n\x0cote"]),
                                         _finding(code="CFG003", knob=None)],
                               files=[bad, clean])
    text = render("junit", result, ReportView(root=str(tmp_path)))
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text)
    suite = ET.fromstring(text.encode("utf-8"))[0]
    cases = suite.findall("testcase")
    assert [case.find("failure") is not None for case in cases] == [True, True, False]
    assert suite.get("tests") == "3" and suite.get("failures") == "2"
    message = cases[0].find("failure").get("message")
    assert "<tag> & \"quote\" tab\\tend" in message and "cr\\r\\nnul\\x00" in message and message.endswith("\\ud800")
    assert cases[1].get("name") == "CFG003 unknown-knob"  # no location: on the first file
    assert cases[1].get("classname").endswith("bad.conf")
    assert cases[2].get("name") == cases[2].get("classname") and cases[2].get("name").endswith("clean.conf")


# ---------------------------------------------------------------- statistics

def test_statistics_counts_per_rule_most_frequent_first():
    findings = ([_finding(code="KNB303")] * 12 + [_finding(code="POL501", rule="preempt", severity="error")] * 3
                + [_finding(code="AAA001", rule="a", severity="info")] * 3)
    text = statistics(engine.LintResult(findings=findings, files=["x"]), ReportView())
    assert text.splitlines() == [
        "  12  KNB303  unknown-knob  [warning]",
        "   3  AAA001  a             [info]",
        "   3  POL501  preempt       [error]",
        "Found 18 findings (3 errors, 12 warnings, 3 info) in 1 file.",
    ]
    from condorcfg.report import render as by_format

    with pytest.raises(ValueError):
        by_format("statistics", engine.LintResult(findings=[]), ReportView())
    assert "statistics" not in FORMATS


def test_statistics_with_nothing_found():
    assert statistics(engine.LintResult(findings=[], files=["a", "b"]), ReportView()) == "No findings in 2 files.\n"


# ---------------------------------------------------------------- quiet text

def test_quiet_text_keeps_findings_and_drops_summary_and_docs(report_inputs, monkeypatch):
    result, ruleset = report_inputs
    monkeypatch.chdir(DATA)
    loud = render("text", result, ReportView(ruleset=ruleset, root=str(DATA)))
    quiet = render("text", result, ReportView(ruleset=ruleset, root=str(DATA), quiet=True))
    kept = [line for line in loud.splitlines() if "= docs:" not in line and not line.startswith("Found ")]
    assert quiet.splitlines() == kept
    assert " 3 | ALLOW_WRITE = *" in quiet and "= help:" in quiet and quiet.endswith("\n")
    assert render("text", engine.LintResult(findings=[], files=["a"]), ReportView(quiet=True)) == ""


# ---------------------------------------------------------------- every format, awkward inputs

@pytest.mark.parametrize("fmt", [*FORMATS, "statistics"])
def test_every_report_handles_empty_missing_and_outside_locations(fmt, tmp_path):
    def run(result):
        view = ReportView(root=str(tmp_path / "project"))
        return statistics(result, view) if fmt == "statistics" else render(fmt, result, view)

    assert isinstance(run(engine.LintResult(findings=[])), str)
    assert isinstance(run(engine.LintResult(findings=[], files=[str(tmp_path / "c")])), str)
    odd = engine.LintResult(findings=[_finding(knob=None, notes=["about everything"]),
                                      _finding(file="/elsewhere/condor_config", fix="do it")],
                            files=["/elsewhere/condor_config"])
    text = run(odd)
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(text)
    elif fmt == "junit":
        ET.fromstring(text)
    if fmt not in ("sarif", "statistics"):
        assert "/elsewhere/condor_config" in text  # outside the root: the path as given


# --- JSON layout: indented, one record per line, same data as json.dumps -------------------------

def _json_values():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.sampled_from(["findings", "a", "b\n", "é"]), inner, max_size=4),
                        max_leaves=25)


def test_json_layout_keeps_the_data_and_puts_each_record_on_one_line():
    from hypothesis import given, settings

    from condorcfg.report import json_layout

    @settings(max_examples=300, deadline=None)
    @given(_json_values())
    def check(value):
        text = json_layout.dumps(value, {"findings"})
        assert json.loads(text) == value
        assert text.isascii()
        if isinstance(value, dict) and isinstance(value.get("findings"), list):
            lines = text.split("\n")
            for item in value["findings"]:
                assert any(line.strip().rstrip(",") == json.dumps(item, ensure_ascii=True) for line in lines)

    check()


def test_a_large_json_report_is_written_in_linear_time():
    import time

    from condorcfg.report import json_layout

    finding = {"code": "KNB303", "message": "x" * 100, "notes": [], "line": 1}
    sizes = []
    for count in (20_000, 80_000):
        start = time.process_time()
        json_layout.dumps({"findings": [dict(finding, line=i) for i in range(count)]}, {"findings"})
        sizes.append(time.process_time() - start)
    assert sizes[1] < 8 * sizes[0] + 0.2


def test_skipped_rules_are_listed_in_every_format_that_has_room(tmp_path):
    """A rule that did not run (no --machine, not the whole configuration) is said to have been skipped:
    a clean report is not a checked configuration.  (GitLab's Code Quality format is a bare list of
    issues: it has no place for it.)"""
    path = tmp_path / "condor_config"
    path.write_text("NUM_SLOTS = 4\n")
    result = engine.run(str(path))
    skipped = {rule.code for rule, _reason in result.skipped_rules}
    assert "SLT604" in skipped
    view = ReportView(root=str(tmp_path))
    text = render("text", result, view)
    assert "skipped (need --machine" in text or "need --machine" in text
    data = json.loads(render("json", result, view))
    assert {item["code"] for item in data["skipped_rules"]} == skipped
    sarif = json.loads(render("sarif", result, view))
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert {n["descriptor"]["id"] for n in notes} == skipped
    suite = ET.fromstring(render("junit", result, view)).find("testsuite")
    assert suite.get("skipped") == str(len(skipped))
    assert {case.get("name").split()[0] for case in suite if case.find("skipped") is not None} == skipped
    assert "need --machine" in render("github", result, view)
