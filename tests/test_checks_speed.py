"""Lint speed work (issue #5) must not change findings: the fast paths agree with the slow ones.

Also the engine fixes made with it: a macro cycle never crashes a rule through
``LintContext.expanded``, its cache is not keyed by object identity, paths inside messages
print like the finding's own location, and only the enabled rules' check modules are imported.
"""
from __future__ import annotations

import difflib
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

import condorcfg
from condorcfg.config.macros import references
from condorcfg.config.model import Definition
from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location
from condorcfg.lint import engine, knowledge
from condorcfg.lint.checks import _util
from condorcfg.lint.knowledge import _close_matches

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "etc" / "condor_config"


# ------------------------------------------------------------------ fast paths = slow paths

_PIECES = ["$(", ")", "$", "A", "b_1", ":", "x", " ", "DOLLAR", "dollar", "$$(", "$ENV(", "$INT(", "(", ".", "/",
           ",", "-", "\\", '"', "9", "$(X)", "$(Y:d)", "$(Z:)", "$(A:b c,d)", "$(Q:/x\\y:z)", "#", "\t", "é"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_macro_references_fast_path_agrees_with_the_reader(text):
    want = [(r.name, r.default, r.start, r.end) for r in references(text)]
    assert [(r.name, r.default, r.start, r.end) for r in _util.macro_references(text)] == want


def _typos(count: int, seed: int) -> list[str]:
    names = sorted(knowledge.load()._spellings)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        word = list(rng.choice(names))
        for _ in range(rng.randint(0, 3)):
            at = rng.randrange(len(word))
            roll = rng.random()
            if roll < 0.4:
                word[at] = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
            elif roll < 0.7 and len(word) > 1:
                del word[at]
            else:
                word.insert(at, rng.choice("AEIOU_S"))
        out.append("".join(word))
    return out + [f"SITE_PATH_{i}" for i in range(50)] + ["", "_", "A__B", "X" * 60]


def test_close_matches_equal_difflib():
    kb = knowledge.load()
    letters: dict = {}
    for word in _typos(250, seed=5):
        candidates = sorted(kb._spellings)[len(word) % 4:: 4]
        assert _close_matches(word, candidates, 3, letters) == difflib.get_close_matches(word, candidates, 3, 0.8), word


def test_suggestions_are_remembered_and_not_shared_mutably():
    kb = knowledge.load()
    first = kb.suggest("NEGOTIATOR_INTERVL")
    first.append("junk")
    assert kb.suggest("NEGOTIATOR_INTERVL")[0] == "NEGOTIATOR_INTERVAL"
    assert "junk" not in kb.suggest("NEGOTIATOR_INTERVL")


def _names_from_patterns(entries, count: int, seed: int) -> list[str]:
    """Names made of the patterns' own words (so many match), plus odd spellings."""
    import re

    words = sorted({w for e in entries for w in re.findall(r"[A-Za-z]+", e["pattern"])} | {"_", "1", "22", "x"})
    rng = random.Random(seed)
    names = ["_".join(rng.choice(words) for _ in range(rng.randint(1, 5))) for _ in range(count)]
    names += ["".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(count)]
    return names + [n.lower() for n in names[:50]] + ["ſEC_X", "SLOT1_X", "STARTD.SLOT_TYPE_1", ""]


def test_family_and_obsolete_lookups_match_the_pattern_lists():
    import re

    kb = knowledge.load()
    families = kb._families()  # the family patterns with {SUBSYS} filled in
    for entries, lookup in ((families.entries, families.first), (kb._obsolete_list, kb.obsolete)):
        for name in _names_from_patterns(entries, 1500, seed=len(entries)):
            first = next((e for e in entries if re.fullmatch(e["pattern"], name, re.IGNORECASE)), None)
            assert lookup(name) == first, name


def test_needle_filtered_lookup_agrees_with_trying_every_pattern():
    """Patterns are tried only when the name holds their required literal: the answers must be those
    of trying every pattern in order."""
    import re

    from condorcfg.lint.knowledge import _Patterns

    kb = knowledge.load()
    for entries in (kb._families().entries, kb._obsolete_list):
        names = _names_from_patterns(entries, 400, seed=7)
        want = [next((e for e in entries if re.fullmatch(e["pattern"], n, re.IGNORECASE)), None) for n in names]
        patterns = _Patterns(entries)
        assert [patterns.first(n) for n in names] == want


def test_unknown_names_are_looked_up_fast():
    """20,000 distinct unknown names (a generated or hostile configuration) against the manual's families."""
    import time

    from condorcfg.lint.knowledge import Knowledge

    kb = knowledge.load()
    fresh = Knowledge({"families": kb._family_list, "subsystems": sorted(kb.subsystems)}, {}, {})
    started = time.process_time()
    assert not any(fresh.family(f"MY_UNKNOWN_KNOB_{i}") for i in range(20_000))
    assert time.process_time() - started < 1.0


class _Counted:
    """A compiled pattern that notes each time it is run (``runs``)."""

    def __init__(self, pattern, runs: list):
        self.pattern, self.runs = pattern, runs

    def fullmatch(self, text):
        self.runs.append(self.pattern.pattern)
        return self.pattern.fullmatch(text)

    def search(self, text):
        self.runs.append(self.pattern.pattern)
        return self.pattern.search(text)

    def match(self, text):
        self.runs.append(self.pattern.pattern)
        return self.pattern.match(text)


def _counting_patterns(monkeypatch, runs: list):
    """Every pattern the knowledge module compiles from now on counts its runs in ``runs``."""
    import re
    import types

    from condorcfg.lint import knowledge as module

    shim = types.SimpleNamespace(compile=lambda pattern, flags=0: _Counted(re.compile(pattern, flags), runs),
                                 escape=re.escape, IGNORECASE=re.IGNORECASE)
    monkeypatch.setattr(module, "re", shim)
    monkeypatch.setattr(module, "_PER_SLOT", _Counted(module._PER_SLOT, runs))
    return module


def test_an_unknown_name_costs_a_fixed_number_of_regex_runs(monkeypatch):
    """90,000 unknown knobs (a generated configuration): each name runs a few regexes, however many family and
    obsolete patterns lack a required literal - the count of runs, not the clock, so this cannot flake."""
    kb = knowledge.load()
    runs: list = []
    module = _counting_patterns(monkeypatch, runs)
    fresh = module.Knowledge({"families": kb._family_list, "obsolete": kb._obsolete_list,
                              "subsystems": sorted(kb.subsystems)}, {}, {})
    names = [f"K{i}" for i in range(2000)] + [f"X{i}_Y" for i in range(2000)]
    for name in names:
        assert not fresh.is_known_knob(name) and fresh.obsolete(name) is None
    # per name: the per-slot form; for families and for obsolete knobs, a search for any required literal and
    # one alternation of the patterns that have none (before: a run for each of those patterns, 11 in all)
    assert len(runs) <= 5 * len(names)
    runs.clear()
    for name in names:  # answers are remembered
        fresh.obsolete(name)
    assert runs == []


def test_patterns_without_a_required_literal_cost_one_run_and_keep_their_order(monkeypatch):
    runs: list = []
    module = _counting_patterns(monkeypatch, runs)
    entries = [{"pattern": f"P{i}_.+|Q{i}"} for i in range(50)]  # (a top-level `|`: no required literal)
    entries += [{"pattern": "P7_A.*"}, {"pattern": "P7_AB|Q7"}]  # overlap the seventh: the first match wins
    patterns = module._Patterns(entries)
    assert patterns.first("UNKNOWN") is None
    assert len(runs) == 2  # one search for the required literals ("P7_A"), one alternation of the 51 without
    assert patterns.first("P7_ABC") is entries[7] and patterns.first("q7") is entries[7]
    assert patterns.first("P49_x") is entries[49] and patterns.first("P50_x") is None
    assert patterns.first("ſ7") is None  # (not ASCII: every pattern is tried, with the same answer)


def _trailing_comment_offset_slowly(raw: str):
    quoted, previous = False, " "
    for index, char in enumerate(raw):
        if char == '"' and previous != "\\":
            quoted = not quoted
        elif char == "#" and not quoted and previous in " \t" and index > 0:
            return index
        previous = char
    return None


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(["#", " ", "\t", "a", '"', "\\", "$(X)", "##", " #"]), max_size=12).map("".join))
def test_trailing_comment_offset_short_cut_agrees_with_the_walk(raw):
    assert _util.trailing_comment_offset(raw) == _trailing_comment_offset_slowly(raw)


