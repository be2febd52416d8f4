"""Hostile configuration text ends quickly, in bounded memory, with a diagnostic naming the limit.

condorcfg runs in CI on configuration anyone can propose, so every way the text can multiply
the work is bounded per command (condorcfg.config.limits): file reads, text read again, lines,
expansion steps and characters, shared by everything one load and its later expansions do.
Each case of the hostile-input campaign is a generated family here (sizes and shapes as
parameters), checked for: the diagnostic (never a traceback), the CPU time, and - in a fresh
process - the peak memory.  Where HTCondor itself answers (big numbers, printf widths) the
expected values are HTCondor's, checked against the oracle in the ``oracle`` tests.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import condorcfg
from condorcfg.config import limits, macros
from condorcfg.config.limits import Budget, BudgetExceeded
from condorcfg.diagnostics import CondorcfgError
from condorcfg.lint import engine
from condorcfg.lint.engine import LintSettings
from condorcfg.machine import MachineProfile

PROFILE = MachineProfile(hostname="bounds.example.org", cpus=2, memory=2048, ip="10.1.1.1")
ROOT = Path(__file__).resolve().parents[1]
BIG = "9" * 5000  # past Python's 4,300-digit int/str conversion limit


def load(tmp_path: Path, text: str, extra: dict[str, str] | None = None):
    for name, body in (extra or {}).items():
        (tmp_path / name).write_text(body)
    top = tmp_path / "condor_config"
    top.write_text(text)
    return condorcfg.load([str(top)], machine=PROFILE, environ={}, cwd=str(tmp_path))


class cpu_time:
    """``with cpu_time() as t: ...`` then ``t.seconds`` (CPU, not wall: CI machines are shared)."""

    def __enter__(self):
        self.start = time.process_time()
        return self

    def __exit__(self, *exc):
        self.seconds = time.process_time() - self.start


def child(code: str, timeout: float = 120) -> dict:
    """Run ``code`` in a fresh interpreter; it sets ``result`` (a JSON-able dict); adds ``rss_mb``, the peak RSS."""
    script = textwrap.dedent(code) + textwrap.dedent("""
        import json, resource
        result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                          cwd=str(ROOT))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def baseline_rss() -> float:
    """Peak RSS of a child that only imports condorcfg and loads a one-line configuration."""
    return child("""
        import condorcfg, tempfile, os
        from condorcfg.machine import MachineProfile
        d = tempfile.mkdtemp(); p = os.path.join(d, "c"); open(p, "w").write("A = 1\\n")
        condorcfg.load([p], machine=MachineProfile(hostname="h.example.org"), environ={}).value("A")
        result = {}
    """)["rss_mb"]


# --- budget object ---------------------------------------------------------------------------------

def test_budget_exhaustion_names_the_limit_and_is_sticky():
    budget = Budget()
    with pytest.raises(BudgetExceeded) as info:
        budget.spend(budget.step_limit() + 1, 0)
    assert info.value.limit == "MAX_EXPANSION_STEPS" and "MAX_EXPANSION_STEPS" in info.value.diagnostic.message
    assert info.value.diagnostic.code == limits.BUDGET_CODE
    with pytest.raises(BudgetExceeded):  # every later expansion fails at once
        budget.check()
    with pytest.raises(BudgetExceeded) as again:
        budget.spend(0, 0)
    assert again.value.diagnostic is not info.value.diagnostic  # a fresh diagnostic a caller may locate


