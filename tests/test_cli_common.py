"""One command line for every command that reads configuration (value, dump, ads, match, diff, eval).

Every command gets the same bad inputs and must answer each with exit status 2 and exactly one
stderr line naming the problem (never a traceback, never exit 1); every command finds the
configuration the same way (--config, PATH, CONDOR_CONFIG, and no quiet built-in answer when
there is none); --sysroot maps absolute paths; a partial machine profile gets the documented
defaults, not this host's facts; ``ads --format json`` feeds ``eval --my -``.

The tests run in a hermetic environment (autouse fixture): no CONDOR_CONFIG, no _CONDOR_*
variables, an empty HOME and system configuration locations that do not exist.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from condorcfg import machine as machine_module
from condorcfg.cli import COMMANDS, main
from condorcfg.config import host

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CONFIG = str(EXAMPLES / "etc" / "condor_config")
PROFILE = str(EXAMPLES / "machines" / "ep-64core.yaml")
STATIC_PROFILE = str(EXAMPLES / "machines" / "ep-16core-static.yaml")
JOB = str(EXAMPLES / "jobs" / "analysis.job")
CONFIG_COMMANDS = ("value", "dump", "ads", "match", "diff", "lint")
DISCOVERING_COMMANDS = ("value", "dump", "ads", "match")  # diff names its OLD and NEW configurations


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    """No configuration anywhere unless a test puts one there."""
    for key in [k for k in os.environ if k == "CONDOR_CONFIG" or k.upper().startswith("_CONDOR_")]:
        monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    nowhere = tmp_path / "nowhere"
    monkeypatch.setattr(host, "SYSTEM_CONFIG_LOCATIONS", (str(nowhere / "etc" / "condor_config"),
                                                          str(nowhere / "usr" / "condor_config")))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_problem(result, *words):
    """Exit 2, nothing on stdout, one stderr line holding every word (case-insensitive)."""
    code, out, err = result
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, (code, err)
    assert out == "", out
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word.lower() in lines[0].lower(), (word, lines[0])
    return lines[0]


def config_argv(command: str, path: str) -> list[str]:
    """``command`` reading ``path`` as its configuration (diff: as the OLD side)."""
    return {
        "value": ["value", "--config", path, "START"],
        "dump": ["dump", path],
        "ads": ["ads", path, "--machine", PROFILE],
        "match": ["match", path, "--machine", PROFILE, "--job", JOB],
        "diff": ["diff", path, CONFIG, "--machine", PROFILE],
        "lint": ["lint", "--config-root", path, "--machine", PROFILE],
    }[command]


def machine_argv(command: str, profile: str) -> list[str]:
    """``command`` reading the example configuration on the machine ``profile``."""
    return {
        "value": ["value", "--config", CONFIG, "--machine", profile, "START"],
        "dump": ["dump", CONFIG, "--machine", profile],
        "ads": ["ads", CONFIG, "--machine", profile],
        "match": ["match", CONFIG, "--machine", profile, "--job", JOB],
        "diff": ["diff", CONFIG, CONFIG, "--machine", profile],
        "lint": ["lint", "--config-root", CONFIG, "--machine", profile],
    }[command]


# --- unusable input: exit 2, one line ------------------------------------------------------------

def _binary(path: Path) -> str:
    path.write_bytes(b"X = 1\n\0\0\0\n")
    return str(path)


def _bad_config_inputs(tmp_path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (path, words the one stderr line must hold)."""
    (tmp_path / "empty.d").mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    nested = tmp_path / "config.d"
    nested.mkdir()
    (nested / "10-ok").write_text("X = 1\n")
    _binary(nested / "20-binary")
    with open(tmp_path / "huge", "wb") as handle:  # sparse: past the size limit without writing it
        handle.truncate(17 * 1024 * 1024)
    return {
        "too large": (str(tmp_path / "huge"), ["huge", "larger than"]),
        "missing": (str(tmp_path / "missing"), ["missing", "no such file"]),
        "empty directory": (str(tmp_path / "empty.d"), ["empty.d", "no configuration file"]),
        "fifo": (str(fifo), ["fifo", "not a regular file"]),
        "binary file": (_binary(tmp_path / "binary"), ["binary", "NUL"]),
        "binary file in config.d": (str(nested), ["20-binary", "NUL"]),
    }


