"""``condorcfg ads``: the machine ad every slot would advertise, like ``condor_status -l``.

The configuration comes from the shared options (:mod:`condorcfg.commands._config_args`), read
as the STARTD unless ``--subsystem`` says otherwise.  Formats: ``text`` (the default) is
``long``, condor_status -l style; ``json`` is condor_status -json (``condorcfg eval --my -``
reads it back); ``new`` prints ``[ ... ]`` ads.  Output is defused for CI logs
(:mod:`condorcfg.textsafe`; JSON with JSON escapes, so it reads back the same).
"""
from __future__ import annotations

import sys

from condorcfg.commands._slot_args import add_slot_arguments, load_slot_ads, print_diagnostics
from condorcfg.textsafe import defuse, defuse_json, safe_line

FORMAT_ALIASES = {"text": "long"}  # every command's default human format is called text


def add_arguments(parser) -> None:
    parser.epilog = ("Run-time attributes (LoadAvg, KeyboardIdle, State...) take the values of an idle, "
                     "unclaimed machine. Layout problems are printed as FILE:LINE:COL: error: ... and make "
                     "the exit status 1.")
    add_slot_arguments(parser)
    parser.add_argument("--format", choices=("text", "long", "json", "new"), default="text",
                        help="text or long: condor_status -l style (default); json: condor_status -json; "
                             "new: [ ... ] ads")
    parser.add_argument("--public", action="store_true",
                        help="the collector's view: without the policy expressions only the startd sees")
    parser.add_argument("--policy", action="store_true",
                        help="also report the local policy of each slot (IsOwner, Start, initial state) on stderr")


def run(args) -> int:
    from condorcfg.slots.output import FORMATS

    ads, config_errors = load_slot_ads(args, public=args.public)  # unusable input raises: exit 2 in the CLI
    selected = [a for a in ads if args.slot is None or a.slot_id == args.slot]
    print_diagnostics(config_errors + ads.diagnostics)
    if args.slot is not None and not selected:
        print(f"condorcfg ads: there is no slot {args.slot}; slots: "
              f"{', '.join(str(a.slot_id) for a in ads) or 'none'}", file=sys.stderr)
        return 2
    fmt = FORMAT_ALIASES.get(args.format, args.format)
    text = FORMATS[fmt]([a.ad for a in selected])
    sys.stdout.write(defuse_json(text) if fmt == "json" else defuse(text))
    if args.policy:
        from condorcfg.classad import unparse

        for slot_ad in selected:
            policy = slot_ad.local_policy
            extra = ""
            if policy.undefined or policy.job_references:
                extra = f"; undefined without a job: {', '.join(policy.job_references + policy.undefined)}"
            print(safe_line(f"{slot_ad.name}: IsOwner = {unparse(policy.is_owner)}, Start = {unparse(policy.start)}, "
                            f"initial state {policy.state}{extra}"), file=sys.stderr)
    return 1 if (config_errors or ads.errors) else 0