@pytest.mark.parametrize("reads, size, limit", [
    (limits.MAX_FILE_READS + 1, 10, "MAX_FILE_READS"),
    (3, limits.MAX_TEXT_BYTES // 2, "MAX_TEXT_BYTES"),
    (limits.MAX_REPEATED_BYTES // 4000 + 2, 4000, "MAX_REPEATED_BYTES"),
])
def test_reading_budget_names_each_limit(reads, size, limit):
    budget = Budget()
    with pytest.raises(BudgetExceeded) as info:
        for number in range(reads):
            budget.read(size, (1, 1 if limit == "MAX_REPEATED_BYTES" else number), None)
    assert info.value.limit == limit and limit in info.value.diagnostic.message


def test_expansion_limits_grow_with_the_text_read():
    budget = Budget()
    small_steps, small_chars = budget.step_limit(), budget.char_limit()
    budget.read(1_000_000, None, None)
    assert budget.step_limit() > small_steps and budget.char_limit() > small_chars


# --- fan-out: a per-level limit is not enough --------------------------------------------------------

def _fan_out(tmp_path: Path, fan: int, depth: int, padding: int) -> str:
    """Files f0..f<depth>: each includes the next ``fan`` times (fan ** depth reads); returns the top text."""
    comment = "# " + "x" * padding + "\n" if padding else ""
    for level in range(depth):
        (tmp_path / f"f{level}.conf").write_text(f"X{level} = {level}\n{comment}" +
                                                 f"include : f{level + 1}.conf\n" * fan)
    (tmp_path / f"f{depth}.conf").write_text(f"LEAF = 1\n{comment}")
    return "include : f0.conf\n"


@pytest.mark.parametrize("fan, depth, padding, limit", [
    (10, 15, 0, "MAX_FILE_READS"),  # the campaign's case: 10 ** 15 reads
    (2, 18, 0, "MAX_FILE_READS"),
    (200, 3, 0, "MAX_FILE_READS"),
    (10, 6, 20_000, "MAX_REPEATED_BYTES"),  # bigger files: the bytes read again run out first
])
def test_include_fan_out_ends_with_the_limit(tmp_path, fan, depth, padding, limit):
    text = _fan_out(tmp_path, fan, depth, padding)
    with cpu_time() as took, pytest.raises(BudgetExceeded) as info:
        load(tmp_path, text)
    assert info.value.limit == limit, info.value.diagnostic.message
    location = info.value.diagnostic.location
    assert location is not None and location.file.endswith(".conf") and location.line >= 1  # the include line
    assert took.seconds < 5


def test_statement_limit_stops_a_huge_configuration(tmp_path):
    text = "".join(f"K{i} = {i}\n" for i in range(limits.MAX_STATEMENTS + 10))
    with cpu_time() as took, pytest.raises(BudgetExceeded) as info:
        load(tmp_path, text)
    assert info.value.limit == "MAX_STATEMENTS" and info.value.diagnostic.location.line == limits.MAX_STATEMENTS + 1
    assert took.seconds < 10


@pytest.mark.slow
def test_template_fan_out_ends(tmp_path):
    # one `use` line naming a template 20,000 times (the campaign's FEATURE : GPUs case)
    text = "use FEATURE : " + ", ".join(["GPUs"] * 20_000) + "\n"
    with cpu_time() as took, pytest.raises(CondorcfgError) as info:
        load(tmp_path, text)
    assert info.value.diagnostic.code == limits.BUDGET_CODE and "(limit MAX_" in info.value.diagnostic.message
    assert took.seconds < 10


def test_character_devices_are_never_read(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : /dev/zero\n")
    assert info.value.diagnostic.code == "unreadable-file" and "not a regular file" in info.value.diagnostic.message


@pytest.mark.parametrize("text", [
    "if " + "1" * 200_000 + "x\nendif\n",  # a number pattern that backtracked quadratically
    "A = $INT(" + "1" * 200_000 + "x)\n",
    "A = $REAL(" + "1" * 200_000 + ".5.)\n",
    "A = $INT(1,%" + "0" * 200_000 + "!)\n",  # "0" was both a printf flag and a width digit
])
def test_long_numbers_and_formats_scan_in_linear_time(tmp_path, text):
    with cpu_time() as took:
        try:
            load(tmp_path, text).value("A")
        except CondorcfgError as exc:
            assert exc.diagnostic.code == "bad-condition"
    assert took.seconds < 3


@pytest.mark.parametrize("pattern, unsafe", [
    ("^(a+)+$", True), ("(a|aa)*x", True), ("(x{2})*", True), ("(ab)+", False), (r"^((\..*)|(.*\.pl))$", False),
    ("(" * 200_000 + "+", False), ("(" + "a|" * 200_000, False),
])
def test_nested_repetition_is_recognised_in_linear_time(pattern, unsafe):
    from condorcfg.config.reader import _nested_quantifier

    with cpu_time() as took:
        assert _nested_quantifier(pattern) is unsafe
    assert took.seconds < 1


@pytest.mark.slow
def test_slow_exclude_regexp_falls_back_to_the_default(tmp_path, monkeypatch):
    # polynomial, not nested: only a deadline catches it (file names are at most 255 bytes).  The deadline
    # is made short: regex 2026.11 matches this in about 0.3 s a name, close to the 1 s of EXCLUDE_REGEXP_SECONDS
    from condorcfg.config import reader

    monkeypatch.setattr(reader, "EXCLUDE_REGEXP_SECONDS", 0.02)
    (tmp_path / "d").mkdir()
    for letter in "bcd":
        (tmp_path / "d" / ("a" * 250 + letter)).write_text(f"X{letter} = 1\n")
    text = f"LOCAL_CONFIG_DIR = {tmp_path}/d\nLOCAL_CONFIG_DIR_EXCLUDE_REGEXP = " + "a*" * 9 + "\\d\n"
    start = time.perf_counter()
    cfg = load(tmp_path, text)
    assert time.perf_counter() - start < 10
    assert any(d.code == "unsafe-regexp" and "takes more than" in d.message for d in cfg.diagnostics)
    assert cfg.value("Xb") == "1"  # the default exclusions keep these files


# --- expansion work is one budget per load, shared by nested calls ---------------------------------------

@pytest.mark.parametrize("function", ["$SUBSTR(L{n},0,1)", "$SUBSTR(L{n},-1)", "$STRING(L{n},%.1s)"])
@pytest.mark.parametrize("levels", [20, 40])
def test_doubling_through_functions_is_linear(tmp_path, function, levels):
    # L_i = F(L_{i+1})F(L_{i+1}): 2 ** levels calls if every level were expanded again
    text = "".join(f"L{i} = " + function.format(n=i + 1) * 2 + "\n" for i in range(levels)) + f"L{levels} = 1\n"
    cfg = load(tmp_path, text)
    with cpu_time() as took:
        value = cfg.value("L0")
    assert value == "11"
    assert took.seconds < 2


@pytest.mark.parametrize("levels", [25, 40])
def test_doubling_output_is_stopped_by_the_size_limit(tmp_path, levels):
    text = "".join(f"L{i} = $Fn(L{i + 1})$Fn(L{i + 1})\n" for i in range(levels)) + f"L{levels} = a\n"
    cfg = load(tmp_path, text)
    with cpu_time() as took, pytest.raises(CondorcfgError) as info:
        cfg.value("L0")
    assert info.value.diagnostic.code == "macro-too-large" and "(the limit)" in info.value.diagnostic.message
    assert took.seconds < 2


@pytest.mark.parametrize("levels", [30, pytest.param(40, marks=pytest.mark.slow)])
def test_doubling_that_cannot_be_remembered_runs_out_of_budget(tmp_path, levels):
    # a $RANDOM_* at the bottom: its result depends on the knob expanded, so nothing is remembered and
    # each level really is expanded twice - the shared budget stops it (a per-call one would not)
    text = ("".join(f"L{i} = $SUBSTR(L{i + 1},0,1)$SUBSTR(L{i + 1},0,1)\n" for i in range(levels)) +
            f"L{levels} = $RANDOM_CHOICE(a,b)\n")
    cfg = load(tmp_path, text)
    with cpu_time() as took, pytest.raises(BudgetExceeded) as info:
        cfg.value("L0")
    assert info.value.limit in ("MAX_EXPANSION_STEPS", "MAX_EXPANSION_BYTES")
    assert info.value.diagnostic.location is not None and info.value.diagnostic.location.line == 1
    assert took.seconds < 5
    with cpu_time() as again, pytest.raises(BudgetExceeded):
        cfg.value("L1")  # sticky: the next expansion fails at once
    assert again.seconds < 0.5


# --- quadratic paths are linear now --------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "A = $$(A)$(B)\nB = $$(B)$(A)\nC = $(A)\nD = $$(X) $(C)\nE = $(D)\nF = $(E)\n",  # the campaign's 6 lines
    "A = " + "$$(X)" * 2000 + "$(B)\nB = $(A)\n",
    "A = " + "$$([x])" * 1000 + "$(B)\nB = $$(Y)$(A)\n",
    "A = " + "$$([x" * 1000 + "$(B)\nB = $(A)\n",
])
def test_double_dollar_cycles_end_quickly(tmp_path, text):
    cfg = load(tmp_path, text)
    with cpu_time() as took:
        for name in cfg.names():
            with pytest.raises(CondorcfgError) as info:
                cfg.value(name)
            assert info.value.diagnostic.code in ("macro-cycle", "macro-too-large", limits.BUDGET_CODE)
    assert took.seconds < 5


@pytest.mark.parametrize("lines", [50_000, 200_000])
def test_comment_continuations_are_linear(tmp_path, lines):
    text = "A = 1 \\\n" + "# c \\\n" * lines + "B\n"
    with cpu_time() as took:
        cfg = load(tmp_path, text)
    assert cfg.value("A") == "1 B"
    assert took.seconds < 3


@pytest.mark.parametrize("links", [5_000, 15_000])
def test_long_reference_chains_expand_each_link_once(tmp_path, links):
    text = "".join(f"A{i} = $(A{i + 1})\n" for i in range(links)) + f"A{links} = end\n"
    cfg = load(tmp_path, text)
    with cpu_time() as took:
        values = {cfg.value(name) for name in cfg.names()}  # what `dump` does
    assert values == {"end"}
    assert took.seconds < 3


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deeply_nested_dollar_parens_end(tmp_path, depth):
    cfg = load(tmp_path, "A = " + "$(" * depth + "X" + ")" * depth + "\nX = 1\n")
    with cpu_time() as took:
        try:
            cfg.value("A")
        except CondorcfgError as exc:
            assert exc.diagnostic.code in ("macro-too-large", limits.BUDGET_CODE)
    assert took.seconds < 3


# rejected "$" that a substitution after them makes the scan look at again: behind a "$$([" with no "])",
# and "$(A:" bodies that each scan to the end of the text (HTCondor's own scan is quadratic there)
REJECTED = ["$x ", "$(A b ", "$(A:b c x ", "$FOO( ", "$$(X) ", "$Fz( ", "$ENV(A b ", "$(UW(x "]


@pytest.mark.parametrize("piece", REJECTED)
@pytest.mark.parametrize("head", ["$$([ ", ""])
def test_rejected_dollars_are_not_rescanned_without_bound(tmp_path, head, piece):
    with cpu_time() as took:
        try:  # HTCondor copies 3000 times a 30 KB text (and scans "$(A:" bodies that far): a limit may stop it
            load(tmp_path, "A = 1\nX = " + head + piece * 3000 + "$(A) " * 3000 + "\n").value("X")
        except CondorcfgError as exc:
            assert exc.diagnostic.code in ("macro-too-large", limits.BUDGET_CODE)
            assert exc.diagnostic.location is not None and exc.diagnostic.location.line == 2
    assert took.seconds < 2, f"{took.seconds:.1f} s"


@pytest.mark.parametrize("count", [20_000, 80_000])
def test_one_scan_that_looks_to_the_end_from_every_dollar_is_bounded(tmp_path, count):
    text = "$(A:b c x " * count + "(A)!)"  # each "$(A:" scans to the "!" at the end, and is rejected there
    with cpu_time() as took:
        with pytest.raises(BudgetExceeded):
            load(tmp_path, "A = 1\nY = " + text + "\n").value("Y")
        assert len(macros.references(text)) <= 1  # lint's reference search stops at its own limit
    assert took.seconds < 2 + SLACK_SECONDS, f"{took.seconds:.1f} s"


def _lint(cfg, code: str):
    return engine.run(cfg, machine=PROFILE, settings=LintSettings(select=[code])).findings


@pytest.mark.parametrize("text", [
    "A = 1\n" * 10_000,  # (the rule scanned every statement per pair: 20,000 lines took 29 s)
    pytest.param("A = 1\n" * 20_000, marks=pytest.mark.slow),
    pytest.param("".join(f"if true\nA = {i}\nendif\n" for i in range(20_000)), marks=pytest.mark.slow),
    "".join(f"A{i % 50}.B = {i}\nif defined A{i % 50}.C\nendif\n" for i in range(5_000)),
])
def test_duplicate_assignment_rule_is_linear(tmp_path, text):
    cfg = load(tmp_path, text)
    with cpu_time() as took:
        findings = _lint(cfg, "MAC203")
    assert findings and all(f.code == "MAC203" for f in findings)
    assert took.seconds < 10


def test_duplicate_assignment_still_sees_a_read_in_between(tmp_path):
    text = "A.B = 1\nif defined A.B\nX = 1\nendif\nA.B = 2\nC = 1\nif defined XC\nendif\nC = 2\n"
    findings = _lint(load(tmp_path, text), "MAC203")
    assert [f.location.line for f in findings] == [6]  # A.B is read by the `if` between; C is not (XC)


def test_a_role_used_thousands_of_times_lints_quickly(tmp_path):
    cfg = load(tmp_path, "use ROLE : Execute\n" * 5_000)
    with cpu_time() as took:
        findings = _lint(cfg, "KNB304")
    assert findings and "added again by `use ROLE:Execute`" in findings[0].message
    assert took.seconds < 10


# --- memory --------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("case, knob, bound_mb", [
    ("A = x\n" + "A += x\n" * 30_000, "A", 60),  # each history entry used to keep its whole text: 893 MB
    ("".join("use ROLE : Execute\n" for _ in range(5_000)), "DAEMON_LIST", 60),
    ("A = $INT(1,%2500000000d)\nB = $REAL(1,%.900000000f)\nC = $STRING(X,%900000000s)\nX = x\n", "B", 40),
    ("".join(f"KNOB_{i} = value_{i}\n" for i in range(60_000)), "KNOB_1", 120),
])
def test_memory_stays_linear(tmp_path, case, knob, bound_mb):
    config = tmp_path / "condor_config"
    config.write_text(case)
    result = child(f"""
        import condorcfg
        from condorcfg.machine import MachineProfile
        cfg = condorcfg.load([{str(config)!r}], machine=MachineProfile(hostname="h.example.org"), environ={{}})
        values = [cfg.value(n) for n in cfg.names()]
        history = cfg.history({knob!r})
        result = {{"value": cfg.value({knob!r}), "history": [len(d.raw) for d in history[:3] + history[-2:]]}}
    """)
    assert result["rss_mb"] - baseline_rss() < bound_mb, result
    if knob == "A":  # the shared history still gives every old value
        assert result["history"] == [1, 3, 5, 60_001 - 2, 60_001]


