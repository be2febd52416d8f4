"""HTCondor itself reads our slot ads and judges the matches we explain.

The ``--format long`` output of the example pool (every slot of the three
example machines) is handed to HTCondor's ClassAd library in one subprocess:
it must parse every ad with the same attributes, read the ``json`` and ``new``
formats as the same ads, and for each slot and each
test job HTCondor's ``slot.matches(job)`` / ``job.matches(slot)`` must agree
with condorcfg's clause-by-clause explanation.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import condorcfg
from condorcfg.classad import parse_ad
from condorcfg.machine import load_profile
from condorcfg.slots import build_slot_ads
from condorcfg.slots.match import explain_match
from condorcfg.slots.output import format_json, format_long, format_new

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

JOBS = {
    "analysis": (EXAMPLES / "jobs" / "analysis.job").read_text(),
    "gpu": ('Owner = "bob"\nUser = "bob@example.org"\nRequestCpus = 8\nRequestMemory = 40000\n'
            'RequestDisk = 1000\nRequestGPUs = 1\nRequirements = TARGET.GPUs >= RequestGPUs\n'),
    "too-big": ('Owner = "carol"\nUser = "carol@example.org"\nRequestCpus = 2\nRequestMemory = 300000\n'
                'RequestDisk = 1\nRequirements = true\n'),
    "outsider": ('Owner = "dave"\nUser = "dave@elsewhere.org"\nRequestCpus = 1\nRequestMemory = 1\n'
                 'RequestDisk = 1\nRequirements = true\n'),
    "nobody": ('Owner = "nobody"\nUser = "nobody@example.org"\nRequestCpus = 1\nRequestMemory = 1\n'
               'RequestDisk = 1\nRequirements = TARGET.SITE_NAME == "Example-Pool"\n'),
}

_CHILD = r"""
import json, sys
import htcondor2, classad2
data = json.load(sys.stdin)
slots = list(classad2.parseAds(data["slots"], classad2.ParserType.Old))
as_json = [classad2.parseOne(text, classad2.ParserType.JSON) for text in data["json"]]
as_new = list(classad2.parseAds(data["new"], classad2.ParserType.New))
jobs = {name: classad2.parseOne(text) for name, text in data["jobs"].items()}
def texts(ads):
    return [{k.lower(): str(ad.lookup(k)) for k in ad.keys()} for ad in ads]
out = {"keys": [sorted(k.lower() for k in ad.keys()) for ad in slots], "matches": {},
       "old": texts(slots), "json": texts(as_json), "new": texts(as_new)}
for i, slot in enumerate(slots):
    for name, job in jobs.items():
        # a.matches(b): b's Requirements hold with a as TARGET, so this is [slot accepts job, job accepts slot]
        out["matches"][f"{i}:{name}"] = [bool(job.matches(slot)), bool(slot.matches(job))]
print(json.dumps(out))
"""


def _our_side():
    ads, texts = [], []
    for profile in ("ep-64core", "ep-16core-static", "gpu-node"):
        machine = load_profile(str(EXAMPLES / "machines" / f"{profile}.yaml"))
        cfg = condorcfg.load(str(EXAMPLES / "etc" / "condor_config"), machine=machine, subsystem="STARTD")
        slot_ads = build_slot_ads(cfg, machine, public=True)
        assert not slot_ads.errors
        ads.extend(a.ad for a in slot_ads)
    texts = format_long(ads)
    return ads, texts


@pytest.mark.oracle
def test_htcondor_parses_our_ads_and_agrees_on_matches(oracle):
    ads, text = _our_side()
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env["CONDOR_CONFIG"] = "/dev/null"
    # condor_status -json prints a list; HTCondor's JSON parser reads one object at a time
    json_objects = [format_json([ad])[2:-3] for ad in ads]
    payload = {"slots": text, "jobs": JOBS, "json": json_objects, "new": format_new(ads)}
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    assert len(theirs["keys"]) == len(ads) == 21
    # the three output formats mean the same ads to HTCondor
    assert theirs["json"] == theirs["old"] and theirs["new"] == theirs["old"]
    for ad, keys in zip(ads, theirs["keys"]):
        assert sorted(k.lower() for k in ad) == keys
    disagreements = []
    verdicts = set()
    for i, ad in enumerate(ads):
        for name, job_text in JOBS.items():
            result = explain_match(ad, parse_ad(job_text))
            ours = [result.slot_ok, result.job_ok]
            if ours != theirs["matches"][f"{i}:{name}"]:
                disagreements.append((i, name, ours, theirs["matches"][f"{i}:{name}"]))
            verdicts.add((name, result.matches))
    assert not disagreements
    # the jobs were chosen so that each verdict occurs: the test can fail both ways
    assert ("analysis", True) in verdicts and ("analysis", False) in verdicts
    assert ("gpu", True) in verdicts and ("outsider", False) in verdicts and ("nobody", False) in verdicts
