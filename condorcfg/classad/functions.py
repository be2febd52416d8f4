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

Regular expressions use Python's ``re`` after translating the PCRE2 syntax
that differs.  Backtracking can explode on hostile patterns, so a match
whose worst case (estimated from the pattern's unbounded quantifiers and the
subject length) could be slow runs in a separate Python process with a time
limit (``REGEX_TIMEOUT``); a timeout gives ERROR, like PCRE2's match limit.
"""
from __future__ import annotations

import calendar
import math
import random as _random_module
import re
import time as _time

from condorcfg.classad import ast
from condorcfg.classad.evaluator import (
    INT_MAX, INT_MIN, EvalFailure, arith, compare, identical, list_item, wrap,
)
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, ClassAdList, RelTime

MAX_STRING = 16 * 1024 * 1024  # longer results become ERROR (bounds memory on hostile input)
REGEX_TIMEOUT = 2.0
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


def format_reltime(seconds) -> str:
    """``[-][D+]HH:MM:SS`` with leading zero fields dropped.

    HTCondor prints through a 32-bit int: fractions are cut, and out-of-range
    values print the (odd) digits INT_MIN gives, e.g. ``--24855+-3:-14:-8``.
    """
    if isinstance(seconds, float):
        secs = -(1 << 31) if seconds != seconds or not -2147483649.0 < seconds < 2147483648.0 else int(seconds)
    else:
        secs = ((int(seconds) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    sign = ""
    if secs < 0:
        sign, secs = "-", ((-secs + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    days, rest = _c_div(secs, 86400), _c_rem(secs, 86400)
    hours, rest = _c_div(rest, 3600), _c_rem(rest, 3600)
    minutes, secs = _c_div(rest, 60), _c_rem(rest, 60)
    out = sign
    if days:
        out += "%d+" % days
    if days or hours:
        out += "%02d:" % hours
    if days or hours or minutes:
        out += "%02d:" % minutes
    return out + "%02d" % secs


def format_abstime(value: AbsTime) -> str:
    offset = int(value.offset)
    try:
        tm = _time.gmtime(int(value.seconds) + offset)
    except (OverflowError, OSError, ValueError):
        return "error"
    sign = "+" if offset > 0 else "-"
    off = abs(offset)
    return "%04d-%02d-%02dT%02d:%02d:%02d%s%02d:%02d" % (
        tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, sign, off // 3600, off % 3600 // 60)


def _unparse(value) -> str:
    from condorcfg.classad.printer import unparse

    return unparse(value)


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
        digits = low[2:]
        mant, _, exp = digits.partition("p")
        whole, _, frac = mant.partition(".")
        value = float(int(whole or "0", 16)) + (int(frac, 16) / 16 ** len(frac) if frac else 0.0)
        if exp:
            try:
                value = math.ldexp(value, int(exp))
            except OverflowError:
                value = math.inf
        return -value if neg else value
    if low.startswith("inf"):
        return -math.inf if neg else math.inf
    if low.startswith("nan"):
        return math.nan
    try:
        return float(token)
    except ValueError:  # pragma: no cover - the pattern only admits valid floats
        return None


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
        return real_to_int(float(v.seconds)) if isinstance(v.seconds, float) else int(v.seconds)
    return ERROR


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
        return float(int(v.seconds)) if t is AbsTime else float(v.seconds)
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
        return int(v.seconds) != 0
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
    from condorcfg.classad.evaluator import compiled_text

    text = to_string(call.arg(0))
    if not isinstance(text, str):
        return ERROR  # undefined or error argument
    st = call.st
    if st.depth - call.depth <= 0:
        raise EvalFailure("eval() nested too deeply")
    try:
        fn, maxd = compiled_text(text, native=True)
    except Exception:  # does not parse
        return ERROR
    budget = st.depth
    st.depth = budget - call.depth - 1
    if maxd > st.depth:
        raise EvalFailure("expression nesting exceeds HTCondor's depth limit")
    value = fn(call.cur, st)
    st.depth = budget
    return value


def _unparse_fn(call):
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


def _external_refs(node, ad, seen, out, depth=0):
    """Names an expression needs from outside ``ad`` (unresolved()), following internal references."""
    if depth > 200:
        return
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
                if isinstance(expr, str):
                    from condorcfg.classad.evaluator import _parse

                    try:
                        expr = _parse(expr)
                    except Exception:
                        return
                _external_refs(expr, ad, seen, out, depth + 1)
        return
    for child in ast.children(node):
        _external_refs(child, ad, seen, out, depth + 1)



def _unresolved(call):
    node = call.nodes[0]
    cur = call.cur
    if not isinstance(node, ast.AttrRef) or node.scope not in (None, "MY") or cur is None:
        return ERROR
    entry = cur._data.get(node.name.lower())
    if entry is None:
        return UNDEFINED
    out: list = []
    _external_refs(ast.AttrRef(node.name), cur, set(), out)
    names = []
    seen = set()
    for name in out:
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    if len(call.nodes) == 1:
        return ",".join(names)
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
    from condorcfg.classad.evaluator import _State, compiled, definition

    st = call.st
    expr = call.nodes[0]
    if isinstance(expr, (ast.AttrRef, ast.Select)):
        found = definition(expr, call.cur, st)
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
    fn, maxd = compiled(expr)
    out = []
    for item_node, scope in elements:
        item_fn, _ = compiled(item_node)
        nested = item_fn(scope, st)
        if not isinstance(nested, ClassAd):
            out.append(UNDEFINED if nested is UNDEFINED else ERROR)
            continue
        # a fresh evaluation state rooted at the nested ad; in a match the nested ad looks
        # up missing names in the other side, like the ad it sits in
        inner = _State(st.now)
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
        try:
            out.append(fn(nested, inner))
        except EvalFailure:
            out.append(ERROR)
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
        r = to_real(v)
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
            base = list_item(b, i, st)
            rbase = to_real(base)
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
        return float(math.ceil(ra / b)) * b
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
    for v in args:
        s = to_string(v)
        if s is UNDEFINED or s is ERROR:
            return s
        out.append(s)
    return _checked("".join(out))


def _join(st, *args):
    items = list(args)
    if 0 < len(items) <= 2 and isinstance(items[-1], ClassAdList):
        lst = items.pop()
        sep = items[0] if items else ""
        items = [sep] + [list_item(lst, i, st) for i in range(len(lst))]
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
    return _checked((sep or "").join(parts))


def _change_case(upper):
    def change(v):
        s = to_string(v)
        if not isinstance(s, str):
            return s
        if s.isascii():
            return s.upper() if upper else s.lower()
        return "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in s)
    return change


def _size(v):
    if v is UNDEFINED:
        return UNDEFINED
    if isinstance(v, str):
        return len(v.encode("utf-8", "surrogateescape"))
    if isinstance(v, (ClassAdList, ClassAd)):
        return len(v)
    return ERROR


def _substr(s, off, length=None):
    if s is UNDEFINED or off is UNDEFINED or length is UNDEFINED:
        return UNDEFINED
    if type(s) is not str or type(off) is not int or (length is not None and type(length) is not int):
        return ERROR
    n = len(s)
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
    return s[off:off + ln]


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
    """strverscmp-like comparison, returning HTCondor's raw difference (C chars are signed)."""
    s1 = [c - 256 if c > 127 else c for c in s1]
    s2 = [c - 256 if c > 127 else c for c in s2]
    n1, n2 = len(s1), len(s2)
    i = 0
    while i < n1 and i < n2 and s1[i] == s2[i]:
        i += 1
    c1 = s1[i] if i < n1 else 0
    c2 = s2[i] if i < n2 else 0
    if c1 == c2:
        return 0

    def isdigit(c):
        return 48 <= c <= 57

    def at(s, j):
        return s[j] if j < len(s) else 0

    nb = i
    while nb > 0 and isdigit(s1[nb - 1]):
        nb -= 1
    if nb == i and (not isdigit(c1) or not isdigit(c2)):
        return c1 - c2
    z1 = nb
    while at(s1, z1) == 48:
        z1 += 1
    z2 = nb
    while at(s2, z2) == 48:
        z2 += 1
    if z1 > nb and not isdigit(at(s1, z1)):
        z1 -= 1
    if z2 > nb and not isdigit(at(s2, z2)):
        z2 -= 1
    if z1 - nb != z2 - nb:
        return (z2 - nb) - (z1 - nb)
    if z1 > nb:
        return c1 - c2
    e1 = z1
    while isdigit(at(s1, e1)):
        e1 += 1
    e2 = z2
    while isdigit(at(s2, e2)):
        e2 += 1
    if e1 - nb != e2 - nb:
        return (e1 - nb) - (e2 - nb)
    return c1 - c2


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
        for ix, c in enumerate(s):
            if c not in seps:
                continue
            if ix > last:
                out.append(s[last:ix])
            elif prev_sep is not None and prev_sep == c:
                out.append("")  # "a,,b": a run of one separator keeps the empty item
            if not c.isspace():
                prev_sep = c
            last = ix + 1
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


