"""Knob checks (KNB): names HTCondor does not know, exported values, typed knobs, name lists.

A knob exported into a daemon ad (STARTD_ATTRS and the other export lists) is parsed as a
ClassAd expression, not as a string (slot-ads.md section 9): a bare word becomes an
attribute reference, and text that does not parse is dropped by the daemon with a
"forgot to quote a string" log line.
"""
from __future__ import annotations

import re

from condorcfg.classad.analysis import constant_value as fold
from condorcfg.diagnostics import Text
from condorcfg.lint.checks import check
from condorcfg.lint.checks._releases import releases_knowing
from condorcfg.lint.checks._trace import POLICY_ATTRIBUTES
from condorcfg.lint.checks.mac import describe_roots, finding_causes, root_macro_causes
from condorcfg.lint.checks._util import (describe, empty_macro_causes, empty_macro_notes, export_lists, exported_names,
                                         expanded, is_user, parsed, prefixed_bases, raw_span, repeats_default,
                                         strip_parens, used_names, user_definitions, value, word_span, word_spans)

_CONSTANT_WORDS = {"TRUE", "FALSE", "UNDEFINED", "ERROR"}
_ITEM = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_PER_SLOT = re.compile(r"(SLOT\d+|SLOT_TYPE_\d+)_(.+)", re.IGNORECASE)


def _items(text: str) -> list[str]:
    return [i for i in re.split(r"[\s,]+", text or "") if i]


def _item_span(ctx, definition, item: str):
    if "." in item:
        return word_span(ctx, definition, item)
    index = ctx.shared.setdefault("knb_word_spans", {})
    spans = index.get(id(definition))
    if spans is None:  # every whole word of the lines that wrote it, found once: word_span per item is quadratic
        spans = index[id(definition)] = word_spans(ctx, definition)
    return spans.get(item.upper()) or ctx.value_span(definition)


def _defined(ctx, name: str) -> bool:
    if ctx.config.source(name) is not None:
        return True
    if name.upper() in prefixed_bases(ctx):
        return True
    # a daemon started with -local-name L fills its ad from L_<attr> first (condor_config.cpp, config_fill_ad)
    return any(ctx.config.source(f"{local}_{name}") is not None for local in _local_names(ctx))


_LOCAL_NAME_ARG = re.compile(r"(?i)(?:^|\s)-local-name\s+([A-Za-z_][A-Za-z0-9_]*)")


def _local_names(ctx) -> set[str]:
    """Upper-case local names of the daemons this configuration starts (``X_ARGS = -local-name x``) or configures
    (``SUBSYS.LOCALNAME.KNOB``): such a daemon reads ``<LOCALNAME>_<attr>`` for each attribute it exports."""
    found = ctx.shared.get("knb_local_names")
    if found is None:
        found = set()
        for name in ctx.names():
            parts = name.split(".")
            if len(parts) == 3:
                found.add(parts[1].upper())
            elif name.upper().endswith("_ARGS"):
                found.update(m.group(1).upper() for m in _LOCAL_NAME_ARG.finditer(value(ctx, name) or ""))
        ctx.shared["knb_local_names"] = found
    return found


def _local_export(ctx, name: str) -> bool:
    """``<LOCALNAME>_<attr>``: the value a local-named daemon exports for ``attr`` (config_fill_ad)."""
    upper = name.upper()
    exported = {item.upper() for item in exported_names(ctx)}
    return any(upper.startswith(local + "_") and upper[len(local) + 1:] in exported for local in _local_names(ctx))


def _exported_definitions(ctx):
    """(list knob, exported knob name) for every knob copied into an ad, per-slot overrides included."""
    pairs = []
    for list_name in export_lists(ctx):
        for item in _items(value(ctx, list_name)):
            if _ITEM.fullmatch(item):
                pairs.append((list_name, item))
    exported = {item.upper(): list_name for list_name, item in pairs}
    # SLOT<N>_<X> / SLOT_TYPE_<N>_<X> give slot N (type N) its own value of an exported X
    for name in ctx.names():
        found = _PER_SLOT.fullmatch(name)
        if found and found.group(2).upper() in exported:
            pairs.append((exported[found.group(2).upper()], name))
    return pairs


