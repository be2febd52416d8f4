"""Inline suppressions are found in one pass and looked up by bisection (issue 28).

5,000 lines each under a `# condorcfg: ignore[...]` comment took 1.6 s, 20,000 took 25 s: every
finding scanned every suppression of its file.  The new scan and index must give exactly the old
answers (a reference copy of the old code below, on seeded random files) and do work linear in the
file.  One change is intended: a line inside a heredoc's body is part of a value, never a suppression.
"""
from __future__ import annotations

import random
import re

import pytest

from condorcfg.lint import suppress

_HEREDOC = re.compile(r"^\s*[^\s#=]+\s*@=\s*(?P<tag>\S+)\s*$")


def _old_covered_lines(lines, start):
    index = start
    while index < len(lines) and (not lines[index].strip() or lines[index].lstrip().startswith("#")):
        index += 1
    if index >= len(lines):
        return 0, 0
    first = index
    heredoc = _HEREDOC.match(lines[index])
    if heredoc:
        end_marker = "@" + heredoc.group("tag")
        while index + 1 < len(lines) and lines[index].strip() != end_marker:
            index += 1
    else:
        while lines[index].rstrip().endswith("\\") and index + 1 < len(lines):
            index += 1
    return first + 1, index + 1


def _old_find(sups, line, code):
    for sup in sups:
        # (one difference, intended: a suppression with no statement after it, 0-0, hid findings of line 0)
        if sup.file_wide or sup.first <= line <= sup.last and sup.last:
            if code in [c.upper() for c in sup.codes]:
                return sup
    return None


PIECES = ["A = 1", "B = 2 \\", "  more", "C = 3 \\", "", "# plain comment", "# condorcfg: ignore[KNB303] why",
          "# condorcfg: ignore[MAC201, KNB303]", "# condorcfg: ignore-file[POL501] all", "   ", "D = $(X)",
          "# condorcfg: ignore[]", "# condorcfg: bogus"]


def _random_file(rng: random.Random, heredocs: bool) -> list[str]:
    lines = []
    for _ in range(rng.randint(0, 60)):
        if heredocs and rng.random() < 0.08:
            tag = rng.choice(["END", "X"])
            lines.append(f"H{rng.randint(0, 9)} @={tag}")
            lines += [rng.choice(["body", "B = in body"]) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.8:
                lines.append(f"@{tag}")
        else:
            lines.append(rng.choice(PIECES))
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_the_one_pass_scan_gives_the_old_answers(seed):
    rng = random.Random(seed)
    lines = _random_file(rng, heredocs=seed % 2 == 0)
    found, problems = suppress.scan("f.conf", lines)
    in_body = suppress._statement_ends(lines)[1]
    # the old scan looked at every line; the new one skips heredoc bodies (values, not comments)
    old_lines = [i + 1 for i, text in enumerate(lines) if suppress._DIRECTIVE.match(text) and not in_body[i]]
    assert sorted([s.line for s in found] + [p.line for p in problems]) == old_lines
    for sup in found:
        if not sup.file_wide:
            assert (sup.first, sup.last) == _old_covered_lines(lines, sup.line)
    index = suppress.SuppressionIndex(found)
    for line in range(0, len(lines) + 2):
        for code in ("KNB303", "MAC201", "POL501"):
            expected = _old_find(found, line, code)
            for sup in found:
                sup.used.clear()
            assert index.find("f.conf", line, code, "slug") is expected
            assert index.find("other.conf", line, code, "slug") is None


def test_a_suppression_inside_a_heredoc_body_is_part_of_the_value():
    lines = ["X @=END", "# condorcfg: ignore[KNB303] in the value", "A = 1", "@END", "B = 2"]
    found, problems = suppress.scan("f", lines)
    assert found == [] and problems == []


def test_many_suppressions_are_looked_up_in_work_linear_in_their_number(monkeypatch):
    calls = []
    real_covers = suppress.Suppression.covers
    monkeypatch.setattr(suppress.Suppression, "covers", lambda self, line: calls.append(1) or real_covers(self, line))

    def work(n: int) -> int:
        calls.clear()
        lines = []
        for i in range(n):
            lines += [f"# condorcfg: ignore[KNB303] known {i}", f"K{i} = v"]
        index = suppress.SuppressionIndex(suppress.scan("f", lines)[0])
        for i in range(n):
            assert index.find("f", 2 * i + 2, "KNB303", "unknown-knob") is not None
        return len(calls)

    assert work(4000) <= 4 * work(1000) + 10  # (the old index: 16 times as many)
