"""Issue 28, round 2: bounded work in lint.

* MAC201 (undefined-macro) suggests a close name in bounded work per macro: it compared every undefined
  name with every defined one (8,000 undefined macros in 178 KiB took 32 s);
* an expansion stopped by one of condorcfg's limits is CFG006 limit-reached naming the limit (exit 2),
  never MAC202 macro-cycle, which stays for real cycles - and a real cycle is found in one round of
  expansion instead of spending the configuration's expansion budget;
* a report lists at most MAX_FINDINGS_PER_FILE findings of a rule per file and counts the rest in one
  summary finding per rule and file, in every format, with true counts and the same exit status.

Work is counted (comparisons, budget spent, bytes written), never timed.  The configurations are
generated from seeds, so a failure names the seed that reproduces it.
"""
from __future__ import annotations

import difflib
import json
import random
import re
import string

import pytest

import condorcfg
from condorcfg.cli import main
from condorcfg.diagnostics import CondorcfgError
from condorcfg.lint import engine
from condorcfg.lint.checks import mac
from condorcfg.report import FORMATS

SEEDS = range(4)
EXPANSION_LIMITS = {"MAX_EXPANDED_SIZE", "MAX_SUBSTITUTIONS", "MAX_WORK", "MAX_EXPANSION_BYTES",
                    "MAX_EXPANSION_STEPS", "MAX_FUNCTION_NESTING"}


def _name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = rng.choice(string.ascii_uppercase) + "".join(
            rng.choice(string.ascii_uppercase + string.digits + "_") for _ in range(rng.randint(7, 15)))
        if name not in taken:
            taken.add(name)
            return name


def _one_edit(rng: random.Random, name: str) -> str:
    """``name`` with one character deleted, inserted or changed, or two neighbours swapped."""
    at = rng.randrange(1, len(name) - 1)
    kind = rng.choice(("delete", "insert", "change", "swap"))
    letter = rng.choice([c for c in string.ascii_uppercase if c != name[at]])
    if kind == "delete":
        return name[:at] + name[at + 1:]
    if kind == "insert":
        return name[:at] + letter + name[at:]
    if kind == "change":
        return name[:at] + letter + name[at + 1:]
    if name[at] == name[at + 1]:
        return name[:at] + letter + name[at + 1:]
    return name[:at] + name[at + 1] + name[at] + name[at + 2:]


def _run(tmp_path, text: str, **settings) -> engine.LintResult:
    path = tmp_path / "condor_config"
    path.write_text(text)
    result = engine.run([str(path)], settings=engine.LintSettings(**settings))
    assert not [f for f in result.findings if f.rule == engine.INTERNAL_ERROR], result.findings
    return result


