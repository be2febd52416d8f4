"""The reader's short cuts give what the general code gives.

Each short cut (a plain ``NAME = value`` line read without parse_statement, a lone ``$(X)`` self
reference substituted without the walk, statements kept as records) is checked here against the
general path it stands in for, on seeded generated input, so the two cannot drift apart.
"""
from __future__ import annotations

import random

import pytest

import condorcfg
from condorcfg.config import macros
from condorcfg.config import statements as st
from condorcfg.config.limits import Budget
from condorcfg.machine import MachineProfile

NAME_CHARS = "AbZz09_./"
OTHER = "abc XY=:+-#@[]() \\\t,"


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 6)))


def _lone_reference_cases(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        name = _name(rng)
        spelled = "".join(c.lower() if rng.random() < 0.5 else c.upper() for c in name)
        ref = rng.choice([f"$({spelled})", f"$({spelled}:d)", f"$F({spelled})", f"$({_name(rng)})", f"$$({spelled})",
                          f"$({spelled}x)", f"$ ({spelled})"])
        before = "".join(rng.choice(OTHER) for _ in range(rng.randint(0, 8)))
        after = "".join(rng.choice(OTHER) for _ in range(rng.randint(0, 8)))
        replacement = rng.choice(["", "old", "a $(Y) b", "x" * rng.randint(1, 40), "$$", "with ) and ("])
        yield name.upper(), before + ref + after, replacement


@pytest.mark.parametrize("seed", range(4))
def test_a_lone_self_reference_expands_as_the_walk_does(seed):
    for name, text, replacement in _lone_reference_cases(seed, 500):
        def evaluate(found, replacement=replacement):
            return replacement if found.kind == macros.NORMAL else f"<{found.kind}:{found.body}>"

        fast_budget, walk_budget = Budget(), Budget()
        fast = macros.expand_self(text, (name,), evaluate, fast_budget)
        walked = text if name not in text.upper() else macros.expand_self_walk(text, (name,), evaluate, walk_budget)
        assert fast == walked, (text, replacement)
        assert (fast_budget.steps, fast_budget.chars) == (walk_budget.steps, walk_budget.chars), text


def test_the_lone_reference_short_cut_is_taken():
    calls = []
    original = macros.expand_self_walk
    try:
        macros.expand_self_walk = lambda *args: calls.append(args) or original(*args)
        assert macros.expand_self("$(acc) more", ("ACC",), lambda found: "old") == "old more"
        assert not calls
        assert macros.expand_self("$(ACC) $(ACC)", ("ACC",), lambda found: "x") == "x x"
        assert calls
    finally:
        macros.expand_self_walk = original


def _lines(seed: int, count: int):
    rng = random.Random(seed)
    pieces = ["A", "b.c", "x/y", "_1", "$(N)", "if", "use", "include", "@use", "error", "ELSE", "endif", "in",
              "X+", "[S]", "", " ", "\t", "=", ":", "+=", "@=", "+", "v", "$(V)", "#", "\\"]
    for _ in range(count):
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))).strip(" \t")


@pytest.mark.parametrize("seed", range(4))
def test_a_plain_assignment_line_parses_as_parse_statement_says(seed):
    for text in _lines(seed, 2000):
        if not text or text[0] in "eEiI:":
            continue  # the reader tries if-lines first
        plain = st.PLAIN_ASSIGN.match(text)
        if plain is None:
            continue
        assert st.parse_statement(text) == (st.ASSIGN, plain.group(1), "=", plain.group(2), ""), text
        assert st.is_valid_name(plain.group(1)), text


@pytest.mark.parametrize("seed", range(4))
def test_the_simple_assignment_short_cut_parses_as_the_general_code(seed, monkeypatch):
    """parse_statement's own short cut (`NAME = value`, `NAME : value` with no words between) against the
    general code after it."""
    import re

    lines = [text for text in _lines(seed, 3000) if text]

    def parsed():
        out = []
        for text in lines:
            try:
                out.append(st.parse_statement(text))
            except st.StatementError as exc:
                out.append(("rejected", exc.detail, exc.hint))
        return out

    short = parsed()
    assert sum(1 for text in lines if (m := st._SIMPLE_ASSIGN.match(text)) and m.group(2) == ":") > 100
    monkeypatch.setattr(st, "_SIMPLE_ASSIGN", re.compile(r"(?!)"))  # matches nothing: the general code only
    assert parsed() == short


def test_statements_made_from_records_are_what_the_reader_read(tmp_path):
    path = tmp_path / "condor_config"
    path.write_text("A = 1\nif false\nB = 2\nelse\nC = $(A)\nendif\nuse ROLE : Execute\n")
    cfg = condorcfg.load(str(path), machine=MachineProfile(hostname="h.example.org"), environ={})
    kinds = [(s.kind, s.name, s.location.line, s.active) for s in cfg.statements if s.location.file == str(path)]
    assert kinds == [("assign", "A", 1, True), ("if", None, 2, True), ("skipped", None, 3, False),
                     ("else", None, 4, True), ("assign", "C", 5, True), ("endif", None, 6, True),
                     ("use", "use", 7, True)]
    assert cfg.statements is cfg.statements and not cfg.statement_records  # made once
    assert cfg.source("C").location.line == 5 and cfg.source("C").location.column == 1
