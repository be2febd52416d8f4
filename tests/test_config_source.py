"""Unit tests of condorcfg.config.source: physical -> logical lines with HTCondor's quirks."""
from __future__ import annotations

import random

import pytest

from condorcfg.config import source
from condorcfg.config.source import MAX_LOGICAL_LINE, LineTooLong, decode, logical_lines


def texts(text: str) -> list[str]:
    return [line.text for line in logical_lines(text, "f")]


def test_trimming_and_blank_and_comment_lines():
    assert texts("  X = 1  \n\n   \t\n# c\n   # indented\nY=2\r\n") == ["X = 1", "Y=2"]


def test_hash_inside_a_value_is_data():
    assert texts("X = 1 # not a comment\n") == ["X = 1 # not a comment"]


def test_continuation_glues_without_separator():
    assert texts("X = a\\\nb\n") == ["X = ab"]
    assert texts("X = a \\\n  b \\\n  c\n") == ["X = a b c"]
    assert texts("X = a \\   \nb\n") == ["X = a b"]  # blanks after the backslash do not matter


def test_only_one_backslash_is_consumed():
    assert texts("X = a \\\\\nb\n") == ["X = a \\b"]


def test_continuation_into_blank_line_or_eof_ends_the_line():
    assert texts("X = a \\\n\nY = 1\n") == ["X = a ", "Y = 1"]
    assert texts("X = a \\\n") == ["X = a "]


def test_comment_inside_continuation_keeps_its_last_character():
    assert texts("X = a \\\n# comment\nY = 2\n") == ["X = a t", "Y = 2"]
    assert texts("X = a \\\n#\nY = 2\n") == ["X = a #", "Y = 2"]
    # a commented-out continued line ending in "\" keeps the continuation going
    assert texts("A = $(B) \\\n# $(C) \\\n$(D)\n") == ["A = $(B) $(D)"]


def test_top_level_comment_with_backslash_does_not_continue():
    assert texts("# note \\\nX = 1\n") == ["X = 1"]


def test_old_comment_mode_keeps_comment_lines_verbatim():
    assert texts("#opt:oldcomment\nA = a \\\n# comment \\\nb\n") == ["A = a # comment b"]
    assert texts("#opt:oldcomment\n#opt:newcomment\nX = a \\\n# comment\n") == ["X = a t"]


def test_unterminated_last_line_is_kept_raw():
    assert texts("X = 1   ") == ["X = 1   "]
    assert texts("X = 1\n   Y = 2   ") == ["X = 1", "   Y = 2   "]
    assert texts("X = a \\") == ["X = a \\"]


def test_line_numbers_and_columns():
    lines = logical_lines("\n  X = a \\\n  b\n# c\nY = 2\n", "cfg", first_line=10)
    assert [(l.text, l.line, l.end_line, l.column) for l in lines] == [("X = a b", 11, 12, 3), ("Y = 2", 14, 14, 1)]
    assert lines[0].file == "cfg"


def test_keep_comments_returns_comment_lines():
    assert [l.text for l in logical_lines("# hi\nX=1\n", "f", keep_comments=True)] == ["# hi", "X=1"]


def test_runaway_continuation_is_bounded():
    text = "X = " + ("a" * 1000 + "\\\n") * (MAX_LOGICAL_LINE // 1000 + 2)
    with pytest.raises(LineTooLong):
        logical_lines(text, "f")


def test_decode_falls_back_to_latin1():
    assert decode("café".encode()) == "café"
    assert decode(b"caf\xe9") == "café"


@pytest.mark.parametrize("seed", range(3))
def test_lines_are_the_same_whatever_the_chunk_size(seed, monkeypatch):
    """The text is split a chunk at a time: continuations, comments and #opt: directives that cross
    a chunk's end read as they do in one piece (and the last line without a newline too)."""
    rng = random.Random(seed)
    pieces = ["X = a", "  Y=b  ", "\\", "# c \\", "#opt:strict", "#opt:oldcomment", "#opt:newcomment", "", "\t",
              "Z : 1", "@end", "if true", "\r"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(400)]
    for ending in ("\n", "", "\\\n", "tail"):
        text = "\n".join(lines) + ending
        whole = [(l.text, l.line, l.end_line, l.column, l.strict) for l in
                 logical_lines(text, "f", keep_comments=True)]
        # a plain comment line is skipped by a short cut: it reads as the comments kept, left out
        assert [(l.text, l.line, l.end_line, l.column, l.strict) for l in logical_lines(text, "f")] == \
            [line for line in whole if not line[0].startswith("#")]
        for chunk in (1, 7, 64):
            monkeypatch.setattr(source, "CHUNK", chunk)
            assert [(l.text, l.line, l.end_line, l.column, l.strict) for l in
                    logical_lines(text, "f", keep_comments=True)] == whole
        monkeypatch.undo()
