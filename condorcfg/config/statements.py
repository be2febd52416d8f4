"""Classify one logical line as a configuration statement (config-language.md section 4).

This module only looks at the text of a line; it does not expand macros,
evaluate conditions or touch the configuration - the reader does that with
the statement this module returns.  Recognition follows HTCondor 25:

* ``if``/``elif``/``else``/``endif`` are keywords only when followed by
  whitespace or the end of the line (``iffy = 3`` is an assignment);
* the name ends at the first blank, ``=`` or ``:``; words between the name
  and the operator are ignored, except that a lone ``+`` right before ``=``
  makes an append (``X += v``) and any other use of ``+`` is an error;
* ``include``/``use``/``error``/``warning`` are statements only with the
  ``:`` operator (``use = 5`` is an ordinary knob); ``@include``/``@use``
  are accepted;
* ``[Section]`` lines without blanks are ignored; any other line without an
  operator is an error.
"""
from __future__ import annotations

import re

from condorcfg.diagnostics import Location

_BLANKS = " \t\n\v\f\r"
_NAME_CHARS = "A-Za-z0-9_./"  # what a knob name may hold
_VALID_NAME = re.compile(f"[{_NAME_CHARS}]+")
# the common line `NAME = value`, or `NAME : value` (name up to a blank, "=" or ":"; blanks, then the operator)
_SIMPLE_ASSIGN = re.compile(r"([^ \t\n\v\f\r=:]+)[ \t\n\v\f\r]*([=:])[ \t\n\v\f\r]*(.*)", re.S)
# The commonest line of all: `NAME = value` with a valid name as written (no `$(...)` to expand).
# A line this matches, and that is no if/elif/else/endif line (those start with i or e),
# parse_statement() makes (ASSIGN, NAME, "=", value, "") of, and NAME needs no check:
# the reader takes that short cut for most lines.
PLAIN_ASSIGN = re.compile(rf"([{_NAME_CHARS}]+)[ \t\n\v\f\r]*=[ \t\n\v\f\r]*(.*)", re.S)
IF_KEYWORDS = ("if", "elif", "else", "endif")
KEYWORD_STATEMENTS = ("include", "use", "error", "warning")

# statement kinds
ASSIGN = "assign"  # NAME = value  /  NAME : value (obsolete)
APPEND = "append"  # NAME += value
HEREDOC = "heredoc"  # NAME @=tag ... @tag
IF, ELIF, ELSE, ENDIF = IF_KEYWORDS
INCLUDE, USE, ERROR, WARNING = KEYWORD_STATEMENTS
SECTION = "section"  # [Section] - ignored by HTCondor


class Statement:
    """One statement as written.  ``name`` is the name text before macro expansion.

    (A slotted class written out, not a dataclass: the reader makes one per line, and
    creating dataclasses costs every command start-up time.)
    """

    __slots__ = ("kind", "location", "text", "name", "operator", "value", "options", "template", "use_location",
                 "template_chain", "active")

    def __init__(self, kind: str, location: Location, text: str, name: str | None = None,
                 operator: str | None = None, value: str | None = None, options: str = "",
                 template: str | None = None, use_location: Location | None = None, template_chain: tuple = (),
                 active: bool = True):
        self.kind = kind
        self.location = location
        self.text = text  # the whole logical line
        self.name = name  # an assignment's knob name (macros in it expanded)
        self.operator = operator  # "=", ":", "+=", "@="
        self.value = value  # value text / condition / include target / use items / message
        self.options = options  # words between keyword (or name) and operator
        self.template = template  # "ROLE:Execute" when the statement comes from a template body
        self.use_location = use_location  # the user's `use` line (outermost) that applied the template
        # for a template body: every `use` that led here, outermost first, as (template, use Location)
        self.template_chain = template_chain
        self.active = active  # False when it sits in a skipped if-branch (kept for lint)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # mutable, compared by value

    def __repr__(self) -> str:
        return "Statement(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


