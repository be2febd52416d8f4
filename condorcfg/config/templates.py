"""HTCondor's configuration templates (``use CATEGORY : Name``) as data.

The templates live in the repository's top-level ``templates/`` directory (installed
as the package data ``condorcfg.templates``, see :mod:`condorcfg.resources`), one
file per category (``role.config``, ``feature.config``, ...).  Each template is
a heredoc assignment in ordinary config syntax::

    # what the template does
    Execute @=end
      DAEMON_LIST=$(DAEMON_LIST) STARTD
    @end

The body keeps its line structure (comment and blank lines included), so the
reader can give every statement of a template its real file and line:
body line ``i`` (0-based) is line ``Template.line + i`` of ``Template.file``.
The files are read lazily, once, on the first lookup.

Category and template names are matched case-insensitively, as HTCondor does;
an unknown name gives ``None`` (the reader turns that into HTCondor's
``use CAT: does not recognise NAME`` error).
"""
from __future__ import annotations

import os
import re

from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.resources import data_dir

# `Name @=tag` opening a template; the tag may be empty (closed by a bare `@`).
_HEADER = re.compile(r"^([A-Za-z0-9_.]+)\s+@=\s*(\S*)\s*$")


class Template:
    """One template: ``body`` is its text (newline-terminated lines), starting at 1-based ``line`` of ``file``.

    (Immutable by convention, compared and hashed by value; not a dataclass: start-up time.)
    """

    __slots__ = ("category", "name", "body", "file", "line")

    def __init__(self, category: str, name: str, body: str, file: str, line: int):
        self.category = category  # upper case, e.g. "ROLE"
        self.name = name  # spelling of the built-in table, e.g. "Execute"
        self.body = body
        self.file = file
        self.line = line

    def _key(self) -> tuple:
        return (self.category, self.name, self.body, self.file, self.line)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Template(category={self.category!r}, name={self.name!r}, body={self.body!r}, "
                f"file={self.file!r}, line={self.line!r})")

    @property
    def qualified_name(self) -> str:
        """``ROLE:Execute`` - the form used in provenance (Definition.template)."""
        return f"{self.category}:{self.name}"


# category (upper) -> its file's name; then category -> {name (upper) -> Template}, in file order,
# each file parsed when its category is first asked for (a configuration uses two or three)
_files: dict[str, str] | None = None
_parsed: dict[str, dict[str, Template]] = {}


def _category_files() -> dict[str, str]:
    global _files
    if _files is None:
        folder = data_dir("templates")
        _files = {entry[:-len(".config")].upper(): os.path.join(folder, entry)
                  for entry in sorted(n for n in os.listdir(folder) if n.endswith(".config"))}
    return _files


def _category(category: str) -> dict[str, Template]:
    """The templates of ``category`` (upper case); {} for an unknown category."""
    found = _parsed.get(category)
    if found is None:
        path = _category_files().get(category)
        if path is None:
            return {}
        found = _parsed[category] = {t.name.upper(): t for t in parse_template_file(path, category)}
    return found


def parse_template_file(path: "str | os.PathLike", category: str) -> list[Template]:
    """Split one category file into its templates (a small heredoc splitter).

    Only comments, blank lines and ``Name @=tag`` ... ``@tag`` blocks may appear
    outside templates; anything else means the data file is damaged.
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    lines = text.splitlines()
    found: list[Template] = []
    seen: set[str] = set()
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        header = _HEADER.match(stripped)
        if not header:
            raise CondorcfgError(error(
                f"template file: expected `Name @=tag` to start a template, found {stripped!r}; "
                f"the data file is damaged - restore it from the repository", str(path), index + 1))
        name, tag = header.group(1), header.group(2)
        if name.upper() in seen:
            raise CondorcfgError(error(f"template {category}:{name} is defined twice; keep one definition",
                                       str(path), index + 1))
        close = "@" + tag
        end = index + 1
        while end < len(lines) and lines[end].strip() != close:
            end += 1
        if end == len(lines):
            raise CondorcfgError(error(f"template {category}:{name} has no closing `{close}` line; add it",
                                       str(path), index + 1))
        # Every body line ends in a newline: HTCondor treats an unterminated last line specially.
        body = "".join(line + "\n" for line in _dedent(lines[index + 1:end]))
        found.append(Template(category, name, body, str(path), index + 2))
        seen.add(name.upper())
        index = end + 1
    return found


def _dedent(lines: list[str]) -> list[str]:
    """Remove the indentation common to the non-blank lines (HTCondor trims lines anyway)."""
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return [line[cut:].rstrip() for line in lines]


def categories() -> list[str]:
    """The template categories, upper case (ROLE, SECURITY, POLICY, FEATURE, ...)."""
    return list(_category_files())


def template_names(category: str) -> list[str]:
    """Names of the templates of ``category`` (any case), in file order; [] for an unknown category."""
    return [t.name for t in _category(category.strip().upper()).values()]


def find_template(category: str, name: str) -> Template | None:
    """The template ``category : name`` (both case-insensitive), or None if HTCondor has no such template."""
    return _category(category.strip().upper()).get(name.strip().upper())


# (compiled when used, through re's cache: only lint asks which templates assign a name)
_ASSIGNED = r"^[ \t]*([A-Za-z_][A-Za-z0-9_.]*)[ \t]*(?:\+?=|@=)"
_assigning: dict[str, list[str]] | None = None


def templates_assigning(name: str) -> list[str]:
    """``use`` lines (``POLICY : UWCS_Desktop``) of the templates that assign ``name``: where a macro a
    configuration refers to but never defines usually comes from (UWCS_START, ActivationTimer)."""
    global _assigning
    if _assigning is None:
        index: dict[str, list[str]] = {}
        for category in categories():
            for template_name in template_names(category):
                template = find_template(category, template_name)
                for found in re.finditer(_ASSIGNED, template.body if template else "", re.MULTILINE):
                    uses = index.setdefault(found.group(1).upper(), [])
                    use = f"{category} : {template.name}"
                    if use not in uses:
                        uses.append(use)
        _assigning = index
    return list(_assigning.get(name.upper(), []))
