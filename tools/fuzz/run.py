#!/usr/bin/env python3
"""Run the condorcfg fuzz targets (atheris, coverage-guided).  See docs/fuzzing.md.

    python tools/fuzz/run.py TARGET [--runs N | --seconds S] [options]
    python tools/fuzz/run.py all --runs 2000 --seed 1
    python tools/fuzz/run.py config --reproduce FILE [FILE ...]
    python tools/fuzz/run.py config --minimize FILE

TARGET is one of config, classad, slot_types, project, profile, or all (one after another).
The run prints the inputs executed, executions per second, coverage, the failures found and
the elapsed time.  Files go under ``--workdir`` (default ``$CONDORCFG_FUZZ_DIR`` or
``/tmp/condorcfg-fuzz``; never inside the repository):

    <workdir>/<target>/seeds/          rebuilt every run from the project's data (tools/fuzz/seeds.py)
    <workdir>/<target>/corpus/         what libFuzzer found interesting; kept between runs
    <workdir>/<target>/crashes/        crash-*, timeout-*, oom-* inputs; failures.jsonl (signature,
                                       traceback); known.txt (signatures --keep-going skips)
    <workdir>/<target>/last-run.log    libFuzzer's output of the last run

Exit status: 0 when no new failure was found, 1 when one was (or libFuzzer could not run).

``--keep-going`` (for long campaigns): after a failure its signature is added to known.txt and
the fuzzer is restarted, so the run reaches ``--runs`` past a bug already found; inputs that fail
the same way later are counted and skipped ("known failures skipped"), not reported again.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGETS = ("config", "classad", "slot_types", "project", "profile")
# longest input libFuzzer makes (real configurations are up to ~112 KB; most are < 16 KB)
MAX_LEN = {"config": 32768, "classad": 4096, "slot_types": 512, "project": 4096, "profile": 4096}
WALL_TIMEOUT = 60  # libFuzzer -timeout (s): the harness's CPU-time bound fires long before, this is the backstop
RSS_LIMIT_MB = 1024  # libFuzzer -rss_limit_mb: the harness's RLIMIT_AS (start-up size + 500 MB) fires first
MAX_RESTARTS = 50

_STATUS = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_ARTIFACT = re.compile(r"Test unit written to (\S+)")


def default_workdir() -> Path:
    return Path(os.environ.get("CONDORCFG_FUZZ_DIR") or "/tmp/condorcfg-fuzz")


def _harness(target: str) -> Path:
    return HERE / f"fuzz_{target}.py"


def _env(args, crash_dir: Path) -> dict:
    env = dict(os.environ)
    env["FUZZ_FAILURES"] = str(crash_dir / "failures.jsonl")
    env["FUZZ_SKIPPED_FILE"] = str(crash_dir / "skipped.json")
    env["FUZZ_SLOW_DIR"] = str(crash_dir)
    if args.keep_going:
        env["FUZZ_KNOWN"] = str(crash_dir / "known.txt")
    if args.no_check_output:
        env["FUZZ_CHECK_OUTPUT"] = "0"
    env.setdefault("PYTHONHASHSEED", "0")  # the same -seed runs the same inputs
    return env


def _failures(crash_dir: Path) -> list[dict]:
    path = crash_dir / "failures.jsonl"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _one_process(args, target: str, dirs: dict, runs: int | None, seconds: float | None, seed: int,
                 log) -> dict:
    """One libFuzzer process; returns what it did."""
    command = [sys.executable, str(_harness(target)), f"-seed={seed}", f"-max_len={args.max_len or MAX_LEN[target]}",
               f"-timeout={WALL_TIMEOUT}", f"-rss_limit_mb={RSS_LIMIT_MB}", "-print_final_stats=1",
               f"-dict={HERE / 'dicts' / (target + '.dict')}", f"-artifact_prefix={dirs['crashes']}/",
               "-report_slow_units=100000"]
    if runs is not None:
        command.append(f"-runs={runs}")
    if seconds is not None:
        command.append(f"-max_total_time={max(int(seconds), 1)}")
    command += args.libfuzzer_args
    command += [str(dirs["corpus"]), str(dirs["seeds"])]
    if args.nice:
        command = ["nice", "-n", str(args.nice)] + command
    before = len(_failures(dirs["crashes"]))
    started = time.monotonic()
    result = {"executed": 0, "cov": None, "ft": None, "corpus": None, "artifact": None, "exit": None,
              "exec_per_sec": None, "skipped": {}, "new_failures": []}
    with subprocess.Popen(command, stderr=subprocess.STDOUT, stdout=subprocess.PIPE, cwd=dirs["scratch"],
                          env=_env(args, dirs["crashes"]), text=True, errors="replace") as process:
        for line in process.stdout:
            if log is not None and not line.startswith("INFO: Instrumenting"):
                log.write(line)
            status = _STATUS.match(line)
            if status:
                result["executed"] = int(status.group(1))
                result["cov"], result["ft"], result["corpus"] = (int(status.group(i)) for i in (3, 4, 5))
                if args.verbose:
                    print(f"  [{target}] {line.rstrip()}", flush=True)
            stat = _STAT.match(line)
            if stat:
                result[stat.group(1)] = int(stat.group(2))
            artifact = _ARTIFACT.search(line)
            if artifact:
                result["artifact"] = artifact.group(1)
            if "run interrupted" in line:  # (SIGINT: stop the campaign, it is no failure to restart from)
                result["interrupted"] = True
        result["exit"] = process.wait()
    result["seconds"] = time.monotonic() - started
    if "number_of_executed_units" in result:
        result["executed"] = result["number_of_executed_units"]
    skipped_file = dirs["crashes"] / "skipped.json"
    if skipped_file.exists():
        counts = json.loads(skipped_file.read_text() or "{}")
        for key, value in counts.items():
            result["skipped"][key] = max(result["skipped"].get(key, 0), value)
        skipped_file.unlink()
    result["new_failures"] = _failures(dirs["crashes"])[before:] + _check_slow(target, dirs["crashes"])
    if result["exit"] != 0 and not result["new_failures"] and not result.get("interrupted"):
        # libFuzzer's own verdict (timeout, OOM, a signal): no Python traceback was recorded
        kind = "libFuzzer-exit"
        if result["artifact"]:
            kind = "libFuzzer-" + Path(result["artifact"]).name.split("-")[0]
        result["new_failures"] = [{"signature": kind, "artifact": result["artifact"], "traceback": ""}]
    for failure in result["new_failures"]:
        if result["artifact"] and "sha1" in failure and failure["sha1"] in result["artifact"]:
            failure["artifact"] = result["artifact"]
        failure.setdefault("artifact", result["artifact"])
    return result


def _check_slow(target: str, crash_dir: Path) -> list[dict]:
    """Re-run the inputs the fuzzer found slow (slow-*) without instrumentation, against the plain time
    bound: each that still takes too long is a failure (renamed timeout-*); the others are deleted."""
    failures = []
    for path in sorted(crash_dir.glob("slow-*")):
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), target, "--reproduce", str(path)],
                              capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            path.unlink()
            continue
        kept = path.with_name("timeout-" + path.name[len("slow-"):])
        path.rename(kept)
        found = re.search(r"FAILS (\S+)", done.stdout)
        failures.append({"signature": found.group(1) if found else "FuzzTimeout", "artifact": str(kept),
                         "traceback": done.stdout[-6000:], "reproduces": "yes (checked without instrumentation)"})
    return failures


def _prepare(args, target: str) -> dict:
    import seeds

    base = Path(args.workdir) / target
    dirs = {name: base / name for name in ("seeds", "corpus", "crashes", "scratch")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        shutil.rmtree(dirs["corpus"])
        dirs["corpus"].mkdir()
    count = seeds.build(target, dirs["seeds"], limit=args.seed_limit)
    print(f"[{target}] {count} seeds in {dirs['seeds']}; corpus {dirs['corpus']}; crashes {dirs['crashes']}",
          flush=True)
    return dirs


def fuzz(args, target: str) -> dict:
    dirs = _prepare(args, target)
    started = time.monotonic()
    total = {"target": target, "executed": 0, "cov": None, "ft": None, "failures": [], "skipped": {},
             "restarts": 0}
    deadline = started + args.seconds if args.seconds else None
    seed = args.seed
    with open(Path(args.workdir) / target / "last-run.log", "w", encoding="utf-8") as log:
        while True:
            runs = args.runs - total["executed"] if args.runs else None
            seconds = deadline - time.monotonic() if deadline else None
            if (runs is not None and runs <= 0) or (seconds is not None and seconds < 1):
                break
            result = _one_process(args, target, dirs, runs, seconds, seed, log)
            total["executed"] += result["executed"]
            if result.get("interrupted"):
                print(f"[{target}] interrupted after {total['executed']} inputs", flush=True)
                break
            total["cov"], total["ft"], total["corpus"] = result["cov"], result["ft"], result["corpus"]
            for key, value in result["skipped"].items():
                total["skipped"][key] = total["skipped"].get(key, 0) + value
            total["failures"] += result["new_failures"]
            for failure in result["new_failures"]:
                if args.keep_going and "reproduces" not in failure:  # (a campaign: worth a second process
                    failure["reproduces"] = _reproduces(target, failure.get("artifact"))  # to tell an artifact)
                checked = failure.get("reproduces", "not checked")
                print(f"[{target}] FAILURE {failure['signature']} after {total['executed']} inputs: "
                      f"{failure.get('artifact')} (without instrumentation: {checked})", flush=True)
            if not result["new_failures"] or not args.keep_going:
                break
            known = dirs["crashes"] / "known.txt"
            with known.open("a", encoding="utf-8") as handle:
                for failure in result["new_failures"]:
                    handle.write(failure["signature"] + "\n")
            total["restarts"] += 1
            seed += 1
            if total["restarts"] >= MAX_RESTARTS:
                print(f"[{target}] giving up after {MAX_RESTARTS} restarts", flush=True)
                break
            print(f"[{target}] restarting with {known} ({total['executed']} inputs so far)",
                  flush=True)
    total["seconds"] = time.monotonic() - started
    _print_summary(total)
    return total


def _reproduces(target: str, artifact: str | None) -> str:
    """Whether a failure input fails again without atheris's instrumentation (in a fresh process)."""
    if not artifact or not Path(artifact).exists():
        return "no input saved"
    try:
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), target, "--reproduce", artifact],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "yes (hangs)"
    return "yes" if done.returncode else "NO (instrumentation artifact, or depends on earlier inputs)"


