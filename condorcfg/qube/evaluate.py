"""Evaluating a Qube! requirement against a host's and a job's properties.

Values are numbers, strings and truth values.  The rules (``../shared/spec/qube.md``; where
Qube publishes none, C's and Perl's, which its manual names as its models):

* A comparison is numeric when both sides are numbers, otherwise textual.  A string that reads
  as a number (``"10"``, a property given as text) is a number, as Qube resolves "the values
  they resolve to".  Text compares by code point (``strcmp``), case-sensitively.
* ``in`` / ``has``: the list is a string of comma-separated items; blanks around an item are
  ignored and empty items are not items (as HTCondor's ``stringListMember``).
* Arithmetic and bitwise operators need numbers.  Integers are 64-bit and wrap (as in ClassAds;
  -2**63 / -1 saturates, as there); integer division and ``mod`` truncate toward zero (C);
  bitwise operators and shifts need whole numbers, shift counts 0..63.  ``min`` / ``max`` compare like the comparisons.
* ``and``, ``or``, ``not`` give true or false; a number is true when it is not 0, a string when
  it is neither empty nor ``"0"`` (Perl).
* A property the host or job does not have is the empty string; :func:`evaluate` lists such
  properties in ``missing`` so that a caller can say so.

Anything else (a word in arithmetic, a division by zero) is a :class:`QubeError` with its column.
"""
from __future__ import annotations

import math
import re

from condorcfg.classad.operators import wrap as _wrap  # (64-bit integers wrap as in ClassAds: one definition)
from condorcfg.qube.syntax import Number, Property, QubeError, String, Unary, deep_enough, spell

_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*", re.ASCII)  # (int/float read ASCII only)
_INT = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)
_HALF = 2 ** 63
_MAX_NUMERAL = 400  # characters: a longer "number" is text (Python refuses to convert 4,300 digits)


def properties(data, what: str = "properties") -> dict[str, object]:
    """A property set as ``{"processors.total": 8, ...}``: nested mappings become dotted names (lower
    case), lists become comma lists, booleans 1 and 0, nothing the empty string."""
    flat: dict[str, object] = {}

    def walk(value, prefix: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{prefix}.{key}".lower() if prefix else str(key).lower())
        elif isinstance(value, (list, tuple)):
            flat[prefix] = ",".join(text(item) for item in value)
        else:
            flat[prefix] = _scalar(value)

    if data is None:
        return flat
    if not isinstance(data, dict):
        raise QubeError(f"the {what} must be a mapping of names to values, not {type(data).__name__}")
    walk(data, "")
    return flat


def _scalar(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, str)):
        return value
    return str(value)


def number(value):
    """``value`` as a number (int or float), or None when it is not one."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and len(value) <= _MAX_NUMERAL and _NUMBER.fullmatch(value):
        if _INT.fullmatch(value):
            whole = int(value)
            if -_HALF <= whole < _HALF:
                return whole
        found = float(value)  # (a numeral past 64 bits reads as a real; one past a double is no number)
        return found if math.isfinite(found) else None
    return None


def text(value) -> str:
    """``value`` as text: true and false are 1 and 0, reals as Perl prints them (``%.15g``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return format(value, ".15g")
    return str(value)


def truth(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return value not in ("", "0")


def show(value) -> str:
    """A result as ``qube eval`` prints it: true/false, a number, or the text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return text(value)


def list_items(value) -> list[str]:
    return [item.strip() for item in text(value).split(",") if item.strip()]


class _Evaluation:
    def __init__(self, host: dict, job: dict, missing: list | None):
        self.sets = {"host": host, "job": job}
        self.missing = missing

    def value(self, node):
        kind = node.__class__
        if kind is Number:
            return node.value
        if kind is String:
            return node.value
        if kind is Property:
            found = self.sets[node.root].get(node.name.lower())
            if found is None:
                if self.missing is not None and f"{node.root}.{node.name}" not in self.missing:
                    self.missing.append(f"{node.root}.{node.name}")
                return ""
            return found
        if kind is Unary:
            return self.unary(node)
        return self.binary(node)

    def unary(self, node):
        operand = self.value(node.operand)
        if node.op == "not":
            return not truth(operand)
        found = self.numeric(operand, node)
        return _wrap(-found) if node.op == "neg" and isinstance(found, int) else -found if node.op == "neg" else found

    def numeric(self, value, node, side: str = ""):
        found = number(value)
        if found is None:
            raise QubeError(f"{spell(node.op)} needs numbers, but {side}{text(value)!r} is not one", node.column)
        return found

    def binary(self, node):
        op = node.op
        if op == "and":
            return truth(self.value(node.left)) and truth(self.value(node.right))
        if op == "or":
            return truth(self.value(node.left)) or truth(self.value(node.right))
        left, right = self.value(node.left), self.value(node.right)
        if op in ("eq", "ne", "lt", "gt", "le", "ge"):
            order = compare(left, right)
            return {"eq": order == 0, "ne": order != 0, "lt": order < 0, "gt": order > 0,
                    "le": order <= 0, "ge": order >= 0}[op]
        if op == "in":
            return text(left) in list_items(right)
        if op == "has":
            return text(right) in list_items(left)
        if op in ("min", "max"):
            order = compare(left, right)
            return left if (order <= 0) == (op == "min") else right
        a = self.numeric(left, node, "the left side ")
        b = self.numeric(right, node, "the right side ")
        if op in ("band", "bor", "xor", "ls", "rs"):
            a, b = self.whole(a, node), self.whole(b, node)
            if op == "band":
                return a & b
            if op == "bor":
                return a | b
            if op == "xor":
                return a ^ b
            if not 0 <= b <= 63:
                raise QubeError(f"a shift count must be 0 to 63, not {b}", node.column)
            return _wrap(a << b) if op == "ls" else a >> b
        if op in ("div", "mod") and b == 0:
            raise QubeError("division by zero" if op == "div" else "mod by zero", node.column)
        if isinstance(a, int) and isinstance(b, int):
            if op == "add":
                return _wrap(a + b)
            if op == "sub":
                return _wrap(a - b)
            if op == "mul":
                return _wrap(a * b)
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C: toward zero
            if op == "mod":
                return _wrap(a - b * quotient)
            return min(quotient, _HALF - 1)  # (the one overflow, -2**63 / -1, saturates as in ClassAds)
        a, b = float(a), float(b)
        result = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b if op == "div" else 0.0,
                  "mod": math.fmod(a, b) if op == "mod" else 0.0}[op]
        if not math.isfinite(result):
            raise QubeError(f"{spell(op)} overflows", node.column)
        return result

    @staticmethod
    def whole(value, node) -> int:
        if isinstance(value, float):
            if not value.is_integer():
                raise QubeError(f"{spell(node.op)} needs whole numbers, not {text(value)}", node.column)
            value = int(value)
        return _wrap(value)


def compare(left, right) -> int:
    """-1, 0 or 1: numerically when both are numbers, else as text."""
    a, b = number(left), number(right)
    if a is None or b is None:
        a, b = text(left), text(right)
    return (a > b) - (a < b)


def evaluate(node, host: dict | None = None, job: dict | None = None, missing: list | None = None):
    """The value of a parsed expression for ``host`` and ``job`` (:func:`properties` sets)."""
    deep_enough(node.depth)
    return _Evaluation(host or {}, job or {}, missing).value(node)