def _finish_by_hashing(findings, files):
    """How _finish removed copies before: a set of (code, place, message), then a stable sort."""
    order = {file: i for i, file in enumerate(files)}
    seen, kept = set(), []
    for finding in findings:
        key = (finding.code, finding.location, finding.message)
        if key not in seen:
            seen.add(key)
            kept.append(finding)

    def sort_key(finding):
        loc = finding.location
        if loc is None:
            return (-1, "", 0, 0, finding.code or "")
        return (order.get(loc.file, len(order)), loc.file, loc.line, loc.column, finding.code or "")

    return sorted(kept, key=sort_key)


def test_finish_removes_the_same_copies_in_the_same_order():
    rng = random.Random(11)
    files = ["b", "a"]
    findings = []
    for _ in range(3000):
        where = rng.choice([None, Location(rng.choice(files + ["c"]), rng.randint(1, 4), rng.randint(1, 2),
                                           rng.choice([None, 3]), rng.choice([None, 9]))])
        findings.append(Diagnostic("warning", rng.choice(["m", "n", "o"]), where, code=rng.choice(["A1", "B2", None])))
    want = _finish_by_hashing(findings, files)
    got = engine._finish(findings, engine.LintSettings(), [], files)
    assert [id(f) for f in got] == [id(f) for f in want]


