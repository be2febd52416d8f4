"""condorcfg test: policy tests that fail a pull request when a change breaks what the policy must do."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

from condorcfg.policytest import run_file

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "condorcfg", "test", *args], capture_output=True, text=True, cwd=cwd)


def test_the_example_pools_tests_pass():
    done = _cli("examples/tests/policy.yaml")
    assert done.returncode == 0 and "4 cases, 0 failed" in done.stdout, done.stdout + done.stderr


def _pool(tmp_path, extra: str = "") -> Path:
    (tmp_path / "config.d").mkdir(parents=True)
    (tmp_path / "condor_config").write_text("LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\nuse ROLE : Execute\n")
    (tmp_path / "config.d" / "10-policy").write_text(textwrap.dedent("""\
        use POLICY : Desktop
        RANK = TARGET.Owner == "alice"
        """))
    if extra:
        (tmp_path / "config.d" / "50-tighten").write_text(extra)
    tests = tmp_path / "policy.yaml"
    tests.write_text(textwrap.dedent("""\
        config: condor_config
        machine: {cpus: 8, memory: 16384}
        cases:
          - name: an idle desktop runs jobs
            job: |
              Owner = "bob"
              RequestCpus = 1
              RequestMemory = 1024
              RequestDisk = 1000
            state: |
              KeyboardIdle = 3600
              LoadAvg = 0.0
              CondorLoadAvg = 0.0
            expect: {start: true, matches: true, is_owner: false, rank: 0}
          - name: alice's jobs are preferred
            job: 'Owner = "alice"'
            expect: {rank: 1}
          - name: someone at the keyboard suspends the job
            job: 'Owner = "bob"'
            state: |
              KeyboardIdle = 10
              LoadAvg = 0.0
              CondorLoadAvg = 0.0
              State = "Claimed"
              Activity = "Busy"
            expect: {start: false, suspend: true, is_owner: true}
          - name: the layout is one partitionable slot
            expect: {slots: {count: 1, cpus: 8, memory: 16384}}
        """))
    return tests


def test_a_change_that_breaks_the_policy_fails_with_the_clause_values_and_place(tmp_path):
    tests = _pool(tmp_path)
    assert all(case.ok for case in run_file(str(tests))), [c for c in run_file(str(tests)) if not c.ok]
    tests = _pool(tmp_path / "changed", extra="START = $(START) && TARGET.RequestMemory <= 512\n")
    done = _cli(str(tests))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  an idle desktop runs jobs" in done.stdout
    assert "TARGET.RequestMemory <= 512  -> 1024 <= 512" in done.stdout
    assert "50-tighten:1:1" in done.stdout  # the line the failing clause was written at


def test_time_dependent_policy_with_a_fixed_clock(tmp_path):
    (tmp_path / "condor_config").write_text("use ROLE : Execute\nSTART = ClockMin >= 18 * 60 || ClockMin < 8 * 60\n")
    (tmp_path / "t.yaml").write_text(textwrap.dedent("""\
        config: condor_config
        cases:
          - {name: night, job: 'Owner = "a"', now: "2026-11-23T22:00:00", expect: {start: true}}
          - {name: day, job: 'Owner = "a"', now: "2026-11-23T10:00:00", expect: {start: false}}
        """))
    assert [case.ok for case in run_file(str(tmp_path / "t.yaml"))] == [True, True]


def test_formats_and_unusable_files(tmp_path):
    tests = _pool(tmp_path)
    data = json.loads(_cli(str(tests), "--format", "json").stdout)
    assert data["passed"] is True and len(data["files"][0]["cases"]) == 4
    suites = ET.fromstring(_cli(str(tests), "--format", "junit").stdout)
    assert suites.find("testsuite").get("tests") == "4"
    bad = tmp_path / "bad.yaml"
    bad.write_text("config: condor_config\ncases: []\nextra: 1\n")
    done = _cli(str(bad))
    assert done.returncode == 2 and f"{bad}:3:1" in done.stderr and "unknown key 'extra'" in done.stderr
    bad.write_text("config: condor_config\ncases:\n  - {name: x, expect: {start: maybe-later, bogus: 1}}\n")
    done = _cli(str(bad))
    assert done.returncode == 1 and "unknown expectation 'bogus'" in done.stdout
    assert _cli(cwd=tmp_path).returncode == 2  # no files and no project settings


def test_the_pre_commit_hook_is_declared():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: condorcfg-test" in hooks and "entry: condorcfg test" in hooks


def test_a_test_file_cannot_read_files_outside_its_project(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "creds").write_text("API_TOKEN = hunter2\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "cfg").write_text("START = $(API_TOKEN) == 1\n")
    for bad in ("config: [../secret/creds, cfg]", f"config: {secret / 'creds'}", "config: cfg\nmachine: /etc/hostname"):
        (repo / "t.yaml").write_text(bad + "\ncases:\n  - {name: x, job: 'A = 1', expect: {start: true}}\n")
        done = _cli(str(repo / "t.yaml"), cwd=repo)
        assert done.returncode == 2 and "leads outside" in done.stderr and "hunter2" not in done.stdout + done.stderr


def test_bad_values_give_a_failed_case_or_exit_2_never_a_traceback(tmp_path):
    (tmp_path / "cfg").write_text("use ROLE : Execute\n")
    for case, words in (("{name: x, now: 1e300, expect: {start: true}}", "not a time"),
                        ("{name: x, now: .inf, expect: {start: true}}", "not a time"),
                        ("{name: x, 1: a, foo: b, expect: {start: true}}", "unknown key")):
        (tmp_path / "t.yaml").write_text(f"config: cfg\ncases:\n  - {case}\n")
        done = _cli(str(tmp_path / "t.yaml"), cwd=tmp_path)
        assert done.returncode == 1 and words in done.stdout and "Traceback" not in done.stderr, done.stdout
    (tmp_path / "t.yaml").write_text("config: cfg\n1: x\nfoo: y\ncases: []\n")
    done = _cli(str(tmp_path / "t.yaml"), cwd=tmp_path)
    assert done.returncode == 2 and "unknown key" in done.stderr and "Traceback" not in done.stderr
    (tmp_path / "cfg").write_text("include : nothere.conf\nSTART = true\n")  # HTCondor would refuse it
    (tmp_path / "t.yaml").write_text("config: cfg\ncases:\n  - {name: x, job: 'A = 1', expect: {start: true}}\n")
    done = _cli(str(tmp_path / "t.yaml"), cwd=tmp_path)
    assert done.returncode == 2 and "nothere.conf" in done.stderr
