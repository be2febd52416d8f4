"""What each HTCondor release series knows: its knobs (with raw defaults) and its templates.

The data is ``lint/knowledge/releases.json`` (tools/make_versions.py reads it out of each
release's wheel): HTCondor 25.14.1 is the base (``config/default_table.py`` and
``templates/*.config``, which condorcfg reads by), every other release its differences from it.
A release is named exactly (``24.0.24``) or by its series (``24.0``, ``10.0``).
"""
from __future__ import annotations

import json
import os

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lint", "knowledge", "releases.json")

_data: dict | None = None
_knobs: dict[str, dict] = {}
_templates: dict[str, dict] = {}


def _load() -> dict:
    global _data
    if _data is None:
        with open(DATA_FILE, encoding="utf-8") as handle:
            _data = json.load(handle)
    return _data


def base() -> str:
    return _load()["base"]


def known() -> list[str]:
    """The releases with tables, oldest first."""
    return list(_load()["releases"])


def resolve(text: str) -> str:
    """The release ``text`` names (exactly, or the newest of a series ``X.Y``); ValueError saying why not."""
    wanted = str(text).strip().lstrip("vV")
    releases = known()
    if wanted in releases:
        return wanted
    series = [r for r in releases if r.startswith(wanted + ".") and r.count(".") == wanted.count(".") + 1]
    if series:
        return series[-1]
    raise ValueError(f"no tables for HTCondor {text!r}; known releases: {', '.join(releases)} "
                     f"(or a series: {', '.join(sorted({r.rsplit('.', 1)[0] for r in releases}))})")


def knobs(release: str) -> dict[str, dict]:
    """Upper-case knob name -> {"name", "default" (raw text or None), "type"} of ``release``."""
    if release not in _knobs:
        from condorcfg.config.defaults import _table

        table = {key: {"name": entry["name"], "default": entry["default"], "type": entry["type"]}
                 for key, entry in _table()["knobs"].items()}
        if release != base():
            delta = _load()["knobs"][release]
            for name in delta["removed"]:
                table.pop(name.upper(), None)
            for name, entry in {**delta["added"], **delta["changed"]}.items():
                table[name.upper()] = {"name": name, **entry}
        _knobs[release] = table
    return _knobs[release]


def templates(release: str) -> dict[str, dict]:
    """Upper-case "CATEGORY:NAME" -> {"name": "CATEGORY:Name", "body": text} of ``release``."""
    if release not in _templates:
        from condorcfg.config import templates as registry

        table = {}
        for category in registry.categories():
            for name in registry.template_names(category):
                found = registry.find_template(category, name)
                table[f"{category}:{name}".upper()] = {"name": f"{category}:{name}", "body": found.body}
        if release != base():
            delta = _load()["templates"][release]
            for name in delta["removed"]:
                table.pop(name.upper(), None)
            for name, body in {**delta["added"], **delta["changed"]}.items():
                table[name.upper()] = {"name": name, "body": body}
        _templates[release] = table
    return _templates[release]


_membership: dict[str, tuple] = {}
_in_any: frozenset | None = None


def knob_in_any_release(name: str) -> bool:
    """Does some release's knob table have ``name``?  (One set look-up: most unknown names are in none.)"""
    global _in_any
    if _in_any is None:
        from condorcfg.config.defaults import _table

        added = (n.upper() for delta in _load()["knobs"].values() for n in delta["added"])
        _in_any = frozenset(_table()["knobs"]).union(added)
    return name.upper() in _in_any


def has_knob(release: str, name: str) -> bool:
    """Does ``release``'s knob table have ``name`` (upper case or not)?  Cheaper than :func:`knobs` (no table
    is built: the base table, and the release's added/removed sets)."""
    from condorcfg.config.defaults import _table

    upper = name.upper()
    if release == base():
        return upper in _table()["knobs"]
    if release not in _membership:
        delta = _load()["knobs"][release]
        _membership[release] = ({n.upper() for n in delta["added"]}, {n.upper() for n in delta["removed"]})
    added, removed = _membership[release]
    return upper in added or (upper in _table()["knobs"] and upper not in removed)
