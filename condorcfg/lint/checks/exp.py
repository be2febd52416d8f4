"""ClassAd expression checks (EXP): syntax, `== UNDEFINED`, self references, functions, regexes.

Each check looks at the knobs the daemons evaluate as expressions (``EXPRESSION_KNOBS``)
and the knobs exported into ads, after macro expansion, and points at the definition the
user wrote; a problem that comes from a macro is shown at the ``$(X)`` that brought it in.
"""
from __future__ import annotations

import re

from condorcfg.classad.functions import REGEX_ARGUMENT, regex_error
from condorcfg.lint.checks import check
from condorcfg.lint.checks._trace import POLICY_ATTRIBUTES
from condorcfg.lint.checks.knb import reads_as_text
from condorcfg.lint.checks.mac import describe_roots, finding_causes, root_macro_causes
from condorcfg.lint.checks._util import (empty_macro_causes, empty_macro_notes, expanded, exported_names, expression_names, is_user,
                                         macro_references, parsed, raw_span, strip_parens, trailing_comment_offset,
                                         user_definitions, walk)

_UNIT = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?\s*[KMGTkmgt][Bb]?(?![A-Za-z0-9_])")


def _expression_definitions(ctx, exported=None, include_exported=True):
    """User-written definitions of expression-valued knobs (and of exported knobs)."""
    exported = exported_names(ctx) if exported is None else exported
    expressions = expression_names(ctx)
    for name in ctx.names():
        if not (name in expressions or (include_exported and name.upper() in exported)):
            continue
        definition = ctx.config.source(name)
        if is_user(definition):
            yield definition


def locate(ctx, definition, pattern: re.Pattern):
    """(span, macro) of the first match of ``pattern``: in the raw value, else at the ``$(X)`` bringing it."""
    raw = definition.raw or ""
    found = pattern.search(re.sub(r"\$\([^()]*\)", lambda m: " " * len(m.group(0)), raw))
    if found:
        return raw_span(ctx, definition, found.start(), found.end()), None
    for ref in macro_references(raw):
        target = ctx.config.source(ref.name)
        if target is None or target is definition:
            continue
        text = expanded(ctx, target) or ""
        if pattern.search(text):
            return raw_span(ctx, definition, ref.start, ref.end), target
    return ctx.value_span(definition), None


def _through(macro) -> str:
    return f" (through $({macro.name}))" if macro is not None else ""


@check
def expr_syntax(ctx):
    for definition in _expression_definitions(ctx, include_exported=False):  # KNB301 checks exported ones
        node, err, text = parsed(ctx, definition)
        if err is None:
            continue
        comment = trailing_comment_offset(text) if "\n" not in text else None
        if comment is not None and err.line == 1 and err.column - 1 >= comment:
            continue  # the parse stops at a trailing `# comment`: CFG101 reports that
        if (definition.raw or "") == text and "\n" not in text:
            span = ctx.expression_span(definition, text, err.line, err.column)
        else:
            span = ctx.value_span(definition)
        message = f"{definition.name} is evaluated as a ClassAd expression, but `{_short(text)}` does not parse: " \
                  f"{err.message}"
        fix = None
        unit = _UNIT.search(text)
        if unit:
            message += (f"; ClassAd expressions no longer accept unit suffixes such as `{unit.group(0)}` "
                        f"(only submit files do)")
            fix = "write the number in the attribute's unit (Memory is in MiB: 4G is 4096 or 4 * 1024)"
        causes = empty_macro_causes(ctx, definition)
        if causes:
            named = ", ".join(f"$({c})" for c in sorted(causes))
            roots = root_macro_causes(ctx, causes)  # (END = $(N): N is what is missing, in a fragment too)
            message += (f" (because {named} {'expands' if len(causes) == 1 else 'expand'} to nothing"
                        f"{describe_roots(ctx, causes, roots).replace(' (', '; ', 1)[:-1] if roots != causes else ''})")
            fix = fix or f"define {', '.join(sorted(roots))} (or give a default: $(NAME:value))"
            causes = finding_causes(ctx, causes)
        yield ctx.finding(message, at=definition, span=span, fix=fix, notes=empty_macro_notes(ctx, definition),
                          causes=causes)


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


_CMP_UNDEFINED = re.compile(r"(==|!=)\s*\(?\s*undefined\b|\bundefined\s*\)?\s*(==|!=)", re.IGNORECASE)


