"""Unit tests of condorcfg.config.macros: the reference scanner, expansion, self references, bounds."""
from __future__ import annotations

import pytest

from condorcfg.config import macros


def expander(table: dict[str, str]):
    def evaluate(found: macros.Found) -> str:
        assert found.kind == macros.NORMAL
        name, default = macros.split_body(found.body)
        value = table.get(name.upper())
        if value:
            return value
        return default if default is not None else ""
    return evaluate


@pytest.mark.parametrize("text, expected", [
    ("$(A)", "1"), ("x$(A)y$(A)", "x1y1"), ("$(B)", "1 two"), ("$(UNDEF)-1", "-1"),
    ("$(UNDEF:4)-1", "4-1"), ("$(E:dflt)", "dflt"), ("$(A:x(y)z)", "1"), ("$(N:x(y)z)", "x(y)z"),
    ("$(N:a b,c$\\:)", "a b,c$\\:"), ("$(N:x=y)", "$(N:x=y)"), ("$(A B)", "$(A B)"), ("$( A )", "$( A )"),
    ("$(A", "$(A"), ("$ (A)", "$ (A)"), ("$()", ""), ("$(N:)", ""), ("$(N::)", ":"),
    ("$(N:$(M:$(O:deep)))", "deep"), ("$(DOLLAR)(A)", "$(A)"), ("$(DOLLAR)$(DOLLAR)(A)", "$$(DOLLAR)(A)"),
    ("$(dollar)$(Dollar)", "$$(Dollar)"), ("$$(Memory)", "$$(Memory)"), ("$$(Memory:100)", "$$(Memory:100)"),
    ("$$([Memory*2])", "$$([Memory*2])"), ("$(E) b", " b"), ("$(OPEN)A)", "1"),
])
def test_expand(text, expected):
    table = {"A": "1", "B": "$(A) two", "E": "", "OPEN": "$("}
    assert macros.expand(text, expander(table)) == expected


def test_substitution_is_rescanned_with_its_surroundings():
    # the value of P completes the reference started before it: HTCondor rescans from the start
    assert macros.expand("$(A$(P)", expander({"P": ")", "A": "ok"})) == "ok"


def test_cycle_and_growth_are_bounded():
    with pytest.raises(macros.ExpansionLimit):
        macros.expand("$(A)", expander({"A": "$(B)", "B": "$(A)"}))
    with pytest.raises(macros.ExpansionLimit):
        macros.expand("$(A)", expander({"A": "$(B)$(B)", "B": "$(A)$(A)"}))


def test_references_for_lint():
    refs = macros.references("x $(A) $(B:d) $$(C) $(DOLLAR) $(D:$(E:f))")
    assert [(r.name, r.default) for r in refs] == [("A", None), ("B", "d"), ("D", "$(E:f)"), ("E", "f")]
    assert refs[0].start == 2 and refs[0].end == 6


def test_functions_are_recognised_only_with_exact_names():
    seen = []
    macros.expand("$ENV(X) $env(Y) $INT(1) $Fpn(a) $Fz(b) $FN(c) $NOPE(d)",
                  lambda f: seen.append((f.kind, f.prefix, f.body)) or "")
    assert seen == [("ENV", "ENV", "X"), ("INT", "INT", "1"), (macros.FILENAME, "pn", "a"),
                    (macros.FILENAME, "N", "c")]


def test_function_body_ends_at_first_parenthesis():
    seen = []
    macros.expand('$EVAL(strcat("a","b"))', lambda f: seen.append(f.body) or "")
    assert seen == ['strcat("a","b"']


def test_self_names_and_expand_self():
    assert macros.self_names("TOOL.X", ("TOOL",)) == ("TOOL.X", "X")
    assert macros.self_names("X", ("TOOL",)) == ("X",)
    evaluate = expander({"X": "old", "Y": "y"})
    assert macros.expand_self("$(X) $(x:d) $(Y) $Fn(X)", ("X",), lambda f: "OLD" if f.kind == macros.FILENAME
                              else evaluate(f)) == "old old $(Y) OLD"