def test_findings_past_the_cap_counted_by_their_place_report_what_whole_findings_would(tmp_path, monkeypatch):
    """Past MAX_FINDINGS_PER_RULE a check may yield ctx.place(...) instead of a finding (ctx.counting): every
    report is the same as when it makes each finding in full."""
    from condorcfg.report import ReportView, render

    monkeypatch.setattr(engine, "MAX_FINDINGS_PER_RULE", 5)
    path = _write(tmp_path, "".join(f"K{i} = v # c\nL{i} : w # d\n" for i in range(12)))
    settings = engine.LintSettings(select=["KNB303", "CFG101", "CFG102"])

    def reports():
        result = engine.run(path, settings=settings)
        return [render(fmt, result, ReportView(root=str(tmp_path))) for fmt in ("text", "json", "sarif")]

    counted = reports()
    assert "19 more KNB303" in counted[0] and "19 more CFG101" in counted[0]
    monkeypatch.setattr(engine.LintContext, "counting", property(lambda self: False, lambda self, value: None),
                        raising=False)  # (the checks then make every finding in full)
    assert reports() == counted


def test_place_is_where_the_finding_points(tmp_path):
    path = _write(tmp_path, "use FEATURE : GPUs\nX = 1\nY = a # b\n")
    config = condorcfg.load(path, environ={"_CONDOR_Z": "3"})
    ctx = engine.LintContext(config)
    names = [n for n in ctx.names() if config.source(n).origin in ("template", "env", "file")]
    assert {config.source(n).origin for n in names} == {"template", "env", "file"}
    for name in names:
        definition = config.source(name)
        for span in (None, (3, 5, 3, 8)):
            assert ctx.place(definition, span) == ctx.finding("m", at=definition, span=span).location, name
    assert ctx.place(Location(path, 2)) == Location(path, 2) and ctx.place(None) is None


def test_required_literal_is_required():
    from condorcfg.lint.knowledge import _required_literal

    assert _required_literal("SLOT_TYPE_\\d+(_.+)?") == "SLOT_TYPE_"
    assert _required_literal("(.+_)?SEC_.+") == "SEC_"
    assert _required_literal("GLEXEC_.+|GLEXEC") is None  # alternatives at the top: nothing is required
    assert _required_literal("AB?C") in ("A", "C") and _required_literal("A[)|]BCD(E|F)") == "BCD"


# ------------------------------------------------------------------ engine fixes

def _write(tmp_path, text: str) -> str:
    path = tmp_path / "condor_config"
    path.write_text(text)
    return str(path)


def test_macro_cycle_crashes_no_rule(tmp_path):
    """Declarative matchers with `expanded: true` and every check see "" for a value in a cycle."""
    path = _write(tmp_path, "A = $(B)\nB = $(A)\nSTART = $(A)\nHOSTALLOW_WRITE = $(A) *\nALLOW_WRITE = $(B)\n"
                            "SEC_DEFAULT_AUTHENTICATION_METHODS = $(A)\nIS_OWNER = $(A)\nSTARTD_ATTRS = A\n")
    result = engine.run(path, settings=engine.LintSettings(select=["ALL"]))
    internal = [f for f in result.findings if f.rule == engine.INTERNAL_ERROR]
    assert internal == []
    assert any(f.rule == "macro-cycle" for f in result.findings)


def test_expanded_is_none_for_a_cycle_and_remembers_the_failure(tmp_path):
    config = condorcfg.load(_write(tmp_path, "A = $(B)\nB = $(A)\n"))
    calls = []

    class Counting:
        def __getattr__(self, name):
            return getattr(config, name)

        def value(self, name):
            calls.append(name)
            return config.value(name)

    ctx = engine.LintContext(Counting())
    assert ctx.expanded(ctx.config.source("A")) is None
    for _ in range(3):
        try:
            ctx.config.value("A")
        except CondorcfgError:
            pass
        else:
            raise AssertionError("a cycle must raise CondorcfgError")
    assert calls == ["A"]  # computed once, the error re-raised from memory


class _RebuildingConfig:
    """A Config stand-in whose source() builds a fresh Definition on every call, like built-in defaults."""

    files: list = []
    statements: list = []
    diagnostics: list = []

    def names(self):
        return []

    def source(self, name):
        return Definition(name, f"raw-{name}", Location("<default>"), origin="default")

    def value(self, name):
        return f"value-{name}"

    def expand(self, text):
        return f"expanded-{text}"


