"""Fuzz target: the ClassAd parser, evaluator, printer and static analysis.

One input is one expression text (UTF-8; other bytes kept as lone surrogates, as Python decodes
a command-line argument).  It is parsed in both syntaxes (``parse(text, "old")``, the syntax of
configuration values, and ``parse(text, "new")``, the native ``[ ... ]`` syntax); every tree
that parses is

* printed back (``unparse``) and its attribute references listed (``analysis.references``),
* partially evaluated against the machine ad (``analysis.partial_evaluate``),
* evaluated alone, in the fixed machine ad (MY), and in a match of the machine ad (MY) with
  the fixed job ad (TARGET), with a fixed clock; each result is turned into Python values
  (``to_python``, which evaluates list items and nested ads) and the value is printed
  (``unparse_value``).

The same text is also read as ads (``parse_ads``, both syntaxes).

Properties: only ClassAdSyntaxError / CondorcfgError escape; time and memory bounds as in
_common.py.

Run: ``python tools/fuzz/run.py classad`` (see docs/fuzzing.md).
"""
from __future__ import annotations

import _common

NOW = 1_700_000_000  # a fixed clock: time(), CurrentTime, absTime() of "now"

MACHINE_AD = """\
MyType = "Machine"
Name = "slot1@fuzz.example.org"
Machine = "fuzz.example.org"
OpSys = "LINUX"
Arch = "X86_64"
Cpus = 4
Memory = 8192
Disk = 104857600
TotalSlots = 1
SlotType = "Partitionable"
HAS_CVMFS = true
LoadAvg = 0.25
KeyboardIdle = 1200
GPUs = 2
AssignedGPUs = "GPU-0,GPU-1"
CUDACapability = 8.6
Resources = [ Cpus = 4; Memory = 8192 ]
Groups = { "physics", "cms", 3, 4.5, undefined, error }
Start = (KeyboardIdle > 15 * 60) && (LoadAvg < 0.3) && (TARGET.RequestCpus <= MY.Cpus)
Requirements = START
Rank = TARGET.RequestMemory / 1024.0
IsOwner = FALSE
Recursive = Recursive + 1
"""

JOB_AD = """\
MyType = "Job"
Owner = "alice"
User = "alice@example.org"
AcctGroup = "group_physics"
RequestCpus = 4
RequestMemory = 8192
RequestDisk = 10485760
QDate = 1699990000
JobStatus = 1
Args = "-n 10 --verbose"
Env = "A=1;B=2"
Rank = TARGET.Memory
""" + ("Requirements = (TARGET.OpSys == \"LINUX\") && (TARGET.Arch == \"X86_64\") && (TARGET.HAS_CVMFS =?= true)"
          " && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus)\n")

_state: dict = {}


def setup() -> None:
    from condorcfg.classad.parser import parse_ad

    _state["machine"] = parse_ad(MACHINE_AD, "old")
    _state["job"] = parse_ad(JOB_AD, "old")


def check(data: bytes) -> None:
    from condorcfg.classad import analysis
    from condorcfg.classad.evaluator import evaluate, to_python
    from condorcfg.classad.parser import parse, parse_ads
    from condorcfg.classad.printer import unparse, unparse_value

    if not _state:
        setup()
    machine, job = _state["machine"], _state["job"]
    text = _common.decode_text(data)
    guard = _common.guard

    for syntax in ("old", "new"):
        tree = guard(parse, text, syntax)
        if tree is None:
            continue
        unparse(tree)
        analysis.references(tree)
        guard(analysis.partial_evaluate, tree, machine)
        for my, target in ((None, None), (machine, None), (machine, job)):
            value = evaluate(tree, my=my, target=target, now=NOW)
            to_python(value, now=NOW)
            unparse_value(value)

    for syntax in ("old", "new"):
        guard(parse_ads, text, syntax)


if __name__ == "__main__":
    _common.main("classad", check, setup, packages=("condorcfg.classad",))
