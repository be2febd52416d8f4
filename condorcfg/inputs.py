"""Reading the small files a command is given besides the configuration.

Machine profiles (``--machine``), job ads (``match --job``) and the ads of
``eval --my/--target`` are read here, so each refuses the same unusable input
the same way the configuration reader does: a path that is not a regular file
(a directory, or a FIFO or device that could block forever), a file larger
than :data:`MAX_INPUT_SIZE`, a binary file (NUL bytes) and, where the format
requires it, text that is not UTF-8.  Every refusal is a
:class:`~condorcfg.diagnostics.CondorcfgError` whose diagnostic names the file
and the reason, with one of the reader's unusable-input codes.

YAML files (machine profiles, the project's ``.condorcfg.yaml``) come with the pull
request too, and YAML has two ways to cost far more than its size: a pure-Python
parser (ruamel.yaml reads about 150 KiB a second) and aliases, which repeat a
node without repeating its text (a "billion laughs" file of a few hundred bytes
holds 10**9 values).  :data:`MAX_YAML_SIZE` bounds the first;
:func:`check_expanded_size` refuses a document whose values, counted as often as
aliases repeat them, exceed :data:`MAX_YAML_VALUES`, or whose strings, each counted
every time an alias reaches it, exceed the document's own text by more than
:data:`MAX_ALIAS_CHARS` (ten thousand aliases of one case holding a 150 KB job ad are
a few values but 1.5 GB of text to parse), before anything walks it.
"""
from __future__ import annotations

import os
import stat
import sys

from condorcfg.diagnostics import CondorcfgError, error

def load_yaml(text: str, typ: str = "safe"):
    """``ruamel.yaml.YAML(typ=typ).load(text)`` without ruamel's warnings: a warning (a reused anchor, legal
    YAML) prints the file's text raw on stderr, where a pull request could put terminal escapes or CI
    workflow commands.  Parse errors are raised as ruamel raises them; the callers turn them into
    diagnostics with escaped text."""
    import warnings

    from ruamel.yaml import YAML

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return YAML(typ=typ).load(text)


MAX_INPUT_SIZE = 16 * 1024 * 1024  # the configuration reader's bound too
MAX_YAML_SIZE = 256 * 1024  # YAML text read at all (ruamel.yaml is pure Python: ~1.7 s for this much)
MAX_YAML_VALUES = 200_000  # values in a YAML or JSON document, each alias counted as what it repeats
MAX_ALIAS_CHARS = 1024 * 1024  # characters of strings aliases may add to a document's own text (a string
# counts its length each time it is reached): without aliases the strings never exceed the text
STDIN = "-"


def within(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or lies under it (both absolute, as they are: resolve links first to
    ask where a file really is)."""
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def read_text(path: str, what: str, utf8_only: bool = False) -> tuple[str, str]:
    """(text, name to show in diagnostics) of ``path``; ``-`` reads standard input.

    ``what`` names the input in messages ("machine profile", "job ad").  Text
    that is not UTF-8 is read as Latin-1, as HTCondor reads bytes, unless
    ``utf8_only`` (formats such as YAML and JSON that must be UTF-8).
    """
    if path == STDIN:
        data, shown = _read_stdin(), "<stdin>"
    else:
        data, shown = _read_file(path, what), path
    if len(data) > MAX_INPUT_SIZE:
        raise CondorcfgError(error(f"the {what} is larger than {MAX_INPUT_SIZE} bytes; it is refused", shown,
                                   code="file-too-large"))
    if b"\0" in data:
        raise CondorcfgError(error(f"the {what} is a binary file (it contains NUL bytes), not text", shown,
                                   code="binary-file"))
    return _decode(data, shown, what, utf8_only), shown


def _read_file(path: str, what: str) -> bytes:
    """The bytes of a regular file (bounded); anything else is refused before it is opened."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise CondorcfgError(error(f"cannot read the {what}: it is a directory, not a file", path,
                                       code="unreadable-file"))
        if not stat.S_ISREG(mode):
            raise CondorcfgError(error(f"cannot read the {what}: it is not a regular file (a device, pipe or "
                                       f"socket); reading it could block forever", path, code="unreadable-file"))
        with open(path, "rb") as handle:
            return handle.read(MAX_INPUT_SIZE + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = getattr(exc, "strerror", None) or str(exc)
        raise CondorcfgError(error(f"cannot read the {what}: {reason}", path, code="unreadable-file"))


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        return stream.read(MAX_INPUT_SIZE + 1)
    return sys.stdin.read(MAX_INPUT_SIZE + 1).encode("utf-8", "surrogateescape")  # a text stream (tests)


def _decode(data: bytes, shown: str, what: str, utf8_only: bool) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not utf8_only:
            return data.decode("latin-1")
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CondorcfgError(error(f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x})", shown, line,
                                   column, code="unreadable-file"))


