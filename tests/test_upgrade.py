"""condorcfg upgrade: what changes for a configuration between two HTCondor releases."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from condorcfg.machine import MachineProfile
from condorcfg.upgrade import plan

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "upgrade" / "condor_config")


def _plan(paths, old, new):
    return plan(paths, old, new, machine=MachineProfile(), mode="repository")


def test_the_worked_example_shows_every_kind_of_change_security_first():
    result = _plan([EXAMPLE], "23.0.28", "25.14.1")
    by_knob = {c.knob: c for c in result.changes}
    branch = by_knob["SEC_DEFAULT_AUTHENTICATION_METHODS"]
    assert (branch.kind, branch.security, branch.old, branch.new) == ("branch", True, "FS, IDTOKENS, PASSWORD",
                                                                      "FS, IDTOKENS")
    assert branch.where.line == 11
    removed = by_knob["STARTD_SENDS_ALIVES"]
    assert (removed.kind, removed.old, removed.new, removed.where.line) == ("removed", "true", None, 18)
    template = by_knob["SLOTS_CONNECTED_TO_KEYBOARD"]
    assert (template.kind, template.template, template.where.line) == ("template", "POLICY:DESKTOP", 7)
    default = by_knob["SUBMIT_SEND_RESCHEDULE"]
    assert (default.kind, default.old_default, default.new_default) == ("default", "true", "false")
    kinds = [c.security for c in result.changes]
    assert kinds == sorted(kinds, reverse=True)  # security first
    assert "CONDOR_VERSION" not in by_knob and "PERIODIC_CHECKPOINT" not in by_knob  # build facts, random values
    assert by_knob["SEC_DEFAULT_AUTHENTICATION_METHODS"].docs.endswith("security.html#SEC_DEFAULT_AUTHENTICATION_METHODS")


def test_a_default_the_configuration_sets_is_not_listed(tmp_path):
    path = tmp_path / "condor_config"
    path.write_text("CGROUP_MEMORY_LIMIT_POLICY = hard\n")
    assert "CGROUP_MEMORY_LIMIT_POLICY" not in {c.knob for c in _plan([str(path)], "10.0.9", "25.14.1").changes}
    path.write_text("X = 1\n")
    change = {c.knob: c for c in _plan([str(path)], "10.0.9", "25.14.1").changes}["CGROUP_MEMORY_LIMIT_POLICY"]
    assert (change.kind, change.old, change.new) == ("default", "none", "hard")


def test_a_release_that_refuses_the_configuration_comes_first(tmp_path):
    path = tmp_path / "condor_config"
    path.write_text("use SECURITY : recommended\n")
    result = _plan([str(path)], "25.14.1", "23.0.28")
    assert result.changes[0].kind == "refused" and "no template 'recommended' in HTCondor 23.0.28" in \
        result.changes[0].message and result.changes[0].where.line == 1


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "condorcfg", "upgrade", *args], capture_output=True, text=True,
                          cwd=ROOT)


def test_the_command_line():
    done = _cli("--from", "23.0", "--to", "25.14", EXAMPLE)
    assert done.returncode == 1 and done.stdout.startswith("HTCondor 23.0.28 -> 25.14.1")
    assert "STARTER_NUM_THREADS_ENV_VARS: adds PYTHON_CPU_COUNT" in done.stdout
    data = json.loads(_cli("--from", "23.0", EXAMPLE, "--format", "json").stdout)
    assert data["from"] == "23.0.28" and data["to"] == "25.14.1" and data["security_changes"] >= 1
    assert {"knob", "kind", "security", "old", "new", "where", "docs"} <= set(data["changes"][0])
    markdown = _cli("--from", "23.0", EXAMPLE, "--format", "markdown").stdout
    assert markdown.startswith("### HTCondor 23.0.28 → 25.14.1") and "| knob |" in markdown
    assert _cli("--from", "25.14", EXAMPLE).returncode == 0
    done = _cli("--from", "9.0", EXAMPLE)
    assert done.returncode == 2 and "known releases" in done.stderr
    done = _cli("--from", "23.0", "/nonexistent/condor_config")
    assert done.returncode == 2 and "Traceback" not in done.stderr
