"""``condorcfg value``: print the expanded value of knobs, like ``condor_config_val``.

Text output is one value per line; an undefined (or empty) knob prints
``Not defined: KNOB`` on stderr and makes the exit status 1.  ``--format json``
prints one object mapping each name to its value or null.  ``--verbose`` adds
where the value was defined, its raw text, the template it came from and the
definitions it overrode.  A configuration HTCondor rejects, unreadable input
or no configuration found at all exits 2.  The configuration options are the
shared ones (:mod:`condorcfg.commands._config_args`); the positional
arguments are knob names.

Text output is made safe to print (:mod:`condorcfg.textsafe`): a value's control characters,
including the line breaks of a multi-line (``@=``) value, print as escapes (``\\n``), so one
value is one line and nothing in it acts on a terminal or CI log.  ``--format json`` is exact
(ASCII JSON with ``\\u00e9-style`` escapes).
"""
from __future__ import annotations

import sys

from condorcfg.commands._config_args import add_config_arguments, load_each, print_reader_warnings
from condorcfg.textsafe import defuse_json, safe_line

EXIT_OK, EXIT_UNDEFINED, EXIT_ERROR = 0, 1, 2


def add_arguments(parser) -> None:
    add_config_arguments(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="show file:line, raw text, template and overridden definitions")
    parser.add_argument("knobs", nargs="+", metavar="KNOB", help="knob names (case-insensitive)")


def _location_text(definition) -> str:
    if definition.origin == "default":
        return "built-in default"
    if definition.origin == "host":
        return "detected host fact"
    if definition.origin == "env":
        return f"environment ({definition.text.split('=', 1)[0] if definition.text else definition.name})"
    where = str(definition.location)
    if definition.template:
        where += f" (template {definition.template}, used at {definition.use_location})"
    return where


def _provenance(config, name: str) -> dict | None:
    definition = config.source(name)
    if definition is None:
        return None
    chain = []
    previous = definition.overrode
    while previous is not None:
        chain.append({"location": _location_text(previous), "raw": previous.raw})
        previous = previous.overrode
    return {"defined_at": _location_text(definition), "origin": definition.origin, "raw": definition.raw,
            "text": definition.text, "template": definition.template,
            "used_at": str(definition.use_location) if definition.use_location else None,
            # nested templates: every `use` that led here, the user's own line first
            "template_chain": [{"template": template, "used_at": str(where)}
                               for template, where in getattr(definition, "template_chain", ())],
            "overrode": chain}


def run(args) -> int:
    configs = load_each(args)  # unusable input raises: the CLI prints it and exits 2
    if len(configs) == 1:  # (one role, chosen or the only one: answered as for one configuration)
        return _answer(args, configs[0][1])
    # several roles: each answer labelled (JSON: one object per role)
    status, answers = EXIT_OK, {}
    for role, config in configs:
        if args.format != "json":
            print(safe_line(f"[{role}]"))
        status = max(status, _answer(args, config, answers.setdefault(role, {}), role))
    if args.format == "json":
        import json

        print(defuse_json(json.dumps(answers, indent=2, ensure_ascii=True)))
    return status


def _answer(args, config, json_out: dict | None = None, role: str | None = None) -> int:
    """Print the knobs' answers from ``config``; the exit status.  ``json_out``: fill it instead of printing
    the JSON object (one role's part of a larger one); ``role``: whose answers they are (said on stderr)."""
    from condorcfg.diagnostics import CondorcfgError

    status = EXIT_OK
    values: dict[str, str | None] = {}
    failures = []
    for name in args.knobs:
        try:
            values[name] = config.value(name)
        except CondorcfgError as exc:
            failures.append(exc.diagnostic)
            values[name] = None
            status = EXIT_ERROR
    print_reader_warnings(config)  # after expanding: includes the non-fatal $FUNC() errors
    for diagnostic in failures:
        print(diagnostic.format(), file=sys.stderr)
    if args.format == "json":
        import json  # only for --format json: the usual text answer starts faster without it

        if args.verbose:
            out = {name: dict(value=values[name], **(_provenance(config, name) or {})) for name in args.knobs}
        else:
            out = values
        if json_out is not None:
            json_out.update(out)
        else:
            print(defuse_json(json.dumps(out, indent=2, ensure_ascii=True)))
        if status == EXIT_OK and any(v is None for v in values.values()):
            status = EXIT_UNDEFINED
        return status
    for name in args.knobs:
        value = values[name]
        if value is None:
            print(safe_line(f"Not defined: {name}" + (f" (role {role})" if role else "")), file=sys.stderr)
            status = max(status, EXIT_UNDEFINED)
            if not args.verbose:
                continue
        else:
            print(safe_line(value if not args.verbose else f"{name} = {value}"))
        if args.verbose:
            info = _provenance(config, name)
            if info is None:
                continue
            print(safe_line(f"  # defined at {info['defined_at']}"))
            if info["text"] and info["origin"] in ("file", "template"):
                print(safe_line(f"  # written: {info['text']}"))
            if len(info["template_chain"]) > 1:
                steps = " -> ".join(f"{step['template']} (use at {step['used_at']})" for step in info["template_chain"])
                print(safe_line(f"  # through templates: {steps}"))
            print(safe_line(f"  # raw: {info['raw']}"))
            for item in info["overrode"]:
                print(safe_line(f"  # overrode: {item['location']}: {item['raw']}"))
    return status