_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": r"\w", "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e",
}

_regex_cache: dict = {}


def _compile_regex(pattern: str, opts: str):
    key = (pattern, opts)
    hit = _regex_cache.get(key)
    if hit is None:
        flags = 0
        if "i" in opts:
            flags |= re.IGNORECASE
        if "m" in opts:
            flags |= re.MULTILINE
        if "s" in opts:
            flags |= re.DOTALL
        if "x" in opts:
            flags |= re.VERBOSE
        try:
            hit = re.compile(_translate_pcre(pattern), flags)
        except (re.error, RecursionError, OverflowError, ValueError):
            hit = ERROR
        if len(_regex_cache) > 2000:
            _regex_cache.clear()
        _regex_cache[key] = hit
    return hit


_QUANT = re.compile(r"(?<!\\)(?:[*+]|\{\d*,\})")


def _risky(pattern: str, subject_len: int) -> bool:
    """Could backtracking on this subject take long?  (nested/multiple unbounded quantifiers)"""
    if subject_len <= 16:
        return False
    quantifiers = len(_QUANT.findall(pattern))
    # a repeated group holding another repetition or an alternation: (a+)+ (a|aa)+ backtrack exponentially
    nested = re.search(r"\)(?:[*+]|\{\d*,\d*\})", pattern) is not None and (quantifiers > 1 or "|" in pattern)
    backref = re.search(r"\\[1-9]", pattern) is not None
    if nested or backref:
        return True
    if quantifiers == 0:
        return False
    # search tries every start position: roughly n ** (quantifiers + 1) steps in the worst case
    return subject_len ** (quantifiers + 1) > 1e9


