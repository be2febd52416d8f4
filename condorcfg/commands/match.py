"""``condorcfg match``: does a job match the slots of a machine, and which clause fails if not.

The configuration comes from the shared options (:mod:`condorcfg.commands._config_args`), read
as the STARTD unless ``--subsystem`` says otherwise.  ``--format json`` prints one object: the
job, each slot's verdict and every clause with its value.  Exit status: 0 when some slot matches,
1 when none does, 2 when an input cannot be used.  Output is made safe to print
(:mod:`condorcfg.textsafe`): text escaped and defused, JSON ASCII and defused with JSON escapes.
"""
from __future__ import annotations

import json
import sys

from condorcfg.commands._slot_args import add_slot_arguments, load_slot_ads, print_diagnostics
from condorcfg.textsafe import defuse, defuse_json


def add_arguments(parser) -> None:
    add_slot_arguments(parser)
    parser.add_argument("--job", required=True, metavar="JOBAD",
                        help="job ad file (old 'Attr = value' lines or new [ ... ] syntax)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: clause by clause for a person (default); json: one object")


def _read_job(path: str):
    """The job ad in ``path`` (raises CondorcfgError pointing at the file, or the line that does not parse)."""
    from condorcfg.classad import parse_ad
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.inputs import read_text

    text, shown = read_text(path, "job ad")
    try:
        return parse_ad(text)
    except (ValueError, RecursionError) as exc:  # ClassAdSyntaxError is a ValueError: where, not a traceback
        line = getattr(exc, "line", 0) or 0
        column = getattr(exc, "column", 1) or 1
        message = getattr(exc, "message", None) or "it is nested too deeply"
        raise CondorcfgError(error(f"job ad does not parse: {message}", shown, line, column))


def _clause_json(clause) -> dict:
    from condorcfg.classad import unparse

    return {"side": clause.side, "origin": clause.origin, "clause": clause.text, "value": unparse(clause.value),
            "ok": clause.ok}


def match_json(job_path: str, results) -> dict:
    """The JSON report: the job, and per slot the verdict of each side and its clauses."""
    return {
        "job": job_path,
        "slots": [{"slot": r.slot_name, "matches": r.matches, "slot_requirements": r.slot_ok,
                   "job_requirements": r.job_ok, "clauses": [_clause_json(c) for c in r.clauses]}
                  for r in results],
        "matched": sum(r.matches for r in results),
    }


def run(args) -> int:
    from condorcfg.slots.match import explain_match, format_match

    job = _read_job(args.job)  # unusable input raises: the CLI prints it and exits 2
    ads, config_errors = load_slot_ads(args, public=True)
    print_diagnostics(config_errors + ads.errors)
    selected = [a for a in ads if args.slot is None or a.slot_id == args.slot]
    if not selected:
        print(f"condorcfg match: no slot to match against (slots: "
              f"{', '.join(str(a.slot_id) for a in ads) or 'none'})", file=sys.stderr)
        return 2
    results = [explain_match(slot_ad.ad, job, slot_ad.name) for slot_ad in selected]
    matched = sum(r.matches for r in results)
    if args.format == "json":
        print(defuse_json(json.dumps(match_json(args.job, results), indent=2, ensure_ascii=True)))
    else:
        print(defuse("\n\n".join(format_match(r) for r in results)))
        print(f"\n{matched} of {len(results)} slots match the job")
    return 0 if matched else 1