@check
def unquoted_string_attr(ctx):
    exported = exported_names(ctx)
    knowledge = ctx.knowledge
    done = set()
    for list_name, item in _exported_definitions(ctx):
        if item.upper() in done:
            continue
        definition = ctx.config.source(item)
        if definition is None or not is_user(definition):
            continue
        done.add(item.upper())
        node, err, text = parsed(ctx, definition)
        if err is not None:
            shown = text.strip()
            causes = empty_macro_causes(ctx, definition)
            if causes:  # the value is an expression with a hole in it: quoting would be harmful advice
                macros = ", ".join(f"$({c})" for c in sorted(causes))
                roots = root_macro_causes(ctx, causes)
                yield ctx.finding(
                    f"{item} is exported by {list_name} but its value `{_short(shown)}` is not a ClassAd "
                    f"expression because {macros} {'expands' if len(causes) == 1 else 'expand'} to nothing"
                    f"{describe_roots(ctx, causes, roots)}: the daemon drops the attribute",
                    at=definition, span=ctx.value_span(definition), notes=empty_macro_notes(ctx, definition),
                    causes=finding_causes(ctx, causes), fix=f"define {', '.join(sorted(roots))} (or give a default: $(NAME:value))")
                continue
            yield ctx.finding(
                f"{item} is exported by {list_name} but its value `{_short(shown)}` is not a ClassAd "
                f"expression ({err.message}): the daemon drops the attribute with 'forgot to quote a string'",
                at=definition, span=ctx.value_span(definition), notes=empty_macro_notes(ctx, definition),
                fix=f'quote the value if it is text: {item} = "{_escape(shown)}"')
            continue
        if node is None:
            continue
        from condorcfg.classad import ast

        own = own_attributes(item, exported)

        def unknown(word: str) -> bool:
            upper = word.upper()
            if upper in own:  # the attribute itself: a loop in the ad, not a value (EXP402 leaves it to this rule)
                return True
            return not (upper in _CONSTANT_WORDS or upper in exported or upper in POLICY_ATTRIBUTES
                        or knowledge.is_machine_attribute(word) or knowledge.is_job_attribute(word))

        if isinstance(node, ast.AttrRef) and node.scope is None:
            if not unknown(node.name):
                continue
            word = node.name
            if word.upper() in own:
                yield ctx.finding(
                    f"{item} = {word} is exported by {list_name} as an attribute reference to `{word}`, that is "
                    f"to {item} itself (attribute names ignore case): a loop, so {item} is undefined in the ad; a "
                    f"string needs quotes", at=definition, span=ctx.value_span(definition),
                    fix=f'{item} = "{word}"')
                continue
            yield ctx.finding(
                f"{item} = {word} is exported by {list_name} as an attribute reference to `{word}`, which no ad "
                f"defines, so {item} is undefined in the ad; a string needs quotes",
                at=definition, span=ctx.value_span(definition),
                fix=f'{item} = "{word}"')
            continue
        shown = text.strip()
        if " " in shown or "\t" in shown or not _only_unknown_words(node, unknown):
            continue  # an expression someone wrote on purpose (it has blanks, or names a known attribute)
        loop = sorted({ref.name for ref in ctx.references(node) if ref.name.upper() in own})
        if loop:
            from condorcfg.classad.printer import unparse

            yield ctx.finding(
                f"{item} = {shown} is exported by {list_name} as the expression `{_short(unparse(node))}`, not as "
                f"text: `{loop[0]}` in it is the attribute {item} itself (attribute names ignore case), a loop, so "
                f"{item} is undefined in the ad; a string needs quotes", at=definition,
                span=ctx.value_span(definition), fix=f'{item} = "{_escape(shown)}"')
            continue
        yield ctx.finding(
            f"{item} = {shown} is exported by {list_name} as an expression of names no ad defines "
            f"(`{shown}` reads as arithmetic or attribute selection, not as text), so {item} is undefined in the "
            f"ad; a string needs quotes", at=definition, span=ctx.value_span(definition),
            fix=f'{item} = "{_escape(shown)}"')