BAD_CONFIG_CASES = ("missing", "empty directory", "fifo", "binary file", "binary file in config.d", "too large")


@pytest.mark.parametrize("case", BAD_CONFIG_CASES)
@pytest.mark.parametrize("command", CONFIG_COMMANDS)
def test_unusable_configuration_exits_2_with_one_line(command, case, tmp_path, capsys):
    path, words = _bad_config_inputs(tmp_path)[case]
    assert_one_problem(run(capsys, *config_argv(command, path)), *words)


def test_diff_checks_the_new_side_too(tmp_path, capsys):
    assert_one_problem(run(capsys, "diff", CONFIG, str(tmp_path / "missing"), "--no-ads"), "missing")


def _bad_profiles(tmp_path: Path) -> dict[str, tuple[str, list[str]]]:
    def write(name: str, content: bytes) -> str:
        (tmp_path / name).write_bytes(content)
        return str(tmp_path / name)

    (tmp_path / "profile.d").mkdir()
    return {
        "missing": (str(tmp_path / "missing.yaml"), ["missing.yaml", "machine profile"]),
        "directory": (str(tmp_path / "profile.d"), ["profile.d", "directory"]),
        "binary": (write("binary.yaml", b"cpus: 4\n\0"), ["binary.yaml", "NUL"]),
        "not UTF-8": (write("latin1.yaml", "hostname: café\n".encode("latin-1")), ["latin1.yaml:1:", "UTF-8"]),
        "malformed YAML": (write("broken.yaml", b"cpus: [4\n"), ["broken.yaml", "not valid YAML"]),
        "malformed JSON": (write("broken.json", b'{"cpus": 4,}'), ["broken.json:1:", "not valid JSON"]),
        "YAML list": (write("list.yaml", b"- cpus: 4\n"), ["list.yaml", "mapping"]),
        "JSON list": (write("list.json", b'[{"cpus": 4}]'), ["list.json", "mapping"]),
        "empty": (write("empty.yaml", b""), ["empty.yaml", "mapping"]),
        "1e400 in YAML": (write("inf.yaml", b"cpus: 1e400\n"), ["inf.yaml", "'cpus'"]),
        "1e400 in JSON": (write("inf.json", b'{"memory": 1e400}'), ["inf.json", "'memory'"]),
        "huge integer": (write("huge.yaml", b"disk: " + b"9" * 60 + b"\n"), ["huge.yaml", "'disk'", "between"]),
        "giant integer": (write("giant.json", b'{"cpus": ' + b"9" * 5000 + b"}"), ["giant.json", "JSON"]),
        "huge resource": (write("res.yaml", b"resources: {Foo: 1e400}\n"), ["res.yaml", "'Foo'"]),
        "text key given a list": (write("host.yaml", b"hostname: [a, b]\n"), ["host.yaml", "'hostname'"]),
        "unknown key": (write("typo.yaml", b"cpu: 4\n"), ["typo.yaml", "'cpu'"]),
    }


BAD_PROFILE_CASES = ("missing", "directory", "binary", "not UTF-8", "malformed YAML", "malformed JSON",
                     "YAML list", "JSON list", "empty", "1e400 in YAML", "1e400 in JSON", "huge integer",
                     "giant integer", "huge resource", "text key given a list", "unknown key")


@pytest.mark.parametrize("case", BAD_PROFILE_CASES)
@pytest.mark.parametrize("command", CONFIG_COMMANDS)
def test_unusable_machine_profile_exits_2_with_one_line(command, case, tmp_path, capsys):
    path, words = _bad_profiles(tmp_path)[case]
    assert_one_problem(run(capsys, *machine_argv(command, path)), *words)


def _bad_ad_files(tmp_path: Path) -> dict[str, tuple[str, list[str]]]:
    (tmp_path / "ads.d").mkdir()
    fifo = tmp_path / "ad.fifo"
    os.mkfifo(fifo)
    return {
        "missing": (str(tmp_path / "missing.ad"), ["missing.ad", "cannot read"]),
        "directory": (str(tmp_path / "ads.d"), ["ads.d", "directory"]),
        "fifo": (str(fifo), ["ad.fifo", "not a regular file"]),
        "binary": (_binary(tmp_path / "binary.ad"), ["binary.ad", "NUL"]),
    }