def test_shared_history_values_are_exact(tmp_path):
    text = "A = " + "y" * 300 + "\n" + "A += x\n" * 5 + "A = pre $(A) post\n" + "A = $(A)$(A)\n" + "A = other\n"
    history = load(tmp_path, text).history("A")
    expected = ["y" * 300]
    for _ in range(5):
        expected.append(expected[-1] + " x")
    expected.append("pre " + expected[-1] + " post")
    expected.append(expected[-1] * 2)
    expected.append("other")
    assert [d.raw for d in history] == expected


@pytest.mark.parametrize("width", ["%2500000000d", "%2147483648d", "%-9999999999d", "%.2147483648d", "ab%2147483648d"])
def test_huge_printf_widths_stop_like_snprintf(tmp_path, width):
    # HTCondor: snprintf fails (EOVERFLOW) at the conversion; what it printed before stays
    cfg = load(tmp_path, f"A = <$INT(1,{width})>\n")
    assert cfg.value("A") == ("<ab>" if width.startswith("ab") else "<>")


@pytest.mark.parametrize("fmt, expected", [
    ("%300d", " " * 55), ("%-300d", "1" + " " * 54), ("%0300d", "0" * 55), ("%.300d", "0" * 55),
    ("%2000000000d", " " * 55), ("%50d", " " * 49 + "1"),
])
def test_int_prints_into_a_56_byte_buffer(tmp_path, fmt, expected):
    assert load(tmp_path, f"A = <$INT(1,{fmt})>\n").value("A") == f"<{expected}>"


