"""``condorcfg eval``: evaluate a ClassAd expression, like HTCondor's ``classad_eval``.

    condorcfg eval 'EXPR' [--my FILE] [--target FILE] [--format text|json] [--syntax old|new]

``--my`` / ``--target`` read an ad in either syntax (``Name = value`` lines
as ``condor_status -l`` prints, or ``[ a = 1; b = 2 ]``).  The expression is
read in the old (configuration) syntax unless ``--syntax new``.  A syntax
error prints ``FILE:LINE:COL: error: ...`` and exits 2; a value prints in
HTCondor's canonical form and exits 0.
"""
from __future__ import annotations

import json
import sys

EXIT_OK, EXIT_USAGE = 0, 2


def add_arguments(parser) -> None:
    parser.add_argument("expression", help="the ClassAd expression to evaluate")
    parser.add_argument("--my", metavar="FILE", help="the ad evaluated in (MY); '-' reads stdin")
    parser.add_argument("--target", metavar="FILE", help="the other ad of a match (TARGET)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: HTCondor's print of the value; json: value, type and text")
    parser.add_argument("--syntax", choices=("old", "new"), default="old",
                        help="how the expression is read: old (config files, default) or new ([...] ads)")


def _type_name(value) -> str:
    from condorcfg.classad.values import type_name

    return type_name(value)


def _json_value(value):
    from condorcfg.classad.values import ERROR, UNDEFINED

    if value is UNDEFINED or value is ERROR:
        return None
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    return None  # lists, ads and times: see "text"


def _read_ad(path: str, role: str):
    """(ad, None) or (None, diagnostic text)."""
    from condorcfg.classad.parser import ClassAdSyntaxError, parse_ad

    try:
        if path == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                text, name = handle.read(), path
    except OSError as exc:
        return None, f"{path}: error: cannot read the {role} ad: {exc.strerror}"
    try:
        return parse_ad(text), None
    except ClassAdSyntaxError as exc:
        return None, f"{name}:{exc.line}:{exc.column}: error: {exc.message}"


def run(args) -> int:
    from condorcfg.classad.evaluator import evaluate
    from condorcfg.classad.parser import ClassAdSyntaxError, parse
    from condorcfg.classad.printer import unparse

    ads = {}
    for role in ("my", "target"):
        path = getattr(args, role)
        if path:
            ad, problem = _read_ad(path, role.upper())
            if problem:
                print(problem, file=sys.stderr)
                return EXIT_USAGE
            ads[role] = ad
    try:
        tree = parse(args.expression, args.syntax)
    except ClassAdSyntaxError as exc:
        print(f"<expression>:{exc.line}:{exc.column}: error: {exc.message}", file=sys.stderr)
        lines = args.expression.splitlines() or [""]
        if 0 < exc.line <= len(lines):
            print(f"  {lines[exc.line - 1]}\n  {' ' * (exc.column - 1)}^", file=sys.stderr)
        return EXIT_USAGE
    value = evaluate(tree, my=ads.get("my"), target=ads.get("target"))
    text = unparse(value)
    if args.format == "json":
        print(json.dumps({"expression": unparse(tree), "type": _type_name(value),
                          "value": _json_value(value), "text": text}))
    else:
        print(text)
    return EXIT_OK
