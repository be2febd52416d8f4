"""Helpers shared by the lint checks (not a check module: the registry skips ``_`` modules).

Everything here works on the Config contract of docs/design.md (``value/raw/source/
history/names``, ``Definition.origin/location/template/use_location/overrode``) and on
the ClassAd tree of :mod:`condorcfg.classad.ast`.
"""
from __future__ import annotations

import re
from functools import lru_cache
from collections import namedtuple
from collections.abc import Iterator

from condorcfg.diagnostics import Location, Text

USER_ORIGINS = ("file", "env")
# Knobs whose value the daemons evaluate as a ClassAd expression (startd policy, negotiator,
# schedd); an expression that does not parse is rejected or silently ignored by the daemon.
EXPRESSION_KNOBS = re.compile(
    r"START|SUSPEND|CONTINUE|PREEMPT|KILL|IS_OWNER|RANK|WANT_SUSPEND|WANT_VACATE|WANT_HOLD|"
    r"WANT_HOLD_REASON|WANT_HOLD_SUBCODE|PERIODIC_CHECKPOINT|MAXJOBRETIREMENTTIME|MachineMaxVacateTime|"
    r"(SUSPEND|CONTINUE|PREEMPT|KILL|WANT_SUSPEND|WANT_VACATE)_(VANILLA|VM)|"
    r"START_BACKFILL|EVICT_BACKFILL|START_LOCAL_UNIVERSE|START_SCHEDULER_UNIVERSE|"
    r"SLOT_TYPE_\d+_(START|RANK|SUSPEND|CONTINUE|PREEMPT|KILL|WANT_SUSPEND|WANT_VACATE|IsOwner)|"
    r"SLOT\d+_(START|RANK|SUSPEND|CONTINUE|PREEMPT|KILL|WANT_SUSPEND|WANT_VACATE)|"
    r"PREEMPTION_REQUIREMENTS|PREEMPTION_RANK|NEGOTIATOR_PRE_JOB_RANK|NEGOTIATOR_POST_JOB_RANK|"
    r"NEGOTIATOR_SLOT_CONSTRAINT|NEGOTIATOR_JOB_CONSTRAINT|SLOT_WEIGHT|"
    r"SYSTEM_PERIODIC_(HOLD|RELEASE|REMOVE|VACATE)|SYSTEM_PERIODIC_HOLD_(REASON|SUBCODE)|"
    r"APPEND_REQUIREMENTS|APPEND_REQ_VANILLA|APPEND_RANK|APPEND_RANK_VANILLA|DEFAULT_RANK|"
    r"COLLECTOR_REQUIREMENTS|DEFRAG_REQUIREMENTS|DEFRAG_WHOLE_MACHINE_EXPR|DEFRAG_RANK|"
    r"DEFRAG_CANCEL_REQUIREMENTS|DEFRAG_DRAINING_START_EXPR|GROUP_SORT_EXPR|"
    r"SUBMIT_REQUIREMENT_(?!NAMES$)\w+?(?<!_REASON)|"
    r"CONSUMPTION_(CPUS|MEMORY|DISK)|MODIFY_REQUEST_EXPR_\w+",
    re.IGNORECASE)

# The startd policy expressions that make up a slot's behaviour.
POLICY_KNOBS = ("START", "IS_OWNER", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE",
                "WANT_HOLD", "RANK")


def is_user(definition) -> bool:
    """Written by the user (a file or the environment), not by a template or a default."""
    return definition is not None and getattr(definition, "origin", "file") in USER_ORIGINS


def user_definitions(ctx) -> list[tuple[str, object]]:
    """(name, effective Definition) of every name the user wrote (``is_user``), in order; once per run.

    Most checks walk exactly these; a big configuration has thousands of names.
    """
    found = ctx.shared.get("user_definitions")
    if found is None:
        found = ctx.shared["user_definitions"] = [
            (name, definition) for name in ctx.names() if is_user(definition := ctx.config.source(name))]
    return found


