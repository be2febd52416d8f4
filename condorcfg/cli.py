"""Command-line entry point.

Each subcommand lives in its own module under ``condorcfg.commands`` and is
imported only when it is run, so ``condorcfg lint`` never pays for the slot
builder and start-up stays fast.  A command module provides
``add_arguments(parser)`` and ``run(args) -> int``.

A :class:`~condorcfg.diagnostics.CondorcfgError` escaping ``run`` is input the command cannot
use (a missing or unreadable file, a bad machine profile, no configuration found): its diagnostic
is printed as ``FILE:LINE:COL: error ...`` (or ``condorcfg COMMAND: message`` when it concerns no
file) and the exit status is 2, never a traceback.
"""
from __future__ import annotations

import gc
import os
import sys

from condorcfg import arguments
from condorcfg.diagnostics import CondorcfgError

# name -> (module, one-line help)
COMMANDS = {
    "value": ("condorcfg.commands.value", "print the expanded value of knobs, like condor_config_val"),
    "dump": ("condorcfg.commands.dump", "print the whole effective configuration"),
    "eval": ("condorcfg.commands.eval", "evaluate a ClassAd expression, like classad_eval"),
    "ads": ("condorcfg.commands.ads", "print the effective machine ad of every slot"),
    "match": ("condorcfg.commands.match", "explain whether a job matches a slot, clause by clause"),
    "lint": ("condorcfg.commands.lint", "check a configuration for mistakes"),
    "rules": ("condorcfg.commands.rules", "list the lint rules"),
    "explain": ("condorcfg.commands.explain", "show the documentation of one lint rule"),
    "diff": ("condorcfg.commands.diff", "compare two configurations (effective values and slot ads)"),
    "test": ("condorcfg.commands.test", "run policy tests: what the pool's policy must do, case by case"),
    "upgrade": ("condorcfg.commands.upgrade", "what changes for a configuration between two HTCondor releases"),
    "qube": ("condorcfg.commands.qube", "evaluate Qube! requirement expressions or translate them to ClassAd"),
}

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: condorcfg COMMAND [options]", "", "commands:"]
    for name, (_, help_text) in COMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {help_text}")
    lines.append("")
    lines.append("Run 'condorcfg COMMAND --help' for the options of a command.")
    return "\n".join(lines)


def _failure_text(exc: CondorcfgError, command: str) -> str:
    """The diagnostic of input ``command`` cannot use, prefixed with the command when it names no file.

    Made safe to print (:mod:`condorcfg.textsafe`): the message may quote the configuration.
    """
    from condorcfg.textsafe import safe_line

    diagnostic = exc.diagnostic
    if diagnostic.location is None:
        return safe_line(f"condorcfg {command}: {diagnostic.message}")
    return diagnostic.format()


GC_YOUNG_THRESHOLD = 50_000


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] == "--version":
        from condorcfg import __version__

        print(f"condorcfg {__version__}")
        return EXIT_OK
    name = argv[0]
    if name not in COMMANDS:
        print(f"condorcfg: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return EXIT_USAGE
    __import__(COMMANDS[name][0])  # (not importlib.import_module: importlib brings warnings, a millisecond)
    module = sys.modules[COMMANDS[name][0]]
    # A command builds its data once and keeps it to the end (hardly any reference cycles): collecting
    # young objects every 700 allocations rescans the big heaps of large reports and many slots for
    # nothing (a quarter of a 99,000-finding SARIF report).  Cycles are still collected, less often.
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 20)
    try:
        args = arguments.read(module.add_arguments, f"condorcfg {name}", COMMANDS[name][1], argv[1:])
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        from condorcfg.classad.budget import command_budget  # one evaluation budget per command

        with command_budget() as budget:
            status = module.run(args)
        if budget.spent:
            severity = "error" if budget.failed else "warning"
            print(f"condorcfg {name}: {severity}: {budget.message()}", file=sys.stderr)
            if budget.failed:  # findings may be incomplete: fail closed
                status = max(status, EXIT_USAGE)
        return status
    except CondorcfgError as exc:
        print(_failure_text(exc, name), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    """The ``condorcfg`` program: :func:`main`, then the exit, without taking the interpreter apart.

    A command ends with all it built still alive (a configuration, slot ads, findings), and a
    normal exit frees it object by object: ~10 ms for a 10,000-line configuration, as long as
    some whole commands take.  condorcfg registers no exit handlers and closes every file it
    writes, so once the standard streams are flushed there is nothing left to do.  Should a
    flush fail (a full disk, a closed pipe), the normal exit reports it as Python does.
    """
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(status)
    os._exit(status)


if __name__ == "__main__":
    entry()
