"""Run every benchmark in this folder, one process each, and print their reports.

Each bench_*.py measures condorcfg and HTCondor (the oracle wheel) in the same
run and prints ratios, so numbers from different machines stay comparable.
"""
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
status = 0
for script in sorted(here.glob("bench_*.py")):
    print(f"== {script.name}", flush=True)
    status |= subprocess.call([sys.executable, str(script)])
sys.exit(status)
