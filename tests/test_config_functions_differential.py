"""Dollar functions against HTCondor 25.14.1: a seeded generator of $SUBSTR, $CHOICE, $EVAL, $INT,
$REAL and $F<letters> calls, with the argument forms HTCondor reads in its own way (untrimmed
knob names, reals and expressions as indexes, C number forms, printf formats, path letters),
all compared with the oracle in one configuration.

Documented differences (HTCondor's behaviour is undefined there or it crashes; condorcfg reports
an error instead of printing garbage): more ``d`` letters than the path has directories,
``%La``, and a ``$REAL`` format that prints 55 characters before any ``.`` (``%f`` of 1e300).
"""
from __future__ import annotations

import random

import pytest

import condorcfg
from condorcfg.machine import MachineProfile

SEED = 20261123
PATHS = ["/a/b/c/file.tar.gz", "a\\b\\c.txt", "noext", ".bashrc", "/a/b/", "file.txt", '"/x/y z/f.c"', "'q.t'",
         "dir/sub/", "a/b.c/d", "", "x/.hidden", "/top.x"]
LETTERS = "xnpdbqauwf"
INDEXES = ["2", "2.5", "-1.5", "true", "1+1", '"2"', "2e0", " 2 ", "IDX", " IDX", "IDX ", "0x2", "undefined",
           "-0.5", "1e20", " 1.5", "RIDX", "0", "-3", "10", "2147483648", "BOOL"]
NUMBERS = ["1.5", "1", "0", "-0", "0.1", "1e300", "5e-324", "-2.75", "inf", "0x10", "abc", "1e400", "nan",
           "-inf", "255", "0x1.8p1", "INFINITY", "1+2", "N3", "S1", "true", " 7 ", "-9223372036854775809"]
INT_FORMATS = ["%d", "%5d", "%-5d|", "%05d", "%x", "%X", "%#o", "%+d", "%c", "%s", "%f", "%ld", "%hhd", "%u", "%%d"]
REAL_FORMATS = ["%a", "%A", "%.2a", "%.0a", "%+a", "% a", "%#.0a", "%12a", "%012a", "%.20a", "%s", "%d", "%.3e",
                "%g", "%G", "%f", "%10.4f", "%-8.1f|", "%e"]
EVAL_BODIES = ["1 + 2", "S1", "N3", "K", "P6", '"text"', "strcat(\"a\", \"b\")", "1/0", "x y", "$(S1)", "$(N3)",
               "{1, 2}", "[a = 1]", "undefined", "size(\"abc\")", ".attr", "real(\"INF\")"]
HEADER = ("S1 = abcdef\nIDX = 2\nRIDX = 1.9\nBOOL = true\nN3 = 2 * 3 + 1\nD = 5\nK = x $(D)\nP6 = .bashrc\n"
          "L = a,b,,c,d\n")


def _too_many_dirs(path: str, letters: str) -> bool:
    stripped = path.strip("\"'")
    separators = stripped.count("/") + (stripped.count("\\") if "u" in letters or "w" in letters else 0)
    return "d" in letters and letters.count("d") > separators


