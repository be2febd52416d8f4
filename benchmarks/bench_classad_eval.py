"""ClassAd evaluation throughput: condorcfg's evaluator vs HTCondor's classad2, same run, same corpus.

The corpus and the two ads are the oracle benchmark's (shared/bench/classad_oracle_bench.py):
24 startd-policy expressions of about 200 characters, a 28-attribute slot ad
(MY) and a 19-attribute job ad (TARGET).  Each mode runs in a fresh
interpreter, RUNS rounds; a round runs every mode once, so condorcfg and
classad2 are measured side by side and a slow spell of a shared machine hits
both.  A worker times many short passes over the corpus and reports the rate
of its fastest pass (timeit's estimator: noise only ever adds time) and its mean
rate.  Reported: the median over rounds of each mode's best rate, and the
ratio condorcfg / classad2 for

* eval        -- trees parsed beforehand, only evaluation timed (issue 10's target: >= 1.5)
* parse+eval  -- text to value each time, the parse cache bypassed (target: >= 0.25)

Usage: python benchmarks/bench_classad_eval.py [--runs N] [--seconds S] [--json out.json]
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


def _corpus():
    spec = importlib.util.spec_from_file_location("classad_oracle_bench", ORACLE_BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CORPUS, module.SLOT_AD, module.JOB_AD


def worker(mode: str, seconds: float) -> dict:
    corpus, slot_attrs, job_attrs = _corpus()
    if mode.startswith("c2"):
        os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
        import htcondor2  # noqa: F401  (HTCondor evaluation semantics, as the daemons use)
        import classad2

        def ad(attrs):
            return classad2.ClassAd("[" + "; ".join(f"{k} = {v}" for k, v in attrs.items()) + "]")
        slot, job = ad(slot_attrs), ad(job_attrs)
        if mode == "c2-eval":
            trees = [classad2.ExprTree(t) for t in corpus]

            def one_pass():
                for t in trees:
                    t.eval(slot, job)
        else:
            def one_pass():
                for text in corpus:
                    classad2.ExprTree(text).eval(slot, job)
    else:
        sys.path.insert(0, str(ROOT))
        from condorcfg.classad.evaluator import as_ad, evaluate
        from condorcfg.classad.parser import parse

        slot, job = as_ad(slot_attrs), as_ad(job_attrs)
        if mode == "cc-eval":
            trees = [parse(t) for t in corpus]

            def one_pass():
                for t in trees:
                    evaluate(t, slot, job)
        else:
            from condorcfg.classad import parser

            def one_pass():
                for text in corpus:
                    evaluate(parser._parse_uncached(text, "old"), slot, job)
    one_pass()  # warm-up: imports, caches, compiled closures
    passes, best = 0, float("inf")
    clock = time.perf_counter
    start = clock()
    while True:
        before = clock()
        one_pass()
        after = clock()
        passes += 1
        best = min(best, after - before)
        if after - start >= seconds:
            break
    return {"mode": mode, "per_sec": len(corpus) / best, "mean_per_sec": passes * len(corpus) / (after - start)}


def agreement() -> list:
    """Every corpus expression must give the same value in both (else the speed means nothing)."""
    code = r'''
import json, os, sys
sys.path.insert(0, %r)
os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
import htcondor2, classad2
from bench_classad_eval import _corpus
corpus, s, j = _corpus()
mk = lambda a: classad2.ClassAd("[" + "; ".join("%%s = %%s" %% kv for kv in a.items()) + "]")
print(json.dumps([repr(classad2.ExprTree(t).eval(mk(s), mk(j))) for t in corpus]))
''' % str(HERE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    theirs = json.loads(proc.stdout)
    sys.path.insert(0, str(ROOT))
    from condorcfg.classad.evaluator import as_ad, evaluate

    corpus, slot, job = _corpus()
    ours = [evaluate(t, as_ad(slot), as_ad(job)) for t in corpus]
    out = []
    for text, a, b in zip(corpus, ours, theirs):
        same = repr(a).lower() == b.lower() or (isinstance(a, float) and abs(a - float(b)) < 1e-9 * max(1, abs(a)))
        if not same:
            out.append({"expr": text, "condorcfg": repr(a), "classad2": b})
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        print(json.dumps(worker(argv[1], float(argv[2]))))
        return 0
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 1.0
    # byte-compile first: a fresh checkout (or PYTHONDONTWRITEBYTECODE) would otherwise time the compiler
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "condorcfg" / "classad")],
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""), check=False)
    modes = ("c2-eval", "cc-eval", "c2-parse-eval", "cc-parse-eval")
    rates: dict = {mode: [] for mode in modes}
    for _ in range(runs):  # interleaved rounds: both sides see the same spells of a noisy machine
        for mode in modes:
            proc = subprocess.run([sys.executable, __file__, "--worker", mode, str(seconds)],
                                  capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
            if proc.returncode != 0:
                print(f"{mode} failed:\n{proc.stderr[-2000:]}")
                return 1
            rates[mode].append(json.loads(proc.stdout.strip().splitlines()[-1])["per_sec"])
    results = {}
    for mode in modes:
        results[mode] = {"median_per_sec": statistics.median(rates[mode]), "runs": rates[mode]}
        print(f"{mode:14s} median {statistics.median(rates[mode]):10.0f} expr/s   runs: "
              + ", ".join(f"{r:.0f}" for r in rates[mode]), flush=True)
    ratio_eval = results["cc-eval"]["median_per_sec"] / results["c2-eval"]["median_per_sec"]
    ratio_parse = results["cc-parse-eval"]["median_per_sec"] / results["c2-parse-eval"]["median_per_sec"]
    print(f"ratio condorcfg/classad2: eval {ratio_eval:.2f}x   parse+eval {ratio_parse:.2f}x")
    disagreements = agreement()
    print(f"results agree on {24 - len(disagreements)}/24 corpus expressions")
    for d in disagreements:
        print("  DIFFERENT:", d)
    results.update(ratio_eval=ratio_eval, ratio_parse_eval=ratio_parse, disagreements=disagreements)
    if "--json" in argv:
        Path(argv[argv.index("--json") + 1]).write_text(json.dumps(results, indent=1))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
