"""Command-line arguments: argparse's meaning, without argparse's start-up cost for the usual command line.

A command declares its arguments by calling ``add_argument`` (argparse's signature) on a
:class:`Declarations`, which only records the calls.  :func:`parse` then reads a command line
that uses declared options written out in full (``--config FILE``, ``--config=FILE``,
``--verbose``), their values and one run of positional arguments by itself, exactly as argparse
would.  Anything else goes to argparse, built from the same declarations: ``--help``, an
abbreviated or unknown option, ``--``, a value that starts with ``-`` (a negative number, an
option forgotten), a bad choice or number, a missing required argument, positionals on both
sides of an option, sub-commands.  argparse then gives its own help, errors and exit status 2.

Why: importing argparse (with gettext and locale) and building a parser cost every command
~8 ms, more than reading most configurations and a sizeable part of a pre-commit hook's run.
Both readings are compared on generated command lines by ``tests/test_arguments.py``.
"""
from __future__ import annotations

import os
import sys
from types import SimpleNamespace

_KINDS = {None: "store", "store": "store", "store_true": "store_true", "append": "append"}
_KEYWORDS = frozenset({"action", "nargs", "default", "type", "choices", "required", "help", "metavar", "dest"})
_POSITIONAL_NARGS = (None, "?", "*", "+")


class NeedsArgparse(Exception):
    """A declaration the short reading does not cover (a sub-command): the command uses argparse only."""


class _Argument:
    """One declared argument, as the short reading needs it."""

    __slots__ = ("dest", "kind", "nargs", "default", "type", "choices", "required", "positional")

    def __init__(self, names: tuple, keywords: dict):
        self.positional = not names[0].startswith("-")
        self.kind = _KINDS.get(keywords.get("action"))
        self.nargs = keywords.get("nargs")
        self.type = keywords.get("type")
        self.choices = keywords.get("choices")
        self.required = keywords.get("required", False)
        self.default = keywords.get("default", False if self.kind == "store_true" else None)
        if "dest" in keywords:
            self.dest = keywords["dest"]
        elif self.positional:
            self.dest = names[0]
        else:
            long = [name for name in names if name.startswith("--")]
            self.dest = (long[0] if long else names[0]).lstrip("-").replace("-", "_")

    def supported(self) -> bool:
        if self.kind is None or self.type not in (None, int):
            return False
        if self.positional:
            return self.kind == "store" and self.nargs in _POSITIONAL_NARGS and self.type is None \
                and self.choices is None
        return self.nargs is None

    def convert(self, text: str):
        """The value argparse stores for ``text``, or raise ValueError where argparse reports an error."""
        value = self.type(text) if self.type is not None else text
        if self.choices is not None and value not in self.choices:
            raise ValueError(text)
        return value


class Declarations:
    """Records ``add_argument`` calls; :func:`parse` reads a command line by them."""

    def __init__(self, prog: str, description: str):
        self.prog = prog
        self.description = description
        self.calls: list[tuple[tuple, dict]] = []
        self.options: dict[str, _Argument] = {}
        self.positionals: list[_Argument] = []
        self.arguments: list[_Argument] = []
        self.short_reading = True  # False: a declaration only argparse understands

    def add_argument(self, *names: str, **keywords) -> None:
        self.calls.append((names, keywords))
        argument = _Argument(names, keywords)
        if not set(keywords) <= _KEYWORDS or not argument.supported():
            self.short_reading = False
        self.arguments.append(argument)
        if argument.positional:
            self.positionals.append(argument)
        else:
            for name in names:
                self.options[name] = argument

    def add_subparsers(self, **keywords):
        raise NeedsArgparse()


def read(add_arguments, prog: str, description: str, argv: list[str]):
    """The arguments of a command whose ``add_arguments(parser)`` declares them, read from ``argv``;
    exits 0 or 2 as argparse does for help and errors."""
    declarations = Declarations(prog, description)
    try:
        add_arguments(declarations)
    except NeedsArgparse:  # (sub-commands)
        parser = argparse_parser(prog, description)
        add_arguments(parser)
        return parser.parse_args(argv)
    return parse(declarations, argv)


