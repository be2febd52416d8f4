"""Unit tests of condorcfg.config.functions: every dollar function, including its error cases."""
from __future__ import annotations

import pytest

from condorcfg.config import macros
from condorcfg.config.functions import evaluate_function, filename_parts


class Context:
    def __init__(self, table, environ=None):
        self.table = {k.upper(): v for k, v in table.items()}
        self.environ = environ or {}
        self.errors: list[str] = []

    def lookup(self, name):
        return self.table.get(name.upper())

    def expand(self, text):
        return macros.expand(text, self._evaluate)

    def _evaluate(self, found):
        if found.kind == macros.NORMAL:
            name, default = macros.split_body(found.body)
            value = self.lookup(name)
            return value if value else (default or "")
        return evaluate_function(found.kind, found.prefix, found.body, self)

    def error(self, message):
        self.errors.append(message)


TABLE = {"X": "2", "Y": "6", "XYArea": "$(X) * $(Y)", "Name": "abcdef", "R": "3.14159", "IDX": "1",
         "L": "a,b,,c", "P": "/dir/sub/file.tar.gz", "Q": '"/q dir/f.txt"', "FULL": "host.DOMAIN",
         "LC": 'toLower("$(FULL)")', "slist": '"a,B,c"', "list": "split($(slist))"}


def run(text, table=TABLE, environ=None):
    ctx = Context(table, environ)
    return ctx.expand(text), ctx.errors


@pytest.mark.parametrize("text, expected", [
    ("$ENV(HOME)", "/home/u"), ("$ENV(NOPE)", "UNDEFINED"), ("$ENV(NOPE:fb)", "fb"), ("$ENV(EMPTY:fb)", ""),
    ("$ENV(PATHX:/a/b c)", "/a/b c"),
    ("$INT(XYArea)", "12"), ("$INT(XYArea,%04d)", "0012"), ("$INT(XYArea,Area=%d)", "Area=12"),
    ("$INT(XYArea, %d)", " 12"), ("$INT(XYArea,%x)", "c"), ("$INT(XYArea,%d%%)", "12%"), ("$INT(7.9)", "7"),
    ("$INT(2+2)", "4"), ("$INT(true)", "1"),
    ("$REAL(R)", "3.14159"), ("$REAL(R,%.2f)", "3.14"), ("$REAL(XYArea)", "12"), ("$REAL(1/3)", "0"),
    ("$REAL(1.0/3)", "0.3333333333333333"), ("$REAL(10,%.0f)", "10.0"),
    ("$SUBSTR(Name, 2)", "cdef"), ("$SUBSTR(Name, 0, -2)", "abcd"), ("$SUBSTR(Name, 1, 3)", "bcd"),
    ("$SUBSTR(Name, -1)", "f"), ("$SUBSTR(Name, 4, -3)", ""), ("$SUBSTR(Name, 10)", ""),
    ("$SUBSTR(Name, -10)", "abcdef"), ("$SUBSTR(Name, 2, 100)", "cdef"), ("$SUBSTR(Name,X,X)", "cd"),
    ("$SUBSTR(abcdef, 1)", ""),
    ("$STRING(LC)", "host.domain"), ("$STRING(LC,Name: %s)", "Name: host.domain"), ("$STRING(FULL)", "host.DOMAIN"),
    ("$STRING(lit)", "lit"), ("$STRING(1+2)", "1+2"),
    ("$EVAL(slist)", "a,B,c"), ("$EVAL(1+2)", "3"), ("$EVAL(true)", "true"), ("$EVAL(10/4)", "2"),
    ("$EVAL(FULL)", "undefined"), ("<$EVAL(a b c)>", "<>"),
    ("$CHOICE(0, a, b, c)", "a"), ("$CHOICE(IDX, a, b, c)", "b"), ("$CHOICE(1,  spaced item , x)", "x"),
    ("$CHOICE(1, L)", "b"), ("$CHOICE(2, L)", ""), ("$CHOICE(3, L)", "c"),
    ("$RANDOM_CHOICE(a,a,a)", "a"), ("$RANDOM_INTEGER(5,5)", "5"), ("$RANDOM_INTEGER(10,20,100)", "10"),
    ("$BASENAME(P)", "file.tar.gz"), ("$DIRNAME(P)", "/dir/sub/"), ("$BASENAME(/lit/path.x)", "path.x"),
    ("$Fn(NOPE)", "NOPE"), ("$Fq(Q)", '"/q dir/f.txt"'),
])
def test_functions(text, expected):
    value, _ = run(text, environ={"HOME": "/home/u", "EMPTY": ""})
    assert value == expected


