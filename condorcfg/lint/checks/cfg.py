"""Configuration-language checks (CFG): comments, continuations, odd names, unrendered templates.

HTCondor treats ``#`` as a comment only at the start of a line (after blanks): a trailing
``# note`` stays in the value.  A ``\\`` continuation skips comment lines, so the line
after the comment is what gets joined (config-language.md sections 2-3).
"""
from __future__ import annotations

import re

from condorcfg.diagnostics import Location
from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import (is_user, raw_span, trailing_comment_offset, user_definitions,
                                         written_expression_names)


def _trailing_comments(ctx, in_expression: bool):
    expressions = written_expression_names(ctx)  # (a set made once: the long pattern is not matched per rule)
    for name, definition in user_definitions(ctx):
        if (name in expressions) != in_expression:
            continue
        raw = definition.raw or ""
        if "#" not in raw or "\n" in raw:
            continue  # heredoc bodies keep their own comment syntax
        at = trailing_comment_offset(raw)
        if at is None:
            continue
        span = raw_span(ctx, definition, at, len(raw))
        if ctx.counting:  # (past MAX_FINDINGS_PER_RULE only the place of a finding is kept)
            yield ctx.place(definition, span)
            continue
        kind = "expression" if in_expression else "value"
        yield ctx.finding(f"`{raw[at:].strip()}` is part of the {kind} of {name}: HTCondor only treats `#` at the "
                          f"start of a line as a comment", at=definition, span=span)


@check
def trailing_comment(ctx):
    yield from _trailing_comments(ctx, in_expression=False)


@check
def trailing_comment_in_expression(ctx):
    yield from _trailing_comments(ctx, in_expression=True)


def _statement_at(ctx, file: str, line: int):
    """The statement of ``file`` whose logical line covers physical ``line`` (the last starting at or before it)."""
    import bisect

    index = ctx.shared.get("cfg_statement_lines")
    if index is None:  # per file: (start lines, statements), sorted once per run
        index = ctx.shared["cfg_statement_lines"] = {}
        for statement in getattr(ctx.config, "statements", ()) or ():
            location = statement.location
            if location is not None and statement.template is None:
                index.setdefault(location.file, []).append((location.line, statement))
        for key, entries in index.items():
            entries.sort(key=lambda entry: entry[0])
            index[key] = ([entry[0] for entry in entries], [entry[1] for entry in entries])
    lines, statements = index.get(file, ([], []))
    at = bisect.bisect_right(lines, line)
    return statements[at - 1] if at else None


@check
def continuation_into_comment(ctx):
    # HTCondor 25 (checked against the oracle): a comment line inside a continued value is skipped when it
    # ends with `\` too (the idiom for a commented-out list entry); one that does not end with `\` is not
    # skipped at all: its text, mangled, becomes the end of the value ("MASTER, STARTD, \" + "#SCHEDD" gives
    # "MASTER, STARTD, D").
    for file in list(getattr(ctx.config, "files", ()) or ()):
        lines = ctx.source_lines(file)
        for index, text in enumerate(lines[:-1]):
            stripped = text.rstrip()
            if not stripped.endswith("\\") or stripped.lstrip().startswith("#"):
                continue
            following = lines[index + 1].rstrip()
            if not following.lstrip().startswith("#") or following.endswith("\\"):
                continue
            statement = _statement_at(ctx, file, index + 1)
            became = ""
            if statement is not None and statement.name and statement.value is not None:
                became = f": {statement.name} = `{statement.value.strip()}`"
            yield ctx.finding(f"this line continues with `\\` into the comment on line {index + 2}, which does not end "
                              f"with `\\`: HTCondor does not skip it but makes its text part of the value{became}",
                              at=Location(file, index + 1, len(stripped), index + 1, len(stripped) + 1))
        if lines and lines[-1].rstrip().endswith("\\") and not lines[-1].lstrip().startswith("#"):
            last = lines[-1].rstrip()
            yield ctx.finding("the last line of the file ends with `\\`: the continuation joins nothing",
                              at=Location(file, len(lines), len(last), len(lines), len(last) + 1))


_DIRECTIVES = {"use", "include", "error", "warning", "if", "elif", "else", "endif"}


@check
def directive_name_knob(ctx):
    for name in ctx.names():
        if name.split(".")[-1].lower() not in _DIRECTIVES:
            continue  # (tested first: most runs then need no knowledge base here)
        definition = ctx.config.source(name)
        if ctx.knowledge.builtin(name.split(".")[-1]) is not None:
            continue  # a real HTCondor knob (INCLUDE is the include-file directory)
        if is_user(definition):
            yield ctx.finding(f"a knob named {name!r} looks like the `{name.lower()}` statement; HTCondor reads "
                              f"this line as an assignment only because of the `=`, and readers (and template "
                              f"bodies) may not", at=definition)


_PLACEHOLDERS = [
    (re.compile(r"\{\{.*?\}\}|\{%.*?%\}"), "a Jinja2 template expression"),
    (re.compile(r"<%.*?%>"), "an ERB / quattor template tag"),
    (re.compile(r"@[A-Z][A-Z0-9_]{2,}@"), "an autoconf-style @PLACEHOLDER@"),
    (re.compile(r"<(?:YOUR|CHANGE|INSERT|ENTER|REPLACE)[A-Za-z_ -]*>|<[A-Z][A-Z0-9_]{3,}>"), "a <PLACEHOLDER>"),
    # (words with spaces between angle brackets, as a how-to writes them: `<IP of Machine>`; no ClassAd
    # expression has a letter right after `<` and only words and spaces up to a `>`)
    (re.compile(r"<[A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)+>"), "a <placeholder phrase>"),
]


@check
def unrendered_placeholder(ctx):
    for name, definition in user_definitions(ctx):
        raw = definition.raw or ""
        if "{" not in raw and "<" not in raw and "@" not in raw:
            continue  # (every placeholder holds one of these: most values need no search)
        for pattern, what in _PLACEHOLDERS:
            found = pattern.search(raw)
            if found:
                yield ctx.finding(f"the value of {name} contains {what} (`{found.group(0)}`): this file looks like "
                                  f"an unrendered template, and HTCondor uses the text literally",
                                  at=definition, span=raw_span(ctx, definition, found.start(), found.end()))
                break

