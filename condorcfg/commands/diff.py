"""``condorcfg diff OLD NEW``: what changes in meaning between two configuration versions.

Exit status follows diff(1): 0 no difference, 1 differences, 2 an input could not be read.
Both sides are read as configurations kept for another host (the reader's repository mode, as
``lint`` reads them): the environment of this process is not used, and a path outside the
given configuration (and ``--sysroot``) is reported on stderr instead of read, so a diff in a
CI job never depends on, or shows, the job's own files and secrets.
The shared configuration options (:mod:`condorcfg.commands._config_args`: --machine,
--subsystem, --local-name, --sysroot, --allow-exec) apply to both sides; slot ads are built as
the STARTD unless --subsystem is given.
Slot ads are built once per distinct machine profile (a fleet of identical machines costs one),
and all machines together draw from one :class:`condorcfg.diff.FleetBudget`.
Text output is made safe to print (:mod:`condorcfg.textsafe`: a value's line breaks and control
characters print as escapes), a side without the knob or attribute as ``(unset)``; JSON is ASCII
and exact (``null`` there); in markdown every string from the configuration, the file names or the
machine profiles is one code span (:func:`code_span`), except the full values of a long change: a
fenced block (:func:`fenced`) in a collapsed <details> block, named in escaped <code> (:func:`_html_code`);
its table cells show the changed words (:func:`value_cells`).
"""
from __future__ import annotations

import json
import os
import sys

from condorcfg.commands._config_args import add_config_arguments
from condorcfg.records import record
from condorcfg.textsafe import defuse, defuse_json, safe_line

SLOT_SUBSYSTEM = "STARTD"  # the daemon that builds slot ads
NOT_READ = ("outside-file", "missing-host-file")  # the reader's reports of files it did not read


def add_arguments(parser) -> None:
    parser.add_argument("old", help="the old configuration: a file or config.d directory, a git revision (HEAD~1 "
                                    "or git:HEAD~1: the project's roots as of that commit), or git:REV:PATH; a name "
                                    "that is both a path and a revision is refused: write ./NAME or git:NAME")
    parser.add_argument("new", help="the new configuration, in the same forms")
    add_config_arguments(parser, config=False,
                         subsystem_default=f"TOOL for knob values, {SLOT_SUBSYSTEM} for slot ads")
    parser.add_argument("--settings-from", metavar="REV",
                        help="take the project settings as committed in git revision REV (in CI of a pull request: "
                             "the base branch), not from the work tree")
    parser.add_argument("--no-ads", action="store_true", help="compare knob values only, not slot ads")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                        help="text: one change per line (default); json: one object; markdown: a pull-request comment")


# A git side is unpacked in a temporary directory: its places are written as REV:PATH instead.
_RELABEL: dict[str, str] = {}


def _relabeled(text: str) -> str:
    """``text`` with a git side's temporary tree written as ``REV:``."""
    for directory, label in _RELABEL.items():
        text = text.replace(directory + os.sep, label)
    return text


def _where(definition) -> str:
    """Where a value was defined, as text (never ``None``): "built-in" without a definition (HTCondor's
    built-in default), "an unknown place" for a definition without a place (no location, or one with no
    file), and a template definition without its `use` line is named without one."""
    if definition is None:
        return "built-in"
    location = getattr(definition, "location", None)
    if not hasattr(definition, "location"):  # (something that only describes itself)
        text = definition.describe()
    elif location is None or not getattr(location, "file", None):
        text = "an unknown place"
    elif getattr(definition, "template", None) and getattr(definition, "use_location", None) is None:
        text = f"{location} (template {definition.template})"
    else:
        text = definition.describe() if hasattr(definition, "describe") else str(location)
    return _relabeled(str(text)) if text is not None else "an unknown place"