def own_attributes(item: str, exported) -> set[str]:
    """Upper-case names of the attribute an exported knob ``item`` defines in the ad: ``item`` itself, and
    for a per-slot override (SLOT1_X, SLOT_TYPE_1_X) of an exported X, also X."""
    own = {item.upper()}
    found = _PER_SLOT.fullmatch(item)
    if found and found.group(2).upper() in exported:
        own.add(found.group(2).upper())
    return own


def reads_as_text(ctx, item: str, node, text: str, exported) -> bool:
    """Whether the value of the exported knob ``item`` is text that parses as an expression by accident
    (``rack-12``, ``gw01.example.org``, a bare word no ad defines): KNB301 reports it, with quoting advice."""
    from condorcfg.classad import ast

    knowledge = ctx.knowledge
    own = own_attributes(item, exported)

    def unknown(word: str) -> bool:
        upper = word.upper()
        if upper in own:
            return True
        return not (upper in _CONSTANT_WORDS or upper in exported or upper in POLICY_ATTRIBUTES
                    or knowledge.is_machine_attribute(word) or knowledge.is_job_attribute(word))

    if isinstance(node, ast.AttrRef) and node.scope is None:
        return unknown(node.name)
    shown = text.strip()
    return not (" " in shown or "\t" in shown) and _only_unknown_words(node, unknown)


def _only_unknown_words(node, unknown) -> bool:
    """``astro-2024``, ``host.example.org``: bare words no ad defines joined by `-`, `+`, `/`, `*` or `.`, and
    numbers - text that parses as an expression by accident."""
    from condorcfg.classad import ast

    words = 0

    def visit(sub) -> bool:
        nonlocal words
        if isinstance(sub, ast.AttrRef):
            words += 1
            return sub.scope is None and unknown(sub.name)
        if isinstance(sub, ast.Select):
            return visit(sub.base)
        if isinstance(sub, ast.Literal):
            return isinstance(sub.value, (int, float)) and not isinstance(sub.value, bool)
        if isinstance(sub, ast.BinaryOp) and sub.op in ("-", "+", "/", "*"):
            return visit(sub.left) and visit(sub.right)
        return False

    return visit(node) and words > 0


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


@check
def exported_undefined(ctx):
    for list_name in export_lists(ctx):
        definition = ctx.config.source(list_name)
        if definition is None or repeats_default(ctx, definition):
            continue
        history = [d for d in ctx.config.history(list_name) if is_user(d)]
        words = {}  # id(definition) -> its whole words, upper case: a list of 100,000 names is split once
        for item in dict.fromkeys(_items(value(ctx, list_name))):
            if not _ITEM.fullmatch(item) or _defined(ctx, item) or ctx.is_site_knob(item):
                continue
            # blame the user's line that wrote the name (appends keep earlier lines' names)
            writer = next((d for d in reversed(history) if _writes_word(d, item, words)), None)
            if writer is None:
                continue
            yield ctx.finding(f"{list_name} exports {item}, but no knob {item} is defined: the daemon skips it, so "
                              f"the ad has no {item} attribute", at=writer, span=_item_span(ctx, writer, item),
                              causes=frozenset({item.upper()}))


_WORD = re.compile(r"[A-Za-z0-9_]+")


def _writes_word(definition, item: str, words: dict) -> bool:
    """Whether the text of ``definition`` holds ``item`` as a whole word (not inside a longer name)."""
    text = definition.text or definition.raw or ""
    if "." in item:  # (rare: a dotted name is not one word; searched for as it is)
        return re.search(r"(?<![A-Za-z0-9_])" + re.escape(item) + r"(?![A-Za-z0-9_])", text, re.IGNORECASE) \
            is not None
    found = words.get(id(definition))
    if found is None:
        found = words[id(definition)] = {word.upper() for word in _WORD.findall(text)}
    return item.upper() in found


MAX_SUGGESTED = 2000  # unknown knobs per run that get a did-you-mean


