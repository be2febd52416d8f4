"""Project files and machine profiles from a pull request cannot hang or exhaust condorcfg.

Closed as classes, with generated inputs: YAML alias bombs (any depth and breadth, under any
key, in either file), recursive YAML, oversized YAML, huge GPU and resource counts and id
lists, and known-knobs patterns that backtrack (every accepted pattern must match long
names in linear time; every refused one is refused with a message saying why).  Also: lint
reads its rules from the installed package, never from the checkout being linted.
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from condorcfg import machine as machine_module
from condorcfg.cli import main
from condorcfg.diagnostics import CondorcfgError
from condorcfg.inputs import MAX_YAML_SIZE, MAX_YAML_VALUES, expanded_size
from condorcfg.lint import project as project_module
from condorcfg.lint.project import ProjectConfigError, knob_pattern_problem

BUDGET_SECONDS = 2.0  # each refusal must come long before this, whatever the input's expansion


def alias_bomb(depth: int, breadth: int, leaf: str = "x") -> list[str]:
    """YAML lines defining anchors l0..l{depth-1}, each a list of ``breadth`` copies of the previous."""
    lines = [f"l0: &l0 [{', '.join([leaf] * breadth)}]"]
    for level in range(1, depth):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * breadth)}]")
    return lines


def flow_bomb(depth: int, breadth: int) -> str:
    """The same anchors inside one flow mapping, so a single key's value holds them all."""
    return "{" + ", ".join(alias_bomb(depth, breadth)) + "}"


def timed(fn):
    start = time.process_time()
    try:
        return fn(), time.process_time() - start
    except CondorcfgError as exc:
        return exc, time.process_time() - start


# --- YAML aliases -------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth, breadth", [(9, 10), (30, 2), (4, 200), (6, 9)])
@pytest.mark.parametrize("where", ["gpus-map", "gpus-list", "resources", "hostname", "unknown"])
def test_profile_alias_bombs_are_refused_at_once(tmp_path, depth, breadth, where):
    bomb = flow_bomb(depth, breadth)
    text = {"gpus-map": f"gpus: {bomb}\n", "gpus-list": f"gpus: [{bomb}]\n", "resources": f"resources: {{T: {bomb}}}\n",
            "hostname": f"hostname: {bomb}\n", "unknown": f"zzz: {bomb}\n"}[where]
    path = tmp_path / "m.yaml"
    path.write_text(text)
    result, took = timed(lambda: machine_module.load_profile(str(path)))
    assert isinstance(result, CondorcfgError)
    assert took < BUDGET_SECONDS
    if breadth ** depth > MAX_YAML_VALUES:
        assert "MAX_YAML_VALUES" in result.diagnostic.message


@pytest.mark.parametrize("depth, breadth", [(9, 10), (30, 2), (4, 200)])
def test_project_alias_bombs_are_refused_at_once(tmp_path, depth, breadth):
    lines = alias_bomb(depth, breadth)
    (tmp_path / ".condorcfg.yaml").write_text("\n".join(f"x-{line}" for line in lines) + f"\nignore: *l{depth - 1}\n")
    start = time.process_time()
    with pytest.raises(ProjectConfigError) as caught:
        project_module.load(tmp_path / ".condorcfg.yaml")
    assert time.process_time() - start < BUDGET_SECONDS
    assert "MAX_YAML_VALUES" in caught.value.diagnostic.message


def test_recursive_yaml_is_refused(tmp_path):
    (tmp_path / "m.yaml").write_text("gpus: &a [x, *a]\n")
    with pytest.raises(CondorcfgError, match="recursive"):
        machine_module.load_profile(str(tmp_path / "m.yaml"))
    (tmp_path / ".condorcfg.yaml").write_text("ignore: &a [X, *a]\n")
    with pytest.raises(ProjectConfigError, match="recursive"):
        project_module.load(tmp_path / ".condorcfg.yaml")