def _cli(tmp_path, monkeypatch, capsys, text: str, *args: str, name: str = "condor_config"):
    (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    status = main(["lint", name, *args])
    return status, capsys.readouterr().out


def _cli_json(tmp_path, monkeypatch, capsys, text: str):
    status, out = _cli(tmp_path, monkeypatch, capsys, text, "--format", "json")
    return status, json.loads(out)["findings"]


# ---------------------------------------------------------------- 1. MAC201's did-you-mean: linear work

@pytest.fixture
def comparisons(monkeypatch):
    """How many names difflib was given to compare (every comparison sets its first sequence)."""
    calls = [0]
    original = difflib.SequenceMatcher.set_seq1

    def counted(self, a):
        calls[0] += 1
        return original(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    return calls


def _typos_config(seed: int, n: int) -> tuple[str, dict[str, str], set[str]]:
    """n defined names, n references with a one-edit typo of one (typo -> intended), n to random names."""
    rng = random.Random(seed)
    taken: set[str] = set()
    defined = [_name(rng, taken) for _ in range(n)]
    lines = [f"{name} = {i}\n" for i, name in enumerate(defined)]
    typos: dict[str, str] = {}
    while len(typos) < n:
        meant = rng.choice(defined)
        typo = _one_edit(rng, meant)
        if typo not in taken and typo not in typos:
            typos[typo] = meant
    strangers = {_name(rng, taken) for _ in range(n)}
    lines += [f"USE_{i} = $({typo}) + 1\n" for i, typo in enumerate(typos)]
    lines += [f"OTHER_{i} = $({stranger})\n" for i, stranger in enumerate(sorted(strangers))]
    rng.shuffle(lines)
    return "".join(lines), typos, strangers


def _hints(result) -> dict[str, str | None]:
    """undefined macro -> the name its MAC201 finding suggests (None: no suggestion)."""
    found = {}
    for finding in result.findings:
        if finding.code == "MAC201":
            macro = re.match(r"\$\((\w+)\)", finding.message).group(1)
            hint = re.search(r"did you mean \$\((\w+)\)\?", finding.message)
            assert macro not in found, f"$({macro}) reported twice"
            found[macro] = hint.group(1) if hint else None
    return found


@pytest.mark.parametrize("seed", SEEDS)
def test_undefined_macro_suggestions_take_linear_work_and_stay_right(tmp_path, comparisons, seed):
    work = []
    for n in (150, 600):
        text, typos, strangers = _typos_config(seed, n)
        comparisons[0] = 0
        result = _run(tmp_path, text, select=["MAC201"], findings_per_file=None)
        work.append(comparisons[0])
        hints = _hints(result)
        assert set(hints) == set(typos) | strangers, seed  # every undefined reference, once
        assert {typo: hints[typo] for typo in typos} == typos, seed  # the intended name, for each typo
        assert all(hints[stranger] is None for stranger in strangers), seed
        assert comparisons[0] <= (mac.MAX_CANDIDATES + 1) * len(hints)  # (+1: a new matcher starts with "")
    # 4 times the input, about 4 times the work (a comparison of every pair: 16 times)
    assert work[1] <= 6 * max(work[0], 1), (seed, work)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_suggestion_is_the_exhaustive_searchs_for_one_edit_typos(tmp_path, seed):
    """What difflib's scan of every defined name (the old way) suggests, on a small configuration."""
    text, typos, strangers = _typos_config(seed, 60)
    hints = _hints(_run(tmp_path, text, select=["MAC201"], findings_per_file=None))
    defined = [m.group(1) for m in re.finditer(r"^(\w+) = ", text, re.MULTILINE)]
    for macro in [*typos, *strangers]:
        best = difflib.get_close_matches(macro, defined, n=1, cutoff=0.8)
        assert hints[macro] == (best[0] if best else None), (seed, macro)


def test_names_that_share_every_key_cost_a_bounded_number_of_comparisons(tmp_path, comparisons):
    """N00000..N0xxxx: each undefined N0001 is one edit from a dozen names; at most MAX_CANDIDATES are
    compared, whatever the number of names."""
    work = []
    for n in (500, 2000):
        defined = [f"N{i:05d}" for i in range(n)]
        text = "".join(f"{name} = 1\n" for name in defined) + "".join(
            f"U{i} = $({name[:-1]})\n" for i, name in enumerate(defined[::10]))
        comparisons[0] = 0
        hints = _hints(_run(tmp_path, text, select=["MAC201"], findings_per_file=None))
        work.append(comparisons[0])
        assert work[-1] <= (mac.MAX_CANDIDATES + 1) * len(hints)  # (+1: a new matcher starts with "")
        assert len(hints) == n // 10 and set(hints.values()) <= set(defined)
        assert all(difflib.SequenceMatcher(None, hint, macro).ratio() >= 0.8 for macro, hint in hints.items())
    assert work[1] <= 6 * work[0], work


# ---------------------------------------------------------------- 2. a limit is CFG006, a cycle MAC202

def _limits_named(findings) -> set[str]:
    return {name for f in findings if f["code"] == "CFG006" for name in re.findall(r"MAX_[A-Z_]+", f["message"])}


def _linear_chain(rng, taken) -> list[str]:
    """B = $(A) text, C = $(B) text, ...: every value repeats the one before (quadratic in all)."""
    names = [_name(rng, taken) for _ in range(rng.randint(2600, 3000))]
    payload = "x" * rng.randint(45, 60)
    return [f"{names[0]} = {payload}\n"] + [f"{b} = $({a}) {payload}\n" for a, b in zip(names, names[1:])]


def _doubling_chain(rng, taken) -> list[str]:
    names = [_name(rng, taken) for _ in range(rng.randint(22, 40))]
    return [f"{names[0]} = x\n"] + [f"{b} = $({a})$({a})\n" for a, b in zip(names, names[1:])]


def _fan_out(rng, taken) -> list[str]:
    names = [_name(rng, taken) for _ in range(rng.randint(4, 6))]
    fan = rng.randint(12, 30)
    return [f"{names[0]} = {'w' * rng.randint(3000, 6000)}\n"] + [
        f"{b} = " + f"$({a})" * fan + "\n" for a, b in zip(names, names[1:])]


def _cycle(rng, taken) -> tuple[list[str], list[str]]:
    names = [_name(rng, taken) for _ in range(rng.randint(2, 5))]
    return names, [f"{a} = $({b}) {rng.choice(['', 'x', 'a b'])}\n" for a, b in zip(names, names[1:] + names[:1])]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [_linear_chain, _doubling_chain, _fan_out])
@pytest.mark.parametrize("with_cycle", [False, True])
def test_a_spent_budget_is_limit_reached_and_only_a_cycle_is_macro_cycle(tmp_path, monkeypatch, capsys, seed,
                                                                        shape, with_cycle):
    rng = random.Random(seed)
    taken: set[str] = set()
    lines = shape(rng, taken)
    ring: list[str] = []
    if with_cycle:
        ring, cycle_lines = _cycle(rng, taken)
        lines += cycle_lines
    rng.shuffle(lines)  # (values are expanded when read: the order of the lines does not matter)
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, "".join(lines))
    assert status == 2, (seed, findings)
    named = _limits_named(findings)
    assert named and named <= EXPANSION_LIMITS, (seed, findings)
    cycles = [f for f in findings if f["code"] == "MAC202"]
    if with_cycle:  # the cycle, once, named by its members
        assert len(cycles) == 1 and all(name in cycles[0]["message"] for name in ring), (seed, findings)
    else:
        assert not cycles, (seed, cycles)