def _load(args, project, role, machine, subsystem=None):
    from condorcfg import roles
    from condorcfg.config.reader import UNUSABLE_INPUT
    from condorcfg.diagnostics import CondorcfgError

    config = roles.read(role, project, machine=machine, subsystem=args.subsystem or subsystem,
                        local_name=args.local_name, allow_exec=args.allow_exec)
    unusable = [d for d in config.diagnostics if d.code in UNUSABLE_INPUT and d.severity == "error"]
    if unusable:
        raise CondorcfgError(unusable[0])
    return config


def _machines(args, project, role) -> dict:
    """The machines slot ads are compared on: --machine (a name of the role's profiles, or a file), else the
    role's fleet (its machine-profiles, the project's when it names none), else its default machine, else
    this host."""
    from condorcfg import roles
    from condorcfg.machine import resolve

    if args.machine:
        return {args.machine: roles.machine(role, project, args.machine)}
    fleet = roles.machines(role, project)
    if fleet:
        return fleet
    machine = resolve(None)
    return {machine.hostname: machine}


def _distinct(machines: dict) -> list[tuple[list[str], object]]:
    """(names, profile) per distinct profile: a fleet of identical machines is computed once."""
    groups: dict[str, tuple[list[str], object]] = {}
    for name, machine in machines.items():
        facts = [getattr(machine, key) for key in machine.KEYS if key != "source"]  # (where it was read: no fact)
        groups.setdefault(json.dumps(facts, sort_keys=True, default=repr), ([], machine))[0].append(name)
    return list(groups.values())


def _open_sides(args, project, cwd: str, opened: list) -> tuple[list[tuple], tuple[str, str]]:
    """([(role name, OLD role, NEW role)], the sides' labels).  Two revisions (HEAD~1 HEAD, git:REV): each role
    of the project (--role chooses) as of each; a file (or git:REV:PATH) is one configuration, read with the
    sysroot its place implies as lint reads a root, and set against the one role of the project for a
    revision.  A git side is added to ``opened`` as soon as it exists."""
    from condorcfg import gitside, roles
    from condorcfg.lint.project import root_role

    chosen = roles.chosen(project, args.role)
    sides, labels = [], []
    for text in (args.old, args.new):
        if gitside.is_git_side(text, cwd):  # (CondorcfgError when the name is also a path here)
            inside = text[4:].partition(":")[2] if text.startswith("git:") else ""
            if not inside and not chosen:
                raise roles.usage(project, f"{text!r} is a revision: say which configuration it means with "
                                           f"git:REV:PATH, or set roles (or roots) in the project settings")
            # (a revision's roles are its own settings': their roots are found as they are read, not asked first)
            side = gitside.open_side(text, cwd, None if inside else [])
            opened.append(side)
            _RELABEL[side.directory] = f"{text.split(':')[1] if text.startswith('git:') else text}:"
            labels.append(f"{text} ({side.revision[:12]})")
            if inside:
                sides.append([roles.rebased(root_role(project, os.path.join(side.top, inside), single=True),
                                            side.rebased)])
            else:
                sides.append(_roles_at(side, project, chosen, args))
        else:
            labels.append(text)
            sides.append([root_role(project, text, single=True)])  # (as written: places are shown so)
    old, new = sides
    named = any(role.name for role in (*old, *new))
    if not named and len(old) == len(new):  # one configuration per side (files, or the roots of `roots`)
        return [("", o, n) for o, n in zip(old, new)], (labels[0], labels[1])
    if (len(old) == 1 and not old[0].name) or (len(new) == 1 and not new[0].name):
        raise roles.usage(project, f"{args.old if len(old) == 1 else args.new} is one configuration, the other "
                                   f"side {len(new) if len(old) == 1 else len(old)} roles; compare two revisions, "
                                   f"choose a role with --role, or name both configurations (git:REV:PATH)")
    # roles by name: one only a side has was added or removed
    before, after = {role.name: role for role in old}, {role.name: role for role in new}
    order = [*after, *(name for name in before if name not in after)]
    return [(name, before.get(name), after.get(name)) for name in order], (labels[0], labels[1])


