"""``condorcfg upgrade``: what changes for a configuration when the pool moves to another HTCondor release.

    condorcfg upgrade --from 23.0 [--to 25.14] [--config FILE]... [PATH...] [--format text|json|markdown]

The configuration is read as each release reads it (its templates, built-in defaults and
``if version`` branches; :mod:`condorcfg.upgrade`), and every knob whose effective value differs
is listed with why: the new release refuses the configuration, a knob set here that it no
longer has, a template that expands differently, another ``if version`` branch, a built-in
default this configuration relies on, or a value that follows from those.  Security knobs
come first.  Releases are the ones condorcfg has tables for (``condorcfg.releases``), named
exactly or by series (``24.0``).  Exit status: 0 nothing changes, 1 something does, 2 the
input cannot be used (the configuration, or a release condorcfg does not know).

Without ``--config`` or PATH, every role of the project settings is planned (``--role`` chooses),
each from ``--from`` or else the release its ``version`` says it runs, and reported under its name.
"""
from __future__ import annotations

import json
import sys

from condorcfg.commands._config_args import add_config_arguments, config_paths, project_roles, require_configuration
from condorcfg.textsafe import defuse, defuse_json, printable, safe_line

EXIT_OK, EXIT_CHANGES, EXIT_USAGE = 0, 1, 2


def add_arguments(parser) -> None:
    parser.add_argument("--from", dest="old", metavar="RELEASE",
                        help="the release the pool runs now (23.0, 24.0.24, ...); default: each role's `version`")
    parser.add_argument("--to", dest="new", metavar="RELEASE", help="the release to upgrade to (default: 25.14.1)")
    add_config_arguments(parser, positional=True)
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                        help="markdown: a table for a pull-request comment")


def run(args) -> int:
    from condorcfg import releases
    from condorcfg.machine import MachineProfile, resolve
    from condorcfg.upgrade import plan

    from condorcfg import roles

    paths = config_paths(args)
    found = project_roles(args, paths)
    if found is None:
        if paths is None:
            require_configuration()
        # A fixed machine unless one is named: the report is about releases, not about this host.
        targets = [(None, paths, None, resolve(args.machine) if args.machine else MachineProfile(),
                    dict(sysroot=args.sysroot))]
    else:
        project, chosen = found
        if args.old is None:  # (the roles that say which release they run; the others are named, not planned)
            unknown = [role.name for role in chosen if role.version is None]
            if unknown and len(unknown) < len(chosen):
                print(safe_line(f"condorcfg upgrade: not planned (no `version` in the project settings; name the "
                                f"release with --from): {', '.join(unknown)}"), file=sys.stderr)
                chosen = [role for role in chosen if role.version is not None]
        targets = [(role.name, [role.root], role.version,
                    roles.machine(role, project, args.machine) or MachineProfile(),
                    dict(host=role.host, allowed_dirs=roles.allowed_dirs(project))) for role in chosen]
    results = []
    for name, target_paths, version, machine, options in targets:
        try:
            if args.old is None and version is None:
                raise ValueError(f"say which release {'role ' + repr(name) if name else 'the pool'} runs now: "
                                 f"--from RELEASE" + (" (or `version` of the role)" if name else ""))
            old = releases.resolve(args.old or version)
            new = releases.resolve(args.new or releases.base())
        except ValueError as exc:
            print(safe_line(f"condorcfg upgrade: {exc}"), file=sys.stderr)
            return EXIT_USAGE
        results.append((name, plan(target_paths, old, new, machine=machine, subsystem=args.subsystem,
                                   local_name=args.local_name, allow_exec=args.allow_exec, mode="repository",
                                   **options)))
    if len(results) == 1 and not results[0][0]:  # one configuration (or the only root): as it always was
        result = results[0][1]
        if args.format == "json":
            print(defuse_json(json.dumps(_json(result), indent=2, ensure_ascii=True)))
        elif args.format == "markdown":
            sys.stdout.write(defuse(_markdown(result)))
        else:
            sys.stdout.write(defuse(_text(result)))
        return EXIT_CHANGES if result.changes else EXIT_OK
    # a pool: each role's plan under its name
    if args.format == "json":
        print(defuse_json(json.dumps({"roles": [dict(role=name, **_json(result)) for name, result in results]},
                                     indent=2, ensure_ascii=True)))
    else:
        parts = []
        for name, result in results:
            heading = f"## Role `{name}`\n\n" if args.format == "markdown" else f"== role {printable(name)} ==\n"
            parts.append(heading + (_markdown(result) if args.format == "markdown" else _text(result)))
        sys.stdout.write(defuse("\n".join(parts)))
    return EXIT_CHANGES if any(result.changes for _name, result in results) else EXIT_OK


