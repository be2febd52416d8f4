"""Unit tests of condorcfg.config.reader: includes, commands, templates, local config, bounds on hostile input."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import condorcfg
from condorcfg.config.host import discover_config
from condorcfg.config.template_args import substitute_arguments
from condorcfg.config.templates import Template
from condorcfg.diagnostics import CondorcfgError
from condorcfg.machine import MachineProfile

PROFILE = MachineProfile(hostname="node1.example.org", cpus=4, memory=8192, ip="10.0.0.5")


def load(tmp_path: Path, text: str, files: dict[str, str] | None = None, **kw):
    for name, body in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body.replace("{DIR}", str(tmp_path)))
    top = tmp_path / "condor_config"
    top.write_text(text.replace("{DIR}", str(tmp_path)))
    kw.setdefault("environ", {})
    return condorcfg.load([str(top)], machine=PROFILE, cwd=str(tmp_path), **kw)


# --- templates, with a fake registry --------------------------------------------------------------

FAKE_BODIES = {
    ("ROLE", "Worker"): "DAEMON_LIST = $(DAEMON_LIST) STARTD\nWORKER = yes\n",
    ("FEATURE", "Args"): ("ALL = $(0)\nCOUNT = $(0#)\nFIRST = $(1)\nSECOND = $(2:two)\nHAS3 = $(3?)\n"
                          "REST = $(2+)\nREST_D = $(2+:none)\n"),
    ("FEATURE", "Nested"): "use ROLE : Worker\nNESTED = $(1:n)\n",
    ("FEATURE", "Broken"): "OK = 1\n$(1) = bad\n",
    ("FEATURE", "Loop"): "use FEATURE : Loop\n",
    ("FEATURE", "Stop"): "if $(1?)\nerror : Stop needs no arguments\nendif\nwarning : stopped\n",
}


def fake_templates():
    def find_template(category, name):
        for (cat, tname), body in FAKE_BODIES.items():
            if cat == category.upper() and tname.upper() == name.upper():
                return Template(cat, tname, body, f"/fake/{cat.lower()}.config", 10)
        return None

    def template_names(category):
        return [n for (cat, n) in FAKE_BODIES if cat == category.upper()]

    return SimpleNamespace(find_template=find_template, template_names=template_names)


def test_template_arguments(tmp_path):
    cfg = load(tmp_path, "use FEATURE : Args(a, , b c , d)\n", templates=fake_templates())
    assert cfg.value("ALL") == "a, , b c , d"
    assert cfg.value("COUNT") == "3"  # blank arguments are not counted
    assert cfg.value("FIRST") == "a"
    assert cfg.value("SECOND") == "b c"
    assert cfg.value("HAS3") == "1"
    assert cfg.value("REST") == ", b c , d"
    cfg = load(tmp_path, "use FEATURE : Args(x)\n", templates=fake_templates())
    assert (cfg.value("SECOND"), cfg.value("HAS3"), cfg.value("REST_D")) == ("two", "0", "none")
    cfg = load(tmp_path, "use FEATURE : Args(x,)\n", templates=fake_templates())
    assert cfg.value("REST_D") == "none"  # the remainder is completely empty -> default
    cfg = load(tmp_path, "use FEATURE : Args(x, )\n", templates=fake_templates())
    assert cfg.value("REST_D") is None  # a blank remainder is trimmed to nothing, no default


def test_substitute_arguments_directly():
    assert substitute_arguments("$(1:$(X:y)) $(0?) $(1#)", None) == "$(X:y) 0 "
    # commas are never protected by quotes
    assert substitute_arguments("$(1)|$(2)|$(0#)", '"x,y", z') == '"x|y"|3'


def test_template_provenance_and_nesting(tmp_path):
    cfg = load(tmp_path, "X = 1\nuse feature : Nested(q)\n", templates=fake_templates())
    assert cfg.value("NESTED") == "q"
    definition = cfg.source("WORKER")
    assert definition.origin == "template" and definition.template == "ROLE:Worker"
    assert definition.location.file == "/fake/role.config" and definition.location.line == 11
    # use_location is the user's own `use` line, not the nested one inside FEATURE:Nested's body
    assert definition.use_location.file.endswith("condor_config") and definition.use_location.line == 2
    (outer, outer_at), (inner, inner_at) = definition.template_chain
    assert (outer, outer_at) == ("FEATURE:Nested", definition.use_location)
    assert inner == "ROLE:Worker" and (inner_at.file, inner_at.line) == ("/fake/feature.config", 10)
    assert cfg.source("NESTED").use_location.file.endswith("condor_config")
    assert cfg.source("NESTED").use_location.line == 2
    assert [t for t, _ in cfg.source("NESTED").template_chain] == ["FEATURE:Nested"]
    nested_statements = [s for s in cfg.statements if s.template == "ROLE:Worker"]
    assert nested_statements and all(s.use_location == definition.use_location for s in nested_statements)
    assert cfg.value("DAEMON_LIST") == "MASTER STARTD"


def test_template_errors_point_at_the_use_line(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "A = 1\nuse FEATURE : Broken(a-b)\n", templates=fake_templates())
    diagnostic = info.value.diagnostic
    assert diagnostic.location.line == 2 and diagnostic.location.file.endswith("condor_config")
    assert "FEATURE:Broken" in diagnostic.message and any("/fake/feature.config" in n for n in diagnostic.notes)
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "use FEATURE : Loop\n", templates=fake_templates())
    assert "nested too deep" in info.value.diagnostic.message
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "use FEATURE : Stop(1)\n", templates=fake_templates())
    assert "Stop needs no arguments" in info.value.diagnostic.message
    cfg = load(tmp_path, "use FEATURE : Stop\n", templates=fake_templates())
    assert cfg.value("warning") == "stopped"  # HTCondor: a template `warning :` defines the knob


@pytest.mark.parametrize("line, words", [
    ("use FEATURE : NoSuch\n", ["NoSuch", "the FEATURE templates are Args, Nested, Broken, Loop, Stop"]),
    ("use FEATURE : Nestd\n", ["'Nestd'", "did you mean Nested?"]),
    ("use role : wroker\n", ["'wroker'", "did you mean Worker?"]),
    ("use NOCAT : Foo\n", ["unknown template category", "NOCAT", "the categories are ROLE, SECURITY"]),
    ("use ROEL : Worker\n", ["unknown template category 'ROEL'", "did you mean ROLE?"]),
    ("use : Worker\n", ["needs a category"]),
])
def test_unknown_templates(tmp_path, line, words):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, line, templates=fake_templates())
    assert all(w in info.value.diagnostic.message for w in words)
    assert info.value.diagnostic.location.line == 1


# --- includes and commands ------------------------------------------------------------------------

def test_command_include_needs_allow_exec(tmp_path):
    text = "include : /bin/echo X = from_cmd |\ninclude command : /bin/echo Y = y\nZ = 1\n"
    cfg = load(tmp_path, text)
    assert (cfg.value("X"), cfg.value("Y"), cfg.value("Z")) == (None, None, "1")
    skipped = [d for d in cfg.diagnostics if d.code == "command-include"]
    assert [d.location.line for d in skipped] == [1, 2]
    assert all("--allow-exec" in " ".join(d.notes) for d in skipped)
    cfg = load(tmp_path, text, allow_exec=True)
    assert (cfg.value("X"), cfg.value("Y")) == ("from_cmd", "y")


def test_local_config_command_needs_allow_exec(tmp_path):
    cfg = load(tmp_path, "LOCAL_CONFIG_FILE = /bin/echo L = piped |\n")
    assert cfg.value("L") is None
    assert [d.code for d in cfg.diagnostics] == ["command-include"]
    assert load(tmp_path, "LOCAL_CONFIG_FILE = /bin/echo L = piped |\n", allow_exec=True).value("L") == "piped"


def test_unstartable_command_is_a_clear_error(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : /nonexistent/cmd |\n", allow_exec=True)
    assert "cannot run" in info.value.diagnostic.message and info.value.diagnostic.location.line == 1


def test_include_errors(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "X = 1\ninclude : {DIR}/missing\n")
    assert info.value.diagnostic.location.line == 2 and "ifexist" in info.value.diagnostic.message
    assert load(tmp_path, "include ifexist : {DIR}/missing\nX = 1\n").value("X") == "1"
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : {DIR}/self\n", files={"self": "include : {DIR}/self\n"})
    assert info.value.diagnostic.code == "include-depth"
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include junk : x\n")
    assert "junk" in info.value.diagnostic.message


def test_file_outside_the_given_directories_is_noted(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "inc").write_text("X = outside\n")
    (tmp_path / "cfg").mkdir()
    top = tmp_path / "cfg" / "condor_config"
    top.write_text(f"include : {other / 'inc'}\n")
    cfg = condorcfg.load([str(top)], machine=PROFILE, environ={})
    assert cfg.value("X") == "outside"
    notes = [d for d in cfg.diagnostics if d.code == "outside-file"]
    assert len(notes) == 1 and notes[0].severity == "warning" and notes[0].location.line == 1
    assert cfg.files == [str(top), str(other / "inc")]


def test_local_config_dir_and_files(tmp_path):
    files = {"d/20-b": "ORDER = $(ORDER) b\n", "d/10-a": "ORDER = $(ORDER) a\n", "d/x.rpmsave": "ORDER = bad\n",
             "lf": "ORDER = $(ORDER) lf\n"}
    cfg = load(tmp_path, "ORDER = main\nLOCAL_CONFIG_DIR = {DIR}/d\nLOCAL_CONFIG_FILE = {DIR}/lf\n", files)
    assert cfg.value("ORDER") == "main a b lf"
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "LOCAL_CONFIG_FILE = {DIR}/nope\n")
    assert "REQUIRE_LOCAL_CONFIG_FILE" in info.value.diagnostic.message
    assert info.value.diagnostic.location.line == 1


def test_directory_as_config_path(tmp_path):
    (tmp_path / "config.d").mkdir()
    (tmp_path / "config.d" / "01-a").write_text("A = 1\nB = $(A) b\n")
    (tmp_path / "config.d" / "02-b").write_text("A = 2\n")
    (tmp_path / "config.d" / "x.py").write_text("A = bad\n")
    cfg = condorcfg.load(str(tmp_path / "config.d"), machine=PROFILE, environ={})
    assert cfg.value("B") == "2 b"


def test_hostile_exclude_regexp_is_not_run(tmp_path):
    files = {"d/" + "a" * 40: "X = included\n"}
    start = time.perf_counter()
    cfg = load(tmp_path, "LOCAL_CONFIG_DIR = {DIR}/d\nLOCAL_CONFIG_DIR_EXCLUDE_REGEXP = ^(a+)+$\n", files)
    assert time.perf_counter() - start < 5
    assert any(d.code == "unsafe-regexp" for d in cfg.diagnostics)


# --- discovery, environment, host facts -----------------------------------------------------------

def test_discover_config(tmp_path):
    top = tmp_path / "condor_config"
    top.write_text("X = 1\n")
    assert discover_config({"CONDOR_CONFIG": str(top)})[0] == [str(top)]
    assert discover_config({"CONDOR_CONFIG": "ONLY_ENV"}) == ([], [], True)
    paths, notes, _ = discover_config({"CONDOR_CONFIG": str(tmp_path / "nope")})
    assert paths == [] and notes[0].code == "no-config"
    cfg = condorcfg.load(None, machine=PROFILE, environ={"CONDOR_CONFIG": str(top), "_CONDOR_Y": "env"})
    assert (cfg.value("X"), cfg.value("Y"), cfg.value("CONFIG_ROOT")) == ("1", "env", str(tmp_path))


def test_host_facts_and_network_hostname(tmp_path):
    cfg = load(tmp_path, "FULL_HOSTNAME = mine\nDETECTED_CORES = 99\n")
    assert cfg.value("FULL_HOSTNAME") == "node1.example.org"  # re-inserted after the files
    assert cfg.value("HOSTNAME") == "node1"
    assert cfg.value("DETECTED_CORES") == "99"  # may be overridden
    assert cfg.value("UID_DOMAIN") == "node1.example.org"
    cfg = load(tmp_path, "NETWORK_HOSTNAME = pinned.example.net\n")
    assert (cfg.value("FULL_HOSTNAME"), cfg.value("HOSTNAME")) == ("pinned.example.net", "pinned")
    cfg = load(tmp_path, "X = 1\n", environ={"OMP_THREAD_LIMIT": "2"})
    assert cfg.value("NUM_CPUS") == "2"


def test_subsystem_and_local_name(tmp_path):
    text = "FOO = generic\nSTARTD.FOO = startd\nLN.FOO = local\nBAR = $(FOO)-bar\n"
    assert load(tmp_path, text).value("BAR") == "generic-bar"
    assert load(tmp_path, text, subsystem="startd").value("BAR") == "startd-bar"
    assert load(tmp_path, text, subsystem="STARTD", local_name="LN").value("BAR") == "local-bar"
    assert load(tmp_path, text, subsystem="STARTD").value("IsStartd") == "true"


# --- bounds on hostile input ----------------------------------------------------------------------

def test_exponential_expansion_is_bounded(tmp_path):
    text = "A0 = xx\n" + "".join(f"A{i} = $(A{i - 1})$(A{i - 1})\n" for i in range(1, 40))
    cfg = load(tmp_path, text)
    start = time.perf_counter()
    with pytest.raises(CondorcfgError) as info:
        cfg.value("A39")
    assert time.perf_counter() - start < 10
    diagnostic = info.value.diagnostic
    assert diagnostic.code == "macro-too-large" and diagnostic.location.line == 40
    # it says what happened and the limit, and does not claim a cycle
    assert "A39 grew too large" in diagnostic.message and "(the limit)" in diagnostic.message
    assert re.search(r"\d{5,}", diagnostic.message) and "break the cycle" not in diagnostic.message
    assert "refers back to itself (HTCondor hangs" not in diagnostic.message


@pytest.mark.parametrize("text, knob", [
    # deep, each level doubling: more substitutions than the limit before the text gets large
    ("".join(f"K{i} = $(K{i + 1})$(K{i + 1})\n" for i in range(30)) + "K30 = xy\n", "K0"),
    # wide: few levels, huge text
    ("W0 = " + "x" * 5000 + "\n" + "".join(f"W{i} = " + f"$(W{i - 1})" * 20 + "\n" for i in range(1, 6)), "W5"),
])
def test_runaway_growth_is_not_called_a_cycle(tmp_path, text, knob):
    cfg = load(tmp_path, text)
    with pytest.raises(CondorcfgError) as info:
        cfg.value(knob)
    diagnostic = info.value.diagnostic
    assert diagnostic.code == "macro-too-large" and f"{knob} grew too large" in diagnostic.message
    assert "(the limit)" in diagnostic.message and "cycle" not in diagnostic.message


def test_only_real_cycles_say_break_the_cycle(tmp_path):
    text = "".join(f"K{i} = $(K{i + 1})$(K{i + 1})\n" for i in range(30)) + "K30 = $(K0)\n"
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, text).value("K3")
    message = info.value.diagnostic.message
    assert info.value.diagnostic.code == "macro-cycle" and "break the cycle" in message
    assert "K3 -> K4" in message and message.count("K0") == 1


def test_cycle_is_named(tmp_path):
    cfg = load(tmp_path, "A = $(B)\nB = $(C) x\nC = $(A)\nD = fine\n")
    assert cfg.value("D") == "fine"
    with pytest.raises(CondorcfgError) as info:
        cfg.value("A")
    assert "A -> B -> C -> A" in info.value.diagnostic.message
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "X = 5\nX = $INT(X)\n").value("X")
    assert info.value.diagnostic.code == "macro-cycle"


def test_deep_if_nesting_and_big_files(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "if true\n" * 64 + "endif\n" * 64)
    assert info.value.diagnostic.location.line == 64
    text = "".join(f"K{i} = $(K{i - 1}:x) \\\n  more\n" for i in range(1, 1000))
    text += "".join(f"P{i} = $(K{i % 999}) \\\n  pad\nif defined P{i}\nQ{i} = 1\nendif\n" for i in range(10000))
    start = time.perf_counter()
    cfg = load(tmp_path, text)
    assert cfg.value("K999").endswith("more more")
    assert cfg.value("Q9999") == "1"
    assert time.perf_counter() - start < 20


def test_errors_name_file_line_and_column(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "X = 1\n  bad line here\n")
    text = info.value.diagnostic.format()
    assert text.startswith(f"{tmp_path / 'condor_config'}:2:3: error")
    assert "comment" in text  # says what to do


def test_opt_strict_makes_colon_assignments_errors(tmp_path):
    assert load(tmp_path, "B : 2\n").value("B") == "2"
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "A = 1\n#opt:strict\nB : 2\n")
    assert info.value.diagnostic.location.line == 3 and "#opt:strict" in info.value.diagnostic.message


def test_special_files_are_refused(tmp_path):
    """Devices, pipes and sockets are never opened: a character device can block forever."""
    for device in ("/dev/zero", "/dev/null"):
        with pytest.raises(CondorcfgError) as info:
            load(tmp_path, f"include : {device}\n")
        assert info.value.diagnostic.code == "unreadable-file" and "not a regular file" in info.value.diagnostic.message
    (tmp_path / "big").write_bytes(b"A = 1\n" * (3 * 1024 * 1024))
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : {DIR}/big\n")
    assert info.value.diagnostic.code == "file-too-large"
    (tmp_path / "bin").write_bytes(b"\x7fELF\x02\x01\x00\x00A = 1\n")
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : {DIR}/bin\n")
    assert info.value.diagnostic.code == "binary-file" and info.value.diagnostic.location.line == 1
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "include : {DIR}/fifo\n")
    assert info.value.diagnostic.code == "unreadable-file"


def test_many_references_in_a_huge_value_are_bounded(tmp_path):
    cfg = load(tmp_path, "E =\nX = " + "$(E)" * 100_000 + "\n")
    start = time.perf_counter()
    with pytest.raises(CondorcfgError):
        cfg.value("X")
    assert time.perf_counter() - start < 15


def test_unknown_template_suggests_close_names_only(tmp_path):
    """With the real (long) template lists the message names the close matches, not every template."""
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "use POLICY : Limit_Job_Runtime\n")
    message = info.value.diagnostic.message
    assert "did you mean LIMIT_JOB_RUNTIMES" in message and "ALWAYS_RUN_JOBS" not in message
    with pytest.raises(CondorcfgError) as info:
        load(tmp_path, "use FEATURE : zzzzzzzz\n")
    message = info.value.diagnostic.message
    assert "none of the" in message and "GPUs" not in message and len(message) < 200


# --- AUTO_USE_<CATEGORY>_<Name> (checked against HTCondor in tests/test_templates.py too) -----------

def _auto_use_messages(cfg):
    return [d.message for d in cfg.diagnostics if d.code == "auto-use"]


def test_auto_use_applies_templates_after_every_source_in_name_order(tmp_path):
    text = ("AUTO_USE_ROLE_Worker = true\nauto_use_feature_args = yes\nDAEMON_LIST = MASTER\n"
            "LOCAL_CONFIG_FILE = {DIR}/local\n")
    cfg = load(tmp_path, text, files={"local": "DAEMON_LIST = $(DAEMON_LIST) LOCAL\n"},
               environ={"_CONDOR_AUTO_USE_FEATURE_Nested": "1"}, templates=fake_templates())
    # after the local file; FEATURE:Args, FEATURE:Nested (-> ROLE:Worker), ROLE:Worker in name order
    assert cfg.value("DAEMON_LIST") == "MASTER LOCAL STARTD STARTD"
    assert cfg.value("COUNT") == "0" and cfg.value("NESTED") == "n"
    order = [s.template for s in cfg.statements if s.template and s.kind == "assign"]
    assert order[0] == "FEATURE:Args" and order[-2:] == ["ROLE:Worker", "ROLE:Worker"]
    worker = cfg.source("WORKER")
    assert worker.origin == "template" and worker.template == "ROLE:Worker"
    assert worker.use_location.file.endswith("condor_config") and worker.use_location.line == 1
    nested = cfg.history("WORKER")[0]
    assert nested.use_location.file == "<environment>"  # applied through FEATURE:Nested from the environment
    assert [t for t, _ in nested.template_chain] == ["FEATURE:Nested", "ROLE:Worker"]
    assert _auto_use_messages(cfg) == []


@pytest.mark.parametrize("value, applied, message", [
    ("true", True, None), ("1", True, None), ("YES", True, None), ("!false", True, None),
    ("defined DAEMON_LIST", True, None), ("$(ON)", True, None),
    ("", False, None), ("false", False, None), ("no", False, None), ("0", False, None), ("$(UNSET)", False, None),
    ("maybe", False, "Configuration error while interpreting AUTO_USE_ROLE_Worker : expression is not a conditional"),
    ("1 + 1", False,
     "Configuration error while interpreting AUTO_USE_ROLE_Worker : complex conditionals are not supported"),
])
def test_auto_use_value_is_judged_like_an_if_condition(tmp_path, value, applied, message):
    cfg = load(tmp_path, f"ON = true\nAUTO_USE_ROLE_Worker = {value}\n", templates=fake_templates())
    assert (cfg.value("WORKER") == "yes") is applied
    messages = _auto_use_messages(cfg)
    assert messages == ([] if message is None else [messages[0]]) and (message is None or message in messages[0])
    if message:
        problem = [d for d in cfg.diagnostics if d.code == "auto-use"][0]
        assert problem.location.line == 2 and problem.severity == "error"


def test_auto_use_names_and_prefixes(tmp_path):
    # a prefixed knob is not an AUTO_USE knob, but an AUTO_USE knob's value is looked up with prefixes
    cfg = load(tmp_path, "TOOL.AUTO_USE_ROLE_Worker = true\n", templates=fake_templates())
    assert cfg.value("WORKER") is None
    cfg = load(tmp_path, "AUTO_USE_ROLE_Worker = false\nTOOL.AUTO_USE_ROLE_Worker = true\n",
               templates=fake_templates())
    assert cfg.value("WORKER") == "yes"
    # no name after the category: silently ignored, as HTCondor does
    cfg = load(tmp_path, "AUTO_USE_ROLE = true\nAUTO_USE_ROLE_ = true\n", templates=fake_templates())
    assert _auto_use_messages(cfg) == [] and cfg.value("WORKER") is None


def test_auto_use_problems_are_not_fatal(tmp_path):
    text = ("AUTO_USE_ROLE_NoSuch = true\nAUTO_USE_NOCAT_X_Y = true\nAUTO_USE_FEATURE_Stop = true\n"
            "AUTO_USE_FEATURE_Broken = true\nAUTO_USE_ROLE_Worker = true\n")
    cfg = load(tmp_path, text, templates=fake_templates())
    assert cfg.value("WORKER") == "yes"  # the later, good knob is still applied
    assert cfg.value("warning") == "stopped"  # FEATURE:Stop has no arguments here: its error line is skipped
    assert cfg.value("OK") == "1"  # FEATURE:Broken stopped at its bad line, after OK
    messages = _auto_use_messages(cfg)
    assert len(messages) == 3, messages
    broken, nocat, nosuch = messages
    assert broken.startswith("AUTO_USE_FEATURE_Broken: template FEATURE:Broken is rejected")
    assert "no template named NOCAT:X_Y" in nocat
    assert "no template named ROLE:NoSuch" in nosuch


def test_auto_use_error_line_stops_only_that_template(tmp_path):
    bodies = dict(FAKE_BODIES)
    bodies[("FEATURE", "Needs")] = "BEFORE = 1\nif ! $(1?)\n  error : Needs requires an argument\nendif\nAFTER = 1\n"
    FAKE_BODIES.update(bodies)
    try:
        cfg = load(tmp_path, "AUTO_USE_FEATURE_Needs = true\nAUTO_USE_ROLE_Worker = true\n", templates=fake_templates())
    finally:
        del FAKE_BODIES[("FEATURE", "Needs")]
    assert (cfg.value("BEFORE"), cfg.value("AFTER"), cfg.value("WORKER")) == ("1", None, "yes")
    (message,) = _auto_use_messages(cfg)
    assert "AUTO_USE_FEATURE_Needs: template FEATURE:Needs stops with its own error: Needs requires an argument" \
        in message


def test_builtin_auto_use_default_applies_pelican_retry_for_the_schedd(tmp_path):
    schedd = load(tmp_path, "", subsystem="SCHEDD")
    assert "PelicanRetry" in (schedd.value("JOB_TRANSFORM_NAMES") or "")
    definition = schedd.source("PelicanRetry_MaxRetries")
    assert definition.template.upper() == "FEATURE:PELICANRETRYPOLICY"
    assert definition.use_location.file == "<built-in default>"
    tool = load(tmp_path, "")
    assert tool.value("JOB_TRANSFORM_NAMES") is None and tool.value("PelicanRetry_MaxRetries") is None
    off = load(tmp_path, "AUTO_USE_FEATURE_PelicanRetryPolicy = false\n", subsystem="SCHEDD")
    assert off.value("PelicanRetry_MaxRetries") is None


# --- repository mode and sysroot: a configuration kept in git for another host ---------------

def _pool_repo(tmp_path):
    """A repository keeping a host's /etc/condor tree: the stock absolute LOCAL_CONFIG_DIR."""
    etc = tmp_path / "repo" / "etc" / "condor"
    (etc / "config.d").mkdir(parents=True)
    (etc / "condor_config").write_text("LOCAL_CONFIG_DIR = /etc/condor/config.d\n"
                                       "LOCAL_CONFIG_FILE = /etc/condor/condor_config.local\n")
    (etc / "config.d" / "50-exec").write_text("IS_OWNER = Owner == \"bob\"\n")
    return tmp_path / "repo", etc / "condor_config"


