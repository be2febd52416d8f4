"""``condorcfg dump``: print the whole effective configuration.

Every knob set by the configuration files, templates or the environment,
sorted by name, with its expanded value (``--raw``: the stored text).
``--all`` adds the detected host facts and the built-in defaults, i.e.
everything a daemon of ``--subsystem`` would see.  ``--format json`` prints
one object (name -> value, null for empty).  Knobs whose expansion fails
(a reference cycle) are reported on stderr and the exit status is 2.  The
configuration is given by ``--config`` or PATH arguments, or discovered
(:mod:`condorcfg.commands._config_args`).

Text output is one ``NAME = value`` line per knob, made safe to print
(:mod:`condorcfg.textsafe`: line breaks and control characters print as escapes); JSON is
ASCII with ``\\u00e9-style`` escapes, exact.
"""
from __future__ import annotations

import json
import sys

from condorcfg.commands._config_args import add_config_arguments, load_from_args, print_reader_warnings
from condorcfg.textsafe import defuse_json, safe_line


def add_arguments(parser) -> None:
    add_config_arguments(parser, positional=True)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--all", action="store_true", help="include host facts and built-in defaults")
    parser.add_argument("--raw", action="store_true", help="print stored (unexpanded) values")


def _names(config, include_all: bool) -> list[str]:
    names = {name.upper(): name for name in config.names()}
    if include_all:
        for definition in config.definitions():
            names.setdefault(definition.name.upper(), definition.name)
        for key in config.defaults:
            names.setdefault(key, key)
    return [names[key] for key in sorted(names)]


def run(args) -> int:
    from condorcfg.diagnostics import CondorcfgError

    config = load_from_args(args)  # unusable input raises: the CLI prints it and exits 2
    status = 0
    reported: set[str] = set()
    result: dict[str, str | None] = {}
    for name in _names(config, args.all):
        if args.raw:
            result[name] = config.raw(name)
            continue
        try:
            result[name] = config.value(name)
        except CondorcfgError as exc:
            text = exc.diagnostic.format()
            if text not in reported:  # a spent budget fails every later knob the same way: say it once
                reported.add(text)
                print(text, file=sys.stderr)
            result[name] = None
            status = 2
    print_reader_warnings(config)  # after expanding: includes the non-fatal $FUNC() errors
    if args.format == "json":
        print(defuse_json(json.dumps(result, indent=2, ensure_ascii=True)))
        return status
    out = sys.stdout
    for name, value in result.items():
        out.write(safe_line(f"{name} = {value if value is not None else ''}") + "\n")
    return status
