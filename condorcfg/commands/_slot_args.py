"""What ``condorcfg ads`` and ``condorcfg match`` add to the shared configuration options.

The configuration and machine options are :mod:`condorcfg.commands._config_args`'s, with the
STARTD as default subsystem (the daemon that builds slot ads); this module adds the overrides of
the machine's facts (--cpus, --memory, --disk, --hostname) and the slot filter (--slot).
"""
from __future__ import annotations

import sys

from condorcfg.commands._config_args import add_config_arguments, config_paths, load_config, one_role, role_machine

SLOT_SUBSYSTEM = "STARTD"


def add_slot_arguments(parser) -> None:
    add_config_arguments(parser, positional=True,
                         subsystem_default=f"{SLOT_SUBSYSTEM}, the daemon that builds slot ads")
    parser.add_argument("--cpus", type=int, help="override the profile's CPU count")
    parser.add_argument("--memory", type=int, metavar="MiB", help="override the profile's memory (MiB)")
    parser.add_argument("--disk", type=int, metavar="KiB", help="override the profile's execute disk (KiB)")
    parser.add_argument("--hostname", help="override the profile's fully qualified host name")
    parser.add_argument("--slot", type=int, metavar="N", help="only slot N (its SlotID)")


def machine_from_args(args, found=False):
    """The machine profile with the command-line overrides applied (raises CondorcfgError); ``found``: the
    (project, role) the configuration comes from (see _config_args.one_role), whose profiles --machine names.

    The overrides obey the bounds of profile values (machine.LIMITS).
    """
    from condorcfg.machine import LIMITS, resolve

    if found is False:
        found = one_role(args, config_paths(args))
    machine = resolve(role_machine(args, found))
    for key in ("cpus", "memory", "disk"):
        value = getattr(args, key)
        if value is not None:
            low, high = LIMITS[key]
            if not low <= value <= high:
                from condorcfg.diagnostics import CondorcfgError, error

                raise CondorcfgError(error(f"--{key} must be between {low} and {high}, not {value}",
                                           "<command line>"))
            setattr(machine, key, value)
    if args.hostname:
        machine.hostname = args.hostname
    return machine


def load_slot_ads(args, public: bool = False):
    """(SlotAds, config error diagnostics) for the command line; raises CondorcfgError for unusable input."""
    from condorcfg.slots import build_slot_ads

    found = one_role(args, config_paths(args))
    machine = machine_from_args(args, found)
    cfg = load_config(args, config_paths(args), machine=machine, subsystem=SLOT_SUBSYSTEM, found=found)
    ads = build_slot_ads(cfg, machine, public=public)
    return ads, [d for d in getattr(cfg, "diagnostics", []) if d.severity == "error"]


def print_diagnostics(diagnostics) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)
