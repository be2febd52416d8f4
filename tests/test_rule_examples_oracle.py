"""Every rule example means to HTCondor what it means to condorcfg.

A rule's pass and fail examples (rules/*.yaml) are small configurations.  Each is read by
HTCondor 25.14.1 (one oracle child for all, tests/test_config_differential.run_oracle) and by
condorcfg with the same pinned host: every knob the example assigns must have the same value,
and a configuration HTCondor refuses must be refused by condorcfg too.  A rule whose example
relied on condorcfg misreading the configuration would pass its own test and still be wrong
about HTCondor; this catches that.  (What each rule then concludes from the values is checked
against HTCondor's evaluation where it evaluates: tests/test_pol501_outcomes.py.)
"""
from __future__ import annotations

import condorcfg
from condorcfg.diagnostics import CondorcfgError

from test_config_differential import _profile, _write_case, run_oracle
from test_rule_examples import RULES


def _examples() -> list[dict]:
    cases = []
    for rule in RULES:
        for kind, examples in (("fail", rule.fail_examples), ("pass", rule.pass_examples),
                               ("silent", rule.silent_examples)):
            for number, example in enumerate(examples, 1):
                if example.machine:  # (a machine profile changes the detected values; the text is the same)
                    continue
                cases.append({"id": f"{rule.code}-{kind}-{number}", "text": example.config, "knobs": []})
    return cases


def _assigned(config, case_file: str) -> list[str]:
    """The names the example itself assigns (not the templates' or the defaults')."""
    names = []
    for name in config.names():
        definition = config.source(name)
        location = getattr(definition, "location", None)
        if location is not None and location.file == case_file:
            names.append(name)
    return names


def test_rule_examples_read_as_htcondor_reads_them(oracle, tmp_path):
    cases = _examples()
    ours: dict[str, dict | str | None] = {}
    for case in cases:
        top = _write_case(case, tmp_path)
        try:
            config = condorcfg.load([str(top)], machine=_profile(), environ={"USER": "root"}, cwd=str(top.parent))
        except CondorcfgError as exc:
            ours[case["id"]] = exc.diagnostic.format()
            continue
        if any(d.code == "command-include" for d in config.diagnostics):
            ours[case["id"]] = None  # HTCondor runs the command; condorcfg does not (security model): no oracle
            continue
        case["knobs"] = _assigned(config, str(top.parent / "case.conf"))
        try:  # (a macro cycle: HTCondor hangs, condorcfg refuses - the two agree)
            ours[case["id"]] = {k: config.value(k) for k in case["knobs"]}
        except CondorcfgError as exc:
            ours[case["id"]] = exc.diagnostic.format()
    cases = [case for case in cases if ours[case["id"]] is not None]
    results = run_oracle(cases, tmp_path)
    mismatches, compared = [], 0
    for case in cases:
        mine, theirs = ours[case["id"]], results[case["id"]]
        if isinstance(mine, str) or "error" in theirs:
            if isinstance(mine, str) != ("error" in theirs):
                mismatches.append((case["id"], "refused by one only", mine if isinstance(mine, str) else
                                   theirs["error"][-300:]))
            continue
        for knob, value in theirs["values"].items():
            compared += 1
            if mine[knob] != value:
                mismatches.append((case["id"], knob, (mine[knob], value)))
    assert not mismatches, "\n".join(map(str, mismatches[:10]))
    assert len(cases) > 150 and compared > 200
