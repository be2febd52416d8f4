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
  limit (``macro-too-large``); too deep nesting of functions is ``macro-too-deep``;
  all expansions of one configuration share one :class:`~condorcfg.config.limits.Budget`
  (``budget-exceeded`` when it is spent) and a memo of knob expansions, cleared whenever a
  definition changes.

Memory stays linear in the text read: a :class:`Definition` is a slotted object, and the
history of a knob that grows by ``+=`` or ``X = $(X) more`` keeps one copy of the longest
text, the older values being slices of it (:class:`_SharedText`), instead of every
intermediate value in full.
"""
from __future__ import annotations

import os

from condorcfg.config import macros
from condorcfg.config.statements import from_record
from condorcfg.config.defaults import prefixed_default
from condorcfg.config.limits import FUNCTION_STEPS, Budget, BudgetExceeded
from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location, error, warning

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Mapping

ORIGINS = ("file", "template", "default", "host", "env")
_WRITTEN = ("file", "template", "env")  # the origins names() lists


SHARE_MIN_LENGTH = 256  # shorter superseded values are kept as they are (sharing would not pay)


_ENDLESS = ("macro-cycle", "macro-too-large", "macro-too-deep")  # expansions that never finish

class _SharedText:
    """The latest value of one knob's growing history; the older values are slices of it.

    A superseded value is ``text[shift + offset:shift + offset + length]``.  When a new value
    contains the latest one at position ``p`` (``X = more $(X)``), ``shift`` grows by ``p`` and
    every older slice moves with it, at no cost per member.
    """

    __slots__ = ("text", "shift")

    def __init__(self, text: str):
        self.text = text
        self.shift = 0


class Definition:
    """One assignment of a knob and where it came from.

    A slotted class, not a dataclass: a big configuration has a million of these.  ``raw``
    is the stored text (self references already expanded, as HTCondor stores it); once a
    longer value containing it supersedes it, it is kept as a slice of that value
    (:meth:`share_with`), so a knob appended to 30,000 times costs one copy of its text.
    """

    __slots__ = ("name", "_raw", "_shared", "_location", "origin", "template", "use_location", "overrode", "text",
                 "matches_default", "template_chain")

    def __init__(self, name: str, raw: str, location: "Location | tuple", origin: str = "file", template: str | None = None,
                 use_location: Location | None = None, overrode: "Definition | None" = None, text: str | None = None,
                 matches_default: bool = False, template_chain: tuple = ()):
        self.name = name  # spelling as written (after name expansion)
        self._raw = raw  # the text, or (_SharedText, offset, length) once superseded by a longer value
        self._shared = None  # the _SharedText whose latest text is this (effective) definition's raw
        # a Location, or the reader's (file, line, column, end_line), made a Location when first asked for
        # (most definitions' places are never shown)
        self._location = location
        self.origin = origin  # file | template | default | host | env
        self.template = template  # "ROLE:Execute" for a template definition
        # the `use` line that applied the template; for nested templates the user's own (outermost)
        # `use` line, for an AUTO_USE_<CAT>_<Name> knob that knob's definition
        self.use_location = use_location
        self.overrode = overrode
        self.text = text  # the logical line as written (for --verbose)
        self.matches_default = matches_default  # HTCondor kept the built-in text because the value equals it
        # every `use` that led to this definition, outermost first: ((template, use Location), ...);
        # the last entry is (self.template, the `use` line inside the enclosing template body)
        self.template_chain = template_chain

    @property
    def location(self) -> Location:
        where = self._location
        if where.__class__ is tuple:
            where = self._location = Location(*where)
        return where

    @property
    def raw(self) -> str:
        raw = self._raw
        if type(raw) is str:
            return raw
        shared, offset, length = raw
        start = shared.shift + offset
        return shared.text[start:start + length]

    @raw.setter
    def raw(self, value: str) -> None:
        self._raw = value
        self._shared = None

    def share_with(self, newer: "Definition") -> None:
        """``newer`` supersedes this definition: keep this value as a slice of its value if it contains it."""
        mine, theirs = self._raw, newer._raw
        if type(mine) is not str or type(theirs) is not str or len(mine) < SHARE_MIN_LENGTH or len(theirs) <= len(mine):
            return
        position = 0 if theirs.startswith(mine) else theirs.find(mine)
        if position < 0:
            return
        shared = self._shared or _SharedText(mine)
        shared.shift += position
        shared.text = theirs
        self._raw = (shared, position - shared.shift, len(mine))
        self._shared = None
        newer._shared = shared

    def __eq__(self, other) -> bool:
        if not isinstance(other, Definition):
            return NotImplemented
        return (self.overrode is other.overrode and self.raw == other.raw
                and all(getattr(self, f) == getattr(other, f) for f in _COMPARED))

    __hash__ = None  # mutable and compared by value, like the dataclass it replaces

    def __repr__(self) -> str:
        return (f"Definition(name={self.name!r}, raw={self.raw!r}, location={self.location!r}, "
                f"origin={self.origin!r}, template={self.template!r})")

    def describe(self) -> str:
        where = str(self.location)
        if self.template:
            where += f" (template {self.template}, used at {self.use_location})"
        return where


_COMPARED = ("name", "location", "origin", "template", "use_location", "text", "matches_default", "template_chain")


class Config:
    """A configuration read the way HTCondor 25.14.1 reads it (see the module docstring).

    (A plain class, not a dataclass: creating dataclasses costs every command start-up time.)
    """

    def __init__(self, subsystem: str = "TOOL", local_name: str | None = None, machine: object = None,
                 environ: "Mapping[str, str] | None" = None, defaults: dict[str, str] | None = None,
                 subsystem_defaults: dict[str, str] | None = None, budget: Budget | None = None):
        self.subsystem = subsystem
        self.local_name = local_name
        self.machine = machine
        self.environ: Mapping[str, str] = dict(os.environ) if environ is None else environ
        self.defaults: dict[str, str] = {} if defaults is None else defaults  # upper name -> raw default (generic)
        # upper base name -> raw default in this subsystem's table
        self.subsystem_defaults: dict[str, str] = {} if subsystem_defaults is None else subsystem_defaults
        self.diagnostics: list[Diagnostic] = []
        self.files: list[str] = []
        # repository places the reader looked at without reading a file: folders it listed, files it looked
        # for and did not find (a change there changes what a role reads: the pre-commit hook watches them)
        self.places_looked: list[str] = []
        # the reader's records of statements not yet made into Statement objects (see `statements`)
        self.statement_records: list[tuple] = []
        self._statements: list = []
        self._table: dict[str, Definition] = {}
        # every definition in reading order, only for names defined more than once (or undefined):
        # most names have one, and a list per name costs ~100 bytes on a million-line configuration
        self._history: dict[str, list[Definition]] = {}
        self._order: list[str] = []
        self._expansion_errors: set = set()
        self._function_depth = 0
        self._seed_name = ""  # the knob being expanded: seeds $RANDOM_* so results are reproducible
        # what this command may still spend (condorcfg.config.limits); caches valid until a definition changes
        self.budget: Budget = Budget() if budget is None else budget
        self._memo: macros.Memo = macros.Memo(self.lookup)  # knob expansions
        self._cycles: dict = {}  # find_cycle results
        # names whose expansion never ends (a cycle, references that multiply): the diagnostic, so asking
        # again does not run the expansion to its limit again (a lint run asks about a name many times)
        self._endless: dict[str, Diagnostic] = {}

    @property
    def statements(self) -> list:
        """Every statement read, in reading order (made from the reader's records when first asked for)."""
        records = self.statement_records
        if records:
            self._statements.extend(map(from_record, records))
            records.clear()
        return self._statements

    def __repr__(self) -> str:
        return (f"Config(subsystem={self.subsystem!r}, local_name={self.local_name!r}, files={self.files!r}, "
                f"{len(self._table)} knobs)")

    # --- storing ---------------------------------------------------------------------------

    def define(self, definition: Definition, key: str | None = None) -> Definition:
        """Make ``definition`` the effective one for its name (keeps the history); ``key`` = upper-case name."""
        if key is None:
            key = definition.name.upper()
        previous = self._table.get(key)
        definition.overrode = previous
        self._changed()
        history = self._history.get(key)
        if history is not None:
            history.append(definition)
        elif previous is not None:
            self._history[key] = [previous, definition]
        if previous is None:
            self._order.append(key)
        else:
            previous.share_with(definition)
        self._table[key] = definition
        return definition

    def undefine(self, name: str) -> None:
        """Forget a knob (used for host facts that do not exist while the main file is read)."""
        key = name.upper()
        if key in self._table:
            self._history.setdefault(key, [self._table[key]])  # a later definition keeps this one in its history
            del self._table[key]
            self._order.remove(key)
            self._changed()

    def _changed(self) -> None:
        """A definition changed: remembered expansions and cycles may be wrong now."""
        self._memo.clear()
        if self._cycles:
            self._cycles.clear()
        if self._endless:
            self._endless.clear()

    def stored(self, name: str) -> Definition | None:
        """The effective definition stored under exactly this name (no prefixes, no defaults)."""
        return self._table.get(name.upper())

    def stored_key(self, key: str) -> Definition | None:
        """:meth:`stored` for a name already in upper case (the reader's, per assignment)."""
        return self._table.get(key)

    def prefixes(self) -> tuple[str, ...]:
        return tuple(p for p in (self.local_name, self.subsystem) if p)

    # --- looking up ------------------------------------------------------------------------

    def lookup(self, name: str) -> str | None:
        """Raw text of ``name`` by HTCondor's lookup order; None when nothing defines it."""
        key = name.upper()
        table = self._table
        local_name, subsystem = self.local_name, self.subsystem
        if local_name:
            found = table.get(f"{local_name.upper()}.{key}")
            if found is not None:
                return found.raw
        if subsystem:
            found = table.get(f"{subsystem.upper()}.{key}")
            if found is not None:
                return found.raw
            if self.subsystem_defaults:
                sub_default = self.subsystem_defaults.get(key)
                if sub_default is not None:
                    return sub_default
        found = table.get(key)
        if found is not None:
            return found.raw
        default = self.defaults.get(key)
        if default is None and "." in key:
            default = prefixed_default(key)  # STARTD.IsStartd: STARTD's own table, whatever is reading
        return default

    def source(self, name: str) -> Definition | None:
        """The definition that ``lookup(name)`` uses (a synthetic one for a built-in default), looked for in
        the same order."""
        key = name.upper()
        table = self._table
        local_name, subsystem = self.local_name, self.subsystem
        if local_name:
            found = table.get(f"{local_name.upper()}.{key}")
            if found is not None:
                return found
        default = None
        if subsystem:
            found = table.get(f"{subsystem.upper()}.{key}")
            if found is not None:
                return found
            default = self.subsystem_defaults.get(key)
        if default is None:
            found = table.get(key)
            if found is not None:
                return found
            default = self.defaults.get(key)
        return None if default is None else Definition(name, default, Location("<built-in default>"), origin="default")

    def raw(self, name: str) -> str | None:
        """The stored (unexpanded) text of the effective definition; None if undefined."""
        return self.lookup(name)

    def history(self, name: str) -> list[Definition]:
        """Every definition of exactly this name in reading order, effective last."""
        key = name.upper()
        history = self._history.get(key)
        if history is not None:
            return list(history)
        found = self._table.get(key)
        return [found] if found is not None else []

    def names(self) -> list[str]:
        """Names defined by files, templates or the environment (first spelling, reading order).

        Detected host facts and built-in defaults are left out unless a file set them too.
        """
        out = []
        table, histories = self._table, self._history
        for key in self._order:
            found = table.get(key)
            if found is None:
                continue
            history = histories.get(key)
            if history is None:
                if found.origin in _WRITTEN:
                    out.append(found.name)
                continue
            written = next((d for d in history if d.origin in _WRITTEN), None)
            if written is not None:
                out.append(written.name)
        return out

    def keys(self) -> list[str]:
        """The upper-case names of the effective definitions, in the order they were first defined."""
        table = self._table
        return [key for key in self._order if key in table]

    def definitions(self) -> list[Definition]:
        """The effective definitions, in the order the names were first defined."""
        return [self._table[key] for key in self._order if key in self._table]

    # --- expanding -------------------------------------------------------------------------

    def expand(self, text: str, knob: str | None = None) -> str:
        """Expand every ``$(...)`` in ``text`` against this configuration.

        ``knob`` names the knob whose value this is: it is named in errors and seeds the
        reproducible ``$RANDOM_*`` picks (see condorcfg.config.functions).
        """
        return self._expand(text, knob, None)

    def _expand(self, text: str, knob: str | None, value_of: str | None) -> str:
        """``expand``; ``value_of`` names the knob whose raw value ``text`` is (its expansion is remembered)."""
        outer_seed = self._seed_name
        if knob is not None:
            self._seed_name = knob.upper()
        try:
            return macros.expand(text, self._evaluate, self.budget, self._memo, value_of)
        except BudgetExceeded as exc:
            self._locate(exc, knob)
            raise
        except macros.ExpansionLimit as exc:
            raise CondorcfgError(self._loop_diagnostic(knob, text, exc)) from None
        except RecursionError:
            raise CondorcfgError(self._loop_diagnostic(knob, text, macros.ExpansionLimit("nesting too deep", text))) \
                from None
        finally:
            self._seed_name = outer_seed

    def _locate(self, exc: CondorcfgError, knob: str | None) -> None:
        """Point an error without a location at ``knob``'s definition (when it is written somewhere)."""
        if exc.diagnostic.location is None and knob:
            definition = self.source(knob)
            if definition is not None and definition.origin != "default":
                exc.diagnostic.location = definition.location

    def value(self, name: str) -> str | None:
        """The fully expanded value like ``condor_config_val``; None when undefined or empty."""
        raw = self.lookup(name)
        if raw is None:
            return None
        key = name.upper()
        remembered = self._memo.values.get(key) if "$" in raw else None
        if remembered is not None:
            expanded = macros.replace_dollar(remembered, self.budget)
        else:
            endless = self._endless.get(key)
            if endless is not None:
                raise CondorcfgError(endless.copy())
            try:
                expanded = self._expand(raw, name, name)
            except CondorcfgError as exc:
                if exc.diagnostic.code in _ENDLESS and "nesting too deep" not in exc.diagnostic.message:
                    # (Python's recursion limit depends on the caller's stack: not a fact about the name)
                    self._endless[key] = exc.diagnostic.copy()
                raise
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

        self.budget.spend(FUNCTION_STEPS, len(found.body))
        return evaluate_function(found.kind, found.prefix, found.body, _FunctionContext(self))

    def expand_self(self, name: str, text: str, location: "Location | tuple | None" = None) -> str:
        """Expand the references to ``name`` itself in a value being assigned to it (7.2).  ``location``: the
        assignment's, or the reader's ``(file, line, column, end_line)`` of it."""
        if "$" not in text:
            return text
        if "." not in name and name.upper() not in text.upper():
            return text  # no reference to itself is possible (the usual case, decided cheaply)
        selves = macros.self_names(name, self.prefixes()) if "." in name else (name.upper(),)
        outer_seed, self._seed_name = self._seed_name, name.upper()
        try:
            return macros.expand_self(text, selves, self._evaluate, self.budget)
        except (macros.ExpansionLimit, RecursionError):
            if location.__class__ is tuple:
                location = Location(*location)
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
                       f"but the references multiply or repeat (like A = $(B)$(B), B = $(C)$(C), ..., or "
                       f"thousands of references in one long value), so HTCondor would take a very long time "
                       f"and much memory; reduce the repeated references")
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
        (but acyclic) chain cannot exhaust Python's stack.  Remembered until a definition changes
        (a lint run asks once per failing knob) and charged to the budget.
        """
        key = start.upper()
        if key not in self._cycles:
            self._cycles[key] = self._search_cycle(start)
        found = self._cycles[key]
        return list(found) if found is not None else None

    def _search_cycle(self, start: str) -> list[str] | None:
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
            self.budget.spend(1 + len(refs), len(head))
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
        return self.expand_knob(None, text)

    def expand_knob(self, name: str | None, raw: str) -> str:
        """Expand ``raw``, the raw value of knob ``name`` (None: any text); a knob's is remembered."""
        config = self.config
        if config._function_depth >= MAX_FUNCTION_NESTING:
            raise macros.ExpansionLimit(f"functions nested more than {MAX_FUNCTION_NESTING} deep", raw)
        if name is not None and "$" in raw:
            remembered = config._memo.values.get(name.upper())
            if remembered is not None:
                return macros.replace_dollar(remembered, config.budget)
        config._function_depth += 1
        try:
            return macros.expand(raw, config._evaluate, config.budget, config._memo, name)
        finally:
            config._function_depth -= 1

    def error(self, message: str) -> None:
        self.config.report_expansion_error(message)
