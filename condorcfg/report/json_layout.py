"""JSON text laid out for people and for size: indented, except that each record is one line.

``json.dumps(indent=2)`` runs the pure-Python encoder and puts every field of every finding on
a line of its own: 99,000 findings took 7 s and 15 lines each.  Here containers are indented as
``indent=2`` does, but the items of a *record list* (the lists named in ``records``: findings,
SARIF results and rules, ...) are each written on one line by the C encoder, so a report stays
readable (a finding per line, easy to ``grep`` and diff) and is written in linear time.
Always ASCII (``ensure_ascii``), like every JSON report condorcfg writes.
"""
from __future__ import annotations

import json

_encode = json.JSONEncoder(ensure_ascii=True).encode

TOP = ""  # in ``records``: the value itself is a record list


def dumps(value, records: frozenset | set = frozenset()) -> str:
    """``value`` as JSON indented by two blanks; the items of lists under a key in ``records``
    (or of ``value`` itself with :data:`TOP`) one per line, each written compactly."""
    return _layout(value, TOP in records, records, "")


def _layout(value, compact_items: bool, records, pad: str) -> str:
    if not isinstance(value, (dict, list)) or not value:
        return _encode(value)
    inner = pad + "  "
    if isinstance(value, dict):
        lines = [f"{inner}{_encode(str(key))}: {_layout(item, key in records, records, inner)}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(lines) + "\n" + pad + "}"
    if compact_items:
        lines = [inner + _encode(item) for item in value]
    else:
        lines = [inner + _layout(item, False, records, inner) for item in value]
    return "[\n" + ",\n".join(lines) + "\n" + pad + "]"
