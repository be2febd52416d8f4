"""Fuzz target: project settings (``.condorcfg.yaml`` and ``pyproject.toml [tool.condorcfg]``).

One input is written three times into a scratch project directory and read with
:func:`condorcfg.lint.project.load`:

* as ``.condorcfg.yaml``;
* as ``pyproject.toml``;
* as ``pyproject.toml`` after a ``[tool.condorcfg]`` line (so that plain ``key = value`` text
  reaches the settings code, not only the "no such table" refusal).

Every project that loads is then used the way ``condorcfg lint`` uses it: its settings files
and known-knob patterns (each pattern matched against a few knob names, under the time bound),
its machine profiles resolved (``resolve_machine`` for the default and every named profile:
files are looked up in the scratch directory, where ``machines/ep.yaml`` exists), and
:func:`condorcfg.lint.engine.run` with ``LintSettings.from_project`` on a fixed small
configuration, whose text report is rendered.

Properties: only CondorcfgError (ProjectConfigError is one) / ClassAdSyntaxError escape, and
``LintUsageError`` from the lint run (bad ``select``/``ignore`` names: the CLI's exit 2); no lint
finding is the engine's ``internal-error`` (a rule crashing on its ``rule-options``); the text
report has no raw control character and no line starting with ``::`` (``FUZZ_CHECK_OUTPUT=0``);
time and memory bounds as in _common.py.

Run: ``python tools/fuzz/run.py project`` (see docs/fuzzing.md).
"""
from __future__ import annotations

import os

import _common

CONFIG = """\
# a small configuration every fuzzed project lints
use ROLE : Execute
CONDOR_HOST = cm.example.org
SLOT_TYPE_1 = cpus=50%, memory=50%
NUM_SLOTS_TYPE_1 = 2
START = $(START) && (KeyboardIdle > 600)
UNDEFINED_THING = $(NOT_DEFINED_ANYWHERE)
ALLOW_WRITE = *
SITE_CUSTOM_KNOB = 1
"""
PROFILE = "hostname: ep.example.org\ncpus: 8\nmemory: 16384\n"
KNOB_NAMES = ("SITE_CUSTOM_KNOB", "START", "GPU_MONITOR", "A" * 200, "SLOT_TYPE_1_PARTITIONABLE")
_state: dict = {}
_linted: set[str] = set()


def setup() -> None:
    from condorcfg.lint.rules import load_rules

    base = _common.scratch_dir("project")
    for sub in ("yaml", "toml", "table"):
        os.makedirs(os.path.join(base, sub, "machines"))
        with open(os.path.join(base, sub, "machines", "ep.yaml"), "w", encoding="utf-8") as handle:
            handle.write(PROFILE)
    os.makedirs(os.path.join(base, "config"))
    config = os.path.join(base, "config", "condor_config")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    _state.update(base=base, config=config, ruleset=load_rules())


def _use(project) -> None:
    from condorcfg.lint import engine, project as project_module

    guard = _common.guard
    project.settings_files()
    for pattern in project.known_knob_patterns():
        for name in KNOB_NAMES:
            pattern.fullmatch(name)
    guard(project_module.resolve_machine, project, None)
    for name in list(project.machine_profiles):
        guard(project_module.resolve_machine, project, name)

    settings = engine.LintSettings.from_project(project)
    # The lint run depends only on the settings: most inputs repeat some earlier input's settings,
    # and linting again would only cost time (bounded memo; a run that failed is not remembered).
    key = repr((settings, project.fail_on, project.directory))
    if key in _linted:
        return
    _lint(project, settings)
    if len(_linted) > 20000:
        _linted.clear()
    _linted.add(key)


def _lint(project, settings) -> None:
    import condorcfg.report
    from condorcfg.lint import engine

    result = _common.guard(engine.run, [_state["config"]], settings=settings, ruleset=_state["ruleset"],
                           extra=(engine.LintUsageError,))
    if result is None:
        return
    crashed = [f for f in result.findings if f.rule == engine.INTERNAL_ERROR]
    if crashed:
        raise _common.PropertyViolation(f"lint reported an internal error: {crashed[0].message}",
                                        kind="internal-error")
    view = condorcfg.report.ReportView(ruleset=_state["ruleset"], root=project.directory,
                                       fail_on=project.fail_on or "error")
    _common.check_output(condorcfg.report.render("text", result, view), "the text report")


def check(data: bytes) -> None:
    from condorcfg.lint import project as project_module

    if not _state:
        setup()
    base = _state["base"]
    for sub, name, prefix in (("yaml", ".condorcfg.yaml", b""), ("toml", "pyproject.toml", b""),
                              ("table", "pyproject.toml", b"[tool.condorcfg]\n")):
        path = os.path.join(base, sub, name)
        with open(path, "wb") as handle:
            handle.write(prefix + data)
        project = _common.guard(project_module.load, path)
        if project is not None:
            _common.clear_report_caches()
            _use(project)


if __name__ == "__main__":
    # (the configuration linted is fixed: the reader, ClassAds and slots are not instrumented here)
    _common.main("project", check, setup, extra_instrumented=(*_common.YAML_READER, "tomllib"),
                 packages=("condorcfg.lint", "condorcfg.report", "condorcfg.machine", "condorcfg.inputs",
                           "condorcfg.textsafe"))
