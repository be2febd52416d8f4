"""``condorcfg ads`` / ``condorcfg match`` end to end through the real reader, on examples/.

The golden file tests/data/slots_examples_golden.txt holds the ``--format
long`` output for the example pool on each example machine.  Regenerate it
only on purpose: ``CONDORCFG_REGENERATE_SLOTS_GOLDEN=1 pytest tests/test_cli_ads.py``
(the test then fails once, so a regeneration is never silent).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from condorcfg.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFIG = str(EXAMPLES / "etc" / "condor_config")
GOLDEN = Path(__file__).resolve().parent / "data" / "slots_examples_golden.txt"
MACHINES = ("ep-64core", "ep-16core-static", "gpu-node")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def profile(name):
    return str(EXAMPLES / "machines" / f"{name}.yaml")


def ads_json(capsys, *argv):
    code, out, err = run(capsys, "ads", "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


def test_partitionable_ep(capsys):
    (slot,) = ads_json(capsys, "--config", CONFIG, "--machine", profile("ep-64core"))
    assert slot["Name"] == "slot1@ep01.example.org" and slot["SlotType"] == "Partitionable"
    assert (slot["Cpus"], slot["Memory"], slot["TotalMemory"]) == (64, 262144 - 2048, 262144 - 2048)
    assert (slot["ScratchBandwidth"], slot["TotalScratchBandwidth"]) == (20, 20)
    assert slot["SITE_NAME"] == "Example-Pool" and slot["HAS_CVMFS"] is True
    assert slot["Requirements"] == "/Expr(START && (WithinResourceLimits))/"


def test_static_ep_reads_its_host_file(capsys):
    slots = ads_json(capsys, "--config", CONFIG, "--machine", profile("ep-16core-static"))
    assert [s["Name"] for s in slots] == [f"slot{i}@ep02.example.org" for i in range(1, 17)]
    assert {(s["Cpus"], s["Memory"], s["SlotType"]) for s in slots} == {(1, (65536 - 2048) // 16, "Static")}


def test_gpu_node_binds_one_gpu_per_slot(capsys):
    slots = ads_json(capsys, "--config", CONFIG, "--machine", profile("gpu-node"))
    assert [s["AssignedGPUs"] for s in slots] == ["GPU-1a2b3c4d", "GPU-2b3c4d5e", "GPU-3c4d5e6f", "GPU-4d5e6f70"]
    assert {(s["Cpus"], s["GPUs"], s["TotalGPUs"]) for s in slots} == {(8, 1, 4)}


def test_command_line_overrides_and_slot_filter(capsys):
    (slot,) = ads_json(capsys, "--config", CONFIG, "--machine", profile("ep-64core"), "--cpus", "8",
                       "--memory", "16384", "--hostname", "other.example.org", "--slot", "1")
    assert (slot["Cpus"], slot["Memory"], slot["Machine"]) == (8, 16384 - 2048, "other.example.org")
    code, _, err = run(capsys, "ads", "--config", CONFIG, "--machine", profile("ep-64core"), "--slot", "7")
    assert code == 2 and "there is no slot 7" in err


def test_layout_error_exits_non_zero_with_location(capsys, tmp_path):
    config = tmp_path / "condor_config"
    config.write_text("# two big slots\nSLOT_TYPE_1 = cpus=12\nNUM_SLOTS_TYPE_1 = 2\n")
    code, out, err = run(capsys, "ads", "--config", str(config), "--cpus", "16", "--memory", "4096",
                         "--hostname", "h.example.org")
    assert code == 1
    assert f"{config}:2:1: error: slot 2 of type 1 asks for 12 CPUs, 4 remain" in err
    assert out.count("SlotID = ") == 1  # the startd still builds slot 1


def test_bad_profile_is_a_diagnostic(capsys, tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text("cpus: many\n")
    code, _, err = run(capsys, "ads", "--config", CONFIG, "--machine", str(bad))
    assert code == 2 and "error" in err and "Traceback" not in err


def test_public_and_new_formats(capsys):
    code, out, _ = run(capsys, "ads", "--config", CONFIG, "--machine", profile("ep-64core"), "--public")
    assert code == 0 and "\nSUSPEND = " not in out and "\nIsOwner = " not in out and "\nStart = " in out
    code, out, _ = run(capsys, "ads", "--config", CONFIG, "--machine", profile("ep-64core"), "--format", "new")
    assert code == 0 and out.startswith("[\n") and "    SlotID = 1;" in out


def test_match_example_job(capsys):
    job = str(EXAMPLES / "jobs" / "analysis.job")
    code, out, err = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-64core"), "--job", job)
    assert code == 0, err
    assert "slot1@ep01.example.org: job matches" in out and "1 of 1 slots match" in out
    code, out, _ = run(capsys, "match", "--config", CONFIG, "--machine", profile("gpu-node"), "--job", job)
    assert code == 1 and "[FAIL] Start: TARGET.RequestGPUs >= 1" in out


def test_match_bad_job_file(capsys, tmp_path):
    job = tmp_path / "job.ad"
    job.write_text("Requirements = (((\n")
    code, _, err = run(capsys, "match", "--config", CONFIG, "--job", str(job), "--cpus", "2")
    assert code == 2 and f"{job}:" in err and "job ad does not parse" in err


def _golden_text(capsys) -> str:
    parts = []
    for name in MACHINES:
        code, out, err = run(capsys, "ads", "--config", CONFIG, "--machine", profile(name))
        assert code == 0, err
        parts.append(f"### {name}\n{out}")
    # PERIODIC_CHECKPOINT's default holds $RANDOM_INTEGER(-30,30,1): different on every read
    return re.sub(r"(?m)^(PERIODIC_CHECKPOINT = .*\+ )-?\d+\)$", r"\1<random>)", "\n".join(parts))


def test_golden_long_output(capsys):
    text = _golden_text(capsys)
    if os.environ.get("CONDORCFG_REGENERATE_SLOTS_GOLDEN"):
        GOLDEN.write_text(text)
        pytest.fail(f"regenerated {GOLDEN.name}; review `git diff` and rerun without the variable")
    assert GOLDEN.exists(), "golden file missing: run with CONDORCFG_REGENERATE_SLOTS_GOLDEN=1"
    assert text == GOLDEN.read_text()


def test_match_reads_new_syntax_job_ads(capsys, tmp_path):
    job = tmp_path / "job.ad"
    job.write_text('[ Owner = "alice"; User = "alice@example.org"; RequestCpus = 1; RequestMemory = 1;'
                   ' RequestDisk = 1; Requirements = TARGET.Cpus >= 1 ]\n')
    code, out, err = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-16core-static"),
                         "--job", str(job), "--slot", "3")
    assert code == 0, err
    assert out.startswith("slot3@ep02.example.org: job matches") and "1 of 1 slots match" in out


def test_policy_report(capsys):
    code, _, err = run(capsys, "ads", "--config", CONFIG, "--machine", profile("ep-64core"), "--policy")
    assert code == 0
    assert "slot1@ep01.example.org: IsOwner = false, Start = undefined, initial state Unclaimed" in err
    assert "undefined without a job: Owner, User" in err


def test_match_shows_values_and_places_folds_alike_slots_and_takes_a_state(capsys, tmp_path):
    job = str(EXAMPLES / "jobs" / "analysis.job")
    code, out, _ = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-16core-static"), "--job", job)
    assert code == 1 and "(16 slots alike): job does NOT match" in out
    assert "[FAIL] Requirements: TARGET.Cpus >= RequestCpus  -> 1 >= 4" in out
    assert "(examples/etc/config.d/30-policy:17:1)" in out or "30-policy:17:1)" in out
    code, out, _ = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-64core"), "--job", job,
                       "--format", "json")
    clause = json.loads(out)["slots"][0]["clauses"][0]
    assert {"values", "where"} <= set(clause) and clause["where"].endswith("30-policy:17:1")
    bad = tmp_path / "bad.ad"
    bad.write_text("KeyboardIdle = = 3\n")
    code, _, err = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-64core"), "--job", job,
                       "--state", str(bad))
    assert code == 2 and "slot state does not parse" in err
    busy = tmp_path / "busy.ad"
    busy.write_text("Cpus = 2\n")
    code, out, _ = run(capsys, "match", "--config", CONFIG, "--machine", profile("ep-64core"), "--job", job,
                       "--state", str(busy))
    assert code == 1 and "TARGET.RequestCpus <= MY.Cpus  -> 4 <= 2" in out
