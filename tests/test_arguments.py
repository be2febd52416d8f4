"""The short reading of command lines (condorcfg.arguments) gives what argparse gives.

For every command, seeded generated command lines (declared options in full and abbreviated,
``--opt=value``, values that look like options, good and bad choices and numbers, positionals
before, between and after options, ``-h``, ``--``, unknown options) are read both ways: wherever
the short reading answers, argparse must answer the same; where argparse reports an error or
prints help, the short reading must have left the line to it.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import random

import pytest

from condorcfg import arguments
from condorcfg.cli import COMMANDS, main

SHORT_READ = sorted(name for name in COMMANDS if name != "qube")  # qube has sub-commands: argparse only
VALUES = ["x", "file.conf", "7", "-3", "0x1", "text", "json", "sarif", "-", "", "a=b", "--", "-v", "STARTD", "2.5"]


def _both(name: str):
    module = importlib.import_module(COMMANDS[name][0])
    declarations = arguments.Declarations(f"condorcfg {name}", "d")
    module.add_arguments(declarations)
    parser = arguments.argparse_parser(f"condorcfg {name}", "d")
    module.add_arguments(parser)
    return declarations, parser


def _usual_words(declarations, rng: random.Random) -> list[str]:
    """A well-formed line: options in full with fitting values, then the positionals."""
    words: list[str] = []
    for option, argument in sorted(declarations.options.items()):
        if rng.random() < 0.3 or argument.required:
            words.append(option)
            if argument.kind != "store_true":
                words.append(str(rng.choice(list(argument.choices))) if argument.choices
                             else str(rng.randint(0, 64)) if argument.type is int else rng.choice(["f.conf", "x"]))
    count = sum(1 for a in declarations.positionals if a.nargs in (None, "+")) + rng.randint(0, 2)
    positionals = [rng.choice(["A", "B", "START", "c.conf"]) for _ in range(count)]
    at = rng.choice([0, len(words)])  # before or after the options (between two of them is one run too)
    return words[:at] + positionals + words[at:]


def _wild_words(declarations, rng: random.Random) -> list[str]:
    options = sorted(declarations.options)
    words: list[str] = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        option = rng.choice(options) if options else "--x"
        if roll < 0.45:
            words.append(option)
            if declarations.options.get(option) and declarations.options[option].kind != "store_true" \
                    or rng.random() < 0.1:
                argument = declarations.options.get(option)
                choices = list(argument.choices) if argument is not None and argument.choices else []
                words.append(rng.choice(choices + VALUES) if choices and rng.random() < 0.7 else rng.choice(VALUES))
        elif roll < 0.55:
            words.append(f"{option}={rng.choice(VALUES)}")
        elif roll < 0.62:
            words.append(option[:max(3, len(option) - rng.randint(1, 4))])  # an abbreviation
        elif roll < 0.66:
            words.append(rng.choice(["-h", "--help", "--", "--nope", "-x"]))
        else:
            words.append(rng.choice(["A", "B", "START", "c.conf", "-1 + 2", "x y"]))
    return words


def _argparse(parser, words):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return vars(parser.parse_args(words))
        except SystemExit:
            return None


@pytest.mark.parametrize("name", SHORT_READ)
def test_the_short_reading_agrees_with_argparse(name):
    declarations, parser = _both(name)
    assert declarations.short_reading, name
    rng = random.Random(name)
    answered = 0
    for turn in range(2000):
        words = (_usual_words if turn % 2 else _wild_words)(declarations, rng)
        short = arguments.read_short(declarations, words)
        expected = _argparse(parser, words)
        if short is not None:
            answered += 1
            assert short == expected, words
    assert answered > 300  # the short reading does take the usual lines


def test_sub_commands_go_to_argparse():
    declarations = arguments.Declarations("condorcfg qube", "d")
    with pytest.raises(arguments.NeedsArgparse):
        importlib.import_module(COMMANDS["qube"][0]).add_arguments(declarations)


def test_help_and_errors_are_argparse_s(capsys):
    assert main(["value", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: condorcfg value") and "--machine PROFILE" in out
    assert main(["value", "--format", "yaml", "X"]) == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err
    assert main(["value", "--conf"]) == 2  # an abbreviation: argparse reads it (and wants its value)
    assert "expected one argument" in capsys.readouterr().err


def test_a_usual_value_command_imports_only_what_it_needs(tmp_path):
    import subprocess
    import sys

    config = tmp_path / "condor_config"
    config.write_text("A = 1\n")
    code = ("import sys; before = set(sys.modules); from condorcfg.cli import main; status = main(sys.argv[1:]); "
            "print(*(name in set(sys.modules) - before for name in ('argparse', 'shutil', 'contextlib', 'json', 'warnings', 'reprlib')))")
    out = subprocess.run([sys.executable, "-c", code, "value", "--config", str(config), "A"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["1", "False", "False", "False", "False", "False", "False"]