def _shown(value, limit: int = 100) -> str:
    if value is None:
        return "(undefined)"
    text = " ".join(value.split())
    return printable(text if len(text) <= limit else text[:limit - 1] + "…")


def _list_delta(old, new) -> str | None:
    """For two lists (several words each): what the new one adds and drops, or None."""
    import re

    if not old or not new:
        return None
    before, after = re.split(r"[\s,]+", old.strip()), re.split(r"[\s,]+", new.strip())
    if len(before) < 3 or len(after) < 3 or any(not re.fullmatch(r"[\w.-]+", w) for w in before + after):
        return None
    added = [w for w in after if w not in before]
    dropped = [w for w in before if w not in after]
    parts = ([f"adds {', '.join(added)}"] if added else []) + ([f"drops {', '.join(dropped)}"] if dropped else [])
    return printable("; ".join(parts) or f"{old}  ->  {new}")


def _text(result) -> str:
    lines = [f"HTCondor {result.old} -> {result.new}"]
    if not result.changes:
        return lines[0] + ": nothing this configuration relies on changes\n"
    headings = {"refused": "The new release refuses the configuration", "removed": "Knobs set here that it no longer has",
                "template": "Templates that expand differently", "branch": "Other `if version` branches",
                "default": "Built-in defaults this configuration relies on", "value": "Values that follow"}
    current = None
    for change in result.changes:
        group = "Security" if change.security else headings[change.kind]
        if group != current:
            current = group
            lines += ["", f"{group}:"]
        if change.kind == "refused":
            where = f"{change.where}: " if change.where else ""
            lines.append(f"  {printable(where)}{printable(change.message)}")
            continue
        where = f"  ({change.where})" if change.where else ""
        lines.append(f"  {printable(change.knob)}: {_list_delta(change.old, change.new) or _shown(change.old) + '  ->  ' + _shown(change.new)}")
        lines.append(f"      {printable(change.message)}{printable(where)}")
        if change.docs:
            lines.append(f"      docs: {change.docs}")
    lines += ["", f"{len(result.changes)} change{'s' * (len(result.changes) != 1)}"
                  f" ({result.security_count} touching security)."]
    return "\n".join(lines) + "\n"


def _json(result) -> dict:
    def place(location):
        return None if location is None else {"file": location.file, "line": location.line or None}

    return {"from": result.old, "to": result.new, "files": result.files,
            "changes": [{"knob": c.knob, "kind": c.kind, "security": c.security, "old": c.old, "new": c.new,
                         "old_default": c.old_default, "new_default": c.new_default, "template": c.template,
                         "where": place(c.where), "docs": c.docs, "message": c.message} for c in result.changes],
            "security_changes": result.security_count}


def _markdown(result) -> str:
    from jinja2 import Environment, PackageLoader

    from condorcfg.report import markdown_text

    environment = Environment(loader=PackageLoader("condorcfg.report", "templates"), autoescape=False,
                              keep_trailing_newline=True)

    def cell(value) -> str:
        if value is None:
            return "*(undefined)*"
        text = " ".join(value.split())
        return markdown_text(text[:80] + ("…" if len(text) > 80 else ""))

    def where(location) -> str:
        return markdown_text(str(location))

    return environment.get_template("upgrade.md.j2").render(plan=result, cell=cell, where=where, md=markdown_text)
