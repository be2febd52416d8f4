"""The lint engine: run the enabled rules once over one composed configuration.

``run(target, ...)`` reads the configuration (a path, a list of paths read in order like
``LOCAL_CONFIG_DIR``, or an already loaded ``Config``), runs every selected rule, maps the
reader's own diagnostics to their rule codes, applies inline suppressions and severity
overrides, and returns a :class:`LintResult`.  ``lint(...)`` is the short form returning
just the findings.

A rule is either declarative (``match:`` in its YAML, see :mod:`condorcfg.lint.declarative`)
or a Python check (``check: name`` registered in :mod:`condorcfg.lint.checks`).  A check gets
a :class:`LintContext` and yields Diagnostics, normally made with :meth:`LintContext.finding`,
which points a finding at the line responsible: the ``use`` line for a template's definition,
and says so in the message.  A check that raises does not stop the run: it becomes an
``internal-error`` finding naming the rule.
"""
from __future__ import annotations

import os
import re
from array import array
from functools import cached_property
from collections.abc import Iterable

from condorcfg.classad.budget import command_budget
from condorcfg.config.limits import BUDGET_CODE
from condorcfg.config.reader import UNUSABLE_INPUT
from condorcfg.diagnostics import ERROR, INFO, WARNING, CondorcfgError, Diagnostic, Location, Text
# What the engine itself reports (see rules/meta.yaml); looked up by slug so codes may change.
from condorcfg.lint.declarative import (CONFIG_DIAGNOSTIC, CONFIG_ERROR, FRAGMENT_MACROS, INTERNAL_ERROR,
                                        INVALID_SUPPRESSION, LIMIT_REACHED, REGEX_TIME_LIMIT, UNUSED_SUPPRESSION)
from condorcfg.records import factory, record

SEVERITY_RANK = {INFO: 0, WARNING: 1, ERROR: 2}
# The engine's own reports that a check stopped part-way or crashed: never deselected, their severity never
# overridden, never baselined (commands/lint.py): what follows them was not checked.
ALWAYS_REPORTED = frozenset({LIMIT_REACHED, REGEX_TIME_LIMIT, INTERNAL_ERROR})

# How many findings a report lists: past these, findings are counted in one summary finding per rule and file
# (``cap_listed``), so that a generated or hostile configuration (90,000 lines of one mistake) gives a report
# of bounded size whose counts are still true, and the same exit status.
MAX_FINDINGS_PER_FILE = 100  # findings of one rule listed per file (LintSettings.findings_per_file)
MAX_FINDINGS_PER_RULE = 10_000  # findings of one rule kept in memory while the rules run, over all files

# Why a rule did not run: what it needs -> what the report says ("3 rules skipped (need --machine)").
NEED_MACHINE = "need --machine"
NEED_ROOT = "need the whole configuration: --config-root or roots"


