"""records.record: the dataclass behaviour condorcfg relies on, without dataclasses' start-up cost."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from condorcfg.records import as_dict, factory, fields_of, record

ROOT = Path(__file__).resolve().parents[1]


@record
class Point:
    x: int
    y: int = 0
    tags: list = factory(list)
    cache: dict = factory(dict, init=False)


@record(frozen=True)
class Key:
    name: str
    line: int = 0


@record
class Holder:
    points: list
    key: Key | None = None


def test_construction_defaults_and_fresh_factories():
    a, b = Point(1), Point(x=1, y=2, tags=["t"])
    assert (a.x, a.y, a.tags, a.cache) == (1, 0, [], {})
    assert (b.y, b.tags) == (2, ["t"])
    assert Point(1).tags is not Point(1).tags and Point(1).cache is not Point(1).cache
    assert fields_of(a) == ("x", "y", "tags", "cache")
    assert repr(a) == "Point(x=1, y=0, tags=[])"


@pytest.mark.parametrize("call", [lambda: Point(), lambda: Point(1, 2, [], 4), lambda: Point(1, z=3),
                                  lambda: Point(1, cache={})])
def test_bad_arguments_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_equality_and_hashing():
    assert Point(1) == Point(1) and Point(1) != Point(2)
    changed = Point(1)
    changed.cache["k"] = 1  # a field the constructor does not take is not compared
    assert changed == Point(1)
    assert Point(1) != Key("a") and Key("a", 1) == Key("a", 1) and {Key("a"): 1}[Key("a")] == 1
    with pytest.raises(TypeError):
        hash(Point(1))


def test_as_dict_recurses():
    holder = Holder([Point(1, tags=["a"])], Key("k", 2))
    assert as_dict(holder) == {"points": [{"x": 1, "y": 0, "tags": ["a"], "cache": {}}],
                               "key": {"name": "k", "line": 2}}


def test_no_command_imports_dataclasses():
    # creating dataclasses (and importing the module, with inspect) cost every command ~25 ms of start-up;
    # (ruamel.yaml is not checked: the first lint run reads the rule files with it to build the rule cache)
    probe = ("import sys, io, contextlib\n"
             "from condorcfg.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    main(['lint', '--config-root', {str(ROOT / 'examples/etc/condor_config')!r}, "
             f"'--machine', {str(ROOT / 'examples/machines/ep-64core.yaml')!r}])\n"
             f"    main(['value', '--config', {str(ROOT / 'examples/etc/condor_config')!r}, 'START'])\n"
             "print(sorted(m for m in ('dataclasses', 'inspect', 'calendar', 'subprocess')"
             " if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
