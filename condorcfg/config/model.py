"""The composed configuration: definitions with provenance, HTCondor's lookup order, lazy expansion.

A :class:`Config` holds, for each knob name (case-insensitive), the chain of
:class:`Definition` objects in reading order; the last one is effective.
Values are stored raw and expanded only when read (config-language.md 7-8):

* lookup order for a name N with local name L and subsystem S:
  ``L.N`` in the config, ``S.N`` in the config, ``S.N`` in S's default table,
  ``N`` in the config, ``N`` in the built-in default table - the first hit
  wins even when it is empty;
* ``value()`` expands with :func:`condorcfg.config.macros.expand` and
  reports "undefined or empty" as None, like ``condor_config_val``;
* expansion is bounded; a reference cycle raises CondorcfgError naming the
  cycle instead of hanging as HTCondor does (code ``macro-cycle``); references that
  only multiply (exponential growth, no cycle) say the value grew too large, with the
  limit (``macro-too-large``); too deep nesting of functions is ``macro-too-deep``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from condorcfg.config import macros
from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location, error, warning

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Mapping

ORIGINS = ("file", "template", "default", "host", "env")


@dataclass(slots=True)
class Definition:
    """One assignment of a knob and where it came from."""

    name: str  # spelling as written (after name expansion)
    raw: str  # stored text (self references already expanded, as HTCondor stores it)
    location: Location
    origin: str = "file"  # file | template | default | host | env
    template: str | None = None  # "ROLE:Execute" for a template definition
    # the `use` line that applied the template; for nested templates the user's own (outermost)
    # `use` line, for an AUTO_USE_<CAT>_<Name> knob that knob's definition
    use_location: Location | None = None
    overrode: "Definition | None" = None
    text: str | None = None  # the logical line as written (for --verbose)
    matches_default: bool = False  # HTCondor kept the built-in text because the value equals it
    # every `use` that led to this definition, outermost first: ((template, use Location), ...);
    # the last entry is (self.template, the `use` line inside the enclosing template body)
    template_chain: tuple = ()

    def describe(self) -> str:
        where = str(self.location)
        if self.template:
            where += f" (template {self.template}, used at {self.use_location})"
        return where


@dataclass
class Config:
    """A configuration read the way HTCondor 25.14.1 reads it (see the module docstring)."""

    subsystem: str = "TOOL"
    local_name: str | None = None
    machine: object = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    defaults: dict[str, str] = field(default_factory=dict)  # upper name -> raw default (generic table)
    subsystem_defaults: dict[str, str] = field(default_factory=dict)  # upper base name -> raw (S's table)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    statements: list = field(default_factory=list)
    _table: dict[str, Definition] = field(default_factory=dict)
    _history: dict[str, list[Definition]] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)
    _expansion_errors: set = field(default_factory=set)
    _function_depth: int = 0
    _seed_name: str = ""  # the knob being expanded: seeds $RANDOM_* so results are reproducible

    # --- storing ---------------------------------------------------------------------------

    def define(self, definition: Definition, key: str | None = None) -> Definition:
        """Make ``definition`` the effective one for its name (keeps the history); ``key`` = upper-case name."""
        if key is None:
            key = definition.name.upper()
        previous = self._table.get(key)
        definition.overrode = previous
        if previous is None:
            self._order.append(key)
        history = self._history.get(key)
        if history is None:
            self._history[key] = [definition]
        else:
            history.append(definition)
        self._table[key] = definition
        return definition

    def undefine(self, name: str) -> None:
        """Forget a knob (used for host facts that do not exist while the main file is read)."""
        key = name.upper()
        if key in self._table:
            del self._table[key]
            self._order.remove(key)

    def stored(self, name: str) -> Definition | None:
        """The effective definition stored under exactly this name (no prefixes, no defaults)."""
        return self._table.get(name.upper())

    def prefixes(self) -> tuple[str, ...]:
        return tuple(p for p in (self.local_name, self.subsystem) if p)

    # --- looking up ------------------------------------------------------------------------

    def lookup(self, name: str) -> str | None:
        """Raw text of ``name`` by HTCondor's lookup order; None when nothing defines it."""
        key = name.upper()
        table = self._table
        if self.local_name:
            found = table.get(self.local_name.upper() + "." + key)
            if found is not None:
                return found.raw
        if self.subsystem:
            found = table.get(self.subsystem.upper() + "." + key)
            if found is not None:
                return found.raw
            if self.subsystem_defaults:
                sub_default = self.subsystem_defaults.get(key)
                if sub_default is not None:
                    return sub_default
        found = table.get(key)
        if found is not None:
            return found.raw
        return self.defaults.get(key)

    def source(self, name: str) -> Definition | None:
        """The definition that ``lookup(name)`` uses (a synthetic one for a built-in default)."""
        key = name.upper()
        for candidate in self._candidates(key):
            found = self._table.get(candidate)
            if found is not None:
                return found
            if candidate == key or (self.subsystem and candidate == f"{self.subsystem.upper()}.{key}"):
                default = (self.defaults.get(key) if candidate == key else self.subsystem_defaults.get(key))
                if default is not None:
                    return Definition(name, default, Location("<built-in default>"), origin="default")
        return None

    def _candidates(self, key: str) -> list[str]:
        out = []
        if self.local_name:
            out.append(f"{self.local_name.upper()}.{key}")
        if self.subsystem:
            out.append(f"{self.subsystem.upper()}.{key}")
        out.append(key)
        return out

    def raw(self, name: str) -> str | None:
        """The stored (unexpanded) text of the effective definition; None if undefined."""
        return self.lookup(name)

    def history(self, name: str) -> list[Definition]:
        """Every definition of exactly this name in reading order, effective last."""
        return list(self._history.get(name.upper(), []))

    def names(self) -> list[str]:
        """Names defined by files, templates or the environment (first spelling, reading order).

        Detected host facts and built-in defaults are left out unless a file set them too.
        """
        out = []
        for key in self._order:
            if key not in self._table:
                continue
            written = [d for d in self._history[key] if d.origin in ("file", "template", "env")]
            if written:
                out.append(written[0].name)
        return out

    def definitions(self) -> list[Definition]:
        """The effective definitions, in the order the names were first defined."""
        return [self._table[key] for key in self._order if key in self._table]

    # --- expanding -------------------------------------------------------------------------

    def expand(self, text: str, knob: str | None = None) -> str:
        """Expand every ``$(...)`` in ``text`` against this configuration.

        ``knob`` names the knob whose value this is: it is named in errors and seeds the
        reproducible ``$RANDOM_*`` picks (see condorcfg.config.functions).
        """
        outer_seed = self._seed_name
        if knob is not None:
            self._seed_name = knob.upper()
        try:
            return macros.expand(text, self._evaluate)
        except macros.ExpansionLimit as exc:
            raise CondorcfgError(self._loop_diagnostic(knob, text, exc)) from None
        except RecursionError:
            raise CondorcfgError(self._loop_diagnostic(knob, text, macros.ExpansionLimit("nesting too deep", text))) \
                from None
        finally:
            self._seed_name = outer_seed

    def value(self, name: str) -> str | None:
        """The fully expanded value like ``condor_config_val``; None when undefined or empty."""
        raw = self.lookup(name)
        if raw is None:
            return None
        expanded = self.expand(raw, knob=name)
        return expanded if expanded else None

    def is_defined(self, name: str) -> bool:
        """``if defined`` semantics: the raw text found by the lookup order is non-empty."""
        raw = self.lookup(name)
        return bool(raw)

    def _evaluate(self, found: macros.Found) -> str:
        if found.kind == macros.NORMAL:
            name, default = macros.split_body(found.body)
            raw = self.lookup(name) if name else None
            if raw:
                return raw
            return default if default is not None else ""
        from condorcfg.config.functions import evaluate_function

        return evaluate_function(found.kind, found.prefix, found.body, _FunctionContext(self))

    def expand_self(self, name: str, text: str, location: Location | None = None) -> str:
        """Expand the references to ``name`` itself in a value being assigned to it (7.2)."""
        if "$" not in text:
            return text
        selves = macros.self_names(name, self.prefixes()) if "." in name else (name.upper(),)
        outer_seed, self._seed_name = self._seed_name, name.upper()
        try:
            return macros.expand_self(text, selves, self._evaluate)
        except (macros.ExpansionLimit, RecursionError):
            raise CondorcfgError(error(
                f"the value of {name} refers to {name} through a function in a way that never ends "
                f"(HTCondor crashes here); assign the computed value to another knob first",
                location.file if location else None, location.line if location else 0,
                location.column if location else 1, code="macro-cycle")) from None
        finally:
            self._seed_name = outer_seed

    def report_expansion_error(self, message: str) -> None:
        if message not in self._expansion_errors:
            self._expansion_errors.add(message)
            self.diagnostics.append(warning(message, code="expansion-error"))

    def slot_ads(self, machine=None):
        """The machine ads of the slots this configuration gives ``machine`` (default: its own profile)."""
        from condorcfg.slots import build_slot_ads  # the slot builder is a later stage; import on use

        return build_slot_ads(self, machine if machine is not None else self.machine)

    # --- cycle reporting -------------------------------------------------------------------

    def _loop_diagnostic(self, knob: str | None, text: str, exc: macros.ExpansionLimit) -> Diagnostic:
        """Why an expansion was stopped: a real reference cycle, or references that multiply."""
        start = knob or ""
        cycle = self.find_cycle(start) if start else None
        definition = self.source(start) if start else None
        location = definition.location if definition and definition.origin != "default" else None
        shown = start or repr(text[:60])
        if cycle:
            message = (f"macro expansion of {start} never ends: {' -> '.join(cycle)} refers back to itself "
                       f"(HTCondor hangs on this); break the cycle")
            code = "macro-cycle"
        elif exc.growth:
            message = (f"macro expansion of {shown} grew too large: {exc.reason}; no knob refers back to itself, "
                       f"but the references multiply (like A = $(B)$(B), B = $(C)$(C), ...), so the value "
                       f"would be enormous and HTCondor would take exponential time and memory; reduce the "
                       f"repeated references")
            code = "macro-too-large"
        else:
            message = f"macro expansion of {shown} does not finish: {exc.reason}; simplify the nested references"
            code = "macro-too-deep"
        diagnostic = error(message, code=code)
        diagnostic.location = location
        return diagnostic

    def find_cycle(self, start: str) -> list[str] | None:
        """A reference cycle reachable from ``start`` (names as written), or None.

        Iterative depth-first search over the ``$(X)`` references of raw values, so a long
        (but acyclic) chain cannot exhaust Python's stack.
        """
        done: set[str] = set()
        path: list[str] = []
        on_path: dict[str, int] = {}
        stack: list[tuple[str, list[str]]] = []

        budget = [200_000]  # references examined at most (a huge value must not make the report slow)

        def push(name: str) -> None:
            raw = self.lookup(name) or ""
            head = raw[:budget[0] * 4]
            refs = [r.name for r in macros.references(head) if r.name and r.name.upper() != "DOLLAR"]
            if "(" in head:  # a knob read by a function ($INT(X), $CHOICE(i, LIST), ...) counts too
                refs += [word for word in macros.function_arguments(head) if self.lookup(word) is not None]
            refs = list(dict.fromkeys(refs))
            budget[0] -= len(refs)
            on_path[name.upper()] = len(path)
            path.append(name)
            stack.append((name, list(reversed(refs))))

        push(start)
        while stack and budget[0] > 0:
            name, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                del on_path[name.upper()]
                done.add(name.upper())
                continue
            ref = pending.pop()
            key = ref.upper()
            if key in on_path:
                return path[on_path[key]:] + [ref]
            if key not in done:
                push(ref)
        return None


MAX_FUNCTION_NESTING = 64  # $INT(X) where X uses $INT(Y) ... (HTCondor recurses until it crashes)


class _FunctionContext:
    """What the dollar functions may use of a Config."""

    __slots__ = ("config", "environ", "seed_name")

    def __init__(self, config: Config):
        self.config = config
        self.environ = config.environ
        self.seed_name = config._seed_name

    def lookup(self, name: str) -> str | None:
        return self.config.lookup(name)

    def expand(self, text: str) -> str:
        config = self.config
        if config._function_depth >= MAX_FUNCTION_NESTING:
            raise macros.ExpansionLimit(f"functions nested more than {MAX_FUNCTION_NESTING} deep", text)
        config._function_depth += 1
        try:
            return macros.expand(text, config._evaluate)
        finally:
            config._function_depth -= 1

    def error(self, message: str) -> None:
        self.config.report_expansion_error(message)