def test_a_few_aliases_are_still_fine(tmp_path):
    (tmp_path / "m.yaml").write_text("gpus: &g [GPU-1, GPU-2]\n")
    assert machine_module.load_profile(str(tmp_path / "m.yaml")).gpus == ["GPU-1", "GPU-2"]
    (tmp_path / ".condorcfg.yaml").write_text("select: &s [POL]\nextend-select: *s\n")
    assert project_module.load(tmp_path / ".condorcfg.yaml").extend_select == ["POL"]


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.integers(0, 3), lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text("ab", max_size=2), inner, max_size=3), max_leaves=30))
def test_expanded_size_counts_every_value(data):
    def plain_count(node):
        if isinstance(node, dict):
            return 1 + sum(plain_count(k) + plain_count(v) for k, v in node.items())
        if isinstance(node, list):
            return 1 + sum(plain_count(x) for x in node)
        return 1

    assert expanded_size(data, 10 ** 9) == plain_count(data)


def test_expanded_size_stops_early_on_shared_nodes():
    node = ["x"]
    for _ in range(60):  # 2**60 values, a few hundred objects
        node = [node, node]
    start = time.process_time()
    assert expanded_size(node, 1000) > 1000
    assert time.process_time() - start < 0.5


@pytest.mark.parametrize("text", ["!!int d\n", "ignore: [!!int " + "9" * 5000 + "]\n", "gpus: !!float x\n"])
def test_yaml_the_loader_cannot_build_is_a_diagnostic(tmp_path, text):
    (tmp_path / ".condorcfg.yaml").write_text(text)
    with pytest.raises(ProjectConfigError, match="not valid YAML"):
        project_module.load(tmp_path / ".condorcfg.yaml")
    (tmp_path / "m.yaml").write_text(text)
    with pytest.raises(CondorcfgError):
        machine_module.load_profile(str(tmp_path / "m.yaml"))


# --- sizes and counts -------------------------------------------------------------------------------

def _profile(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else data)
    return str(path)


@pytest.mark.parametrize("case, data, words", [
    ("gpu count", "gpus: 10000000\n", ["'gpus'", "65536"]),
    ("resource ids in all lists", {"resources": {f"T{i}": [str(j) for j in range(60000)] for i in range(3)}},
     ["65536 ids in all"]),
    ("gpus and resources together", {"gpus": [str(j) for j in range(40000)],
                                     "resources": {"T": [str(j) for j in range(40000)]}}, ["65536 ids in all"]),
    ("many resources", {"resources": {f"T{i}": 1 for i in range(1000)}}, ["at most 64"]),
    ("resource name", {"resources": {"a b": 1}}, ["attribute name"]),
    ("long resource name", {"resources": {"T" * 5000: 1}}, ["attribute name"]),
    ("long id", {"gpus": ["x" * 100_000]}, ["256"]),
    ("YAML too large", "gpus: [" + ", ".join(f"GPU-{i:08x}" for i in range(40000)) + "]\n", ["MAX_YAML_SIZE"]),
])
def test_profiles_beyond_the_limits_are_refused_quickly(tmp_path, case, data, words):
    path = _profile(tmp_path, "m.json" if isinstance(data, dict) else "m.yaml", data)
    result, took = timed(lambda: machine_module.load_profile(path))
    assert isinstance(result, CondorcfgError), case
    assert took < BUDGET_SECONDS
    message = result.diagnostic.message
    assert len(message) < 400  # never the whole value
    for word in words:
        assert word in message, (case, message)


def test_a_long_id_list_in_json_is_read(tmp_path):
    ids = [f"GPU-{i:08x}" for i in range(60000)]
    path = _profile(tmp_path, "m.json", {"gpus": ids})
    profile, took = timed(lambda: machine_module.load_profile(path))
    assert profile.gpus == ids and took < BUDGET_SECONDS


def test_yaml_profile_size_limit_is_generous_for_real_profiles(tmp_path):
    text = "hostname: ep01.example.org\ncpus: 64\nmemory: 262144\ngpus: [" + \
        ", ".join(f"GPU-{i:08x}" for i in range(1000)) + "]\n"
    assert len(text) < MAX_YAML_SIZE
    assert len(machine_module.load_profile(_profile(tmp_path, "m.yaml", text)).gpus) == 1000


