"""Every built-in ClassAd function of HTCondor 25 (spec/classad.md §8), in HTCondor mode.

``FUNCTIONS`` maps a lower-case name to ``(min_args, max_args, impl, kind)``:

* kind ``"v"``: ``impl(*values)`` gets the evaluated arguments;
* kind ``"s"``: ``impl(st, *values)`` also needs the evaluation state (clock,
  list elements, which are evaluated lazily);
* kind ``"l"``: ``impl(call)`` gets a :class:`Call` with the argument
  closures and trees, for functions that choose what to evaluate
  (``ifThenElse``, ``eval``, ``unparse``, ``evalInEachContext`` ...).

A wrong argument count and an unknown function both evaluate to ERROR, as in
HTCondor (a call to an unknown name parses fine).

Regular expressions use the ``regex`` module after translating the PCRE2 syntax
that differs.  Backtracking can explode on hostile patterns, so every match runs
with a timeout: what is left of the command's regex time
(:data:`condorcfg.classad.budget.REGEX_SECONDS`, shared by every regex the command
matches).  A match that runs out gives ERROR, like one that hits PCRE2's match
limit in HTCondor, and so does every later one.  Functions also pay work and bytes
from the command's budget for long inputs and the values they build (see
:func:`compile_call`).
"""
from __future__ import annotations

import math
import random as _random_module
import re
import time as _time

from condorcfg.classad import ast
from condorcfg.classad import budget as _budget
from condorcfg.classad import civil_time
from condorcfg.classad.printer import format_abstime, format_reltime
from condorcfg.classad.budget import Budget
from condorcfg.classad.operators import (
    ASCII_LOWER, ASCII_UPPER, INT_MIN, LONG_STRING, PARSE_UNITS_PER_CHAR, EvalFailure, arith, compare,
    fold_ascii, identical, pay_for_length, wrap,
)
from condorcfg.classad.parser import parse as _parse
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, ClassAdList, RelTime

MAX_STRING = 16 * 1024 * 1024  # longer results become ERROR (bounds memory on hostile input)
_NUMBER = (int, float)


# ---------------------------------------------------------------------------
# Value conversions shared by many functions

def format_real(value: float) -> str:
    if value != value:
        return 'real("NaN")'
    if value == math.inf:
        return 'real("INF")'
    if value == -math.inf:
        return 'real("-INF")'
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return "%.15E" % value


PRINT_CHARS_PER_UNIT = 4  # printing an expression costs about a unit of work per this many characters


