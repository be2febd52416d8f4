"""The flat-YAML fast path reads what ruamel.yaml reads, or declines (then ruamel.yaml reads it)."""
from __future__ import annotations

import io
import random

import pytest
from ruamel.yaml import YAML

from condorcfg import flat_yaml
from condorcfg.machine import load_profile

EXAMPLES = ["hostname: ep01.example.org\ncpus: 64\n", "gpus: [GPU-1a, GPU-2b]  # ids\n", "a: []\n",
            "ip: 10.20.1.1\nopsys: LINUX\n", "# only\n\nx: 'q'\ny: \"r s\"\n"]

# pieces of scalars that YAML may read as numbers, dates, booleans, nulls, specials - or strings
SCALARS = ["0", "1", "12", "012", "-1", "+1", "1.5", "1e3", "0x1F", "0o17", "1_000", "true", "True", "TRUE",
           "false", "no", "yes", "on", "off", "y", "n", "null", "Null", "~", "", ".inf", ".nan", "-.inf",
           "2024-01-01", "2024-01-01 10:00:00", "10.20.1.1", "1.2.3", "v1.2", "ep01.example.org", "LINUX",
           "GPU-1a2b3c4d", "a b", "a#b", "a # b", "'a'", '"a"', "'a''b'", '"a\\tb"', "*x", "&x", "!!str 1",
           "[a, b]", "[a,b]", "[]", "[a, [b]]", "[a, b,]", "{a: 1}", "|", ">", "-", "- a", "a:b", "a: b", "@x",
           "%x", "`x`", "é", "x\ty", "1:2", "0b101", "1__0", "NaN", "Infinity", "e1", "x:", "a,b", "[ a ]",
           "100000000000000000000", "9" * 18]
PLAIN = ["1", "12", "true", "false", "10.20.1.1", "LINUX", "GPU-1a", "ep01.example.org", "'a'", '"a"', "x86_64"]
KEYS = ["hostname", "cpus", "a", "_k", "a-b", "true", "null", "1", "y", "on", "x y", "a.b", "K"]


def _ruamel(text: str):
    return YAML(typ="safe").load(io.StringIO(text))


def _same(left, right) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right))
    return left == right


@pytest.mark.parametrize("text", EXAMPLES)
def test_flat_profiles_take_the_fast_path(text):
    data = flat_yaml.load(text)
    assert data is not None and _same(data, _ruamel(text))


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_path_reads_what_ruamel_reads_or_declines(seed):
    rand = random.Random(seed)
    taken = 0
    for _ in range(400):
        lines = []
        for _ in range(rand.randint(1, 5)):
            kind = rand.random()
            if kind < 0.1:
                lines.append(rand.choice(["", "# c", "  # c", "\t", "---", "...", "  k: 1", "%YAML 1.1"]
                                         if rand.random() < 0.3 else ["", "# c"]))
                continue
            pool = SCALARS if rand.random() < 0.3 else PLAIN
            value = rand.choice(pool)
            if kind < 0.3:
                value = "[" + ", ".join(rand.choice(pool) for _ in range(rand.randint(0, 3))) + "]"
            sep = rand.choice([": ", ": ", ":  ", ":"]) if rand.random() < 0.3 else ": "
            comment = rand.choice(["", "", " # note", "  #x", "# x"]) if rand.random() < 0.3 else ""
            key = rand.choice(KEYS) if rand.random() < 0.3 else f"k{rand.randint(0, 99)}"
            lines.append(f"{key}{sep}{value}{comment}{rand.choice(['', ' ', ''])}")
        text = "\n".join(lines) + (rand.choice(["\n", "", "\r\n"]) if rand.random() < 0.3 else "\n")
        fast = flat_yaml.load(text)
        if fast is None:
            continue
        try:
            full = _ruamel(text)
        except Exception as exc:  # noqa: BLE001 - the fast path accepted what the full parser refuses
            raise AssertionError(f"fast path read {text!r} as {fast!r}; ruamel.yaml: {exc}")
        assert _same(fast, full), (text, fast, full)
        taken += 1
    assert taken > 60  # the generator does reach the fast path


def test_a_profile_outside_the_subset_is_still_read(tmp_path):
    path = tmp_path / "node.yaml"
    path.write_text("hostname: n1.example.org\ncpus: 0x10\ngpus:\n  - GPU-a\n")
    assert flat_yaml.load(path.read_text()) is None
    profile = load_profile(str(path))
    assert profile.cpus == 16 and profile.hostname == "n1.example.org"
