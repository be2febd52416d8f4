"""Print slot ads: ``long`` (condor_status -l), ``json`` (condor_status -json), ``new`` (``[ … ]``).

Attributes are sorted case-insensitively, as condor_status -l prints them, so
output is deterministic and diffable.  ``long`` output can be fed to
``condor_q -better-analyze -slotads FILE``.

Names and values may come from the configuration.  ``new`` and ``json`` escape every control
and non-ASCII character already (octal escapes, ``\\u00e9-style``); ``long`` prints a string holding
a backslash without escapes, as condor_status -l does, so there (and in attribute names) the
text is made :func:`~condorcfg.textsafe.printable`: a control character shows as ``\\x1b``
instead of acting on the terminal.  The caller defuses the whole output.
"""
from __future__ import annotations

import json

from condorcfg.classad import ERROR, UNDEFINED, unparse
from condorcfg.classad.ast import AttrRef, Literal, Node
from condorcfg.textsafe import printable


def _sorted_items(ad):
    return sorted(((name, ad[name]) for name in ad), key=lambda item: item[0].lower())


def _old_string(text: str) -> str:
    # old syntax (condor_status -l) escapes only the quote; backslashes print as they are.
    # Control characters would print raw too: they are shown as escapes instead.
    return '"' + printable(text).replace('"', '\\"') + '"'


def unparse_old(expr) -> str:
    """An expression in old ClassAd syntax, as condor_status -l prints it.

    The shared printer writes new syntax, where a backslash in a string is
    doubled; HTCondor reads old-syntax text without escapes, so such strings
    are swapped for placeholder names, printed, and put back unescaped.
    """
    text = unparse(expr)
    if "\\" not in text:  # no string holds a backslash (or a byte printed as an escape)
        return text
    strings: dict[str, str] = {}

    def swap(item):
        if isinstance(item, Literal) and isinstance(item.value, str) and "\\" in item.value:
            placeholder = f"condorcfgOldString{len(strings)}x"
            strings[placeholder] = item.value
            return AttrRef(placeholder)
        if isinstance(item, Node):
            return item.replace(**{name: swap(getattr(item, name)) for name in item.FIELDS})
        if isinstance(item, list):
            return [swap(x) for x in item]
        if isinstance(item, tuple):
            return tuple(swap(x) for x in item)
        return item

    text = unparse(swap(expr))
    for placeholder, value in strings.items():
        text = text.replace(placeholder, _old_string(value), 1)
    return text


def _printed_once(convert):
    """``convert`` remembered per expression object: the slots of a machine share most of theirs
    (4096 slots print each shared expression once)."""
    printed: dict[int, tuple] = {}

    def text(expr) -> str:
        known = printed.get(id(expr))
        if known is None or known[0] is not expr:  # (the object is kept, so its id is not reused)
            known = printed[id(expr)] = (expr, convert(expr))
        return known[1]

    return text


def format_long(ads) -> str:
    text = _printed_once(unparse_old)
    blocks = ["\n".join(f"{printable(name)} = {text(expr)}" for name, expr in _sorted_items(ad)) for ad in ads]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def format_new(ads) -> str:
    text = _printed_once(unparse)
    blocks = []
    for ad in ads:
        lines = [f"    {printable(name)} = {text(expr)};" for name, expr in _sorted_items(ad)]
        blocks.append("[\n" + "\n".join(lines) + "\n]")
    return "\n".join(blocks) + ("\n" if blocks else "")


def _json_value(expr) -> str:
    if isinstance(expr, Literal):
        value = expr.value
        if value is UNDEFINED:
            return "null"
        if isinstance(value, (bool, int, str)) or (isinstance(value, float) and value == value
                                                   and value not in (float("inf"), float("-inf"))):
            return json.dumps(value)
        if value is ERROR:
            return '"\\/Expr(error)\\/"'
    return '"\\/Expr(' + json.dumps(unparse(expr))[1:-1] + ')\\/"'


def format_json(ads) -> str:
    text = _printed_once(_json_value)
    objects = []
    for ad in ads:
        members = [f"    {json.dumps(name)}: {text(expr)}" for name, expr in _sorted_items(ad)]
        objects.append("  {\n" + ",\n".join(members) + "\n  }")
    return "[\n" + ",\n".join(objects) + "\n]\n"


FORMATS = {"long": format_long, "json": format_json, "new": format_new}
