"""One diagnostic type shared by every stage.

Reader errors, slot-layout errors and lint findings all become a
:class:`Diagnostic`, so they print and serialise the same way.
"""
from __future__ import annotations

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)
# The lowest severity that fails a lint run unless --fail-on / the project's fail-on says otherwise:
# warnings fail (as ruff, shellcheck and hadolint do; a passing pre-commit hook's output is never
# read), info never does.
DEFAULT_FAIL_ON = WARNING


class Location:
    """A place in a source: 1-based line and column; ``end_*`` are inclusive-exclusive.

    Immutable by convention and compared by value.  (A slotted class, not a frozen dataclass:
    the reader makes one per statement, and a frozen dataclass costs three times as much to make.)
    """

    __slots__ = ("file", "line", "column", "end_line", "end_column")

    def __init__(self, file: str, line: int = 0, column: int = 1, end_line: int | None = None,
                 end_column: int | None = None):
        self.file = file
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column

    def _key(self) -> tuple:
        return (self.file, self.line, self.column, self.end_line, self.end_column)

    def __eq__(self, other):
        if other.__class__ is not Location:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Location(file={self.file!r}, line={self.line!r}, column={self.column!r}, "
                f"end_line={self.end_line!r}, end_column={self.end_column!r})")

    def __str__(self) -> str:
        return self.shown(str)

    def shown(self, path) -> str:
        """``FILE:LINE:COL`` (``FILE`` alone without a line), the file written by ``path(file)``."""
        file = path(self.file) if self.file else self.file
        if not self.line:
            return file
        return f"{file}:{self.line}:{self.column}"


class Text:
    """A message or note with its facts: a ``str.format`` template and the values it names.

    Formatted only when a report prints it, so the report alone decides how a place looks (the
    text report shows paths relative to the current directory, SARIF and GitLab relative to the
    project root), and a report can hand the facts on (JSON ``facts``).  pyflakes' message
    classes keep ``message_args`` for the same reason.  A fact is a :class:`Location` (a place; a
    file alone is ``Location(path)``), another Text (a phrase with places of its own) or a plain
    value.  Every part taken from a configuration must be a fact, never part of the template:
    the template's braces are format fields.
    """

    __slots__ = ("template", "facts")

    def __init__(self, template: str, /, **facts):
        self.template = template
        self.facts = facts

    def render(self, path=str) -> str:
        """The text, each place's file written by ``path(file)``."""
        return self.template.format_map({name: _shown(fact, path) for name, fact in self.facts.items()})

    def __str__(self) -> str:
        return self.render()

    def __contains__(self, part: str) -> bool:  # (a note reads like its text: `"IS_OWNER" in note`)
        return part in self.render()

    def __eq__(self, other):
        if isinstance(other, str):
            return self.render() == other
        if other.__class__ is not Text:
            return NotImplemented
        return self.template == other.template and self.facts == other.facts

    __hash__ = None

    def __repr__(self) -> str:
        return f"Text({self.template!r}, **{self.facts!r})"


def _shown(fact, path):
    if fact.__class__ is Location:
        return fact.shown(path)
    if fact.__class__ is Text:
        return fact.render(path)
    return fact


def rendered(text, path=str) -> str:
    """A message or note (a str, or a :class:`Text` formatted now)."""
    return text if text.__class__ is str else text.render(path)


def fact_json(fact):
    """A fact as JSON: a place as its file, line and column, a phrase as its text."""
    if fact.__class__ is Location:
        return {"file": fact.file, "line": fact.line or None, "column": fact.column if fact.line else None}
    if fact.__class__ is Text:
        return fact.render()
    if fact is None or isinstance(fact, (str, int, float, bool)):
        return fact
    return str(fact)