def test_expanded_is_keyed_by_what_is_expanded_not_by_object_identity():
    config = _RebuildingConfig()
    ctx = engine.LintContext(config)
    for i in range(200):  # fresh objects, dropped at once: their ids are reused
        name = f"KNOB_{i}"
        # a built-in default is its raw text expanded (the effective value of a file knob is config.value)
        assert ctx.expanded(config.source(name)) == f"expanded-raw-{name}"
        other = Definition(name, f"older-{i}", Location("f", 1), origin="file")
        assert ctx.expanded(other) == f"expanded-older-{i}"


def test_places_in_messages_are_written_by_each_report(monkeypatch, tmp_path):
    """A finding keeps the places it names as facts; each report writes them as it writes paths."""
    import json

    from condorcfg.report import ReportView, render

    tree = tmp_path / "pool" / "etc"
    (tree / "config.d").mkdir(parents=True)
    (tree / "condor_config").write_text("LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\n")
    (tree / "config.d" / "30-policy").write_text("# policy\n\n\n\nuse POLICY : Preempt_If_Memory_Exceeded\n"
                                                 "MAXJOBRETIREMENTTIME = 4 * $(HOUR)\n")
    monkeypatch.chdir(tmp_path / "pool")
    result = engine.run(str(tree / "condor_config"))
    discarded = [f for f in result.findings if f.rule == "template-contribution-discarded"]
    assert discarded, "the tree is expected to have a TPL701 finding"
    assert f"at {tree}/config.d/30-policy:5:1" in discarded[0].message  # the finding itself: the place as read
    view = ReportView(root=str(tmp_path / "pool"))
    for fmt in ("text", "json", "sarif", "github", "gitlab", "junit"):
        report = render(fmt, result, view)
        if fmt == "sarif":  # (the run names the root's own URI: only the messages are checked)
            report = "\n".join(r["message"]["text"] for r in json.loads(report)["runs"][0]["results"])
        assert "config.d/30-policy:5:1" in report and str(tmp_path) not in report, fmt
    [item] = [i for i in json.loads(render("json", result, view))["findings"] if i["code"] == discarded[0].code]
    assert item["facts"]["where"] == {"file": "etc/config.d/30-policy", "line": 5, "column": 1}
    assert item["facts"]["knob"] == "MAXJOBRETIREMENTTIME"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # not under the current directory: the text report keeps the path absolute
    text = render("text", engine.run(str(tree / "condor_config")), ReportView())
    assert f"at {tree}/config.d/30-policy:5:1" in text


def test_only_the_enabled_families_check_modules_are_imported(tmp_path):
    path = _write(tmp_path, "ALLOW_WRITE = *\n")
    probe = ("import sys; from condorcfg.lint import engine; "
             f"r = engine.run({path!r}, settings=engine.LintSettings(select=['SEC'])); "
             "mods = {m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('condorcfg.lint.checks.')}; "
             "print(sorted(mods)); print(sorted({f.code[:3] for f in r.findings}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    modules, families = done.stdout.splitlines()
    assert "'sec'" in modules and "'pol'" not in modules and "'knb'" not in modules
    assert families == "['SEC']"


def test_a_check_outside_its_family_module_is_still_found():
    """EXP404's check lives in checks/pol.py: selecting EXP alone still finds it."""
    from condorcfg.lint import checks

    assert checks.get_check("constant_policy") is not None


def test_prefixed_definitions_count_as_defined(tmp_path):
    from condorcfg.lint.checks.knb import _defined

    config = condorcfg.load(_write(tmp_path, "STARTD.SCHEDD.X = 1\nY = 2\n"))
    ctx = engine.LintContext(config)
    assert _defined(ctx, "X") and _defined(ctx, "SCHEDD.X") and _defined(ctx, "Y")
    assert not _defined(ctx, "D.X") and not _defined(ctx, "Z")


def test_internal_error_still_reported_for_a_broken_rule(tmp_path):
    """The speed-ups keep the engine's guarantee: a crashing check is a finding, not a traceback."""
    from condorcfg.lint.checks import check
    from condorcfg.lint.rules import Rule, RuleSet, load_rules

    @check("h9_always_crashes")
    def crashes(ctx):
        raise RuntimeError("boom")
        yield  # pragma: no cover

    rules = list(load_rules())
    rules.append(Rule(code="ZZZ999", name="crashes-always", severity="error", summary="s", rationale="r",
                      check="h9_always_crashes"))
    result = engine.run(_write(tmp_path, "X = 1\n"), ruleset=RuleSet(rules),
                        settings=engine.LintSettings(select=["ZZZ999"]))
    assert [f.rule for f in result.findings] == [engine.INTERNAL_ERROR]
    assert isinstance(result.findings[0], Diagnostic) and "boom" in result.findings[0].message