def test_the_issues_chains_name_their_limits(tmp_path, monkeypatch, capsys):
    linear = "K0 = " + "x" * 50 + "\n" + "".join(f"K{i} = $(K{i - 1}) {'x' * 50}\n" for i in range(1, 3001))
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, linear)
    assert status == 2 and _limits_named(findings) == {"MAX_EXPANSION_BYTES"}
    doubling = "K0 = x\n" + "".join(f"K{i} = $(K{i - 1})$(K{i - 1})\n" for i in range(1, 41))
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, doubling)
    assert status == 2 and _limits_named(findings) == {"MAX_EXPANDED_SIZE"}
    assert not [f for f in findings if f["code"] == "MAC202"]
    [reached] = [f for f in findings if f["code"] == "CFG006"]
    assert "cycle" not in reached["message"].replace("no knob refers back", "")


def test_function_nesting_is_a_limit_not_a_cycle(tmp_path, monkeypatch, capsys):
    text = "".join(f"N{i} = $INT(N{i + 1})\n" for i in range(80)) + "N80 = 1\n"
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, text)
    assert status == 2 and _limits_named(findings) == {"MAX_FUNCTION_NESTING"}
    assert not [f for f in findings if f["code"] == "MAC202"]


@pytest.mark.parametrize("doublings", [20, 21, 24])
def test_a_value_doubling_itself_line_after_line_is_a_limit_not_a_cycle(tmp_path, monkeypatch, capsys,
                                                                        doublings):
    """X = $(X)$(X) appends to X's previous value (spec 7.2: a self reference is expanded when assigned),
    so it is growth, not a cycle: HTCondor builds the whole value."""
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, "X = a\n" + "X = $(X)$(X)\n" * doublings)
    if 2 ** doublings <= 1_000_000:  # (MAX_EXPANDED_SIZE)
        assert not [f for f in findings if f["code"] in ("CFG006", "MAC202", "CFG007")]
        return
    assert status == 2 and [f["code"] for f in findings if f["severity"] == "error"] == ["CFG006"]
    [reached] = findings
    assert reached["line"] == 21 and "MAX_EXPANDED_SIZE" in reached["message"]
    assert "function" not in reached["message"] and "cycle" not in reached["message"]


@pytest.mark.parametrize("seed", SEEDS)
def test_appending_to_itself_is_no_cycle(tmp_path, seed):
    rng = random.Random(seed)
    text = "".join(f"X = $(X) {rng.choice(['a', 'b c', '$(Y)'])}\n" for _ in range(rng.randint(1, 40)))
    result = _run(tmp_path, "Y = 1\n" + text)
    assert not [f for f in result.findings if f.code in ("MAC202", "CFG006")], seed