_DAEMON_BINARY = re.compile(r"(?i)^\s*(?:\$\((\w+)\)|\S*/condor_\w+)\s*$")
_DAEMON_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_NAMES_DAEMON = re.compile(r"(?i)(?:\w+\.)?(?:HAD_CONTROLLEE|MASTER_\w+_CONTROLLER)")
# The declared daemons become one alternation in the family patterns: bounded, so that a hostile
# configuration with 100,000 dotted names does not compile a 100,000-branch regex.
MAX_DECLARED_DAEMONS = 256


def _declared_daemons(ctx) -> set[str]:
    """Daemon names this configuration declares, which <SUBSYS>_LOG and the like may use: DAEMON_LIST items,
    names defined as a daemon binary (``HAD_ALLOCATED = $(HAD)``, ``X = $(SBIN)/condor_x``) and local names
    used as a prefix (``NEGOTIATOR_ALLOCATED.NEGOTIATOR_LOG``)."""
    knowledge = ctx.knowledge
    daemons = {i.upper() for i in _items(value(ctx, "DAEMON_LIST"))}
    for name in ctx.names():
        if _NAMES_DAEMON.fullmatch(name):  # HAD_CONTROLLEE = NEGOTIATOR_ALLOCATED names a daemon
            daemons.update(i.upper() for i in _items(value(ctx, name)))
        if "." in name:
            daemons.add(name.split(".", 1)[0].upper())
            continue
        raw = getattr(ctx.config.source(name), "raw", None) or ""
        found = _DAEMON_BINARY.match(raw) if "$(" in raw or "condor_" in raw else None
        if found and (found.group(1) is None or found.group(1).upper() in knowledge.subsystems
                      or found.group(1).upper() in knowledge.daemons):
            daemons.add(name.upper())
    named = sorted(d for d in daemons if _DAEMON_NAME.fullmatch(d))
    return set(named[:MAX_DECLARED_DAEMONS])


@check
def unknown_knob(ctx):
    knowledge = ctx.knowledge
    candidates = []
    for name, definition in user_definitions(ctx):
        if getattr(definition, "origin", "file") != "file":  # (user_definitions also holds the environment's)
            continue
        base = name.split(".")[-1]
        if knowledge.is_known_knob(name) or ctx.is_site_knob(name) or ctx.is_site_knob(base):
            continue
        if knowledge.obsolete(base) is not None:
            continue  # UPG901-UPG904 / RTR101 say more than "unknown"
        if ctx.targets and releases_knowing(name):
            continue  # a knob of some release: UPG906 judges it against the releases the pool runs
        candidates.append((name, definition))
    if not candidates:
        return
    daemons = {d for d in _declared_daemons(ctx) if d not in knowledge.subsystems}
    if daemons:  # <SUBSYS>_LOG and the like also name the daemons this configuration declares
        candidates = [(name, definition) for name, definition in candidates
                      if not knowledge.is_known_knob(name, daemons)]
    used = used_names(ctx)  # (one decision of "used", shared with UPG906 and condorcfg upgrade)
    suggested = 0
    for name, definition in candidates:
        base = name.split(".")[-1].upper()
        if name.upper() in used or base in used or base in daemons or _local_export(ctx, name):
            continue
        if ctx.counting:  # (past MAX_FINDINGS_PER_RULE only the place of a finding is kept)
            yield ctx.place(definition)
            continue
        if suggested < MAX_SUGGESTED:
            suggested += 1
            suggestions = knowledge.suggest(name)
            hint = f"; did you mean {' or '.join(suggestions)}?" if suggestions else ""
            older = releases_knowing(name)
            if older:  # (a knob an older release had: say so, and which --target-version accepts it)
                suggestions, hint = [], (f" (HTCondor {older[-1]} had it: if the pool still runs such a release, "
                                         f"say so with --target-version {older[-1].rsplit('.', 1)[0]})")
        else:  # did-you-mean costs more than the rest of the rule: bounded for hostile input
            suggestions, hint = [], f" (no did-you-mean past the first {MAX_SUGGESTED} unknown knobs)"
        releases = " or ".join(ctx.targets) if ctx.targets else knowledge.version  # (the ones the pool runs)
        yield ctx.finding(f"{name} is not a knob HTCondor {releases} knows, and nothing in this "
                          f"configuration refers to it, so it has no effect{hint}", at=definition,
                          fix=("correct the name" if suggestions else
                               "remove it, or list it in known-knobs of the project settings if a site tool reads it"))