@check
def compare_undefined(ctx):
    from condorcfg.classad import UNDEFINED, ast

    for _name, definition in user_definitions(ctx):
        if not _CMP_UNDEFINED.search(definition.raw or ""):
            continue
        node = parsed(ctx, definition)[0]
        if node is None:
            continue
        for item in walk(node):
            if not isinstance(item, ast.BinaryOp) or item.op not in ("==", "!="):
                continue
            sides = [strip_parens(item.left), strip_parens(item.right)]
            if not any(isinstance(s, ast.Literal) and s.value is UNDEFINED for s in sides):
                continue
            meta = "=?=" if item.op == "==" else "=!="
            span, macro = locate(ctx, definition, _CMP_UNDEFINED)
            yield ctx.finding(f"`{item.op} UNDEFINED` is always UNDEFINED, never true or false{_through(macro)}: "
                              f"strict comparison with UNDEFINED gives UNDEFINED", at=definition, span=span,
                              fix=f"use the meta-operator `{meta} UNDEFINED` or isUndefined(...)")
            break


def _own_attribute(name: str, exported: dict) -> str | None:
    upper = name.upper()
    if upper in POLICY_ATTRIBUTES.values() and upper != "IS_OWNER":
        return upper
    if upper in exported:
        return upper
    return None


@check
def self_reference(ctx):
    exported = exported_names(ctx)
    for definition in _expression_definitions(ctx, exported):
        own = _own_attribute(definition.name, exported)
        if own is None:
            continue
        node, _err, text = parsed(ctx, definition)
        if node is None:
            continue
        if own in exported and own not in POLICY_ATTRIBUTES.values() and reads_as_text(ctx, definition.name, node,
                                                                                        text, exported):
            continue  # `RACK = rack-12`: text that needs quotes, not an append gone wrong (KNB301 says so)
        for ref in ctx.references(node):
            if ref.name.upper() == own and (ref.scope or "MY").upper() == "MY":
                span, macro = locate(ctx, definition, re.compile(r"(?<![A-Za-z0-9_$(.])(MY\.)?" + re.escape(ref.name)
                                                                 + r"(?![A-Za-z0-9_])", re.IGNORECASE))
                if _earlier_value(ctx, definition):
                    fix = f"to extend the previous value write $({definition.name}) instead"
                else:  # (no earlier value: $(X) would expand to nothing)
                    fix = (f"{definition.name} has no earlier value to extend: write the value it should have "
                           f"(in quotes if it is text)")
                yield ctx.finding(f"{definition.name} refers to the attribute {ref.name}, that is to itself: "
                                  f"in the ad this is a loop and evaluates to UNDEFINED{_through(macro)}",
                                  at=definition, span=span, fix=fix)
                break




def _earlier_value(ctx, definition) -> bool:
    """Whether `$(NAME)` in ``definition`` would expand to something: an earlier assignment, a template's or
    HTCondor's default value."""
    history = list(ctx.config.history(definition.name))
    earlier = history[:history.index(definition)] if definition in history else history[:-1]
    if any((d.raw or "").strip() for d in earlier):
        return True
    entry = ctx.knowledge.builtin(definition.name)
    return bool(str((entry or {}).get("default") or "").strip())


@check
def invalid_regex(ctx):
    from condorcfg.classad import ast

    for definition in _expression_definitions(ctx):
        node = parsed(ctx, definition)[0]
        if node is None:
            continue
        for item in walk(node):
            argument = REGEX_ARGUMENT.get(item.name.lower()) if isinstance(item, ast.Call) else None
            if argument is None or len(item.args) <= argument:
                continue
            pattern = strip_parens(item.args[argument])
            if not isinstance(pattern, ast.Literal) or not isinstance(pattern.value, str):
                continue
            problem = regex_error(pattern.value)
            if problem is not None:
                span, macro = locate(ctx, definition, re.compile(re.escape(item.name) + r"\s*\(", re.IGNORECASE))
                yield ctx.finding(f"{item.name}() is given the pattern {pattern.value!r}, which is not a valid "
                                  f"regular expression ({problem}): the call evaluates to ERROR{_through(macro)}",
                                  at=definition, span=span)


@check
def unknown_function(ctx):
    from condorcfg.classad import ast
    from condorcfg.classad.functions import FUNCTIONS

    for definition in _expression_definitions(ctx):
        node = parsed(ctx, definition)[0]
        if node is None:
            continue
        for item in walk(node):
            if not isinstance(item, ast.Call):
                continue
            spec = FUNCTIONS.get(item.name.lower())
            pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(item.name) + r"\s*\(", re.IGNORECASE)
            if spec is None:
                span, macro = locate(ctx, definition, pattern)
                yield ctx.finding(f"{item.name}() is not a ClassAd function: the call evaluates to ERROR"
                                  f"{_through(macro)}", at=definition, span=span)
                continue
            low, high = spec[0], spec[1]
            count = len(item.args)
            if count < low or (high is not None and count > high):
                wanted = f"{low}" if low == high else (f"{low} to {high}" if high is not None else f"at least {low}")
                span, macro = locate(ctx, definition, pattern)
                yield ctx.finding(f"{item.name}() takes {wanted} argument(s) but is given {count}: the call "
                                  f"evaluates to ERROR{_through(macro)}", at=definition, span=span)