def effective(ctx, name: str):
    """The effective Definition of ``name`` unless it is only a built-in default."""
    definition = ctx.config.source(name)
    if definition is None or getattr(definition, "origin", "file") == "default":
        return None
    return definition


def names_matching(ctx, pattern: str) -> list[str]:
    return list(ctx.names_matching(pattern))


def describe(definition):
    """Where a definition comes from, as a fact for a message (:class:`Text`): its place, "`use
    POLICY:X` at <place>", or a phrase ("HTCondor's built-in default", ...)."""
    if definition is None:
        return "nowhere"
    origin = getattr(definition, "origin", "file")
    if origin == "template":
        return Text("`use {template}` at {where}", template=definition.template, where=definition.use_location)
    if origin == "default":
        return "HTCondor's built-in default"
    if origin == "env":
        return "the environment"
    if origin == "host":
        return "a detected host fact"
    return definition.location


def anchor(definition) -> Location | None:
    """The line a user would edit for this definition (the ``use`` line for a template's)."""
    if definition is None:
        return None
    if getattr(definition, "origin", "file") == "template":
        return definition.use_location
    return definition.location


# ------------------------------------------------------------------ macros

# A ``$(name)``/``$(name:default)`` in a text: the fields of the reader's MacroRef, cheap to make
# (and no `typing` import, which costs a cold `condorcfg lint` a few milliseconds).
MacroRef = namedtuple("MacroRef", "name default start end")


_SIMPLE_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)(?::([^()]*))?\)")
# A reference the reader's scanner accepts as written: identifier characters, and a default made
# of the characters it allows after the colon (no "$", no parentheses).
_PLAIN_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)(?::([A-Za-z0-9_./ ,\\:]*))?\)")


def macro_references(text: str) -> list:
    """The ``$(X)`` / ``$(X:default)`` references written in a raw value."""
    if not text or "$" not in text:
        return []  # most values refer to nothing; no need to scan them
    return list(_references(text))


@lru_cache(maxsize=16384)
def _references(text: str) -> tuple:
    # Several rules scan the same values; the references of a text never change.
    try:
        from condorcfg.config.macros import references
    except ImportError:
        references = None
    if references is None:
        return tuple(MacroRef(m.group(1), m.group(2), m.start(), m.end()) for m in _SIMPLE_REF.finditer(text))
    # Fast path: when every `$` starts a plain $(NAME) or $(NAME:default) (no functions, no $$,
    # no nesting), the simple pattern finds exactly what the reader's scanner does.
    simple = list(_PLAIN_REF.finditer(text))
    if len(simple) == text.count("$") and not any(m.group(1).upper() == "DOLLAR" for m in simple):
        return tuple(MacroRef(m.group(1), m.group(2), m.start(), m.end()) for m in simple)
    try:
        return tuple(references(text))
    except Exception:  # a reader bug must not take a rule down with it
        return tuple(MacroRef(m.group(1), m.group(2), m.start(), m.end()) for m in _SIMPLE_REF.finditer(text))


def written_span(ctx, definition, pattern) -> tuple | None:
    """Span of the first match of ``pattern`` in the value as written in the file (single-line values)."""
    span = ctx.value_span(definition)
    if span is None or definition.location is None:
        return None
    lines = ctx.source_lines(definition.location.file)
    line, column = span[0], span[1]
    if not 0 < line <= len(lines):
        return None
    found = pattern.search(lines[line - 1], column - 1)
    if not found:
        return None
    return line, found.start() + 1, line, found.end() + 1


def raw_span(ctx, definition, start: int, end: int) -> tuple | None:
    """Span of characters ``start:end`` of a definition's raw value in its file.

    Falls back to the whole value when the stored text is not what the file says (a self
    reference HTCondor already expanded, a multi-line value).
    """
    span = ctx.value_span(definition)
    raw = definition.raw or ""
    if span is None or "\n" in raw[:end] or start < 0:
        return span
    line, column = span[0], span[1]
    lines = ctx.source_lines(definition.location.file) if definition.location else []
    written = lines[line - 1] if 0 < line <= len(lines) else ""
    if written[column - 1 + start:column - 1 + end] != raw[start:end]:
        return span
    return line, column + start, line, column + max(end, start + 1)


