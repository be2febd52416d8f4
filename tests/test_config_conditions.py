"""Unit tests of condorcfg.config.conditions: every accepted and rejected if-condition form."""
from __future__ import annotations

import pytest

from condorcfg.config import conditions as c

DEFINED = {"START", "A"}
MACROS = {"$(A)": "true", "$(UNDEF)": "", "$(E)": "", "$(M)": "maybe", "$(TWO)": "1 + 1",
          "$(D)": "defined START", "$(V)": "version >= 8.0", "!$(UNDEF)": "!", "$ENV(X)": "UNDEFINED"}


def evaluate(text):
    return c.evaluate_condition(text, lambda t: MACROS.get(t, t), lambda n: n.upper() in DEFINED,
                                lambda cat, name: cat.upper() == "ROLE" and name in (None, "Execute"))


@pytest.mark.parametrize("text, expected", [
    ("true", True), ("TRUE", True), ("false", False), ("yes", True), ("NO", False), ("t", True), ("f", False),
    ("1", True), ("-1", True), ("0", False), ("00", False), ("0.0", False), (".5", True), ("1.", True),
    ("2.5e3", True), ("!true", False), ("! false", True),
    ("defined START", True), ("defined CONDOR_HOST", False), ("defined true", True), ("defined 0", True),
    ("defined", False), ("! defined A", False), ("!defined B", True),
    ("defined use ROLE", True), ("defined use ROLE:Execute", True), ("defined use ROLE:Nope", False),
    ("defined use NOCAT", False),
    ("version >= 8.9.0", True), ("version == 25.14", True), ("version == 25.14.1", True),
    ("version != 25.14.1", False), ("version < 25.15", True), ("version >= 25.14.2", False),
    ("version = 25.14.1", True), ("version >= v9.0", True), ("version > 25.14.0", True),
    ("$(A)", True), ("$(UNDEF)", False), ("!$(UNDEF)", True), ("$(D)", True), ("$(V)", True),
])
def test_accepted(text, expected):
    assert evaluate(text) is expected


@pytest.mark.parametrize("text, reason", [
    ("", c.NOT_CONDITIONAL), ("maybe", c.NOT_CONDITIONAL), ("on", c.NOT_CONDITIONAL), ("truex", c.NOT_CONDITIONAL),
    ("$(M)", c.NOT_CONDITIONAL), ("$ENV(X)", c.NOT_CONDITIONAL),
    ("+1", c.COMPLEX), ("(true)", c.COMPLEX), ("1 == 1", c.COMPLEX), ("true && false", c.COMPLEX),
    ("!!true", c.COMPLEX), ("true false", c.COMPLEX), ("= 3", c.COMPLEX), ("$(TWO)", c.COMPLEX),
    ("not defined A", c.COMPLEX),
    ("version 25.14.1", c.COMPLEX), ("version=25.14.1", c.COMPLEX), ("version >= abc", c.COMPLEX),
    ("version == 25", c.BAD_VERSION), ("version >= 5.1", c.BAD_VERSION), ("version", c.BAD_VERSION),
    ("defined A B", c.BAD_DEFINED), ("defined a-b", c.COMPLEX),
    ("defined use ROLE : Execute", c.BAD_DEFINED_USE),
])
def test_rejected(text, reason):
    with pytest.raises(c.ConditionError) as info:
        evaluate(text)
    assert info.value.reason == reason