def _regex_op(pattern: str, target: str, opts: str, replace):
    """HTCondor's regexp_helper: a bool (no replacement) or the substituted string; ERROR on failure."""
    rx = _compile_regex(pattern, opts)
    if rx is ERROR:
        return ERROR
    if replace is None:
        return rx.search(target) is not None
    full = "f" in opts
    find_all = "g" in opts
    out = []
    idx = 0
    n = len(target)
    matched_any = False
    total = 0  # length so far, kept incrementally (summing each time would be quadratic)
    while True:
        m = rx.search(target, idx)
        if m is None:
            break
        matched_any = True
        if full:
            out.append(target[idx:m.start()])
        groups = [m.group(0)] + [g for g in m.groups()]
        ngroups = _used_groups(m)
        r = _expand(replace, groups, ngroups)
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
    last = 0
    for i in range(len(m.groups()), 0, -1):
        if m.start(i) >= 0:
            last = i
            break
    return last + 1


def _expand(replace: str, groups, ngroups):
    out = []
    i, n = 0, len(replace)
    while i < n:
        c = replace[i]
        if c == "\\" and i + 1 < n and replace[i + 1].isdigit() and replace[i + 1].isascii():
            k = ord(replace[i + 1]) - 48
            if k >= ngroups:
                return ERROR
            out.append(groups[k] or "")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_WORKER = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from condorcfg.classad import functions
