"""Declarative rule matchers: a rule's ``match:`` mapping instead of a Python check.

A definition matches when every condition given holds (they are ANDed)::

    match:
      knob: "HOSTALLOW_.*|HOSTDENY_.*"   # knob name, regex, whole name, case-insensitive (required)
      value: "\\*"                      # regex searched in the value
      value_not: "^\\s*\\$\\(\\w+\\)"     # regex that must NOT be found in the value
      expanded: true                    # value regexes see the expanded value (default: as written)
      parse: fails                      # the expanded value does not parse as a ClassAd expression
      references: "Target\\..*|Owner"   # the expression references an attribute (whole name, ci) ...
      scope: target                     # ... written with this scope: target | my | none | any (default)
      definitions: effective            # effective (default) or all (every definition in history)
      message: "{knob} is obsolete"     # finding text; fields: {knob} {value} {attribute} {error}

Findings from a template's definition point at the ``use`` line that brought it in.

Two more forms report things that are not knob definitions (no other key may be combined):

    match: {reader: [command-include, ...]}   # the config reader's diagnostics of these kinds
    match: {engine: unused-suppression}       # reported by the lint engine itself: unused-suppression,
                                              # invalid-suppression, internal-error, config-diagnostic
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from string import Formatter

# What the engine itself reports (rules/meta.yaml claims each with `match: {engine: KIND}`).
UNUSED_SUPPRESSION = "unused-suppression"
INVALID_SUPPRESSION = "invalid-suppression"
INTERNAL_ERROR = "internal-error"
CONFIG_DIAGNOSTIC = "config-diagnostic"
CONFIG_ERROR = "config-error"
STALE_BASELINE = "stale-baseline"
LIMIT_REACHED = "limit-reached"
REGEX_TIME_LIMIT = "regex-time-limit"
FRAGMENT_MACROS = "fragment-macros"
READ_BY_NO_ROLE = "read-by-no-role"  # (the lint command's: a file named that no role of the project reads)
ENGINE_KINDS = (UNUSED_SUPPRESSION, INVALID_SUPPRESSION, INTERNAL_ERROR, CONFIG_DIAGNOSTIC, CONFIG_ERROR,
                STALE_BASELINE, LIMIT_REACHED, REGEX_TIME_LIMIT, FRAGMENT_MACROS, READ_BY_NO_ROLE)
# Engine findings no small example provokes (a crash; a baseline entry; a limit meant for hostile
# input, tested in tests/test_bounds_*.py; fragment mode, which examples do not run in, tested in
# tests/test_lint_engine.py): no `fail` example.
NO_FAIL_EXAMPLE = (INTERNAL_ERROR, STALE_BASELINE, LIMIT_REACHED, REGEX_TIME_LIMIT, FRAGMENT_MACROS, READ_BY_NO_ROLE)
_KNOB_KEYS = {"knob", "value", "value_not", "expanded", "parse", "references", "scope", "definitions",
              "message"}
_SCOPES = ("any", "target", "my", "none")


class MatcherError(ValueError):
    """A malformed matcher; ``key`` names the offending entry for the error's line number."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


