"""Follow a policy expression to the attributes it really reads.

An expression reaches an attribute directly, through ``$(MACRO)`` text that the config
expands into it, or through another slot-ad attribute that is itself a config expression
(``IS_OWNER = (START =?= False)`` reads whatever START reads; a knob exported with
STARTD_ATTRS is an attribute of the slot ad).  :func:`trace_attributes` yields every
attribute reference with the chain of definitions that led to it, and :func:`responsible`
picks the definition a user should edit (the last one they wrote), so that a rule never
blames HTCondor's own templates or defaults for a problem the user introduced.
"""
from __future__ import annotations

import re

from condorcfg.lint.checks._util import expanded, is_user, macro_references, parsed, raw_span, word_in, written_span
from condorcfg.records import factory, record

MAX_DEPTH = 16  # attribute/macro chains longer than this are not followed (cycles, hostile input)

# Slot-ad attributes that are config policy expressions (attribute name -> knob).
POLICY_ATTRIBUTES = {"START": "START", "RANK": "RANK", "ISOWNER": "IS_OWNER", "SUSPEND": "SUSPEND",
                     "CONTINUE": "CONTINUE", "PREEMPT": "PREEMPT", "KILL": "KILL",
                     "WANT_SUSPEND": "WANT_SUSPEND", "WANT_VACATE": "WANT_VACATE"}


@record
class Reach:
    """``attribute`` (as written, with ``scope``) read by the expression of ``path[-1]``."""

    attribute: str
    scope: str | None
    line: int
    column: int
    path: list = factory(list)  # Definitions: the traced knob, then the attributes followed


def slot_attribute_knobs(ctx, exported: dict) -> dict[str, str]:
    """Upper-case slot-ad attribute -> knob whose expression defines it."""
    table = dict(POLICY_ATTRIBUTES)
    for name in exported:
        table.setdefault(name, name)
    return table


def trace_attributes(ctx, definition, attribute_knobs: dict[str, str], depth: int = 0, seen=None):
    """Yield a :class:`Reach` for every attribute the definition's expression reads, transitively."""
    seen = set() if seen is None else seen
    key = definition.name.upper()
    if key in seen or depth > MAX_DEPTH:
        return
    seen.add(key)
    node, err, _text = parsed(ctx, definition)
    if node is None:
        return
    for ref in ctx.references(node):
        scope = (ref.scope or "").upper() or None
        yield Reach(ref.name, scope, ref.line, ref.column, [definition])
        knob = attribute_knobs.get(ref.name.upper()) if scope in (None, "MY") else None
        if knob is None:
            continue
        target = ctx.config.source(knob)
        if target is None:
            continue
        for inner in trace_attributes(ctx, target, attribute_knobs, depth + 1, seen):
            inner.path.insert(0, definition)
            yield inner


def macro_chain(ctx, definition, word: str, depth: int = 0) -> list:
    """Definitions from ``definition`` down the ``$(X)`` references to the one that writes ``word``."""
    raw = definition.raw or ""
    if word_in(word, _without_macros(raw)) or depth > MAX_DEPTH:
        return [definition]
    for ref in macro_references(raw):
        target = ctx.config.source(ref.name)
        if target is None or target is definition:
            continue
        if word_in(word, expanded(ctx, target) or ""):
            return [definition, *macro_chain(ctx, target, word, depth + 1)]
    return [definition]


def _without_macros(raw: str) -> str:
    return re.sub(r"\$\([^()]*\)", " ", raw)


def full_chain(ctx, reach: Reach) -> list:
    """Every definition from the traced knob to the one writing the attribute (attributes, then macros)."""
    chain = list(reach.path[:-1])
    for index, definition in enumerate(reach.path[:-1]):
        nxt = reach.path[index + 1]
        # the step to the next attribute may itself come through a macro
        chain[index:index + 1] = macro_chain(ctx, definition, _attribute_word(nxt))
    return [*chain, *macro_chain(ctx, reach.path[-1], reach.attribute)]


def _attribute_word(definition) -> str:
    for attribute, knob in POLICY_ATTRIBUTES.items():
        if knob == definition.name.upper():
            return "Start" if knob == "START" else definition.name
    return definition.name


def responsible(chain: list):
    """The last definition in the chain that the user wrote (None: only templates/defaults)."""
    for definition in reversed(chain):
        if is_user(definition):
            return definition
    return None


def span_for(ctx, definition, chain: list, word: str):
    """Where in ``definition``'s value the chain continues: the next ``$(X)``, or ``word`` itself."""
    raw = definition.raw or ""
    index = next((i for i, d in enumerate(chain) if d is definition), None)
    if index is not None and index + 1 < len(chain):
        nxt = chain[index + 1].name
        for ref in macro_references(raw):
            if ref.name.upper() == nxt.upper():
                return raw_span(ctx, definition, ref.start, ref.end)
        word = _attribute_word(chain[index + 1])
    pattern = re.compile(r"(?<![A-Za-z0-9_$])(?:[A-Za-z]+\.)?" + re.escape(word) + r"(?![A-Za-z0-9_])", re.IGNORECASE)
    written = written_span(ctx, definition, pattern)
    if written is not None:
        return written
    found = pattern.search(raw)
    if found:
        return raw_span(ctx, definition, found.start(), found.end())
    return ctx.value_span(definition)


def route(chain: list) -> str:
    """`` through START, through $(X)`` for a message."""
    steps = []
    for previous, definition in zip(chain, chain[1:]):
        steps.append(f"$({definition.name})" if _is_macro_step(previous, definition) else definition.name)
    return "".join(f" through {s}" for s in steps)


def _is_macro_step(previous, definition) -> bool:
    return any(r.name.upper() == definition.name.upper() for r in macro_references(previous.raw or ""))
