"""A short coverage-guided fuzz run of every target in tools/fuzz (docs/fuzzing.md).

Each target runs in its own subprocess (`python tools/fuzz/run.py TARGET --runs N --seed 1`),
all five at once, from a fixed libFuzzer seed and a fixed sample of the seed corpus, with the
harnesses' properties on: only condorcfg's diagnostic exceptions, the time bound, the memory
bound, and (config and project targets) a text report free of raw control characters and
``::`` lines.  Any crash, timeout or out-of-memory fails the target's test with the failure's
signature, the input's path and the traceback.

Needs atheris (the test extra installs it on Linux); without it the tests are skipped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "tools" / "fuzz" / "run.py"

# inputs per target (seeds included), chosen so that all five together take well under 30 s here
RUNS = {"config": 1000, "classad": 4000, "slot_types": 1500, "project": 1500, "profile": 1500}
SEED_LIMIT = {"config": 30, "classad": 300, "slot_types": 30, "project": 10, "profile": 20}
MAX_LEN = {"config": 4096, "classad": 1024, "slot_types": 256, "project": 1024, "profile": 1024}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fuzz_runs(tmp_path_factory):
    pytest.importorskip("atheris", reason="atheris is not installed (pip install -e '.[test]')")
    workdir = tmp_path_factory.mktemp("fuzz")
    started = time.monotonic()
    processes = {}
    for target, runs in RUNS.items():
        command = [sys.executable, str(RUN), target, "--runs", str(runs), "--seed", "1",
                   "--seed-limit", str(SEED_LIMIT[target]), "--max-len", str(MAX_LEN[target]),
                   "--workdir", str(workdir), "--fresh"]
        log = open(workdir / f"{target}.out", "w+", encoding="utf-8")
        env = dict(os.environ, FUZZ_CHECK_OUTPUT="1")
        processes[target] = (subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT),
                             log)
    results = {}
    for target, (process, log) in processes.items():
        try:
            code = process.wait(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        log.seek(0)
        output = log.read()
        log.close()
        summary = next((json.loads(line[len("FUZZ-RESULT "):]) for line in output.splitlines()
                        if line.startswith("FUZZ-RESULT ")), None)
        failures_file = workdir / target / "crashes" / "failures.jsonl"
        tracebacks = failures_file.read_text(encoding="utf-8") if failures_file.exists() else ""
        results[target] = (code, summary, output, tracebacks)
    results["_seconds"] = time.monotonic() - started
    return results


@pytest.mark.parametrize("target", list(RUNS))
def test_fuzz_target_short_run(fuzz_runs, target):
    code, summary, output, tracebacks = fuzz_runs[target]
    assert summary is not None, f"the {target} fuzzer did not finish:\n{output[-4000:]}"
    detail = ""
    for line in tracebacks.splitlines():
        entry = json.loads(line)
        detail += f"\n--- {entry['signature']} (input sha1 {entry['sha1']}):\n{entry['traceback']}"
    assert not summary["failures"] and code == 0, (
        f"fuzzing {target} found {summary['failures']} (reproduce: python tools/fuzz/run.py {target} "
        f"--reproduce <crash file>):\n{output[-3000:]}{detail}")
    assert summary["executed"] >= RUNS[target], f"{target} ran only {summary['executed']} inputs"