def validate_matcher(match) -> dict:
    """Check a ``match:`` mapping and return it with defaults filled in."""
    if not isinstance(match, dict) or not match:
        raise MatcherError("'match' must be a mapping of matcher keys (see condorcfg.lint.declarative)")
    for exclusive in ("reader", "engine"):
        if exclusive in match:
            if len(match) != 1:
                raise MatcherError(f"'match: {{{exclusive}: ...}}' cannot be combined with other keys", exclusive)
    if "reader" in match:
        kinds = match["reader"]
        if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
            raise MatcherError("'reader' must be a non-empty list of reader diagnostic kinds", "reader")
        return {"reader": list(kinds)}
    if "engine" in match:
        if match["engine"] not in ENGINE_KINDS:
            raise MatcherError(f"'engine' must be one of {', '.join(ENGINE_KINDS)}", "engine")
        return {"engine": match["engine"]}
    for key in match:
        if key not in _KNOB_KEYS:
            raise MatcherError(f"unknown matcher key {key!r}; allowed: {', '.join(sorted(_KNOB_KEYS | {'reader', 'engine'}))}", key)
    if "knob" not in match:
        raise MatcherError("a matcher needs 'knob' (a regex for the knob names it applies to)", None)
    for key in ("knob", "value", "value_not", "references"):
        if key in match:
            if not isinstance(match[key], str):
                raise MatcherError(f"{key!r} must be a regular expression string", key)
            try:
                re.compile(match[key])
            except re.error as exc:
                raise MatcherError(f"{key!r} is not a valid regular expression: {exc}", key) from None
    if match.get("parse", "fails") != "fails":
        raise MatcherError("'parse' can only be 'fails'", "parse")
    if match.get("scope", "any") not in _SCOPES:
        raise MatcherError(f"'scope' must be one of {', '.join(_SCOPES)}", "scope")
    if "scope" in match and "references" not in match:
        raise MatcherError("'scope' only applies together with 'references'", "scope")
    if match.get("definitions", "effective") not in ("effective", "all"):
        raise MatcherError("'definitions' must be 'effective' or 'all'", "definitions")
    if not isinstance(match.get("expanded", False), bool):
        raise MatcherError("'expanded' must be true or false", "expanded")
    message = match.get("message", "")
    if not isinstance(message, str):
        raise MatcherError("'message' must be a string", "message")
    try:
        message.format(knob="", value="", attribute="", error="")
    except (KeyError, IndexError, ValueError) as exc:
        raise MatcherError(f"'message' may only use the fields {{knob}} {{value}} {{attribute}} {{error}} ({exc})",
                           "message") from None
    return dict(match)


def run_matcher(ctx) -> Iterator:
    """Yield the findings of ``ctx.rule``'s knob matcher over the composed configuration."""
    match = ctx.rule.match
    if "reader" in match or "engine" in match:
        return  # reported by the engine, not by walking definitions
    value_re = re.compile(match["value"]) if "value" in match else None
    value_not_re = re.compile(match["value_not"]) if "value_not" in match else None
    refs_re = re.compile(match["references"], re.IGNORECASE) if "references" in match else None
    scope = match.get("scope", "any")
    every = match.get("definitions", "effective") == "all"
    # the message is formatted late, its fields as facts (a summary is plain text: its braces are not fields)
    template = match.get("message") or ctx.rule.summary.replace("{", "{{").replace("}", "}}")
    used = {field for _text, field, _spec, _conv in Formatter().parse(template) if field}  # (the facts kept)
    if not used:
        template = template.format()  # plain text: no facts to format it with later

    for name in ctx.names_matching(match["knob"]):
        definitions = ctx.config.history(name) if every else [ctx.config.source(name)]
        for definition in definitions:
            if definition is None or definition.origin == "default":
                continue
            expanded = ctx.expanded(definition)
            if expanded is None:
                continue  # the value cannot be expanded (a macro cycle: MAC202 reports it)
            text = expanded if match.get("expanded") else (definition.raw or "")
            if value_re and not value_re.search(text):
                continue
            if value_not_re and value_not_re.search(text):
                continue
            fields = {"knob": name, "value": _short(text), "attribute": "", "error": ""}
            if "parse" in match or refs_re:
                if not expanded.strip():
                    continue  # an empty value is "undefined", not an expression
                node, err = ctx.parse_expression(expanded)
                if "parse" in match:
                    if err is None:
                        continue
                    fields["error"] = err.message
                    yield ctx.finding(template, at=definition,
                                      span=ctx.expression_span(definition, expanded, err.line, err.column),
                                      **_facts(fields, used))
                    continue
                if err is not None:
                    continue  # an unparsable value is the business of a parse rule
                for ref in ctx.references(node):
                    ref_scope = (ref.scope or "none").lower()
                    if not refs_re.fullmatch(ref.name) or (scope != "any" and ref_scope != scope):
                        continue
                    fields["attribute"] = f"{ref.scope}.{ref.name}" if ref.scope else ref.name
                    width = len(fields["attribute"])
                    yield ctx.finding(template, at=definition,
                                      span=ctx.expression_span(definition, expanded, ref.line, ref.column, width),
                                      **_facts(fields, used))
                continue
            yield ctx.finding(template, at=definition, span=ctx.value_span(definition), **_facts(fields, used))


def _facts(fields: dict, used: set) -> dict:
    """The fields the message names (a finding's facts are what its text says)."""
    return {key: fact for key, fact in fields.items() if key in used}


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
