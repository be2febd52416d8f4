"""`condorcfg eval`: values, ads in both syntaxes, and diagnostics instead of tracebacks."""
from __future__ import annotations

import json

from condorcfg.cli import main


def _run(capsys, *argv):
    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_prints_htcondor_values(capsys):
    assert _run(capsys, "1 + 2 * 3") == (0, "7\n", "")
    assert _run(capsys, "1.5 * 2")[1] == "3.000000000000000E+00\n"
    assert _run(capsys, "{1, 1 + 1}")[1] == "{ 1,1 + 1 }\n"
    assert _run(capsys, "x")[1] == "undefined\n"
    assert _run(capsys, '"a\\d"')[1] == '"a\\\\d"\n'  # old syntax: the backslash is literal
    assert _run(capsys, '"a\\d"', "--syntax", "new")[1] == '"ad"\n'


def test_eval_with_my_and_target_ads_in_both_syntaxes(tmp_path, capsys):
    my = tmp_path / "slot.ad"
    my.write_text("Cpus = 4\nMemory = 2048\n")
    target = tmp_path / "job.ad"
    target.write_text('[ RequestMemory = 1024; Owner = "alice" ]')
    code, out, _ = _run(capsys, 'MY.Memory >= TARGET.RequestMemory && Owner == "alice"',
                        "--my", str(my), "--target", str(target))
    assert (code, out) == (0, "true\n")
    code, out, _ = _run(capsys, "Cpus * 2", "--my", str(my), "--format", "json")
    assert json.loads(out) == {"expression": "Cpus * 2", "type": "int", "value": 8, "text": "8"}


def test_eval_syntax_errors_are_diagnostics(tmp_path, capsys):
    code, out, err = _run(capsys, "1 +* 2")
    assert code == 2 and out == ""
    assert err.startswith("<expression>:1:4: error: unexpected '*'") and "^" in err
    bad = tmp_path / "bad.ad"
    bad.write_text("A = 1\nB = (\n")
    code, _, err = _run(capsys, "A", "--my", str(bad))
    assert code == 2 and err.startswith(f"{bad}:2:") and "Traceback" not in err
    code, _, err = _run(capsys, "A", "--my", str(tmp_path / "missing.ad"))
    assert code == 2 and "cannot read" in err