def test_project_files_are_read_only_up_to_the_limit(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.condorcfg]\nignore = [" + ", ".join(
        f'"X{i}"' for i in range(200_000)) + "]\n")
    start = time.process_time()
    with pytest.raises(ProjectConfigError, match="larger than"):
        project_module.load(tmp_path / "pyproject.toml")
    assert time.process_time() - start < BUDGET_SECONDS
    (tmp_path / ".condorcfg.yaml").write_text("ignore: [" + ", ".join(f"X{i}" for i in range(40000)) + "]\n")
    with pytest.raises(ProjectConfigError, match="larger than"):
        project_module.load(tmp_path / ".condorcfg.yaml")


# --- known-knobs patterns ----------------------------------------------------------------------------

HOSTILE_KNOB_PATTERNS = [
    "(A+)+$", "(A*)*", "(A|AA)+", "(ab|a)*c", "(A?){30}A{30}", "(A{1,30}){1,30}B", "A?" * 30 + "A" * 30,
    ".*.*.*X", "SITE_.*_.*", "(x)\\1", "(?=A)A*", "(?<=A)B", "(?:A+B?)+", "X" * 500, "[",
]


@pytest.mark.parametrize("pattern", HOSTILE_KNOB_PATTERNS)
def test_backtracking_known_knobs_are_refused_with_the_reason(tmp_path, pattern):
    (tmp_path / ".condorcfg.yaml").write_text(f"known-knobs: [{json.dumps(pattern)}]\n")
    with pytest.raises(ProjectConfigError) as caught:
        project_module.load(tmp_path / ".condorcfg.yaml")
    message = caught.value.diagnostic.message
    assert "known-knobs entry" in message and knob_pattern_problem(pattern) in message


_PIECES = ["A", "B", "_", "[A-Z]", "[0-9]", ".", "(GPU|FPGA)", "(?:X|YZ)", "A?", "[0-9]{1,3}", ".*", "[A-Z_]+", "$",
           "^", "(?:_[0-9])", "(?:AB)+"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12))
def test_every_accepted_knob_pattern_matches_long_names_in_linear_time(pieces):
    pattern = "".join(pieces)
    if knob_pattern_problem(pattern) is not None:
        return
    compiled = re.compile(pattern, re.IGNORECASE)  # as lint compiles and uses it
    for name in ("A" * 200_000 + "!", "_" * 200_000, "A_" * 100_000 + "9", "GPU" + "X" * 200_000):
        start = time.process_time()
        compiled.fullmatch(name)
        assert time.process_time() - start < 0.5, pattern


@pytest.mark.parametrize("pattern", ["SITE_.*", "GPU_MONITOR", "(GPU|FPGA)_[A-Z0-9_]+", "SLOT[0-9]+_USER",
                                     "SITE_.*|LOCAL_.*", "SLOT[0-9]{1,4}_.*", "MY_(A|B|C)_(X|Y)_.*"])
def test_site_patterns_are_accepted(pattern):
    assert knob_pattern_problem(pattern) is None


def test_the_reported_known_knobs_hang_ends_at_once(tmp_path, monkeypatch, capsys):
    # before: (A+)+$ against a 40-letter knob name hung lint
    (tmp_path / ".git").mkdir()
    (tmp_path / ".condorcfg.yaml").write_text('known-knobs: ["(A+)+$"]\n')
    (tmp_path / "condor_config").write_text("A" * 40 + "B = 1\n")
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    code = main(["lint", "condor_config"])
    err = capsys.readouterr().err
    assert code == 2 and "known-knobs entry" in err
    assert time.monotonic() - start < 10


# --- rules come from the package ---------------------------------------------------------------------

def test_lint_rules_come_from_the_package_not_the_checkout(tmp_path, monkeypatch):
    from condorcfg.lint.rules import RULES_DIR_ENV, default_rules_dirs
    from condorcfg.resources import data_dir

    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "evil.yaml").write_text("code: XXX999\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(RULES_DIR_ENV, raising=False)
    assert default_rules_dirs() == [Path(data_dir("rules"))]
    assert tmp_path not in default_rules_dirs()[0].parents