_STARTD_POLICY = re.compile(r"START|SUSPEND|CONTINUE|PREEMPT|KILL|IS_OWNER|RANK|WANT_SUSPEND|WANT_VACATE|WANT_HOLD"
                            r"|WANT_HOLD_REASON|WANT_HOLD_SUBCODE|MAXJOBRETIREMENTTIME|SLOT_TYPE_\d+_START"
                            r"|(SUSPEND|CONTINUE|PREEMPT|KILL|WANT_SUSPEND|WANT_VACATE)_(VANILLA|VM)",
                            re.IGNORECASE)


@check
def knob_as_attribute(ctx):
    exported = exported_names(ctx)
    knowledge = ctx.knowledge
    for name in ctx.names():
        if not _STARTD_POLICY.fullmatch(name):
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        node = parsed(ctx, definition)[0]
        if node is None:
            continue
        seen = set()
        for ref in ctx.references(node):
            if (ref.scope or "").upper() not in ("", "MY"):
                continue
            word = ref.name
            upper = word.upper()
            if upper in seen or upper in exported or upper in POLICY_ATTRIBUTES or upper in _CONSTANT_WORDS:
                continue
            target = ctx.config.source(word)
            if not is_user(target) or knowledge.is_machine_attribute(word) or knowledge.is_job_attribute(word):
                continue
            seen.add(upper)
            found = re.search(r"(?<![A-Za-z0-9_$(.])" + re.escape(word) + r"(?![A-Za-z0-9_])",
                              definition.raw or "", re.IGNORECASE)
            span = raw_span(ctx, definition, found.start(), found.end()) if found else ctx.value_span(definition)
            yield ctx.finding("{knob} uses `{word}` as an attribute, but {word} is only a configuration macro "
                              "(set at {where}) and is not exported by STARTD_ATTRS: in the slot ad it is undefined",
                              at=definition, span=span, knob=name, word=word, where=describe(target),
                              fix=f"write $({word}) to use the macro's text, or add {word} to STARTD_ATTRS")


_BOOL_WORDS = re.compile(r"(?i)\s*(true|false|yes|no|t|f|y|n|1|0)\s*")
_INT = re.compile(r"\s*[-+]?\d+\s*", re.ASCII)  # (HTCondor reads ASCII blanks and digits)
_FLOAT = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*", re.ASCII)


@check
def knob_type(ctx):
    knowledge = ctx.knowledge
    for name, definition in user_definitions(ctx):
        kind = knowledge.knob_type(name.split(".")[-1])
        if kind not in ("bool", "int", "long", "double"):
            continue
        text = expanded(ctx, definition)
        if not text or not text.strip():
            continue
        if kind == "bool" and _BOOL_WORDS.fullmatch(text):
            continue
        if kind in ("int", "long") and _INT.fullmatch(text):
            continue
        if kind == "double" and _FLOAT.fullmatch(text):
            continue
        node, err = ctx.parse_expression(text)
        wanted = {"bool": "a boolean", "int": "an integer", "long": "an integer", "double": "a number"}[kind]
        if err is not None:
            yield ctx.finding(f"{name} must be {wanted}, but `{_short(text)}` is neither that nor an expression "
                              f"HTCondor can evaluate ({err.message}); the daemon ignores it or stops",
                              at=definition, span=ctx.value_span(definition))
            continue
        folded = fold(node)
        if isinstance(folded, str):
            yield ctx.finding(f"{name} must be {wanted}, but its value is the string {_short(repr(folded))}",
                              at=definition, span=ctx.value_span(definition))