def word_span(ctx, definition, word: str) -> tuple | None:
    """Span of the first whole-word ``word`` in the lines that wrote ``definition`` (its first line and the
    lines a trailing `\\` continues it onto), or the value's span: an item of a list written over several
    lines is pointed at on its own line."""
    span = ctx.value_span(definition)
    if span is None or definition.location is None:
        return span
    lines = ctx.source_lines(definition.location.file)
    pattern = re.compile(r"(?<![A-Za-z0-9_.])" + re.escape(word) + r"(?![A-Za-z0-9_])", re.IGNORECASE)
    line, column = span[0], span[1]
    while 0 < line <= len(lines):
        text = lines[line - 1]
        if not text.lstrip().startswith("#"):
            found = pattern.search(text, column - 1)
            if found:
                return line, found.start() + 1, line, found.end() + 1
        if not text.rstrip().endswith("\\"):
            break
        line, column = line + 1, 1
    return span


def word_spans(ctx, definition) -> dict:
    """Upper-case word -> the span :func:`word_span` gives it, for every undotted word of the lines that
    wrote ``definition``, found in one scan (for a check that points at many words of one long list)."""
    spans: dict = {}
    span = ctx.value_span(definition)
    if span is None or definition.location is None:
        return spans
    lines = ctx.source_lines(definition.location.file)
    line, column = span[0], span[1]
    while 0 < line <= len(lines):
        text = lines[line - 1]
        if not text.lstrip().startswith("#"):
            for found in _SPAN_WORD.finditer(text, column - 1):
                spans.setdefault(found.group().upper(), (line, found.start() + 1, line, found.end() + 1))
        if not text.rstrip().endswith("\\"):
            break
        line, column = line + 1, 1
    return spans


_SPAN_WORD = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z0-9_]+(?![A-Za-z0-9_])")


# ------------------------------------------------------------------ ClassAd trees

def children(node) -> tuple:
    """The direct sub-expressions of a ClassAd tree node (see condorcfg.classad.ast.children)."""
    from condorcfg.classad.ast import children as tree_children

    return tree_children(node)


def walk(node) -> Iterator:
    """Every node of a tree, parents first (see condorcfg.classad.ast.walk)."""
    from condorcfg.classad.ast import walk as tree_walk

    return tree_walk(node)


def strip_parens(node):
    from condorcfg.classad import ast

    while isinstance(node, ast.Paren):
        node = node.inner
    return node


def expanded(ctx, definition) -> str | None:
    """``ctx.expanded(definition)``: the expanded value, None when expansion fails (MAC202 reports a cycle,
    CFG006 a limit reached)."""
    return ctx.expanded(definition)


def value(ctx, name: str) -> str | None:
    """``config.value(name)``, None on an expansion failure."""
    from condorcfg.diagnostics import CondorcfgError

    try:
        return ctx.config.value(name)
    except (CondorcfgError, RecursionError):
        return None


def parsed(ctx, definition):
    """``(node, error, expanded_text)`` for a definition's expanded value; node None if empty/unparsable."""
    text = expanded(ctx, definition)
    if text is None:
        return None, None, ""
    if not text.strip():
        return None, None, text
    node, err = ctx.parse_expression(text)
    return node, err, text


def literal_value(node):
    """The Python value of a literal (after parentheses), or a sentinel when not a literal."""
    from condorcfg.classad import ast

    node = strip_parens(node)
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.AttrRef) and node.scope is None and node.name.lower() in ("true", "false"):
        return node.name.lower() == "true"
    return _NOT_LITERAL


_NOT_LITERAL = object()


def is_literal(node) -> bool:
    return literal_value(node) is not _NOT_LITERAL


def word_in(name: str, text: str) -> bool:
    """``name`` occurs in ``text`` as a whole identifier (case-insensitive)."""
    return re.search(r"(?<![A-Za-z0-9_$])" + re.escape(name) + r"(?![A-Za-z0-9_])", text or "", re.IGNORECASE) \
        is not None


