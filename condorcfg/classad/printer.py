"""Print ClassAd expressions and values exactly as HTCondor 25.x prints them.

Expressions: single spaces around binary operators (``=?=`` prints as ``is``,
``=!=`` as ``isnt``), a unary operator prints as a blank, the operator and its
operand (``- -1`` prints `` - -1``), calls as ``f(a,b)``, parentheses only
where they were written, ``?:`` as `` ?: ``.

Values (shared/spec/classad.md §11): reals as ``%.15E`` (``0.0``/``-0.0`` for
zeros, ``real("INF")``...), strings with C escapes and octal escapes for other
control and non-ASCII bytes, lists as ``{ a,b }``, ads as ``[ a = 1; b = 2 ]``
(attributes ordered by name length, then name, as HTCondor does), times as
``absTime("...")`` / ``relTime("...")``.

``parse(unparse(e)) == e`` holds for every tree the parser builds (positions
aside), except that HTCondor does not re-quote odd names after a dot
(``a.'b c'`` prints as ``a.b c``).
"""
from __future__ import annotations

import math
import re
import sys
import time

from condorcfg.classad import ast
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, RelTime

# Trees may be MAX_DEPTH (parser.py) levels deep and every stage walks them
# recursively: make sure Python's recursion limit leaves room for that.
if sys.getrecursionlimit() < 6000:
    sys.setrecursionlimit(6000)

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# names that cannot be written bare: keywords, and 'parent', which HTCondor always quotes
_RESERVED = frozenset({"true", "false", "undefined", "error", "is", "isnt", "parent"})

_ESCAPES = {0x5C: "\\\\", 0x22: '\\"', 0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r", 0x08: "\\b",
            0x0C: "\\f", 0x07: "\\a", 0x0B: "\\v"}
_SIMPLE_TEXT = re.compile(r'[ !#-\[\]-~]*\Z')  # printable ASCII except \ and "


def format_string(text: str, quote: str = '"') -> str:
    """A string literal: C escapes, octal escapes for other control and non-ASCII bytes."""
    if _SIMPLE_TEXT.match(text) and quote not in text:
        return quote + text + quote
    out = [quote]
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that stands for no undecodable byte
        data = text.encode("utf-8", "surrogatepass")
    for byte in data:
        if byte in _ESCAPES and (byte != 0x22 or quote == '"'):
            out.append(_ESCAPES[byte])
        elif byte == ord(quote):
            out.append("\\" + quote)
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    out.append(quote)
    return "".join(out)


def format_name(name: str) -> str:
    """An attribute name, quoted ('odd name') when it is not a plain identifier or is reserved."""
    if _PLAIN_NAME.match(name) and name.lower() not in _RESERVED:
        return name
    return format_string(name, "'")


def format_real(value: float) -> str:
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    return "%.15E" % value


def _c_int(value: float) -> int:
    """C's (int) cast of a double on x86-64: truncation; out of range gives INT_MIN."""
    if value != value or not -2147483649.0 < value < 2147483648.0:
        return -2147483648
    return int(value)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