@pytest.mark.parametrize("text, result, message", [
    ("<$INT(Name)>", "<>", "$INT() macro: abcdef does not evaluate to an integer!"),
    ("$INT(XYArea,%s)", "%s", "$INT() macro: '%s' is not a valid format specifier!"),
    ("<$REAL(Name)>", "<>", "$REAL() macro: abcdef does not evaluate to an real!"),
    ("$REAL(R,%d)", "%d", "$REAL() macro: '%d' is not a valid format specifier!"),
    ("$STRING(LC,%d)", "%d", "$STRING() macro: '%d' is not a valid format specifier!"),
    ("<$CHOICE(5, a, b)>", "<>", "$CHOICE() config macro: index 5 is out of range!"),
    ('<$CHOICE(0, NOLIST)>', "<>", '$CHOICE() macro: no list named "NOLIST"!'),
    ("<$CHOICE(1)>", "<>", "$CHOICE() error: no list"),
    ("<$RANDOM_CHOICE()>", "<>", "$RANDOM_CHOICE() macro is empty!"),
    ("<$RANDOM_INTEGER(a,b)>", "<0>", "$RANDOM_INTEGER() config macro: invalid min!"),
    ("<$SUBSTR(Name, a)>", "<>", "$SUBSTR() macro:  a is invalid start index!"),
    ("<$SUBSTR(Name)>", "<>", "$SUBSTR() macro: no length specified!"),
])
def test_function_errors_are_not_fatal(text, result, message):
    value, errors = run(text)
    assert value == result
    assert message in errors


@pytest.mark.parametrize("letters, expected", [
    ("", "/dir/sub/file.tar.gz"), ("p", "/dir/sub/"), ("d", "sub/"), ("dd", "dir/sub/"), ("n", "file.tar"),
    ("x", ".gz"), ("nx", "file.tar.gz"), ("pn", "/dir/sub/file.tar"), ("db", "sub"), ("pb", "/dir/sub"),
    ("xb", "gz"), ("q", '"/dir/sub/file.tar.gz"'), ("qa", "'/dir/sub/file.tar.gz'"), ("qn", '"file.tar"'),
    ("dn", "sub/file.tar"), ("ddn", "dir/sub/file.tar"), ("px", "/dir/sub/file.tar.gz"), ("pq", '"/dir/sub/"'),
    ("dqa", "'sub/'"), ("w", "\\dir\\sub\\file.tar.gz"), ("f", "/dir/sub/file.tar.gz"),
])
def test_filename_letters(letters, expected):
    assert filename_parts("/dir/sub/file.tar.gz", letters) == expected


def test_filename_edge_cases():
    assert filename_parts("file.txt", "p") == ""
    assert filename_parts("file.txt", "dq") == '""'
    assert filename_parts("/a/b/", "n") == ""
    assert filename_parts("/a/b/", "d") == "b/"
    assert filename_parts("C:\\win\\f.exe", "p") == ""
    assert filename_parts("rel/x.y", "fp") == "rel/"


# --- $RANDOM_*: reproducible picks (a deliberate difference from HTCondor) -------------------------

def _config(text: str, tmp_path):
    import condorcfg
    from condorcfg.machine import MachineProfile

    top = tmp_path / "condor_config"
    top.write_text(text)
    return condorcfg.load([str(top)], machine=MachineProfile(hostname="h.example.org"), environ={})


def test_random_functions_are_reproducible_and_in_range(tmp_path):
    text = ("A = $RANDOM_INTEGER(0, 1000000)\nB = $RANDOM_INTEGER(0, 1000000)\nC = $RANDOM_INTEGER(10, 100, 7)\n"
            "D = $RANDOM_CHOICE(red, green, blue, cyan, magenta, yellow, black, white)\nLIST = p,q,r,s,t,u\n"
            "E = $RANDOM_CHOICE(LIST)\nF = x $(A) y\n")
    first = _config(text, tmp_path)
    values = {k: first.value(k) for k in "ABCDEF"}
    again = _config(text, tmp_path)
    assert {k: again.value(k) for k in "ABCDEF"} == values  # same on every read and every run
    assert all(0 <= int(values[k]) <= 1000000 for k in "AB")
    assert values["A"] != values["B"]  # the knob name is part of the seed
    assert int(values["C"]) in range(10, 101, 7)
    assert values["D"] in "red, green, blue, cyan, magenta, yellow, black, white".split(", ")
    assert values["E"] in "pqrstu"
    assert first.value("F").startswith("x ") and first.value("F") == again.value("F")


def test_random_picks_spread_over_the_range(tmp_path):
    """Not a constant: across many knobs every choice and the whole integer range get used."""
    text = "".join(f"K{i} = $RANDOM_CHOICE(a, b, c, d)\nN{i} = $RANDOM_INTEGER(1, 10)\n" for i in range(200))
    cfg = _config(text, tmp_path)
    assert {cfg.value(f"K{i}") for i in range(200)} == set("abcd")
    assert {int(cfg.value(f"N{i}")) for i in range(200)} == set(range(1, 11))


def test_random_seed_uses_the_function_text_not_python_random(tmp_path, monkeypatch):
    import random

    monkeypatch.setattr(random, "randint", lambda *a: pytest.fail("random.randint used"))
    monkeypatch.setattr(random, "choice", lambda *a: pytest.fail("random.choice used"))
    cfg = _config("A = $RANDOM_INTEGER(0, 1000000)\nB = $RANDOM_INTEGER(0, 999999)\n", tmp_path)
    assert cfg.value("A") != cfg.value("B")
    assert cfg.expand("$RANDOM_INTEGER(0, 1000000)") == cfg.expand("$RANDOM_INTEGER(0, 1000000)")