def _unparse(value) -> str:
    """HTCondor's print of a value or tree; paid for by length (the printer walks the tree in Python)."""
    from condorcfg.classad.printer import unparse

    text = unparse(value)
    if len(text) > PRINT_CHARS_PER_UNIT:
        budget = _budget.current()
        if budget is not None:
            budget.charge_work(len(text) // PRINT_CHARS_PER_UNIT)
    return text


def to_string(v):
    """string(v): the value as text (UNDEFINED / ERROR pass through)."""
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return format_real(v)
    if v is UNDEFINED or v is ERROR:
        return v
    if t is AbsTime:
        return format_abstime(v)
    if t is RelTime:
        return format_reltime(v.seconds)
    if isinstance(v, (ClassAdList, ClassAd)):
        return _unparse(v)
    return ERROR


_STRTOD = re.compile(
    r"[ \t\n\r\f\v]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))",
    re.IGNORECASE)


def strtod_prefix(text: str):
    """The number C's strtod reads at the start of ``text``, or None if it reads nothing."""
    m = _STRTOD.match(text)
    if not m:
        return None
    token = m.group(1)
    body = token.lstrip("+-")
    neg = token.startswith("-")
    low = body.lower()
    if low.startswith("0x"):
        value = _hex_float(low)
        return -value if neg else value
    if low.startswith("inf"):
        return -math.inf if neg else math.inf
    if low.startswith("nan"):
        return math.nan
    try:
        return float(token)
    except ValueError:  # pragma: no cover - the pattern only admits valid floats
        return None


def _hex_float(low: str) -> float:
    """strtod of ``0x<hex>[.<hex>][p<exp>]`` (lower case, no sign): overflow is infinity, as HUGE_VAL.

    float.fromhex reads any length at C speed (no int of thousands of digits, no 16 ** n).
    """
    mant, _, exp = low.partition("p")
    if exp and len(exp.lstrip("+-").lstrip("0")) > 9:  # |exponent| >= 10**9: infinity or zero
        zero = exp.startswith("-") or not mant.strip("0x.")
        return 0.0 if zero else math.inf
    try:
        return float.fromhex(low if mant != "0x." else "0x0")
    except OverflowError:
        return math.inf
    except ValueError:
        return 0.0


def real_to_int(value: float) -> int:
    """C's (long long) cast as x86 does it: out of range and NaN give INT64_MIN."""
    if value != value or value >= 9.223372036854775807e18 or value < -9.223372036854775808e18:
        return INT_MIN
    return int(value)


def to_int(v):
    t = type(v)
    if t is int:
        return v
    if t is bool:
        return int(v)
    if t is float:
        return real_to_int(v)
    if t is str:
        number = strtod_prefix(v)
        return ERROR if number is None else real_to_int(number)
    if v is UNDEFINED:
        return UNDEFINED
    if t is AbsTime or t is RelTime:
        if isinstance(v.seconds, float) and not math.isfinite(v.seconds):
            return INT32_MIN  # HTCondor keeps times in a C int: infinity and NaN become INT_MIN
        return real_to_int(float(v.seconds)) if isinstance(v.seconds, float) else int(v.seconds)
    return ERROR


INT32_MIN = -(1 << 31)


def seconds_int(seconds) -> int:
    """A time's seconds as the C++ reads them into an int: infinity and NaN give INT_MIN (no exception)."""
    if isinstance(seconds, float) and not math.isfinite(seconds):
        return INT32_MIN
    return int(seconds)


def to_real(v):
    t = type(v)
    if t is float:
        return v
    if t is int or t is bool:
        return float(v)
    if t is str:
        number = strtod_prefix(v)
        return ERROR if number is None else number
    if v is UNDEFINED:
        return UNDEFINED
    if t is AbsTime or t is RelTime:
        if t is RelTime and isinstance(v.seconds, float) and math.isfinite(v.seconds):
            return float(v.seconds)
        return float(seconds_int(v.seconds))
    return ERROR


def to_bool(v):
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0
    if t is str:
        low = v.lower() if v.isascii() else v
        if low == "true":
            return True
        if low == "false":
            return False
        return UNDEFINED
    if t is RelTime:
        return seconds_int(v.seconds) != 0
    if v is UNDEFINED:
        return UNDEFINED
    return ERROR


def _checked(s):
    return ERROR if isinstance(s, str) and len(s) > MAX_STRING else s


# ---------------------------------------------------------------------------
# Type predicates and control

def _is_int(v):
    return type(v) is int


def _is_real(v):
    return type(v) is float


class Call:
    """What a lazy function sees: argument closures/trees and the evaluation context."""

    __slots__ = ("fns", "nodes", "cur", "st", "depth")

    def __init__(self, fns, nodes, cur, st, depth):
        self.fns, self.nodes, self.cur, self.st, self.depth = fns, nodes, cur, st, depth

    def arg(self, i):
        return self.fns[i](self.cur, self.st)


def _if_then_else(call):
    c = call.arg(0)
    t = type(c)
    if t is bool:
        truth = c
    elif t is int or t is float:
        truth = c != 0
    elif c is UNDEFINED:
        return UNDEFINED
    else:
        return ERROR
    return call.arg(1) if truth else call.arg(2)




def _eval(call):
    text = to_string(call.arg(0))
    if not isinstance(text, str):
        return ERROR  # undefined or error argument
    st = call.st
    if st.depth - call.depth <= 0:
        raise EvalFailure("eval() nested too deeply")
    try:
        fn, maxd, cost = st.compiled_native_text(text)
    except Exception:  # does not parse
        return ERROR
    budget = st.depth
    st.depth = budget - call.depth - 1
    if maxd > st.depth:
        raise EvalFailure("expression nesting exceeds HTCondor's depth limit")
    st.pay(cost)
    value = fn(call.cur, st)
    st.depth = budget
    return value


def _unparse_fn(call):
    text = _unparse_attr(call)
    if type(text) is str:
        _pay_value(text, call.st.budget)  # printing a long expression makes a long string
    return text


def _unparse_attr(call):
    node = call.nodes[0]
    if not isinstance(node, (ast.AttrRef, ast.Select)):  # HTCondor: any attribute reference node
        return ERROR
    name = _unparse(node)  # HTCondor looks up the reference's text, so MY.x finds nothing
    cur = call.cur
    if cur is None:
        return ""
    entry = cur._data.get(name.lower())
    if entry is None:
        return ""
    expr = entry[1]
    return expr if isinstance(expr, str) else _unparse(expr)


def _debug(call):
    return call.arg(0)


def _external_refs(node, ad, seen, out, depth=0, st=None):
    """Names an expression needs from outside ``ad`` (unresolved()), following internal references.

    Each node visited costs a unit of ``st``'s work: the walk follows the whole ad, not one expression.
    """
    if depth > 200:
        return
    if st is not None:
        st.pay(1)
    if isinstance(node, ast.AttrRef):
        if node.scope in ("TARGET", "OTHER"):
            out.append(node.name)
            return
        if node.scope in (None, "MY"):
            entry = ad._data.get(node.name.lower())
            if entry is None:
                if node.scope is None and node.name.lower() not in ("currenttime", "my", "self", "toplevel",
                                                                     "root", "parent"):
                    out.append(node.name)
                return
            if id(entry) not in seen:
                seen.add(id(entry))
                expr = entry[1]
                if isinstance(expr, str):  # text the ad could not parse: parsing it again is slow, it pays
                    if st is not None:
                        st.pay(len(expr) * PARSE_UNITS_PER_CHAR)
                    try:
                        expr = _parse(expr)
                    except Exception:
                        return
                _external_refs(expr, ad, seen, out, depth + 1, st)
        return
    for child in ast.children(node):
        _external_refs(child, ad, seen, out, depth + 1, st)



def _unresolved(call):
    node = call.nodes[0]
    cur = call.cur
    if cur is None and isinstance(node, (ast.AttrRef, ast.Select)):
        return UNDEFINED  # nothing to resolve against (HTCondor 25.14.1)
    if not isinstance(node, ast.AttrRef) or node.scope not in (None, "MY") or cur is None:
        return ERROR
    entry = cur._data.get(node.name.lower())
    if entry is None:
        return UNDEFINED
    out: list = []
    _external_refs(ast.AttrRef(node.name), cur, set(), out, 0, call.st)
    names = []
    seen = set()
    for name in out:
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    if len(call.nodes) == 1:
        text = ",".join(names)
        _pay_value(text, call.st.budget)
        return text
    pattern = call.arg(1)
    if pattern is UNDEFINED or pattern is ERROR:
        return pattern
    if not isinstance(pattern, str):
        return ERROR
    for name in names:
        r = regex_match(pattern, name, "i")
        if r is ERROR:
            return ERROR
        if r:
            return True
    return False


def _each_context_values(call):
    """compat_classad's evalInEachContext: ``expr`` (an attribute reference is replaced by the
    expression it names, looked up in the current match) evaluated inside each ad of the list."""
    st = call.st
    expr = call.nodes[0]
    if isinstance(expr, (ast.AttrRef, ast.Select)):
        found = st.definition(expr, call.cur)
        if found is not None:
            expr = found
    list_node = call.nodes[1]
    if isinstance(list_node, ast.ListExpr):
        elements = [(item, call.cur) for item in list_node.items]
    else:
        lst = call.arg(1)
        if lst is UNDEFINED:
            return UNDEFINED
        if not isinstance(lst, ClassAdList):
            return ERROR
        elements = [(item, lst.scope) for item in lst]
    fn, maxd, cost = st.compiled(expr)
    out = []
    st.budget.charge_bytes(len(elements) * LIST_ITEM_BYTES)  # the list of results
    for item_node, scope in elements:
        item_fn = st.compiled(item_node)[0]
        nested = item_fn(scope, st)
        if not isinstance(nested, ClassAd):
            out.append(UNDEFINED if nested is UNDEFINED else ERROR)
            continue
        # a fresh evaluation state rooted at the nested ad; in a match the nested ad looks
        # up missing names in the other side, like the ad it sits in
        inner = st.nested()
        inner.left, inner.right = st.left, st.right
        top = nested
        while top.parent is not None:
            top = top.parent
        inner.root = top
        if st.left is not None:
            side = _side_of(nested, st)
            if side is not None:
                inner.alternate = (nested, st.right if side is st.left else st.left)
        if maxd > inner.depth:
            out.append(ERROR)
            continue
        # the nested evaluation draws from the same budget: hand it this evaluation's pool
        inner.steps, st.steps = st.steps, 0
        try:
            inner.pay(cost)  # the expression runs once per element
            out.append(fn(nested, inner))
        except EvalFailure:
            out.append(ERROR)
        finally:
            st.steps, inner.steps = inner.steps, 0
    return out


def _side_of(ad, st):
    """Which ad of the match (left or right) ``ad`` is nested in, if any."""
    seen = 0
    while ad is not None and seen < 1000:
        if ad is st.left or ad is st.right:
            return ad
        ad = ad.parent
        seen += 1
    return None


def _eval_in_each_context(call):
    values = _each_context_values(call)
    if not isinstance(values, list):
        return values
    return _lit_list(values)


def _count_matches(call):
    values = _each_context_values(call)
    if values is UNDEFINED:
        return 0
    if not isinstance(values, list):
        return values
    count = 0
    for v in values:
        if v is True or (type(v) in _NUMBER and v != 0):
            count += 1
    return count


# ---------------------------------------------------------------------------
# Conversions and arithmetic helpers

def _fn_int(v):
    return to_int(v)


def _fn_real(v):
    return to_real(v)


def _fn_string(v):
    return _checked(to_string(v))


def _fn_bool(v):
    return to_bool(v)


def _round(kind):
    def do_round(v):
        if type(v) is int:
            return v
        r = v if type(v) is float else to_real(v)
        if r is UNDEFINED or type(r) is not float:
            return ERROR
        if r != r or r in (math.inf, -math.inf):
            return INT_MIN
        if kind == "floor":
            return real_to_int(float(math.floor(r)))
        if kind == "ceil":
            return real_to_int(float(math.ceil(r)))
        return real_to_int(float(round(r)))  # round-half-even, like rint()
    return do_round


def _pow(b, e):
    if type(b) is int and type(e) is int and e >= 0:
        try:
            value = math.pow(float(b), float(e)) + 0.5
        except OverflowError:
            return INT_MIN
        return real_to_int(value)
    rb, re_ = to_real(b), to_real(e)
    if type(rb) is not float or type(re_) is not float:
        return ERROR
    try:
        return math.pow(rb, re_)
    except (OverflowError, ValueError):
        try:
            return float(rb ** re_) if not isinstance(rb ** re_, complex) else math.nan
        except (OverflowError, ZeroDivisionError):
            return math.inf if rb != 0 else math.inf


def _quantize(st, a, b):
    ra = to_real(a)
    if type(ra) is not float:
        return ERROR
    if isinstance(b, ClassAdList):
        base = 0.0
        rbase = 0.0
        for i in range(len(b)):
            node = b[i]
            base = node.value if type(node) is ast.Literal else st.item(b, i)
            rbase = float(base) if type(base) is int or type(base) is float else to_real(base)
            if type(rbase) is not float:
                return ERROR
            if rbase >= ra:
                return base
        b = base
    else:
        rbase = to_real(b)
        if type(rbase) is not float:
            return ERROR
    if type(b) is int:
        if b == 0:
            return a
        if type(a) is int:
            return wrap(_c_div(a + b - 1, b) * b)
        quotient = ra / b
        if not math.isfinite(quotient):  # ceil() of infinity or NaN: the C++ gives it back unchanged
            return quotient * b
        return float(math.ceil(quotient)) * b
    if -1e-8 <= rbase <= 1e-8:
        return a
    return float(math.ceil(ra / rbase) * rbase) if math.isfinite(ra / rbase) else ra / rbase * rbase


def _c_div(a, b):
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _random(st, *args):
    if not args:
        return _random_gen.random()
    x = args[0]
    if type(x) is int:
        if x <= 0:
            raise EvalFailure("random() of a non-positive integer")
        return _random_gen.randrange(x)
    if type(x) is float:
        if not x > 0:
            raise EvalFailure("random() of a non-positive real")
        return x * _random_gen.random()
    return ERROR


_random_gen = _random_module.Random()


# ---------------------------------------------------------------------------
# Strings

def _strcat(*args):
    out = []
    total = 0
    for v in args:
        s = to_string(v)
        if s is UNDEFINED or s is ERROR:
            return s
        total += len(s)
        if total > MAX_STRING:  # before joining: the same long string given many times must not be built
            return ERROR
        out.append(s)
    return "".join(out)


def _join(st, *args):
    items = list(args)
    if 0 < len(items) <= 2 and isinstance(items[-1], ClassAdList):
        lst = items.pop()
        sep = items[0] if items else ""
        items = [sep] + [st.item(lst, i) for i in range(len(lst))]
    if not items:
        return ""
    parts = []
    sep = None
    saw_undefined = False
    for i, v in enumerate(items):
        if v is UNDEFINED:  # skipped; a join of nothing but undefined is undefined
            saw_undefined = True
            continue
        s = to_string(v)
        if s is ERROR or not isinstance(s, str):
            return ERROR
        if i == 0:
            sep = s
        else:
            parts.append(s)
    if saw_undefined and not parts:
        return UNDEFINED
    sep = sep or ""
    if sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0) > MAX_STRING:  # checked before building it
        return ERROR
    # HTCondor adds the separator only once the result is not empty: join(",", {"", "a"}) is "a"
    start = 0
    while start < len(parts) and parts[start] == "":
        start += 1
    return sep.join(parts[start:])


def _change_case(upper):
    def change(v):
        s = v if type(v) is str else to_string(v)
        if not isinstance(s, str):
            return s
        if s.isascii():
            return s.upper() if upper else s.lower()
        return s.translate(ASCII_UPPER if upper else ASCII_LOWER)  # ASCII letters only, as the C++
    return change


def _size(v):
    if v is UNDEFINED:
        return UNDEFINED
    if isinstance(v, str):
        return len(v.encode("utf-8", "surrogateescape"))
    if isinstance(v, (ClassAdList, ClassAd)):
        return len(v)
    return ERROR


def _bytes_text(latin: str | object):
    """Text whose characters stand for bytes (latin-1) back to a string: UTF-8 where the bytes are,
    a lone surrogate for each byte that is not (as condorcfg keeps undecodable bytes)."""
    if type(latin) is not str:
        return latin
    return latin.encode("latin-1").decode("utf-8", "surrogateescape")