def format_reltime(seconds) -> str:
    """The text inside relTime("..."): ``[-][D+]HH:MM:SS`` with leading zero fields dropped.

    HTCondor prints through a 32-bit int: a fraction is cut toward zero (``relTime(1.5)`` prints
    ``"01"``, ``relTime(-0.5)`` ``"00"``), an integer keeps its low 32 bits, and infinity or NaN
    print as INT_MIN does (``--24855+-3:-14:-8``), as HTCondor 25 does.
    """
    if isinstance(seconds, float):
        secs = -(1 << 31) if seconds != seconds or not -2147483649.0 < seconds < 2147483648.0 else int(seconds)
    else:
        secs = ((int(seconds) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    sign = ""
    if secs < 0:
        sign, secs = "-", ((-secs + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    days, rest = _c_div(secs, 86400), _c_mod(secs, 86400)
    hours, rest = _c_div(rest, 3600), _c_mod(rest, 3600)
    minutes, secs = _c_div(rest, 60), _c_mod(rest, 60)
    out = sign
    if days:
        out += "%d+" % days
    if days or hours:
        out += "%02d:" % hours
    if days or hours or minutes:
        out += "%02d:" % minutes
    return out + "%02d" % secs


def format_reltime_spelling(seconds: float) -> str:
    """How HTCondor spells a ``relTime("...")`` literal it folded at parse time: like
    :func:`format_reltime` but a fraction of a second is kept (``relTime("1:30.5")`` prints
    ``"01:30.5"``), where a relTime *value* prints it cut (``relTime(90.5)`` is ``"01:30"``).

    HTCondor prints through a C int: an integer keeps its low 32 bits, and infinity or NaN
    prints as INT_MIN does (``--24855+-3:-14:-8``), as HTCondor 25 does.
    """
    if isinstance(seconds, float) and not math.isfinite(seconds):
        seconds = -2147483648
    elif isinstance(seconds, int):
        seconds = ((seconds + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    sign = ""
    if seconds < 0:
        sign, seconds = "-", -seconds
    fraction = seconds - math.floor(seconds)
    days = _c_int(seconds)
    hours = _c_mod(days, 86400)
    minutes = _c_mod(hours, 3600)
    secs = _c_mod(minutes, 60) + fraction
    days, hours, minutes = _c_div(days, 86400), _c_div(hours, 3600), _c_div(minutes, 60)
    sec_text = f"{int(secs):02d}" if fraction == 0 else "%02g" % secs
    if days:
        body = f"{days}+{hours:02d}:{minutes:02d}:{sec_text}"
    elif hours:
        body = f"{hours:02d}:{minutes:02d}:{sec_text}"
    elif minutes:
        body = f"{minutes:02d}:{sec_text}"
    else:
        body = sec_text
    return sign + body


def format_abstime(value: AbsTime) -> str:
    """The text inside absTime("..."): local time at the offset, then ``+HH:MM`` / ``-HH:MM``."""
    offset = int(value.offset)
    try:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(value.seconds) + offset))
    except (OverflowError, OSError, ValueError):
        stamp = str(int(value.seconds))
    sign = "+" if offset > 0 else "-"
    offset = abs(offset)
    return f"{stamp}{sign}{offset // 3600:02d}:{(offset // 60) % 60:02d}"


def _ad_order(items):
    # HTCondor prints an ad's attributes by name length, then case-insensitively by name
    return sorted(items, key=lambda pair: (len(pair[0]), pair[0].lower()))


def unparse_value(value) -> str:
    """Print an evaluated value (or anything the evaluator may hand back)."""
    if isinstance(value, ast.Node):
        return unparse_expr(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_real(value)
    if isinstance(value, str):
        return format_string(value)
    if value is UNDEFINED:
        return "undefined"
    if value is ERROR:
        return "error"
    if isinstance(value, AbsTime):
        return f'absTime("{format_abstime(value)}")'
    if isinstance(value, RelTime):
        return f'relTime("{format_reltime(value.seconds)}")'
    if isinstance(value, (list, tuple)):
        return "{ " + ",".join(unparse_value(item) for item in value) + " }"
    if isinstance(value, ClassAd):
        return _record_text(value.items())
    raise TypeError(f"cannot print {type(value).__name__} as a ClassAd value")


def _record_text(pairs) -> str:
    body = "; ".join(f"{format_name(name)} = {unparse_value(expr)}" for name, expr in _ad_order(pairs))
    return "[ " + body + " ]"


def unparse_expr(node: ast.Node) -> str:
    """Print an expression tree the way HTCondor's unparser does."""
    kind = type(node)
    if kind is ast.Literal:
        return node.spelling if node.spelling is not None else unparse_value(node.value)
    if kind is ast.AttrRef:
        if node.scope is None:
            return format_name(node.name)
        if node.scope == "ROOT":
            return "." + node.name
        scope = node.scope_text or node.scope
        if node.scope == "PARENT":
            scope = format_name(scope)
        return f"{scope}.{node.name}"
    if kind is ast.BinaryOp:
        op = {"=?=": "is", "=!=": "isnt"}.get(node.op, node.op)
        return f"{unparse_expr(node.left)} {op} {unparse_expr(node.right)}"
    if kind is ast.UnaryOp:
        return f" {node.op}{unparse_expr(node.operand)}"
    if kind is ast.Select:
        return f"{unparse_expr(node.base)}.{node.name}"
    if kind is ast.Subscript:
        return f"{unparse_expr(node.base)}[{unparse_expr(node.index)}]"
    if kind is ast.Paren:
        return f"({unparse_expr(node.inner)})"
    if kind is ast.Call:
        return node.name + "(" + ",".join(unparse_expr(arg) for arg in node.args) + ")"
    if kind is ast.Conditional:
        return f"{unparse_expr(node.cond)} ? {unparse_expr(node.then)} : {unparse_expr(node.otherwise)}"
    if kind is ast.Elvis:
        return f"{unparse_expr(node.left)} ?: {unparse_expr(node.right)}"
    if kind is ast.ListExpr:
        return "{ " + ",".join(unparse_expr(item) for item in node.items) + " }"
    if kind is ast.RecordExpr:
        return _record_text(node.attrs)
    raise TypeError(f"not a ClassAd expression node: {type(node).__name__}")


def unparse(value_or_expr) -> str:
    """Canonical HTCondor text of an expression tree or of a value."""
    if isinstance(value_or_expr, ast.Node):
        return unparse_expr(value_or_expr)
    return unparse_value(value_or_expr)


def unparse_ad(ad, syntax: str = "new") -> str:
    """An ad as ``[ a = 1; b = 2 ]`` (new) or as ``Name = expr`` lines (old, like ``condor_status -l``)."""
    if syntax == "new":
        return _record_text(ad.items())
    if syntax == "old":
        return "".join(f"{name} = {unparse_value(expr)}\n" for name, expr in _ad_order(ad.items()))
    raise ValueError(f"syntax must be 'old' or 'new', not {syntax!r}")