def _roles_at(side, project, chosen, args) -> list:
    """The chosen roles as of a revision: as that revision's own settings file defines them (its `vars`,
    mounts and roles are part of what it deploys), their paths in the revision.  With --settings-from, or when
    the revision has no settings file there, the settings the command runs with define them."""
    from condorcfg import roles
    from condorcfg.lint import project as project_module

    defined = None
    if project.path and args.settings_from is None:
        other = project_module.at_revision(project, side.top, side.revision, side.label)
        if other is not None:
            names = args.role or []
            defined = [role for role in other.all_roles() if not names or role.name in names
                       or any(role.name.startswith(f"{name}@") for name in names)]
    return [roles.rebased(role, side.rebased) for role in (chosen if defined is None else defined)]


@record
class RoleDiff:
    role: str          # "" for a single configuration
    values: list       # ValueChange
    fleet: list        # (machine names, SlotChanges)
    machines: int      # machines compared
    presence: str = ""  # "added" or "removed": the role is on one side only


def _diff_role(args, project, name: str, pair, machines: dict, budget) -> RoleDiff:
    """What changes for one role: knob values (read on its first machine) and the slot ads of each distinct
    machine of its fleet, machines with the same changes grouped."""
    from condorcfg.diff import diff_slot_ads, diff_values

    first = next(iter(machines.values()))
    configs = [_load(args, project, role, first) for role in pair]
    for config in configs:  # what was not read, or is missing, is said once per side
        for diagnostic in config.diagnostics:
            if diagnostic.code in NOT_READ:
                print(_relabeled(diagnostic.format()), file=sys.stderr)
    values = diff_values(*configs)
    fleet = []
    if not args.no_ads:
        from condorcfg.slots import build_slot_ads

        groups: dict[tuple, list] = {}
        for names, machine in _distinct(machines):
            startd = [_load(args, project, role, machine, SLOT_SUBSYSTEM) for role in pair]
            budget.charge(lines=sum(config.budget.statements for config in startd))
            ads = [build_slot_ads(config, machine) for config in startd]
            budget.charge(slot_ads=sum(len(side_ads) for side_ads in ads),
                          attributes=sum(side_ads.attributes for side_ads in ads))
            changes = diff_slot_ads(*ads)
            key = (tuple((c.slot.split("@")[0], c.attribute, c.old, c.new) for c in changes), changes.unlisted)
            groups.setdefault(key, ([], changes))[0].extend(names)
        fleet = [(names, changes) for names, changes in groups.values() if changes]
    return RoleDiff(name, values, fleet, len(machines))


