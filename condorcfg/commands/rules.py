"""``condorcfg rules``: list the lint rules (code, slug, severity, summary).

A project's own rule files may come from anyone, so the text list is made safe to print
(:mod:`condorcfg.textsafe`) and the JSON is ASCII and defused.
"""
from __future__ import annotations

import json
import sys

from condorcfg.textsafe import defuse_json, safe_line


def add_arguments(parser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--select", metavar="CODES", help="only rules matching these codes/prefixes/slugs")


def run(args) -> int:
    from condorcfg.lint.engine import _selector_matches
    from condorcfg.lint.rules import RuleFileError, load_rules

    try:
        ruleset = load_rules()
    except RuleFileError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return 2
    rules = list(ruleset)
    if args.select:
        selectors = [s for s in args.select.split(",") if s.strip()]
        rules = [r for r in rules if any(_selector_matches(s, r) for s in selectors)]
    if args.format == "json":
        print(defuse_json(json.dumps([{"code": r.code, "rule": r.name, "severity": r.severity, "summary": r.summary,
                                       "enabled": r.enabled, "check": r.check or "declarative"} for r in rules],
                                     indent=2, ensure_ascii=True)))
        return 0
    width = max((len(r.name) for r in rules), default=0)
    for rule in rules:
        flag = "" if rule.enabled else "  (opt-in)"
        print(safe_line(f"{rule.code}  {rule.name.ljust(width)}  {rule.severity:<7}  {rule.summary}{flag}"))
    print(f"\n{len(rules)} rules. `condorcfg explain CODE` shows one rule's documentation.")
    return 0
