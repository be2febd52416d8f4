"""Lint speed: `condorcfg lint` as a pre-commit hook runs it, one fresh process per run.

Reports the median (and fastest) wall time of
  1. `condorcfg lint --config-root examples/etc/condor_config --machine examples/machines/ep-64core.yaml`
     (the shipped example pool, cold process; targets <= 150 ms and <= 2.0x HTCondor), and
  2. `condorcfg lint` of a generated 10,000-line configuration (target <= 1 s),
and HTCondor's own cold read of the same files (the htcondor wheel, a fresh process: import,
read the configuration, look up one knob), as ratios of the medians and of the fastest runs.
The two commands are timed alternately, so a busy machine slows both alike.

    python benchmarks/bench_lint.py [--runs N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "etc" / "condor_config"
PROFILE = ROOT / "examples" / "machines" / "ep-64core.yaml"
TARGETS = {"example": 0.150, "10k-lines": 1.0}
RATIO_TARGETS = {"example": 2.0}  # the whole lint process against HTCondor's whole read
PROBE = "import htcondor2; htcondor2.param.get('START')"


def big_config(lines: int = 10_000) -> str:
    """A plausible large configuration: knobs, macros, expressions, comments, continuations."""
    out = ["# generated for bench_lint.py", "RELEASE_DIR = /usr", "LOCAL_DIR = /var/lib/condor",
           "DAEMON_LIST = MASTER, STARTD", "STARTD_ATTRS = $(STARTD_ATTRS)"]
    i = 0
    while len(out) < lines:
        i += 1
        kind = i % 8
        if kind == 0:
            out.append(f"# section {i}")
        elif kind == 1:
            out.append(f"SITE_PATH_{i} = $(LOCAL_DIR)/site/{i}")
        elif kind == 2:
            out.append(f"SITE_LIMIT_{i} = {i * 3}")
        elif kind == 3:
            out.append(f'SITE_NAME_{i} = "node-{i}.example.org"')
            out.append(f"STARTD_ATTRS = $(STARTD_ATTRS) SITE_NAME_{i}")
        elif kind == 4:
            out.append(f"SITE_EXPR_{i} = (TARGET.RequestMemory <= {i}) && (KeyboardIdle > {i % 600}) \\")
            out.append(f"   && (LoadAvg < 0.{i % 9 + 1})")
        elif kind == 5:
            out.append(f"SITE_REF_{i} = $(SITE_LIMIT_{i - 3}) + 1")
        elif kind == 6:
            out.append(f'SITE_REQ_{i} = ifThenElse(isUndefined(TARGET.Owner), false, TARGET.Owner != "u{i}")')
        else:
            out.append("")
    out.append("START = $(START) && (TARGET.RequestCpus <= 64)")
    return "\n".join(out[:lines]) + "\n"


def timed(argv: list[str], env: dict | None = None) -> float:
    # Measure the tool as installed: with its compiled bytecode cache, whatever this shell says.
    env = {k: v for k, v in (env or os.environ).items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed


def oracle_available() -> bool:
    try:
        import htcondor2  # noqa: F401  (only to see whether the oracle is installed)
    except ImportError:
        return False
    return True


def alternating(runs: int, ours: list[str], config: Path) -> tuple[list[float], list[float]]:
    """Wall times of our command and of HTCondor's read of ``config``, one after the other."""
    theirs = [sys.executable, "-c", PROBE] if oracle_available() else None
    env = {**os.environ, "CONDOR_CONFIG": str(config)}
    timed(ours)
    if theirs:
        timed(theirs, env)
    mine, oracle = [], []
    for _ in range(runs):
        mine.append(timed(ours))
        if theirs:
            oracle.append(timed(theirs, env))
    return mine, oracle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    condorcfg = [sys.executable, "-m", "condorcfg", "lint"]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "condor_config"
        big.write_text(big_config())
        cases = {"example": ["--config-root", str(EXAMPLE), "--machine", str(PROFILE)], "10k-lines": [str(big)]}
        configs = {"example": EXAMPLE, "10k-lines": big}
        print(f"{'case':<10} {'condorcfg lint':>15} {'(fastest)':>10} {'target':>8} {'HTCondor read':>14} "
              f"{'ratio':>6} {'(fastest)':>10}")
        for name, extra in cases.items():
            mine, oracle = alternating(args.runs, condorcfg + extra, configs[name])
            ours, fastest = statistics.median(mine), min(mine)
            theirs = statistics.median(oracle) if oracle else None
            ratio = ours / theirs if theirs else None
            ratio_fastest = fastest / min(oracle) if oracle else None
            ok = ours <= TARGETS[name]
            verdict = "ok" if ok else "SLOWER THAN TARGET"
            if ratio is not None and name in RATIO_TARGETS:
                within = ratio <= RATIO_TARGETS[name]
                ok &= within
                verdict += f"; ratio {'within' if within else 'ABOVE'} {RATIO_TARGETS[name]:.1f}x"
            failed |= not ok
            shown = f"{theirs * 1000:.0f} ms" if theirs else "n/a"
            print(f"{name:<10} {ours * 1000:>12.0f} ms {fastest * 1000:>7.0f} ms {TARGETS[name] * 1000:>5.0f} ms "
                  f"{shown:>14} {f'{ratio:.2f}x' if ratio else '-':>6} "
                  f"{f'{ratio_fastest:.2f}x' if ratio_fastest else '-':>10}  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