def test_repository_mode_never_reads_the_runners_files(tmp_path):
    repo, top = _pool_repo(tmp_path)
    cfg = condorcfg.load(str(top), machine=PROFILE, environ={}, mode="repository")
    assert cfg.files == [str(top)]
    assert cfg.stored("IS_OWNER") is None
    outside = [d for d in cfg.diagnostics if d.code == "outside-file"]
    missing = [d for d in cfg.diagnostics if d.code == "missing-host-file"]
    assert not missing and all("sysroot" in d.notes[0] for d in outside)
    # whether /etc/condor/config.d exists on the machine running the tests makes no difference
    assert [(d.location.line, d.message) for d in outside if "LOCAL_CONFIG_DIR" in d.message] == [
        (1, "not reading /etc/condor/config.d (named by LOCAL_CONFIG_DIR): it is outside the configuration given")]
    assert [d.location.line for d in outside if "LOCAL_CONFIG_FILE" in d.message] == [2]


def test_sysroot_maps_absolute_paths_onto_the_repository(tmp_path):
    repo, top = _pool_repo(tmp_path)
    (repo / "etc" / "condor" / "condor_config.local").write_text("include : /etc/condor/extra\n")
    (repo / "etc" / "condor" / "extra").write_text("EXTRA = yes\n")
    cfg = condorcfg.load(str(top), machine=PROFILE, environ={}, mode="repository", sysroot=str(repo))
    assert cfg.value("IS_OWNER") == 'Owner == "bob"' and cfg.value("EXTRA") == "yes"
    assert cfg.source("IS_OWNER").location.file == str(repo / "etc/condor/config.d/50-exec")
    assert cfg.source("EXTRA").location.file == str(repo / "etc/condor/extra")
    assert not [d for d in cfg.diagnostics if d.severity == "error"]


