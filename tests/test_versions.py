"""Release tables (condorcfg/lint/knowledge/releases.json, tools/make_versions.py).

The facts below were read from the wheels themselves (pip download htcondor==X); the tables
must keep saying them.  The last test re-reads every release's wheel (downloaded once into
$CONDORCFG_WHEEL_CACHE, default /tmp/condorcfg-wheels) and checks that the shipped file is
exactly what the script makes of them.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import condorcfg
from condorcfg import releases
from condorcfg.lint.checks._releases import knows, releases_knowing
from oracle import config_child

ROOT = Path(__file__).resolve().parents[1]


def test_the_base_release_is_the_one_condorcfg_reads_as():
    from condorcfg.config.conditions import VERSION

    assert releases.base() == ".".join(map(str, VERSION)) == releases.known()[-1]


def test_releases_covered_and_named_by_series():
    assert releases.known() == ["10.0.9", "23.0.28", "23.10.29", "24.0.24", "24.12.24", "25.0.14", "25.14.1"]
    assert releases.resolve("24.0") == "24.0.24" and releases.resolve("10.0") == "10.0.9"
    assert releases.resolve("25.14.1") == "25.14.1"
    with pytest.raises(ValueError, match="known releases"):
        releases.resolve("9.0")


def test_security_recommended_exists_from_24_0_on():
    has = {r: "SECURITY:RECOMMENDED" in releases.templates(r) for r in releases.known()}
    assert not has["10.0.9"] and not has["23.0.28"] and has["24.0.24"] and has["25.14.1"]


def test_gsi_daemon_directory_left_after_10_0():
    assert "GSI_DAEMON_DIRECTORY" in releases.knobs("10.0.9")
    assert not any("GSI_DAEMON_DIRECTORY" in releases.knobs(r) for r in releases.known()[1:])


def test_cgroup_memory_limit_policy_default_none_then_hard():
    defaults = {r: releases.knobs(r)["CGROUP_MEMORY_LIMIT_POLICY"]["default"] for r in releases.known()}
    assert defaults["10.0.9"] == "none" and all(defaults[r] == "hard" for r in releases.known()[1:])


def test_keyboard_slots_and_submit_reschedule_defaults_changed():
    # SLOTS_CONNECTED_TO_KEYBOARD read as the number of CPUs in 10.0 (2 on a 2-core host), 0 since;
    # SUBMIT_SEND_RESCHEDULE was true through 25.0 and is false in 25.14.
    old, new = releases.knobs("10.0.9"), releases.knobs("25.14.1")
    assert old["SLOTS_CONNECTED_TO_KEYBOARD"]["default"] == "$(NUM_CPUS)"
    assert new["SLOTS_CONNECTED_TO_KEYBOARD"]["default"] == "0"
    assert old["SUBMIT_SEND_RESCHEDULE"]["default"] == "true" and new["SUBMIT_SEND_RESCHEDULE"]["default"] == "false"
    assert releases.knobs("25.0.14")["SUBMIT_SEND_RESCHEDULE"]["default"] == "true"


@pytest.mark.slow
def test_the_tables_are_what_the_wheels_give():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_versions.py"), "--check"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]


# Reading as an older release agrees with that release itself: its wheel (downloaded by
# tools/make_versions.py into the cache) reads the same configuration, and every knob below
# must have the same expanded value.  The knobs avoid host facts (the old wheels detect this host).
CASES = {
    "version-guarded-security": "if version >= 23.10.0\n  use SECURITY : recommended\nelse\n"
                                "  use SECURITY : recommended_v9_0\nendif\n",
    "roles-and-policy": "use ROLE : Execute\nuse POLICY : Desktop\nuse FEATURE : GPUs\n",
    "defaults-in-use": "MEM = $(CGROUP_MEMORY_LIMIT_POLICY)\nRESCHEDULE = $(SUBMIT_SEND_RESCHEDULE)\n"
                       "if version < 24.0\n  OLD = true\nendif\n",
}
KNOBS = ["SECURITY_MODEL", "ALLOW_DAEMON", "ALLOW_ADMINISTRATOR", "ALLOW_WRITE", "SEC_DEFAULT_AUTHENTICATION",
         "SEC_READ_AUTHENTICATION", "DAEMON_LIST", "START", "IS_OWNER", "SUSPEND", "PREEMPT", "KILL",
         "WANT_SUSPEND", "MACHINE_RESOURCE_INVENTORY_GPUs", "MEM", "RESCHEDULE", "OLD",
         "CGROUP_MEMORY_LIMIT_POLICY", "SUBMIT_SEND_RESCHEDULE", "MAXJOBRETIREMENTTIME"]


def _unpacked(release: str) -> str:
    cache = Path(os.environ.get("CONDORCFG_WHEEL_CACHE", "/tmp/condorcfg-wheels"))
    target = cache / f"{release}-full"
    if not (target / "htcondor").is_dir():
        wheels = glob.glob(str(cache / f"htcondor-{release}-*.whl"))
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                            "-d", str(cache), f"htcondor=={release}"], check=True, timeout=600)
            wheels = glob.glob(str(cache / f"htcondor-{release}-*.whl"))
        with zipfile.ZipFile(wheels[0]) as wheel:
            wheel.extractall(target)
    return str(target)


@pytest.mark.slow
@pytest.mark.parametrize("release", ["10.0.9", "23.0.28", "24.0.24"])
def test_reading_as_an_older_release_agrees_with_that_release(release, tmp_path):
    compared = 0
    for name, text in CASES.items():
        path = tmp_path / f"{name}.conf"
        path.write_text(text)
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        env.update(CONDOR_CONFIG=str(path), PYTHONPATH=_unpacked(release))
        done = subprocess.run([sys.executable, "-c", config_child("htcondor"), json.dumps(KNOBS)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-1000:]
        theirs = json.loads(done.stdout)
        config = condorcfg.load([str(path)], release=release, environ={})
        ours = {knob: config.value(knob) for knob in KNOBS}
        differ = {k: (ours[k], theirs[k]) for k in KNOBS if ours[k] != theirs[k]}
        assert not differ, (release, name, differ)
        compared += sum(v is not None for v in theirs.values())
    assert compared >= 20


def test_the_quick_membership_test_agrees_with_the_tables():
    names = {n for r in releases.known() for n in releases.knobs(r)} | {"NO_SUCH_KNOB"}
    for release in releases.known():
        table = releases.knobs(release)
        assert [n for n in names if releases.has_knob(release, n) != (n in table)] == [], release


def test_the_any_release_short_cut_agrees_with_each_release():
    """releases_knowing() answers "none" for a name no release has from one set: check it against
    every release's own table, for names of the base, added, removed and of no release."""
    data = releases._load()["knobs"]
    names = ["START", "SCHEDD.MAX_JOBS_RUNNING", "SITE_PATH_1", "NO_SUCH_KNOB_X", "start"]
    for delta in data.values():
        names += list(delta["added"])[:5] + list(delta["removed"])[:5]
    for name in names:
        assert releases_knowing(name) == [r for r in releases.known() if knows(r, name)], name
    assert any(releases_knowing(name) for name in names) and not releases_knowing("NO_SUCH_KNOB_X")
