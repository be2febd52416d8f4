"""Macro checks (MAC): ``$(X)`` references to nothing, reference cycles, dead assignments.

HTCondor expands ``$(X)`` lazily, when a value is read, against the final configuration:
a macro defined later in the files is fine, an undefined one silently expands to nothing,
and a cycle hangs the daemon (config-language.md 7-8).
"""
from __future__ import annotations

import difflib
import re

from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import describe, is_user, macro_references, raw_span, value

_NOT_KNOBS = {"DOLLAR"}
# Values in the job router / schedd transform language: their $(X) are the transform's own variables,
# expanded by the transform engine, not by the configuration reader.
_TRANSFORMS = re.compile(r"JOB_ROUTER_(ROUTE|TRANSFORM|PRE_ROUTE_TRANSFORM|POST_ROUTE_TRANSFORM)_.+|"
                         r"JOB_TRANSFORM_.+|JOB_ROUTER_(DEFAULTS|ENTRIES)", re.IGNORECASE)
MAX_CYCLE_STARTS = 20_000  # bounded work on huge configurations


def _defined_somewhere(ctx, name: str, suffixes: set[str]) -> bool:
    if ctx.config.source(name) is not None:
        return True
    # `STARTD.X` / `LOCALNAME.X` defines X for that daemon only: not undefined there.
    return name.upper() in suffixes


@check
def undefined_macro(ctx):
    names = ctx.config.names()
    suffixes = {n.split(".", 1)[1].upper() for n in names if "." in n}
    known = None
    for name in names:
        definition = ctx.config.source(name)
        if not is_user(definition) or _TRANSFORMS.fullmatch(name):
            continue
        for ref in macro_references(definition.raw or ""):
            target = (ref.name or "").strip()
            if ref.default is not None or not target or target.upper() in _NOT_KNOBS or target.isdigit():
                continue
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", target):
                continue  # a computed name such as $($(X)_HOST): checked through X
            if _defined_somewhere(ctx, target, suffixes) or ctx.is_site_knob(target):
                continue
            if ctx.knowledge.is_host_fact(target):
                continue  # HTCondor defines it at start-up
            if known is None:
                known = list(dict.fromkeys(n.upper() for n in names))
            close = difflib.get_close_matches(target.upper(), known, n=1, cutoff=0.8)
            hint = f"; did you mean $({close[0]})?" if close else ""
            shown = value(ctx, name)
            reads = f", so {name} reads as `{shown}`" if shown is not None and len(shown) < 80 else ""
            yield ctx.finding(f"$({target}) is not defined anywhere in this configuration and has no default: it "
                              f"expands to nothing{reads}{hint}", at=definition,
                              span=raw_span(ctx, definition, ref.start, ref.end),
                              fix=f"define {target}, correct the name, or give a default: $({target}:value)")


def _find_cycle(ctx, start: str):
    finder = getattr(ctx.config, "find_cycle", None)
    if finder is not None:
        return finder(start)
    path, on_path, done = [], set(), set()

    def visit(name):  # small configurations only reach here (the reader provides find_cycle)
        key = name.upper()
        if key in on_path:
            return path[[p.upper() for p in path].index(key):] + [name]
        if key in done:
            return None
        raw = ctx.config.raw(name)
        path.append(name)
        on_path.add(key)
        for ref in macro_references(raw or ""):
            if ref.name and ref.name.upper() not in _NOT_KNOBS and ref.name.upper() != key:
                found = visit(ref.name)
                if found:
                    return found
        path.pop()
        on_path.discard(key)
        done.add(key)
        return None

    return visit(start)


@check
def macro_cycle(ctx):
    seen_cycles = set()
    order = {n.upper(): i for i, n in enumerate(ctx.config.names())}
    for name in ctx.config.names()[:MAX_CYCLE_STARTS]:
        try:
            cycle = _find_cycle(ctx, name)
        except RecursionError:
            cycle = None
        if not cycle:
            continue
        members = cycle[:-1] if len(cycle) > 1 and cycle[0].upper() == cycle[-1].upper() else cycle
        key = frozenset(m.upper() for m in members)
        if key in seen_cycles:
            continue
        seen_cycles.add(key)
        definitions = [ctx.config.source(m) for m in members]
        users = [d for d in definitions if is_user(d)]
        if not users:
            continue  # only templates/defaults: not the user's doing
        first = min(users, key=lambda d: order.get(d.name.upper(), 1 << 30))
        start = members.index(first.name) if first.name in members else 0
        ring = members[start:] + members[:start] + [members[start]]
        nxt = ring[1]
        span = None
        for ref in macro_references(first.raw or ""):
            if ref.name.upper() == nxt.upper():
                span = raw_span(ctx, first, ref.start, ref.end)
                break
        notes = [f"{d.name} is set at {describe(d)}" for d in definitions if d is not None and d is not first]
        yield ctx.finding(f"macro reference cycle {' -> '.join(ring)}: expanding {first.name} never ends "
                          f"(HTCondor hangs reading it)", at=first, span=span or ctx.value_span(first),
                          notes=notes)


def _refers_to_itself(definition) -> bool:
    text = getattr(definition, "text", None)
    if text is None:
        return True  # cannot tell: assume the later line uses the earlier value
    name = definition.name
    after = text.split("=", 1)[1] if "=" in text else text
    return any(r.name.upper() == name.upper() for r in macro_references(after))


@check
def duplicate_assignment(ctx):
    for name in ctx.config.names():
        history = ctx.config.history(name)
        for earlier, later in zip(history, history[1:]):
            if earlier.origin != "file" or later.origin != "file":
                continue
            if earlier.location is None or later.location is None or earlier.location.file != later.location.file:
                continue
            if _refers_to_itself(later):
                continue
            same = (earlier.raw or "").strip() == (later.raw or "").strip()
            what = "to the same value" if same else "without using this value"
            yield ctx.finding(f"{name} is assigned again at line {later.location.line} {what}, so this "
                              f"assignment has no effect", at=earlier, span=ctx.value_span(earlier),
                              notes=[f"the effective {name} is at {describe(history[-1])}"])