def test_a_file_only_the_host_has_is_reported_not_fatal(tmp_path):
    repo, top = _pool_repo(tmp_path)
    top.write_text(top.read_text() + "include : /etc/condor/secrets.conf\nAFTER = 1\n")
    cfg = condorcfg.load(str(top), machine=PROFILE, environ={}, mode="repository", sysroot=str(repo))
    missing = sorted((d.location.line, d.message.split(" names")[0]) for d in cfg.diagnostics
                     if d.code == "missing-host-file")
    assert missing == [(2, "LOCAL_CONFIG_FILE"), (3, "include")]
    assert cfg.value("AFTER") == "1" and cfg.value("IS_OWNER")
    # read as the host would, the same files end the read
    with pytest.raises(CondorcfgError) as info:
        condorcfg.load(str(top), machine=PROFILE, environ={}, sysroot=str(repo))
    assert info.value.diagnostic.code == "missing-file"


def test_unusable_input_is_its_own_kind_of_error(tmp_path):
    from condorcfg.config.reader import UNUSABLE_INPUT

    (tmp_path / "empty.d").mkdir()
    for path, code in ((tmp_path / "empty.d", "empty-directory"), (tmp_path / "typo", "missing-root")):
        with pytest.raises(CondorcfgError) as info:
            condorcfg.load(str(path), machine=PROFILE, environ={})
        assert info.value.diagnostic.code == code and code in UNUSABLE_INPUT
    # an empty LOCAL_CONFIG_DIR is normal (HTCondor reads nothing from it)
    assert load(tmp_path, "LOCAL_CONFIG_DIR = {DIR}/empty.d\nX = 1\n").value("X") == "1"