def _substr(s, off, length=None):
    if s is UNDEFINED or off is UNDEFINED or length is UNDEFINED:
        return UNDEFINED
    if type(s) is not str or type(off) is not int or (length is not None and type(length) is not int):
        return ERROR
    if not -2147483648 <= off <= 2147483647:
        off = _int32(off)  # the C++ reads both into an int: INT64_MAX is -1 there
    if length is not None and not -2147483648 <= length <= 2147483647:
        length = _int32(length)
    data = s
    if not s.isascii():  # HTCondor counts bytes: substr("aé", 0, 2) is "a" and half of "é"
        data = s.encode("utf-8", "surrogateescape").decode("latin-1")  # one character per byte
    n = len(data)
    if off < 0:
        off = max(n + off, 0)
    elif off >= n:
        off = n
    ln = 0 if length is None else length
    if ln <= 0:
        ln = max(n - off + ln, 0)
    elif ln > n - off:
        ln = n - off
    if length == 0:
        ln = 0
    return s[off:off + ln] if data is s else _bytes_text(data[off:off + ln])


def _strcmp(fold):
    def cmp(a, b):
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        sa, sb = to_string(a), to_string(b)
        if not isinstance(sa, str) or not isinstance(sb, str):
            return ERROR
        ba, bb = _bytes(sa), _bytes(sb)
        if fold:
            ba, bb = ba.lower(), bb.lower()
        return (ba > bb) - (ba < bb)
    return cmp


def _bytes(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def natural_cmp(s1: bytes, s2: bytes) -> int:
    """strverscmp-like comparison, returning HTCondor's raw difference (C chars are signed).

    Each step is a C-speed operation (slice compares, regex runs), so long strings cost
    no per-character Python loop.
    """
    n1, n2 = len(s1), len(s2)
    i = _common_prefix(s1, s2)
    c1 = _signed(s1[i]) if i < n1 else 0
    c2 = _signed(s2[i]) if i < n2 else 0
    if c1 == c2:
        return 0
    head = s1[:i]
    nb = len(head.rstrip(b"0123456789"))  # start of the run of digits the common part ends with
    if nb == i and (not _isdigit(c1) or not _isdigit(c2)):
        return c1 - c2
    z1 = _ZEROS.match(s1, nb).end()
    z2 = _ZEROS.match(s2, nb).end()
    if z1 > nb and not _isdigit(_at(s1, z1)):
        z1 -= 1
    if z2 > nb and not _isdigit(_at(s2, z2)):
        z2 -= 1
    if z1 != z2:
        return z2 - z1
    if z1 > nb:
        return c1 - c2
    e1 = _DIGITS.match(s1, z1).end()
    e2 = _DIGITS.match(s2, z2).end()
    if e1 != e2:
        return e1 - e2
    return c1 - c2


_ZEROS = re.compile(rb"0*")
_DIGITS = re.compile(rb"[0-9]*")


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


def _isdigit(c: int) -> bool:
    return 48 <= c <= 57


def _at(s: bytes, j: int) -> int:
    return s[j] if j < len(s) else 0


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix: whole blocks compared at C speed, then the differing block."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i:i + 4096] == b[i:i + 4096]:
        i += 4096
    i = min(i, n)
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _version_args(a, b):
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    sa, sb = to_string(a), to_string(b)
    if not isinstance(sa, str) or not isinstance(sb, str):
        return ERROR
    return natural_cmp(_bytes(sa), _bytes(sb))


def _version(test):
    def version(a, b):
        r = _version_args(a, b)
        if r is UNDEFINED or r is ERROR:
            return r
        return r if test is None else test(r)
    return version


def _version_in_range(v, lo, hi):
    if lo is UNDEFINED or hi is UNDEFINED:
        return UNDEFINED
    sv, slo, shi = to_string(v), to_string(lo), to_string(hi)
    if not all(isinstance(x, str) for x in (sv, slo, shi)):
        return ERROR
    return natural_cmp(_bytes(slo), _bytes(sv)) <= 0 and natural_cmp(_bytes(sv), _bytes(shi)) <= 0


def _lit_list(items):
    """A list computed by a function: HTCondor's "shared list" kind."""
    return ClassAdList([ast.Literal(x) for x in items], None, shared=True)


def _split(s, seps=None):
    if type(s) is not str or (seps is not None and type(seps) is not str):
        return ERROR
    if seps is None:
        seps = ", \t"
    out = []
    last = 0
    prev_sep = None  # the last non-blank separator seen
    if seps:
        budget = _budget.current()
        counted = 0
        for m in _char_class(seps).finditer(s):  # each separator, found at C speed
            counted += 1
            if counted == _PAY_EVERY:  # the items are kept (in the list): paid as they come
                _pay_items(budget, counted, True)
                counted = 0
            ix = m.start()
            c = s[ix]
            if ix > last:
                out.append(s[last:ix])
            elif prev_sep is not None and prev_sep == c:
                out.append("")  # "a,,b": a run of one separator keeps the empty item
            if not c.isspace():
                prev_sep = c
            last = ix + 1
        _pay_items(budget, counted, True)
    if len(s) > last:
        out.append(s[last:])
    return _lit_list(out)


def _split_name(slot):
    def split_name(s):
        if type(s) is not str:
            return ERROR
        head, at, tail = s.partition("@")
        if not at:
            return _lit_list(["", s] if slot else [s, ""])
        return _lit_list([head, tail])
    return split_name


def _interval(v):
    n = to_int(v)
    if type(n) is not int:
        return ERROR
    n = ((n + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)  # HTCondor keeps it in a 32-bit int
    days = _c_div(n, 86400)
    rest = n - days * 86400
    hours = _c_div(rest, 3600)
    rest -= hours * 3600
    minutes = _c_div(rest, 60)
    secs = rest - minutes * 60
    if days:
        return "%d+%02d:%02d:%02d" % (days, abs(hours), abs(minutes), abs(secs))
    if hours:
        return "%d:%02d:%02d" % (hours, abs(minutes), abs(secs))
    if minutes:
        return "%d:%02d" % (minutes, abs(secs))
    return "%d" % secs


# ---------------------------------------------------------------------------
# Regular expressions

def _translate_pcre(pattern: str) -> str:
    """Rewrite the PCRE2 constructs Python's re spells differently."""
    out = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "Q":  # \Q...\E literal text
                end = pattern.find("\\E", i + 2)
                end = n if end < 0 else end
                out.append(re.escape(pattern[i + 2:end]))
                i = end + 2
                continue
            if nxt == "z" and not in_class:
                out.append(r"\Z")
            elif nxt == "Z" and not in_class:
                out.append(r"(?=\n?\Z)")
            elif nxt == "h":
                out.append(r"[ \t]")
            elif nxt == "H":
                out.append(r"[^ \t]")
            elif nxt == "R" and not in_class:
                out.append(r"(?:\r\n|\n|\r|\x0b|\x0c|\x85)")
            elif nxt in "mML":  # the regex module's word-start/end and named lists: PCRE2 rejects them
                raise ValueError(f"PCRE2 has no \\{nxt} escape")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                if end > 0:
                    name = pattern[i + 2:end]
                    cls = _POSIX_CLASSES.get(name)
                    if cls is not None:
                        out.append(cls)
                        i = end + 2
                        continue
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ] is literal
                out.append(r"\]")
                i += 1
            continue
        if c == "{" and not _PCRE_QUANTIFIER.match(pattern, i):
            out.append(r"\{")  # PCRE2 reads a brace that starts no {n}, {n,} or {n,m} as itself
            i += 1
            continue
        if c == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        if c == "(" and pattern.startswith("(?'", i):
            end = pattern.find("'", i + 3)
            if end > 0:
                out.append("(?P<" + pattern[i + 3:end] + ">")
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


_PCRE_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")


# -- keeping the regex module's string search fast ----------------------------------------------
#
# On its first search the regex module builds Boyer-Moore tables for each literal string of the
# pattern, in time cubic in the string's length for repetitive text, and without looking at its
# timeout: a 2,000-character literal takes seconds, 5,000 a minute.  So no literal may grow long:
# every _RUN atoms a no-op (?:\B)? ("optionally not at a word boundary": always matches, consumes
# nothing) is put before the next atom, which the module cannot merge into a string.

_RUN = 32
_NO_OP = r"(?:\B)?"
_QUANTIFIER_BRACES = re.compile(r"\{[0-9]*(?:,[0-9]*)?\}")
_HEADER_TO_CLOSE = ("(?#", "(?P=", "(?P>", "(?&", "(?(", "(?R", "(?+", "(?-", "(?0", "(?1", "(?2", "(?3", "(?4",
                    "(?5", "(?6", "(?7", "(?8", "(?9")


def _break_literal_runs(pattern: str, verbose: bool) -> str:
    """``pattern`` (Python syntax, as translated) with a no-op before every _RUN-th atom.

    Atoms are characters, escapes, classes and group openings, at any depth; quantifiers,
    ``|``, ``)`` and anchors are copied as they are, so each still applies to what it
    followed.  In verbose mode blanks and comments are not atoms (a no-op between an atom
    and its quantifier would take the quantifier).
    """
    if len(pattern) <= _RUN:
        return pattern
    out = []
    i, n = 0, len(pattern)
    atoms = 0
    while i < n:
        c = pattern[i]
        end = _not_an_atom(pattern, i, verbose)
        if end:
            out.append(pattern[i:end])
            i = end
            continue
        if atoms >= _RUN:
            out.append(_NO_OP)
            atoms = 0
        atoms += 1
        if c == "\\":
            end = _escape_end(pattern, i)
        elif c == "[":
            end = _class_end(pattern, i)
        elif c == "(":
            end = _group_header_end(pattern, i)
        else:
            end = i + 1
        out.append(pattern[i:end])
        i = end
    return "".join(out)


def _not_an_atom(p: str, i: int, verbose: bool) -> int:
    """The end of what starts at ``i`` when it is no atom (quantifier, ``|``, ``)``, anchor, blank), else 0."""
    c = p[i]
    if c in "*+?|)^$":
        return i + 1
    if c == "{":
        m = _QUANTIFIER_BRACES.match(p, i)
        return m.end() if m else 0
    if verbose:
        if c in " \t\n\r\f\v":
            return i + 1
        if c == "#":  # a comment, to the end of the line
            newline = p.find("\n", i)
            return len(p) if newline < 0 else newline + 1
    return 0


def _escape_end(p: str, i: int) -> int:
    """The end of the escape at ``i`` (a backslash and what belongs to it: digits, braces, names)."""
    n = len(p)
    j = i + 1
    if j >= n:
        return n
    c = p[j]
    j += 1
    if c.isdigit():
        while j < n and j < i + 4 and p[j].isdigit():
            j += 1
        return j
    if c in "xpPNgkuU" and j < n and p[j] in "{<":
        close = p.find("}" if p[j] == "{" else ">", j)
        return n if close < 0 else close + 1
    if c == "x":
        return min(j + 2, n)
    if c == "u":
        return min(j + 4, n)
    if c == "U":
        return min(j + 8, n)
    if c in "pP":
        return min(j + 1, n)
    return j


def _class_end(p: str, i: int) -> int:
    """The end of the character class opening at ``i`` (a leading ``]`` is a member)."""
    n = len(p)
    j = i + 1
    if j < n and p[j] == "^":
        j += 1
    if j < n and p[j] == "]":
        j += 1
    while j < n and p[j] != "]":
        j += 2 if p[j] == "\\" else 1
    return min(j + 1, n)


def _group_header_end(p: str, i: int) -> int:
    """The end of a group's opening at ``i``: ``(``, ``(?:``, ``(?P<name>``, ``(?i:`` ...; a whole
    ``(?#...)``, ``(?P=name)`` or ``(?(cond)`` that names something, since nothing may go inside it."""
    n = len(p)
    if not p.startswith("(?", i):
        return i + 1
    if p.startswith(_HEADER_TO_CLOSE, i):
        close = p.find(")", i + 2)
        return n if close < 0 else close + 1
    if p.startswith(("(?<=", "(?<!"), i):
        return i + 4
    if p.startswith(("(?P<", "(?<"), i):
        close = p.find(">", i + 2)
        return n if close < 0 else close + 1
    if p.startswith("(?'", i):
        close = p.find("'", i + 3)
        return n if close < 0 else close + 1
    if p.startswith(("(?:", "(?=", "(?!", "(?>", "(?|"), i):
        return i + 3
    j = i + 2  # inline flags: (?i) (?i-m:
    while j < n and (p[j].isalpha() or p[j] == "-"):
        j += 1
    return min(j + 1, n) if j < n and p[j] in ":)" else j


_VERBOSE_FLAG = re.compile(r"\(\?[a-zA-Z-]*x")


_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": r"\w", "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e",
}