def _print_summary(total: dict) -> None:
    seconds = total["seconds"]
    rate = total["executed"] / seconds if seconds else 0
    print(f"[{total['target']}] inputs executed: {total['executed']}", flush=True)
    print(f"[{total['target']}] elapsed: {seconds:.1f} s; executions per second: {rate:.0f}", flush=True)
    print(f"[{total['target']}] coverage: cov {total['cov']} ft {total['ft']} corpus {total.get('corpus')}",
          flush=True)
    if total["skipped"]:
        print(f"[{total['target']}] known failures skipped: {json.dumps(total['skipped'])}", flush=True)
    print(f"[{total['target']}] failures found: {len(total['failures'])}", flush=True)
    for failure in total["failures"]:
        print(f"[{total['target']}]   {failure['signature']}  {failure.get('artifact')}  "
              f"(reproduces without instrumentation: {failure.get('reproduces')})", flush=True)
    print("FUZZ-RESULT " + json.dumps({k: total.get(k) for k in ("target", "executed", "seconds", "cov", "ft",
                                                                  "restarts")}
                                      | {"failures": [f["signature"] for f in total["failures"]],
                                         "skipped": total["skipped"]}), flush=True)


# ---------------------------------------------------------------- reproduce / minimize (in process)

def _load_harness(target: str):
    os.environ.setdefault("FUZZ_NO_INSTRUMENT", "1")
    import importlib

    import _common

    module = importlib.import_module(f"fuzz_{target}")
    if hasattr(module, "setup"):
        module.setup()
    return _common, module