@pytest.mark.parametrize("fmt, expected", [
    ("%.900000000f", "1." + "0" * 53), ("%.60f", "1." + "0" * 53), ("%-300.1f", "1.0" + " " * 52),
    ("%55.1f", " " * 52 + "1.0"), ("%.2147483648f", ".0"),  # (snprintf fails, then ".0" is appended)
])
def test_real_prints_into_a_56_byte_buffer(tmp_path, fmt, expected):
    with cpu_time() as took:
        value = load(tmp_path, f"A = <$REAL(1,{fmt})>\n").value("A")
    assert value == f"<{expected}>" and took.seconds < 1


@pytest.mark.parametrize("fmt", ["%300.1f", "%60.1f"])
def test_real_that_would_overflow_htcondors_buffer_is_reported(tmp_path, fmt):
    # 55 characters without a '.': HTCondor appends ".0" past its buffer and aborts
    cfg = load(tmp_path, f"A = <$REAL(1,{fmt})>\n")
    assert cfg.value("A") == "<>"
    assert any("crashes" in d.message for d in cfg.diagnostics)


def test_string_widths_are_refused_past_the_limit(tmp_path):
    cfg = load(tmp_path, "X = abc\nA = <$STRING(X,%900000000s)>\nB = <$STRING(X,%2147483648s)>\n")
    with cpu_time() as took:
        assert cfg.value("A") == "<>" and cfg.value("B") == "<>"
    assert any("MAX_STRING_FORMAT" in d.message for d in cfg.diagnostics) and took.seconds < 1