args = json.loads(sys.stdin.read())
r = functions._regex_op(*args)
print(json.dumps(["error"] if r is functions.ERROR else ["ok", r]))
'''
_isolated_cache: dict = {}


def _regex_isolated(pattern, target, opts, replace):
    """Run a possibly-explosive match in a child process with a time limit."""
    import json
    import os
    import subprocess
    import sys

    key = (pattern, target, opts, replace)
    if key in _isolated_cache:
        return _isolated_cache[key]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        proc = subprocess.run([sys.executable, "-S", "-c", _WORKER, root], input=json.dumps([pattern, target, opts,
                              replace]), capture_output=True, text=True, timeout=REGEX_TIMEOUT)
        out = json.loads(proc.stdout) if proc.returncode == 0 else ["error"]
        result = ERROR if out[0] == "error" else out[1]
    except (subprocess.TimeoutExpired, OSError, ValueError):
        result = ERROR
    if len(_isolated_cache) > 500:
        _isolated_cache.clear()
    _isolated_cache[key] = result
    return result


def regex_run(pattern: str, target: str, opts: str, replace=None):
    if len(target) > MAX_STRING or len(pattern) > 65536:
        return ERROR
    if _risky(pattern, len(target)):
        return _regex_isolated(pattern, target, opts, replace)
    return _regex_op(pattern, target, opts, replace)


def regex_match(pattern: str, target: str, opts: str = ""):
    return regex_run(pattern, target, opts, None)


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
    for i in range(len(lst)):
        item = list_item(lst, i, st)
        if type(item) is not str:
            if item is UNDEFINED:
                maybe_undefined = True
                continue
            return ERROR
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
        for i in range(len(lst)):
            item = list_item(lst, i, st)
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
            item = list_item(lst, i, st)
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
        item = list_item(lst, i, st)
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


def _tokens(s: str, delims: str) -> list:
    out = []
    item = []
    for c in s:
        if c in delims:
            token = "".join(item).strip(" \t\r\n")
            if token:
                out.append(token)
            item = []
        else:
            item.append(c)
    token = "".join(item).strip(" \t\r\n")
    if token:
        out.append(token)
    return out


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
    return len(_tokens(s, delims))


def _sl_numbers(s, d):
    delims = _delims(d, _LIST_DELIMS)
    if type(s) is not str or delims is ERROR:
        return ERROR, False
    items = _tokens(s, delims)
    values = []
    all_int = True
    for item in items:
        v = strtod_prefix(item)
        if v is None:
            return ERROR, False
        values.append(v)
        if any(c not in "+-0123456789" for c in item):
            all_int = False
    return values, all_int


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
        delims = _delims(d, _MEMBER_DELIMS)
        if type(x) is not str or type(s) is not str or delims is ERROR:
            return ERROR
        items = _tokens(s, delims)
        if fold:
            x = _fold(x)
            return any(_fold(i) == x for i in items)
        return x in items
    return member


def _fold(s: str) -> str:
    return s.lower() if s.isascii() else "".join(c.lower() if c.isascii() else c for c in s)


def _sl_subset(fold):
    def subset(a, b, d=None):
        if a is ERROR or b is ERROR:
            return ERROR
        delims = _delims(d, _MEMBER_DELIMS)
        if delims is ERROR or (a is not UNDEFINED and type(a) is not str) \
                or (b is not UNDEFINED and type(b) is not str):
            return ERROR
        if a is UNDEFINED:
            return UNDEFINED if b is UNDEFINED else True
        items = _tokens(a, delims)
        if not items:
            return True
        if b is UNDEFINED:
            return False
        if type(b) is not str:
            return ERROR
        pool = _tokens(b, delims)
        if fold:
            pool_set = {_fold(i) for i in pool}
            return all(_fold(i) in pool_set for i in items)
        pool_set = set(pool)
        return all(i in pool_set for i in items)
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
    pool = set(_c_tokens(b, delims))
    return any(i in pool for i in _c_tokens(a, delims))


def _c_tokens(s: str, delims: str) -> list:
    """split_string_list from the C++: tokens between delimiter characters, no trimming."""
    return [t for t in re.split("[" + re.escape(delims) + "]", s) if t]


def _sl_regexp_member(pattern, s, d=None, opts=None):
    if type(pattern) is not str or type(s) is not str:
        return ERROR
    delims = _delims(d, _MEMBER_DELIMS)
    if delims is ERROR or (opts is not None and type(opts) is not str):
        return ERROR
    items = _tokens(s, delims)
    if not items:
        return UNDEFINED
    for item in items:
        r = regex_run(pattern, item, (opts or "").lower(), None)
        if r is ERROR:
            return ERROR
        if r:
            return True
    return False


# ---------------------------------------------------------------------------
# Time

def _local_offset(seconds) -> int:
    """The local zone's UTC offset at that instant (0 under TZ=UTC)."""
    try:
        lt = _time.localtime(int(seconds))
        return int(lt.tm_gmtoff)
    except (OverflowError, OSError, ValueError):
        return 0


def _time_fn(st):
    return int(st.clock())


def _current_time(st):
    now = int(st.clock())
    return AbsTime(now, _local_offset(now))


def _tz_offset(st):
    return RelTime(_local_offset(int(st.clock())))


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
            secs = int(v.seconds)
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
                secs = int(v.seconds)
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
            return _split_abstime(secs, _local_offset(secs))
        if t is float:
            secs = -(1 << 31) if v != v or not -2147483649.0 < v < 2147483648.0 else int(v)
            return _split_abstime(secs, _local_offset(secs))
        if t is AbsTime:
            return _split_abstime(v.seconds, v.offset)
        if t is RelTime:
            return _split_reltime(float(v.seconds))
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
        wday = (calendar.weekday(year, month, day) + 1) % 7 if 1 <= month <= 12 and day >= 1 else 0
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


_ISO = re.compile(r"\s*(\d{4})-?(\d{2})-?(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2}))?)?\s*"
                  r"(Z|[+-]\d{2}(?::?\d{2})?)?\s*$", re.IGNORECASE)


def parse_abstime(text: str):
    """absTime("...") of a literal string: an AbsTime, or None if HTCondor cannot read it."""
    m = _ISO.match(text)
    if not m:
        return None
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    hour, minute, sec = int(m.group(4) or 0), int(m.group(5) or 0), int(m.group(6) or 0)
    zone = m.group(7)
    try:
        base = calendar.timegm((year, month, day, hour, minute, sec, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if zone is None:
        offset = _local_offset(base)
    elif zone.upper() == "Z":
        offset = 0
    else:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 3600 + (int(digits[2:4]) * 60 if len(digits) > 2 else 0))
    return AbsTime(base - offset, offset)


_REL = re.compile(r"\s*(-)?\s*(?:(\d+)\s*\+\s*)?(\d+)(?:\s*:\s*(\d+))?(?:\s*:\s*(\d+(?:\.\d*)?))?\s*$")
_REL_UNITS = re.compile(r"\s*(-)?\s*((?:\d+(?:\.\d*)?\s*[dhms]\s*)+)$", re.IGNORECASE)


def parse_reltime(text: str):
    """relTime("...") of a literal string: seconds, or None."""
    m = _REL.match(text)
    if m:
        neg, days, a, b, c = m.groups()
        parts = [p for p in (a, b, c) if p is not None]
        while len(parts) < 3:
            parts.insert(0, "0")
        total = int(days or 0) * 86400 + int(parts[0]) * 3600 + int(parts[1]) * 60 + float(parts[2])
        return -total if neg else total
    m = _REL_UNITS.match(text)
    if m:
        total = 0.0
        for number, unit in re.findall(r"(\d+(?:\.\d*)?)\s*([dhms])", m.group(2), re.IGNORECASE):
            total += float(number) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[unit.lower()]
        return -total if m.group(1) else total
    return None


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
            offset = int(o.seconds)
        else:
            return ERROR
    t = type(v)
    if v is UNDEFINED:
        return UNDEFINED
    if t is int:
        secs = ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)  # the C++ reads it into an int
        return AbsTime(secs, _local_offset(secs) if offset is None else offset)
    if t is float:
        secs = real_to_int(v)
        return AbsTime(secs, _local_offset(secs) if offset is None else offset)
    if t is str:
        return v  # only literal strings are converted (at parse time); others come back unchanged
    if t is AbsTime:
        return v
    if t is RelTime:
        secs = int(v.seconds)
        return AbsTime(secs, _local_offset(secs) if offset is None else offset)
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
    """HTCondor's V2 quoting: each blank (and each single quote) goes in its own quotes."""
    if text == "":
        return "''"
    out = []
    for c in text:
        if c == "'":
            out.append("'''" + "'")
        elif c in " \t\n\r":
            out.append("'" + c + "'")
        else:
            out.append(c)
    return "".join(out)