# list knob -> (member knob templates, what the members are)
_NAMED_LISTS = {
    "JOB_TRANSFORM_NAMES": (["JOB_TRANSFORM_{}"], "job transform"),
    "SUBMIT_REQUIREMENT_NAMES": (["SUBMIT_REQUIREMENT_{}"], "submit requirement"),
    "STARTD_CRON_JOBLIST": (["STARTD_CRON_{}_EXECUTABLE"], "startd cron job"),
    "SCHEDD_CRON_JOBLIST": (["SCHEDD_CRON_{}_EXECUTABLE"], "schedd cron job"),
    "BENCHMARKS_JOBLIST": (["BENCHMARKS_{}_EXECUTABLE"], "benchmark job"),
}


@check
def named_list_undefined(ctx):
    for list_name, (patterns, what) in _NAMED_LISTS.items():
        definition = ctx.config.source(list_name)
        if definition is None or definition.origin == "default":
            continue
        history = [d for d in ctx.config.history(list_name) if is_user(d)]
        for item in dict.fromkeys(_items(value(ctx, list_name))):
            if not _ITEM.fullmatch(item):
                continue
            members = [p.format(item) for p in patterns]
            if any(_defined(ctx, m) for m in members):
                continue
            writer = next((d for d in reversed(history)
                           if re.search(r"(?<![A-Za-z0-9_])" + re.escape(item) + r"(?![A-Za-z0-9_])",
                                        d.text or d.raw or "", re.IGNORECASE)), None)
            if writer is None:
                continue
            yield ctx.finding(f"{list_name} names the {what} {item}, but {members[0]} is not defined, so it "
                              f"does nothing", at=writer, span=_item_span(ctx, writer, item),
                              fix=f"define {members[0]} or remove {item} from {list_name}")


@check
def daemon_list(ctx):
    definition = ctx.config.source("DAEMON_LIST")
    if definition is None or definition.origin == "default":
        return
    knowledge = ctx.knowledge
    items = _items(value(ctx, "DAEMON_LIST"))
    history = [d for d in ctx.config.history("DAEMON_LIST") if d.origin in ("file", "env", "template")]
    blame = history[-1] if history else definition
    seen = set()
    adders: dict[str, object] = {}  # upper item -> the last template definition naming it (found once)
    for item in items:
        upper = item.upper()
        if upper in seen:
            if upper not in adders:  # (searched once per item: a template used 5,000 times made this quadratic)
                adders[upper] = next((d for d in reversed(history)
                                      if d.origin == "template" and word_count(d.raw, item) > 0), None)
            adder = adders[upper]
            where = Text(" (added again by `use {template}` at {where})", template=adder.template,
                         where=adder.use_location) if adder else ""
            yield ctx.finding("DAEMON_LIST names {item} twice{added}; the master starts it once, but the "
                              "duplicate usually means a role template was used twice", at=blame,
                              span=_item_span(ctx, blame, item) if blame.origin == "file" else None,
                              item=item, added=where)
            continue
        seen.add(upper)
        if upper in knowledge.daemons or ctx.config.source(item) is not None or not _ITEM.fullmatch(item):
            continue  # (not a name at all: unrendered template markup, reported by CFG109)
        yield ctx.finding(f"DAEMON_LIST names {item}, which is neither an HTCondor daemon nor defined as a knob "
                          f"giving its program path: the master cannot start it", at=blame,
                          span=_item_span(ctx, blame, item) if blame.origin == "file" else None,
                          fix=f"correct the daemon name, or define {item} = /path/to/program")


def word_count(text: str | None, word: str) -> int:
    return len(re.findall(r"(?<![A-Za-z0-9_])" + re.escape(word) + r"(?![A-Za-z0-9_])", text or "",
                          re.IGNORECASE))


@check
def over_quoted_string(ctx):
    for name, definition in user_definitions(ctx):
        if '\\"' not in (definition.raw or ""):
            continue
        node = parsed(ctx, definition)[0]
        if node is None:
            continue
        value_node = strip_parens(node)
        from condorcfg.classad import ast

        if isinstance(value_node, ast.Literal) and isinstance(value_node.value, str):
            text = value_node.value
            if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
                yield ctx.finding(f"{name} is the string {text!r}, with quote characters inside it; the "
                                  f"extra escaped quotes are almost never intended", at=definition,
                                  span=ctx.value_span(definition), fix=f'{name} = "{_escape(text[1:-1])}"')
