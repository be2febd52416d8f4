"""Unit tests of condorcfg.config.statements: how one logical line is classified."""
from __future__ import annotations

import pytest

from condorcfg.config import statements as st


@pytest.mark.parametrize("text, expected", [
    ("X = 1", (st.ASSIGN, "X", "=", "1", "")),
    ("X=v", (st.ASSIGN, "X", "=", "v", "")),
    ("X = a=b:c", (st.ASSIGN, "X", "=", "a=b:c", "")),
    ("E = = 5", (st.ASSIGN, "E", "=", "= 5", "")),
    ("B : 2", (st.ASSIGN, "B", ":", "2", "")),
    ("X : = 5", (st.ASSIGN, "X", ":", "= 5", "")),
    ("X =", (st.ASSIGN, "X", "=", "", "")),
    ("X += b", (st.APPEND, "X", "+=", "b", "")),
    ("X -= b", (st.ASSIGN, "X", "=", "b", "-")),
    ("W junk = b", (st.ASSIGN, "W", "=", "b", "junk")),
    ("X @=end", (st.HEREDOC, "X", "@=", "end", "")),
    ("X @=  tag ", (st.HEREDOC, "X", "@=", "tag", "")),
    ("X@=end", (st.ASSIGN, "X@", "=", "end", "")),
    ("X+=2", (st.ASSIGN, "X+", "=", "2", "")),
    ("include : /a/b", (st.INCLUDE, "include", ":", "/a/b", "")),
    ("INCLUDE:/a", (st.INCLUDE, "INCLUDE", ":", "/a", "")),
    ("@include : x", (st.INCLUDE, "include", ":", "x", "")),
    ("include ifexist : x", (st.INCLUDE, "include", ":", "x", "ifexist")),
    ("use ROLE : Execute", (st.USE, "use", ":", "Execute", "ROLE")),
    ("use ROLE=Execute", (st.ASSIGN, "use", "=", "Execute", "ROLE")),
    ("use = 5", (st.ASSIGN, "use", "=", "5", "")),
    ("error : boom", (st.ERROR, "error", ":", "boom", "")),
    ("error 5 : boom", (st.ERROR, "error", ":", "boom", "5")),
    ("Warning:", (st.WARNING, "Warning", ":", "", "")),
    ("require : something", (st.ASSIGN, "require", ":", "something", "")),
    ("[Section]", (st.SECTION, "", "", "", "")),
    ("[Section]junk", (st.SECTION, "", "", "", "")),
    ("[x] = 1", (st.ASSIGN, "[x]", "=", "1", "")),
])
def test_parse_statement(text, expected):
    assert st.parse_statement(text) == expected


@pytest.mark.parametrize("text", ["this is junk", "[Section Header]", "X", "use ROLE", "X @ = end",
                                  "X + = b", "X ++= b", "X +: c", "X j+ = b"])
def test_rejected_lines(text):
    with pytest.raises(st.StatementError) as info:
        st.parse_statement(text)
    assert info.value.hint  # always something to tell the user


@pytest.mark.parametrize("text, expected", [
    ("if true", ("if", "true")), ("IF TRUE", ("if", "TRUE")), ("if", ("if", "")),
    ("elif defined X", ("elif", "defined X")), ("else", ("else", "")), ("endif junk", ("endif", "junk")),
    ("if = 3", ("if", "= 3")), ("iffy = 3", None), ("elsewhere = 4", None), ("endiffy=5", None),
])
def test_if_keyword(text, expected):
    assert st.if_keyword(text) == expected


@pytest.mark.parametrize("name, valid", [("X", True), ("1X", True), ("a/b.c", True), ("X-Y", False),
                                         ("", False), ("A B", False), ("\ufeffX", False), ("café", False)])
def test_valid_names(name, valid):
    assert st.is_valid_name(name) is valid