def parse(declarations: Declarations, argv: list[str]) -> SimpleNamespace:
    """The arguments argparse would give for ``argv``; exits 0 or 2 as argparse does for help and errors."""
    if declarations.short_reading:
        values = read_short(declarations, argv)
        if values is not None:
            return SimpleNamespace(**values)
    return argparse_parser(declarations.prog, declarations.description, declarations.calls).parse_args(argv)


def read_short(declarations: Declarations, argv: list[str]) -> dict | None:
    """The values argparse would give for ``argv``, or None when this reading leaves it to argparse."""
    values = {argument.dest: argument.default for argument in declarations.arguments}
    given = set()
    runs: list[list[str]] = []  # the runs of positional arguments between options
    run = None
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if not word.startswith("-") or word == "-":
            if run is None:
                run = []
                runs.append(run)
            run.append(word)
            continue
        run = None
        name, equals, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        argument = declarations.options.get(name)
        if argument is None:
            return None  # --help, --, an abbreviation, an unknown option, a negative number
        given.add(argument.dest)
        if argument.kind == "store_true":
            if equals:
                return None
            values[argument.dest] = True
            continue
        if equals:
            if inline == "--":
                return None  # argparse drops a "--" even there
            text = inline
        else:
            if index >= len(argv) or argv[index].startswith("-"):
                return None
            text = argv[index]
            index += 1
        try:
            value = argument.convert(text)
        except (TypeError, ValueError):
            return None
        if argument.kind == "append":
            values[argument.dest] = [*(values[argument.dest] or ()), value]
        else:
            values[argument.dest] = value
    if len(runs) > 1:
        return None
    if not _place_positionals(declarations.positionals, runs[0] if runs else [], values):
        return None
    for argument in declarations.arguments:
        if argument.required and argument.dest not in given:
            return None
        if argument.dest not in given and not argument.positional and isinstance(argument.default, str) \
                and argument.type is not None:
            try:  # argparse converts a string default as if it had been given
                values[argument.dest] = argument.type(argument.default)
            except (TypeError, ValueError):
                return None
    return values


def _place_positionals(positionals: list[_Argument], words: list[str], values: dict) -> bool:
    """Share ``words`` out as argparse does when they come in one run; False where this reading cannot."""
    if any(argument.nargs is not None for argument in positionals[:-1]):
        return False  # a variable one before the last: argparse's pattern matching decides
    last = positionals[-1] if positionals and positionals[-1].nargs is not None else None
    fixed = positionals[:-1] if last is not None else positionals
    if len(words) < len(fixed) or (last is None and len(words) > len(fixed)):
        return False
    for argument, word in zip(fixed, words):
        values[argument.dest] = word
    if last is not None:
        rest = words[len(fixed):]
        if last.nargs == "+" and not rest or last.nargs == "?" and len(rest) > 1:
            return False
        if last.nargs == "?":
            values[last.dest] = rest[0] if rest else last.default
        elif rest or last.default is None:
            values[last.dest] = rest
    return True


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (bz2, lzma and zlib come with it)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def argparse_parser(prog: str, description: str, calls=()):
    """An argparse parser for the command (its arguments declared by ``calls``, if given)."""
    import argparse  # only here: the short reading is what most command lines need

    class HelpFormatter(argparse.HelpFormatter):
        """argparse's help at the same width, found without shutil: argparse makes a formatter for every
        argument declared, and its own imports shutil."""

        def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
            super().__init__(prog, indent_increment, max_help_position,
                             terminal_columns() - 2 if width is None else width)

    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=HelpFormatter)
    for names, keywords in calls:
        parser.add_argument(*names, **keywords)
    return parser
