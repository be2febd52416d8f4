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

from condorcfg.commands._slot_args import add_slot_arguments, print_diagnostics
from condorcfg.textsafe import defuse, defuse_json


def add_arguments(parser) -> None:
    add_slot_arguments(parser)
    parser.add_argument("--job", required=True, metavar="JOBAD",
                        help="job ad file (old 'Attr = value' lines or new [ ... ] syntax)")
    parser.add_argument("--state", metavar="ADFILE",
                        help="slot attributes that differ from an idle machine (KeyboardIdle = 10, LoadAvg = 2.0, ...), "
                             "set on every slot before matching: a busy desktop, a draining node")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: clause by clause for a person (default); json: one object")


def _read_job(path: str, what: str = "job ad"):
    """The ad in ``path`` (raises CondorcfgError pointing at the file, or the line that does not parse)."""
    from condorcfg.classad import parse_ad
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.inputs import read_text

    text, shown = read_text(path, what)
    try:
        return parse_ad(text)
    except (ValueError, RecursionError) as exc:  # ClassAdSyntaxError is a ValueError: where, not a traceback
        line = getattr(exc, "line", 0) or 0
        column = getattr(exc, "column", 1) or 1
        message = getattr(exc, "message", None) or "it is nested too deeply"
        raise CondorcfgError(error(f"{what} does not parse: {message}", shown, line, column))


def _clause_json(clause) -> dict:
    from condorcfg.classad import unparse

    return {"side": clause.side, "origin": clause.origin, "clause": clause.text, "value": unparse(clause.value),
            "values": clause.values, "where": clause.where, "ok": clause.ok}


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
    from condorcfg.commands._config_args import config_paths, load_config, one_role
    from condorcfg.commands._slot_args import SLOT_SUBSYSTEM, machine_from_args
    from condorcfg.slots import build_slot_ads
    from condorcfg.slots.match import explain_match, format_match

    job = _read_job(args.job)  # unusable input raises: the CLI prints it and exits 2
    state = _read_job(args.state, "slot state") if args.state else None
    found = one_role(args, config_paths(args))
    machine = machine_from_args(args, found)
    config = load_config(args, config_paths(args), machine=machine, subsystem=SLOT_SUBSYSTEM, found=found)
    ads = build_slot_ads(config, machine, public=True)
    print_diagnostics([d for d in config.diagnostics if d.severity == "error"] + ads.errors)
    selected = [a for a in ads if args.slot is None or a.slot_id == args.slot]
    if not selected:
        print(f"condorcfg match: no slot to match against (slots: "
              f"{', '.join(str(a.slot_id) for a in ads) or 'none'})", file=sys.stderr)
        return 2
    for slot_ad in selected:
        for name in (state or ()):
            slot_ad.ad[name] = state[name]
    results = [explain_match(slot_ad.ad, job, slot_ad.name, config) for slot_ad in selected]
    matched = sum(r.matches for r in results)
    if args.format == "json":
        print(defuse_json(json.dumps(match_json(args.job, results), indent=2, ensure_ascii=True)))
    else:
        print(defuse("\n\n".join(format_match(group[0], [r.slot_name for r in group]) for group in _alike(results))))
        print(f"\n{matched} of {len(results)} slots match the job")
    return 0 if matched else 1


def _alike(results) -> list[list]:
    """Slots whose verdicts and clauses (with their values) are the same, together: 48 identical static
    slots print once."""
    groups: dict[tuple, list] = {}
    for result in results:
        key = (result.matches, result.slot_ok, result.job_ok,
               tuple((c.side, c.origin, c.text, c.values, c.ok) for c in result.clauses))
        groups.setdefault(key, []).append(result)
    return list(groups.values())