def run(args) -> int:
    from condorcfg import gitside, roles
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.diff import FleetBudget
    from condorcfg.lint import project as project_module

    # unusable input raises CondorcfgError: the CLI prints it and exits 2
    project = project_module.for_command(args.project, args.settings_from)
    if args.sysroot:
        if project.roles:
            raise roles.usage(project, "--sysroot does not apply to the roles of the project settings: each role "
                                       "says where its host's files come from (`sysroot`, `mounts`)")
        project.sysroot = os.path.abspath(args.sysroot)  # (both sides: a given sysroot replaces the settings')
    opened: list = []
    _RELABEL.clear()  # (this run's git sides only: a process may run several diffs)
    results = []  # RoleDiff per role
    with gitside.removed_on_signals():  # (a cancelled CI job leaves no revision's files behind)
        try:
            pairs, labels = _open_sides(args, project, os.getcwd(), opened)
            budget = FleetBudget()  # (one for every role and machine of the run)
            for name, old_role, new_role in pairs:
                if old_role is None or new_role is None:  # a role the change adds or removes
                    results.append(RoleDiff(name, [], [], 0, "added" if old_role is None else "removed"))
                    continue
                machines = _machines(args, project, new_role)
                results.append(_diff_role(args, project, name, (old_role, new_role), machines, budget))
        except CondorcfgError as exc:
            print(_relabeled(exc.diagnostic.format()), file=sys.stderr)
            return 2
        finally:
            for side in opened:
                side.cleanup()
    changed = any(result.values or result.fleet or result.presence for result in results)
    if len(results) == 1 and not results[0].role:  # one configuration: the report as it always was
        values, fleet, machines = results[0].values, results[0].fleet, results[0].machines
        if args.format == "json":
            print(defuse_json(json.dumps(_json(values, fleet, labels), indent=2, ensure_ascii=True)))
        elif args.format == "markdown":
            sys.stdout.write(defuse(_markdown(values, fleet, labels, machines)))
        else:
            _text(values, fleet)
        return 1 if changed else 0
    # a pool: a summary first (terraform's plan), then each role's changes
    if args.format == "json":
        report = {"old": labels[0], "new": labels[1], "summary": _summary(results), "roles": []}
        for result in results:
            part = _json(result.values, result.fleet, labels)
            for key in ("values", "slots", "slots_not_listed"):
                for item in part[key]:
                    item["role"] = result.role
            report["roles"].append({"role": result.role, "presence": result.presence or "both",
                                    "changed": bool(result.values or result.fleet or result.presence),
                                    "machines": result.machines, "values": part["values"], "slots": part["slots"],
                                    "slots_not_listed": part["slots_not_listed"]})
        print(defuse_json(json.dumps(report, indent=2, ensure_ascii=True)))
    elif args.format == "markdown":
        sys.stdout.write(defuse(_roles_markdown(results, labels)))
    else:
        print(safe_line(_summary(results)))
        for result in results:
            if result.values or result.fleet:
                print()
                print(safe_line(f"== role {result.role} =="))
                _text(result.values, result.fleet)
    return 1 if changed else 0


def _summary(results) -> str:
    """One line for a pool's diff: what changes on which role, which roles are unchanged, where a restart is
    needed ("3 roles: START changes on ep (2 machines); cm unchanged; restart needed on ep")."""
    parts, unchanged, restart = [], [], []
    for result in results:
        if result.presence:
            parts.append(f"role {result.role} {result.presence}")
            continue
        if not (result.values or result.fleet):
            unchanged.append(result.role)
            continue
        names = [change.name for change in result.values]
        what = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        machines = sorted({name for names_, _changes in result.fleet for name in names_})
        slots = f"slot ads of {len(machines)} machine{'s' if len(machines) != 1 else ''}" if machines else ""
        subject = " and ".join(part for part in (what, slots) if part)
        parts.append(f"{subject} change{'s' if len(names) == 1 and not slots else ''} on {result.role}")
        if any(change.restart for change in result.values):
            restart.append(result.role)
    if unchanged:
        parts.append(f"{', '.join(unchanged)} unchanged")
    if restart:
        parts.append(f"restart needed on {', '.join(restart)}")
    return f"{len(results)} role{'s' if len(results) != 1 else ''}: " + "; ".join(parts)


def _json(values, fleet, labels) -> dict:
    return {
        "old": labels[0], "new": labels[1],
        "values": [{"name": c.name, "kind": c.kind, "old": c.old, "new": c.new,
                    "old_source": _where(c.old_source) if c.old is not None else None,
                    "new_source": _where(c.new_source) if c.new is not None else None,
                    "restart": c.restart, "security": c.security} for c in values],
        "slots": [{"slot": c.slot, "attribute": c.attribute, "kind": c.kind, "old": c.old, "new": c.new,
                   "machines": names} for names, changes in fleet for c in changes],
        # slot-ad changes past MAX_LISTED_SLOT_CHANGES on those machines: counted, not listed
        "slots_not_listed": [{"machines": names, "count": _unlisted(changes)}
                             for names, changes in fleet if _unlisted(changes)],
    }


def _unlisted(changes) -> int:
    return getattr(changes, "unlisted", 0)


def _unlisted_line(changes) -> str:
    from condorcfg.diff import MAX_LISTED_SLOT_CHANGES

    return (f"… {_unlisted(changes):,} more slot-ad changes not listed (at most {MAX_LISTED_SLOT_CHANGES:,} a machine: "
            f"MAX_LISTED_SLOT_CHANGES)")