# --- numbers past Python's limits: HTCondor's answers, never a traceback --------------------------------

NUMBER_CASES = [
    # (configuration, HTCondor's value of A) - each checked against HTCondor in test_numbers_match_htcondor
    (f"A = $INT({BIG})", "9223372036854775807"),
    (f"A = $INT(-{BIG})", "-9223372036854775808"),
    ("A = $INT(99999999999999999999)", "9223372036854775807"),
    ("A = $INT(1e30)", "-9223372036854775808"),
    ("A = $INT(1e999)", "-9223372036854775808"),
    ("A = $INT(5000000000,%d)", "705032704"),
    ("A = $INT(99999999999999999999,%d)", "-1"),
    ("A = $INT(-1,%x)", "ffffffff"),
    ("A = $INT(-1,%lx)", "ffffffffffffffff"),
    ("A = $INT(300,%hhd)", "44"),
    ("A = $INT(70000,%hd)", "4464"),
    ("A = $INT(-5,%u)", "4294967291"),
    ("A = $INT(65,%#o)", "0101"),
    ("A = $INT(0,%#x)", "0"),
    ("A = $INT(0,%c)x", "x"),
    (f"A = $REAL({'9' * 400})", "INF"),
    (f"A = $REAL({BIG})", "INF"),
    ("A = $REAL(1e999)", "INF"),
    (f"X = hello\nA = $SUBSTR(X,{BIG})", None),
    ("X = hello\nA = $SUBSTR(X,1,2147483648)", None),
    ("X = hello\nA = $SUBSTR(X,-2147483648)", "hello"),
    ("X = hello\nA = $SUBSTR(X,-2147483649)", None),
    (f"A = $CHOICE({BIG},a,b)", "a"),
    ("A = $CHOICE(-1,a,b)", "a"),
    ("A = $CHOICE(x,a,b)", "a"),
    ("A = $CHOICE(2147483646,a,b)", None),
    ("A = $RANDOM_INTEGER(9223372036854775807,9223372036854775807)", "9223372036854775807"),
    (f"A = $RANDOM_INTEGER(-{BIG},-{BIG})", "-922337203685477580"),
    ("if version >= 2147483647.0\nA = 1\nelse\nA = 0\nendif", "1"),
    ("if version > 4294967321.14.1\nA = 1\nelse\nA = 0\nendif", "0"),
    ("if version >= 25.14.4294967297\nA = 1\nelse\nA = 0\nendif", "1"),
    ("if version >= 25.99999999999999999999\nA = 1\nelse\nA = 0\nendif", "1"),
]
REJECTED_VERSIONS = [f"if version >= {BIG}.0\nA = 1\nendif", "if version >= 2147483648.0\nA = 1\nendif",
                     "if version >= 99999999999999999999.0\nA = 1\nendif"]