class Diagnostic:
    """One problem: a reader error, a slot-layout error or a lint finding.

    (A plain slotted class, not a dataclass: every command imports this module, and
    creating dataclasses - with the ``dataclasses`` module itself - costs start-up time.)
    """

    __slots__ = ("severity", "text", "location", "code", "rule", "fix", "notes", "knob", "causes", "roles")

    def __init__(self, severity: str, message: "str | Text", location: Location | None = None,
                 code: str | None = None, rule: str | None = None, fix: str | None = None,
                 notes: "list[str | Text] | None" = None, knob: str | None = None, causes: frozenset = frozenset()):
        self.severity = severity
        self.text = message  # a str, or a Text whose facts a report formats (see message_shown)
        self.location = location
        self.code = code  # lint rule code (e.g. POL501) or reader error kind
        self.rule = rule  # lint rule slug
        self.fix = fix
        self.notes: list[str] = [] if notes is None else notes
        self.knob = knob  # the knob a lint finding is about (baselines key on it, not on lines)
        # upper-case macros whose expanding to nothing is the whole reason for a lint finding: one root
        # cause is reported once (lint/engine.py, _one_finding_per_cause)
        self.causes = causes
        self.roles: tuple[str, ...] = ()  # the pool roles whose configuration has this finding (lint of roles)

    @property
    def message(self) -> str:
        """The message with places written as given (reports use :meth:`message_shown`)."""
        return rendered(self.text)

    @message.setter
    def message(self, value: "str | Text") -> None:
        self.text = value

    def message_shown(self, path) -> str:
        """The message, each place's file written by ``path(file)``."""
        return rendered(self.text, path)

    def notes_shown(self, path) -> list[str]:
        return [rendered(note, path) for note in self.notes]

    def facts(self) -> dict:
        """The message's facts (knob names, values, places) as JSON values."""
        text = self.text
        return {} if text.__class__ is str else {name: fact_json(fact) for name, fact in text.facts.items()}

    def _key(self) -> tuple:
        return (self.severity, self.message, self.location, self.code, self.rule, self.fix,
                [rendered(note) for note in self.notes], self.knob)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return "Diagnostic(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

    def copy(self) -> "Diagnostic":
        copied = Diagnostic(self.severity, self.text, self.location, self.code, self.rule, self.fix, list(self.notes),
                            self.knob, self.causes)
        copied.roles = self.roles
        return copied

    def format(self) -> str:
        """``FILE:LINE:COL: severity CODE: message`` and a ``note:`` line per note, safe to print.

        Every part may come from a configuration (a file name, a value inside the message), so
        each is made printable and the lines defused (:mod:`condorcfg.textsafe`): this is what
        every command prints on stderr.  The diagnostic itself keeps the exact text.
        """
        from condorcfg.textsafe import defuse, printable

        where = f"{printable(str(self.location))}: " if self.location else ""
        code = f" {printable(self.code)}" if self.code else ""
        text = f"{where}{printable(self.severity)}{code}: {printable(self.message)}"
        for note in self.notes:
            text += f"\n  note: {printable(rendered(note))}"
        return defuse(text)

    def to_json(self) -> dict:
        loc = self.location
        return {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity,
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "end_line": (loc.end_line or loc.line) if loc else None,
            "end_column": loc.end_column if loc else None,
            "knob": self.knob,
            "message": self.message,
            "fix": self.fix,
            "notes": [rendered(note) for note in self.notes],
            **({"roles": list(self.roles)} if self.roles else {}),
        }


class CondorcfgError(Exception):
    """A fatal problem carrying a diagnostic (e.g. a configuration HTCondor rejects)."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.format())
        self.diagnostic = diagnostic


def error(message: str, file: str | None = None, line: int = 0, column: int = 1, **kw) -> Diagnostic:
    return Diagnostic(ERROR, message, Location(file, line, column) if file else None, **kw)


def warning(message: str, file: str | None = None, line: int = 0, column: int = 1, **kw) -> Diagnostic:
    return Diagnostic(WARNING, message, Location(file, line, column) if file else None, **kw)