@pytest.mark.parametrize("seed", SEEDS)
def test_cycles_are_found_in_one_round_without_spending_the_budget(tmp_path, seed):
    """Each cycle used to be expanded to a limit (MAX_WORK: 50 M characters of the budget per knob), so a
    few cycles spent the whole expansion budget and every later value failed."""
    rng = random.Random(seed)
    taken = set(_READ_BY_RULES)
    rings, lines = [], []
    for knob in rng.sample(_READ_BY_RULES, rng.randint(8, len(_READ_BY_RULES))):  # knobs that rules read
        ring, cycle_lines = _cycle(rng, taken)
        ring[0] = knob
        cycle_lines = [f"{a} = $({b}) x\n" for a, b in zip(ring, ring[1:] + ring[:1])]
        rings.append(ring)
        lines += cycle_lines
    lines += [f"READER_{i} = $({rng.choice(ring)}) x\n" for i, ring in enumerate(rings)]
    rng.shuffle(lines)
    path = tmp_path / "condor_config"
    path.write_text("".join(lines))
    config = condorcfg.load(str(path), mode="repository")
    result = engine.run(config, settings=engine.LintSettings(select=["ALL"]))
    codes = [f.code for f in result.findings if f.severity == "error"]
    assert codes.count("MAC202") == len(rings) and "CFG006" not in codes, (seed, codes)
    for ring in rings:  # every member, asked directly: a cycle each time, found in one round
        for member in ring:
            with pytest.raises(CondorcfgError) as info:
                config.value(member)
            assert info.value.diagnostic.code == "macro-cycle", (seed, member)
    assert config.budget.exhausted is None
    assert config.budget.chars < 1 << 20, (seed, config.budget.chars)  # (was > 50 M per knob in a cycle)


_READ_BY_RULES = ["START", "IS_OWNER", "PREEMPT", "SUSPEND", "CONTINUE", "KILL", "RANK", "DAEMON_LIST",
                  "STARTD_ATTRS", "ALLOW_WRITE", "ALLOW_READ", "NUM_CPUS", "SEC_DEFAULT_AUTHENTICATION",
                  "SLOT_TYPE_1", "MEMORY"]


# ---------------------------------------------------------------- 3. the listing cap

def _flood(seed: int, lines: int) -> str:
    """``NAME : value # comment`` lines: each an obsolete colon assignment (CFG102), a trailing comment
    (CFG101) and an unknown knob (KNB303)."""
    rng = random.Random(seed)
    taken: set[str] = set()
    return "".join(f"{_name(rng, taken)} : {rng.choice(['v', '1', 'a b'])} # {rng.choice(['c', 'note'])}\n"
                   for _ in range(lines))


FLOOD_CODES = ("CFG101", "CFG102", "KNB303")


