"""Unit tests of condorcfg.config.model: the Config API contract (docs/design.md) and provenance."""
from __future__ import annotations

import condorcfg
from condorcfg.config.macros import references
from condorcfg.config.model import Config, Definition
from condorcfg.diagnostics import Location
from condorcfg.machine import MachineProfile

PROFILE = MachineProfile(hostname="node1.example.org", cpus=4, memory=8192, ip="10.0.0.5")


def load_text(tmp_path, text, **kw):
    top = tmp_path / "condor_config"
    top.write_text(text)
    return condorcfg.load(str(top), machine=PROFILE, environ=kw.pop("environ", {}), **kw), str(top)


def test_value_raw_source_history(tmp_path):
    cfg, top = load_text(tmp_path, "A = 1\nB = $(A) b\nA = $(A)2\nuse ROLE : Execute\nDAEMON_LIST = $(DAEMON_LIST) X\n")
    assert cfg.value("b") == "12 b"
    assert cfg.raw("B") == "$(A) b"
    assert cfg.raw("A") == "12"  # self reference expanded when stored, like HTCondor
    history = cfg.history("a")
    assert [(d.raw, d.location.line) for d in history] == [("1", 1), ("12", 3)]
    assert history[-1].overrode is history[0] and history[0].overrode is None
    assert history[-1].text == "A = $(A)2"
    daemon = cfg.source("DAEMON_LIST")
    assert daemon.origin == "file" and daemon.location.file == top and daemon.location.line == 5
    assert daemon.overrode.origin == "template" and daemon.overrode.template == "ROLE:Execute"
    assert daemon.overrode.use_location.line == 4
    assert daemon.overrode.location.file.endswith("role.config")


def test_defaults_host_and_env_origins(tmp_path):
    cfg, _ = load_text(tmp_path, "X = 1\n", environ={"_CONDOR_Y": "from env"})
    assert cfg.source("START").origin == "default" and cfg.value("START") == "True"
    assert cfg.source("DETECTED_CORES").origin == "host" and cfg.value("DETECTED_CORES") == "4"
    assert cfg.source("Y").origin == "env" and cfg.value("Y") == "from env"
    assert cfg.source("NOT_A_KNOB") is None and cfg.value("NOT_A_KNOB") is None
    assert cfg.names() == ["X", "Y"]  # host facts and defaults are not "names defined by the config"


def test_empty_hides_default_and_reads_as_undefined(tmp_path):
    cfg, _ = load_text(tmp_path, "START =\nZ = $(START:fallback)\n")
    assert cfg.value("START") is None and cfg.raw("START") == ""
    assert cfg.value("Z") == "fallback"
    assert not cfg.is_defined("START")


def test_repeating_the_default_keeps_the_default_text(tmp_path):
    cfg, _ = load_text(tmp_path, "START = TRUE\nSTARTD.SUSPEND = FALSE\n")
    assert cfg.value("START") == "True" and cfg.source("START").matches_default
    assert cfg.value("STARTD.SUSPEND") == "False"


def test_expand_and_statements_and_files(tmp_path):
    cfg, top = load_text(tmp_path, "A = x\nif false\nB = 1\nendif\n[Section]\n")
    assert cfg.expand("<$(A)$(MINUTE)>") == "<x60>"
    kinds = [(s.kind, s.active) for s in cfg.statements]
    assert kinds == [("assign", True), ("if", True), ("skipped", False), ("endif", True), ("section", True)]
    assert cfg.files == [top]
    assert cfg.statements[0].location.line == 1 and cfg.statements[0].name == "A"


def test_references_contract():
    refs = references("$(A) and $(B:default)")
    assert [(r.name, r.default) for r in refs] == [("A", None), ("B", "default")]


def test_config_can_be_built_directly():
    cfg = Config(defaults={"D": "dflt"})
    cfg.define(Definition("X", "$(D) x", Location("f", 1)))
    assert cfg.value("X") == "dflt x"
    assert cfg.find_cycle("X") is None
    cfg.define(Definition("D", "$(X)", Location("f", 2)))
    assert cfg.find_cycle("X") == ["X", "D", "X"]


def test_an_endless_expansion_is_not_run_again_until_the_configuration_changes(tmp_path):
    """A macro cycle is expanded to the limit once per name: lint asks about a name many times."""
    import condorcfg
    from condorcfg.config import macros
    from condorcfg.diagnostics import CondorcfgError

    path = tmp_path / "condor_config"
    path.write_text("A = $(B)\nB = $(A)\n")
    config = condorcfg.load([str(path)])
    calls = []
    original = macros.expand

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    macros.expand, saved = counting, macros.expand
    try:
        for _ in range(5):
            try:
                config.value("A")
            except CondorcfgError as exc:
                assert exc.diagnostic.code == "macro-cycle"
            else:
                raise AssertionError("a cycle must raise")
    finally:
        macros.expand = saved
    assert len(calls) == 1