# Lists whose entries are knob names copied into a daemon's ad (config_fill_ad):
# <SUBSYS>_ATTRS / _EXPRS, with an optional local-name or SLOT<N> prefix.  Lists of job or
# slot *attribute* names (STARTD_JOB_ATTRS, SYSTEM_JOB_MACHINE_ATTRS, ...) are not exports.
EXPORT_LIST = re.compile(
    r"(?:(?:SLOT\d+|[A-Za-z0-9]+)_)?(STARTD|SCHEDD|MASTER|COLLECTOR|NEGOTIATOR|SUBMIT|SHADOW|STARTER|DEFRAG|"
    r"GRIDMANAGER|CREDD|JOB_ROUTER|GANGLIAD|SHARED_PORT|HAD|REPLICATION|KBDD|ROOSTER)_(ATTRS|EXPRS)",
    re.IGNORECASE)
_NOT_EXPORTS = re.compile(r"(SYSTEM_)?(STARTD_JOB|STARTD_SLOT|STARTD_PARTITIONABLE_SLOT|STARTD_LATCH|"
                          r"TRANSFER_JOB|SYSTEM_JOB_MACHINE|STARTD_VM|BROKEN_SLOT_CONTEXT)_(ATTRS|EXPRS)",
                          re.IGNORECASE)


def expression_names(ctx) -> set[str]:
    """The defined names (as spelled) of expression-valued knobs (``EXPRESSION_KNOBS``), ``SUBSYS.`` or
    ``LOCALNAME.`` prefixes ignored; once per run."""
    return _expression_names(ctx)[0]


def written_expression_names(ctx) -> set[str]:
    """The defined names that ``EXPRESSION_KNOBS`` matches as written, prefix and all; once per run."""
    return _expression_names(ctx)[1]


def _expression_names(ctx) -> tuple[set[str], set[str]]:
    found = ctx.shared.get("expression_names")
    if found is None:  # (one match of the long pattern per plain name serves both)
        by_base, as_written = set(), set()
        for name in ctx.names():
            if "." in name:
                if EXPRESSION_KNOBS.fullmatch(name.rsplit(".", 1)[1]):
                    by_base.add(name)
                if EXPRESSION_KNOBS.fullmatch(name):
                    as_written.add(name)
            elif EXPRESSION_KNOBS.fullmatch(name):
                by_base.add(name)
                as_written.add(name)
        found = ctx.shared["expression_names"] = (by_base, as_written)
    return found


def export_lists(ctx) -> list[str]:
    """Names of the export lists defined in this configuration (computed once per lint run)."""
    found = ctx.shared.get("export_lists")
    if found is None:
        found = ctx.shared["export_lists"] = [
            n for n in ctx.names()
            if EXPORT_LIST.fullmatch(n.split(".")[-1]) and not _NOT_EXPORTS.fullmatch(n.split(".")[-1])]
    return list(found)


def exported_names(ctx) -> dict[str, object]:
    """Upper-case knob names exported into daemon ads by an export list -> the list's Definition."""
    found = ctx.shared.get("exported_names")
    if found is None:
        found = ctx.shared["exported_names"] = _exported_names(ctx)
    return dict(found)


def _exported_names(ctx) -> dict[str, object]:
    found: dict[str, object] = {}
    for name in export_lists(ctx):
        definition = ctx.config.source(name)
        if definition is None:
            continue
        text = value(ctx, name) or ""
        for item in re.split(r"[\s,]+", text):
            if item and _NAME.fullmatch(item):
                found.setdefault(item.upper(), definition)
    return found


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def prefixed_bases(ctx) -> set[str]:
    """Upper-case X of every ``PREFIX.X`` defined (``STARTD.X`` defines X for one daemon); once per run.

    Every part after a dot counts: ``A.B.X`` gives ``B.X`` and ``X``.
    """
    found = ctx.shared.get("prefixed_bases")
    if found is None:
        found = ctx.shared["prefixed_bases"] = set()
        for name in ctx.names():
            parts = name.upper().split(".")
            found.update(".".join(parts[i:]) for i in range(1, len(parts)))
    return found


