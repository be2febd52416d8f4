"""Command-line options shared by the commands that read a configuration (value, dump)."""
from __future__ import annotations

import sys


def add_config_arguments(parser) -> None:
    parser.add_argument("--config", action="append", metavar="FILE",
                        help="configuration file or config.d directory (repeatable); default: CONDOR_CONFIG, "
                             "then /etc/condor/condor_config like HTCondor")
    parser.add_argument("--subsystem", metavar="S", help="read as daemon subsystem S (default TOOL)")
    parser.add_argument("--local-name", metavar="N", help="read with local name N (LOCALNAME.KNOB settings)")
    parser.add_argument("--machine", metavar="PROFILE",
                        help="machine profile (YAML/JSON) giving the host facts; default: this host")
    parser.add_argument("--allow-exec", action="store_true",
                        help="run the commands the configuration names (include : cmd |); off by default")


def load_from_args(args):
    """Load the configuration the options describe; prints the error and returns None if it is rejected."""
    import condorcfg
    from condorcfg.diagnostics import CondorcfgError

    try:
        return condorcfg.load(args.config, machine=args.machine, subsystem=args.subsystem,
                              local_name=args.local_name, allow_exec=args.allow_exec)
    except CondorcfgError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return None


def print_reader_warnings(config) -> None:
    for diagnostic in config.diagnostics:
        print(diagnostic.format(), file=sys.stderr)
