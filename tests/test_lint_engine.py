"""The lint engine: selection, suppressions, severity overrides, project config, exit codes, crashes.

Most tests run the engine over a small stand-in Config (``FakeConfig``: plain ``NAME = value``
lines, no macros) with the fixed rules in tests/data/lint_golden/rules, so they test the
engine and not the config reader or the project's rules; the last tests go end to end
through ``condorcfg.load`` and the CLI.
"""
from __future__ import annotations

import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from condorcfg.cli import main
from condorcfg.diagnostics import Diagnostic, Location
from condorcfg.lint import engine
from condorcfg.lint.checks import check
from condorcfg.lint.project import ProjectConfigError, discover
from condorcfg.lint.project import load as load_project
from condorcfg.lint.rules import RuleFileError, load_rules, parse_rule_file

DATA = Path(__file__).parent / "data" / "lint_golden"
PROJECT_RULES = Path(__file__).resolve().parents[1] / "rules"
META_ONLY: Path  # a directory holding only rules/meta.yaml (the engine's own rules), set below
TEST_RULES: list[Path]


@pytest.fixture(scope="session", autouse=True)
def _isolated_rules(tmp_path_factory):
    """The engine's meta rules + the fixed test rules, without the project's other rules."""
    global META_ONLY, TEST_RULES
    META_ONLY = tmp_path_factory.mktemp("meta-rules")
    (META_ONLY / "meta.yaml").write_text((PROJECT_RULES / "meta.yaml").read_text())
    TEST_RULES = [META_ONLY, DATA / "rules"]


@check("tst_crash_when_set")
def _crash_when_set(ctx):
    for definition in ctx.definitions("CRASH"):
        yield ctx.finding("about to crash", at=definition)
        raise RuntimeError("boom")


@check("tst_machine_cpus")
def _machine_cpus(ctx):
    yield ctx.finding(f"cpus={ctx.machine.cpus}", at=Location(ctx.config.files[0], 1, 1))


# ---------------------------------------------------------------- a stand-in Config

@dataclass
class FakeDefinition:
    name: str
    raw: str
    location: Location
    origin: str = "file"
    template: str | None = None
    use_location: Location | None = None
    overrode: "FakeDefinition | None" = None


class FakeConfig:
    """Just enough of the Config contract: NAME = value lines with continuations, no macros."""

    def __init__(self, *paths, diagnostics=()):
        self.files = [str(p) for p in paths]
        self.diagnostics = list(diagnostics)
        self.statements = []
        self.machine = None
        self._history: dict[str, list[FakeDefinition]] = {}
        for path in self.files:
            lines = Path(path).read_text().splitlines()
            index = 0
            while index < len(lines):
                start, text = index, lines[index]
                while text.rstrip().endswith("\\") and index + 1 < len(lines):
                    index += 1
                    text = text.rstrip()[:-1] + lines[index]
                index += 1
                if not text.strip() or text.lstrip().startswith("#") or "=" not in text:
                    continue
                name, raw = (part.strip() for part in text.split("=", 1))
                self.add(FakeDefinition(name, raw, Location(path, start + 1, 1)))

    def add(self, definition):
        history = self._history.setdefault(definition.name.upper(), [])
        definition.overrode = history[-1] if history else None
        history.append(definition)
        return definition

    def names(self):
        return [h[-1].name for h in self._history.values()]

    def source(self, name):
        history = self._history.get(name.upper())
        return history[-1] if history else None

    def history(self, name):
        return list(self._history.get(name.upper(), []))

    def raw(self, name):
        definition = self.source(name)
        return definition.raw if definition else None

    def value(self, name):
        return self.raw(name) or None

    def expand(self, text):
        return text