def generate(rng: random.Random, count: int = 400) -> list[tuple[str, str]]:
    """(knob, value) pairs, each value one function call between <> so empty results show."""
    calls = []
    for number in range(count):
        kind = rng.choice(["substr", "substr3", "choice", "choice-items", "eval", "int", "real", "file"])
        if kind == "substr":
            call = f"$SUBSTR(S1,{rng.choice(INDEXES)})"
        elif kind == "substr3":
            call = f"$SUBSTR(S1,{rng.choice(INDEXES)},{rng.choice(INDEXES)})"
        elif kind == "choice":
            call = f"$CHOICE({rng.choice(INDEXES)},L)"
        elif kind == "choice-items":
            call = f"$CHOICE({rng.choice(INDEXES)}, x, y ,z)"
        elif kind == "eval":
            call = f"$EVAL({rng.choice(EVAL_BODIES)})"
        elif kind == "int":
            fmt = rng.choice(INT_FORMATS + [None] * 5)
            call = f"$INT({rng.choice(NUMBERS)}{',' + fmt if fmt else ''})"
        elif kind == "real":
            fmt = rng.choice(REAL_FORMATS + [None] * 5)
            value = rng.choice(NUMBERS)
            if value == "1e300" and fmt and "f" in fmt:
                continue  # 301 digits fill HTCondor's buffer before the ".": it crashes adding ".0" (reported)
            call = f"$REAL({value}{',' + fmt if fmt else ''})"
        else:
            path = rng.choice(PATHS)
            letters = "".join(rng.choice(LETTERS) for _ in range(rng.randint(0, 4)))
            if _too_many_dirs(path, letters):
                continue  # undefined in HTCondor (documented above)
            calls.append((f"PATH{number}", path))
            call = f"$F{letters}(PATH{number})"
        calls.append((f"V{number}", f"<{call}>"))
    return calls


def test_dollar_functions_match_htcondor(oracle, tmp_path):
    pairs = generate(random.Random(SEED))
    text = HEADER + "".join(f"{name} = {value}\n" for name, value in pairs)
    knobs = [name for name, _ in pairs if name.startswith("V")]
    expected = oracle.config_values(text, knobs, timeout=120)
    assert expected["error"] is None, expected["error"]
    path = tmp_path / "condor_config"
    path.write_text(text)
    config = condorcfg.load([str(path)], machine=MachineProfile(hostname=oracle.PINNED_HOST), environ={})
    values = dict(pairs)
    mismatches = [(values[k], expected["expect"][k], config.value(k)) for k in knobs
                  if config.value(k) != expected["expect"][k]]
    assert not mismatches, f"{len(mismatches)} of {len(knobs)} differ (call, HTCondor, condorcfg): {mismatches[:10]}"


@pytest.mark.parametrize("text, message", [
    ("P = /top.x\nV = $Fdd(P)\n", "fewer directories"),
    ("V = $REAL(1.5,%La)\n", "undefined"),
])
def test_what_htcondor_leaves_undefined_is_reported(tmp_path, text, message):
    path = tmp_path / "condor_config"
    path.write_text(text)
    config = condorcfg.load([str(path)], machine=MachineProfile(hostname="h.example.org"), environ={})
    assert not config.value("V")  # (value() gives None for an empty value)
    assert any(message in d.message for d in config.diagnostics), [d.message for d in config.diagnostics]


def test_explicit_subsystem_prefixes_read_that_subsystems_defaults(oracle, tmp_path):
    """``$(STARTD.IsStartd)`` is ``true`` in HTCondor whatever subsystem reads it: every entry of every
    per-subsystem default table, read as TOOL, STARTD and SCHEDD (HTCondor's search misses a few
    region tables; those stay unset here too)."""
    from condorcfg.config.defaults import _table

    names = [f"{prefix}.{name}" for prefix, entries in sorted(_table()["subsystems"].items()) for name in sorted(entries)]
    text = "".join(f"P{i} = <$({name})>\n" for i, name in enumerate(names))
    text += "if defined STARTD.IsStartd\nDEFINED = yes\nelse\nDEFINED = no\nendif\n"
    knobs = [f"P{i}" for i in range(len(names))] + ["DEFINED"]
    expected = oracle.config_values(text, knobs, timeout=120)["expect"]
    path = tmp_path / "condor_config"
    path.write_text(text)
    for subsystem in (None, "STARTD", "SCHEDD"):
        config = condorcfg.load([str(path)], machine=MachineProfile(hostname=oracle.PINNED_HOST), environ={},
                                subsystem=subsystem)
        wrong = [(knob, expected[knob], config.value(knob)) for knob in knobs if config.value(knob) != expected[knob]]
        assert not wrong, (subsystem, wrong[:5])