@pytest.mark.parametrize("text, expected", NUMBER_CASES)
def test_big_numbers_give_htcondors_value(tmp_path, text, expected):
    assert load(tmp_path, text + "\n").value("A") == expected


@pytest.mark.parametrize("text", REJECTED_VERSIONS)
def test_version_literals_htcondor_rejects(tmp_path, text):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, text + "\n")
    assert info.value.diagnostic.code == "bad-condition" and "version literal is invalid" in info.value.diagnostic.message


@pytest.mark.parametrize("digits", [20, 4_301, 20_000])
@pytest.mark.parametrize("template", ["$INT({n})", "$INT({n},%d)", "$REAL({n})", "$SUBSTR(X,{n})", "$SUBSTR(X,0,{n})",
                                      "$CHOICE({n},p,q)", "$RANDOM_INTEGER(0,{n})", "$RANDOM_INTEGER({n},{n},{n})",
                                      "$INT(-{n})", "$REAL(-{n}.5e3)", "$INT({n}.{n})"])
def test_no_number_raises_a_python_error(tmp_path, digits, template):
    number = "".join(random.Random(digits).choice("0123456789") for _ in range(digits))
    cfg = load(tmp_path, "X = hello\nA = " + template.format(n="1" + number) + "\n")
    value = cfg.value("A")  # no ValueError / OverflowError; a value or an empty one
    assert value is None or len(value) < 100


@pytest.mark.oracle
@pytest.mark.slow
def test_numbers_match_htcondor(oracle):
    mismatches = []
    for text, expected in NUMBER_CASES:
        answer = oracle.config_values(text + "\n", ["A"])
        got = answer["expect"]["A"] if answer["expect"] else "ERROR"
        if got != expected:
            mismatches.append((text[:60], expected, got))
    for text in REJECTED_VERSIONS:
        answer = oracle.config_values(text + "\n", ["A"])
        if answer["error"] is None or "version literal is invalid" not in answer["error"]:
            mismatches.append((text[:60], "rejected", answer))
    assert not mismatches


# --- the scanner: resuming after a substitution finds what a scan from the start finds ----------------------

def _rescan_from_start(text: str, table: dict[str, str]) -> str:
    """HTCondor's loop as written: after every substitution, look again from the first character."""
    count = 0
    while True:
        found = macros.next_macro(text, 0, macros._skip_for_expansion)
        if found is None:
            return macros.replace_dollar(text)
        name, default = macros.split_body(found.body)
        value = table.get(name.upper()) if found.kind == macros.NORMAL else f"<{found.kind}>"
        text = text[:found.start] + (value or (default or "")) + text[found.end:]
        count += 1
        if count > 200 or len(text) > 5_000:
            return "LIMIT"


PIECES = ["$(", ")", "$$(", "A", "B", ":", "$(DOLLAR)", "(", "x", "$(A)", "$(B:d)", "$(C:$(A))", "$INT(", "[", "])",
          "$", " ", ",", "$(A", "DOLLAR", "(DOLLAR)", "$$([", "y)", "$Fn("]


@pytest.mark.parametrize("seed", range(8))
def test_resumed_scan_and_memo_agree_with_a_full_rescan(seed):
    rand = random.Random(seed)
    for _ in range(300):
        table = {k: "".join(rand.choice(PIECES) for _ in range(rand.randint(0, 6))) for k in "ABC"}
        text = "".join(rand.choice(PIECES) for _ in range(rand.randint(0, 10)))
        want = _rescan_from_start(text, table)
        if want == "LIMIT":
            continue

        def evaluate(found):
            name, default = macros.split_body(found.body)
            value = table.get(name.upper()) if found.kind == macros.NORMAL else f"<{found.kind}>"
            return value or (default or "")

        memo = macros.Memo(lambda name: table.get(name.upper()))
        budget = Budget()
        budget.steps = budget.step_limit() - 200_000  # a cycle stops soon (the reference gave up on it already)
        try:
            plain = macros.expand(text, evaluate, budget)
            remembered = macros.expand(text, evaluate, budget, memo)
            again = macros.expand(text, evaluate, budget, memo)  # now with the memo filled
        except (macros.ExpansionLimit, BudgetExceeded):
            continue
        assert plain == remembered == again == want, (text, table)
        for key, value in memo.values.items():  # a remembered knob is what its value alone expands to
            alone = _rescan_from_start(table[key], table)
            assert alone in ("LIMIT", macros.replace_dollar(value)), (key, table)


