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
characters print as escapes); JSON is ASCII and exact; in markdown every string from the
configuration, the file names or the machine profiles is one code span (:func:`code_span`).
"""
from __future__ import annotations

import json
import os
import sys

from condorcfg.commands._config_args import add_config_arguments
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
    parser.add_argument("--project", metavar="FILE", help="project settings file (default: found upward)")
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
    if definition is None:
        return "built-in"
    return _relabeled(definition.describe() if hasattr(definition, "describe") else str(definition.location))


def _load(args, paths, sysroot, machine, subsystem=None):
    import condorcfg
    from condorcfg.config.reader import UNUSABLE_INPUT
    from condorcfg.diagnostics import CondorcfgError

    config = condorcfg.load(paths, machine=machine, subsystem=args.subsystem or subsystem, local_name=args.local_name,
                            allow_exec=args.allow_exec, sysroot=sysroot, mode="repository")
    unusable = [d for d in config.diagnostics if d.code in UNUSABLE_INPUT and d.severity == "error"]
    if unusable:
        raise CondorcfgError(unusable[0])
    return config


def _machines(args, project) -> dict:
    """The machines slot ads are compared on: --machine, else the project's fleet (machine-profiles),
    else its default machine, else this host."""
    from condorcfg.lint.project import resolve_machine
    from condorcfg.machine import resolve

    if args.machine:
        return {args.machine: resolve_machine(project, args.machine)}
    if project.machine_profiles:
        return {name: resolve_machine(project, name) for name in project.machine_profiles}
    if project.machine is not None:
        return {"default": resolve_machine(project, None)}
    machine = resolve(None)
    return {machine.hostname: machine}


def _distinct(machines: dict) -> list[tuple[list[str], object]]:
    """(names, profile) per distinct profile: a fleet of identical machines is computed once."""
    groups: dict[str, tuple[list[str], object]] = {}
    for name, machine in machines.items():
        facts = [getattr(machine, key) for key in machine.KEYS if key != "source"]  # (where it was read: no fact)
        groups.setdefault(json.dumps(facts, sort_keys=True, default=repr), ([], machine))[0].append(name)
    return list(groups.values())


def _open_sides(args, project, cwd: str, opened: list) -> list[tuple]:
    """(paths, sysroot, label) of OLD and NEW; a git side is added to ``opened`` as soon as it exists."""
    from condorcfg import gitside

    sides = []
    for text in (args.old, args.new):
        if gitside.is_git_side(text, cwd):  # (CondorcfgError when the name is also a path here)
            sysroot = os.path.abspath(args.sysroot) if args.sysroot else project.sysroot  # (as of that revision)
            side = gitside.open_side(text, cwd, project.roots, sysroot)
            opened.append(side)
            _RELABEL[side.directory] = f"{text.split(':')[1] if text.startswith('git:') else text}:"
            sides.append((side.paths, side.sysroot, f"{text} ({side.revision[:12]})"))
        else:
            sides.append(([text], args.sysroot, text))
    return sides


def run(args) -> int:
    from condorcfg import gitside
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.diff import FleetBudget, diff_slot_ads, diff_values
    from condorcfg.lint import project as project_module

    # unusable input raises CondorcfgError: the CLI prints it and exits 2
    project = project_module.for_command(args.project, args.settings_from)
    machines = _machines(args, project)
    first = next(iter(machines.values()))
    opened: list = []
    _RELABEL.clear()  # (this run's git sides only: a process may run several diffs)
    with gitside.removed_on_signals():  # (a cancelled CI job leaves no revision's files behind)
        try:
            sides = _open_sides(args, project, os.getcwd(), opened)
            configs = [_load(args, paths, sysroot, first) for paths, sysroot, _label in sides]
            for config in configs:  # what was not read, or is missing, is said once per side
                for diagnostic in config.diagnostics:
                    if diagnostic.code in NOT_READ:
                        print(_relabeled(diagnostic.format()), file=sys.stderr)
            values = diff_values(*configs)
            fleet = []  # (machine names, slot changes), machines with the same changes grouped
            if not args.no_ads:
                from condorcfg.slots import build_slot_ads

                groups: dict[tuple, list] = {}
                budget = FleetBudget()
                for names, machine in _distinct(machines):
                    startd = [_load(args, paths, sysroot, machine, SLOT_SUBSYSTEM) for paths, sysroot, _l in sides]
                    budget.charge(lines=sum(config.budget.statements for config in startd))
                    ads = [build_slot_ads(config, machine) for config in startd]
                    budget.charge(slot_ads=sum(len(side_ads) for side_ads in ads),
                                  attributes=sum(side_ads.attributes for side_ads in ads))
                    changes = diff_slot_ads(*ads)
                    key = (tuple((c.slot.split("@")[0], c.attribute, c.old, c.new) for c in changes),
                           changes.unlisted)
                    groups.setdefault(key, ([], changes))[0].extend(names)
                fleet = [(names, changes) for names, changes in groups.values() if changes]
        except CondorcfgError as exc:
            print(_relabeled(exc.diagnostic.format()), file=sys.stderr)
            return 2
        finally:
            for side in opened:
                side.cleanup()
    labels = (sides[0][2], sides[1][2])
    if args.format == "json":
        print(defuse_json(json.dumps(_json(values, fleet, labels), indent=2, ensure_ascii=True)))
    elif args.format == "markdown":
        sys.stdout.write(defuse(_markdown(values, fleet, labels, len(machines))))
    else:
        _text(values, fleet)
    return 1 if (values or fleet) else 0


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


def _text(values, fleet) -> None:
    for change in values:
        marker = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
        notes = [n for n, on in (("security", change.security), ("needs a restart", change.restart)) if on]
        print(safe_line(f"{marker} {change.name}" + (f"    [{', '.join(notes)}]" if notes else "")))
        if change.old is not None:
            print(safe_line(f"    - {change.old}    ({_where(change.old_source)})"))
        if change.new is not None:
            print(safe_line(f"    + {change.new}    ({_where(change.new_source)})"))
    for names, changes in fleet:
        print(safe_line(f"slot ads ({', '.join(names)}):"))
        for change in changes:
            if change.attribute is None:
                print(safe_line(f"  {'+' if change.kind == 'added' else '-'} {change.slot}"))
            else:
                print(safe_line(f"  ~ {change.slot} {change.attribute}: {change.old} -> {change.new}"))
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


def _markdown(values, fleet, labels, machine_count: int) -> str:
    from jinja2 import Environment, PackageLoader

    from condorcfg.report import markdown_text

    environment = Environment(loader=PackageLoader("condorcfg.report", "templates"), autoescape=False,
                              keep_trailing_newline=True)
    environment.filters["name"] = _name

    def cell(value) -> str:
        return "*(unset)*" if value is None else code_span(value, table=True, limit=100)

    restart = [c for c in values if c.restart]
    return environment.get_template("diff.md.j2").render(
        values=values, fleet=fleet, old=labels[0], new=labels[1], cell=cell,
        restart=restart, security=[c for c in values if c.security], machine_count=machine_count,
        where=lambda d: code_span(_where(d), table=True), code=code_span, md=markdown_text,
        unlisted=_unlisted, unlisted_line=_unlisted_line)
