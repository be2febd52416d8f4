"""``condorcfg eval``: evaluate a ClassAd expression, like HTCondor's ``classad_eval``.

    condorcfg eval 'EXPR' [--my FILE] [--target FILE] [--slot N] [--format text|json] [--syntax old|new]

``--my`` / ``--target`` read ads in any form condorcfg and condor_status print:
``Name = value`` lines (``-l``), ``[ a = 1; b = 2 ]`` ads, or JSON (``-json``,
``condorcfg ads --format json``: one object or a list, expressions as
``"\\/Expr(...)\\/"`` strings).  A file holding one ad is that ad; one holding
several (all slots of a machine) needs ``--slot N``, which picks the ad whose
SlotID is N.  ``-`` reads standard input, for one of the two.  The expression
is read in the old (configuration) syntax unless ``--syntax new``.  A syntax
error or an unusable input prints ``FILE:LINE:COL: error: ...`` and exits 2;
a value prints in HTCondor's canonical form and exits 0.  What is printed is made safe to print
(:mod:`condorcfg.textsafe`): the ads read may come from anyone.
"""
from __future__ import annotations

import json
import sys

from condorcfg.textsafe import defuse_json, printable, safe_line

EXIT_OK, EXIT_USAGE = 0, 2


def add_arguments(parser) -> None:
    parser.add_argument("expression", help="the ClassAd expression to evaluate")
    parser.add_argument("--my", metavar="FILE", help="the ad evaluated in (MY); '-' reads stdin")
    parser.add_argument("--target", metavar="FILE", help="the other ad of a match (TARGET); '-' reads stdin")
    parser.add_argument("--slot", type=int, metavar="N",
                        help="when an input holds several ads (condorcfg ads output), use the one of slot N")
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


def _read_ads(path: str, role: str) -> tuple[list, str]:
    """(every ad in ``path``, the name to show); raises CondorcfgError for unusable input."""
    from condorcfg.classad.json_ads import looks_like_json, parse_json_ads
    from condorcfg.classad.parser import parse_ads
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.inputs import read_text

    text, shown = read_text(path, f"{role} ad")
    try:
        return (parse_json_ads(text) if looks_like_json(text) else parse_ads(text)), shown
    except ValueError as exc:  # ClassAdSyntaxError, JsonAdError: with the place when there is one
        raise CondorcfgError(error(getattr(exc, "message", str(exc)), shown, getattr(exc, "line", 0),
                                   getattr(exc, "column", 1)))
    except RecursionError:
        raise CondorcfgError(error(f"the {role} ad is nested too deeply to read", shown))


def _slot_id(ad) -> int | None:
    """The ad's SlotID when it is an integer (None otherwise)."""
    from condorcfg.classad.evaluator import evaluate

    value = evaluate(ad["SlotID"], my=ad) if "SlotID" in ad else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pick_ad(ads: list, slot: int | None, shown: str, role: str):
    """The one ad of an input: its only ad, or with several the one whose SlotID is ``slot``."""
    from condorcfg.diagnostics import CondorcfgError, error

    if len(ads) == 1:
        return ads[0]
    if not ads:
        raise CondorcfgError(error(f"the {role} input holds no ad", shown))
    if slot is None:
        raise CondorcfgError(error(f"the input holds {len(ads)} ads; pick one with --slot N", shown))
    ids = [_slot_id(ad) for ad in ads]
    chosen = [ad for ad, slot_id in zip(ads, ids) if slot_id == slot]
    if len(chosen) != 1:
        ids = ", ".join("none" if i is None else str(i) for i in ids)
        found = "no ad" if not chosen else f"{len(chosen)} ads"
        raise CondorcfgError(error(f"the {role} input holds {found} of slot {slot} (its SlotIDs: {ids})", shown))
    return chosen[0]


def _input_ads(args) -> dict:
    """{"my": ad, "target": ad} for the inputs given; raises CondorcfgError for unusable input."""
    from condorcfg.diagnostics import CondorcfgError, error

    if args.my == "-" and args.target == "-":
        raise CondorcfgError(error("--my and --target cannot both read standard input ('-')", "<command line>"))
    ads = {}
    for role in ("my", "target"):
        path = getattr(args, role)
        if path:
            found, shown = _read_ads(path, role.upper())
            ads[role] = pick_ad(found, args.slot, shown, role.upper())
    return ads


def run(args) -> int:
    from condorcfg.classad.evaluator import evaluate
    from condorcfg.classad.parser import ClassAdSyntaxError, parse
    from condorcfg.classad.printer import unparse

    ads = _input_ads(args)  # unusable input raises: the CLI prints it and exits 2
    try:
        tree = parse(args.expression, args.syntax)
    except ClassAdSyntaxError as exc:
        print(safe_line(f"<expression>:{exc.line}:{exc.column}: error: {exc.message}"), file=sys.stderr)
        lines = args.expression.splitlines() or [""]
        if 0 < exc.line <= len(lines):
            line = lines[exc.line - 1]
            before = line[:exc.column - 1]
            indent = len(printable(before)) + exc.column - 1 - len(before)  # the caret under the escaped text
            print(safe_line(f"  {line}") + f"\n  {' ' * indent}^", file=sys.stderr)
        return EXIT_USAGE
    value = evaluate(tree, my=ads.get("my"), target=ads.get("target"))
    text = unparse(value)
    if args.format == "json":
        print(defuse_json(json.dumps({"expression": unparse(tree), "type": _type_name(value),
                                      "value": _json_value(value), "text": text}, ensure_ascii=True)))
    else:
        print(safe_line(text))
    return EXIT_OK
