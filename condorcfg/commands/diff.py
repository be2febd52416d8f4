"""``condorcfg diff OLD NEW``: what changes in meaning between two configuration versions.

Exit status follows diff(1): 0 no difference, 1 differences, 2 an input could not be read.
"""
from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    parser.add_argument("old", help="the old configuration: top-level file, single file or config.d directory")
    parser.add_argument("new", help="the new configuration, read the same way")
    parser.add_argument("--machine", metavar="PROFILE", help="machine profile (YAML/JSON); default: this host")
    parser.add_argument("--subsystem", metavar="S", help="compare values as daemon subsystem S sees them")
    parser.add_argument("--no-ads", action="store_true", help="compare knob values only, not slot ads")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--allow-exec", action="store_true",
                        help="run the commands the configurations name (include : cmd |); off by default")


def _where(definition) -> str:
    if definition is None:
        return "built-in"
    return definition.describe() if hasattr(definition, "describe") else str(definition.location)


def run(args) -> int:
    import condorcfg
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.diff import diff_slot_ads, diff_values
    from condorcfg.machine import resolve

    try:
        machine = resolve(args.machine)
        configs = [condorcfg.load(path, machine=machine, subsystem=args.subsystem, allow_exec=args.allow_exec)
                   for path in (args.old, args.new)]
        values = diff_values(*configs)
        slots = []
        if not args.no_ads:
            from condorcfg.slots import build_slot_ads

            # the startd is the daemon that builds slot ads: read both sides as it does
            startd = [condorcfg.load(path, machine=machine, subsystem="STARTD", allow_exec=args.allow_exec)
                      for path in (args.old, args.new)]
            slots = diff_slot_ads(*(build_slot_ads(cfg, machine) for cfg in startd))
    except CondorcfgError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return 2

    if args.format == "json":
        print(json.dumps({
            "values": [{"name": c.name, "kind": c.kind, "old": c.old, "new": c.new,
                        "old_source": _where(c.old_source) if c.old is not None else None,
                        "new_source": _where(c.new_source) if c.new is not None else None} for c in values],
            "slots": [{"slot": c.slot, "attribute": c.attribute, "kind": c.kind, "old": c.old, "new": c.new}
                      for c in slots],
        }, indent=2))
    else:
        for change in values:
            marker = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
            print(f"{marker} {change.name}")
            if change.old is not None:
                print(f"    - {change.old}    ({_where(change.old_source)})")
            if change.new is not None:
                print(f"    + {change.new}    ({_where(change.new_source)})")
        if slots:
            print(f"slot ads ({machine.hostname}):")
            for change in slots:
                if change.attribute is None:
                    print(f"  {'+' if change.kind == 'added' else '-'} {change.slot}")
                else:
                    print(f"  ~ {change.slot} {change.attribute}: {change.old} -> {change.new}")
        if not values and not slots:
            print("no difference in meaning")
    return 1 if (values or slots) else 0
