"""condorcfg diff: effective-value and slot-ad differences between two config versions."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import condorcfg
from condorcfg.cli import main
from condorcfg.diff import diff_slot_ads, diff_values
from condorcfg.machine import load_profile
from condorcfg.slots import build_slot_ads

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "etc"
PROFILE = str(ROOT / "examples" / "machines" / "ep-64core.yaml")


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "etc"
    shutil.copytree(EXAMPLES, target)
    return target


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _load(root: Path, subsystem=None):
    return condorcfg.load(str(root / "condor_config"), machine=load_profile(PROFILE), subsystem=subsystem)


def test_same_tree_elsewhere_has_no_value_difference(copy):
    # LOCAL_CONFIG_DIR points into each copy; paths are compared relative to CONFIG_ROOT
    assert diff_values(_load(EXAMPLES), _load(copy)) == []


def test_changed_added_and_removed_knobs(copy):
    _edit(copy / "config.d" / "20-slots", "RESERVED_MEMORY = 2048", "RESERVED_MEMORY = 4096")
    _edit(copy / "config.d" / "40-attributes", 'SITE_NAME = "Example-Pool"', 'SITE_LABEL = "Example-Pool"')
    changes = {c.name.upper(): c for c in diff_values(_load(EXAMPLES), _load(copy))}
    assert changes["RESERVED_MEMORY"].kind == "changed"
    assert (changes["RESERVED_MEMORY"].old, changes["RESERVED_MEMORY"].new) == ("2048", "4096")
    assert changes["RESERVED_MEMORY"].new_source.location.line == 3
    assert changes["SITE_NAME"].kind == "removed"
    assert changes["SITE_LABEL"].kind == "added"


def test_moving_a_knob_between_files_is_no_change(copy):
    _edit(copy / "config.d" / "20-slots", "RESERVED_MEMORY = 2048\n", "")
    (copy / "config.d" / "25-memory").write_text("RESERVED_MEMORY = 2048\n")
    assert diff_values(_load(EXAMPLES), _load(copy)) == []


def test_slot_ads_follow_the_change(copy):
    _edit(copy / "config.d" / "20-slots", "RESERVED_MEMORY = 2048", "RESERVED_MEMORY = 4096")
    machine = load_profile(PROFILE)
    old = build_slot_ads(_load(EXAMPLES, "STARTD"), machine)
    new = build_slot_ads(_load(copy, "STARTD"), machine)
    changes = {c.attribute: c for c in diff_slot_ads(old, new)}
    assert changes["Memory"].old == "260096" and changes["Memory"].new == "258048"
    assert "Cpus" not in changes


def test_cli_exit_codes_and_json(copy, capsys):
    assert main(["diff", str(EXAMPLES / "condor_config"), str(copy / "condor_config"),
                 "--machine", PROFILE, "--no-ads"]) == 0
    capsys.readouterr()
    _edit(copy / "config.d" / "00-pool", "USE_SHARED_PORT = True", "USE_SHARED_PORT = False")
    assert main(["diff", str(EXAMPLES / "condor_config"), str(copy / "condor_config"),
                 "--machine", PROFILE, "--no-ads", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["values"] == [{"name": "USE_SHARED_PORT", "kind": "changed", "old": "true", "new": "False",  # True equals the default text: HTCondor keeps the default spelling
                                 "old_source": report["values"][0]["old_source"],
                                 "new_source": report["values"][0]["new_source"],
                                 "restart": None, "security": False}]
    assert report["values"][0]["new_source"].endswith("00-pool:15:1")


def test_cli_unreadable_input_is_a_diagnostic(tmp_path, capsys):
    assert main(["diff", str(tmp_path / "missing"), str(EXAMPLES / "condor_config"), "--no-ads",
                 "--machine", PROFILE]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "Traceback" not in err
