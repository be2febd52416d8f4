"""The ClassAd operators' semantics on values (spec/classad.md section 5), shared by the evaluator
and the built-in functions: 64-bit integer arithmetic, real arithmetic with HTCondor's error
rules, absTime/relTime arithmetic, comparisons (case-insensitive strings), ``=?=``, logic,
bit operations.

A module of its own so that :mod:`condorcfg.classad.functions` needs nothing from the evaluator
(which compiles calls through the functions): no import circle.
"""
from __future__ import annotations

import math

from condorcfg.classad import budget as _budget
from condorcfg.classad.budget import Budget
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, ClassAdList, RelTime

INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1
_MASK = (1 << 64) - 1
_INF = math.inf
PARSE_UNITS_PER_CHAR = 16  # parsing text costs about this much work per character (measured: ~6 us/char)
LONG_STRING = 4096  # strings longer than this pay work for their length when compared or handed to functions
CHARS_PER_UNIT = 64  # ... one unit per this many characters (C-speed scanning)


class EvalFailure(Exception):
    """The whole evaluation fails (depth or work budget exceeded, random(0), ...)."""


# Operator semantics (spec/classad.md §5).  Fast paths for int/int are inlined
# in the closures; the functions below handle every type combination.


def wrap(value: int) -> int:
    """Two's-complement 64-bit wrap-around."""
    value &= _MASK
    return value - (1 << 64) if value >> 63 else value


def _real(value: float):
    return ERROR if value == _INF else value  # HTCondor turns +inf results into error, keeps -inf/NaN


def _num(v):
    """Numeric value of an int/real/bool operand, or None."""
    t = type(v)
    if t is int or t is float:
        return v
    if t is bool:
        return int(v)
    return None


def _exceptional(a, b):
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    return None


def int_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    if q > INT_MAX:  # INT64_MIN / -1
        return INT_MAX
    return q


def _real_div(a: float, b: float):
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return ERROR if (a > 0) == (math.copysign(1.0, b) > 0) else -_INF
    return _real(a / b)


def arith(op: str, a, b):
    """``a op b`` for ``+ - * / %`` with every ClassAd type."""
    bad = _exceptional(a, b)
    if bad is not None:
        return bad
    x, y = _num(a), _num(b)
    if x is not None and y is not None:
        if type(x) is int and type(y) is int:
            if op == "+":
                return wrap(x + y)
            if op == "-":
                return wrap(x - y)
            if op == "*":
                return wrap(x * y)
            if y == 0:
                return ERROR
            if op == "/":
                return int_div(x, y)
            r = abs(x) % abs(y)
            return -r if x < 0 else r
        if op == "%":
            return ERROR
        x, y = float(x), float(y)
        if op == "+":
            return _real(x + y)
        if op == "-":
            return _real(x - y)
        if op == "*":
            return _real(x * y)
        return _real_div(x, y)
    return _time_arith(op, a, b)


def _time_arith(op, a, b):
    ta, tb = type(a), type(b)
    if op == "+":
        if ta is AbsTime and tb is RelTime:
            return AbsTime(int(a.seconds + b.seconds), a.offset)
        if ta is RelTime and tb is AbsTime:
            return AbsTime(int(a.seconds + b.seconds), b.offset)
        if ta is RelTime and tb is RelTime:
            return RelTime(a.seconds + b.seconds)
    elif op == "-":
        if ta is AbsTime and tb is AbsTime:
            return RelTime(a.seconds - b.seconds)
        if ta is AbsTime and tb is RelTime:
            return AbsTime(int(a.seconds - b.seconds), a.offset)
        if ta is RelTime and tb is RelTime:
            return RelTime(a.seconds - b.seconds)
    elif op == "*":
        if ta is RelTime and tb in (int, float):
            return RelTime(a.seconds * b)
        if tb is RelTime and ta in (int, float):
            return RelTime(a * b.seconds)
    elif op == "/":
        if ta is RelTime and tb in (int, float):
            if b == 0:
                return ERROR
            return RelTime(a.seconds / b)
    return ERROR


ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
ASCII_UPPER = {c + 32: c for c in range(ord("A"), ord("Z") + 1)}


def fold_ascii(s: str) -> str:
    """Case folding as strcasecmp does it: ASCII letters only (str.translate: no per-character Python loop)."""
    if s.isascii():
        return s.lower()
    return s.translate(ASCII_LOWER)


def pay_for_length(size: int, budget: Budget | None = None) -> None:
    """Charge the work of scanning ``size`` characters, when that is long enough to matter."""
    if size > LONG_STRING:
        budget = budget or _budget.current()
        if budget is not None:
            budget.charge_work(size // CHARS_PER_UNIT)


def compare(op: str, a, b):
    """``a op b`` for ``== != < <= > >=``."""
    bad = _exceptional(a, b)
    if bad is not None:
        return bad
    x, y = _num(a), _num(b)
    if x is None or y is None:
        ta, tb = type(a), type(b)
        if ta is str and tb is str:
            pay_for_length(len(a) + len(b))
            x, y = fold_ascii(a), fold_ascii(b)
        elif ta is AbsTime and tb is AbsTime or ta is RelTime and tb is RelTime:
            x, y = a.seconds, b.seconds
        else:
            return ERROR
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def identical(a, b):
    """``a =?= b``: same type and value (strings case-sensitive); lists/ads give error."""
    ta, tb = type(a), type(b)
    if ta is not tb:
        if isinstance(a, ClassAd) and isinstance(b, ClassAd):
            return ERROR
        return False
    if ta is ClassAdList:
        return ERROR if a.shared == b.shared else False
    if ta is ClassAd:
        return ERROR
    if ta is AbsTime:
        return a.seconds == b.seconds and a.offset == b.offset
    if ta is RelTime:
        return a.seconds == b.seconds
    if a is UNDEFINED or a is ERROR:
        return a is b
    if ta is str:
        pay_for_length(len(a) + len(b))
    return a == b


def logical(v):
    """A value as a truth value for && || ! ?: — bool, UNDEFINED or ERROR."""
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0  # NaN counts as true
    if v is UNDEFINED:
        return UNDEFINED
    return ERROR


def bitwise(op: str, a, b):
    bad = _exceptional(a, b)
    if bad is not None:
        return bad
    if type(a) is not int or type(b) is not int:
        return ERROR
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    count = b & 63  # x86 uses the count modulo 64
    if op == "<<":
        return wrap(a << count)
    if op == ">>":
        return a >> count
    return wrap((a & _MASK) >> count)  # >>>


def unary(op: str, v):
    if v is ERROR or v is UNDEFINED:
        return v
    t = type(v)
    if op == "-":
        if t is int:
            return wrap(-v)
        if t is float:
            return -v
        if t is RelTime:
            return RelTime(-v.seconds)
        return ERROR
    if op == "+":
        if t is int or t is float or t is RelTime:
            return v
        return ERROR
    if op == "!":
        truth = logical(v)
        return truth if truth is ERROR else (not truth)
    if op == "~":
        return ~v if t is int else ERROR
    return ERROR


def logical_and(a, b_thunk):
    a = logical(a)
    if a is False:
        return False
    if a is ERROR:
        return ERROR
    b = logical(b_thunk())
    if a is True:
        return b
    # a undefined
    if b is False:
        return False
    if b is ERROR:
        return ERROR
    return UNDEFINED


def logical_or(a, b_thunk):
    a = logical(a)
    if a is True:
        return True
    if a is ERROR:
        return ERROR
    b = logical(b_thunk())
    if a is False:
        return b
    if b is True:
        return True
    if b is ERROR:
        return ERROR
    return UNDEFINED
