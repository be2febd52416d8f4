"""Template and ordering checks (TPL): assignments that discard what templates added.

Composing templates append to a knob (``PREEMPT = $(MEMORY_EXCEEDED) || $(PREEMPT)``,
``DAEMON_LIST = $(DAEMON_LIST) STARTD``); HTCondor resolves the self reference while
reading, so a later plain assignment silently throws the contribution away.  Whole-policy
templates (Desktop, Always_Run_Jobs, ...) assign outright and do the same to earlier
``use`` lines.  Definition.text keeps the line as written, which tells an append from an
assignment.
"""
from __future__ import annotations

import re

from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import describe, macro_references, template_origin

WHOLE_POLICIES = {"DESKTOP", "UWCS_DESKTOP", "DESKTOP_IDLE", "DESKTOP_HOURS", "ALWAYS_RUN_JOBS",
                  "LIMIT_JOB_RUNTIMES"}


def appends(definition) -> bool:
    """The assignment as written refers to its own previous value."""
    text = getattr(definition, "text", None) or ""
    if "=" not in text:
        return False
    name = definition.name.split(".")[-1].upper()
    after = text.split("=", 1)[1]
    return any(r.name.split(".")[-1].upper() == name for r in macro_references(after))


def _plain(definition) -> bool:
    return getattr(definition, "text", None) is not None and not appends(definition)


def _list_items(text: str | None) -> set[str]:
    return {i.upper() for i in re.split(r"[\s,]+", text or "") if i}


@check
def template_contribution_discarded(ctx):
    for name in ctx.names():
        for definition in ctx.config.history(name):
            previous = definition.overrode
            if previous is None or definition.origin != "file" or not _plain(definition):
                continue
            written = " ".join((definition.text or "").split())
            if previous.origin == "template" and appends(previous):
                if _list_items(previous.raw) <= _list_items(definition.raw):
                    continue  # everything the template added is still there
                use_text, use_location = template_origin(ctx, previous)
                yield ctx.finding("`{written}` discards what `{use}` at {where} added to {knob} (the template "
                                  "appends to it)", written=written, use=use_text, where=use_location, knob=name,
                                  at=definition, span=ctx.value_span(definition),
                                  fix=f"extend the value instead: {name} = $({name}) ..., or move this line "
                                      f"before the `use` line")
            elif (previous.origin == "file" and name.upper().endswith("_ATTRS") and previous.location is not None
                  and definition.location is not None and previous.location.file != definition.location.file):
                lost = _list_items(previous.raw) - _list_items(definition.raw)
                if lost:
                    yield ctx.finding("`{written}` replaces the {knob} set at {where}, dropping {lost}; lists like "
                                      "this are meant to be extended", written=written, knob=name,
                                      where=describe(previous), lost=", ".join(sorted(lost)),
                                      at=definition, span=ctx.value_span(definition),
                                      fix=f"{name} = $({name}) ...")


@check
def setting_discarded_by_template(ctx):
    """A knob set in a file that a later `use` line sets again outright: the file's value is gone (TPL701's
    mirror).  Only when the template's value is the one in effect and differs from what the file wrote."""
    for name in ctx.names():
        history = ctx.config.history(name)
        if len(history) < 2 or history[-1].origin != "template" or appends(history[-1]):
            continue
        final = history[-1]
        written = final.overrode
        while written is not None and written.origin == "template":  # (templates that set it in a row)
            written = written.overrode
        if written is None or written.origin != "file" or written.location is None:
            continue
        if " ".join((written.raw or "").split()) == " ".join((final.raw or "").split()):
            continue  # the template sets what the file said: nothing is lost
        use_text, use_location = template_origin(ctx, final)
        text = " ".join((written.text or f"{name} = {written.raw}").split())
        yield ctx.finding("`{text}` has no effect: `{use}` at {where} sets {knob} again afterwards, to `{value}`",
                          text=text, use=use_text, where=use_location, knob=name,
                          value=" ".join((final.raw or "").split()), at=written, span=ctx.value_span(written),
                          fix=f"move this line after the `use` line (or extend: {name} = $({name}) ...)")


def _policy_name(template: str | None) -> str:
    return (template or "").split(":", 1)[-1].upper()


@check
def whole_policy_after_composing(ctx):
    reported = set()
    for name in ("PREEMPT", "START", "WANT_SUSPEND", "MAXJOBRETIREMENTTIME", "KILL", "SUSPEND"):
        for definition in ctx.config.history(name):
            if definition.origin != "template" or _policy_name(definition.template) not in WHOLE_POLICIES:
                continue
            previous = definition.overrode
            if previous is None or previous.origin != "template" or appends(definition):
                continue
            use_text, use_location = template_origin(ctx, definition)
            earlier_text, earlier_location = template_origin(ctx, previous)
            if earlier_location == use_location or (use_location, earlier_location) in reported:
                continue
            reported.add((use_location, earlier_location))
            yield ctx.finding("`{use}` replaces {knob} (and the rest of the policy) outright, discarding what "
                              "`{earlier}` at {where} set", use=use_text, knob=name, earlier=earlier_text,
                              where=earlier_location, at=use_location,
                              fix="put the whole-policy template first and the composing templates "
                                  "(PREEMPT_IF_*, HOLD_IF_*, ...) after it")


_USE = re.compile(r"^\s*@?use\s+([^:]+?)\s*:\s*(.*)$", re.IGNORECASE)


def _use_items(text: str) -> list[str]:
    """``a, b(x, y) c`` -> ['A', 'B(X, Y)', 'C'] (normalised, arguments kept)."""
    items, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        if depth == 0 and (char in ", \t"):
            if current.strip():
                items.append(current.strip())
            current = ""
            continue
        current += char
    if current.strip():
        items.append(current.strip())
    return [" ".join(i.upper().split()) for i in items]


@check
def duplicate_use(ctx):
    seen = {}
    for statement in getattr(ctx.config, "statements", ()) or ():
        if statement.kind != "use" or statement.template is not None or not statement.active:
            continue
        found = _USE.match(statement.text or "")
        if not found:
            continue
        category = found.group(1).strip().upper()
        if "$" in category:
            try:
                category = ctx.config.expand(category).strip().upper()
            except Exception:  # an expansion failure is reported by MAC202; keep the text as written
                pass
        for item in _use_items(found.group(2)):
            key = (category, item)
            if key in seen:
                yield ctx.finding("`use {category} : {item}` is applied again (first at {where}); using a "
                                  "template twice applies it twice, duplicating what it appends",
                                  category=category, item=item, where=seen[key], at=statement.location)
            else:
                seen[key] = statement.location
