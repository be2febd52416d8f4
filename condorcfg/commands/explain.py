"""``condorcfg explain CODE|slug``: print a rule's page (what it does, why, example, fix).

``--format json`` prints the rule's fields as one object instead, with the same names as
``condorcfg rules --format json`` (``code``, ``rule``, ``severity`` ...) plus the documentation.

A project's own rule files may come from anyone: the page keeps its line breaks but each line is
made printable and the page defused (:func:`~condorcfg.textsafe.safe_lines`); JSON is ASCII and
defused.
"""
from __future__ import annotations

import difflib
import json
import sys

from condorcfg.textsafe import defuse_json, safe_line, safe_lines


def add_arguments(parser) -> None:
    parser.add_argument("rule", metavar="CODE|slug", help="a rule code (POL501) or slug (job-attr-in-is-owner)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: the rule's page (default); json: the rule's fields")


def _example_json(example) -> dict:
    return {"config": example.config, "machine": example.machine, "target_version": example.target_version,
            "line": example.line}


def rule_json(rule) -> dict:
    """A rule's fields as JSON: the ``rules --format json`` keys, then its documentation and examples."""
    return {"code": rule.code, "rule": rule.name, "severity": rule.severity, "summary": rule.summary,
            "enabled": rule.enabled, "check": rule.check or "declarative", "rationale": rule.rationale,
            "fix": rule.fix, "ignorable": rule.ignorable, "references": rule.references,
            "needs": rule.needs, "examples": {"pass": [_example_json(e) for e in rule.pass_examples],
                                              "fail": [_example_json(e) for e in rule.fail_examples],
                                              "silent": [_example_json(e) for e in rule.silent_examples]},
            "file": rule.file, "line": rule.line}


def run(args) -> int:
    from condorcfg.lint.rules import RuleFileError, load_rules

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
        print(safe_line(f"condorcfg explain: no rule {args.rule!r}{hint}"), file=sys.stderr)
        return 2
    if args.format == "json":
        # default=str: YAML dates in options
        print(defuse_json(json.dumps(rule_json(rule), indent=2, default=str, ensure_ascii=True)))
        return 0
    from condorcfg.report.rule_page import render_rule  # jinja2: only for the page

    sys.stdout.write(safe_lines(render_rule(rule)))
    return 0