def user_use_statement(ctx, location):
    """The `use` statement the user wrote that (perhaps through nested templates) applied ``location``'s use."""
    by_location = getattr(ctx, "_h7_use_statements", None)
    if by_location is None:
        by_location = {}
        for statement in getattr(ctx.config, "statements", ()) or ():
            if statement.kind == "use":
                by_location[_loc_key(statement.location)] = statement
        ctx._h7_use_statements = by_location
    statement = None
    for _ in range(32):  # nesting is bounded by the reader; this only guards against loops
        found = by_location.get(_loc_key(location))
        if found is None:
            return statement
        statement = found
        if getattr(found, "template", None) is None or found.use_location is None:
            return found
        location = found.use_location
    return statement


def _loc_key(location):
    return (location.file, location.line) if location is not None else None


def template_origin(ctx, definition) -> tuple[str, object]:
    """For a template's definition: (the user's `use` text, its Location), resolving nested templates."""
    statement = user_use_statement(ctx, definition.use_location)
    if statement is None:
        return f"use {definition.template}", definition.use_location
    return " ".join(statement.text.split()), statement.location


def empty_macros(ctx, definition, depth: int = 0) -> list[str]:
    """Macros in the raw value (transitively) that expand to nothing: the usual cause of a parse error."""
    found = []
    for ref in macro_references(definition.raw or ""):
        if ref.default is not None or not ref.name or depth > 8:
            continue
        target = ctx.config.source(ref.name)
        text = expanded(ctx, target) if target is not None else ""
        if not (text or "").strip():
            found.append(ref.name)
        elif target is not None and target is not definition:
            found.extend(empty_macros(ctx, target, depth + 1))
    return list(dict.fromkeys(found))


def empty_macro_causes(ctx, definition) -> frozenset:
    """The macros that expand to nothing in ``definition``'s value when they are why it does not parse.

    Each is replaced by ``0`` and the value expanded and parsed again: when it then parses, those macros
    are the whole problem (one root cause: the finding says to define them, never to quote the value).
    Empty when the value is broken for another reason too, or when no macro expands to nothing.
    """
    from condorcfg.config import macros
    from condorcfg.diagnostics import CondorcfgError

    empty = {name.upper() for name in empty_macros(ctx, definition)}
    if not empty or not (definition.raw or "").strip():
        return frozenset()
    config = ctx.config

    def evaluate(found):
        if found.kind == macros.NORMAL:
            name, _default = macros.split_body(found.body)
            if name and name.strip().upper() in empty:
                return "0"
        return config._evaluate(found)

    try:
        text = macros.expand(definition.raw, evaluate, config.budget)
    except (CondorcfgError, macros.ExpansionLimit, RecursionError):
        return frozenset()
    node, err = ctx.parse_expression(text)
    return frozenset(empty) if err is None and node is not None else frozenset()


def empty_macro_notes(ctx, definition) -> list[str]:
    """``$(X) expands to nothing here`` notes explaining a broken value."""
    return [f"$({name}) expands to nothing here" + ("" if ctx.config.source(name) else f" ({not_defined(name)})")
            for name in empty_macros(ctx, definition)]


def not_defined(name: str) -> str:
    """"it is not defined", and which templates would define it (UWCS_START: `use FEATURE : ...`)."""
    from condorcfg.config.templates import templates_assigning

    uses = templates_assigning(name)
    if not uses:
        return "it is not defined"
    return f"it is not defined; only a template defines it: {' or '.join(f'`use {u}`' for u in uses[:3])}"


def trailing_comment_offset(raw: str) -> int | None:
    """Offset of a ``#`` that starts a would-be comment (after a blank, outside quotes), or None."""
    if '"' not in raw:  # (the usual value: no quotes to track, so no need to look at each character)
        at = raw.find("#", 1)
        while at > 0 and raw[at - 1] not in " \t":
            at = raw.find("#", at + 1)
        return at if at > 0 else None
    quoted = False
    previous = " "
    for index, char in enumerate(raw):
        if char == '"' and previous != "\\":
            quoted = not quoted
        elif char == "#" and not quoted and previous in " \t" and index > 0:
            return index
        previous = char
    return None


