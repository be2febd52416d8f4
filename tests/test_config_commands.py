"""The `condorcfg value` and `condorcfg dump` commands (run in-process through the CLI dispatcher)."""
from __future__ import annotations

import json

import pytest

from condorcfg.cli import main


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    profile = tmp_path / "machine.json"
    profile.write_text(json.dumps({"hostname": "node1.example.org", "cpus": 4, "memory": 8192, "ip": "10.0.0.5"}))
    top = tmp_path / "condor_config"
    top.write_text("X = 1\nY = $(X) two\nuse ROLE : Execute\nDAEMON_LIST = $(DAEMON_LIST) FOO\n"
                   "STARTD.Z = startd\nZ = generic\nA = $(B)\nB = $(A)\n")
    for key in [k for k in __import__("os").environ if k.upper().startswith("_CONDOR_")]:
        monkeypatch.delenv(key)
    return str(top), str(profile)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_value_text(capsys, config_file):
    top, profile = config_file
    code, out, err = run(capsys, "value", "--config", top, "--machine", profile, "X", "y", "DAEMON_LIST", "NUM_CPUS")
    assert code == 0 and out.splitlines() == ["1", "1 two", "MASTER STARTD FOO", "4"]


def test_value_undefined_exits_1(capsys, config_file):
    top, profile = config_file
    code, out, err = run(capsys, "value", "--config", top, "--machine", profile, "X", "NOPE")
    assert code == 1 and out == "1\n" and "Not defined: NOPE" in err


def test_value_json_and_subsystem(capsys, config_file):
    top, profile = config_file
    code, out, _ = run(capsys, "value", "--config", top, "--machine", profile, "--format", "json",
                       "--subsystem", "STARTD", "Z", "NOPE")
    assert json.loads(out) == {"Z": "startd", "NOPE": None} and code == 1


def test_value_verbose(capsys, config_file):
    top, profile = config_file
    code, out, _ = run(capsys, "value", "--config", top, "--machine", profile, "--verbose", "DAEMON_LIST")
    assert code == 0
    assert f"defined at {top}:4:1" in out
    assert "raw: MASTER STARTD FOO" in out
    assert "template ROLE:Execute, used at" in out and "overrode:" in out
    code, out, _ = run(capsys, "value", "--config", top, "--machine", profile, "-v", "--format", "json", "Y")
    info = json.loads(out)["Y"]
    assert info["value"] == "1 two" and info["raw"] == "$(X) two" and info["origin"] == "file"


def test_value_cycle_is_an_error_not_a_hang(capsys, config_file):
    top, profile = config_file
    code, out, err = run(capsys, "value", "--config", top, "--machine", profile, "A")
    assert code == 2 and "A -> B -> A" in err and "Traceback" not in err


def test_rejected_config_exits_2_with_location(capsys, tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("X = 1\nif maybe\nendif\n")
    code, out, err = run(capsys, "value", "--config", str(bad), "X")
    assert code == 2 and err.startswith(f"{bad}:2:1: error") and out == ""


def test_dump(capsys, config_file):
    top, profile = config_file
    code, out, err = run(capsys, "dump", "--config", top, "--machine", profile)
    lines = out.splitlines()
    assert "X = 1" in lines and "Y = 1 two" in lines and "DAEMON_LIST = MASTER STARTD FOO" in lines
    assert not any(line.startswith("MINUTE =") for line in lines)
    assert code == 2 and "A -> B -> A" in err  # the cycle is reported, the rest is printed
    code, out, _ = run(capsys, "dump", "--config", top, "--machine", profile, "--all", "--format", "json")
    data = json.loads(out)
    assert data["MINUTE"] == "60" and data["X"] == "1" and data["A"] is None
    code, out, _ = run(capsys, "dump", "--config", top, "--machine", profile, "--raw", "--subsystem", "STARTD")
    assert "Y = $(X) two" in out.splitlines() and "Z = startd" in out.splitlines()


def test_value_discovers_condor_config_and_local_name(capsys, tmp_path, monkeypatch):
    top = tmp_path / "condor_config"
    top.write_text("FOO = generic\nSTARTD.FOO = startd\nLN.FOO = local\nBAD = <$INT(FOO)>\n")
    monkeypatch.setenv("CONDOR_CONFIG", str(top))
    code, out, _ = run(capsys, "value", "FOO")
    assert (code, out) == (0, "generic\n")
    code, out, _ = run(capsys, "value", "--subsystem", "STARTD", "--local-name", "LN", "FOO")
    assert (code, out) == (0, "local\n")
    code, out, err = run(capsys, "value", "BAD")  # a $FUNC() error is a warning, the value is still printed
    assert code == 0 and out == "<>\n" and "$INT() macro: generic does not evaluate to an integer!" in err


def test_command_include_skipped_unless_allowed(capsys, tmp_path):
    top = tmp_path / "condor_config"
    top.write_text("include : /bin/echo X = ran |\nY = 1\n")
    code, out, err = run(capsys, "value", "--config", str(top), "Y", "X")
    assert code == 1 and out == "1\n" and "command-include" in err and "--allow-exec" in err
    code, out, err = run(capsys, "value", "--config", str(top), "--allow-exec", "X")
    assert (code, out) == (0, "ran\n")


def test_value_cold_start_imports_only_what_it_needs():
    """`condorcfg value` must start fast: the heavy or unneeded modules stay unimported on its path.

    (A wall-clock bound would be flaky on a shared machine; measured numbers are in the report.)
    """
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "etc" / "condor_config"
    code = ("import contextlib, io, sys\n"
            "from condorcfg.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    status = main(['value', '--config', {str(example)!r}, 'START'])\n"
            "print(status, sorted(m for m in sys.modules if m.split('.')[0] in sys.argv[1:] or m in sys.argv[1:]))\n")
    # (condorcfg.classad.budget, the per-command evaluation budget the CLI opens, costs ~2 ms)
    unwanted = ["typing", "random", "hashlib", "difflib", "subprocess", "lark", "jinja2", "ruamel", "regex",
                "condorcfg.classad.parser", "condorcfg.classad.evaluator", "condorcfg.classad.functions",
                "condorcfg.slots", "condorcfg.lint", "condorcfg.report"]
    proc = subprocess.run([sys.executable, "-c", code, *unwanted], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    status, _, imported = proc.stdout.strip().partition(" ")
    assert status == "0" and imported == "[]", imported


def test_value_verbose_nested_template_points_at_the_users_use_line(capsys, tmp_path):
    top = tmp_path / "condor_config"
    top.write_text("X = 1\nuse POLICY : Desktop\n")
    code, out, _ = run(capsys, "value", "--config", str(top), "--subsystem", "STARTD", "-v", "--format", "json",
                       "PolicyExprFragments")
    info = json.loads(out)["PolicyExprFragments"]
    assert code == 0 and info["template"].upper() == "FEATURE:POLICY_EXPR_FRAGMENTS"
    assert info["used_at"] == f"{top}:2:1"  # the user's line, not the `use` inside policy.config
    chain = info["template_chain"]
    assert [step["template"].upper() for step in chain] == ["POLICY:DESKTOP", "FEATURE:POLICY_EXPR_FRAGMENTS"]
    assert chain[0]["used_at"] == f"{top}:2:1" and "policy.config" in chain[1]["used_at"]
    code, out, _ = run(capsys, "value", "--config", str(top), "--subsystem", "STARTD", "-v", "PolicyExprFragments")
    assert f"used at {top}:2:1" in out and "# through templates:" in out