def _report(tmp_path, monkeypatch, capsys, text: str, fmt: str) -> tuple[int, str]:
    return _cli(tmp_path, monkeypatch, capsys, text, "--format", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_report_is_bounded_by_the_cap_in_every_format(tmp_path, monkeypatch, capsys, fmt):
    cap = engine.MAX_FINDINGS_PER_FILE
    sizes = []
    for lines in (3 * cap, 12 * cap):
        status, out = _report(tmp_path, monkeypatch, capsys, _flood(lines, lines), fmt)
        assert status == 1
        sizes.append(len(out))
        # each rule: `cap` findings and one summary finding, ~1.5 KB each in the widest format (SARIF)
        assert len(out) < len(FLOOD_CODES) * (cap + 1) * 2_000 + 20_000, (fmt, lines, len(out))
        assert out.count(f"{lines - cap} more") >= len(FLOOD_CODES), (fmt, lines)
        assert "MAX_FINDINGS_PER_FILE" in out
        monkeypatch.setattr(engine, "cap_listed", lambda findings, per_file=None: findings)
        uncapped_status, uncapped = _report(tmp_path, monkeypatch, capsys, _flood(lines, lines), fmt)
        monkeypatch.undo()
        assert uncapped_status == status and len(uncapped) > len(out)  # the same exit status without the cap
    # four times the findings, the same report but for the numbers in it
    assert sizes[1] <= sizes[0] * 1.02 + 100, (fmt, sizes)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_summary_states_the_true_count_per_rule_and_file(tmp_path, seed):
    rng = random.Random(seed)
    cap = engine.MAX_FINDINGS_PER_FILE
    paths = []
    for index in range(3):  # one file under the cap, the others over it
        lines = rng.randint(cap // 2, cap - 1) if index == 0 else rng.randint(cap + 1, 6 * cap)
        path = tmp_path / f"{index:02d}.conf"
        path.write_text(_flood(seed * 10 + index, lines))
        paths.append(str(path))
    capped = engine.run(paths).findings
    everything = engine.run(paths, settings=engine.LintSettings(findings_per_file=None)).findings
    for path in paths:
        for code in FLOOD_CODES:
            all_of = [f for f in everything if f.code == code and f.location.file == path]
            listed = [f for f in capped if f.code == code and f.location.file == path and not engine.unlisted_count(f)]
            summary = [f for f in capped if f.code == code and f.location.file == path and engine.unlisted_count(f)]
            assert listed == all_of[:cap], (seed, path, code)
            if len(all_of) <= cap:
                assert not summary
                continue
            [summary] = summary
            assert engine.unlisted_count(summary) == len(all_of) - cap, (seed, path, code)
            assert f"{len(all_of) - cap} more {code}" in summary.message
            assert summary.location.line == all_of[cap].location.line  # at the first one not listed
            assert summary.severity == all_of[0].severity


def test_suppressed_findings_are_neither_listed_nor_counted(tmp_path):
    cap = engine.MAX_FINDINGS_PER_FILE
    lines = _flood(7, 3 * cap).splitlines(keepends=True)
    hidden = set(range(0, 2 * cap, 3))  # statements whose trailing comment is suppressed
    text = "# condorcfg: ignore-file[KNB303] site knobs\n" + "".join(
        ("# condorcfg: ignore[CFG101] kept on purpose\n" if i in hidden else "") + line
        for i, line in enumerate(lines))
    result = _run(tmp_path, text)
    trailing = [f for f in result.findings if f.code == "CFG101"]
    assert len(trailing) == cap + 1 and engine.unlisted_count(trailing[-1]) == 3 * cap - len(hidden) - cap
    assert not [f for f in result.findings if f.code == "KNB303"]
    assert len(result.suppressed) == len(hidden) + 3 * cap
    assert not [f for f in result.findings if f.code == "CFG001"]  # every suppression was used


def test_the_memory_bound_counts_the_same_way(tmp_path, monkeypatch):
    """Past MAX_FINDINGS_PER_RULE a rule's findings are not kept, only counted (suppressions included)."""
    monkeypatch.setattr(engine, "MAX_FINDINGS_PER_RULE", 150)
    lines = _flood(3, 400).splitlines(keepends=True)
    hidden = {200, 250, 399}
    text = "".join(("# condorcfg: ignore[KNB303]\n" if i in hidden else "") + line for i, line in enumerate(lines))
    result = _run(tmp_path, text, select=["KNB303"])
    listed = [f for f in result.findings if not engine.unlisted_count(f)]
    [summary] = [f for f in result.findings if engine.unlisted_count(f)]
    assert len(listed) == engine.MAX_FINDINGS_PER_FILE
    assert engine.unlisted_count(summary) == 400 - len(hidden) - engine.MAX_FINDINGS_PER_FILE
    assert len(result.suppressed) == len(hidden) and "150 in all (MAX_FINDINGS_PER_RULE)" in summary.message
    assert result.count("warning") == 400 - len(hidden)
    everything = _run(tmp_path, text, select=["KNB303"], findings_per_file=None)
    [summary] = [f for f in everything.findings if engine.unlisted_count(f)]
    assert engine.unlisted_count(summary) == 400 - len(hidden) - 150
    assert "MAX_FINDINGS_PER_FILE" not in summary.message


def test_statistics_and_the_summary_line_count_every_finding(tmp_path, monkeypatch, capsys):
    lines = 5 * engine.MAX_FINDINGS_PER_FILE
    status, out = _cli(tmp_path, monkeypatch, capsys, _flood(11, lines), "--statistics")
    assert status == 1
    for code in FLOOD_CODES:
        assert re.search(rf"^\s+{lines}\s+{code}\b", out, re.MULTILINE), out
    status, out = _cli(tmp_path, monkeypatch, capsys, _flood(11, lines))
    listed = 3 * (engine.MAX_FINDINGS_PER_FILE + 1)
    assert f"Found {3 * lines} findings ({3 * lines} warnings) in 1 file, {listed} listed" in out


def test_the_summary_in_json_carries_the_count_as_a_fact(tmp_path, monkeypatch, capsys):
    lines = 2 * engine.MAX_FINDINGS_PER_FILE + 7
    status, findings = _cli_json(tmp_path, monkeypatch, capsys, _flood(5, lines))
    summaries = [f for f in findings if "count" in f.get("facts", {})]
    assert sorted(f["code"] for f in summaries) == sorted(FLOOD_CODES)
    assert all(f["facts"]["count"] == lines - engine.MAX_FINDINGS_PER_FILE for f in summaries)
    assert all(f["line"] == engine.MAX_FINDINGS_PER_FILE + 1 for f in summaries)


def test_a_limit_met_in_an_if_condition_points_at_the_if_line(tmp_path):
    lines = ["K0 = " + "x" * 20] + [f"K{i} = $(K{i - 1})$(K{i - 1})" for i in range(1, 30)]
    lines += ["if $(K24)", "A = 1", "endif"]
    (tmp_path / "condor_config").write_text("\n".join(lines) + "\n")
    result = engine.run([str(tmp_path / "condor_config")])
    reached = [f for f in result.findings if f.code == "CFG006"]
    assert reached and reached[0].location is not None and reached[0].location.line == 31
    assert "MAX_EXPANDED_SIZE" in reached[0].message


def test_exported_undefined_splits_a_long_list_once_and_points_where_word_span_does(tmp_path, monkeypatch):
    """STARTD_ATTRS with 100,000 names did not finish in 300 s: each name searched the whole list twice."""
    from condorcfg.lint.checks import _util, knb

    rng = random.Random(2801)
    names = [f"SITE_{rng.randint(0, 10**6)}" for _ in range(300)] + ["A.B", "x_y"]
    lines = ["DEFINED_ONE = 1", "STARTD_ATTRS = DEFINED_ONE, " + ", ".join(names[:150]) + " \\",
             "   " + " ".join(names[150:]), "STARTD_ATTRS = $(STARTD_ATTRS) LATER_ONE"]
    (tmp_path / "condor_config").write_text("\n".join(lines) + "\n")
    searches = []
    real_search = knb.re.search
    monkeypatch.setattr(knb.re, "search", lambda *a, **k: searches.append(a[0]) or real_search(*a, **k))
    word_spans = []
    real_word_span = _util.word_span
    monkeypatch.setattr(knb, "word_span", lambda *a: word_spans.append(a) or real_word_span(*a))
    settings = engine.LintSettings(select=["KNB305"], findings_per_file=None)
    result = engine.run([str(tmp_path / "condor_config")], settings=settings)
    found = {f.message.split(" exports ")[1].split(",")[0]: f for f in result.findings if f.code == "KNB305"}
    assert set(found) == set(names) | {"LATER_ONE"}
    assert len(searches) <= 2 and len(word_spans) == 1  # the dotted name only (in each of 2 assignments)
    # each finding points where word_span (the general, per-word search) points
    from condorcfg.config.model import Config  # noqa: F401  (the config is re-read for the reference)

    config = condorcfg.load([str(tmp_path / "condor_config")], mode="repository")
    ctx = engine.LintContext(config)
    for name in rng.sample(sorted(set(names) - {"A.B"}), 40) + ["LATER_ONE"]:
        writer = next(d for d in reversed(config.history("STARTD_ATTRS"))
                      if re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", d.text or d.raw,
                                   re.IGNORECASE))
        span = real_word_span(ctx, writer, name)
        location = found[name].location
        assert (location.line, location.column, location.end_line, location.end_column) == span


def test_exported_undefined_work_is_linear_in_the_list(tmp_path, monkeypatch):
    from condorcfg.lint.checks import knb

    def scanned(n: int) -> int:
        sizes = []
        real_findall = knb._WORD.findall

        class Counting:
            def findall(self, text):
                sizes.append(len(text))
                return real_findall(text)

        monkeypatch.setattr(knb, "_WORD", Counting())
        text = "STARTD_ATTRS = " + ", ".join(f"NAME_{i}" for i in range(n)) + "\n"
        (tmp_path / "condor_config").write_text(text)
        settings = engine.LintSettings(select=["KNB305"], findings_per_file=None)
        result = engine.run([str(tmp_path / "condor_config")], settings=settings)
        assert sum(engine.unlisted_count(f) or 1 for f in result.findings if f.code == "KNB305") == n
        return sum(sizes)

    assert scanned(4000) <= 5 * scanned(1000)
