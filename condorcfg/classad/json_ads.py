"""Read ClassAds written as JSON, as ``condor_status -json`` (and ``condorcfg ads --format json``) prints them.

The input is one JSON object (one ad) or a list of objects.  Values map to ClassAd values:
numbers, strings and booleans to literals, ``null`` to ``undefined``, arrays to lists and
objects to nested ads.  An expression is written as the string ``"\\/Expr(TEXT)\\/"``; JSON
decodes ``\\/`` to ``/``, so any string of the form ``/Expr(TEXT)/`` is read as the expression
TEXT (new ClassAd syntax, as the writer prints it).  That also accepts the form tools such as
``jq`` write back, which no longer escape the slash.  This is the inverse of
:func:`condorcfg.slots.output.format_json`.
"""
from __future__ import annotations

import json
import re

from condorcfg.classad import ast
from condorcfg.classad.values import UNDEFINED, ClassAd

_EXPRESSION = re.compile(r"/Expr\((.*)\)/", re.DOTALL)
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class JsonAdError(ValueError):
    """JSON that is not a list of ads; ``line`` is 0 when the problem is not at one place of the text."""

    def __init__(self, message: str, line: int = 0, column: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def looks_like_json(text: str) -> bool:
    """True for a JSON object or a list of objects; ``[ a = 1 ]`` (a new-syntax ad) is not JSON."""
    stripped = text.lstrip()
    return stripped.startswith("{") or re.match(r"\[\s*\{", stripped) is not None


def parse_json_ads(text: str) -> list[ClassAd]:
    """Every ad in ``text`` (one JSON object, or a list of them), in order."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonAdError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno)
    except (ValueError, RecursionError) as exc:  # an integer of 4300+ digits; nesting too deep
        reason = str(exc).split("; use sys.set_int_max_str_digits")[0]  # (that advice is for Python code)
        raise JsonAdError(f"not usable JSON: {reason or 'nested too deeply'}")
    items = data if isinstance(data, list) else [data]
    ads = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise JsonAdError(f"ad {index + 1} is a JSON {type(item).__name__}, not an object of attributes")
        ads.append(ClassAd([(name, _node(value, name)) for name, value in item.items()]))
    return ads


def _node(value, name: str) -> ast.Node:
    """The expression tree of one JSON value of attribute ``name``."""
    if value is None:
        return ast.Literal(UNDEFINED)
    if isinstance(value, str):
        match = _EXPRESSION.fullmatch(value)
        return _expression(match.group(1), name) if match else ast.Literal(value)
    if isinstance(value, bool):
        return ast.Literal(value)
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise JsonAdError(f"attribute {name}: {value} does not fit a ClassAd (64-bit) integer")
        return ast.Literal(value)
    if isinstance(value, float):
        return ast.Literal(value)
    if isinstance(value, list):
        return ast.ListExpr([_node(item, name) for item in value])
    return ast.RecordExpr([(key, _node(item, f"{name}.{key}")) for key, item in value.items()])


def _expression(text: str, name: str) -> ast.Node:
    from condorcfg.classad.parser import ClassAdSyntaxError, parse

    try:
        return parse(text, "new")
    except ClassAdSyntaxError as exc:
        raise JsonAdError(f"attribute {name}: the expression {text!r} does not parse: {exc.message}")
