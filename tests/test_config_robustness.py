"""Hostile or random configuration text never produces a traceback: only CondorcfgError diagnostics.

Hypothesis builds configs from the language's sharp edges (operators, macro syntax,
functions, if-keywords, continuations, heredoc tags, includes of odd paths, NUL bytes,
non-ASCII) and checks that loading and reading every knob either works or fails with a
CondorcfgError that has a location and a message - in bounded time.
"""
from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

import condorcfg
import condorcfg.classad.parser  # noqa: F401  (raises the recursion limit at import, before hypothesis runs)
import condorcfg.classad.printer  # noqa: F401
from condorcfg.diagnostics import CondorcfgError
from condorcfg.machine import MachineProfile

PROFILE = MachineProfile(hostname="fuzz.example.org", cpus=2, memory=2048, ip="10.1.1.1")
# why an expansion was stopped: a cycle, runaway growth, nesting, or the command's budget (config.limits)
MACRO_CODES = ("macro-cycle", "macro-too-large", "macro-too-deep", "budget-exceeded")
PIECES = ["X", "Y", "x", "TOOL.X", "STARTD.Y", " ", "  ", "\t", "=", "+=", ":", "@=", "@", "end", "@end", "\\",
          "#", "# c", "$(X)", "$(Y:d)", "$(X:$(Y:z))", "$(", ")", "$$(", "$(DOLLAR)", "$INT(X)", "$INT(1e999)",
          "$REAL(X,%d)", "$SUBSTR(X,-3,2)", "$CHOICE(9,a)", "$EVAL(1/0)", "$STRING(X,%s)", "$Fpdnxbqa(X)",
          "$ENV(HOME:h)", "$RANDOM_INTEGER(1,0)", "$RANDOM_CHOICE()", "if", "elif", "else", "endif", "true",
          "defined", "version", ">=", "8.0", "!", "include", "ifexist", "use", "ROLE", "Execute", "FEATURE",
          "PartitionableSlot(", "error", "warning", "[S]", "\x00", "é", "\ufeff", "1", "0", ",", "(", "|",
          "/dev/null", "/nonexistent",
          # numbers and printf formats past C's and Python's limits (big integers, huge widths)
          "$INT(99999999999999999999)", "$REAL(" + "9" * 400 + ")", "$SUBSTR(X,-99999999999999999999)",
          "$CHOICE(" + "9" * 5000 + ",a)", "$INT(1,%2500000000d)", "$REAL(1,%.900000000f)", "$STRING(X,%99999999s)",
          "$RANDOM_INTEGER(0," + "9" * 5000 + ")", "version >= " + "9" * 5000 + ".0", "$INT(-1,%hhx)", "$$([x"]
LINES = s.lists(s.sampled_from(PIECES), min_size=0, max_size=8).map(" ".join)
CONFIGS = s.lists(LINES, min_size=1, max_size=12).map("\n".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=CONFIGS, end=s.sampled_from(["", "\n", "\\\n"]))
def test_random_text_never_crashes(tmp_path, text, end):
    top = tmp_path / "condor_config"
    top.write_bytes((text + end).encode("utf-8", "surrogatepass"))
    start = time.perf_counter()
    try:
        cfg = condorcfg.load([str(top)], machine=PROFILE, environ={"_CONDOR_X": "$(X) env"}, cwd=str(tmp_path))
    except CondorcfgError as exc:
        assert exc.diagnostic.message and exc.diagnostic.severity == "error"
        return
    for name in cfg.names() + ["X", "Y", "START"]:
        try:
            cfg.value(name)
        except CondorcfgError as exc:
            assert exc.diagnostic.code in MACRO_CODES and exc.diagnostic.message
    assert time.perf_counter() - start < 10