_regex_cache: dict = {}
MAX_PATTERN = 65536  # longer patterns give ERROR (HTCondor's own limit is memory)
_REGEX_CALL_COST = 4  # work units one match costs besides its regex time (the call, the result)
COMPILE_UNITS_PER_CHAR = 20  # translating and compiling a pattern: about 10 us per character
_CACHED_PATTERN = 4096  # longest pattern kept compiled between matches


def regex_error(pattern: str, opts: str = "") -> str | None:
    """Why the evaluator cannot compile ``pattern`` (the match would be ERROR), or None.

    The same translation and engine as every match, so lint reports exactly the patterns
    that evaluate to ERROR (no second regex dialect to drift from this one).
    """
    import regex as rx

    try:
        _compile_pattern(rx, pattern, opts)
    except (rx.error, RecursionError, OverflowError, ValueError, TypeError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _byte_chars(text: str) -> str:
    """``text`` with one character per UTF-8 byte (latin-1), as HTCondor's byte-wise functions see it."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def _compile_pattern(rx, pattern: str, opts: str):
    # ASCII: PCRE2 without UTF and with the C tables: \w, \d, \s, \b and caseless matching are ASCII only
    flags = rx.ASCII
    if "i" in opts:
        flags |= rx.IGNORECASE
    if "m" in opts:
        flags |= rx.MULTILINE
    if "s" in opts:
        flags |= rx.DOTALL
    if "x" in opts:
        flags |= rx.VERBOSE
    translated = _translate_pcre(pattern)
    verbose = "x" in opts or _VERBOSE_FLAG.search(pattern) is not None
    return rx.compile(_break_literal_runs(translated, verbose), flags | rx.VERSION0)


def _compile_regex(pattern: str, opts: str, budget: Budget):
    """The compiled pattern (cached), or ERROR when it does not compile.

    Matching uses the third-party ``regex`` module: its ``timeout=`` lets every match
    run in this process under the command's regex time (:mod:`condorcfg.classad.budget`),
    whatever the pattern; Python's ``re`` cannot be interrupted.  A miss pays work for
    the translation and compilation, which take time in proportion to the pattern.
    """
    key = (pattern, opts)
    hit = _regex_cache.get(key)
    if hit is None:
        import regex as rx  # imported on first use: only expressions with regexes pay for it

        budget.charge_work(len(pattern) * COMPILE_UNITS_PER_CHAR + _REGEX_CALL_COST)
        try:
            hit = _compile_pattern(rx, pattern, opts)
        except (rx.error, RecursionError, OverflowError, ValueError, TypeError):
            hit = ERROR
        if len(pattern) <= _CACHED_PATTERN:  # long ones are rare; keeping them could hold much memory
            if len(_regex_cache) > 2000:
                _regex_cache.clear()
            _regex_cache[key] = hit
    return hit


def _regex_op(rx, target: str, opts: str, replace, budget: Budget):
    """HTCondor's regexp_helper: a bool (no replacement) or the substituted string; ERROR on failure.

    Runs within the regex time left (``TimeoutError`` when it runs out, counted by the caller).
    """
    budget.charge_work(_REGEX_CALL_COST)
    if replace is None:
        return rx.search(target, timeout=budget.regex_left()) is not None
    template = _template(replace)
    full = "f" in opts
    find_all = "g" in opts
    out = []
    idx = 0
    matched_any = False
    total = 0  # length so far, kept incrementally (summing each time would be quadratic)
    # one timeout for the whole scan: it also counts the Python work done between matches
    for m in rx.finditer(target, timeout=budget.regex_left()):
        matched_any = True
        if full:
            out.append(target[idx:m.start()])
        r = _expand(template, m)
        if r is ERROR:
            return ERROR
        out.append(r)
        total += len(r) + (m.start() - idx if full else 0)
        if total > MAX_STRING:
            return ERROR
        if not find_all:
            idx = m.end()
            break
        if m.end() == m.start():
            return ERROR  # HTCondor 25 gives error for a global replacement that matches empty
        idx = m.end()
    if full:
        out.append(target[idx:])
    elif not matched_any:
        return ""
    return _checked("".join(out))


def _used_groups(m) -> int:
    """PCRE's match count: 1 + the number of the highest group that took part."""
    for i in range(len(m.groups()), 0, -1):
        if m.start(i) >= 0:
            return i + 1
    return 1


_BACKREF = re.compile(r"\\([0-9])")


def _template(replace: str) -> list:
    """A replacement split once into literal text and group numbers (``\\N``): expanding it is then a join."""
    parts: list = []
    last = 0
    for m in _BACKREF.finditer(replace):
        parts.append(replace[last:m.start()])
        parts.append(int(m.group(1)))
        last = m.end()
    parts.append(replace[last:])
    return parts


def _expand(template: list, m):
    """The replacement for one match; ERROR when it names a group past the last that took part."""
    if len(template) == 1:
        return template[0]
    ngroups = _used_groups(m)
    out = []
    for part in template:
        if type(part) is int:
            if part >= ngroups:
                return ERROR
            out.append(m.group(part) or "")
        else:
            out.append(part)
    return "".join(out)


def regex_run(pattern: str, target: str, opts: str, replace=None, budget: Budget | None = None):
    """Match (or substitute) within the command's regex time; ERROR when the time is spent.

    A pattern that exhausts the time gives ERROR like one that hits PCRE2's match limit in
    HTCondor, and so does every match after it in the same command.
    """
    if len(target) > MAX_STRING or len(pattern) > MAX_PATTERN:
        return ERROR
    if budget is None:
        budget = _budget.current() or Budget()
    if budget.regex_left() <= 0:
        return ERROR  # (before the memo: once the time is spent, every match is error)
    short = replace is None and len(target) <= _MEMO_TARGET
    if short:
        key = (pattern, target, opts)
        known = _match_memo.get(key)
        if known is not None:
            return known
    as_bytes = not (pattern.isascii() and target.isascii() and (replace is None or replace.isascii()))
    if as_bytes:  # PCRE2 without UTF: "." is one byte (regexp("^.$", "é") is false)
        pattern, target = _byte_chars(pattern), _byte_chars(target)
        replace = _byte_chars(replace) if isinstance(replace, str) else replace
    rx = _compile_regex(pattern, opts, budget)
    if rx is ERROR:
        return ERROR
    start = _budget.cpu_time()
    try:
        result = _regex_op(rx, target, opts, replace, budget)
        # (only quick answers: a hit then saves no regex time a budget could have run out of)
        if short and type(result) is bool and _budget.cpu_time() - start < _MEMO_SECONDS:
            if len(_match_memo) >= 4096:
                _match_memo.clear()
            _match_memo[key] = result
        return _bytes_text(result) if as_bytes else result
    except TimeoutError:
        budget.regex_timed_out()
        return ERROR
    except (RecursionError, MemoryError, OverflowError):
        return ERROR
    finally:
        if budget.regex_seconds > 0:
            budget.regex_used(_budget.cpu_time() - start)


# (pattern, target, options) -> whether it matches, for short targets: policy expressions
# test the same values (an accounting group, an owner) against the same patterns on every
# evaluation, and a match is a pure function of the three.  Only matches that took under
# _MEMO_SECONDS are kept, so a memo hit never hides a match that could exhaust a budget.
_match_memo: dict = {}
_MEMO_TARGET = 256
_MEMO_SECONDS = 0.0001


def regex_match(pattern: str, target: str, opts: str = "", budget: Budget | None = None):
    return regex_run(pattern, target, opts, None, budget)


def regex_problem(pattern: str, opts: str = "") -> str | None:
    """Why the evaluator cannot compile ``pattern`` (so HTCondor's regexp() gives error), or None.

    For lint: the same translation and engine as evaluation, so a pattern is judged as it runs.
    """
    from condorcfg.classad.budget import BudgetSpent

    if len(pattern) > MAX_PATTERN:
        return f"longer than {MAX_PATTERN} characters"
    try:
        if _compile_regex(pattern, opts, _budget.current() or Budget()) is not ERROR:
            return None
    except BudgetSpent:
        return None  # not judged: the command's budget is spent
    try:
        import regex as rx

        rx.compile(_break_literal_runs(_translate_pcre(pattern), "x" in opts), rx.VERSION0)
    except Exception as exc:  # the compiler's own words
        return str(exc) or type(exc).__name__
    return "not a pattern HTCondor accepts"


def _regexp(pattern, target, opts=None):
    if pattern is ERROR or target is ERROR or opts is ERROR:
        return ERROR
    if pattern is UNDEFINED or target is UNDEFINED or opts is UNDEFINED:
        return UNDEFINED
    if opts is not None and type(opts) is not str:
        return ERROR
    if type(pattern) is not str or type(target) is not str:
        return ERROR
    return regex_run(pattern, target, opts or "", None)


def _subst(extra):
    def subst(pattern, target, replace, opts=None):
        args = (pattern, target, replace, opts)
        if any(a is ERROR for a in args):
            return ERROR
        if any(a is UNDEFINED for a in args):
            return UNDEFINED
        if opts is not None and type(opts) is not str:
            return ERROR
        if type(pattern) is not str or type(target) is not str or type(replace) is not str:
            return ERROR
        return regex_run(pattern, target, (opts or "") + extra, replace)
    return subst


def _regexp_member(st, pattern, lst, opts=None):
    if pattern is ERROR or lst is ERROR or opts is ERROR:
        return ERROR
    if pattern is UNDEFINED or lst is UNDEFINED or opts is UNDEFINED:
        return UNDEFINED
    if opts is not None and type(opts) is not str:
        return ERROR
    if type(pattern) is not str or not isinstance(lst, ClassAdList):
        return ERROR
    maybe_undefined = False
    broken = regex_error(pattern, opts or "") is not None  # HTCondor: a pattern that does not compile matches nothing
    for i in range(len(lst)):
        item = st.item(lst, i)
        if type(item) is not str:
            if item is UNDEFINED:
                maybe_undefined = True
                continue
            return ERROR
        if broken:
            continue
        r = regex_run(pattern, item, opts or "", None)
        if r is ERROR:
            return ERROR
        if r:
            return True
    return UNDEFINED if maybe_undefined else False


# ---------------------------------------------------------------------------
# Lists

def _member(identity):
    def member(st, x, lst):
        if lst is UNDEFINED or (not identity and x is UNDEFINED):
            return UNDEFINED
        if not isinstance(lst, ClassAdList) or isinstance(x, (ClassAdList, ClassAd)):
            return ERROR
        if not identity and x is ERROR:
            return ERROR
        tx = type(x)
        numeric = tx is int or tx is float
        for i in range(len(lst)):
            node = lst[i]
            item = node.value if type(node) is ast.Literal else st.item(lst, i)
            if numeric and not identity and (type(item) is int or type(item) is float):
                if item == x:  # (compare("==") of two numbers, without the call)
                    return True
                continue
            r = identical(item, x) if identity else compare("==", item, x)
            if r is True:
                return True
        return False
    return member


_LIST_OPS = {"<": "<", "<=": "<=", "!=": "!=", "==": "==", ">": ">", ">=": ">=", "is": "is", "isnt": "isnt"}


def _list_compare(all_match):
    def list_compare(st, op, lst, value):
        if op is UNDEFINED:
            return UNDEFINED
        if type(op) is not str or op not in _LIST_OPS:
            return ERROR
        if lst is UNDEFINED:
            return UNDEFINED
        if not isinstance(lst, ClassAdList):
            return ERROR
        for i in range(len(lst)):
            item = st.item(lst, i)
            if op == "is":
                r = identical(item, value)
            elif op == "isnt":
                r = identical(item, value)
                r = r if r is ERROR else not r
            else:
                r = compare(op, item, value)
            if type(r) is not bool:
                if r is UNDEFINED:
                    return False  # quirk: stops at the first undefined comparison in both forms
                return ERROR
            if r and not all_match:
                return True
            if not r and all_match:
                return False
        return all_match
    return list_compare


def _numbers(st, lst):
    """The list's numeric elements (undefined skipped), or ERROR / UNDEFINED for the list."""
    if lst is UNDEFINED:
        return UNDEFINED
    if not isinstance(lst, ClassAdList):
        return ERROR
    out = []
    for i in range(len(lst)):
        item = st.item(lst, i)
        t = type(item)
        if t is int or t is float:
            out.append(item)
        elif t is bool:
            out.append(int(item))
        elif item is UNDEFINED:
            continue
        else:
            return ERROR
    return out


def _sum(st, lst):
    nums = _numbers(st, lst)
    if not isinstance(nums, list):
        return nums
    total = 0
    for x in nums:
        total = arith("+", total, x)
    return total


def _avg(st, lst):
    nums = _numbers(st, lst)
    if not isinstance(nums, list):
        return nums
    if not nums:
        return 0
    total = 0
    for x in nums:
        total = arith("+", total, x)
    return arith("/", total, float(len(nums)))


def _bound(lower):
    def bound(st, lst):
        nums = _numbers(st, lst)
        if not isinstance(nums, list):
            return nums
        if not nums:
            return UNDEFINED
        best = nums[0]
        for x in nums[1:]:
            if (x < best) if lower else (x > best):
                best = x
        if any(type(x) is float for x in nums):
            return float(best)
        return best
    return bound


# ---------------------------------------------------------------------------
# String lists (comma/space separated strings)

_LIST_DELIMS = ", "
_MEMBER_DELIMS = ", \t\r\n"


def _tokens(s: str, delims: str, kept: bool = False):
    """The non-blank items of a string list, trimmed (HTCondor's StringTokenIterator), to iterate.

    Found by the C regex engine (no per-character Python loop).  A list longer than
    LONG_STRING is paid for as its items come: work per item and, when the caller keeps
    them (``kept``: a list or set), their memory, so a huge string list spends the
    command's budget instead of all its memory.  A shorter one is free, like the short
    strings the functions are given, and the items of short ones are kept for next time
    (policy expressions test the same lists again and again).
    """
    if len(s) > LONG_STRING:
        return _paid_tokens(s, delims, kept)
    key = (s, delims)
    items = _split_lists.get(key)
    if items is None:
        items = tuple([t for t in [raw.strip(" \t\r\n") for raw in _char_class(delims, negate=True).findall(s)]
                       if t])
        if len(s) <= _KEPT_LIST:
            if len(_split_lists) >= 2048:
                _split_lists.clear()
            _split_lists[key] = items
    return items


_split_lists: dict = {}  # (string, delimiters) -> items, for short strings
_KEPT_LIST = 256


def _paid_tokens(s: str, delims: str, kept: bool):
    for token in _c_tokens(s, delims, kept):
        token = token.strip(" \t\r\n")
        if token:
            yield token


_PAY_EVERY = 256
ITEM_BYTES = 96  # memory one short string costs kept in a list or set (object, pointer, share of the table)


def _pay_items(budget, count: int, kept: bool) -> None:
    """Charge ``count`` items a function took apart: work each, and memory when they are kept."""
    if budget is not None and count:
        budget.charge_work(count)
        if kept:
            budget.charge_bytes(count * ITEM_BYTES)


_class_cache: dict = {}


def _char_class(chars: str, negate: bool = False):
    """A compiled ``[chars]+`` (or ``[^chars]+``), cached: splitting with it runs at C speed.

    Building the class costs work per distinct character (a hostile delimiter string can hold many).
    """
    key = (chars, negate)
    hit = _class_cache.get(key)
    if hit is None:
        distinct = "".join(sorted(set(chars)))
        if len(distinct) > 64:
            budget = _budget.current()
            if budget is not None:
                budget.charge_work(len(distinct) * 4)
        hit = re.compile("[" + ("^" if negate else "") + re.escape(distinct) + "]" + ("+" if negate else ""))
        if len(chars) <= 256:  # a long delimiter string is not kept: it could hold much memory
            if len(_class_cache) > 256:
                _class_cache.clear()
            _class_cache[key] = hit
    return hit


def _delims(d, default):
    if d is None:
        return default
    if type(d) is not str:
        return ERROR
    return d or default


def _sl_size(s, d=None):
    delims = _delims(d, _LIST_DELIMS)
    if type(s) is not str or delims is ERROR:
        return ERROR
    return sum(1 for _ in _tokens(s, delims))


def _sl_numbers(s, d):
    delims = _delims(d, _LIST_DELIMS)
    if type(s) is not str or delims is ERROR:
        return ERROR, False
    values = []
    all_int = True
    for item in _tokens(s, delims, kept=True):
        v = strtod_prefix(item)
        if v is None:
            return ERROR, False
        values.append(v)
        if all_int and not _INT_TEXT.fullmatch(item):
            all_int = False
    return values, all_int


_INT_TEXT = re.compile(r"[-+0-9]*")


def _sl_result(value, all_int):
    if all_int:
        return real_to_int(value)
    return value


def _sl_sum(s, d=None):
    values, all_int = _sl_numbers(s, d)
    if values is ERROR:
        return ERROR
    if not values:
        return 0.0
    return _sl_result(math.fsum(values) if all(math.isfinite(v) for v in values) else sum(values), all_int)


def _sl_avg(s, d=None):
    values, all_int = _sl_numbers(s, d)
    if values is ERROR:
        return ERROR
    if not values:
        return 0.0
    return _sl_result(sum(values) / len(values), all_int)


def _sl_bound(lower):
    def bound(s, d=None):
        values, all_int = _sl_numbers(s, d)
        if values is ERROR:
            return ERROR
        if not values:
            return UNDEFINED
        if lower:
            best = 3.4028234663852886e38  # FLT_MAX, as the C++ starts
            for v in values:
                if v < best:
                    best = v
        else:
            best = 1.1754943508222875e-38  # starts from FLT_MIN: all-negative lists give 0 (HTCondor bug)
            for v in values:
                if v > best:
                    best = v
        return _sl_result(best, all_int)
    return bound


def _sl_member(fold):
    def member(x, s, d=None):
        if x is UNDEFINED and s is UNDEFINED:
            return UNDEFINED
        if x is ERROR or s is ERROR:
            return ERROR
        x = "" if x is UNDEFINED else x
        s = "" if s is UNDEFINED else s
        delims = _delims(None if d is UNDEFINED else d, _MEMBER_DELIMS)  # (undefined: the defaults)
        if type(x) is not str or type(s) is not str or delims is ERROR:
            return ERROR
        items = _tokens(s, delims)
        if fold:
            x = _fold(x)
            return any(_fold(i) == x for i in items)
        return x in items
    return member


_fold = fold_ascii  # ASCII-only lower case, as strcasecmp folds


def _sl_subset(fold):
    def subset(a, b, d=None):
        if a is ERROR or b is ERROR:
            return ERROR
        delims = _delims(None if d is UNDEFINED else d, _MEMBER_DELIMS)  # (undefined: the defaults)
        if delims is ERROR or (a is not UNDEFINED and type(a) is not str) \
                or (b is not UNDEFINED and type(b) is not str):
            return ERROR
        if a is UNDEFINED:
            return UNDEFINED if b is UNDEFINED else True
        items = iter(_tokens(a, delims))
        first = next(items, None)
        if first is None:
            return True
        if b is UNDEFINED:
            return False
        if type(b) is not str:
            return ERROR
        pool = _tokens(b, delims, kept=True)
        if fold:
            pool_set = {_fold(i) for i in pool}
            return _fold(first) in pool_set and all(_fold(i) in pool_set for i in items)
        pool_set = set(pool)
        return first in pool_set and all(i in pool_set for i in items)
    return subset


def _sl_intersect(a, b, d=None):
    if a is ERROR or b is ERROR or d is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED or d is UNDEFINED:
        return UNDEFINED
    if d is not None and type(d) is not str:
        return ERROR
    if type(a) is not str or type(b) is not str:
        return ERROR
    delims = d or " ,"
    pool = set(_c_tokens(b, delims, kept=True))
    return any(i in pool for i in _c_tokens(a, delims))


def _c_tokens(s: str, delims: str, kept: bool = False):
    """split_string_list from the C++: tokens between delimiter characters, no trimming (paid as they come)."""
    budget = _budget.current()
    counted = 0
    for m in _char_class(delims, negate=True).finditer(s):
        counted += 1
        if counted == _PAY_EVERY:
            _pay_items(budget, counted, kept)
            counted = 0
        yield m.group()
    _pay_items(budget, counted, kept)


def _sl_regexp_member(pattern, s, d=None, opts=None):
    if type(pattern) is not str or type(s) is not str:
        return ERROR
    delims = _delims(d, _MEMBER_DELIMS)
    if delims is ERROR or (opts is not None and type(opts) is not str):
        return ERROR
    empty = True
    for item in _tokens(s, delims):
        empty = False
        r = regex_run(pattern, item, (opts or "").lower(), None)
        if r is ERROR:
            return ERROR
        if r:
            return True
    return UNDEFINED if empty else False


# ---------------------------------------------------------------------------
# Time

def _time_fn(st):
    return int(st.clock())


def _current_time(st):
    now = int(st.clock())
    return AbsTime(now, civil_time.local_offset(now))


def _tz_offset(st):
    return RelTime(civil_time.local_offset(int(st.clock())))


def _day_time(st):
    now = int(st.clock())
    lt = _time.localtime(now)
    return RelTime(lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec)


def _local_tm(seconds):
    try:
        return _time.localtime(int(seconds))
    except (OverflowError, OSError, ValueError):
        return None


def _get_field(name):
    def get(v):
        t = type(v)
        if t is AbsTime:
            if name == "getdays":
                return ERROR
            tm = _local_tm(v.seconds)
            if tm is None:
                return ERROR
            return {"getyear": tm.tm_year, "getmonth": tm.tm_mon, "getdayofyear": tm.tm_yday - 1,
                    "getdayofmonth": tm.tm_mday, "getdayofweek": (tm.tm_wday + 1) % 7, "gethours": tm.tm_hour,
                    "getminutes": tm.tm_min, "getseconds": tm.tm_sec}[name]
        if t is RelTime:
            secs = seconds_int(v.seconds)
            if name == "getdays":
                return _c_div(secs, 86400)
            if name == "gethours":
                return _c_rem(secs, 86400) // 1 if secs >= 0 else -((-secs % 86400) // 3600)
            if name == "getminutes":
                r = _c_rem(secs, 3600)
                return _c_div(r, 60)
            if name == "getseconds":
                return _c_rem(secs, 60)
            return ERROR
        return ERROR
    if name == "gethours":
        def hours(v):
            if type(v) is RelTime:
                secs = seconds_int(v.seconds)
                return _c_div(_c_rem(secs, 86400), 3600)
            return get(v)
        return hours
    return get


def _int32(v: int) -> int:
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _c_rem(a, b):
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _split_abstime(secs, offset):
    tm = _time.gmtime(int(secs) + int(offset))
    ad = ClassAd()
    for name, value in (("Type", "AbsoluteTime"), ("Year", tm.tm_year), ("Month", tm.tm_mon), ("Day", tm.tm_mday),
                        ("Hours", tm.tm_hour), ("Minutes", tm.tm_min), ("Seconds", tm.tm_sec),
                        ("Offset", int(offset))):
        ad[name] = ast.Literal(value)
    return ad


def _split_reltime(rsecs):
    negative = rsecs < 0
    if negative:
        rsecs = -rsecs
    whole = int(rsecs)
    days, hrs, mins = whole // 86400, whole % 86400 // 3600, whole % 3600 // 60
    secs = (whole % 60) + (rsecs - math.floor(rsecs))
    if negative:
        if days > 0:
            days = -days
        elif hrs > 0:
            hrs = -hrs
        elif mins > 0:
            mins = -mins
        else:
            secs = -secs
    ad = ClassAd()
    for name, value in (("Type", "RelativeTime"), ("Days", days), ("Hours", hrs), ("Minutes", mins),
                        ("Seconds", secs)):
        ad[name] = ast.Literal(value)
    return ad


def _do_split_time(v):
    t = type(v)
    try:
        if t is int:  # the C++ reads numbers into a 32-bit int here
            secs = _int32(v)
            return _split_abstime(secs, civil_time.local_offset(secs))
        if t is float:
            secs = -(1 << 31) if v != v or not -2147483649.0 < v < 2147483648.0 else int(v)
            return _split_abstime(secs, civil_time.local_offset(secs))
        if t is AbsTime:
            return _split_abstime(v.seconds, v.offset)
        if t is RelTime:
            return _split_reltime(float(seconds_int(v.seconds)) if not math.isfinite(v.seconds) else float(v.seconds))
    except (OverflowError, OSError, ValueError):
        return ERROR
    return None


def _split_time(v):
    if v is UNDEFINED:
        return UNDEFINED
    if isinstance(v, ClassAd):
        return ERROR
    r = _do_split_time(v)
    return ERROR if r is None else r


def _format_time(st, *args):
    if not args:
        tm = _time.localtime(int(st.clock()))
        return _strftime("%c", tm)
    t = args[0]
    if type(t) is RelTime:
        return ERROR
    if isinstance(t, ClassAd):
        split = t
    else:
        split = _do_split_time(t)
    if split is None or split is ERROR:
        return ERROR

    def field(name, default=0):
        entry = split._data.get(name.lower())
        if entry is None or not isinstance(entry[1], ast.Literal) or type(entry[1].value) is not int:
            return default
        return entry[1].value
    year, month, day = field("Year", 1900), field("Month", 1), field("Day", 0)
    hours, minutes, seconds = field("Hours"), field("Minutes"), field("Seconds")
    fmt = "%c"
    if len(args) == 2:
        fmt = args[1]
        if type(fmt) is not str:
            return ERROR
    try:
        wday = (civil_time.weekday(year, month, day) + 1) % 7 if 1 <= month <= 12 and day >= 1 else 0
        yday = _time.strptime("%04d-%02d-%02d" % (year, month, day), "%Y-%m-%d").tm_yday if day >= 1 else 1
    except (ValueError, OverflowError):
        wday, yday = 0, 1
    tm = _time.struct_time((year, month, day, hours, minutes, seconds, (wday - 1) % 7, yday, 0))
    return _strftime(fmt, tm)


def _strftime(fmt: str, tm) -> str:
    if len(fmt) > 4096:
        return ERROR
    try:
        out = _time.strftime(fmt, tm)
    except (ValueError, OverflowError):
        return ""
    return out[:1023]


def _abs_time(st, *args):
    if not args:
        return _current_time(st)
    v = args[0]
    offset = None
    if len(args) == 2:
        o = args[1]
        if type(o) is int:
            offset = ((o + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
        elif type(o) is float:
            offset = real_to_int(o)
        elif type(o) is RelTime:
            offset = seconds_int(o.seconds)
        else:
            return ERROR
    t = type(v)
    if v is UNDEFINED:
        return UNDEFINED
    if t is int:
        secs = ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)  # the C++ reads it into an int
        return AbsTime(secs, civil_time.local_offset(secs) if offset is None else offset)
    if t is float:
        secs = INT32_MIN if v != v or not -2147483649.0 < v < 2147483648.0 else int(v)  # a C int, as HTCondor
        return AbsTime(secs, civil_time.local_offset(secs) if offset is None else offset)
    if t is str:
        return v  # only literal strings are converted (at parse time); others come back unchanged
    if t is AbsTime:
        return v
    if t is RelTime:
        secs = seconds_int(v.seconds)
        return AbsTime(secs, civil_time.local_offset(secs) if offset is None else offset)
    return ERROR


def _rel_time(v):
    t = type(v)
    if v is UNDEFINED:
        return UNDEFINED
    if t is int:
        return RelTime(v)
    if t is float:
        return RelTime(v)
    if t is str:
        return RelTime(0)  # 25.14.1: only literal strings are read (at parse time); others give 0
    if t is AbsTime:
        return RelTime(v.seconds)
    if t is RelTime:
        return v
    return ERROR


# ---------------------------------------------------------------------------
# HTCondor helpers: environment, arguments, users



def _v2_quote(text: str) -> str:
    """HTCondor's V2 quoting: each run of blanks and single quotes goes in one pair of quotes, a
    quote inside doubled (``a  b`` is ``a'  'b``, ``a'b`` is ``a''''b``); an empty argument is two quotes."""
    if text == "":
        return "''"
    return _V2_SPECIAL_RUN.sub(lambda run: "'" + run.group().replace("'", "''") + "'", text)


_V2_SPECIAL_RUN = re.compile(r"[ \t\n\r']+")


# a run of blanks | plain characters | a quoted part ('' inside is a quote; unrolled, so linear) | a lone quote
_V2_PIECE = re.compile(r"[ \t\n\r]+|[^ \t\n\r']+|'([^']*(?:''[^']*)*)'|'")


def _parse_v2(s: str):
    """Split V2 text (blank separated, single quotes group, '' is a quote); None if a quote is open.

    The pieces are found at C speed and paid for as they come (the items are kept).
    """
    items = []
    item = None  # the parts of the item being read, None between items
    budget = _budget.current()
    counted = 0
    for m in _V2_PIECE.finditer(s):
        counted += 1
        if counted == _PAY_EVERY:
            _pay_items(budget, counted, True)
            counted = 0
        text = m.group()
        first = text[0]
        if first in " \t\n\r":
            if item is not None:
                items.append("".join(item))
                item = None
            continue
        if item is None:
            item = []
        if first == "'":
            quoted = m.group(1)
            if quoted is None:
                return None  # unterminated quote
            item.append(quoted.replace("''", "'"))
        else:
            item.append(text)
    _pay_items(budget, counted, True)
    if item is not None:
        items.append("".join(item))
    return items


def _env_entries(entries, merged: dict) -> bool:
    for entry in entries:
        name, eq, value = entry.partition("=")
        if not eq or not name:
            return False
        merged[name] = value
    return True


def _env_v2_text(merged: dict) -> str:
    return " ".join(name + "=" + _v2_quote(value) for name, value in sorted(merged.items()))


def _env_v1_to_v2(s):
    if s is UNDEFINED:
        return UNDEFINED
    if type(s) is not str:
        return ERROR
    merged: dict = {}
    if not _env_entries(_c_tokens(s, ";", kept=True), merged):
        return ERROR
    return _checked(_env_v2_text(merged))


def _merge_env(*args):
    merged: dict = {}
    for s in args:
        if s is UNDEFINED:
            continue
        if type(s) is not str:
            return ERROR
        entries = _parse_v2(s)
        if entries is None or not _env_entries(entries, merged):
            return ERROR
    return _checked(_env_v2_text(merged))


def _args_to_list(s, version=None):
    if version is not None and (type(version) is not int or version not in (1, 2)):
        return ERROR
    if type(s) is not str:
        return ERROR
    if version == 1:
        return _lit_list(_blank_separated(s))
    items = _parse_v2(s)
    return ERROR if items is None else _lit_list(items)


_NON_BLANK = re.compile(r"\S+")  # the same blanks as str.split()


def _blank_separated(s: str) -> list:
    """``s.split()``, found at C speed and paid for as the items come (they are kept)."""
    budget = _budget.current()
    out = []
    for m in _NON_BLANK.finditer(s):
        out.append(m.group())
        if len(out) % _PAY_EVERY == 0:
            _pay_items(budget, _PAY_EVERY, True)
    _pay_items(budget, len(out) % _PAY_EVERY, True)
    return out


def _list_to_args(st, lst, version=None):
    if version is not None and (type(version) is not int or version not in (1, 2)):
        return ERROR
    if not isinstance(lst, ClassAdList):
        return ERROR
    out = []
    total = 0
    for i in range(len(lst)):
        item = st.item(lst, i)
        if type(item) is not str:
            return ERROR
        if version == 1:
            if any(c in item for c in " \t\n\r"):
                return ERROR
        else:
            item = _v2_quote(item)
        total += len(item) + 1
        if total > MAX_STRING + 1:  # checked as it grows: the list can name one long string many times
            return ERROR
        out.append(item)
    return " ".join(out)


def _user_home(user, default=None):
    if user is ERROR:
        return ERROR
    if user is UNDEFINED:
        return UNDEFINED if default is None else default
    if type(user) is not str:
        return ERROR
    try:
        import pwd

        return pwd.getpwnam(user).pw_dir
    except (KeyError, ImportError, OSError):
        return UNDEFINED if default is None else default


def _user_map(*args):
    # no map files are configured for condorcfg's evaluation: an unknown map gives undefined
    if any(a is ERROR for a in args[:2]):
        return ERROR
    if len(args) >= 4:
        return args[3]
    return UNDEFINED


# ---------------------------------------------------------------------------
# The catalogue

def _v(lo, hi, impl):
    return (lo, hi, impl, "v")


def _s(lo, hi, impl):
    return (lo, hi, impl, "s")


def _l(lo, hi, impl):
    return (lo, hi, impl, "l")


FUNCTIONS: dict = {
    # type predicates
    "isundefined": _v(1, 1, lambda v: v is UNDEFINED),
    "iserror": _v(1, 1, lambda v: v is ERROR),
    "isstring": _v(1, 1, lambda v: type(v) is str),
    "isinteger": _v(1, 1, _is_int),
    "isreal": _v(1, 1, _is_real),
    "isboolean": _v(1, 1, lambda v: type(v) is bool),
    "islist": _v(1, 1, lambda v: isinstance(v, ClassAdList)),
    "isclassad": _v(1, 1, lambda v: isinstance(v, ClassAd)),
    "isabstime": _v(1, 1, lambda v: type(v) is AbsTime),
    "isreltime": _v(1, 1, lambda v: type(v) is RelTime),
    # control
    "ifthenelse": _l(3, 3, _if_then_else),
    "eval": _l(1, 1, _eval),
    "unparse": _l(1, 1, _unparse_fn),
    "unresolved": _l(1, 2, _unresolved),
    "debug": _l(1, 1, _debug),
    # lists
    "member": _s(2, 2, _member(False)),
    "identicalmember": _s(2, 2, _member(True)),
    "anycompare": _s(3, 3, _list_compare(False)),
    "allcompare": _s(3, 3, _list_compare(True)),
    "size": _v(1, 1, _size),
    "sum": _s(1, 1, _sum),
    "avg": _s(1, 1, _avg),
    "min": _s(1, 1, _bound(True)),
    "max": _s(1, 1, _bound(False)),
    "evalineachcontext": _l(2, 2, _eval_in_each_context),
    "countmatches": _l(2, 2, _count_matches),
    # time
    "time": _s(0, 0, _time_fn),
    "currenttime": _s(0, 0, _current_time),
    "timezoneoffset": _s(0, 0, _tz_offset),
    "daytime": _s(0, 0, _day_time),
    "splittime": _v(1, 1, _split_time),
    "formattime": _s(0, 2, _format_time),
    "abstime": _s(0, 2, _abs_time),
    "reltime": _v(1, 1, _rel_time),
    "interval": _v(1, 1, _interval),
    # strings
    "strcat": _v(0, None, _strcat),
    "join": _s(0, None, _join),
    "toupper": _v(1, 1, _change_case(True)),
    "tolower": _v(1, 1, _change_case(False)),
    "substr": _v(2, 3, _substr),
    "strcmp": _v(2, 2, _strcmp(False)),
    "stricmp": _v(2, 2, _strcmp(True)),
    "versioncmp": _v(2, 2, _version(None)),
    "versionlt": _v(2, 2, _version(lambda r: r < 0)),
    "versionle": _v(2, 2, _version(lambda r: r <= 0)),
    "versiongt": _v(2, 2, _version(lambda r: r > 0)),
    "versionge": _v(2, 2, _version(lambda r: r >= 0)),
    "versioneq": _v(2, 2, _version(lambda r: r == 0)),
    "version_in_range": _v(3, 3, _version_in_range),
    "split": _v(1, 2, _split),
    "splitusername": _v(1, 1, _split_name(False)),
    "splitslotname": _v(1, 1, _split_name(True)),
    # regular expressions
    "regexp": _v(2, 3, _regexp),
    "regexps": _v(3, 4, _subst("")),
    "replace": _v(3, 4, _subst("f")),
    "replaceall": _v(3, 4, _subst("fg")),
    "regexpmember": _s(2, 3, _regexp_member),
    # conversions and math
    "int": _v(1, 1, _fn_int),
    "real": _v(1, 1, _fn_real),
    "string": _v(1, 1, _fn_string),
    "bool": _v(1, 1, _fn_bool),
    "floor": _v(1, 1, _round("floor")),
    "ceil": _v(1, 1, _round("ceil")),
    "ceiling": _v(1, 1, _round("ceil")),
    "round": _v(1, 1, _round("round")),
    "pow": _v(2, 2, _pow),
    "quantize": _s(2, 2, _quantize),
    "random": _s(0, 1, _random),
    # string lists
    "stringlistsize": _v(1, 2, _sl_size),
    "stringlistsum": _v(1, 2, _sl_sum),
    "stringlistavg": _v(1, 2, _sl_avg),
    "stringlistmin": _v(1, 2, _sl_bound(True)),
    "stringlistmax": _v(1, 2, _sl_bound(False)),
    "stringlistmember": _v(2, 3, _sl_member(False)),
    "stringlistimember": _v(2, 3, _sl_member(True)),
    "stringlistsubsetmatch": _v(2, 3, _sl_subset(False)),
    "stringlistisubsetmatch": _v(2, 3, _sl_subset(True)),
    "stringlistsintersect": _v(2, 3, _sl_intersect),
    "stringlist_regexpmember": _v(2, 4, _sl_regexp_member),
    # environment, arguments, users
    "envv1tov2": _v(1, 1, _env_v1_to_v2),
    "mergeenvironment": _v(0, None, _merge_env),
    "argstolist": _v(1, 2, _args_to_list),
    "listtoargs": _s(1, 2, _list_to_args),
    "userhome": _v(1, 2, _user_home),
    "usermap": _v(2, 4, _user_map),
}

for _name in ("getyear", "getmonth", "getdayofyear", "getdayofmonth", "getdayofweek", "getdays", "gethours",
              "getminutes", "getseconds"):
    FUNCTIONS[_name] = _v(1, 1, _get_field(_name))

# --- facts about the built-ins that static analysis and lint need (one place: tests check the names) ---

# What a call's value depends on besides its arguments; such a call is never constant-folded.
#   clock: the current time;  chance: a random number;  context: the ads and expressions around
#   the call (it evaluates or prints them);  host: the machine's users, files or local time zone
#   (formatTime prints local time: a CI runner's zone is not the pool's).
# A function in NOW_WITHOUT_ARGUMENTS reads the clock only when called with fewer arguments
# than that (absTime() is now; absTime("2024-01-31") is a constant).
DEPENDS_ON: dict[str, str] = {
    "time": "clock", "currenttime": "clock", "daytime": "clock", "timezoneoffset": "clock",
    "random": "chance",
    "eval": "context", "unparse": "context", "unresolved": "context", "evalineachcontext": "context",
    "countmatches": "context", "debug": "context",
    "userhome": "host", "usermap": "host", "formattime": "host",
}
NOW_WITHOUT_ARGUMENTS: dict[str, int] = {"abstime": 1}

# The argument that is a regular expression (0-based), for the functions that take one.
REGEX_ARGUMENT: dict[str, int] = {
    "regexp": 0, "regexps": 0, "replace": 0, "replaceall": 0, "regexpmember": 0, "stringlist_regexpmember": 0,
}


def is_constant_call(name: str, argument_count: int) -> bool:
    """True when a call of ``name`` with constant arguments always gives the same value (so it
    may be folded): False for calls that read the clock, chance, the surrounding ads or the host.
    An unknown name is constant: the call is always ERROR."""
    lowered = name.lower()
    if lowered in DEPENDS_ON:
        return False
    return argument_count >= NOW_WITHOUT_ARGUMENTS.get(lowered, 0)


def const_fn(value):
    """The compiled form of a constant: ``fn(cur, st)`` returning ``value`` (see :func:`const_value`)."""
    def const(cur, st):
        return value
    return const


CONST_CODE = const_fn(None).__code__  # every constant's code: what tells one (see const_value)


def const_value(fn):
    """``(True, value)`` if ``fn`` was made by :func:`const_fn`, else ``(False, None)``.

    Told by the code object every constant shares: no attribute is set on each function
    (a function's attribute dict costs more than the function).
    """
    if fn.__code__ is CONST_CODE:
        return True, fn.__closure__[0].cell_contents
    return False, None


LIST_ITEM_BYTES = 128  # memory one element of a list a function makes costs (its node and value)


def _pay_value(value, budget) -> None:
    """Charge the bytes of a value a function made: strings by length, lists by element."""
    t = type(value)
    if t is str:
        budget.bytes -= len(value)
        if budget.bytes < 0:
            budget.charge_bytes(0)  # raises, naming the limit
    elif t is ClassAdList:
        budget.charge_bytes(len(value) * LIST_ITEM_BYTES)


def _pay_args(args, budget) -> None:
    """Charge the work of reading long string arguments (functions scan them at C speed)."""
    size = 0
    for a in args:
        if type(a) is str:
            size += len(a)
    pay_for_length(size, budget)


def compile_call(node, d, compile_fn, fold):
    """Compile a call node; returns ``(fn, maxd)``.

    Every call pays from the command's budget (:mod:`condorcfg.classad.budget`): work
    for long string arguments, bytes for the string or list it returns.  Lazy functions
    (``ifThenElse``, ``eval`` ...) return values made elsewhere, and pay inside.
    A call whose value depends only on its arguments (:func:`is_constant_call`) is handed
    to ``fold(fn, *argument_fns)``, which evaluates it once when every argument is a constant.
    """
    name = node.name.lower()
    nodes = node.args
    fns = []
    maxd = 0
    constant = True
    for a in nodes:
        f, m = compile_fn(a, d)
        fns.append(f)
        if m > maxd:
            maxd = m
        if constant and f.__code__ is not CONST_CODE:
            constant = False
    spec = FUNCTIONS.get(name)
    if spec is None:
        return const_fn(ERROR), maxd
    lo, hi, impl, kind = spec
    n = len(fns)
    if n < lo or (hi is not None and n > hi):
        return const_fn(ERROR), maxd
    fn = _call_closure(impl, kind, fns, nodes, d)
    # (not regex functions: a match's time is the command's, never a compile-time allowance)
    if constant and n and name not in REGEX_ARGUMENT and is_constant_call(name, n):
        fn = fold(fn, *fns)
    return fn, maxd


def _call_closure(impl, kind, fns, nodes, d):
    """``fn(cur, st)`` calling ``impl`` on the values of the argument closures ``fns``."""
    n = len(fns)
    # (absTime("literal") / relTime("literal") are folded by the parser, as HTCondor's does; a string
    # that reaches the call otherwise - built by constant folding, say - is a run-time string)
    if kind == "l":
        if impl is _if_then_else and n == 3:
            f0, f1, f2 = fns

            def if_then_else(cur, st):  # a boolean condition without the Call object
                c = f0(cur, st)
                if c is True:
                    return f1(cur, st)
                if c is False:
                    return f2(cur, st)
                return impl(Call((const_fn(c), f1, f2), nodes, cur, st, d))
            return if_then_else

        def lazy(cur, st):
            return impl(Call(fns, nodes, cur, st, d))
        return lazy
    long_ = LONG_STRING
    if kind == "s":
        if n == 0:
            def call0s(cur, st):
                r = impl(st)
                if type(r) is str or type(r) is ClassAdList:
                    _pay_value(r, st.budget)
                return r
            return call0s
        if n == 1:
            f0 = fns[0]

            def call1s(cur, st):
                a = f0(cur, st)
                if type(a) is str and len(a) > long_:
                    pay_for_length(len(a), st.budget)
                r = impl(st, a)
                if type(r) is str or type(r) is ClassAdList:
                    _pay_value(r, st.budget)
                return r
            return call1s

        if n == 2:
            f0, f1 = fns

            def call2s(cur, st):
                a = f0(cur, st)
                b = f1(cur, st)
                if (type(a) is str and len(a) > long_) or (type(b) is str and len(b) > long_):
                    _pay_args((a, b), st.budget)
                r = impl(st, a, b)
                if type(r) is str or type(r) is ClassAdList:
                    _pay_value(r, st.budget)
                return r
            return call2s

        def calls(cur, st):
            args = [f(cur, st) for f in fns]
            _pay_args(args, st.budget)
            r = impl(st, *args)
            if type(r) is str or type(r) is ClassAdList:
                _pay_value(r, st.budget)
            return r
        return calls
    if n == 1:
        f0 = fns[0]

        def call1(cur, st):
            a = f0(cur, st)
            if type(a) is str and len(a) > long_:
                pay_for_length(len(a), st.budget)
            r = impl(a)
            if type(r) is str or type(r) is ClassAdList:
                _pay_value(r, st.budget)
            return r
        return call1
    if n == 2:
        f0, f1 = fns

        def call2(cur, st):
            a = f0(cur, st)
            b = f1(cur, st)
            if (type(a) is str and len(a) > long_) or (type(b) is str and len(b) > long_):
                _pay_args((a, b), st.budget)
            r = impl(a, b)
            if type(r) is str or type(r) is ClassAdList:
                _pay_value(r, st.budget)
            return r
        return call2

    if n == 3:
        f0, f1, f2 = fns

        def call3(cur, st):
            a = f0(cur, st)
            b = f1(cur, st)
            c = f2(cur, st)
            if (type(a) is str and len(a) > long_) or (type(b) is str and len(b) > long_) \
                    or (type(c) is str and len(c) > long_):
                _pay_args((a, b, c), st.budget)
            r = impl(a, b, c)
            if type(r) is str or type(r) is ClassAdList:
                _pay_value(r, st.budget)
            return r
        return call3

    def calln(cur, st):
        args = [f(cur, st) for f in fns]
        _pay_args(args, st.budget)
        r = impl(*args)
        if type(r) is str or type(r) is ClassAdList:
            _pay_value(r, st.budget)
        return r
    return calln
