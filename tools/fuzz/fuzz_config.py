"""Fuzz target: the configuration reader, knob expansion, lint and the text report.

One input is one configuration:

* without the separator ``\\n%%\\n`` it is the single file ``<tmp>/single/condor_config``;
* with it, the part before is ``<tmp>/dir/config.d/10-first`` and the part after
  ``<tmp>/dir/config.d/20-second``, and the directory ``config.d`` is what is read.

Each is read twice, ``mode="host"`` and ``mode="repository"``, with the fixed machine profile
(fuzz.example.org, 4 CPUs, 8192 MiB) and ``environ={}``; then every knob the configuration
names is expanded with ``config.value(name)``.  Then ``condorcfg.lint.engine.run`` lints the same
path (repository mode) and ``condorcfg.report.render("text", ...)`` renders the report.

Properties: only CondorcfgError / ClassAdSyntaxError escape; no lint finding is the engine's
``internal-error`` (a reader or rule crash that lint turned into a finding); the rendered report
has no raw control character and no line starting with ``::`` (``FUZZ_CHECK_OUTPUT=0`` turns
that off); time and memory bounds as in _common.py.

Run: ``python tools/fuzz/run.py config`` (see docs/fuzzing.md).
"""
from __future__ import annotations

import os

import _common

SEPARATOR = b"\n%%\n"
_state: dict = {}


def setup() -> None:
    import condorcfg.report
    from condorcfg.lint.rules import load_rules
    from condorcfg.machine import MachineProfile

    base = _common.scratch_dir("config")
    os.makedirs(os.path.join(base, "single"))
    os.makedirs(os.path.join(base, "dir", "config.d"))
    _state.update(
        base=base,
        single=os.path.join(base, "single", "condor_config"),
        directory=os.path.join(base, "dir", "config.d"),
        first=os.path.join(base, "dir", "config.d", "10-first"),
        second=os.path.join(base, "dir", "config.d", "20-second"),
        profile=MachineProfile(**_common.PROFILE_FIXED),
        ruleset=load_rules(),
        view=condorcfg.report.ReportView(),
    )


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def check(data: bytes) -> None:
    import condorcfg
    import condorcfg.report
    from condorcfg.lint import engine

    if not _state:
        setup()
    if SEPARATOR in data:
        first, second = data.split(SEPARATOR, 1)
        _write(_state["first"], first)
        _write(_state["second"], second)
        target = _state["directory"]
    else:
        _write(_state["single"], data)
        target = _state["single"]
    profile = _state["profile"]

    for mode in ("host", "repository"):
        config = _common.guard(condorcfg.load, [target], machine=profile, environ={}, mode=mode,
                               cwd=_state["base"])
        if config is None:
            continue
        for name in config.names():
            _common.guard(config.value, name)

    _common.clear_report_caches()
    result = engine.run([target], machine=profile, ruleset=_state["ruleset"])
    crashed = [f for f in result.findings if f.rule == engine.INTERNAL_ERROR]
    if crashed:
        raise _common.PropertyViolation(f"lint reported an internal error: {crashed[0].message}",
                                        kind="internal-error")
    text = condorcfg.report.render("text", result, _state["view"])
    _common.check_output(text, "the text report")


if __name__ == "__main__":
    _common.main("config", check, setup)
