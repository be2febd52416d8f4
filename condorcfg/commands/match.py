"""``condorcfg match``: does a job match the slots of a machine, and which clause fails if not."""
from __future__ import annotations

import sys

from condorcfg.commands._slot_args import add_config_and_machine, load_slot_ads, print_diagnostics


def add_arguments(parser) -> None:
    add_config_and_machine(parser)
    parser.add_argument("--job", required=True, metavar="JOBAD",
                        help="job ad file (old 'Attr = value' lines or new [ ... ] syntax)")


def _read_job(path: str):
    from condorcfg.classad import parse_ad
    from condorcfg.diagnostics import CondorcfgError, error

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise CondorcfgError(error(f"cannot read job ad: {exc.strerror}", path))
    try:
        return parse_ad(text)
    except Exception as exc:  # ClassAdSyntaxError: report where, never a traceback
        line = getattr(exc, "line", 0) or 0
        column = getattr(exc, "column", 1) or 1
        message = getattr(exc, "message", None) or str(exc)
        raise CondorcfgError(error(f"job ad does not parse: {message}", path, line, column))


def run(args) -> int:
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.slots.match import explain_match, format_match

    try:
        job = _read_job(args.job)
        ads, config_errors = load_slot_ads(args, public=True)
    except CondorcfgError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return 2
    print_diagnostics(config_errors + ads.errors)
    selected = [a for a in ads if args.slot is None or a.slot_id == args.slot]
    if not selected:
        print(f"condorcfg match: no slot to match against (slots: "
              f"{', '.join(str(a.slot_id) for a in ads) or 'none'})", file=sys.stderr)
        return 2
    results = [explain_match(slot_ad.ad, job, slot_ad.name) for slot_ad in selected]
    print("\n\n".join(format_match(r) for r in results))
    matched = sum(r.matches for r in results)
    print(f"\n{matched} of {len(results)} slots match the job")
    return 0 if matched else 1