def test_repository_mode_never_sees_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CI_SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("_CONDOR_START", "False")
    top = tmp_path / "condor_config"
    top.write_text("warning : token is $ENV(CI_SECRET_TOKEN)\nSECRET = $ENV(CI_SECRET_TOKEN)\nSTART = True\n")
    cfg = condorcfg.load(str(top), machine=PROFILE, mode="repository")
    assert cfg.value("SECRET") == "UNDEFINED" and cfg.value("START") == "True"  # HTCondor: an unset variable
    assert not [d for d in cfg.diagnostics if "hunter2" in d.message]
    host = condorcfg.load(str(top), machine=PROFILE)  # HTCondor's behaviour for value/dump
    assert host.value("SECRET") == "hunter2" and host.value("START") == "False"


# --- a heredoc's closing tag on a last line without a newline (HTCondor keeps that line raw) ------

HEREDOC_ENDINGS = ["@end", "@end  ", "  @end", "  @end  ", "@end\n", " @end \n", "@end\t", "\t@end", "@endx",
                   "@end #c"]


@pytest.mark.parametrize("ending", HEREDOC_ENDINGS)
def test_heredoc_closing_tag_at_the_end_of_a_file_is_read_as_htcondor_reads_it(oracle, tmp_path, ending):
    text = "A @=end\nx\n" + ending
    expected = oracle.config_values(text, ["A"])
    path = tmp_path / "condor_config"
    path.write_bytes(text.encode())
    try:
        ours = condorcfg.load([str(path)], environ={}).value("A")
    except CondorcfgError as exc:
        assert expected["expect"] is None, f"HTCondor reads {text!r} as {expected['expect']}"
        assert exc.diagnostic.code == "unclosed-heredoc"
    else:
        assert expected["expect"] == {"A": ours}