def _parse_v2(s: str):
    """Split V2 text (blank separated, single quotes group, '' is a quote); None if a quote is open."""
    items = []
    i, n = 0, len(s)
    while i < n:
        while i < n and s[i] in " \t\n\r":
            i += 1
        if i >= n:
            break
        item = []
        while i < n and s[i] not in " \t\n\r":
            if s[i] == "'":
                i += 1
                while True:
                    if i >= n:
                        return None  # unterminated quote
                    if s[i] == "'":
                        if i + 1 < n and s[i + 1] == "'":
                            item.append("'")
                            i += 2
                            continue
                        i += 1
                        break
                    item.append(s[i])
                    i += 1
                continue
            item.append(s[i])
            i += 1
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
    if not _env_entries([e for e in s.split(";") if e], merged):
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
        return _lit_list(s.split())
    items = _parse_v2(s)
    return ERROR if items is None else _lit_list(items)


def _list_to_args(st, lst, version=None):
    if version is not None and (type(version) is not int or version not in (1, 2)):
        return ERROR
    if not isinstance(lst, ClassAdList):
        return ERROR
    out = []
    for i in range(len(lst)):
        item = list_item(lst, i, st)
        if type(item) is not str:
            return ERROR
        if version == 1:
            if any(c in item for c in " \t\n\r"):
                return ERROR
            out.append(item)
        else:
            out.append(_v2_quote(item))
    return _checked(" ".join(out))


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


