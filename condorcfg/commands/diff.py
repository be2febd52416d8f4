"""``condorcfg diff OLD NEW``: what changes in meaning between two configuration versions.

Exit status follows diff(1): 0 no difference, 1 differences, 2 an input could not be read.
Both sides are read as configurations kept for another host (the reader's repository mode, as
``lint`` reads them): the environment of this process is not used, and a path outside the
given configuration (and ``--sysroot``) is reported on stderr instead of read, so a diff in a
CI job never depends on, or shows, the job's own files and secrets.
The shared configuration options (:mod:`condorcfg.commands._config_args`: --machine,
--subsystem, --local-name, --sysroot, --allow-exec) apply to both sides; slot ads are built as
the STARTD unless --subsystem is given.
Text output is made safe to print (:mod:`condorcfg.textsafe`: a value's line breaks and control
characters print as escapes); JSON is ASCII and exact.
"""
from __future__ import annotations

import json
import sys

from condorcfg.commands._config_args import add_config_arguments, load_config
from condorcfg.textsafe import defuse_json, safe_line

SLOT_SUBSYSTEM = "STARTD"  # the daemon that builds slot ads
NOT_READ = ("outside-file", "missing-host-file")  # the reader's reports of files it did not read


def add_arguments(parser) -> None:
    parser.add_argument("old", help="the old configuration: top-level file, single file or config.d directory")
    parser.add_argument("new", help="the new configuration, read the same way")
    add_config_arguments(parser, config=False,
                         subsystem_default=f"TOOL for knob values, {SLOT_SUBSYSTEM} for slot ads")
    parser.add_argument("--no-ads", action="store_true", help="compare knob values only, not slot ads")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: one change per line (default); json: one object")


def _where(definition) -> str:
    if definition is None:
        return "built-in"
    return definition.describe() if hasattr(definition, "describe") else str(definition.location)


def run(args) -> int:
    from condorcfg.diff import diff_slot_ads, diff_values
    from condorcfg.machine import resolve

    # unusable input raises CondorcfgError: the CLI prints it and exits 2
    machine = resolve(args.machine)
    sides = (args.old, args.new)
    configs = [load_config(args, path, machine=machine, mode="repository") for path in sides]
    for config in configs:  # what was not read, or is missing, is said once per side
        for diagnostic in config.diagnostics:
            if diagnostic.code in NOT_READ:
                print(diagnostic.format(), file=sys.stderr)
    values = diff_values(*configs)
    slots = []
    if not args.no_ads:
        from condorcfg.slots import build_slot_ads

        startd = [load_config(args, path, machine=machine, subsystem=SLOT_SUBSYSTEM, mode="repository")
                  for path in sides]
        slots = diff_slot_ads(*(build_slot_ads(cfg, machine) for cfg in startd))
    if args.format == "json":
        print(defuse_json(json.dumps({
            "values": [{"name": c.name, "kind": c.kind, "old": c.old, "new": c.new,
                        "old_source": _where(c.old_source) if c.old is not None else None,
                        "new_source": _where(c.new_source) if c.new is not None else None} for c in values],
            "slots": [{"slot": c.slot, "attribute": c.attribute, "kind": c.kind, "old": c.old, "new": c.new}
                      for c in slots],
        }, indent=2, ensure_ascii=True)))
    else:
        for change in values:
            marker = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
            print(safe_line(f"{marker} {change.name}"))
            if change.old is not None:
                print(safe_line(f"    - {change.old}    ({_where(change.old_source)})"))
            if change.new is not None:
                print(safe_line(f"    + {change.new}    ({_where(change.new_source)})"))
        if slots:
            print(safe_line(f"slot ads ({machine.hostname}):"))
            for change in slots:
                if change.attribute is None:
                    print(safe_line(f"  {'+' if change.kind == 'added' else '-'} {change.slot}"))
                else:
                    print(safe_line(f"  ~ {change.slot} {change.attribute}: {change.old} -> {change.new}"))
        if not values and not slots:
            print("no difference in meaning")
    return 1 if (values or slots) else 0
