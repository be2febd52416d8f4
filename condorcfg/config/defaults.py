"""HTCondor 25.14.1's built-in default table: raw default text and declared type per knob.

The data is the module ``default_table`` beside this one, generated (and checked against
the real HTCondor) by ``tools/make_defaults.py``; it is read once, on first use.

Two layers, as in HTCondor:

* the main table - 1,185 knobs; some are declared without a default value (they are
  known knobs, e.g. ``STARTD_ATTRS``, but undefined until set);
* small per-subsystem tables - ``STARTD.IsStartd = true``, ``MASTER.PID_SNAPSHOT_INTERVAL``,
  and region-prefixed cloud image ids.  When HTCondor looks a knob up as subsystem S it
  consults ``S.<knob>`` in the config, then S's table, and only then the plain knob in the
  config (config-language.md 7.3), so :func:`subsystem_defaults` is kept separate from
  :func:`builtin_defaults`, which merges both for "what does a knob nobody set read as".

Names are case-insensitive; every function takes any spelling.
"""
from __future__ import annotations


_data: dict | None = None
_by_subsystem: dict[str, dict[str, str]] = {}


def _table() -> dict:
    """The table keyed by upper-case name for case-insensitive lookups, each entry with its spelling
    (made once)."""
    global _data
    if _data is None:
        from condorcfg.config import default_table  # (on first use: most imports of this module need no table)

        knobs = {name.upper(): dict(entry, name=name) for name, entry in default_table.KNOBS.items()}
        subsystems = {sub.upper(): {name.upper(): dict(entry, name=name) for name, entry in table.items()}
                      for sub, table in default_table.SUBSYSTEMS.items()}
        _data = {"version": default_table.HTCONDOR_VERSION, "knobs": knobs, "subsystems": subsystems}
    return _data


def builtin_defaults(subsystem: str = "TOOL") -> dict[str, str]:
    """Upper-case knob name -> raw (unexpanded) default text, as seen by ``subsystem``.

    Knobs declared without a default are left out: they read as undefined.  The
    per-subsystem entries of ``subsystem`` replace the generic ones.
    """
    key = (subsystem or "TOOL").upper()
    if key not in _by_subsystem:
        table = _table()
        merged = {name: entry["default"] for name, entry in table["knobs"].items() if entry["default"] is not None}
        merged.update(subsystem_defaults(key))
        _by_subsystem[key] = merged
    return dict(_by_subsystem[key])


def subsystem_defaults(subsystem: str) -> dict[str, str]:
    """Only the per-subsystem table of ``subsystem`` (e.g. STARTD -> {"ISSTARTD": "true"}); {} if none."""
    entries = _table()["subsystems"].get(subsystem.upper(), {})
    return {name: entry["default"] for name, entry in entries.items() if entry["default"] is not None}


def prefixed_default(key: str) -> str | None:
    """The default of an explicit ``SUBSYS.NAME`` (upper case) from SUBSYS's own table, or None.

    HTCondor finds ``$(STARTD.IsStartd)`` (``true``) and ``$(MASTER.PID_SNAPSHOT_INTERVAL)`` (``60``)
    whatever subsystem is reading, and ``if defined STARTD.IsStartd`` is true everywhere.
    """
    prefix, _, name = key.partition(".")
    if not _prefix_found(prefix):
        return None
    entry = _table()["subsystems"].get(prefix, {}).get(name)
    return entry["default"] if entry is not None else None


def _prefix_found(prefix: str) -> bool:
    """Whether HTCondor's binary search finds ``prefix`` among the per-subsystem tables.

    Its table is sorted ignoring case but searched comparing upper-case text, so a prefix the two
    orders place differently is never found: ``AP_SOUTHEAST_1.X`` is unset in HTCondor 25.14.1
    ("E" sorts before "_" in upper case, after it in lower case), checked against the oracle.
    """
    names = _sorted_prefixes()
    low, high = 0, len(names) - 1
    while low <= high:
        middle = (low + high) // 2
        if names[middle] < prefix:
            low = middle + 1
        elif names[middle] > prefix:
            high = middle - 1
        else:
            return True
    return False


def _sorted_prefixes() -> list[str]:
    global _PREFIXES
    if _PREFIXES is None:
        _PREFIXES = sorted(_table()["subsystems"], key=str.lower)
    return _PREFIXES


_PREFIXES: list[str] | None = None


def subsystems_with_defaults() -> list[str]:
    """Prefixes that have their own default table (daemon subsystems and cloud regions)."""
    return sorted(_table()["subsystems"])


def knob_type(name: str) -> str | None:
    """Declared type: "string", "int", "long", "bool" or "double"; None if HTCondor does not know the knob.

    A ``PREFIX.NAME`` spelling (subsystem or local-name prefix) has the type of NAME.
    """
    entry = _entry(name)
    return entry["type"] if entry else None


def is_path_knob(name: str) -> bool:
    """Whether HTCondor declares the knob as a file-system path."""
    entry = _entry(name)
    return bool(entry and entry["path"])


def is_known_knob(name: str) -> bool:
    """Whether the knob is in HTCondor's table (with or without a default)."""
    return _entry(name) is not None


def known_knobs() -> list[str]:
    """Every knob of the main table, in HTCondor's spelling (e.g. ``IsVanilla``, ``NUM_CPUS``)."""
    return [entry["name"] for entry in _table()["knobs"].values()]


def canonical_name(name: str) -> str | None:
    """HTCondor's spelling of a known knob (``isvanilla`` -> ``IsVanilla``), else None."""
    entry = _entry(name)
    return entry["name"] if entry else None


def htcondor_version() -> str:
    """The HTCondor version the table was generated from."""
    return _table()["version"]


def _entry(name: str) -> dict | None:
    table = _table()
    upper = name.strip().upper()
    entry = table["knobs"].get(upper)
    if entry is None and "." in upper:
        prefix, _, base = upper.rpartition(".")
        entry = table["subsystems"].get(prefix, {}).get(base) or table["knobs"].get(base)
    return entry