@pytest.mark.parametrize("case", ("missing", "directory", "fifo", "binary"))
@pytest.mark.parametrize("argv", (["match", CONFIG, "--machine", PROFILE, "--job"], ["eval", "1", "--my"],
                                  ["eval", "1", "--target"]), ids=("match-job", "eval-my", "eval-target"))
def test_unusable_ad_file_exits_2_with_one_line(argv, case, tmp_path, capsys):
    path, words = _bad_ad_files(tmp_path)[case]
    assert_one_problem(run(capsys, *argv, path), *words)


def test_command_line_overrides_obey_the_profile_bounds(capsys):
    assert_one_problem(run(capsys, "ads", CONFIG, "--machine", PROFILE, "--cpus", "10000000"), "--cpus", "between")


# --- finding the configuration ------------------------------------------------------------------

@pytest.mark.parametrize("command", DISCOVERING_COMMANDS)
def test_no_configuration_anywhere_is_an_error_not_a_default(command, capsys):
    argv = {"value": ["value", "START"], "dump": ["dump"], "ads": ["ads", "--machine", PROFILE],
            "match": ["match", "--machine", PROFILE, "--job", JOB]}[command]
    line = assert_one_problem(run(capsys, *argv), "CONDOR_CONFIG is not set", "pass --config")
    assert line.startswith(f"condorcfg {command}: no configuration found: ")
    assert all(place in line for place in host.SYSTEM_CONFIG_LOCATIONS)