UNSET = "(unset)"  # a side without the knob or the attribute, in text output (JSON: null)


def _text_value(value) -> str:
    return UNSET if value is None else str(value)


def _text(values, fleet) -> None:
    for change in values:
        marker = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
        notes = [n for n, on in (("security", change.security), ("needs a restart", change.restart)) if on]
        print(safe_line(f"{marker} {change.name}" + (f"    [{', '.join(notes)}]" if notes else "")))
        # both sides, an unset one as UNSET (with no place: JSON's old_source/new_source are null then)
        print(safe_line(f"    - {change.old}    ({_where(change.old_source)})" if change.old is not None
                        else f"    - {UNSET}"))
        print(safe_line(f"    + {change.new}    ({_where(change.new_source)})" if change.new is not None
                        else f"    + {UNSET}"))
    for names, changes in fleet:
        print(safe_line(f"slot ads ({', '.join(names)}):"))
        for change in changes:
            marker = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
            if change.attribute is None:
                print(safe_line(f"  {marker} {change.slot}"))
            else:  # an attribute that appears or disappears: UNSET on that side
                print(safe_line(f"  {marker} {change.slot} {change.attribute}: {_text_value(change.old)} -> "
                                f"{_text_value(change.new)}"))
        if _unlisted(changes):
            print(safe_line(f"  {_unlisted_line(changes)}"))
    if not values and not fleet:
        print("no difference in meaning")


def code_span(value, table: bool = False, limit: int | None = None) -> str:
    """``value`` (any text: a pull request names files, knobs, values, hosts) as one markdown code span
    that shows it as written and nothing can leave: its fence is longer than any run of backticks
    inside, so no backtick closes it early, and inside a code span markdown reads no markup (links,
    images, HTML, emphasis), GitHub no @mention or #reference.  Made :func:`printable` first (one line);
    ``table``: in a table cell, where GFM splits cells at every ``|`` (code spans too) unless escaped;
    ``limit``: characters shown, then an ellipsis."""
    import re

    from condorcfg.textsafe import printable

    text = printable(str(value))
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if not text:
        return "*(empty)*"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    if "`" in (text[0], text[-1]) or (text[0] == text[-1] == " " and text.strip(" ")):
        # CommonMark drops one space on each side when both are there (and the text is not all spaces):
        # this one keeps a backtick off the fence, or the text's own spaces
        text = f" {text} "
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def _name(value) -> str:
    """A machine's name in prose: as it is when it is letters, digits, dots and dashes only (no markup
    can be made of those), else :func:`code_span`."""
    import re

    text = str(value)
    return text if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", text) else code_span(text)


# -- markdown: long values ---------------------------------------------------------------------------------
# A value longer than SHOWN_VALUE characters is never shortened where it changes: its table cell shows the
# changed words in full, with up to CONTEXT characters of unchanged text on each side ("…" for the rest), and
# the full old and new values follow in a collapsed <details> block.  Those blocks fill only the room the
# comment has under MAX_COMMENT_CHARS after everything else (tables, changed words: never dropped); the ones
# that do not fit are left out with a note.

SHOWN_VALUE = 100  # characters of a value a table cell shows whole
CONTEXT = 40  # characters of unchanged text on each side of a long value's changed words
MAX_COMMENT_CHARS = 60_000  # GitHub refuses a comment body past 65,536 characters; the rest is a margin


def _words(text: str) -> list[str]:
    """``text`` as words, runs of blanks and single other characters (joined back they are ``text``)."""
    import re

    return re.findall(r"\w+|\s+|[^\w\s]", text)


def _left_context(words: list[str], size: int) -> str:
    """The end of ``words`` (whole words, up to ``size`` characters; "…" first when some are left out)."""
    taken, length = len(words), 0
    while taken and length + len(words[taken - 1]) <= size:
        taken -= 1
        length += len(words[taken])
    text = "".join(words[taken:])
    if not taken:
        return text
    if not text.strip():  # a word longer than ``size``: its end
        text = "".join(words)[-size:]
    return "…" + text.lstrip()