_LITERAL_NAMES = re.compile(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*")


class LintUsageError(ValueError):
    """Bad lint settings (e.g. a --select that names no rule): the CLI exits 2."""


@record
class LintSettings:
    """Which rules run and how their findings are reported (CLI flags over the project file)."""

    select: list[str] | None = None
    extend_select: list[str] = factory(list)
    ignore: list[str] = factory(list)
    severity: dict[str, str] = factory(dict)
    known_knobs: list[str] = factory(list)
    require_reason: bool = False
    # the files are fragments of a configuration that is not here (an HTCondor-CE or glideinWMS
    # config.d): macros they use but do not define come from the rest (see _fragment_macros)
    fragment: bool = False
    # the HTCondor releases the pool runs (condorcfg.releases names; several for a mixed pool): knob and
    # template rules judge against them; empty: HTCondor 25.14.1 alone
    target_versions: list[str] = factory(list)
    # findings of one rule listed per file, the rest counted in a summary finding (cap_listed); None lists
    # all (up to MAX_FINDINGS_PER_RULE): for a caller that must see every finding, e.g. to write a baseline
    findings_per_file: int | None = MAX_FINDINGS_PER_FILE
    # also run the default rules select/ignore leave out, only to count their findings (LintResult.hidden):
    # what the settings (perhaps a pull request's own) hide is said, never silent
    count_hidden: bool = False

    @classmethod
    def from_project(cls, project) -> "LintSettings":
        return cls(select=project.select, extend_select=list(project.extend_select),
                   ignore=list(project.ignore), severity=dict(project.severity),
                   known_knobs=list(project.known_knobs),
                   require_reason=project.require_reason, fragment=project.fragment,
                   target_versions=list(project.target_version))

    def copy(self) -> "LintSettings":
        """The same settings, for one configuration of the run to change (a role's release, a fragment)."""
        return LintSettings(None if self.select is None else list(self.select), list(self.extend_select),
                            list(self.ignore), dict(self.severity), list(self.known_knobs), self.require_reason,
                            self.fragment, list(self.target_versions), self.findings_per_file, self.count_hidden)


@record
class LintResult:
    findings: list[Diagnostic]
    suppressed: list[Diagnostic] = factory(list)
    rules_run: list = factory(list)
    skipped_rules: list = factory(list)  # (rule, why) not run in this context
    files: list[str] = factory(list)
    fatal: bool = False  # the reader rejected the configuration; rules did not run
    unusable: Diagnostic | None = None  # the input itself cannot be read (unreadable, binary...): exit 2
    baselined: list[Diagnostic] = factory(list)  # findings an accepted baseline lists
    # what the settings hid: the findings of default rules that select/ignore left out (run only with
    # LintSettings.count_hidden, never reported), and (code, rule's severity, given severity) for each
    # severity they changed
    hidden: list[Diagnostic] = factory(list)
    severity_changes: list = factory(list)

    @property
    def hidden_by_settings(self) -> dict[str, int]:
        """code -> how many findings the rule selection of the settings hid."""
        counts: dict[str, int] = {}
        for finding in self.hidden:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        return counts

    def count(self, severity: str) -> int:
        """Findings of ``severity``, those a summary finding counts included (see cap_listed)."""
        return sum(unlisted_count(f) or 1 for f in self.findings if f.severity == severity)

    def fails(self, fail_on: str = ERROR) -> bool:
        threshold = SEVERITY_RANK[fail_on]
        return any(SEVERITY_RANK.get(f.severity, 2) >= threshold for f in self.findings)


@record
class ParseProblem:
    message: str
    line: int = 1
    column: int = 1


# ---------------------------------------------------------------- rule selection

def _selector_matches(selector: str, rule) -> bool:
    key = selector.strip().upper()
    return key == "ALL" or rule.code.startswith(key) or rule.name.upper() == key


def select_rules(ruleset, settings: LintSettings) -> list:
    """The rules to run: ``select`` (or every rule enabled by default) + ``extend_select`` - ``ignore``."""
    for selector in [*(settings.select or ()), *settings.extend_select, *settings.ignore, *settings.severity]:
        if not any(_selector_matches(selector, rule) for rule in ruleset):
            raise LintUsageError(f"{selector!r} names no lint rule (use a code like POL501, a prefix like POL, "
                                 f"a slug, or ALL; `condorcfg rules` lists them)")
    if settings.select is None:
        chosen = [r for r in ruleset if r.enabled]
    else:
        chosen = [r for r in ruleset if any(_selector_matches(s, r) for s in settings.select)]
    codes = {r.code for r in chosen}
    chosen += [r for r in ruleset
               if r.code not in codes and any(_selector_matches(s, r) for s in settings.extend_select)]
    # what says the check stopped part-way is never deselected: a run that hit a limit must not pass
    kept = [r for r in chosen if _always_reported(r) or not any(_selector_matches(s, r) for s in settings.ignore)]
    return kept + [r for r in ruleset if _always_reported(r) and r not in kept]


def hidden_by_settings(ruleset, settings: LintSettings) -> list:
    """The rules run by default that ``settings`` (select / ignore) leave out."""
    chosen = {r.code for r in select_rules(ruleset, settings)}
    return [r for r in ruleset if r.enabled and r.code not in chosen]


def _severity_overrides(ruleset, settings: LintSettings) -> dict:
    """code -> (rule, the severity ``settings`` give its findings); never one of the engine's limit or crash
    reports."""
    overrides = {}
    for key, severity in settings.severity.items():
        for rule in ruleset:
            if _selector_matches(key, rule) and not _always_reported(rule):
                overrides[rule.code] = (rule, severity)
    return overrides


def severity_changes(ruleset, settings: LintSettings) -> list[tuple[str, str, str]]:
    """(code, the rule's severity, the one ``settings`` give it) for every rule whose severity they change."""
    return sorted((code, rule.severity, severity)
                  for code, (rule, severity) in _severity_overrides(ruleset, settings).items()
                  if rule.severity != severity)


def _always_reported(rule) -> bool:
    return bool(rule.match) and rule.match.get("engine") in ALWAYS_REPORTED


# ---------------------------------------------------------------- context given to checks

class _MemoConfig:
    """A read-only view of a Config that remembers lookups for the length of one lint run.

    Every rule walks ``names()`` and asks ``source``/``value`` of the same knobs; the config
    does not change while it is linted, so computing each answer once keeps a 10,000-line
    configuration fast without each check caching on its own.  Anything else is delegated.
    """

    def __init__(self, config):
        self._config = config
        self._names = None
        self._source: dict[str, object] = {}
        self._value: dict[str, object] = {}
        self._raw: dict[str, object] = {}
        # limit name -> the first expansion a limit of condorcfg stopped (the engine reports each, CFG006:
        # the checks that met it went on without the value, so the run is incomplete)
        self.limits: dict[str, Diagnostic] = {}

    def __getattr__(self, attribute):
        return getattr(self._config, attribute)

    def expand(self, text: str, *knob):
        try:
            return self._config.expand(text, *knob)
        except (CondorcfgError, RecursionError) as exc:
            self._note_limit(exc)
            raise

    def _note_limit(self, exc: BaseException) -> None:
        reached = _limit_reached(exc)
        if reached is not None:
            self.limits.setdefault(*reached)

    def names(self) -> list[str]:
        if self._names is None:
            self._names = list(self._config.names())
        return list(self._names)

    def _remember(self, memo: dict, method: str, name: str):
        found = memo.get(name, _MISSING)
        if found is _MISSING:  # (a lookup, not a KeyError caught: every name misses each memo once)
            try:
                found = getattr(self._config, method)(name)
            except (CondorcfgError, RecursionError) as exc:  # e.g. a macro cycle: the same error every time
                self._note_limit(exc)
                found = _Failed(exc)
            memo[name] = found
        if type(found) is _Failed:
            raise found.error
        return found

    # The hot paths (tens of thousands of calls on a big configuration) look in the dict first.
    def source(self, name):
        found = self._source.get(name, _MISSING)
        if found is _MISSING or type(found) is _Failed:
            return self._remember(self._source, "source", name)
        return found

    def value(self, name):
        found = self._value.get(name, _MISSING)
        if found is _MISSING or type(found) is _Failed:
            return self._remember(self._value, "value", name)
        return found

    def raw(self, name):
        found = self._raw.get(name, _MISSING)
        if found is _MISSING:
            definition = self._source.get(name)
            if definition is not None and type(definition) is not _Failed:
                # the text of the definition source() found is what raw() returns (Config.lookup's order)
                return definition.raw
        if found is _MISSING or type(found) is _Failed:
            return self._remember(self._raw, "raw", name)
        return found

    def history(self, name):
        # Not remembered: the reader's history is a dictionary lookup that makes a new list, no more than a
        # remembered one would cost to copy (rules walk every name's history: remembering cost time and memory).
        return self._config.history(name)


_MISSING = object()

# The reader's codes for an expansion stopped by one of condorcfg's limits rather than by a cycle
# (``macro-cycle``, which MAC202 reports): with the spent budget (``budget-exceeded``), CFG006.
LIMIT_CODES = frozenset({BUDGET_CODE, "macro-too-large", "macro-too-deep"})
_LIMIT_NAME = re.compile(r"\bMAX_[A-Z_]+\b")
RECURSION_LIMIT = "Python's recursion limit"


def _limit_reached(exc: BaseException) -> tuple[str, Diagnostic] | None:
    """(the limit's name, the diagnostic) when ``exc`` is an expansion stopped by a limit; None otherwise."""
    if isinstance(exc, RecursionError):
        return RECURSION_LIMIT, Diagnostic(ERROR, "macro expansion nests too deep (limit: Python's recursion "
                                                  "limit)", None, code="macro-too-deep")
    if not isinstance(exc, CondorcfgError) or not is_limit(exc.diagnostic):
        return None
    return limit_name(exc.diagnostic, getattr(exc, "limit", None)), exc.diagnostic


def is_limit(diagnostic: Diagnostic) -> bool:
    """An expansion or reading stopped by one of condorcfg's limits, not by a cycle.  (A cycle that the
    search of written references misses, through a computed name ``$($(N))``, is ``macro-too-deep`` with
    the expansion's own words for it: still a cycle.)"""
    if diagnostic.code not in LIMIT_CODES:
        return False  # (asked of every reader diagnostic: 90,000 on a big configuration)
    from condorcfg.config.macros import CYCLE_FOUND

    return CYCLE_FOUND not in diagnostic.message


def limit_name(diagnostic: Diagnostic, given: str | None = None) -> str:
    """The name of the limit a ``LIMIT_CODES`` diagnostic reports (``BudgetExceeded.limit`` when known)."""
    if given:
        return given
    found = _LIMIT_NAME.search(diagnostic.message)
    if found:
        return found.group()
    # (config.model says "functions nested more than 64 deep" without naming its MAX_FUNCTION_NESTING)
    return "MAX_FUNCTION_NESTING" if "functions nested" in diagnostic.message else RECURSION_LIMIT


def _limit_message(diagnostic: Diagnostic, limit: str) -> str:
    """The diagnostic's message, naming ``limit`` if it does not yet."""
    message = diagnostic.message
    if limit not in message:
        message += f" (limit {limit})"
    return message


class _Failed:
    """A remembered lookup that raised (re-raised on every later call instead of recomputed)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


class LintContext:
    """What a check sees: the composed config, the machine, the knowledge base, its rule."""

    def __init__(self, config, machine=None, settings: LintSettings | None = None, ruleset=None,
                 machine_given: bool = False):
        self.config = config if isinstance(config, _MemoConfig) else _MemoConfig(config)
        self.machine = machine if machine is not None else getattr(config, "machine", None)
        self.machine_given = machine_given
        self.settings = settings or LintSettings()
        self.ruleset = ruleset
        self.rule = None
        self._known = [re.compile(p, re.IGNORECASE) for p in self.settings.known_knobs]
        self._lines: dict[str, list[str]] = {}
        self._parsed: dict[str, tuple] = {}
        self._expanded: dict[tuple, str] = {}
        self._knowledge = None
        # Results several checks derive from the whole configuration (export lists, ...), computed
        # once per run by the helpers in condorcfg.lint.checks._util.
        self.shared: dict[str, object] = {}
        self.primary_release: str | None = None  # the release the configuration was read as (None: 25.14.1)
        self._reload = None  # condorcfg.load of the same input, for read_as
        self._read_as: dict[str, tuple] = {}
        self._names: list[str] | None = None
        self._upper: dict[str, str] | None = None
        self._matching: dict[str, list[str]] = {}
        # True once the current rule has MAX_FINDINGS_PER_RULE findings kept: the rest are only counted, by
        # their place, so a check may yield ctx.place(...) instead of a finding (set by the engine)
        self.counting = False

    # -- shared data ------------------------------------------------------
    @property
    def knowledge(self):
        """The knob/attribute knowledge base (``condorcfg.lint.knowledge.Knowledge``), loaded on first use."""
        if self._knowledge is None:
            from condorcfg.lint import knowledge

            self._knowledge = knowledge.load()
        return self._knowledge

    def note_limit(self, exc: BaseException) -> None:
        """A check met ``exc`` (a CondorcfgError): when a limit stopped the work, the engine reports it
        (CFG006) once; a cycle or an error of the configuration is another rule's."""
        self.config._note_limit(exc)

    def is_site_knob(self, name: str) -> bool:
        """True if the project declares ``name`` a site-specific knob (``known-knobs``)."""
        return bool(self._known) and any(p.fullmatch(name) for p in self._known)

    def names(self) -> list[str]:
        """``config.names()``, computed once per run (every rule asks for it); do not modify."""
        if self._names is None:
            self._names = self.config.names()
        return self._names

    def names_matching(self, pattern: str) -> list[str]:
        """Defined names matching a knob regex (whole name, case-insensitive); cached per pattern.

        A pattern that is just names (``ALLOW_WRITE`` or ``A|B``) is looked up directly instead
        of scanning every name: most rules name their knobs, and big configs define thousands.
        """
        found = self._matching.get(pattern)
        if found is None:
            if _LITERAL_NAMES.fullmatch(pattern):
                wanted = {part.upper() for part in pattern.split("|")}
                if self._upper is None:
                    self._upper = {}
                    for name in self.names():
                        self._upper.setdefault(name.upper(), name)
                found = [self._upper[w] for w in wanted if w in self._upper]
            else:
                regex = re.compile(pattern, re.IGNORECASE)
                found = [name for name in self.names() if regex.fullmatch(name)]
            self._matching[pattern] = found
        return found

    def definitions(self, pattern: str | None = None) -> Iterable:
        """Effective definitions of the names set by files/templates/env, optionally regex-filtered."""
        for name in self.names_matching(pattern) if pattern else self.names():
            definition = self.config.source(name)
            if definition is not None:
                yield definition

    def source_lines(self, file: str) -> list[str]:
        """The physical lines of a file as the reader numbers them (cached; empty if unreadable)."""
        lines = self._lines.get(file)
        if lines is None:
            from condorcfg.report import read_lines

            lines = self._lines[file] = read_lines(file)
        return lines

    def expanded(self, definition) -> str | None:
        """The expanded value of a definition, or None when it cannot be expanded (a macro cycle, a runaway
        expansion: MAC202 reports a cycle, CFG006 a limit reached; no rule crashes).

        The effective definition of a file or template expands as ``config.value`` does; any other (an
        earlier one in the history, a built-in default) is its raw text expanded.  Cached by what is
        expanded - the effective value of a name, or a text - never by object identity:
        ``config.source()`` may build a fresh Definition for a built-in default on every call, and the id
        of a discarded object is reused.
        """
        effective = self.config.source(definition.name)
        if getattr(definition, "origin", "file") != "default" and (
                effective is definition or (effective is not None and _same_definition(effective, definition))):
            key = ("value", definition.name.upper())
        else:
            key = ("text", definition.raw or "")
        cached = self._expanded.get(key, _NOT_CACHED)
        if cached is _NOT_CACHED:
            try:
                if key[0] == "value":
                    cached = self.config.value(definition.name) or ""
                else:
                    cached = self.config.expand(definition.raw or "") or ""
            except (CondorcfgError, RecursionError):
                cached = None
            self._expanded[key] = cached
        return cached

    def parse_expression(self, text: str):
        """``(node, None)`` or ``(None, ParseProblem)`` for a ClassAd expression; cached by text."""
        cached = self._parsed.get(text)
        if cached is None:
            from condorcfg.classad import ClassAdSyntaxError, parse

            try:
                cached = (parse(text), None)
            except ClassAdSyntaxError as exc:
                cached = (None, ParseProblem(getattr(exc, "message", str(exc)),
                                             getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1))
            except RecursionError:
                cached = (None, ParseProblem("expression is nested too deeply to parse"))
            self._parsed[text] = cached
        return cached

    def references(self, node) -> list:
        from condorcfg.classad.analysis import references

        return references(node)

    # -- positions --------------------------------------------------------
    def _value_start(self, definition) -> tuple[int, int] | None:
        """(line, column) where the definition's value is written, if it can be found."""
        loc = definition.location
        if loc is None or not loc.line or getattr(definition, "origin", "file") not in ("file", None):
            return None
        lines = self.source_lines(loc.file)
        if not 0 < loc.line <= len(lines):
            return None
        return _value_column(lines[loc.line - 1], definition.name, loc.line)

    def value_span(self, definition) -> tuple | None:
        """(line, column, end_line, end_column) of the written value, or None."""
        start = self._value_start(definition)
        if start is None:
            return None
        line, column = start
        lines = self.source_lines(definition.location.file)
        if line > len(lines):
            return None
        text = lines[line - 1]
        raw = (definition.raw or "").split("\n")[0]
        end = column + len(raw) if text[column - 1:column - 1 + len(raw)] == raw else len(text.rstrip()) + 1
        return line, column, line, max(end, column + 1)

    def expression_span(self, definition, expanded: str, line: int, column: int, width: int = 1) -> tuple | None:
        """Span of a position inside the expanded value, mapped into the file when it is written verbatim."""
        start = self._value_start(definition)
        raw = definition.raw or ""
        if start is None or raw != expanded or "\n" in raw or line != 1:
            return self.value_span(definition)
        text = self.source_lines(definition.location.file)[start[0] - 1]
        if text[start[1] - 1:start[1] - 1 + len(raw)] != raw:
            return self.value_span(definition)
        col = start[1] + column - 1
        return start[0], col, start[0], col + max(width, 1)

    @cached_property
    def targets(self) -> list[str]:
        """The HTCondor releases the pool runs (--target-version, target-version), oldest first; [] if none."""
        if not self.settings.target_versions:
            return []
        from condorcfg import releases

        return sorted(set(self.settings.target_versions), key=releases.known().index)

    def read_as(self, release: str) -> tuple:
        """(Config, None) read as ``release`` would read it, or (None, the Diagnostic it stops with)."""
        from condorcfg import releases

        if release == (self.primary_release or releases.base()):
            return self.config, None
        if release not in self._read_as:
            if self._reload is None:  # (a Config was given, not files: nothing to re-read)
                self._read_as[release] = (None, None)
            else:
                try:
                    self._read_as[release] = (self._reload(release=None if release == releases.base()
                                                           else release), None)
                except CondorcfgError as exc:
                    self._read_as[release] = (None, exc.diagnostic)
        return self._read_as[release]

    # -- findings ---------------------------------------------------------
    def finding(self, message: str | Text, at=None, span: tuple | None = None, fix: str | None = None,
                notes: Iterable[str | Text] = (), causes: frozenset = frozenset(), **facts) -> Diagnostic:
        """A Diagnostic of the current rule, at a Definition (with provenance) or a Location.

        Its severity is the rule's (rules/*.yaml, what `condorcfg rules` and `explain` show): a check
        cannot choose another; a case that deserves another severity is another rule.  With ``facts``
        the message is a template formatted late (:class:`~condorcfg.diagnostics.Text`): places
        (Locations) are then written the way each report writes paths, and JSON carries the facts.
        """
        rule = self.rule
        if facts:
            message = Text(message, **facts)
        notes = list(notes)
        location = knob = None
        if isinstance(at, Location):
            location = at
        elif at is not None:  # a Definition
            location, message = self._place(at, message, span, notes)
            knob = getattr(at, "name", None)
        if rule is None:
            return Diagnostic(WARNING, message, location, fix=fix, notes=notes, knob=knob, causes=causes)
        # (positional: a big run makes 100,000s of findings)
        return Diagnostic(rule.severity, message, location, rule.code, rule.name, rule.fix if fix is None else fix,
                          notes, knob, causes)

    def place(self, at, span: tuple | None = None) -> Location | None:
        """Where ``finding(..., at=at, span=span)`` points: the line a user edits for a Definition (the
        ``use`` line for a template's), or the Location ``at`` itself.

        It is all that is kept of a finding once its rule has MAX_FINDINGS_PER_RULE (``counting``): a check
        that can make a finding for every line (a generated configuration of 90,000 of them) may then yield
        just this, not a finding whose message nobody reads.
        """
        if at is None or isinstance(at, Location):
            return at
        origin = getattr(at, "origin", "file")
        if origin == "template":
            return getattr(at, "use_location", None)
        if origin == "env":
            return None
        location = at.location
        if span is not None and location is not None:
            location = Location(location.file, span[0], span[1], span[2], span[3])
        return location

    def _place(self, definition, message: str | Text, span, notes: list):
        """(location, message) of a finding at ``definition``; adds the notes on its provenance to ``notes``."""
        location = self.place(definition, span)
        origin = getattr(definition, "origin", "file")
        if origin == "template":
            template = getattr(definition, "template", None) or "a template"
            message = Text("{message} (set by `use {template}`)", message=message, template=template)
            if definition.location is not None:
                notes.append(Text("{name} is defined by template {template} at {where}", name=definition.name,
                                  template=template, where=definition.location))
        elif origin == "env":
            message = Text("{message} (set from the environment)", message=message)
        earlier = getattr(definition, "overrode", None)
        if earlier is not None and earlier.origin != "default":
            if earlier.origin == "template":
                where = Text("template {template} (`use` at {where})", template=earlier.template,
                             where=earlier.use_location)
            else:
                where = earlier.location
            notes.append(Text("this overrides the earlier {name} from {where}", name=definition.name, where=where))
        return location, message


def _primary_release(targets: list[str]) -> str | None:
    """The release the configuration is read as: the newest target (None: HTCondor 25.14.1)."""
    if not targets:
        return None
    from condorcfg import releases

    known = releases.known()
    newest = max(targets, key=known.index)
    return None if newest == releases.base() else newest


def _same_definition(one, other) -> bool:
    """Two Definition objects for the same assignment (a built-in default is rebuilt on each lookup)."""
    return (one.name.upper() == other.name.upper() and one.raw == other.raw
            and getattr(one, "origin", None) == getattr(other, "origin", None)
            and one.location == other.location and getattr(one, "template", None) == getattr(other, "template", None))


# ---------------------------------------------------------------- running

def lint(target, **options) -> list[Diagnostic]:
    """Findings for ``target`` (paths or a Config); see :func:`run` for the options."""
    return run(target, **options).findings


def run(target, *, machine=None, settings: LintSettings | None = None, ruleset=None, allow_exec: bool = False,
        subsystem: str | None = None, local_name: str | None = None, sysroot: str | None = None,
        allowed_dirs=(), whole: bool = False, host=None) -> LintResult:
    """Lint one composed configuration.

    ``target`` is a loaded Config, or a path / list of paths read in order as ONE configuration,
    read in the reader's repository mode (as the target host would read it, but only from the
    given paths, ``allowed_dirs`` and ``sysroot``; see :mod:`condorcfg.config.reader`).
    Raises :class:`LintUsageError` for bad settings; anything wrong in the configuration is a
    finding, and input that cannot be read at all sets ``LintResult.unusable``.  ``whole``: the
    target is the whole configuration a host reads (a root), not loose files that may be composed
    with others; rules that ``need: [root]`` (e.g. that a macro is defined nowhere) run only then.
    ``host``: a role's :class:`~condorcfg.config.hostview.HostView` (instead of ``sysroot``).
    """
    from condorcfg.lint.rules import load_rules

    settings = settings or LintSettings()
    ruleset = ruleset or load_rules()
    with command_budget() as budget:  # (joins the command's: one ClassAd budget for every unit linted)
        spent_before = budget.spent
        result = _run(target, machine, settings, ruleset, allow_exec, subsystem, local_name, sysroot,
                      allowed_dirs, whole, host)
    if budget.spent != spent_before and not result.fatal:
        kind = LIMIT_REACHED if budget.failed else REGEX_TIME_LIMIT
        rule = next((r for r in ruleset if r.match and r.match.get("engine") == kind), None)
        if rule is not None:  # evaluations failed from here on: the findings may be incomplete, say so
            note = "rules that evaluate expressions (constant START, policy checks) may have missed findings"
            result.findings = _finish([*result.findings, Diagnostic(
                rule.severity, f"{budget.message()}; {note}", None, code=rule.code,
                rule=rule.name, fix=rule.fix)], settings, ruleset, result.files)
    result.findings = cap_listed(result.findings, settings.findings_per_file)
    return result


def _run(target, machine, settings: LintSettings, ruleset, allow_exec: bool, subsystem, local_name, sysroot,
         allowed_dirs, whole: bool, host) -> LintResult:
    enabled = select_rules(ruleset, settings)
    enabled_codes = {r.code for r in enabled}
    hidden_rules = hidden_by_settings(ruleset, settings) if settings.count_hidden else []
    hidden_codes = {r.code for r in hidden_rules}
    hidden: list[Diagnostic] = []  # their findings: counted, never reported
    by_engine = {r.match.get("engine"): r for r in ruleset if r.match and "engine" in r.match}
    findings: list[Diagnostic] = []

    def engine_finding(kind: str, message: str, location=None, always=False, notes=()):
        rule = by_engine.get(kind)
        if rule is None or (rule.code not in enabled_codes and not always):
            return
        findings.append(Diagnostic(rule.severity, message, location, code=rule.code, rule=rule.name,
                                   fix=rule.fix, notes=list(notes)))

    config = target
    # Several target releases (a mixed pool): read as the newest; the others re-read on demand (read_as)
    primary = _primary_release(settings.target_versions)
    reload = None
    if not hasattr(target, "names"):
        import functools

        import condorcfg

        reload = functools.partial(condorcfg.load, target, machine=machine, subsystem=subsystem,
                                   local_name=local_name, allow_exec=allow_exec, mode="repository", sysroot=sysroot,
                                   allowed_dirs=allowed_dirs, host=host)
        try:
            config = reload(release=primary)
        except CondorcfgError as exc:  # HTCondor would refuse this configuration: report it, nothing else runs
            given = [str(p) for p in (target if isinstance(target, (list, tuple)) else [target])]
            if exc.diagnostic.code in UNUSABLE_INPUT:
                return LintResult(findings=[], files=given, fatal=True, unusable=exc.diagnostic)
            _reader_finding(exc.diagnostic, ruleset, enabled_codes, findings, fatal=True, by_engine=by_engine)
            return LintResult(findings=_finish(findings, settings, ruleset, given), files=given, fatal=True)
        except Exception as exc:  # the reader's own bug: still no traceback
            engine_finding(INTERNAL_ERROR, f"the configuration reader crashed: {type(exc).__name__}: {exc}; "
                                           f"please report this as a condorcfg bug", always=True)
            return LintResult(findings=_finish(findings, settings, ruleset, []), fatal=True)

    ctx = LintContext(config, machine, settings, ruleset, machine_given=machine is not None)
    ctx.primary_release, ctx._reload = primary, reload
    for diagnostic in getattr(config, "diagnostics", ()):
        _reader_finding(diagnostic, ruleset, enabled_codes, findings, by_engine=by_engine)
        if hidden_codes:
            _reader_finding(diagnostic, ruleset, hidden_codes, hidden, by_engine=by_engine)

    from condorcfg.lint.checks import get_check, import_check_modules
    from condorcfg.lint.declarative import run_matcher

    def report_import_failures(failures):
        for module, exc in failures:  # (the same failure reported twice is merged by _finish)
            engine_finding(INTERNAL_ERROR, f"lint check module {module} failed to import "
                                           f"({type(exc).__name__}: {exc}); its rules did not run", always=True)

    # Only the check modules of the enabled rules' families (POL501 -> checks/pol.py) are imported.
    families = {r.code[:3].lower() for r in [*enabled, *hidden_rules] if r.check}
    if families:
        report_import_failures(import_check_modules(families))
    rules_run, skipped = [], []
    unkept: dict[tuple, array] = {}  # (code, file) -> the lines of findings past MAX_FINDINGS_PER_RULE
    for rule in [*enabled, *hidden_rules]:
        if rule.match and ("reader" in rule.match or "engine" in rule.match):
            continue
        counted_only = rule.code in hidden_codes
        if "machine" in rule.needs and not ctx.machine_given:
            if not counted_only:
                skipped.append((rule, NEED_MACHINE))
            continue
        if "root" in rule.needs and not whole:
            if not counted_only:
                skipped.append((rule, NEED_ROOT))
            continue
        if counted_only:
            _count_hidden(rule, ctx, hidden, run_matcher if rule.match else get_check(rule.check))
            continue
        function = run_matcher if rule.match else get_check(rule.check)
        if function is None:
            report_import_failures(import_check_modules())  # get_check imported every module: say which broke
            engine_finding(INTERNAL_ERROR, f"rule {rule.code} ({rule.name}) names check {rule.check!r}, which is "
                                           f"not registered in condorcfg.lint.checks", always=True)
            continue
        ctx.rule = rule
        kept = 0
        try:
            for item in function(ctx) or ():
                if kept < MAX_FINDINGS_PER_RULE:
                    findings.append(_normalise(item, rule))
                    kept += 1
                    ctx.counting = kept == MAX_FINDINGS_PER_RULE
                else:  # counted, not kept: memory stays bounded on a generated or hostile configuration
                    _count_unkept(unkept, rule, item)
        except Exception as exc:  # one broken rule must not hide the others' findings
            engine_finding(INTERNAL_ERROR, f"rule {rule.code} ({rule.name}) crashed: {type(exc).__name__}: {exc}; "
                                           f"its findings may be incomplete (please report this bug)",
                           always=True)
        ctx.counting = False
        rules_run.append(rule)
    ctx.rule = None
    # Expansions a limit stopped: the checks that met one went on without the value (and, once the budget is
    # spent, without every later one), so the run is incomplete: said once per limit, whichever rule met it.
    limits = dict(ctx.config.limits)
    exhausted = getattr(getattr(config, "budget", None), "exhausted", None)
    if exhausted is not None:
        limits.setdefault(exhausted.limit, exhausted.diagnostic)
    for limit, diagnostic in limits.items():
        engine_finding(LIMIT_REACHED, f"{_limit_message(diagnostic, limit)}; checking went on without the values "
                                      f"it stopped, so findings about them may be missing",
                       diagnostic.location, always=True)

    files = list(getattr(config, "files", ()))
    result = LintResult(findings=[], rules_run=rules_run, skipped_rules=skipped, files=files)
    kept = _apply_suppressions(findings, ctx, ruleset, enabled_codes, settings, files, result, engine_finding,
                               unkept, hidden)
    if settings.fragment:  # (after the suppressions: a suppressed finding is used, and not listed again)
        kept = _fragment_macros(kept, ctx, by_engine.get(FRAGMENT_MACROS), enabled_codes, files)
    result.findings = _finish(kept, settings, ruleset, files)
    return result


def _count_hidden(rule, ctx, hidden: list, function) -> None:
    """Run a rule the settings left out, only to count its findings (at most MAX_FINDINGS_PER_RULE kept);
    a crash or a missing check counts nothing (its rule is not reported either)."""
    if function is None:
        return
    ctx.rule = rule
    try:
        for item in function(ctx) or ():
            if len(hidden) >= MAX_FINDINGS_PER_RULE * 4:  # (a count, not a report: memory stays bounded)
                break
            hidden.append(_normalise(item, rule))
    except Exception:  # noqa: BLE001 - what is only counted must not break the run
        pass


def _fragment_macros(findings, ctx, rule, enabled_codes, files) -> list[Diagnostic]:
    """Fragment mode: a macro the files use but define nowhere comes from the configuration they are
    composed with, so the findings that exist only because such macros are empty here (``causes``) are
    replaced by one finding naming the macros the fragment relies on, with what each would break."""
    external = set()
    for finding in findings:
        external |= {cause for cause in finding.causes if ctx.config.source(cause) is None}
    if not external:
        return findings
    kept, folded = [], []
    for finding in findings:
        (folded if finding.causes and finding.causes <= external else kept).append(finding)
    if rule is None or rule.code not in enabled_codes:
        return kept
    spelled = {}  # the macros as the files write them ($(CE_Start)), not the upper-case keys
    for finding in folded:
        for written in re.findall(r"\$\(([A-Za-z0-9_.]+)", finding.message):
            spelled.setdefault(written.upper(), written)
        for word in re.findall(r"[A-Za-z0-9_.]+", finding.message):
            if word.upper() in external:
                spelled.setdefault(word.upper(), word)
    names = sorted(spelled.get(name, name) for name in external)
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    notes = []
    for finding in folded[:20]:
        notes.append(Text("if they are not defined there: {code} at {where}: {message}", code=finding.code,
                          where=finding.location or "the configuration", message=finding.text))
    at = Location(files[0], 1, 1) if files else None
    kept.append(Diagnostic(rule.severity, f"this fragment uses {len(names)} macro{'s' * (len(names) != 1)} it does "
                                          f"not define ({shown}): they must come from the configuration it is "
                                          f"composed with", at, code=rule.code, rule=rule.name, fix=rule.fix,
                           notes=notes))
    return kept


def _value_column(text: str, name: str, line: int) -> tuple[int, int] | None:
    """Where the value of ``NAME = value`` / ``NAME += value`` starts on ``text`` (1-based), or the line
    after a heredoc opener ``NAME @=tag``; None when ``text`` does not assign ``name``.  (String tests,
    not a regex built from the name: one per definition filled re's cache and cost a compile each.)"""
    size = len(text)
    i = size - len(text.lstrip())
    end = i + len(name)
    if text[i:end].lower() != name.lower():
        return None
    while end < size and text[end].isspace():
        end += 1
    if text.startswith("@=", end):
        tag = text[end + 2:].strip()
        return (line + 1, 1) if tag and not any(c.isspace() for c in tag) else None
    if text.startswith("+=", end):
        end += 2
    elif text.startswith("=", end):
        end += 1
    else:
        return None
    while end < size and text[end].isspace():
        end += 1
    return line, end + 1


_NOT_CACHED = object()


def _normalise(item, rule) -> Diagnostic:
    if not isinstance(item, Diagnostic):
        raise TypeError(f"a check must yield Diagnostics, got {type(item).__name__}")
    item.code = rule.code
    item.rule = rule.name
    item.severity = rule.severity  # one source of truth: the rule's severity
    if item.fix is None:
        item.fix = rule.fix or None
    return item


def _reader_finding(diagnostic: Diagnostic, ruleset, enabled_codes, findings, fatal: bool = False,
                    by_engine: dict | None = None) -> None:
    """Report a reader diagnostic under the rule claiming its kind, or a catch-all rule, at that rule's severity.

    A rule claiming the diagnostic's kind reports it at that rule's severity.  Otherwise what HTCondor
    refuses (an error of the reader) is the config-error rule and the rest config-diagnostic; what
    stopped the reading (``fatal``) is always at error level: config-error unless an error rule claims it.
    An expansion or reading stopped by one of condorcfg's limits (``LIMIT_CODES``: a spent budget, a
    value grown past MAX_EXPANDED_SIZE, ...) is the engine's limit-reached rule, naming the limit: the
    configuration could not be read or expanded to its end, so what depends on it was not checked.
    ``by_engine``: the engine rules by kind (computed here when not given; a caller with 100,000 reader
    diagnostics gives it once).
    """
    if by_engine is None:
        by_engine = {r.match.get("engine"): r for r in ruleset if r.match and "engine" in r.match}
    rule = ruleset.reader_kinds().get(diagnostic.code or "")
    message = diagnostic.message
    if is_limit(diagnostic) and LIMIT_REACHED in by_engine:
        rule = by_engine[LIMIT_REACHED]
        message = _limit_message(diagnostic, limit_name(diagnostic))
    if rule is None or (fatal and rule.severity != ERROR):  # (a claiming rule decides its kinds' severity)
        rule = by_engine.get(CONFIG_ERROR if fatal or diagnostic.severity == ERROR else CONFIG_DIAGNOSTIC)
    if rule is None:
        return
    if rule.code not in enabled_codes and not fatal:
        return
    # (positional: a big configuration has 100,000 reader diagnostics)
    findings.append(Diagnostic(rule.severity, message, diagnostic.location, rule.code, rule.name,
                               diagnostic.fix or rule.fix or None, list(diagnostic.notes)))


def _count_unkept(unkept: dict, rule, item) -> None:
    """Remember only the place of a finding past MAX_FINDINGS_PER_RULE (4 bytes), to count it once the
    suppressions are known.  ``item``: the finding, or its place (what a check yields while ``ctx.counting``)."""
    location = item if item is None or item.__class__ is Location else getattr(item, "location", None)
    key = (rule.code, location.file if location is not None else None)
    lines = unkept.get(key)
    if lines is None:
        lines = unkept[key] = array("I")
    lines.append(max(location.line or 0, 0) if location is not None else 0)


def _apply_suppressions(findings, ctx, ruleset, enabled_codes, settings, files, result, engine_finding,
                        unkept: dict | None = None, counted_only=()):
    """Split ``findings`` into kept and suppressed (``result.suppressed``); return the kept ones.

    ``engine_finding`` appends the engine's own findings (invalid/unused suppressions) to the
    same ``findings`` list, so they go through suppression too (``ignore-file[CFG001]`` works).
    ``unkept``: (code, file) -> lines of the findings a rule had past MAX_FINDINGS_PER_RULE; those not
    suppressed are counted in one summary finding per rule and file.
    """
    from condorcfg.lint.suppress import SuppressionIndex, scan

    suppressions = []
    for file in dict.fromkeys([*files, *(f.location.file for f in findings if f.location)]):
        if not os.path.isfile(file):
            continue
        found, problems = scan(file, ctx.source_lines(file))
        for problem in problems:
            engine_finding(INVALID_SUPPRESSION, problem.message,
                           Location(problem.file, problem.line, problem.column, problem.line, problem.end_column))
        for sup in found:
            valid = []
            for written in sup.codes:
                rule = ruleset.get(written)
                where = sup.location_of(written)
                if rule is None:
                    engine_finding(INVALID_SUPPRESSION, f"suppression names unknown rule {written!r} "
                                                        f"(`condorcfg rules` lists codes and slugs)", where)
                elif not rule.ignorable:
                    engine_finding(INVALID_SUPPRESSION, f"rule {rule.code} ({rule.name}) cannot be suppressed; "
                                                        f"fix the configuration instead", where)
                else:
                    valid.append(written)
            if settings.require_reason and not sup.reason:
                engine_finding(INVALID_SUPPRESSION, "suppression gives no reason; the project requires one "
                                                    "(write it after the closing bracket)",
                               Location(sup.file, sup.line, sup.column, sup.line, sup.end_column))
            sup.codes = valid
            if valid:
                suppressions.append(sup)
    index = SuppressionIndex(suppressions)

    def hidden(finding) -> bool:
        if not suppressions:
            return False  # (the usual case, asked once per finding)
        rule = ruleset.get(finding.code or "")
        if rule is None or not rule.ignorable or finding.location is None:
            return False
        return index.find(finding.location.file, finding.location.line, rule.code, rule.name) is not None

    kept = []
    for finding in findings:
        (result.suppressed if hidden(finding) else kept).append(finding)
    # the findings of rules the settings left out, which a suppression does not hide as well (each once)
    unique = {(f.code, f.location, f.message): f for f in counted_only if not hidden(f)}
    result.hidden = list(unique.values())
    listed = {}  # (code, file) -> findings kept, for the summaries' "N more"
    if unkept:
        for finding in kept:
            key = (finding.code, finding.location.file if finding.location is not None else None)
            listed[key] = listed.get(key, 0) + 1
    for (code, file), lines in (unkept or {}).items():
        rule = ruleset.get(code)
        # counted, not kept: one stand-in for every suppressed one (reports show only how many were suppressed)
        stand_in = Diagnostic(rule.severity, f"a suppressed {code} finding past MAX_FINDINGS_PER_RULE (not kept)",
                              None, code=code, rule=rule.name)
        count, first = len(lines), min(lines, default=None)
        if suppressions and file is not None and rule.ignorable:  # (else none is hidden: no need to ask of each)
            count, first = 0, None
            for line in lines:
                if index.find(file, line, rule.code, rule.name) is not None:
                    result.suppressed.append(stand_in)
                else:
                    count += 1
                    first = line if first is None else min(first, line)
        if count:
            where = Location(file, first, 1) if file is not None else None
            kept.append(_unlisted(code, rule.name, rule.severity, rule.fix, where, count, None,
                                  listed.get((code, file), 0)))
    before = len(findings)
    for sup in suppressions:  # unused: names an enabled rule that hid nothing here
        for written in sup.codes:
            rule = ruleset.get(written)
            if written.upper() in sup.used or rule.code not in enabled_codes:
                continue
            scope = "this file" if sup.file_wide else "the next statement"
            engine_finding(UNUSED_SUPPRESSION, f"suppression of {written} is unused: {rule.code} ({rule.name}) "
                                               f"reports nothing in {scope}; remove it",
                           sup.location_of(written))
    for finding in findings[before:]:  # the engine's own findings, which ignore-file[...] may still hide
        (result.suppressed if hidden(finding) else kept).append(finding)
    return kept


# A summary finding: how many findings of one rule in one file are not listed (its facts: ``count``...).
_SUMMARY = "{count} {more}{code} ({rule}) findings {where} are not listed{first}: {limits}; {then}"
_LISTING_LIMITS = ("a report lists at most {per_file} findings of a rule per file (MAX_FINDINGS_PER_FILE) and "
                   "{per_rule} in all (MAX_FINDINGS_PER_RULE)")
_KEEPING_LIMIT = "lint keeps at most {per_rule} findings of a rule (MAX_FINDINGS_PER_RULE)"  # (listing all)


def _unlisted(code: str, slug: str, severity: str, fix, where: Location | None, count: int,
              per_file: int | None, listed: int) -> Diagnostic:
    """The summary finding for ``count`` findings of rule ``code`` not listed in ``where``'s file, at the
    first of them; ``listed``: how many of that rule and file are listed; ``per_file`` None: only
    MAX_FINDINGS_PER_RULE applied."""
    if where is not None:
        where = Location(where.file, where.line, where.column)
        place = Text("in {file}", file=Location(where.file))
        first = Text(", the first at line {line}", line=where.line) if where.line else ""
        then = "fix or suppress the listed ones and lint again to see the next ones"
    else:
        place, first = "without a place in a file", ""
        then = "fix the listed ones and lint again to see the next ones"
    limits = (Text(_KEEPING_LIMIT, per_rule=MAX_FINDINGS_PER_RULE) if per_file is None
              else Text(_LISTING_LIMITS, per_file=per_file, per_rule=MAX_FINDINGS_PER_RULE))
    return Diagnostic(severity, Text(_SUMMARY, count=count, more="more " if listed else "", code=code, rule=slug,
                                     where=place, first=first, limits=limits,
                                     then=then + " (--statistics counts them all)"),
                      where, code=code, rule=slug, fix=fix)


def unlisted_count(finding: Diagnostic) -> int:
    """How many findings a summary finding stands for (0: ``finding`` is an ordinary finding)."""
    text = finding.text
    if text.__class__ is Text and text.template is _SUMMARY:
        return text.facts["count"]
    return 0


def cap_listed(findings: list[Diagnostic], per_file: int | None = MAX_FINDINGS_PER_FILE) -> list[Diagnostic]:
    """At most ``per_file`` findings of each rule listed per file, the first in ``findings``' order (the
    report's, as :func:`run` returns them); the rest of that rule and file, with what earlier summaries
    counted, in one summary finding in place of the first of them.

    Run on the final findings - after suppressions and severity overrides (:func:`run` does, last), and
    after a baseline is applied (a caller applying one runs with ``findings_per_file=None`` and calls this
    itself): the summary then counts exactly what would have been listed, at the severity of the findings
    it stands for, so the exit status is the same.
    """
    if per_file is None:
        return findings
    listed: dict[tuple, int] = {}
    pending: dict[tuple, list] = {}  # (code, file) -> [count, the first finding not listed, its index in out]
    out: list = []
    for finding in findings:
        location = finding.location
        key = (finding.code, location.file if location is not None else None)
        counted = unlisted_count(finding)
        if not counted and listed.get(key, 0) < per_file:
            listed[key] = listed.get(key, 0) + 1
            out.append(finding)
            continue
        entry = pending.get(key)
        if entry is None:
            pending[key] = [counted or 1, finding, len(out)]
            out.append(None)  # the summary's place: where the first unlisted finding was
        else:
            entry[0] += counted or 1
    if not pending:
        return findings
    for (code, _file), (count, first, index) in pending.items():
        out[index] = _unlisted(code, first.rule, first.severity, first.fix, first.location, count, per_file,
                               listed.get((code, _file), 0))
    return out


def _finish(findings, settings: LintSettings, ruleset, files) -> list[Diagnostic]:
    """Severity overrides, de-duplication and a stable order (file reading order, line, column, code)."""
    overrides = {code: severity for code, (_rule, severity) in _severity_overrides(ruleset, settings).items()}
    order = {file: i for i, file in enumerate(files)}
    for finding in findings:
        if finding.code in overrides:
            finding.severity = overrides[finding.code]

    def sort_key(finding):
        loc = finding.location
        if loc is None:
            return (-1, "", 0, 0, finding.code or "")
        return (order.get(loc.file, len(order)), loc.file, loc.line, loc.column, finding.code or "")

    # A copy of a finding (same code, place and message) has its sort key: the stable sort puts it after the
    # first one, among the few findings of that key, so only those are compared (hashing every finding's
    # place and message cost a run of 100,000 findings a tenth of a second).
    keys = [sort_key(finding) for finding in findings]
    result, previous, seen = [], None, None
    for index in sorted(range(len(findings)), key=keys.__getitem__):
        key, finding = keys[index], findings[index]
        if key != previous:
            previous, seen = key, None
        else:
            if seen is None:
                seen = {_identity(result[-1])}
            identity = _identity(finding)
            if identity in seen:
                continue
            seen.add(identity)
        result.append(finding)
    return _one_finding_per_cause(result)


def _identity(finding: Diagnostic) -> tuple:
    """What makes two findings the same finding."""
    return finding.code, finding.location, finding.message


def _one_finding_per_cause(findings: list[Diagnostic]) -> list[Diagnostic]:
    """One root cause, one finding: a finding that exists only because macros expand to nothing
    (``causes``) is dropped when findings already kept name all of those macros.

    The most severe findings are kept first (an expression that does not parse says more than
    "$(X) is not defined"), then in file order; the order of the result is unchanged.
    """
    if not any(f.causes for f in findings):
        return findings
    reported: dict[str, Diagnostic] = {}  # cause -> the kept finding that reports it
    dropped: set[int] = set()
    ranked = sorted(range(len(findings)), key=lambda i: -SEVERITY_RANK.get(findings[i].severity, 0))
    for index in ranked:
        finding = findings[index]
        if not finding.causes:
            continue
        if all(cause in reported for cause in finding.causes):
            dropped.add(index)
            keeper = reported[min(finding.causes)]
            what = f"{finding.knob} " if finding.knob else ""
            keeper.notes.append(Text("the same cause also affects {what}at {where} ({code})", what=what,
                                     where=finding.location or "the configuration", code=finding.code))
        else:
            for cause in finding.causes:
                reported.setdefault(cause, finding)
    return [f for i, f in enumerate(findings) if i not in dropped]
