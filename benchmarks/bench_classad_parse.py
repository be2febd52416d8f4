"""ClassAd parse throughput: condorcfg's parser vs HTCondor's classad2.ExprTree(text), same run, same corpus.

The corpus is the oracle benchmark's (shared/bench/classad_oracle_bench.py):
24 startd-policy expressions of about 200 characters.  Each mode runs in a
fresh interpreter, RUNS times, looping over the corpus for SECONDS; the
median rate (expressions per second) is reported.

* cc-parse     -- condorcfg.classad.parser, parse cache bypassed (every text really parsed)
* cc-cached    -- condorcfg.classad.parse, the LRU-cached path policy knobs take
* c2-parse     -- classad2.ExprTree(text) (wraps the text in a temporary ad: its cheapest parse path)
* import       -- fresh interpreter: `import condorcfg.classad` plus the first parse, in ms

Targets (the brief): a 180-character policy expression in well under 0.7 ms;
import + first parse <= 60 ms.

Usage: python benchmarks/bench_classad_parse.py [--runs N] [--seconds S] [--json out.json]
"""
from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("CONDORCFG_SHARED", ROOT.parent / "shared"))
ORACLE_BENCH = SHARED / "bench" / "classad_oracle_bench.py"


def _corpus() -> list[str]:
    spec = importlib.util.spec_from_file_location("classad_oracle_bench", ORACLE_BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.CORPUS)


def worker(mode: str, seconds: float) -> dict:
    if mode == "import":
        started = time.perf_counter()
        sys.path.insert(0, str(ROOT))
        import condorcfg.classad as classad

        classad.parse('(KeyboardIdle > 15 * 60) && (TARGET.RequestMemory <= MY.Memory)')
        return {"mode": mode, "ms": (time.perf_counter() - started) * 1e3}
    corpus = _corpus()
    if mode == "c2-parse":
        os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
        import htcondor2  # noqa: F401  (HTCondor mode, as the daemons use)
        import classad2

        def one_pass():
            for text in corpus:
                classad2.ExprTree(text)
    else:
        sys.path.insert(0, str(ROOT))
        from condorcfg.classad import parser

        if mode == "cc-parse":
            def one_pass():
                for text in corpus:
                    parser._parse_uncached(text, "old")
        else:
            def one_pass():
                for text in corpus:
                    parser.parse(text)
    one_pass()  # warm-up
    count, started = 0, time.perf_counter()
    while True:
        one_pass()
        count += len(corpus)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            break
    return {"mode": mode, "per_sec": count / elapsed, "us_per_expr": elapsed / count * 1e6}


def _measure(mode: str, runs: int, seconds: float) -> list[dict]:
    results = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, __file__, "--worker", mode, str(seconds)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"worker {mode} failed:\n{proc.stderr[-2000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return results


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        print(json.dumps(worker(argv[1], float(argv[2]))))
        return 0
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 1.0
    # byte-compile first: a fresh checkout (or PYTHONDONTWRITEBYTECODE) would otherwise time the compiler
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "condorcfg" / "classad")],
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""), check=False)
    report: dict = {}
    lengths = [len(text) for text in _corpus()]
    for mode in ("cc-parse", "cc-cached", "c2-parse"):
        rates = [r["per_sec"] for r in _measure(mode, runs, seconds)]
        report[mode] = {"median_per_sec": statistics.median(rates), "runs": rates,
                        "median_us_per_expr": 1e6 / statistics.median(rates)}
        print(f"{mode:10s} median {statistics.median(rates):10.0f} expr/s  "
              f"({1e6 / statistics.median(rates):7.1f} us/expr)  runs: "
              + ", ".join(f"{r:.0f}" for r in rates), flush=True)
    env_note = os.environ.get("PYTHONDONTWRITEBYTECODE")
    imports = [r["ms"] for r in _measure("import", runs, 0)]
    report["import_first_parse_ms"] = {"median": statistics.median(imports), "runs": imports}
    print(f"import condorcfg.classad + first parse: median {statistics.median(imports):.1f} ms  runs: "
          + ", ".join(f"{ms:.1f}" for ms in imports))
    ratio = report["cc-parse"]["median_per_sec"] / report["c2-parse"]["median_per_sec"]
    report["ratio_cc_over_c2"] = ratio
    print(f"corpus: {len(lengths)} expressions, mean {sum(lengths) / len(lengths):.0f} chars; "
          f"condorcfg parses at {ratio:.2f}x classad2's rate"
          + (" (PYTHONDONTWRITEBYTECODE is set in this environment)" if env_note else ""))
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as handle:
            json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