def write(tmp_path, text, name="condor_config"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def run(path_or_config, **settings):
    ruleset = load_rules(TEST_RULES)
    config = path_or_config if hasattr(path_or_config, "names") else FakeConfig(path_or_config)
    return engine.run(config, settings=engine.LintSettings(**settings), ruleset=ruleset)


def codes(result):
    return [(f.code, f.location.line if f.location else None) for f in result.findings]


# ---------------------------------------------------------------- rules and selection

def test_declarative_rules_point_at_the_value(tmp_path):
    path = write(tmp_path, """\
        HOSTALLOW_WRITE = a.example.org
        ALLOW_WRITE = *
    """)
    result = run(path)
    assert codes(result) == [("TST001", 1), ("TST002", 2)]
    star = result.findings[1]
    assert (star.location.column, star.location.end_column) == (15, 16)
    assert star.message == "ALLOW_WRITE = * lets anyone write"
    assert star.rule == "star-in-allow-write" and star.severity == "warning"


def test_all_definitions_and_override_notes(tmp_path):
    path = write(tmp_path, "ALLOW_WRITE = *\nALLOW_WRITE = *, b.example.org\n")
    result = run(path)
    assert codes(result) == [("TST002", 1), ("TST002", 2)]
    assert any("overrides the earlier ALLOW_WRITE" in note and ":1:1" in note for note in result.findings[1].notes)


def test_template_definitions_point_at_the_use_line(tmp_path):
    path = write(tmp_path, "use SECURITY : Open\n")
    config = FakeConfig(path)
    config.add(FakeDefinition("ALLOW_WRITE", "*", Location("/templates/security.config", 40, 3),
                              origin="template", template="SECURITY:Open", use_location=Location(str(path), 1, 1)))
    result = run(config)
    [finding] = result.findings
    assert finding.location == Location(str(path), 1, 1)
    assert "(set by `use SECURITY:Open`)" in finding.message
    assert any("security.config:40" in note for note in finding.notes)


@pytest.mark.parametrize("settings, expected", [
    ({}, {"TST001", "TST002"}),
    ({"select": ["TST001"]}, {"TST001"}),
    ({"select": ["TST"]}, {"TST001", "TST002"}),               # prefix
    ({"select": ["star-in-allow-write"]}, {"TST002"}),          # slug
    ({"ignore": ["TST002"]}, {"TST001"}),
    ({"select": ["ALL"], "ignore": ["TST00"]}, set()),
])
def test_select_and_ignore(tmp_path, settings, expected):
    path = write(tmp_path, "HOSTALLOW_WRITE = x\nALLOW_WRITE = *\n")
    assert {f.code for f in run(path, **settings).findings} == expected


def test_unknown_selector_is_a_usage_error(tmp_path):
    path = write(tmp_path, "X = 1\n")
    with pytest.raises(engine.LintUsageError, match="names no lint rule"):
        run(path, select=["NOPE"])


def test_severity_override(tmp_path):
    path = write(tmp_path, "ALLOW_WRITE = *\n")
    [finding] = run(path, severity={"star-in-allow-write": "error"}).findings
    assert finding.severity == "error"


def test_crashing_rule_becomes_internal_error_and_others_still_run(tmp_path):
    path = write(tmp_path, "CRASH = 1\nALLOW_WRITE = *\n")
    result = run(path, extend_select=["TST003"])
    by_code = {f.code: f for f in result.findings}
    assert set(by_code) == {"TST003", "TST002", "CFG003"}  # the finding before the crash is kept
    assert "TST003 (crashing-check) crashed: RuntimeError: boom" in by_code["CFG003"].message
    assert by_code["CFG003"].severity == "error"


def test_internal_error_is_reported_even_when_deselected(tmp_path):
    path = write(tmp_path, "CRASH = 1\n")
    result = run(path, select=["TST003"], ignore=["CFG"])
    assert {f.code for f in result.findings} == {"TST003", "CFG003"}


def test_reader_diagnostics_go_to_the_catch_all_rule(tmp_path):
    path = write(tmp_path, "X = 1\n")
    note = Diagnostic("warning", "include command skipped", Location(str(path), 1, 1), code="some-reader-kind")
    result = run(FakeConfig(path, diagnostics=[note]))
    [finding] = result.findings
    assert (finding.code, finding.rule, finding.message) == ("CFG004", "config-diagnostic", "include command skipped")


def test_reader_diagnostics_map_to_rules_claiming_their_kind(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "reader.yaml").write_text(textwrap.dedent("""\
        - code: TST010
          name: command-include
          severity: info
          summary: include command
          rationale: not reproducible
          match: {reader: [command-include]}
          examples: {fail: ["include command : echo X=1\\n"]}
    """))
    path = write(tmp_path, "X = 1\n")
    note = Diagnostic("warning", "not run", Location(str(path), 1, 1), code="command-include")
    result = engine.run(FakeConfig(path, diagnostics=[note]), ruleset=load_rules([META_ONLY, rules]))
    assert [(f.code, f.severity) for f in result.findings] == [("TST010", "info")]


def test_a_check_that_is_not_registered(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "x.yaml").write_text(
        "- {code: TST020, name: missing, severity: info, summary: s, rationale: r, check: no_such_check,\n"
        "   examples: {fail: ['X = 1']}}\n")
    path = write(tmp_path, "X = 1\n")
    result = engine.run(FakeConfig(path), ruleset=load_rules([META_ONLY, rules]))
    [finding] = result.findings
    assert finding.code == "CFG003" and "no_such_check" in finding.message


# ---------------------------------------------------------------- suppressions

def test_line_suppression_covers_the_next_statement_with_continuations(tmp_path):
    path = write(tmp_path, """\
        # condorcfg: ignore[TST002] open on purpose
        # another comment
        ALLOW_WRITE = *, \\
           a.example.org
    """)
    result = run(path)
    assert result.findings == [] and len(result.suppressed) == 1


def test_suppression_by_slug_and_only_next_statement(tmp_path):
    path = write(tmp_path, """\
        # condorcfg: ignore[hostallow-knob]
        HOSTALLOW_READ = x
        HOSTALLOW_WRITE = x
    """)
    assert codes(run(path)) == [("TST001", 3)]


def test_file_suppression(tmp_path):
    path = write(tmp_path, "HOSTALLOW_READ = x\n# condorcfg: ignore-file[TST001] legacy file\nHOSTALLOW_WRITE = x\n")
    result = run(path)
    assert result.findings == [] and len(result.suppressed) == 2


def test_unused_and_invalid_suppressions_are_reported(tmp_path):
    path = write(tmp_path, """\
        # condorcfg: ignore[TST001, TST002]
        ALLOW_WRITE = *
        # condorcfg: ignore[NOPE42]
        X = 1
        # condorcfg: disable TST001
        # condorcfg: ignore[]
        Y = 2
    """)
    findings = run(path).findings
    assert [(f.code, f.location.line, f.location.column) for f in findings] == [
        ("CFG001", 1, 21), ("CFG002", 3, 21), ("CFG002", 5, 14), ("CFG002", 6, 20)]
    assert "TST001" in findings[0].message and "unused" in findings[0].message
    assert "unknown rule 'NOPE42'" in findings[1].message


def test_suppression_of_a_rule_that_did_not_run_is_not_unused(tmp_path):
    path = write(tmp_path, "# condorcfg: ignore[TST001]\nX = 1\n")
    assert run(path, ignore=["TST001"]).findings == []


def test_unsuppressible_rule(tmp_path):
    path = write(tmp_path, "# condorcfg: ignore[CFG003]\nCRASH = 1\n")
    found = {f.code for f in run(path, extend_select=["TST003"]).findings}
    assert found == {"TST003", "CFG003", "CFG002"}


def test_require_reason(tmp_path):
    path = write(tmp_path, "# condorcfg: ignore[TST002]\nALLOW_WRITE = *\n")
    findings = run(path, require_reason=True).findings
    assert [f.code for f in findings] == ["CFG002"] and "no reason" in findings[0].message


def test_a_trailing_comment_is_not_a_suppression(tmp_path):
    # HTCondor keeps "# ..." after a value as part of the value, so this must not suppress anything.
    path = write(tmp_path, "ALLOW_WRITE = * # condorcfg: ignore[TST002]\n")
    assert [f.code for f in run(path).findings] == ["TST002"]


# ---------------------------------------------------------------- rule files

def test_malformed_rule_files_name_file_and_line(tmp_path):
    cases = {
        "- code: POL1\n  name: x\n": (1, "3 capital letters"),
        "- code: POL100\n  name: ok-name\n  severity: fatal\n": (3, "severity"),
        "- code: POL100\n  name: a\n  severity: error\n  summary: s\n  rationale: r\n  bogus: 1\n": (6, "bogus"),
        "- code: POL100\n  name: a\n  severity: error\n  summary: s\n  rationale: r\n"
        "  match: {knob: '('}\n  examples: {fail: [x]}\n": (6, "regular expression"),
        "- code: POL100\n  name: a\n  severity: error\n  summary: s\n  rationale: r\n  check: c\n": (1, "examples"),
        "key: [unclosed\n": (2, "not valid YAML"),
        "just a string\n": (1, "YAML list"),
    }
    for text, (line, words) in cases.items():
        path = tmp_path / "bad.yaml"
        path.write_text(text)
        with pytest.raises(RuleFileError) as info:
            parse_rule_file(path)
        loc = info.value.diagnostic.location
        assert (loc.file, loc.line) == (str(path), line), text
        assert words in info.value.diagnostic.message, text


def test_duplicate_rule_codes(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    entry = "- {code: TST001, name: dup, severity: info, summary: s, rationale: r, check: c, examples: {fail: [x]}}\n"
    (rules / "a.yaml").write_text(entry)
    with pytest.raises(RuleFileError, match="duplicate rule 'TST001'"):
        load_rules([DATA / "rules", rules], use_cache=False)


def test_rule_cache_round_trips(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fresh = load_rules([DATA / "rules"], use_cache=False)
    engine_rules = __import__("condorcfg.lint.rules", fromlist=["x"])
    engine_rules._loaded.clear()
    load_rules([DATA / "rules"])            # writes the cache
    engine_rules._loaded.clear()
    cached = load_rules([DATA / "rules"])   # reads it
    assert list(tmp_path.joinpath("cache", "condorcfg").glob("rules-*.json"))
    assert [vars(r) for r in cached] == [vars(r) for r in fresh]


# ---------------------------------------------------------------- project configuration

def test_project_config_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.condorcfg]
        roots = ["etc/condor_config"]
        select = ["TST"]
        ignore = ["TST001"]
        severity = {TST002 = "error"}
        fail-on = "warning"
        known-knobs = ["SITE_.*"]
        [tool.condorcfg.machine-profiles]
        small = {cpus = 4}
    """))
    (tmp_path / "etc").mkdir()
    project = discover(tmp_path / "etc")
    assert project.roots == [str(tmp_path / "etc" / "condor_config")]
    assert (project.select, project.ignore, project.severity, project.fail_on) == (
        ["TST"], ["TST001"], {"TST002": "error"}, "warning")
    assert project.machine_profiles == {"small": {"cpus": 4}}


def test_project_config_yaml_wins_and_errors_have_lines(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.condorcfg]\nselect = ['X']\n")
    (tmp_path / ".condorcfg.yaml").write_text("select: [TST]\nfail_on: sometimes\n")
    with pytest.raises(ProjectConfigError) as info:
        discover(tmp_path)
    assert info.value.diagnostic.location.line == 2 and "fail-on" in info.value.diagnostic.message
    (tmp_path / ".condorcfg.yaml").write_text("select: [TST]\nselcet: [X]\n")
    with pytest.raises(ProjectConfigError, match="unknown condorcfg setting 'selcet'"):
        load_project(tmp_path / ".condorcfg.yaml")


def test_no_project_config(tmp_path):
    (tmp_path / ".git").mkdir()
    project = discover(tmp_path)
    assert project.path is None and project.roots == []


# ---------------------------------------------------------------- CLI and exit codes

@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """Run `condorcfg lint` in-process in tmp_path with the test rules."""
    monkeypatch.setenv("CONDORCFG_RULES_DIR", os.pathsep.join(map(str, TEST_RULES)))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # stop project discovery here

    def invoke(*args):
        status = main(["lint", *args])
        out, err = capsys.readouterr()
        return status, out, err

    return invoke


def test_exit_codes(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "run", _fake_run)
    write(tmp_path, "ALLOW_WRITE = *\n", "warn.conf")
    write(tmp_path, "HOSTALLOW_READ = x\n", "error.conf")
    write(tmp_path, "X = 1\n", "clean.conf")
    assert cli("clean.conf")[0] == 0
    assert cli("warn.conf")[0] == 1                        # default --fail-on warning
    assert cli("warn.conf", "--fail-on", "error")[0] == 0
    assert cli("error.conf")[0] == 1
    assert cli("error.conf", "--ignore", "TST001")[0] == 0
    assert cli("missing.conf")[0] == 2
    assert cli("clean.conf", "--select", "NOPE")[0] == 2
    assert cli("clean.conf", "--format", "xml")[0] == 2
    status, _, err = cli()
    assert status == 2 and "give config files" in err


def test_project_settings_reach_the_cli(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "run", _fake_run)
    write(tmp_path, "ALLOW_WRITE = *\n", "warn.conf")
    (tmp_path / ".condorcfg.yaml").write_text("roots: [warn.conf]\nfail-on: warning\n")
    status, out, _ = cli()
    assert status == 1 and "TST002" in out
    (tmp_path / ".condorcfg.yaml").write_text("roots: [warn.conf]\nfail-on: [nonsense]\n")
    status, _, err = cli()
    assert status == 2 and ".condorcfg.yaml:2" in err


def test_json_output_and_github_auto_detection(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "run", _fake_run)
    write(tmp_path, "ALLOW_WRITE = *\n", "warn.conf")
    status, out, _ = cli("warn.conf", "--format", "json")
    [item] = json.loads(out)["findings"]
    assert (item["code"], item["file"], item["line"], item["column"], item["end_column"]) == (
        "TST002", "warn.conf", 1, 15, 16)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    status, out, _ = cli("warn.conf")
    assert out.startswith("::warning file=warn.conf,line=1,col=15,endColumn=16,title=TST002 star-in-allow-write::")


_real_run = engine.run


def _fake_run(target, **options):
    """engine.run over FakeConfig (the CLI passes paths; the real reader is tested end to end below)."""
    paths = target if isinstance(target, list) else [target]
    return _real_run(FakeConfig(*paths), **options)


# ---------------------------------------------------------------- end to end through condorcfg.load

def _reader_available() -> bool:
    try:
        import condorcfg.config.reader  # noqa: F401
    except ImportError:
        return False
    return True


def test_end_to_end_with_the_real_reader(cli, tmp_path):
    if not _reader_available():
        pytest.fail("condorcfg.config.reader is not there yet: the end-to-end lint test needs it")
    write(tmp_path, """\
        HOSTALLOW_WRITE = a.example.org
        # condorcfg: ignore[TST002] lab pool
        ALLOW_WRITE = *
        ALLOW_READ = $(ALLOW_WRITE)
    """, "10-security")
    status, out, _ = cli("10-security", "--format", "json", "--select", "TST,CFG")
    assert status == 1
    assert [(f["code"], f["line"]) for f in json.loads(out)["findings"]] == [("TST001", 1)]


def test_literal_knob_patterns_match_any_case(tmp_path):
    path = write(tmp_path, "allow_write = *\nAllow_Write_Extra = *\n")
    assert codes(run(path)) == [("TST002", 1)]


def test_declarative_references_and_parse_with_the_real_reader(tmp_path):
    if not _reader_available():
        pytest.fail("condorcfg.config.reader is not there yet: the end-to-end lint test needs it")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "expr.yaml").write_text(textwrap.dedent("""\
        - code: TST030
          name: job-attr-in-owner
          severity: error
          summary: IS_OWNER refers to a job attribute
          rationale: r
          match: {knob: IS_OWNER, references: "Owner|RequestMemory", scope: target,
                  message: "IS_OWNER refers to {attribute}"}
          examples: {fail: ["IS_OWNER = TARGET.Owner == 1\\n"]}
        - code: TST031
          name: policy-parse
          severity: error
          summary: a policy expression does not parse
          rationale: r
          match: {knob: "START|RANK", parse: fails, message: "{knob} does not parse: {error}"}
          examples: {fail: ["START = (1\\n"]}
    """))
    path = write(tmp_path, """\
        IS_OWNER = KeyboardIdle < 60 || TARGET.Owner == "bob"
        START = (KeyboardIdle > 5
        JOBISH = TARGET.RequestMemory > 10
        RANK = $(JOBISH) &&
    """)
    result = engine.run(str(path), ruleset=load_rules([META_ONLY, rules]))
    found = [(f.code, f.location.line, f.location.column, f.location.end_column, f.message) for f in result.findings]
    assert found[0] == ("TST030", 1, 33, 45, "IS_OWNER refers to TARGET.Owner")
    assert found[1][:3] == ("TST031", 2, 26)  # where the ")" is missing and found[1][4].startswith("START does not parse: ")
    # RANK is written with a macro: the finding covers the value as written.
    assert found[2][:4] == ("TST031", 4, 8, 20) and len(found) == 3
    # a value that cannot be expanded (a macro cycle) is skipped by the matcher, not a crash
    cyclic = write(tmp_path, "START = $(A)\nA = $(B)\nB = $(A)\n")
    crashed = [f for f in engine.run(str(cyclic), ruleset=load_rules([META_ONLY, rules])).findings
               if f.rule == engine.INTERNAL_ERROR]
    assert crashed == []


def test_pre_commit_mode_lints_the_roots_reading_a_changed_file(cli, tmp_path):
    if not _reader_available():
        pytest.fail("condorcfg.config.reader is not there yet: the end-to-end lint test needs it")
    (tmp_path / "etc" / "config.d").mkdir(parents=True)
    write(tmp_path, "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\nHOSTALLOW_READ = x\n", "etc/condor_config")
    write(tmp_path, "DAEMON_LIST = MASTER\n", "etc/config.d/10-base")
    write(tmp_path, "HOSTDENY_WRITE = y\n", "other.conf")
    (tmp_path / ".condorcfg.yaml").write_text("roots: [etc/condor_config]\nselect: [TST, CFG]\n")
    # A change in config.d: the whole root is linted, so its finding in condor_config shows.
    status, out, _ = cli("--pre-commit", "--format", "json", "--", "etc/config.d/10-base")
    assert status == 1 and [(f["file"], f["line"]) for f in json.loads(out)["findings"]] == [("etc/condor_config", 2)]
    # A change to the project settings re-runs it too.
    status, out, _ = cli("--pre-commit", "--format", "json", "--", ".condorcfg.yaml")
    assert status == 1 and len(json.loads(out)["findings"]) == 1
    # A file no root reads is never linted (it may not be HTCondor configuration at all).
    status, out, _ = cli("--pre-commit", "--format", "json", "--", "other.conf")
    assert status == 0 and json.loads(out)["findings"] == []


def test_pre_commit_without_roots_lints_only_htcondor_names(cli, tmp_path):
    write(tmp_path, "ALLOW_WRITE = *\n", "logrotate.conf")
    write(tmp_path, "HOSTALLOW_READ = x\n", "condor_config.local")
    (tmp_path / ".condorcfg.yaml").write_text("select: [TST]\n")
    status, out, _ = cli("--pre-commit", "--format", "json", "--", "logrotate.conf", "condor_config.local")
    assert status == 1 and [f["file"] for f in json.loads(out)["findings"]] == ["condor_config.local"]
    status, out, _ = cli("--pre-commit", "--", "logrotate.conf")
    assert status == 0


def test_file_names_after_double_dash_are_never_options(cli, tmp_path):
    write(tmp_path, "HOSTALLOW_READ = x\n", "condor_config")
    (tmp_path / ".condorcfg.yaml").write_text("roots: [condor_config]\nselect: [TST]\n")
    (tmp_path / "--project=evil.conf").write_text("")
    (tmp_path / "-oreport.conf").write_text("")
    status, out, _ = cli("--pre-commit", "--", "--project=evil.conf", "-oreport.conf", "condor_config")
    assert status == 1 and "TST001" in out and not (tmp_path / "report.conf").exists()


def test_known_site_knobs_reach_the_checks(tmp_path):
    config = FakeConfig(write(tmp_path, "SITE_GPU_MONITOR = 1\n"))
    ctx = engine.LintContext(config, settings=engine.LintSettings(known_knobs=["SITE_.*", "OTHER"]))
    assert ctx.is_site_knob("site_gpu_monitor") and ctx.is_site_knob("OTHER") and not ctx.is_site_knob("OTHERS")
    assert ctx.names_matching("site_gpu_monitor|NOPE") == ["SITE_GPU_MONITOR"]
    assert [d.name for d in ctx.definitions("SITE_.*")] == ["SITE_GPU_MONITOR"]


def test_machine_profiles_from_the_project(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "run", _fake_run)
    write(tmp_path, "X = 1\n", "a.conf")
    (tmp_path / "big.yaml").write_text("cpus: 64\n")
    (tmp_path / ".condorcfg.yaml").write_text(
        "select: [TST004]\nmachine-profiles: {small: {cpus: 3}, big: big.yaml}\n")
    assert "cpus=3" in cli("a.conf", "--machine", "small")[1]
    assert "cpus=64" in cli("a.conf", "--machine", "big")[1]
    status, out, _ = cli("a.conf")  # no profile: the rule does not guess from this host
    assert status == 0 and "cpus=" not in out and "1 rule skipped (need --machine)" in out
    status, _, err = cli("a.conf", "--machine", "nowhere.yaml")
    assert status == 2 and "cannot read the machine profile" in err


def test_malformed_rule_file_is_a_usage_error(cli, tmp_path, monkeypatch):
    rules = tmp_path / "bad-rules"
    rules.mkdir()
    (rules / "x.yaml").write_text("- code: X1\n")
    monkeypatch.setenv("CONDORCFG_RULES_DIR", str(rules))
    write(tmp_path, "X = 1\n", "a.conf")
    status, _, err = cli("a.conf")
    assert status == 2 and f"{rules / 'x.yaml'}:1:" in err and "3 capital letters" in err


def test_config_root_given_twice_lints_both(cli, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write(tmp_path, "HOSTALLOW_READ = x\n", "a/condor_config")
    write(tmp_path, "HOSTDENY_WRITE = y\n", "b/condor_config")
    status, out, _ = cli("--config-root", "a/condor_config", "--config-root", "b/condor_config", "--format", "json",
                         "--select", "TST")
    assert status == 1
    assert sorted(f["file"] for f in json.loads(out)["findings"]) == ["a/condor_config", "b/condor_config"]


def test_one_root_cause_gives_one_finding(tmp_path):
    """An undefined macro that breaks two expressions: one finding, which says what else it breaks;
    and never the advice to quote an expression whose only fault is the empty macro."""
    path = tmp_path / "condor_config"
    path.write_text("STARTD_ATTRS = InRange\nInRange = ( SlotID >= 1 && SlotID <= ($(HI)) )\n"
                    "START = $(InRange) && KeyboardIdle > 60\n")
    findings = engine.run(str(path)).findings
    assert [(f.code, f.location.line) for f in findings] == [("KNB301", 2)]
    [finding] = findings
    assert "because $(HI) expands to nothing" in finding.message and "quote" not in (finding.fix or "")
    assert any("also affects START" in note and "EXP403" in note for note in finding.notes)
    assert any("also affects InRange" in note and "MAC201" in note for note in finding.notes)


def test_a_parse_error_with_another_fault_is_not_blamed_on_the_empty_macro(tmp_path):
    path = tmp_path / "condor_config"
    path.write_text("START = ($(HI)) && KeyboardIdle >\n")
    codes = sorted(f.code for f in engine.run(str(path)).findings)
    assert codes == ["EXP403", "MAC201"]  # two faults: the macro and the dangling `>`


def test_fragment_mode_lists_the_macros_a_fragment_takes_from_elsewhere(tmp_path):
    path = tmp_path / "50-ce.conf"
    path.write_text("START = $(CE_START) && KeyboardIdle > 10\nSTARTD_ATTRS = CEVersion\nX = $(TYPO)\n"
                    "NUM_CPUS = 4 # four\n")
    loose = engine.run(str(path)).findings
    assert {"EXP403", "KNB305", "MAC201"} <= {f.code for f in loose}
    fragment = engine.run(str(path), settings=engine.LintSettings(fragment=True)).findings
    codes = [f.code for f in fragment]
    assert "EXP403" not in codes and "KNB305" not in codes and "MAC201" not in codes
    [summary] = [f for f in fragment if f.code == "CFG009"]
    assert "CE_START" in summary.message and "TYPO" in summary.message and "CEVersion" in summary.message
    assert any("EXP403" in note for note in summary.notes)
    assert "CFG101" in codes  # findings with their own cause are untouched


def test_fragment_is_a_project_setting(tmp_path):
    from condorcfg.lint.project import load

    (tmp_path / ".condorcfg.yaml").write_text("fragment: true\n")
    assert engine.LintSettings.from_project(load(tmp_path / ".condorcfg.yaml")).fragment is True


def test_target_version_is_a_project_setting(tmp_path):
    from condorcfg.lint.project import ProjectConfigError, load

    (tmp_path / ".condorcfg.yaml").write_text("target-version: ['23.0', 25.14.1]\n")
    assert engine.LintSettings.from_project(load(tmp_path / ".condorcfg.yaml")).target_versions == \
        ["23.0.28", "25.14.1"]
    (tmp_path / ".condorcfg.yaml").write_text("target-version: ['8.8']\n")
    with pytest.raises(ProjectConfigError, match="known releases") as info:
        load(tmp_path / ".condorcfg.yaml")
    assert info.value.diagnostic.location.line == 1


def test_a_mixed_pool_is_read_as_its_newest_release(tmp_path):
    path = write(tmp_path, "use SECURITY : recommended\n")
    settings = engine.LintSettings(select=["ALL"], target_versions=["23.0.28", "24.0.24"])
    result = engine.run(str(path), settings=settings, ruleset=load_rules([PROJECT_RULES]))
    assert [f.code for f in result.findings if f.code.startswith("UPG9")] == ["UPG907"]  # 24.0 reads it; 23.0 stops
    only_old = engine.LintSettings(select=["ALL"], target_versions=["23.0.28"])
    result = engine.run(str(path), settings=only_old, ruleset=load_rules([PROJECT_RULES]))
    assert result.fatal and "in HTCondor 23.0.28" in result.findings[0].message


@pytest.mark.parametrize("text, name", [("X = 1", "X"), ("  x  +=  a b", "X"), ("X@=end", "X"), ("X @= end  ", "X"),
                                        ("X @= a b", "X"), ("XY = 1", "X"), ("X : 1", "X"), ("\tX=", "X"),
                                        ("X\u00a0= 1", "X"), ("X ==", "X"), ("", "X")])
def test_value_column_matches_the_regex_it_replaced(text, name):
    import re

    found = re.match(r"\s*" + re.escape(name) + r"\s*(?:(\+?=)\s*|@=\s*\S+\s*$)", text, re.IGNORECASE)
    want = None if not found else ((8, 1) if found.group(1) is None else (7, found.end() + 1))
    assert engine._value_column(text, name, 7) == want


def test_value_column_compares_names_as_htcondor_does():
    """HTCondor compares knob names ASCII-case-insensitively: `ſTART` (long s) is not START (re's
    IGNORECASE, which the old regex used, folds it to S)."""
    assert engine._value_column("ſTART = 1", "START", 1) is None
    assert engine._value_column("ſTART = 1", "ſTART", 1) == (1, 9)


def test_a_declarative_finding_carries_the_facts_its_message_names(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "site.yaml").write_text(textwrap.dedent("""\
        - code: TST040
          name: braces-in-summary
          severity: warning
          summary: "a {literal} brace in the summary"
          rationale: r
          match: {knob: SITE_A}
          examples: {fail: ["SITE_A = 1\\n"]}
        - code: TST041
          name: value-named
          severity: warning
          summary: s
          rationale: r
          match: {knob: SITE_B, message: "{knob} is {value} (braces {{ stay }})"}
          examples: {fail: ["SITE_B = 1\\n"]}
    """))
    path = write(tmp_path, "SITE_A = {x}\nSITE_B = {y}\n")
    first, second = engine.run(str(path), ruleset=load_rules([META_ONLY, rules])).findings
    assert first.message == "a {literal} brace in the summary" and first.facts() == {}
    assert second.message == "SITE_B is {y} (braces { stay })"
    assert second.facts() == {"knob": "SITE_B", "value": "{y}"}  # only what the message names
