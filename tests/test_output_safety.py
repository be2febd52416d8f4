"""Nothing condorcfg prints can act on a terminal or a CI log, and nothing it prints can crash.

Configuration is proposed by anyone in a pull request, and condorcfg prints parts of it in CI.
These tests write hostile text (C0/C1 controls, DEL, line and paragraph separators, bidi
controls, zero-width characters, lone surrogates, GitHub/Azure/TeamCity workflow commands,
escape sequences that set the title, clear the screen or fake a green "All checks passed")
into knob values, heredoc bodies, ``warning :``/``error :`` statements, config.d file names,
a job ad, a machine profile and a rule file, then run every command and every lint format
through :func:`condorcfg.cli.main` and check what came out:

* every character is printable (``str.isprintable()``) or a line break the output meant;
* no line is one a CI runner would execute (the oracle below follows the GitHub runner's
  parser), except the github format's own annotations;
* the output encodes as strict UTF-8 (pytest's capture is strict UTF-8, so a lone surrogate
  reaching stdout already fails the command; the encode makes it explicit).

Examples are generated with hypothesis, derandomized so a run is reproducible.
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import condorcfg.classad.printer  # noqa: F401  (it raises the recursion limit: before hypothesis notes it)
from condorcfg.cli import main
from condorcfg.report import FORMATS
from condorcfg.textsafe import defuse, defuse_json, defuse_xml, printable

# ---------------------------------------------------------------- what hostile text is made of

# Workflow commands and terminal escapes, whole: random characters would rarely spell them.
INJECTIONS = [
    "::error file=x.conf,line=1::pwned", "::stop-commands::tok3n", "::", "  ::warning::w", "::1",
    "##[error]legacy", "##vso[task.setvariable variable=X]1", "##teamcity[buildStatus text='ok']",
    "\x1b]0;owned title\x07", "\x1b[2J", "\x1b[32mAll checks passed\x1b[0m", "\x1bc", "\x9b31m",
    "\r::error::after CR", "\u202egnp.exe", "\u2066x\u2069", "\u2028::error::after LS",
]
_SPECIAL = ([chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
            + ["\u2028", "\u2029", "\u200b", "\u200e", "\u200f", "\u061c", "\ufeff", "\xa0", "\xad", "\U000e0041"]
            + [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)])
_PLAIN = list("ab :#[]%,\\\"'=$()@") + ["é", "漢"]
CHARS = st.sampled_from(_SPECIAL + _PLAIN)
NASTY = st.lists(st.one_of(st.text(CHARS, min_size=1, max_size=6), st.sampled_from(INJECTIONS)),
                 min_size=1, max_size=5).map("".join)
# code points for $INT(n,%c): whatever the reader makes of them (a surrogate, a byte, nothing) must print safely
SURROGATES = st.sampled_from([0xD800, 0xDBFF, 0xDC00, 0xDC80, 0xDCFF, 0xDFFF])

FOREIGN = set(_SPECIAL) | {chr(c) for c in range(0xD800, 0xE000)}  # what must never come out raw


def _line(text: str) -> str:
    """Text that fits on one configuration line (the reader splits at LF; NUL makes a binary file)."""
    return text.replace("\n", "\\n").replace("\0", "\\0")


# ---------------------------------------------------------------- the checks

def runner_would_run(line: str) -> bool:
    """Whether a CI runner would execute this log line, conservatively.

    GitHub (actions/runner ActionCommand.TryParseV2): after leading whitespace the line starts
    with ``::`` and holds another ``::`` (any command name, to be safe).  GitHub's legacy
    TryParse, Azure Pipelines and TeamCity: ``##[``, ``##vso[``, ``##teamcity[`` anywhere.
    """
    stripped = line.lstrip()
    return (stripped.startswith("::") and "::" in stripped[2:]) or re.search(r"##[A-Za-z]*\[", line) is not None


_ANNOTATION = re.compile(r"::(error|warning|notice) [^:\n]*::")


def assert_safe(output: str, annotations: bool = False) -> None:
    """No foreign character raw, no line a runner executes (but github annotations), strict UTF-8."""
    raw = sorted({f"U+{ord(c):04X}" for c in output if c != "\n" and not c.isprintable()})
    assert not raw, f"raw characters in the output: {raw}\n{output!r}"
    output.encode("utf-8")  # strict: a lone surrogate would raise here
    for line in output.split("\n"):
        if annotations and _ANNOTATION.match(line):
            continue
        assert not runner_would_run(line), f"a CI runner would execute: {line!r}"


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert status in (0, 1, 2), (argv, status)
    return status, out, err


# ---------------------------------------------------------------- textsafe itself

@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(st.one_of(CHARS, st.characters(), st.sampled_from(["\ud800", "\udbff", "\udc80", "\udfff"])),
               max_size=40))
def test_printable_leaves_only_printable_characters_and_escapes_faithfully(text):
    shown = printable(text)
    assert shown.isprintable() and not FOREIGN & set(shown)
    shown.encode("utf-8")
    assert printable(shown) == shown  # nothing left to escape
    assert (shown == text) == text.isprintable()
    if "\\" not in text:  # the escapes are Python's: read back as a Python literal, they give the text
        assert ast.literal_eval('"""' + shown.replace('"', '\\"') + '"""') == text


@pytest.mark.parametrize("text, shown", [
    ("\x1b]0;t\x07", "\\x1b]0;t\\x07"), ("a\r\nb\tc", "a\\r\\nb\\tc"), ("\x7f\x85\x9b", "\\x7f\\x85\\x9b"),
    ("\u2028\u2029", "\\u2028\\u2029"), ("\u202egnp.exe", "\\u202egnp.exe"), ("\u2066\u2069", "\\u2066\\u2069"),
    ("\ud800 \udcff", "\\ud800 \\udcff"), ("no\xa0break", "no\\xa0break"), ("\U000e0041", "\\U000e0041"),
    ("C:\\condor é 漢", "C:\\condor é 漢"),
])
def test_printable_examples(text, shown):
    assert printable(text) == shown


@pytest.mark.parametrize("text, expected", [
    ("::error::x", "\\x3a:error::x"), ("  ::stop-commands::t\nnext", "  \\x3a:stop-commands::t\nnext"),
    ("ok\n::warning file=a::b", "ok\n\\x3a:warning file=a::b"),
    ("::1", "::1"), ("x ::error::y", "x ::error::y"),  # not a command: an IPv6 address, not at the start
    ("a ##[error]b", "a #\\x23[error]b"), ("##vso[task]", "#\\x23vso[task]"), ("##teamcity[x]", "#\\x23teamcity[x]"),
    ("## heading [link]", "## heading [link]"),
])
def test_defuse_examples(text, expected):
    assert defuse(text) == expected


LINE_PIECES = st.sampled_from(["::", ":", " ", "\t", "#", "##", "[", "]", "error", "vso", "x", "\n", "\r"])


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(LINE_PIECES, max_size=12).map("".join))
def test_defuse_leaves_no_command_and_keeps_json_and_xml_data(text):
    for line in re.split(r"\r|\n", defuse(text)):
        assert not runner_would_run(line)
    encoded = json.dumps(text)
    assert json.loads(defuse_json(encoded)) == text
    assert not any(runner_would_run(line) for line in defuse_json(encoded).split("\n"))
    import xml.etree.ElementTree as ET

    element = ET.Element("m", a=printable(text))
    element.text = printable(text)
    parsed = ET.fromstring(defuse_xml(ET.tostring(element, encoding="unicode")))
    assert (parsed.text or "") == parsed.get("a") == printable(text)


# ---------------------------------------------------------------- every command, every format

RULE_FILE = r'''
- code: ZZZ901
  name: nasty-text
  severity: warning
  summary: "summary \e]0;title\a ::error::x \r\n::stop-commands::t ##[error]y \u202e \N \L \e[2J"
  rationale: "line one\n::error file=r::rationale\n\e[32mAll checks passed\r"
  fix: "fix \e[32mAll checks passed ##vso[task.complete]"
  match:
    knob: "NASTY.*"
    message: "{knob} = {value}"
  examples:
    pass: ["X = 1\n"]
    fail: ["NASTY_A = \e[2J\n"]
'''


@pytest.fixture
def hostile_env(tmp_path, monkeypatch):
    """The shipped rules plus one whose texts are hostile; the rule cache kept in tmp_path."""
    from condorcfg.resources import data_dir

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "nasty.yaml").write_text(RULE_FILE, encoding="utf-8")
    monkeypatch.setenv("CONDORCFG_RULES_DIR", os.pathsep.join([str(data_dir("rules")), str(rules)]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def _classad_text(text: str) -> str:
    """Text for inside a ClassAd string in a configuration line: no quote or backslash to end it early."""
    return _line(text).replace("\\", "/").replace('"', "'")


def _ad_text(text: str) -> str:
    """Text for inside a string of a job ad file, whose reader also ends a line at CR, FF, LS ..."""
    return "".join("/" if char in "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029" else char for char in _classad_text(text))


def _file_name(text: str) -> bytes:
    """A config.d file name from any text; it never starts with a dot (those are excluded)."""
    return b"n" + text.replace("/", "_").replace("\0", "_").encode("utf-8")[:200]


def _write_case(root: Path, value: str, heredoc: str, message: str, name: str, surrogate: int) -> dict:
    """A configuration, a changed copy, a fatal one, a job ad and a machine profile, all hostile."""
    config_d = root / "config.d"
    config_d.mkdir()
    # a drawn name; the same behind a byte that is not UTF-8 (os.listdir returns a surrogate); and a name
    # that is a workflow command when it starts a line (as it does in lint's report from inside config.d)
    for file_name in (_file_name(name), b"\xff-" + _file_name(name), b"::warning ::file name"):
        with open(os.path.join(os.fsencode(config_d), file_name), "wb") as handle:
            handle.write(f"NASTY_FILE = {_line(value)}\nwarning : {_line(message)}\n".encode("utf-8"))
    body = "\n".join(line for line in heredoc.replace("\0", "\\0").split("\n") if line.strip() != "@end")
    text = (f"NASTY_VALUE = {_line(value)}\n"
            f"NASTY_CHAR = $INT({surrogate},%c)\n"
            f"NASTY_TEXT @=end\n{body}\n@end\n"
            f'MyAttr = "{_classad_text(value)}"\n'
            "STARTD_ATTRS = $(STARTD_ATTRS) MyAttr\n"
            f"LOCAL_CONFIG_DIR = {config_d}\n"
            f"warning : {_line(message)}\n")
    config = root / "condor_config"
    config.write_text(text, encoding="utf-8")
    changed = root / "new"
    changed.mkdir()
    (changed / "condor_config").write_text(
        text.replace("NASTY_VALUE =", "NASTY_VALUE = x") + f'Other = "{_classad_text(message)}"\n'
        + "STARTD_ATTRS = $(STARTD_ATTRS) Other\n", encoding="utf-8")
    fatal = root / "fatal.conf"
    fatal.write_text(f"X = 1\nerror : {_line(message)}\n", encoding="utf-8")
    job = root / "job.ad"
    job.write_text(f'Owner = "{_ad_text(value)}"\nRequirements = MyAttr == "{_ad_text(message)}"\n',
                   encoding="utf-8")
    machine = root / "machine.yaml"
    machine.write_text("hostname: ep.example.org\ncpus: 2\nmemory: 4096\n")
    hostile_machine = root / "hostile-machine.yaml"  # (a YAML string; JSON's escapes are YAML's)
    hostile_machine.write_text(f"hostname: {json.dumps(_line(name)[:60] or 'h', ensure_ascii=False)}\ncpus: 2\n",
                               encoding="utf-8")
    return {"config": config, "new": changed / "condor_config", "fatal": fatal, "job": job, "machine": machine,
            "hostile_machine": hostile_machine, "config_d": config_d}


def _commands(case: dict, expression: str) -> list[list]:
    cfg, new, job, machine = case["config"], case["new"], case["job"], case["machine"]
    knobs = ["NASTY_VALUE", "NASTY_CHAR", "NASTY_TEXT", "NASTY_FILE", "MyAttr", "NOT_THERE"]
    commands = [
        ["value", "--config", cfg, *knobs], ["value", "-v", "--config", cfg, *knobs],
        ["value", "--format", "json", "-v", "--config", cfg, *knobs], ["value", "--config", case["fatal"], "X"],
        ["dump", cfg], ["dump", "--raw", cfg], ["dump", "--format", "json", cfg],
        ["diff", "--machine", machine, cfg, new], ["diff", "--format", "json", "--machine", machine, cfg, new],
        ["ads", "--config", cfg, "--machine", machine, "--policy"],
        ["ads", "--config", cfg, "--machine", case["hostile_machine"], "--policy"],
        ["ads", "--format", "new", "--config", cfg, "--machine", machine],
        ["ads", "--format", "json", "--config", cfg, "--machine", machine],
        ["match", "--config", cfg, "--machine", machine, "--job", job],
        ["match", "--format", "json", "--config", cfg, "--machine", machine, "--job", job],
        ["eval", "--my", job, "Owner"], ["eval", "--format", "json", "--my", job, "Owner"], ["eval", expression],
        ["lint", "--statistics", cfg], ["lint", "--format", "text", case["fatal"]],
        ["rules", "--select", "ZZZ"], ["rules", "--format", "json", "--select", "ZZZ"],
        ["explain", "ZZZ901"], ["explain", "--format", "json", "ZZZ901"], ["explain", expression],
    ]
    commands += [["lint", "--format", fmt, "--machine", machine, cfg] for fmt in FORMATS]
    return commands


# No shrinking: an example runs every command (about a second), and the failing output says enough.
@settings(derandomize=True, max_examples=12, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=NASTY, heredoc=NASTY, message=NASTY, name=NASTY, surrogate=SURROGATES)
def test_every_command_and_format_prints_hostile_text_safely(hostile_env, capsys, monkeypatch,
                                                              value, heredoc, message, name, surrogate):
    root = Path(tempfile.mkdtemp(dir=hostile_env))
    case = _write_case(root, value, heredoc, message, name, surrogate)
    monkeypatch.chdir(root)
    expression = '"' + message  # unterminated: the syntax error quotes it
    for argv in _commands(case, expression):
        _status, out, err = run(capsys, *argv)
        github = argv[:3] == ["lint", "--format", "github"]
        assert_safe(out, annotations=github)
        assert_safe(err)
    # From inside config.d, displayed paths start with the (hostile) file name.
    monkeypatch.chdir(case["config_d"])
    for fmt in ("text", "github"):
        _status, out, err = run(capsys, "lint", "--format", fmt, ".")
        assert_safe(out, annotations=fmt == "github")
        assert_safe(err)


@pytest.mark.parametrize("output", ["\x1b[2J", "a\rb", "\u202e", "\ud800", "ok\n::error::x", "  ::stop-commands::t",
                                    "x ##[error]y", "\x85"])
def test_the_checks_catch_raw_output(output):
    """The checks above can fail: each of these, printed raw, is refused."""
    with pytest.raises((AssertionError, UnicodeEncodeError)):
        assert_safe(output)


def test_github_annotations_hold_the_whole_message_on_their_line(hostile_env, capsys, monkeypatch):
    root = Path(tempfile.mkdtemp(dir=hostile_env))
    case = _write_case(root, "v", "a\n::stop-commands::t", "a\rb %0A \x1b[2J ::error::x", "n", 0xD800)
    monkeypatch.chdir(root)
    _status, out, _err = run(capsys, "lint", "--format", "github", case["config"])
    annotations = [line for line in out.split("\n") if line.startswith("::")]
    assert annotations and all(_ANNOTATION.match(line) for line in annotations)
    # the message's CR and ESC are escapes, its "%0A" stays text (%25); the report's own line break is %0A
    assert any(line.startswith("::warning file=condor_config,line=10,col=1,title=CFG004 config-diagnostic::"
                               "a\\rb %250A \\x1b[2J ::error::x%0Ahelp: ") for line in annotations)


# ---------------------------------------------------------------- strict UTF-8 stdout, in a real process

def _cli(*argv, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("CONDORCFG_RULES_DIR", None)
    return subprocess.run([sys.executable, "-m", "condorcfg", *map(str, argv)], capture_output=True, cwd=cwd,
                          env=env, timeout=120)


def _no_traceback(proc: subprocess.CompletedProcess, annotations: bool = False) -> tuple[str, str]:
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")  # strict: valid UTF-8
    assert "Traceback" not in err and proc.returncode in (0, 1, 2), err
    assert_safe(out, annotations)
    assert_safe(err)
    return out, err


def test_a_lone_surrogate_value_prints_on_a_strict_utf8_stdout(tmp_path):
    # A machine profile's YAML escape gives a lone surrogate (FULL_HOSTNAME); $INT(n,%c) gives
    # whatever character the reader makes of n (a C1 control for 56448).
    machine = tmp_path / "machine.yaml"
    machine.write_text('hostname: "a\\ud800b"\n')
    config = tmp_path / "condor_config"
    config.write_text("X = $INT(55296,%c)\nY = $INT(56448,%c)\nZ = $(FULL_HOSTNAME)\n")
    out, _ = _no_traceback(_cli("value", "--machine", machine, "--config", config, "Z"))
    assert out == "a\\ud800b\n"
    out, _ = _no_traceback(_cli("value", "--format", "json", "--machine", machine, "--config", config, "Z"))
    assert json.loads(out) == {"Z": "a\ud800b"}  # JSON stays exact
    _no_traceback(_cli("value", "-v", "--machine", machine, "--config", config, "X", "Y", "Z"))
    _no_traceback(_cli("dump", "--all", "--machine", machine, config))
    _no_traceback(_cli("lint", "--machine", machine, config))


def test_a_config_d_file_name_that_is_not_utf8_prints_on_a_strict_utf8_stdout(tmp_path):
    config_d = tmp_path / "config.d"
    config_d.mkdir()
    with open(os.path.join(os.fsencode(config_d), b"\xff-file"), "wb") as handle:
        handle.write(b"NASTY = 1\nwarning : here\n")
    other = tmp_path / "other.d"
    other.mkdir()
    (other / "a").write_text("NASTY = 2\n")
    for fmt in ("text", "json", "gitlab"):  # (every format runs on such a name in-process above)
        out, err = _no_traceback(_cli("lint", "--format", fmt, config_d, cwd=tmp_path), annotations=fmt == "github")
        if fmt == "text":
            assert "config.d/\\udcff-file:2:1:" in out
    out, _ = _no_traceback(_cli("value", "-v", "--config", config_d, "NASTY"))
    assert "# defined at " in out and "\\udcff-file:1:1" in out
    _no_traceback(_cli("value", "-v", "--format", "json", "--config", config_d, "NASTY"))
    _no_traceback(_cli("dump", config_d))
    _no_traceback(_cli("diff", "--no-ads", other, config_d))
    _no_traceback(_cli("diff", "--format", "json", "--no-ads", other, config_d))


def test_a_high_surrogate_in_a_slot_ad_string_prints(tmp_path, capsys):
    machine = tmp_path / "machine.yaml"
    machine.write_text('hostname: "a\\ud800b"\n')  # the slot's Name, a string in its ad
    config = tmp_path / "condor_config"
    config.write_text("X = 1\n")
    _status, out, err = run(capsys, "ads", "--machine", machine, "--config", config)
    assert_safe(out + err)


# ---------------------------------------------------------------- source excerpts number lines as the reader does

@pytest.mark.parametrize("content, shown", [
    (b"X = 1\rY = 2\nwarning : second\n", " 2 | warning : second"),              # CR-only line break
    (b"X = 1\x0cZ = 3\nwarning : second\n", " 2 | warning : second"),           # form feed
    (b"X = 1\x0bZ = 3\x1cW = 4\nwarning : second\n", " 2 | warning : second"),  # VT, FS
    (b"X = 1\r\nwarning : second\r\n", " 2 | warning : second"),                # CRLF: the CR is not shown
    ("X = \u2028\u0085\nwarning : second\n".encode(), " 2 | warning : second"),  # LS, NEL
])
def test_excerpt_shows_the_line_the_reader_numbered(tmp_path, capsys, monkeypatch, content, shown):
    (tmp_path / "condor_config").write_bytes(content)
    monkeypatch.delenv("CONDORCFG_RULES_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    _status, out, _err = run(capsys, "lint", "--select", "CFG", "condor_config")
    lines = out.split("\n")
    at = lines.index("condor_config:2:1: warning CFG004 config-diagnostic second")
    assert lines[at + 1] == shown


def test_the_caret_stays_under_its_column_after_escapes(tmp_path, capsys, monkeypatch):
    # FF and VT are blank space to the reader: the statement starts in column 4 of line 2
    (tmp_path / "condor_config").write_bytes(b"X = 1\n\x0c\x0b warning : \x1b[2Jhere\n")
    monkeypatch.delenv("CONDORCFG_RULES_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    _status, out, _err = run(capsys, "lint", "--select", "CFG", "condor_config")
    lines = out.split("\n")
    at = lines.index("condor_config:2:4: warning CFG004 config-diagnostic \\x1b[2Jhere")
    excerpt, caret = lines[at + 1], lines[at + 2]
    assert excerpt == " 2 | \\x0c\\x0b warning : \\x1b[2Jhere"
    assert excerpt[caret.index("^")] == "w"


@pytest.mark.parametrize("where", ["project", "profile"])
def test_yaml_warnings_never_print_the_file_raw(tmp_path, where):
    """ruamel.yaml warns on a reused anchor (legal YAML), and its warning quotes the lines of the file:
    a CI workflow command in a pull request's YAML must not reach stderr that way."""
    import subprocess
    import sys

    (tmp_path / ".git").mkdir()
    (tmp_path / "condor_config").write_text("NUM_CPUS = 2\n")
    args = [sys.executable, "-m", "condorcfg", "lint", "condor_config"]
    if where == "project":
        (tmp_path / ".condorcfg.yaml").write_text("known-knobs: [&a X, &a Y]  # ::warning::owned\n")
    else:
        (tmp_path / "ep.yaml").write_text("hostname: &a h.example.org\nopsys: &a LINUX  # ::warning::owned\n")
        args += ["--machine", "ep.yaml"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "::warning::owned" not in proc.stderr + proc.stdout
    assert "Warning" not in proc.stderr, proc.stderr
