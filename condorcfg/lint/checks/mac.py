"""Macro checks (MAC): ``$(X)`` references to nothing, reference cycles, dead assignments.

HTCondor expands ``$(X)`` lazily, when a value is read, against the final configuration:
a macro defined later in the files is fine, an undefined one silently expands to nothing,
and a cycle hangs the daemon (config-language.md 7-8).
"""
from __future__ import annotations

import re
from bisect import bisect_right

from condorcfg.diagnostics import Text
from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import (describe, is_user, macro_references, raw_span, repeats_default,
                                         user_definitions, value)

_NOT_KNOBS = {"DOLLAR"}
# Values in the job router / schedd transform language: their $(X) are the transform's own variables,
# expanded by the transform engine, not by the configuration reader.
_TRANSFORMS = re.compile(r"JOB_ROUTER_(ROUTE|TRANSFORM|PRE_ROUTE_TRANSFORM|POST_ROUTE_TRANSFORM)_.+|"
                         r"JOB_TRANSFORM_.+|JOB_ROUTER_(DEFAULTS|ENTRIES)", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
MAX_GRAPH_NODES = 200_000  # bounded work on huge configurations


def _defined_somewhere(ctx, name: str, suffixes: set[str]) -> bool:
    if ctx.config.source(name) is not None:
        return True
    # `STARTD.X` / `LOCALNAME.X` defines X for that daemon only: not undefined there.
    return name.upper() in suffixes


MAX_SUGGESTED_LENGTH = 64  # a longer name gets no did-you-mean (nobody mistypes a name that long by hand)
MAX_CANDIDATES = 16  # defined names compared with each undefined one at most


def _one_edit_keys(name: str) -> set[str]:
    """The name and every way of deleting one character from it: two names one edit apart (a character
    added, removed, changed, or two swapped) share one of these keys."""
    return {name, *(name[:i] + name[i + 1:] for i in range(len(name)))}


class _Suggestions:
    """Did-you-mean for undefined macros in bounded work per macro.

    Comparing each undefined name with every defined one (difflib.get_close_matches) made the rule
    quadratic: 8,000 undefined macros in 178 KiB took 32 s.  Here the candidates are the defined names
    one edit away, found through shared keys (:func:`_one_edit_keys`), at most ``MAX_CANDIDATES`` of
    them (first found, in key and reading order), and the best by difflib's ratio (0.8 or more, as
    before) is suggested.  A typo of two edits in a long name, which the full scan could still match, is
    left without a suggestion.
    """

    def __init__(self, names: list[str]):
        self.spelling: dict[str, str] = {}
        self.index: dict[str, list[str]] = {}
        for name in names:
            upper = name.upper()
            if upper in self.spelling or len(upper) > MAX_SUGGESTED_LENGTH:
                continue
            self.spelling[upper] = name
            for key in _one_edit_keys(upper):
                bucket = self.index.setdefault(key, [])
                if len(bucket) < MAX_CANDIDATES:  # (no more than that is ever compared)
                    bucket.append(upper)

    def suggest(self, target: str) -> str | None:
        """The defined name (as written) closest to ``target``, or None."""
        from difflib import SequenceMatcher

        wanted = target.upper()
        if len(wanted) > MAX_SUGGESTED_LENGTH:
            return None
        candidates: dict[str, None] = {}
        for key in sorted(_one_edit_keys(wanted), key=lambda key: (key != wanted, key)):
            for upper in self.index.get(key, ()):
                if upper != wanted and len(candidates) < MAX_CANDIDATES:
                    candidates[upper] = None
        matcher = SequenceMatcher()
        matcher.set_seq2(wanted)
        best, best_ratio = None, 0.8
        for upper in candidates:
            matcher.set_seq1(upper)
            if matcher.real_quick_ratio() >= best_ratio and matcher.quick_ratio() >= best_ratio:
                ratio = matcher.ratio()
                if ratio > best_ratio or (ratio == best_ratio and best is None):
                    best, best_ratio = upper, ratio
        return self.spelling[best] if best is not None else None


@check
def undefined_macro(ctx):
    names = ctx.names()
    suffixes = {n.split(".", 1)[1].upper() for n in names if "." in n}
    suggestions = None
    for name, definition in user_definitions(ctx):
        if _TRANSFORMS.fullmatch(name) or repeats_default(ctx, definition):
            continue
        for ref in macro_references(definition.raw or ""):
            target = (ref.name or "").strip()
            if ref.default is not None or not target or target.upper() in _NOT_KNOBS or target.isdigit():
                continue
            if not _NAME.fullmatch(target):
                continue  # a computed name such as $($(X)_HOST): checked through X
            if _defined_somewhere(ctx, target, suffixes) or ctx.is_site_knob(target):
                continue
            if ctx.knowledge.is_host_fact(target):
                continue  # HTCondor defines it at start-up
            if suggestions is None:  # (only when there is something to suggest)
                suggestions = _Suggestions(names)
            close = suggestions.suggest(target)
            hint = f"; did you mean $({close})?" if close else ""
            shown = value(ctx, name)
            reads = f", so {name} reads as `{shown}`" if shown is not None and len(shown) < 80 else ""
            from condorcfg.config.templates import templates_assigning

            uses = templates_assigning(target)
            origin = (f" (only a template defines it: {' or '.join(f'`use {u}`' for u in uses[:3])})"
                      if uses else "")
            yield ctx.finding(f"$({target}) is not defined anywhere in this configuration and has no default{origin}: "
                              f"it expands to nothing{reads}{hint}", at=definition,
                              span=raw_span(ctx, definition, ref.start, ref.end), causes=frozenset({target.upper()}),
                              fix=f"define {target}, correct the name, or give a default: $({target}:value)")


def _graph(ctx) -> dict[str, tuple[str, list[str]]]:
    """upper name -> (spelling, [upper names its effective raw value refers to]), defaults included.

    Only names whose value refers to something are nodes: the others can be in no cycle, and on a
    big configuration most values are plain (a node each cost time and memory for nothing).
    """
    graph: dict[str, tuple[str, list[str]]] = {}
    seen: set[str] = set()
    pending = list(ctx.names())
    while pending and len(graph) < MAX_GRAPH_NODES:
        name = pending.pop()
        key = name.upper()
        if key in seen:
            continue
        seen.add(key)
        raw = ctx.config.raw(name) or ""
        if "$" not in raw:
            continue
        targets = []
        for ref in macro_references(raw):
            target = (ref.name or "").strip()
            if target and target.upper() not in _NOT_KNOBS and target.upper() != key:
                targets.append(target.upper())
                if target.upper() not in seen:
                    pending.append(target)
        graph[key] = (name, list(dict.fromkeys(targets)))
    return graph


def _strong_components(graph) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (chains of thousands of macros must not hit the recursion limit)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    known_edges: dict[str, list[str]] = {}  # computed once per node, not once per step over its edges
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                known_edges[node] = [t for t in graph[node][1] if t in graph]
            edges = known_edges[node]
            if position < len(edges):
                work.append((node, position + 1))
                target = edges[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _cycle_from(graph, start: str, members: set[str]) -> list[str]:
    """The shortest path start -> ... -> start inside one strongly connected component."""
    previous = {start: None}
    queue = [start]
    for node in queue:
        for target in graph[node][1]:
            if target == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if target in members and target not in previous:
                previous[target] = node
                queue.append(target)
    return [start, start]


@check
def macro_cycle(ctx):
    graph = _graph(ctx)
    cyclic: set[str] = set()
    order = None  # upper name -> its place in names(), made for the first cycle (most configurations have none)
    for component in _strong_components(graph):
        definitions = {key: ctx.config.source(graph[key][0]) for key in component}
        users = [key for key, d in definitions.items() if is_user(d)]
        if not users:
            continue  # only templates/defaults: not the user's doing
        if order is None:
            order = {n.upper(): i for i, n in enumerate(ctx.names())}
        first_key = min(users, key=lambda key: order.get(key, 1 << 30))
        first = definitions[first_key]
        ring = [graph[key][0] for key in _cycle_from(graph, first_key, set(component))]
        span = None
        if len(ring) > 1:
            for ref in macro_references(first.raw or ""):
                if ref.name.upper() == ring[1].upper():
                    span = raw_span(ctx, first, ref.start, ref.end)
                    break
        shown = ring if len(ring) <= 12 else ring[:6] + ["..."] + ring[-3:]
        notes = [Text("{name} is set at {where}", name=d.name, where=describe(d)) for key, d in definitions.items()
                 if d is not None and d is not first][:10]
        extra = f" ({len(component)} macros are involved)" if len(component) > len(ring) - 1 else ""
        yield ctx.finding(f"macro reference cycle {' -> '.join(shown)}: expanding {first.name} never ends "
                          f"(HTCondor hangs reading it){extra}", at=first, span=span or ctx.value_span(first),
                          notes=notes)
        cyclic.update(component)
    yield from _runaway_expansions(ctx, graph, cyclic)


def _closure(start: set[str], edges: dict[str, list[str]]) -> set[str]:
    seen, queue = set(start), list(start)
    while queue:
        for target in edges.get(queue.pop(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def _runaway_expansions(ctx, graph, cyclic: set[str]):
    """Expand every value that refers to something, to find what the graph of ``$(X)`` does not show.

    A cycle through a function's argument (``A = $INT(B)``, ``B = $(A)``) is a cycle: reported here.
    A value that only grows (``A = $(B)$(B)``, ``B = $(C)$(C)``, ...) or spends the expansion budget is no
    cycle: HTCondor would expand it, slowly, and condorcfg stops at a limit - the engine reports that,
    naming the limit (CFG006, it fails the run), never as a cycle.  Knobs that refer to a failed one, or
    that it refers to, fail for the same reason and are not expanded again.
    """
    from condorcfg.config import macros
    from condorcfg.diagnostics import CondorcfgError

    forward = {key: targets for key, (_name, targets) in graph.items()}
    reverse: dict[str, list[str]] = {}
    for key, targets in forward.items():
        for target in targets:
            reverse.setdefault(target, []).append(key)
    covered = _closure(set(cyclic), reverse)
    for name, definition in user_definitions(ctx):
        if "$" not in (definition.raw or ""):
            continue
        key = name.upper()
        if key in covered:
            continue
        try:
            ctx.config.value(name)
        except (CondorcfgError, RecursionError) as exc:
            if isinstance(exc, CondorcfgError) and (exc.diagnostic.code == "macro-cycle"
                                                     or macros.CYCLE_FOUND in exc.diagnostic.message):
                yield ctx.finding(f"expanding {name} does not finish: {exc.diagnostic.message}", at=definition,
                                  span=ctx.value_span(definition))
            covered |= _closure({key}, reverse) | _closure({key}, forward)


def _refers_to_itself(definition) -> bool:
    text = getattr(definition, "text", None)
    if text is None:
        return True  # cannot tell: assume the later line uses the earlier value
    name = definition.name
    after = text.split("=", 1)[1] if "=" in text else text
    return any(r.name.upper() == name.upper() for r in macro_references(after))


_READING_KINDS = ("if", "elif", "include", "use")
_TOKEN = re.compile(r"[A-Za-z0-9_]+")


class _Readers:
    """Where if/elif/include/use lines mention each word: file -> upper word -> sorted line numbers.

    Built once per lint run, so asking whether a name is read between two lines is a binary
    search instead of a scan of every statement (that was quadratic: 20,000 assignments of one
    knob took minutes).
    """

    def __init__(self, statements):
        self.words: dict[str, dict[str, list[int]]] = {}
        self.every: dict[str, list[int]] = {}  # file -> lines of all those statements
        self.texts: dict[tuple[str, int], list[str]] = {}
        for statement in statements:
            loc = statement.location
            if statement.kind not in _READING_KINDS or loc is None:
                continue
            text = statement.text or ""
            self.texts.setdefault((loc.file, loc.line), []).append(text)
            self.every.setdefault(loc.file, []).append(loc.line)
            words = self.words.setdefault(loc.file, {})
            for word in {token.upper() for token in _TOKEN.findall(text)}:
                words.setdefault(word, []).append(loc.line)
        for lines in self.every.values():
            lines.sort()
        for words in self.words.values():
            for lines in words.values():
                lines.sort()

    def mentioned(self, name: str, file: str, after: int, before: int) -> bool:
        """Some if/elif/include/use line of ``file`` strictly between the two lines names ``name``.

        A name occurs only where its last word is a whole word, so only those lines are searched.
        """
        parts = re.split(r"[./]", name)
        last = parts[-1].upper()
        candidates = self.words.get(file, {}).get(last, []) if last else self.every.get(file, [])
        index = bisect_right(candidates, after)
        if len(parts) == 1:
            return index < len(candidates) and candidates[index] < before
        pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", re.IGNORECASE)
        while index < len(candidates) and candidates[index] < before:
            if any(pattern.search(text) for text in self.texts[(file, candidates[index])]):
                return True
            index += 1
        return False


def _read_between(ctx, name: str, earlier, later) -> bool:
    """An if/elif/include/use between the two lines reads ``name`` while the file is being read."""
    readers = ctx.shared.get("mac_readers")
    if readers is None:
        readers = ctx.shared["mac_readers"] = _Readers(getattr(ctx.config, "statements", ()) or ())
    return readers.mentioned(name, earlier.location.file, earlier.location.line, later.location.line)


@check
def duplicate_assignment(ctx):
    for name in ctx.names():
        history = ctx.config.history(name)
        if len(history) < 2:
            continue  # (most names are assigned once)
        for earlier, later in zip(history, history[1:]):
            if earlier.origin != "file" or later.origin != "file":
                continue
            if earlier.location is None or later.location is None or earlier.location.file != later.location.file:
                continue
            if _refers_to_itself(later) or _read_between(ctx, name, earlier, later):
                continue
            same = (earlier.raw or "").strip() == (later.raw or "").strip()
            what = "to the same value" if same else "without using this value"
            yield ctx.finding(f"{name} is assigned again at line {later.location.line} {what}, so this "
                              f"assignment has no effect", at=earlier, span=ctx.value_span(earlier),
                              notes=[Text("the effective {name} is at {where}", name=name,
                                          where=describe(history[-1]))])


# ------------------------------------------------------------------ why a macro is empty (KNB301, EXP403, POL509)

def _empty_roots(ctx, name: str, seen: frozenset, depth: int = 0) -> list[str]:
    """The macros that make ``$(name)`` empty: ``name`` itself when it is undefined or written empty, else (a
    value made only of references, `END = $(N)`) the roots of the macros it refers to."""
    target = ctx.config.source(name)
    if target is None or depth > 16:
        return [name]
    raw = target.raw or ""
    refs = macro_references(raw)
    rest = raw
    for ref in reversed(refs):
        rest = rest[:ref.start] + rest[ref.end:]
    if not refs or rest.strip() or any(r.default is not None or not r.name or not _NAME.fullmatch(r.name)
                                       for r in refs):
        return [name]
    roots: list[str] = []
    for ref in refs:
        if ref.name.upper() in seen:
            return [name]
        roots.extend(_empty_roots(ctx, ref.name, seen | {ref.name.upper()}, depth + 1))
    return roots or [name]


def root_macro_causes(ctx, causes) -> frozenset:
    """``causes`` (upper-case macros that expand to nothing) replaced by the macros that make them empty: for
    `END = $(N)` with N defined nowhere, N (in fragment mode, the macro the surrounding configuration gives)."""
    roots = set()
    for cause in causes:
        roots.update(r.upper() for r in _empty_roots(ctx, cause, frozenset({cause.upper()})))
    return frozenset(roots)


def describe_roots(ctx, causes, roots) -> str:
    """`` (END is `$(N)`, and N is not defined)`` for the causes whose emptiness comes from other macros."""
    parts = []
    for cause in sorted(causes):
        mine = sorted({r.upper() for r in _empty_roots(ctx, cause, frozenset({cause.upper()}))})
        if mine == [cause.upper()]:
            continue
        definition = ctx.config.source(cause)
        states = [f"{r} is {'not defined' if ctx.config.source(r) is None else 'empty'}" for r in mine]
        parts.append(f"{cause} is `{(definition.raw or '').strip()}`, and {' and '.join(states)}")
    return f" ({'; '.join(parts)})" if parts else ""


def finding_causes(ctx, causes) -> frozenset:
    """The ``causes`` a finding carries. In fragment mode the root macros (`END = $(N)`: N), so that a finding
    that exists only because the surrounding configuration's N is absent here is folded into CFG009. In a
    whole configuration the macros as written (`$(END)`), as before: two values broken through different
    macros stay two findings, each at its own line, though the message names the root."""
    if getattr(getattr(ctx, "settings", None), "fragment", False):
        return root_macro_causes(ctx, causes)
    return frozenset(causes)