def check_expanded_size(data, shown: str, what: str, code: str, limit: int = MAX_YAML_VALUES, *,
                        text_size: int) -> None:
    """Refuse ``data`` (a loaded YAML/JSON document) holding more than ``limit`` values, or more than
    ``text_size`` (the characters of its text) plus
    :data:`MAX_ALIAS_CHARS` characters of strings, once aliases are expanded; or a recursive
    structure (``&a [*a]``), before anything copies, parses or prints it.

    Shared nodes are counted once each, with their expanded size remembered, so this takes
    time in proportion to the document's own size, not to what its aliases would expand to.
    """
    char_limit = text_size + MAX_ALIAS_CHARS
    size = _expanded(data, limit, char_limit)
    if size is None:
        raise CondorcfgError(error(f"the {what} is recursive (a YAML alias inside the node it names); "
                                   f"it is refused", shown, code=code))
    values, chars = size
    if values > limit:
        raise CondorcfgError(error(f"the {what} holds more than {limit:,} values once its YAML aliases are "
                                   f"expanded (MAX_YAML_VALUES); it is refused", shown, code=code))
    if chars > char_limit:
        raise CondorcfgError(error(f"the {what} holds more than {char_limit:,} characters of text once its YAML "
                                   f"aliases are expanded (each alias counts what it repeats; aliases may add "
                                   f"MAX_ALIAS_CHARS, {MAX_ALIAS_CHARS:,}, to the file's own text); write the "
                                   f"repeated parts out, or split the file", shown, code=code))


def expanded_size(data, limit: int) -> int | None:
    """Values in ``data`` with every shared node counted each time it appears (stops past ``limit``).

    None for a structure that contains itself.  Iterative: deep nesting cannot overflow the stack.
    """
    size = _expanded(data, limit, float("inf"))
    return None if size is None else size[0]


def _expanded(data, limit: int, char_limit) -> tuple[int, int] | None:
    """(values, characters of strings) in ``data``, every shared node counted each time it appears;
    stops once either passes its limit; None for a structure that contains itself."""
    containers = (dict, list, tuple, set, frozenset)
    if not isinstance(data, containers):
        return 1, _chars(data)
    sizes: dict[int, tuple[int, int]] = {}
    open_: set[int] = set()  # containers whose parts are still being counted (a path from the root)
    stack = [(data, False)]
    while stack:
        node, counted = stack.pop()
        key = id(node)
        parts = _parts(node)
        if counted:
            values, chars = 1, 0
            for part in parts:
                part_values, part_chars = sizes[id(part)] if isinstance(part, containers) else (1, _chars(part))
                values += part_values
                chars += part_chars
            sizes[key] = values, chars
            open_.discard(key)
            if values > limit or chars > char_limit:
                return values, chars
            continue
        if key in sizes:
            continue
        if key in open_:
            return None
        open_.add(key)
        stack.append((node, True))
        for part in parts:
            if isinstance(part, containers):
                if id(part) in open_:
                    return None
                if id(part) not in sizes:
                    stack.append((part, False))
    return sizes[id(data)]


def _chars(value) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 0


def _parts(node) -> list:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    return list(node)


def syntax_error(exc: Exception, shown: str, what: str, kind: str, code: str) -> CondorcfgError:
    """One line naming where and why a YAML or JSON document does not parse (their errors differ in shape)."""
    mark = getattr(exc, "problem_mark", None)  # ruamel.yaml; json.JSONDecodeError has lineno/msg
    line = mark.line + 1 if mark is not None else getattr(exc, "lineno", 0)
    column = mark.column + 1 if mark is not None else getattr(exc, "colno", 1)
    reason = getattr(exc, "problem", None) or getattr(exc, "msg", None) or str(exc).strip() or type(exc).__name__
    reason = str(reason).splitlines()[0].split("; use sys.set_int_max_str_digits")[0]  # (advice for Python code)
    return CondorcfgError(error(f"{what} is not valid {kind}: {reason}", shown, line or 0, column or 1, code=code))


def load_document(path: str, what: str, code: str):
    """A small YAML or JSON document (``.json``: JSON), bounded like every input: its data, and the
    name to show; CondorcfgError (file, line, column) when it cannot be used."""
    import json

    text, shown = read_text(path, what, utf8_only=True)
    is_json = path.endswith(".json")
    if not is_json and len(text) > MAX_YAML_SIZE:  # ruamel.yaml is pure Python: bound what it parses
        raise CondorcfgError(error(f"the YAML {what} is larger than {MAX_YAML_SIZE} characters (MAX_YAML_SIZE); "
                                   f"write it as JSON", shown, code=code))
    try:
        data = json.loads(text) if is_json else load_yaml(text)
    except Exception as exc:  # any parse error is the user's (also RecursionError)
        raise syntax_error(exc, shown, what, "JSON" if is_json else "YAML", code) from None
    check_expanded_size(data, shown, what, code, text_size=len(text))
    return data, shown
