"""``if`` conditions against HTCondor 25.14.1: a seeded generator of condition texts built from the
characters HTCondor's Characterize_config_if_expression sorts (digits, ``.``, ``e``, signs,
letters, ``_/``, comparisons, blanks, ``:``, ``$(``), with the keywords ``defined``, ``version``
and ``use``; each is read by HTCondor (one process per case: a rejected condition ends it) and by
condorcfg, which must accept the same texts with the same truth and reject the others with
HTCondor's reason."""
from __future__ import annotations

import random
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import condorcfg
from condorcfg.diagnostics import CondorcfgError
from condorcfg.machine import MachineProfile

SEED = 1123
CASES = 48
PIECES = ["1", "0", "25", "1.5", ".5", "1.5.2", "1e", "0e-", "2e3", "-", "+", "e", "E", ".", "_", "/", "x", "A",
          "KNOB", "EMPTY", "true", "False", "yes", "t", "no", " ", "  ", ":", "<", ">", "=", "!", "!=", ">=",
          "$(KNOB)", "$(EMPTY)", "$(NOPE)", "&&", "(", ")", "v", "25.14.1", "25.14.1.7", "6.0", "Execute",
          "Execute2", "ROLE", "FEATURE"]
PREFIXES = ["", "", "", "defined ", "defined use ", "version ", "version >= ", "version == ", "! ", "!defined "]
HEADER = "KNOB = 1\nEMPTY =\n"


def generate(rng: random.Random, count: int = CASES) -> list[str]:
    texts = []
    while len(texts) < count:
        text = rng.choice(PREFIXES) + "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))
        if text.strip() and "#" not in text and text not in texts:
            texts.append(text)
    return texts


def _config(condition: str) -> str:
    return f"{HEADER}if {condition}\nRESULT = yes\nelse\nRESULT = no\nendif\n"


def _ours(condition: str, directory: Path) -> str:
    path = directory / "condor_config"
    path.write_text(_config(condition))
    try:
        config = condorcfg.load([str(path)], machine=MachineProfile(hostname="h.example.org"), environ={})
    except CondorcfgError as exc:
        message = exc.diagnostic.message
        for reason in ("complex conditionals are not supported", "expression is not a conditional",
                       "the version literal is invalid", "defined argument must be param name",
                       "defined use meta argument with internal spaces"):
            if reason in message:
                return "rejected: " + reason
        return "rejected: " + message
    return config.value("RESULT") or ""


def _theirs(oracle, condition: str) -> str:
    result = oracle.config_values(_config(condition), ["RESULT"])
    if result["expect"] is not None:
        return result["expect"]["RESULT"] or ""
    error = result["error"] or ""
    for reason in ("complex conditionals are not supported", "expression is not a conditional",
                   "the version literal is invalid", "defined argument must be param name",
                   "defined use meta argument with internal spaces"):
        if reason in error:
            return "rejected: " + reason
    return "rejected: " + error[-120:]


def test_if_conditions_match_htcondor(oracle):
    texts = generate(random.Random(SEED))
    with ThreadPoolExecutor(max_workers=2) as pool:
        expected = list(pool.map(lambda text: _theirs(oracle, text), texts))
    mismatches = []
    with tempfile.TemporaryDirectory() as directory:
        for text, theirs in zip(texts, expected):
            ours = _ours(text, Path(directory))
            if ours != theirs:
                mismatches.append((text, theirs, ours))
    assert not mismatches, f"{len(mismatches)} of {len(texts)} differ (condition, HTCondor, condorcfg): {mismatches}"


@pytest.mark.parametrize("condition, truth", [
    ("1.5.2", "yes"), ("1e", "yes"), ("0e-", "no"), ("version >= 25.14.1.7", "yes"), ("defined 1.5.2", "yes"),
    ("defined use ROLE:Execute2", "rejected: complex conditionals are not supported"),
    ("defined -1", "rejected: complex conditionals are not supported"),
])
def test_the_issue_examples(tmp_path, condition, truth):
    assert _ours(condition, tmp_path) == truth


@pytest.mark.parametrize("seed", range(3))
def test_the_plain_defined_shortcut_decides_as_the_character_classes_do(seed):
    from condorcfg.config import conditions

    rand = random.Random(seed)
    alphabet = "aAeEzZ019_./ -+tTfFrRuUsSyYnNoO"
    defined = {"A", "TRUE", "K1_A", "E5", "ZZ"}

    def is_defined(name):
        return name.upper() in defined

    def outcome(function, text):
        try:
            return function(text, is_defined, lambda category, name: False)
        except conditions.ConditionError as exc:
            return ("error", str(exc))

    checked = 0
    for _ in range(4000):
        name = "".join(rand.choice(alphabet) for _ in range(rand.randint(0, 6)))
        name = rand.choice([name, rand.choice(["true", "FALSE", "yes", "t", "F", "no", "K1_A", "e5", "1e5", "a.b"])])
        text = rand.choice(["defined ", "DEFINED  ", "Defined\t", "defined", "definedx "]) + name
        checked += conditions._DEFINED_NAME.fullmatch(text) is not None
        assert outcome(conditions._evaluate, text) == outcome(conditions._evaluate_classified, text), text
    assert checked > 1000