@pytest.mark.parametrize("command", DISCOVERING_COMMANDS)
def test_condor_config_naming_a_missing_file_is_an_error(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CONDOR_CONFIG", str(tmp_path / "gone"))
    argv = {"value": ["value", "START"], "dump": ["dump"], "ads": ["ads", "--machine", PROFILE],
            "match": ["match", "--machine", PROFILE, "--job", JOB]}[command]
    line = assert_one_problem(run(capsys, *argv), "no configuration found", "gone", "does not exist")
    assert line.startswith(f"condorcfg {command}: ")


def test_condor_config_only_env_stays_valid(monkeypatch, capsys):
    monkeypatch.setenv("CONDOR_CONFIG", "ONLY_ENV")
    monkeypatch.setenv("_CONDOR_FROM_ENV", "yes")
    assert run(capsys, "value", "FROM_ENV") == (0, "yes\n", "")


def test_condor_config_is_honoured_by_every_command(monkeypatch, capsys):
    monkeypatch.setenv("CONDOR_CONFIG", CONFIG)
    assert run(capsys, "value", "SITE_NAME")[:2] == (0, '"Example-Pool"\n')
    code, out, _ = run(capsys, "dump", "--format", "json")
    assert code == 0 and json.loads(out)["COLLECTOR_NAME"] == "Example Pool"
    code, out, err = run(capsys, "ads", "--machine", PROFILE, "--format", "json")
    assert code == 0, err
    assert [ad["SITE_NAME"] for ad in json.loads(out)] == ["Example-Pool"]
    code, out, err = run(capsys, "match", "--machine", PROFILE, "--job", JOB)
    assert code == 0 and "1 of 1 slots match" in out, err


def test_config_options_and_paths_read_in_order_over_condor_config(tmp_path, monkeypatch, capsys):
    env, first, second = (tmp_path / name for name in ("env.conf", "first.conf", "second.conf"))
    env.write_text("X = env\n")
    first.write_text("X = first\nY = first\n")
    second.write_text("X = second\n")
    monkeypatch.setenv("CONDOR_CONFIG", str(env))
    assert run(capsys, "value", "--config", str(first), "--config", str(second), "X", "Y")[:2] == (
        0, "second\nfirst\n")
    code, out, _ = run(capsys, "dump", "--config", str(first), str(second), "--format", "json")
    assert code == 0 and (json.loads(out)["X"], json.loads(out)["Y"]) == ("second", "first")


def test_slot_commands_read_as_the_startd_unless_told(tmp_path, capsys):
    config = tmp_path / "condor_config"
    config.write_text('STARTD.SITE = "startd"\nCOLLECTOR.SITE = "collector"\nSITE = "generic"\n'
                      "STARTD_ATTRS = SITE\n")
    (ad,) = json.loads(run(capsys, "ads", str(config), "--machine", PROFILE, "--format", "json")[1])
    assert ad["SITE"] == "startd"
    (ad,) = json.loads(run(capsys, "ads", str(config), "--machine", PROFILE, "--format", "json",
                           "--subsystem", "COLLECTOR")[1])
    assert ad["SITE"] == "collector"


# --- --sysroot ----------------------------------------------------------------------------------

ABSOLUTE_DIR = "/condorcfg-test-sysroot/config.d"  # a path no host has


@pytest.fixture
def sysroot_tree(tmp_path):
    """A repository holding a host's tree: the top file names its config.d by absolute path."""
    root = tmp_path / "root"
    local = root / ABSOLUTE_DIR.lstrip("/")
    local.mkdir(parents=True)
    (local / "50-site").write_text('SITE_TAG = "from-sysroot"\nSTARTD_ATTRS = $(STARTD_ATTRS) SITE_TAG\n')
    top = tmp_path / "condor_config"
    top.write_text(f"LOCAL_CONFIG_DIR = {ABSOLUTE_DIR}\n")
    return str(top), str(root)


def test_sysroot_maps_an_absolute_local_config_dir_for_value(sysroot_tree, capsys):
    top, root = sysroot_tree
    assert run(capsys, "value", "--config", top, "--sysroot", root, "SITE_TAG")[:2] == (0, '"from-sysroot"\n')
    code, _, err = run(capsys, "value", "--config", top, "SITE_TAG")
    assert code == 1 and "Not defined: SITE_TAG" in err


def test_sysroot_maps_an_absolute_local_config_dir_for_ads(sysroot_tree, capsys):
    top, root = sysroot_tree
    code, out, err = run(capsys, "ads", top, "--machine", PROFILE, "--sysroot", root, "--format", "json")
    assert code == 0, err
    assert [ad["SITE_TAG"] for ad in json.loads(out)] == ["from-sysroot"]
    code, out, _ = run(capsys, "ads", top, "--machine", PROFILE, "--format", "json")
    assert code == 0 and "SITE_TAG" not in json.loads(out)[0]


# --- machine profile defaults -------------------------------------------------------------------

def test_partial_profile_gets_the_documented_defaults_not_this_host(tmp_path, capsys):
    profile = tmp_path / "partial.yaml"
    profile.write_text("cpus: 8\n")
    config = tmp_path / "condor_config"
    config.write_text("X = 1\n")
    code, out, err = run(capsys, "value", "--config", str(config), "--machine", str(profile), "FULL_HOSTNAME",
                         "HOSTNAME", "IP_ADDRESS", "IPV6_ADDRESS", "DETECTED_CPUS", "DETECTED_MEMORY", "OPSYS",
                         "ARCH", "UNAME_ARCH", "OPSYSNAME", "UTSNAME_RELEASE")
    assert out.splitlines() == ["localhost.localdomain", "localhost", "127.0.0.1", "8", "1024", "LINUX", "X86_64",
                                "x86_64"]
    assert code == 1 and {"Not defined: IPV6_ADDRESS", "Not defined: OPSYSNAME",
                          "Not defined: UTSNAME_RELEASE"} <= set(err.splitlines())


def test_partial_profile_sizes_slots_from_the_defaults(tmp_path, capsys):
    profile = tmp_path / "partial.json"
    profile.write_text('{"hostname": "p.example.org"}')
    config = tmp_path / "condor_config"
    config.write_text("RESERVED_MEMORY = 0\n")
    code, out, err = run(capsys, "ads", str(config), "--machine", str(profile), "--format", "json")
    assert code == 0, err
    (ad,) = json.loads(out)
    defaults = machine_module.MachineProfile()
    assert (ad["Machine"], ad["Cpus"], ad["Memory"], ad["Disk"], ad["OpSys"], ad["Arch"]) == (
        "p.example.org", defaults.cpus, defaults.memory, defaults.disk, defaults.opsys, defaults.arch)


def test_from_mapping_starts_from_the_defaults():
    assert machine_module.from_mapping({}, source="p") == machine_module.MachineProfile(source="p")


def test_the_module_docstring_documents_every_default():
    """The defaults table in condorcfg/machine.py (copied into the README) says what the code does."""
    rows = {line.split()[0]: line for line in machine_module.__doc__.splitlines()
            if line.startswith("    ") and line.split()}
    defaults = machine_module.MachineProfile()
    for name in machine_module.MachineProfile.KEYS:
        if name == "source":
            continue
        value = getattr(defaults, name)
        assert name in rows, name
        documented = rows[name].split()[1]
        assert documented == (str(value) if value not in ("", {}) else "none") or (
            name == "os_long_name" and documented.startswith('"<os_name>')), (name, documented)


# --- --format json everywhere, ads --format json | eval --my - -------------------------------------

@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_offers_text_and_json(command):
    import argparse
    import importlib

    parser = argparse.ArgumentParser()
    importlib.import_module(COMMANDS[command][0]).add_arguments(parser)
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    parsers = list(actions[0].choices.values()) if actions else [parser]  # (qube eval, qube translate)
    for each in parsers:
        (option,) = [a for a in each._actions if "--format" in a.option_strings]
        assert {"text", "json"} <= set(option.choices)
        assert option.default in ("text", None)  # None: lint picks text, or github on GitHub Actions


def test_ads_text_format_is_long(capsys):
    text = run(capsys, "ads", CONFIG, "--machine", PROFILE, "--format", "text")
    long = run(capsys, "ads", CONFIG, "--machine", PROFILE, "--format", "long")
    default = run(capsys, "ads", CONFIG, "--machine", PROFILE)
    assert text[0] == 0 and text[1].startswith("Activity = ")
    # the default PERIODIC_CHECKPOINT holds a random number: compare everything else
    strip = lambda out: [line for line in out.splitlines() if not line.startswith("PERIODIC_CHECKPOINT")]  # noqa: E731
    assert strip(text[1]) == strip(long[1]) == strip(default[1])


def test_match_json(capsys):
    code, out, err = run(capsys, "match", CONFIG, "--machine", PROFILE, "--job", JOB, "--format", "json")
    report = json.loads(out)
    assert (code, report["job"], report["matched"]) == (0, JOB, 1), err
    (slot,) = report["slots"]
    assert (slot["slot"], slot["matches"], slot["slot_requirements"], slot["job_requirements"]) == (
        "slot1@ep01.example.org", True, True, True)
    assert slot["clauses"] and all(c["ok"] and c["value"] == "true" for c in slot["clauses"])
    # a static 1-CPU slot: the slot accepts the job, the job's Requirements refuse the slot
    code, out, _ = run(capsys, "match", CONFIG, "--machine", STATIC_PROFILE, "--job", JOB, "--slot", "1",
                       "--format", "json")
    report = json.loads(out)
    (slot,) = report["slots"]
    assert (code, report["matched"], slot["slot_requirements"], slot["job_requirements"]) == (1, 0, True, False)
    assert [(c["side"], c["origin"], c["clause"], c["value"]) for c in slot["clauses"] if not c["ok"]] == [
        ("job", "Requirements", "TARGET.Memory >= RequestMemory", "false"),
        ("job", "Requirements", "TARGET.Cpus >= RequestCpus", "false")]


def test_explain_json(capsys):
    code, out, _ = run(capsys, "explain", "POL501", "--format", "json")
    rule = json.loads(out)
    assert code == 0 and (rule["code"], rule["rule"]) == ("POL501", "job-attr-in-is-owner")
    assert rule["rationale"] and rule["fix"] and rule["examples"]["fail"]


def _pipe(capsys, monkeypatch, producer: list[str], consumer: list[str]):
    code, out, err = run(capsys, *producer)
    assert code == 0, err
    monkeypatch.setattr("sys.stdin", io.StringIO(out))
    return run(capsys, *consumer)


def test_ads_json_feeds_eval_my(capsys, monkeypatch):
    ads = ["ads", CONFIG, "--machine", PROFILE, "--format", "json", "--slot", "1"]
    assert _pipe(capsys, monkeypatch, ads, ["eval", "Cpus * 2", "--my", "-"]) == (0, "128\n", "")
    # Start is an expression (written "\/Expr(...)\/"), evaluated against the job, not a string
    code, out, _ = _pipe(capsys, monkeypatch, ads, ["eval", "Start", "--my", "-", "--target", JOB, "--format",
                                                     "json"])
    assert code == 0 and json.loads(out)["type"] == "bool" and json.loads(out)["value"] is True
    code, out, _ = _pipe(capsys, monkeypatch, ads, ["eval", "Requirements", "--my", "-", "--target", JOB])
    assert (code, out) == (0, "true\n")


def test_eval_picks_one_of_several_ads_with_slot(capsys, monkeypatch):
    ads = ["ads", CONFIG, "--machine", STATIC_PROFILE, "--format", "json"]
    assert _pipe(capsys, monkeypatch, ads, ["eval", "Name", "--my", "-", "--slot", "3"]) == (
        0, '"slot3@ep02.example.org"\n', "")
    assert_one_problem(_pipe(capsys, monkeypatch, ads, ["eval", "Name", "--my", "-"]),
                       "the input holds 16 ads; pick one with --slot N")
    assert_one_problem(_pipe(capsys, monkeypatch, ads, ["eval", "Name", "--my", "-", "--slot", "17"]),
                       "no ad of slot 17")
    long = ["ads", CONFIG, "--machine", STATIC_PROFILE]  # the same choice in condor_status -l form
    assert _pipe(capsys, monkeypatch, long, ["eval", "SlotID", "--my", "-", "--slot", "5"])[:2] == (0, "5\n")


def test_eval_reads_one_json_object_and_json_values(tmp_path, capsys):
    ad = tmp_path / "ad.json"
    ad.write_text('{"Cpus": 3, "Ratio": 0.5, "Name": "x", "Gone": null, "Ok": true, "Ids": [1, 2],'
                  ' "Start": "\\/Expr(Cpus > 2 && Ok)\\/", "Piped": "/Expr(Cpus * 2)/"}')
    for expression, expected in (("Start", "true"), ("Piped", "6"), ("Gone", "undefined"), ("Ratio * 2", "1.0"),
                                 ("size(Ids)", "2"), ('Name == "x"', "true")):
        code, out, err = run(capsys, "eval", expression, "--my", str(ad), "--format", "json")
        assert code == 0 and json.loads(out)["text"].startswith(expected), (expression, out, err)


@pytest.mark.parametrize("text, words", (
    ('[{"Cpus": 1}, 7]', ["ad 2", "not an object"]),
    ('{"Cpus": 1,}', ["not valid JSON"]),
    ('{"Start": "\\/Expr(Cpus >)\\/"}', ["Start", "does not parse"]),
    ('{"Big": 99999999999999999999}', ["Big", "64-bit"]),
))
def test_eval_bad_json_ads_exit_2(text, words, tmp_path, capsys):
    ad = tmp_path / "ad.json"
    ad.write_text(text)
    assert_one_problem(run(capsys, "eval", "1", "--my", str(ad)), "ad.json", *words)


def test_eval_stdin_serves_one_input(capsys):
    assert_one_problem(run(capsys, "eval", "1", "--my", "-", "--target", "-"), "standard input")


def test_the_readme_documents_the_same_defaults():
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    table = {}
    for keys, default in re.findall(r"^\| (`[^|]+`) \| ([^|]+) \|", readme, re.M):
        names = re.findall(r"`(\w+)`", keys)
        values = [v.strip() for v in default.split("/")]
        for name, value in zip(names, values * len(names) if len(values) == 1 else values):
            table[name] = value
    defaults = machine_module.MachineProfile()
    for name in machine_module.MachineProfile.KEYS:
        if name == "source":
            continue
        value = getattr(defaults, name)
        assert name in table, f"README's profile table lacks {name}"
        shown = re.sub(r"\s*\(.*\)", "", table[name]).strip("` ")
        assert shown == (str(value) if value not in ("", {}) else "none"), (name, shown)


# --- the program entry: exits without tearing the interpreter down, output complete -----------------

@pytest.mark.parametrize("argv, status", [
    (["value", "--config", CONFIG, "--machine", PROFILE, "NUM_CPUS", "NO_SUCH_KNOB"], 1),
    (["dump", "--config", CONFIG, "--machine", PROFILE], 0),
    (["value", "--config", "/no/such/file", "START"], 2),
])
def test_the_program_flushes_everything_and_keeps_the_exit_status(argv, status):
    program = subprocess.run([sys.executable, "-m", "condorcfg", *argv], capture_output=True, text=True,
                             timeout=120, check=False)
    in_process = subprocess.run([sys.executable, "-c", "import sys; from condorcfg.cli import main; "
                                 "sys.exit(main(sys.argv[1:]))", *argv], capture_output=True, text=True,
                                timeout=120, check=False)
    assert program.returncode == in_process.returncode == status
    assert program.stdout == in_process.stdout and program.stderr == in_process.stderr
    assert program.stdout or program.stderr