BRACKET_PIECES = PIECES + ["$$([", "])", "$$([", "]", "$(A)", "$(B)"]


@pytest.mark.parametrize("seed", range(4))
def test_a_remembered_expansion_is_not_used_where_an_earlier_scan_reaches_it(seed):
    # "$$([" before a $(A) whose remembered expansion is not its raw value: the raw text is what the
    # "$$([...])" swallows (found by a generator like this one; four in 5,000 texts disagreed)
    rand = random.Random(1000 + seed)
    checked = 0
    for _ in range(600):
        table = {k: "".join(rand.choice(BRACKET_PIECES) for _ in range(rand.randint(0, 6))) for k in "ABC"}
        text = "".join(rand.choice(BRACKET_PIECES) for _ in range(rand.randint(0, 14)))
        want = _rescan_from_start(text, table)
        if want == "LIMIT":
            continue

        def evaluate(found):
            name, default = macros.split_body(found.body)
            value = table.get(name.upper()) if found.kind == macros.NORMAL else f"<{found.kind}>"
            return value or (default or "")

        memo = macros.Memo(lambda name: table.get(name.upper()))
        budget = Budget()
        budget.steps = budget.step_limit() - 200_000
        try:
            results = [macros.expand(text, evaluate, budget, memo) for _ in range(2)]
        except (macros.ExpansionLimit, BudgetExceeded):
            continue
        checked += 1
        assert results == [want, want], (text, table)
    assert checked > 400


def test_a_remembered_expansion_after_an_open_bracket():
    table = {"A": "$(C:$(A))$(A])A", "B": "", "C": " $$(["}
    evaluate = lambda found: table.get(macros.split_body(found.body)[0], "")  # noqa: E731
    text = "$(B:d)$(A):]$(C:$(A)):$$([$(A)B"
    want = _rescan_from_start(text, table)
    assert want == "d $$([$(A])A:] $$([:$$([$(C:$(A))$(A])AB"
    assert macros.expand(text, evaluate, Budget(), macros.Memo(table.get)) == want


def test_a_scan_that_completes_an_earlier_reference_is_found_again():
    table = {"P": ")", "A": "ok", "OPEN": "$("}
    evaluate = lambda found: table.get(macros.split_body(found.body)[0], "")  # noqa: E731
    assert macros.expand("$(A$(P)", evaluate) == "ok"
    assert macros.expand("$(OPEN)A)", evaluate) == "ok"
    assert macros.expand("$(DOLLAR)(DOLLAR)", evaluate) == "$"


# --- the command line: a diagnostic, never a traceback --------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("text, command", [
    ("A = $INT(" + BIG + ")\n", ["value", "A"]),
    ("if version >= " + BIG + ".0\nA = 1\nendif\n", ["value", "A"]),
    ("A = $REAL(1,%.900000000f)\n", ["value", "A"]),
    ("A = $$(A)$(B)\nB = $$(B)$(A)\nC = $(A)\n", ["dump"]),
    ("L0 = $SUBSTR(L1,0,1)$SUBSTR(L1,0,1)\n" + "".join(f"L{i} = $SUBSTR(L{i + 1},0,1)$SUBSTR(L{i + 1},0,1)\n"
                                                        for i in range(1, 40)) + "L40 = $RANDOM_CHOICE(a,b)\n",
     ["value", "L0"]),
])
def test_commands_report_and_never_crash(tmp_path, text, command):
    (tmp_path / "condor_config").write_text(text)
    proc = subprocess.run([sys.executable, "-m", "condorcfg", command[0], "--config",
                           str(tmp_path / "condor_config"), *command[1:]], capture_output=True, text=True,
                          timeout=60, cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1, 2), proc.stderr[-1000:]


# --- big outputs: time in proportion to the input, whatever the number of findings or slots ---------

SLACK_SECONDS = 1.5  # CPU allowed on top of the bound (interpreter, a loaded CI machine)


@pytest.mark.parametrize("slots", [1024, 4096])
@pytest.mark.parametrize("fmt", ["long", "json", "new"])
def test_thousands_of_slots_print_within_the_bound(tmp_path, slots, fmt):
    from condorcfg.slots import build_slot_ads
    from condorcfg.slots.output import FORMATS

    config = load(tmp_path, f"NUM_CPUS = {slots}\nMEMORY = {slots * 100}\nNUM_SLOTS = {slots}\n"
                            'STARTD_ATTRS = $(STARTD_ATTRS) Site\nSite = "a\\\\b"\n')
    with cpu_time() as took:
        ads = build_slot_ads(config, PROFILE)
        text = FORMATS[fmt]([slot.ad for slot in ads])
    assert len(ads) == slots and f"slot{slots}@" in text and text.count("Site") == slots
    assert took.seconds < 2 + SLACK_SECONDS, f"{slots} slots took {took.seconds:.1f} s"