def _right_context(words: list[str], size: int) -> str:
    """The start of ``words``, as :func:`_left_context` takes the end."""
    taken, length = 0, 0
    while taken < len(words) and length + len(words[taken]) <= size:
        length += len(words[taken])
        taken += 1
    text = "".join(words[:taken])
    if taken == len(words):
        return text
    if not text.strip():
        text = "".join(words)[:size]
    return text.rstrip() + "…"


def changed_words(old: str, new: str, context: int = CONTEXT) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """Where two values differ, word by word: for each side (before, changed, after).  ``changed`` is that
    side's words between the longest common prefix and suffix (of words), in full, never shortened (empty on
    the side of a pure insertion or deletion); ``before`` and ``after`` are up to ``context`` characters of
    the common text around it, "…" marking what is left out."""
    a, b = _words(old), _words(new)
    common = min(len(a), len(b))
    prefix = 0
    while prefix < common and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < common - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    before = _left_context(a[:prefix], context)
    after = _right_context(a[len(a) - suffix:], context)
    return ((before, "".join(a[prefix:len(a) - suffix]), after),
            (before, "".join(b[prefix:len(b) - suffix]), after))


def _excerpt(before: str, changed: str, after: str) -> str:
    """One side of :func:`changed_words` in a table cell: code spans, the changed words in bold."""
    if not changed:  # (this side has nothing where the other has words: those are in bold there)
        return code_span(before + after, table=True)
    return "".join([code_span(before, table=True) if before else "", f"**{code_span(changed, table=True)}**",
                    code_span(after, table=True) if after else ""])


def value_cells(old, new) -> tuple[str, str, bool]:
    """The old and new table cells of one change, and whether its full values are worth a <details> block
    (a value longer than SHOWN_VALUE): a short value whole, an unset one *(unset)*; two values of which
    one is long, :func:`changed_words`; one long value with the other unset, its start (all of it is new)."""
    from condorcfg.textsafe import printable

    old_text, new_text = (None if v is None else printable(str(v)) for v in (old, new))
    if all(text is None or len(text) <= SHOWN_VALUE for text in (old_text, new_text)):
        return _cell(old_text), _cell(new_text), False
    if old_text is None or new_text is None:
        return _cell(old_text, SHOWN_VALUE), _cell(new_text, SHOWN_VALUE), True
    old_side, new_side = changed_words(old_text, new_text)
    return _excerpt(*old_side), _excerpt(*new_side), True


def _cell(text, limit: int | None = None) -> str:
    return "*(unset)*" if text is None else code_span(text, table=True, limit=limit)


def _html_code(value) -> str:
    """``value`` as an HTML code element (in a <summary>, where markdown is not read): printable, escaped,
    and in <code>, where GitHub makes no @mention, #reference or emoji."""
    import html

    from condorcfg.textsafe import printable

    return f"<code>{html.escape(printable(str(value)), quote=True)}</code>"


def fenced(value) -> str:
    """``value`` as a fenced code block (one line: :func:`printable`), its fence longer than any run of
    backticks in it, so no line of it closes the block (nor ends the <details> around it); *(unset)* for None."""
    import re

    from condorcfg.textsafe import printable

    if value is None:
        return "*(unset)*\n"
    text = printable(str(value))
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence}\n{text}\n{fence}\n"


def _details(summary: str, old, new) -> str:
    """A collapsed block of the full old and new values (``summary``: HTML, made of :func:`_html_code`).
    Blank lines after <summary> and before and after </details>: markdown is read inside the block (the
    fenced values), and nothing after the block is taken into it."""
    return (f"\n<details><summary>{summary}</summary>\n\nold:\n\n{fenced(old)}\nnew:\n\n{fenced(new)}\n"
            f"</details>\n")


def _left_out_note(count: int) -> str:
    return (f"\n*The full values of {count:,} long value{'s' if count != 1 else ''} are left out to keep this "
            f"comment within GitHub's 65,536 characters. The tables show every change; `--format json` or "
            f"`text` gives the values in full.*\n")