def _try(common, module, data: bytes) -> tuple[str | None, str]:
    """(signature or None, traceback text) of one input, with the time bound."""
    import signal
    import traceback

    signal.signal(signal.SIGPROF, common._on_sigprof)
    signal.setitimer(signal.ITIMER_PROF, common.time_bound(len(data)))
    try:
        module.check(data)
        return None, ""
    except Exception as exc:  # noqa: BLE001
        return common._signature(exc), "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def reproduce(args, target: str) -> int:
    common, module = _load_harness(target)
    module.check(b"")  # warm-up (rules, tables), as the fuzzer does before its first input
    common.set_memory_limit()
    failed = 0
    for name in args.reproduce:
        data = Path(name).read_bytes()
        started = time.process_time()
        signature, text = _try(common, module, data)
        used = time.process_time() - started
        if signature is None:
            print(f"{name}: ok ({len(data)} bytes, {used:.2f} s CPU)")
        else:
            failed += 1
            print(f"{name}: FAILS {signature} ({len(data)} bytes, {used:.2f} s CPU)\n{text}")
    return 1 if failed else 0


def minimize(args, target: str) -> int:
    """Delta debugging: drop chunks of the input while it still fails with the same signature."""
    common, module = _load_harness(target)
    module.check(b"")
    common.set_memory_limit()
    path = Path(args.minimize)
    data = path.read_bytes()
    signature, _ = _try(common, module, data)
    if signature is None:
        print(f"{path}: does not fail; nothing to minimize")
        return 1
    print(f"{path}: {signature}, {len(data)} bytes")
    chunk = max(len(data) // 2, 1)
    while chunk >= 1:
        index, changed = 0, False
        while index < len(data):
            candidate = data[:index] + data[index + chunk:]
            if candidate != data and _try(common, module, candidate)[0] == signature:
                data, changed = candidate, True
            else:
                index += chunk
        if not changed:
            chunk //= 2
    for old, new in ((b"\r\n", b"\n"),):  # simpler spellings that keep the failure
        candidate = data.replace(old, new)
        if candidate != data and _try(common, module, candidate)[0] == signature:
            data = candidate
    out = Path(args.output) if args.output else path.with_name(path.name + ".min")
    out.write_bytes(data)
    print(f"minimized to {len(data)} bytes: {out}\n{data!r}")
    print(_try(common, module, data)[1])
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=(*TARGETS, "all"))
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument("--runs", type=int, help="inputs to execute (per target), seeds included")
    amount.add_argument("--seconds", type=float, help="time to fuzz (per target)")
    parser.add_argument("--seed", type=int, default=0, help="libFuzzer -seed (0: random); the test suite uses 1")
    parser.add_argument("--workdir", default=str(default_workdir()), help="seeds, corpus and crashes go here")
    parser.add_argument("--fresh", action="store_true", help="start from the seeds alone (empty the corpus)")
    parser.add_argument("--keep-going", action="store_true",
                        help="after a failure, record its signature as known and go on until --runs/--seconds")
    parser.add_argument("--no-check-output", action="store_true",
                        help="do not check the report for control characters / '::' lines (FUZZ_CHECK_OUTPUT=0)")
    parser.add_argument("--seed-limit", type=int, help="use at most N of the seeds (an even spread; quick runs)")
    parser.add_argument("--max-len", type=int, help="longest input (bytes); default per target")
    parser.add_argument("--nice", type=int, default=0, help="run the fuzzer under nice -n N")
    parser.add_argument("--verbose", "-v", action="store_true", help="show libFuzzer's status lines")
    parser.add_argument("--reproduce", nargs="+", metavar="FILE", help="run these inputs once and show failures")
    parser.add_argument("--minimize", metavar="FILE", help="shrink a failing input keeping its failure")
    parser.add_argument("--output", help="--minimize: where to write the result (default FILE.min)")
    parser.epilog = "Extra libFuzzer flags go after --, e.g. run.py config -- -only_ascii=1 -report_slow_units=5"
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    args = parser.parse_args(argv)
    args.libfuzzer_args = extra
    targets = TARGETS if args.target == "all" else (args.target,)
    if args.reproduce or args.minimize:
        if len(targets) != 1:
            parser.error("--reproduce / --minimize need one target")
        return reproduce(args, targets[0]) if args.reproduce else minimize(args, targets[0])
    if not args.runs and not args.seconds:
        args.runs = 10_000
    workdir = Path(args.workdir).resolve()
    repo = HERE.parents[1]
    if workdir == repo or repo in workdir.parents:
        parser.error(f"--workdir {workdir} is inside the repository; use a directory outside it")
    failures = 0
    results = []
    for target in targets:
        result = fuzz(args, target)
        results.append(result)
        failures += len(result["failures"])
    if len(results) > 1:
        print("\ntarget       inputs    seconds  exec/s  cov    failures")
        for r in results:
            rate = r["executed"] / r["seconds"] if r["seconds"] else 0
            print(f"{r['target']:<12} {r['executed']:>8} {r['seconds']:>9.1f} {rate:>7.0f}  {r['cov'] or 0:<6} "
                  f"{len(r['failures'])}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