# -- names the configuration uses (KNB303's "nothing refers to it", UPG906, condorcfg upgrade) -----------------

_DEFINED_TEST = re.compile(r"\bdefined\s+([A-Za-z_][A-Za-z0-9_.]*)", re.IGNORECASE)


def referenced_names(ctx) -> set[str]:
    """Upper-case names that any value, condition or include refers to with $(X) or `defined X`; once per run."""
    found = ctx.shared.get("referenced_names")
    if found is not None:
        return found
    used = set()
    # A statement's text is usually the very string of its definition's: scan each string once.
    # (By identity: hashing megabytes of appended list values would cost more than it saves.)
    texts: dict[int, str] = {}
    history = ctx.config.history
    for name in ctx.names():
        for definition in history(name):
            raw = definition.raw
            if raw:
                texts[id(raw)] = raw
            text = getattr(definition, "text", None)
            if text:
                texts[id(text)] = text
    for statement in getattr(ctx.config, "statements", ()) or ():
        text = getattr(statement, "text", "")
        if text:
            texts[id(text)] = text
    for text in texts.values():
        if "$" in text:
            for ref in macro_references(text):
                if ref.name:
                    used.add(ref.name.split(":")[0].upper())
                    used.add(ref.name.split(".")[-1].upper())
        if "defined" in text.lower():  # cheap test first: most texts have no condition
            for match in _DEFINED_TEST.finditer(text):
                used.add(match.group(1).upper())
    ctx.shared["referenced_names"] = used
    return used


def attribute_names(ctx) -> set[str]:
    """Upper-case names used as attributes in the expressions of the configuration (START = KeyboardBusy ...)."""
    found = ctx.shared.get("attribute_names")
    if found is not None:
        return found
    names = set()
    expressions = written_expression_names(ctx)
    for name in ctx.names():
        if name not in expressions:
            continue
        definition = ctx.config.source(name)
        node = parsed(ctx, definition)[0] if definition is not None else None
        if node is not None:
            names.update(r.name.upper() for r in ctx.references(node))
    ctx.shared["attribute_names"] = names
    return names


def used_names(ctx) -> set[str]:
    """Upper-case names the configuration uses: referred to as $(X) or `defined X` anywhere (values, conditions,
    includes), exported by an export list (STARTD_ATTRS and the like), used as an attribute in an expression
    knob, or named by STARTER_LIST / SHADOW_LIST.  A name used so is a macro: whatever knob tables say, its
    value is read (through what uses it) in every release, so it is never "unknown" and never "does nothing".
    KNB303 (unknown-knob), UPG906 (knob-unknown-in-target) and ``condorcfg upgrade`` decide "used" here, once
    per run."""
    found = ctx.shared.get("used_names")
    if found is None:
        found = set(referenced_names(ctx)) | set(exported_names(ctx)) | attribute_names(ctx)
        for name in ("STARTER_LIST", "SHADOW_LIST"):
            found.update(item.upper() for item in re.split(r"[\s,]+", value(ctx, name) or "") if item)
        ctx.shared["used_names"] = found
    return found


def is_used(ctx, name: str) -> bool:
    """Whether ``name`` (or its base, without a SUBSYS./LOCALNAME. prefix) is in :func:`used_names`."""
    used = used_names(ctx)
    return name.upper() in used or name.split(".")[-1].upper() in used


def repeats_default(ctx, definition) -> bool:
    """Whether ``definition`` writes exactly HTCondor's built-in default of its knob (a `condor_config_val -dump`
    copy, or a stock line kept): what it names then behaves as on every host without the line, so a finding
    about the names it uses would be about HTCondor's own default."""
    if definition is None or not getattr(definition, "name", None):
        return False
    default = ctx.config.defaults.get(definition.name.split(".")[-1].upper())
    raw = getattr(definition, "raw", None)
    return default is not None and raw is not None and " ".join(raw.split()) == " ".join(default.split())
