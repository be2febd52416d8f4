"""``condorcfg qube``: Qube! job requirement expressions, evaluated and translated to ClassAd.

    condorcfg qube eval 'EXPR' [--host FILE|NAME=VALUE]... [--job FILE|NAME=VALUE]... [--format text|json]
    condorcfg qube translate 'EXPR' [--map FILE] [--format text|json]

``eval`` prints the value: ``true`` or ``false`` for a requirement (the last word of the output),
a number or text otherwise.  Host and job properties come from YAML or JSON files (nested
mappings or dotted names: ``processors: {total: 8}`` or ``processors.total: 8``; a list is a
comma list) and from ``NAME=VALUE`` pairs (``--host os=linux``), later ones winning.  A property
the expression uses and the sets do not have is empty, and a note on stderr says so.

``translate`` prints the ClassAd expression for the machine side (START, or Requirements read
from the machine's ad) through the property map (``--map``; default: the one shipped with
condorcfg, ``condorcfg/qube/default_map.yaml``).  What it cannot translate faithfully (a
property the map lacks, a number compared with text, ...) is reported, never guessed.

A malformed expression prints ``expr:COL: error: ...`` with the expression and a caret, and
exits 2, as does an unusable file.  ``translate`` exits 1 when something could not be translated.
"""
from __future__ import annotations

import json
import re
import sys

from condorcfg.textsafe import defuse_json, printable, safe_line

EXIT_OK, EXIT_UNTRANSLATED, EXIT_USAGE = 0, 1, 2
_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)=(.*)", re.DOTALL)


def add_arguments(parser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    evaluate = actions.add_parser("eval", help="evaluate a requirement for a host and a job",
                                  formatter_class=parser.formatter_class,
                                  description="Evaluate a Qube! requirement expression for a host and a job.")
    evaluate.add_argument("expression", help="the requirement, e.g. 'host.os eq linux'")
    evaluate.add_argument("--host", action="append", default=[], metavar="FILE|NAME=VALUE",
                          help="host properties: a YAML/JSON file, or one NAME=VALUE (repeatable)")
    evaluate.add_argument("--job", action="append", default=[], metavar="FILE|NAME=VALUE",
                          help="job properties: a YAML/JSON file, or one NAME=VALUE (repeatable)")
    evaluate.add_argument("--format", choices=("text", "json"), default="text")
    translate = actions.add_parser("translate", help="translate a requirement to a ClassAd expression",
                                   formatter_class=parser.formatter_class,
                                   description="Translate a Qube! requirement to a ClassAd expression "
                                               "(evaluated in the machine ad).")
    translate.add_argument("expression", help="the requirement, e.g. 'host.os eq linux'")
    translate.add_argument("--map", metavar="FILE", help="YAML property map (default: the shipped one)")
    translate.add_argument("--format", choices=("text", "json"), default="text")


def _located(expression: str, column: int, message: str) -> str:
    """``expr:COL: error: message``, then the expression and a caret under the column."""
    one_line = expression.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    lines = [safe_line(f"expr:{column}: error: {message}")]
    if len(one_line) <= 200:
        lines.append("  " + printable(one_line))
        lines.append("  " + " " * (column - 1) + "^")
    return "\n".join(lines)


def _property_set(items: list[str], role: str) -> dict:
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.qube.evaluate import properties
    from condorcfg.qube.syntax import QubeError

    found: dict = {}
    for item in items:
        pair = _PAIR.fullmatch(item)
        if pair:
            found[pair.group(1).lower()] = pair.group(2)
            continue
        from condorcfg.inputs import load_document

        data, shown = load_document(item, f"{role} properties", "bad-properties")
        try:
            found.update(properties(data, f"{role} properties"))
        except QubeError as exc:
            raise CondorcfgError(error(exc.message, shown, code="bad-properties")) from None
    return found


def run(args) -> int:
    from condorcfg.qube.syntax import QubeError, parse

    try:
        tree = parse(args.expression)
    except QubeError as exc:
        print(_located(args.expression, exc.column, exc.message), file=sys.stderr)
        return EXIT_USAGE
    return _evaluate(args, tree) if args.action == "eval" else _translate(args, tree)


def _evaluate(args, tree) -> int:
    from condorcfg.qube.evaluate import evaluate, show
    from condorcfg.qube.syntax import QubeError

    host, job = _property_set(args.host, "host"), _property_set(args.job, "job")
    missing: list[str] = []
    try:
        value = evaluate(tree, host, job, missing)
    except QubeError as exc:
        print(_located(args.expression, exc.column, exc.message), file=sys.stderr)
        return EXIT_USAGE
    for name in missing:
        root = name.split(".", 1)[0]
        print(safe_line(f"note: {name} is not among the {root} properties given: it is empty"), file=sys.stderr)
    if args.format == "json":
        kind = "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float)) else "string"
        if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
            value = show(value)  # (JSON has no NaN or infinity)
        print(defuse_json(json.dumps({"value": value, "type": kind, "text": show(value), "missing": missing},
                                     ensure_ascii=True)))
    else:
        print(printable(show(value)))
    return EXIT_OK


def _translate(args, tree) -> int:
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.qube.syntax import QubeError
    from condorcfg.qube.translate import load_map, translate

    try:
        mapping = load_map(args.map)
    except QubeError as exc:
        raise CondorcfgError(error(exc.message, args.map or "default property map", code="bad-map")) from None
    result = translate(tree, mapping)
    if args.format == "json":
        print(defuse_json(json.dumps({"expression": result.expression,
                                      "problems": [{"column": p.column, "message": p.message}
                                                   for p in result.problems]}, ensure_ascii=True)))
    elif result.expression is not None:
        print(printable(result.expression))
    for problem in result.problems:
        print(_located(args.expression, problem.column, problem.message), file=sys.stderr)
    return EXIT_UNTRANSLATED if result.problems else EXIT_OK
