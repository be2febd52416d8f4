"""Options shared by ``condorcfg ads`` and ``condorcfg match``: the config and the machine."""
from __future__ import annotations

import sys


def add_config_and_machine(parser) -> None:
    parser.add_argument("--config", action="append", required=True, metavar="FILE",
                        help="configuration file or config.d directory (repeat to read several in order)")
    parser.add_argument("--machine", metavar="PROFILE", help="machine profile (YAML or JSON); default: this host")
    parser.add_argument("--cpus", type=int, help="override the profile's CPU count")
    parser.add_argument("--memory", type=int, metavar="MiB", help="override the profile's memory (MiB)")
    parser.add_argument("--disk", type=int, metavar="KiB", help="override the profile's execute disk (KiB)")
    parser.add_argument("--hostname", help="override the profile's fully qualified host name")
    parser.add_argument("--slot", type=int, metavar="N", help="only slot N (its SlotID)")


def machine_from_args(args):
    """The machine profile with the command-line overrides applied (raises CondorcfgError)."""
    from condorcfg.machine import resolve

    machine = resolve(args.machine)
    for key in ("cpus", "memory", "disk"):
        value = getattr(args, key)
        if value is not None:
            if value < (1 if key == "cpus" else 0):
                from condorcfg.diagnostics import CondorcfgError, error

                raise CondorcfgError(error(f"--{key} must be a positive number, not {value}", "<command line>"))
            setattr(machine, key, value)
    if args.hostname:
        machine.hostname = args.hostname
    return machine


def load_slot_ads(args, public: bool = False):
    """(SlotAds, config diagnostics) for the command's --config and machine options."""
    import condorcfg
    from condorcfg.slots import build_slot_ads

    machine = machine_from_args(args)
    paths = args.config if len(args.config) > 1 else args.config[0]
    cfg = condorcfg.load(paths, machine=machine, subsystem="STARTD")  # the startd builds slot ads
    ads = build_slot_ads(cfg, machine, public=public)
    return ads, [d for d in getattr(cfg, "diagnostics", []) if d.severity == "error"]


def print_diagnostics(diagnostics) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)
