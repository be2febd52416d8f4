"""Read the knobs the slot builder needs from a Config, the way the startd reads them.

Wraps the reader's Config contract (``value``/``source``/``names``) with the
startd's typed look-ups (``param_integer``/``param_boolean``) and its per-type
table: every knob ``SLOT_TYPE_<N>_<rest>`` is filed under type N as ``<rest>``,
and a look-up "for a slot" tries that table before the global knob.
"""
from __future__ import annotations

import re

from condorcfg.config.functions import c_double_to_long, c_long
from condorcfg.diagnostics import Diagnostic, Location, ERROR, WARNING

_TYPE_KNOB = re.compile(r"^SLOT_TYPE_(\d+)_(.+)$", re.IGNORECASE)
# C's strtoll: ASCII blanks and digits only (Python's \s and \d also match "\x1e" and "٤")
_INT = re.compile(r"^[ \t\n\r\f\v]*[+-]?[0-9]+[ \t\n\r\f\v]*$")


class Knobs:
    """Typed, provenance-aware access to a Config for the slot builder."""

    def __init__(self, cfg):
        self.cfg = cfg
        self._values: dict[str, str | None] = {}
        # text -> what _evaluate_number made of it: the slot builder asks for the same knob once per
        # slot, and a value that is an expression is parsed and evaluated only the first time
        self._numbers: dict[tuple[str, bool], object] = {}
        self.type_tables: dict[int, dict[str, str]] = {}
        for name in cfg.names():
            match = _TYPE_KNOB.match(name)
            if match:
                self.type_tables.setdefault(int(match.group(1)), {})[match.group(2).lower()] = name

    # -- raw look-ups -------------------------------------------------------
    def value(self, name: str) -> str | None:
        key = name.lower()
        if key not in self._values:  # the config does not change while slots are built
            value = self.cfg.value(name)
            self._values[key] = value if value is not None and value.strip() != "" else None
        return self._values[key]

    def location(self, name: str | None, fallback: str | None = None) -> Location | None:
        for candidate in (name, fallback):
            if not candidate:
                continue
            definition = self.cfg.source(candidate)
            if definition is None or getattr(definition, "origin", "file") == "default":
                continue
            # a knob set by a template points at the `use` line that pulled the template in
            location = getattr(definition, "use_location", None) or getattr(definition, "location", None)
            if location is not None:
                return location
        files = getattr(self.cfg, "files", None) or []
        return Location(files[0], 0) if files else None

    def diagnostic(self, severity: str, message: str, knob: str | None, fallback: str | None = None,
                   code: str | None = None, notes=None) -> Diagnostic:
        return Diagnostic(severity, message, self.location(knob, fallback), code=code, notes=list(notes or []))

    def error(self, message, knob=None, fallback=None, notes=None) -> Diagnostic:
        return self.diagnostic(ERROR, message, knob, fallback, notes=notes)

    def warning(self, message, knob=None, fallback=None, notes=None) -> Diagnostic:
        return self.diagnostic(WARNING, message, knob, fallback, notes=notes)

    # -- per-type table -----------------------------------------------------
    def type_knob(self, type_id: int, rest: str, fall_back_to_global: bool = True) -> str | None:
        """The knob name a per-type look-up of ``rest`` lands on, or None."""
        name = self.type_tables.get(type_id, {}).get(rest.lower())
        if name is not None and self.value(name) is not None:
            return name
        if fall_back_to_global and self.value(rest) is not None:
            return rest
        return None

    def type_value(self, type_id: int, rest: str, fall_back_to_global: bool = True) -> str | None:
        knob = self.type_knob(type_id, rest, fall_back_to_global)
        return self.value(knob) if knob else None

    # -- typed look-ups -----------------------------------------------------
    def integer(self, name: str, default: int, problems: list | None = None) -> int:
        return self.to_integer(self.value(name), default, name, problems)

    def to_integer(self, text: str | None, default: int, knob: str, problems: list | None = None) -> int:
        if text is None:
            return default
        if _INT.match(text):
            return c_long(text.strip(" \t\n\r\f\v"))
        number = self._number(text, False)
        if number is None:
            if problems is not None:
                problems.append(self.error(f"{knob} must be a whole number, not {text.strip()!r}", knob))
            return default
        return c_double_to_long(number) if isinstance(number, float) else number

    def boolean(self, name: str, default: bool, problems: list | None = None) -> bool:
        return self.to_boolean(self.value(name), default, name, problems)

    def to_boolean(self, text: str | None, default: bool, knob: str, problems: list | None = None) -> bool:
        if text is None:
            return default
        word = text.strip().lower()
        if word in ("true", "t", "yes", "y"):  # HTCondor's string_is_boolean_param spellings
            return True
        if word in ("false", "f", "no", "n"):
            return False
        result = self._number(text, True)
        if result is None:
            if problems is not None:
                problems.append(self.error(f"{knob} must be True or False, not {text.strip()!r}", knob))
            return default
        return bool(result)

    def _number(self, text: str, allow_bool: bool):
        key = (text, allow_bool)
        if key not in self._numbers:
            self._numbers[key] = _evaluate_number(text, allow_bool)
        return self._numbers[key]


def _evaluate_number(text: str, allow_bool: bool = False):
    """Evaluate a knob as a ClassAd expression, as param_integer/param_boolean fall back to."""
    try:
        from condorcfg.classad import evaluate, parse

        value = evaluate(parse(text))
    except Exception:  # any parse/evaluation failure means "not a number"
        return None
    if isinstance(value, bool):
        return value if allow_bool else int(value)
    if isinstance(value, (int, float)):
        return value
    return None
