"""``condorcfg explain CODE|slug``: print a rule's page (what it does, why, example, fix)."""
from __future__ import annotations

import difflib
import sys


def add_arguments(parser) -> None:
    parser.add_argument("rule", metavar="CODE|slug", help="a rule code (POL501) or slug (job-attr-in-is-owner)")


def run(args) -> int:
    from condorcfg.lint.rules import RuleFileError, load_rules
    from condorcfg.report.rule_page import render_rule

    try:
        ruleset = load_rules()
    except RuleFileError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return 2
    rule = ruleset.get(args.rule)
    if rule is None:
        keys = [r.code for r in ruleset] + [r.name for r in ruleset]
        close = difflib.get_close_matches(args.rule.upper() if args.rule[:1].isupper() else args.rule, keys, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; `condorcfg rules` lists them"
        print(f"condorcfg explain: no rule {args.rule!r}{hint}", file=sys.stderr)
        return 2
    sys.stdout.write(render_rule(rule))
    return 0