def _const_fn(value):
    def const(cur, st):
        return value
    return const


def compile_call(node, d, compile_fn):
    """Compile a call node; returns ``(fn, maxd)``."""
    name = node.name.lower()
    spec = FUNCTIONS.get(name)
    nodes = list(node.args)
    n = len(nodes)
    compiled_args = [compile_fn(a, d) for a in nodes]
    maxd = max([m for _, m in compiled_args], default=0)
    fns = [f for f, _ in compiled_args]
    if spec is None:
        return _const_fn(ERROR), maxd
    lo, hi, impl, kind = spec
    if n < lo or (hi is not None and n > hi):
        return _const_fn(ERROR), maxd
    # absTime("literal") / relTime("literal") are folded when HTCondor parses the expression
    if name in ("abstime", "reltime") and n == 1 and isinstance(nodes[0], ast.Literal) \
            and type(nodes[0].value) is str:
        folded = parse_abstime(nodes[0].value) if name == "abstime" else parse_reltime(nodes[0].value)
        return _const_fn(ERROR if folded is None else folded), maxd
    if kind == "l":
        def lazy(cur, st):
            return impl(Call(fns, nodes, cur, st, d))
        return lazy, maxd
    if kind == "s":
        if n == 0:
            def call0s(cur, st):
                return impl(st)
            return call0s, maxd
        if n == 1:
            f0 = fns[0]

            def call1s(cur, st):
                return impl(st, f0(cur, st))
            return call1s, maxd

        def calls(cur, st):
            return impl(st, *[f(cur, st) for f in fns])
        return calls, maxd
    if n == 1:
        f0 = fns[0]

        def call1(cur, st):
            return impl(f0(cur, st))
        return call1, maxd
    if n == 2:
        f0, f1 = fns

        def call2(cur, st):
            return impl(f0(cur, st), f1(cur, st))
        return call2, maxd

    def calln(cur, st):
        return impl(*[f(cur, st) for f in fns])
    return calln, maxd