# A finding per line costs about 2 s a MiB of CPU on the 2-core CI machine, but its CPU time for the
# same 3.4 MiB input ranges over 6.3-8.8 s from run to run (a shared VM): 3 s a MiB bounds that
# noise, and still fails at once if the cost stops being linear (quadratic: minutes).
FINDINGS_SECONDS_PER_MIB = 3


def _warm_lint(tmp_path, ruleset) -> None:
    """Lint a small configuration first: what the first lint of a process pays once (the knob tables,
    the rules' patterns) is not cost in proportion to the input, which these tests bound."""
    (tmp_path / "warm").mkdir()
    (tmp_path / "warm" / "condor_config").write_text("MY_UNKNOWN_KNOB = 1\nA = x \\\n# c\n")
    engine.run([str(tmp_path / "warm" / "condor_config")], ruleset=ruleset)


@pytest.mark.parametrize("lines", [20_000, pytest.param(99_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_finding_per_line_lints_in_linear_time(tmp_path, lines, fmt):
    from condorcfg.lint.rules import load_rules
    from condorcfg.report import ReportView, render

    text = "".join(f"MY_UNKNOWN_KNOB_{i} = value_{i}\n" for i in range(lines))
    (tmp_path / "condor_config").write_text(text)
    ruleset = load_rules()
    _warm_lint(tmp_path, ruleset)
    with cpu_time() as took:
        result = engine.run([str(tmp_path / "condor_config")], ruleset=ruleset)
        report = render(fmt, result, ReportView(ruleset=ruleset, root=str(tmp_path)))
    listed = min(lines, engine.MAX_FINDINGS_PER_FILE)
    assert len(result.findings) == listed + (lines > listed) and report
    if lines > listed:  # the rest are counted in one summary finding
        summary = result.findings[-1]
        assert engine.unlisted_count(summary) == lines - listed
        assert summary.message.startswith(f"{lines - listed} more KNB303")
    mib = len(text) / (1 << 20)
    assert took.seconds < FINDINGS_SECONDS_PER_MIB * mib + SLACK_SECONDS, f"{mib:.2f} MiB took {took.seconds:.1f} s"


def test_a_rule_lists_at_most_its_limit_and_counts_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "MAX_FINDINGS_PER_RULE", 50)
    (tmp_path / "condor_config").write_text("".join(f"MY_UNKNOWN_{i} = {i}\n" for i in range(120)))
    settings = LintSettings()
    settings.select = ["KNB303"]
    result = engine.run([str(tmp_path / "condor_config")], settings=settings)
    listed = [f for f in result.findings if not engine.unlisted_count(f)]
    summary = [f for f in result.findings if engine.unlisted_count(f)]
    assert len(listed) == 50 and len(summary) == 1
    assert summary[0].code == "KNB303" and summary[0].severity == listed[0].severity
    assert summary[0].message.startswith("70 more KNB303 (unknown-knob) findings in ")
    assert "50 in all (MAX_FINDINGS_PER_RULE)" in summary[0].message
    assert result.fails("warning")


@pytest.mark.parametrize("fmt", ["%.2000000000a", "%.2147483646A", "%.100000a"])
def test_huge_hex_float_precisions_print_into_the_buffer_without_building_the_zeros(tmp_path, fmt):
    with cpu_time() as took:
        config = load(tmp_path, f"A = $REAL(1.5,{fmt})\n")
        value = config.value("A")
    assert value.lower() == "0x1." + "8" + "0" * 50  # the first 55 characters, as snprintf into 56 bytes
    assert took.seconds < 1


def test_continuations_into_comments_lint_in_linear_time(tmp_path):
    """20,000 `A = x \\` lines each followed by a comment (a CFG104 finding each): the statement of each
    finding is found by bisection, not by scanning every statement (43 s before)."""
    from condorcfg.lint.rules import load_rules

    text = "".join(f"A{i} = x \\\n# c\n" for i in range(20_000))
    (tmp_path / "condor_config").write_text(text)
    ruleset = load_rules()
    _warm_lint(tmp_path, ruleset)
    with cpu_time() as took:
        result = engine.run([str(tmp_path / "condor_config")], ruleset=ruleset)
    assert sum(engine.unlisted_count(f) or 1 for f in result.findings if f.code == "CFG104") == 20_000
    mib = len(text) / (1 << 20)
    assert took.seconds < 2 * mib + SLACK_SECONDS, f"{mib:.2f} MiB took {took.seconds:.1f} s"