def _fit(blocks: list[list[str]], room: int) -> tuple[list[str], int]:
    """Each section's blocks joined, keeping those that fit in ``room`` characters (as printed, after
    :func:`defuse`) in order, and how many were left out."""
    sections, left_out = [], 0
    for section in blocks:
        kept = []
        for block in section:
            size = len(defuse(block))
            if size <= room:
                kept.append(block)
                room -= size
            else:
                left_out += 1
        sections.append("".join(kept))
    return sections, left_out


def _markdown(values, fleet, labels, machine_count: int, *, limit: int | None = None) -> str:
    """The pull-request comment; ``limit``: the characters it may reach with the full values of long changes
    (MAX_COMMENT_CHARS; less when it is one part of a longer comment)."""
    from jinja2 import Environment, PackageLoader

    from condorcfg.report import markdown_text

    environment = Environment(loader=PackageLoader("condorcfg.report", "templates"), autoescape=False,
                              keep_trailing_newline=True)
    environment.filters["name"] = _name

    cells = {}  # id(change) -> (old cell, new cell, worth a <details> block)
    knob_blocks = []
    for change in values:
        cells[id(change)] = value_cells(change.old, change.new)
        if cells[id(change)][2]:
            knob_blocks.append(_details(f"Full old and new value of {_html_code(change.name)}", change.old,
                                        change.new))
    slot_blocks = []
    for _names, changes in fleet:
        alike: dict[tuple, list[str]] = {}  # (attribute, old, new) -> the slots with that change
        for change in changes:
            cells[id(change)] = value_cells(change.old, change.new)
            if cells[id(change)][2]:
                alike.setdefault((change.attribute, change.old, change.new), []).append(change.slot)
        slot_blocks.append([
            _details(f"Full old and new value of {_html_code(attribute)} on {_html_code(slots[0])}"
                     + (f" and {len(slots) - 1:,} more slot{'s' if len(slots) != 2 else ''}" if len(slots) > 1 else ""),
                     old, new)
            for (attribute, old, new), slots in alike.items()])

    restart = [c for c in values if c.restart]

    def render(knob_details: str, slot_details: list[str], note: str) -> str:
        return environment.get_template("diff.md.j2").render(
            values=values, fleet=fleet, old=labels[0], new=labels[1], shown=lambda c: cells[id(c)],
            restart=restart, security=[c for c in values if c.security], machine_count=machine_count,
            where=lambda d: code_span(_where(d), table=True), code=code_span, md=markdown_text,
            unlisted=_unlisted, unlisted_line=_unlisted_line, knob_details=knob_details,
            slot_details=slot_details, left_out_note=note)

    blocks = [knob_blocks, *slot_blocks]
    if not any(blocks):
        return render("", [""] * len(fleet), "")
    # the comment without any full value, then as many of those as fit in the room left (a note's room kept)
    room = (MAX_COMMENT_CHARS if limit is None else limit) - len(defuse(render("", [""] * len(fleet), "")))
    sections, left_out = _fit(blocks, room - len(_left_out_note(sum(map(len, blocks)))))
    return render(sections[0], sections[1:], _left_out_note(left_out) if left_out else "")


def _roles_markdown(results, labels) -> str:
    """A pool's pull-request comment: the summary, then each changed role's part (a collapsed block for the
    unchanged ones would say nothing: they are named in the summary)."""
    out = [f"**condorcfg diff** {code_span(labels[0])} → {code_span(labels[1])}: {code_span(_summary(results))}\n"]
    for result in results:
        if result.values or result.fleet:
            out.append(f"\n## Role {code_span(result.role)}\n\n")
            # (one comment: the roles share its budget for full values; changed words are always shown)
            room = max(MAX_COMMENT_CHARS - sum(len(part) for part in out), 0)
            out.append(_markdown(result.values, result.fleet, labels, result.machines, limit=room))
    return "".join(out)