def from_record(record: tuple) -> Statement:
    """The Statement of one of the reader's records.

    A record is ``(kind, place, text, name, operator, value, options, context, active)`` with
    ``place`` = ``(file, line, column, end_line)`` and ``context`` = ``(template, use_location,
    template_chain)``, shared by the statements of one file or template body.  (The reader makes a
    tuple per line, not a Statement: only lint and dump look at statements, and a Statement and
    its Location for every line cost a 10,000-line configuration a tenth of its reading time.)
    """
    kind, place, text, name, operator, value, options, (template, use_location, chain), active = record
    return Statement(kind, Location(*place), text, name, operator, value, options, template, use_location, chain,
                     active)


class StatementError(Exception):
    """A line HTCondor rejects; ``detail`` is empty where HTCondor prints no detail."""

    def __init__(self, detail: str, hint: str):
        super().__init__(detail or hint)
        self.detail = detail
        self.hint = hint


_IF_LINE = re.compile(r"(endif|elif|else|if)(?=[ \t\n\v\f\r]|\Z)", re.I | re.A)  # ASCII case only, as HTCondor


_IF_KEYWORD = {keyword: keyword for keyword in IF_KEYWORDS}


def if_keyword(text: str) -> tuple[str, str] | None:
    """``(keyword, rest)`` when the line is an if/elif/else/endif line, else None."""
    found = _IF_LINE.match(text)
    if found is None:
        return None
    # (the keyword constant itself, not a lower-cased copy: the reader keeps one per if-line read)
    return _IF_KEYWORD[found.group(1).lower()], text[found.end():].strip(_BLANKS)


def parse_statement(text: str) -> tuple[str, str, str, str, str]:
    """Split a non-if line into ``(kind, name, operator, value, options)``.

    ``name`` is the knob name as written (or the keyword for include/use/error/warning),
    ``options`` the words between it and the operator (the category of a ``use``, the
    options of an ``include``).  Raises :class:`StatementError` for a line HTCondor rejects.
    """
    simple = _SIMPLE_ASSIGN.match(text)
    if simple is not None:
        name, operator, value = simple.groups()
        # (`include : x` and the other keyword statements are read below; `@use`, `@include` too)
        if operator == "=" or name.lstrip("@").lower() not in KEYWORD_STATEMENTS:
            return ASSIGN, name, operator, value, ""
    length = len(text)
    index = 0
    while index < length and text[index] not in _BLANKS and text[index] not in "=:":
        index += 1
    name = text[:index]
    words = ""
    operator = None
    if index < length and text[index] in _BLANKS:
        while index < length and text[index] in _BLANKS:
            index += 1
        words_start = index
        while index < length and text[index] not in "=:@":
            index += 1
        words = text[words_start:index]
        if index < length and text[index] == "@":
            if index + 1 < length and text[index + 1] == "=":
                operator = "@="
                index += 2
            else:
                raise StatementError("", "a multi-line value is written `NAME @=tag` (no blank between @ and =)")
    if operator is None:
        if index >= length:
            if text.startswith("[") and not any(c in _BLANKS for c in text):
                return SECTION, "", "", "", ""
            raise StatementError("", "this line has no `=` or `:` operator; "
                                     "write `NAME = value`, or start it with # to make it a comment")
        operator = text[index]
        index += 1
    value = text[index:].lstrip(_BLANKS)
    stripped_words = words.strip(_BLANKS)
    keyword = name[1:] if name.startswith("@") and name[1:].lower() in ("include", "use") else name
    if operator == ":" and keyword.lower() in KEYWORD_STATEMENTS:
        return keyword.lower(), keyword, operator, value, stripped_words
    if "+" in words:
        if words == "+" and operator == "=":
            return APPEND, name, "+=", value, ""
        raise StatementError("", "an append is written `NAME += value` with blanks around `+=`")
    if operator == "@=":
        return HEREDOC, name, operator, value.strip(_BLANKS), stripped_words
    return ASSIGN, name, operator, value, stripped_words


def is_valid_name(name: str) -> bool:
    """HTCondor accepts knob names made of letters, digits, ``_``, ``.`` and ``/`` only."""
    return _VALID_NAME.fullmatch(name) is not None
