"""Read configuration files the way HTCondor 25.14.1 does and build a :class:`Config`.

Order of work (config-language.md section 2):

1. detected host facts (``ARCH``, ``DETECTED_*``, ``SUBSYSTEM``, ``CONFIG_ROOT`` ...);
2. the main file(s), statement by statement: assignments (names expanded
   now, values kept raw with self references expanded), if-blocks, includes,
   ``use`` templates, ``error``/``warning``;
3. ``FULL_HOSTNAME``/``HOSTNAME`` (``NETWORK_HOSTNAME`` wins);
4. ``LOCAL_CONFIG_DIR``, ``LOCAL_CONFIG_FILE`` (re-read after each file),
   ``LOCAL_CONFIG_DIR`` again if it changed, ``USER_CONFIG_FILE``;
5. ``_CONDOR_*`` environment overrides;
6. the templates of true ``AUTO_USE_<CATEGORY>_<Name>`` knobs (configured or built-in, such as
   the schedd's ``AUTO_USE_FEATURE_PelicanRetryPolicy = $(IsSchedd)``), in name order;
7. the re-inserted special macros and the ``UID_DOMAIN``/``FILESYSTEM_DOMAIN``
   fallbacks.

Two ways of reading (``mode``): ``"host"`` reads any path the configuration names, as
HTCondor on this machine would (a file outside the given directories is noted);
``"repository"`` reads a configuration kept in a repository for another host: the environment
of the process is not used (``$ENV()`` is unset, no ``_CONDOR_*`` override applies), a path
outside the given directories (and the project, and ``sysroot``) is not read but reported, and a file
that would exist only on the target host (a missing ``LOCAL_CONFIG_FILE``, an absolute
include) is reported instead of ending the read.  A host view (:mod:`condorcfg.config.hostview`:
a role's ``sysroot``, ``mounts`` and ``removed``) maps absolute paths (``LOCAL_CONFIG_FILE``,
``LOCAL_CONFIG_DIR``, ``include``) onto the repository, so ``/etc/condor/config.d`` is read from
``<sysroot>/etc/condor/config.d`` or from the folders mounted there; a folder or optional file it
does not hold is reported (``not-in-repository``), since nothing of it is checked.

Configuration text is untrusted: commands (``include : cmd |``,
``include command :``, a ``LOCAL_CONFIG_FILE`` ending in ``|``) run only
with ``allow_exec=True``; otherwise they become ``command-include``
diagnostics and reading goes on.  Nesting of includes, if-blocks and
templates and the size of files are bounded, and so is the total work of one load: the
files read (again), the text parsed and the macro expansion done, shared by everything the
load reads (:mod:`condorcfg.config.limits`), so includes or templates that fan out end with
a ``budget-exceeded`` error naming the limit.  A configuration HTCondor rejects raises
:class:`CondorcfgError` pointing at the offending line.
"""
from __future__ import annotations

import os
import re
import stat
import time

from condorcfg.config import statements as st
from condorcfg.config.conditions import VERSION, ConditionError, evaluate_condition
from condorcfg.config.hostview import DEFAULT_ROOT_PATH, HostView, observed, root_path_in, shown_path
from condorcfg.config.host import (apply_environment, discover_config, host_definition, insert_hostnames,
                                   insert_special)
from condorcfg.config.limits import MAX_FILE_SIZE, BudgetExceeded
from condorcfg.config.model import Config, Definition
from condorcfg.config.source import LineTooLong, decode, iter_logical_lines
from condorcfg.config.template_args import substitute_arguments, use_items
from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location, Text, warning

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Mapping

MAX_INCLUDE_DEPTH = 20  # HTCondor: "includes nested too deep" at depth 20
MAX_IF_DEPTH = 63  # the 64th nested if is fatal in HTCondor
MAX_USE_DEPTH = 16  # nested `use` inside template bodies
TEMPLATE_CATEGORIES = ("ROLE", "SECURITY", "POLICY", "FEATURE", "EXPERIMENTAL", "UPGRADE")
MAX_NAMES_LISTED = 10  # an unknown template's message lists the category's names only up to this many
AUTO_USE_PREFIX = "AUTO_USE_"  # AUTO_USE_<CATEGORY>_<Name> = <condition> applies a template
COMMAND_TIMEOUT = 60  # seconds, for --allow-exec commands
DEFAULT_EXCLUDE_REGEXP = (r"^((\..*)|(.*\.pl)|(.*\.py)|(.*\.sh)|(.*~)|(#.*)|(.*\.rpmsave)|(.*\.rpmnew)"
                          r"|(.*\.dpkg-old)|(.*\.dpkg-dist)|(.*\.cfsaved))$")
_IF_INITIALS = frozenset("eEiI")
_KEYWORD_INITIALS = frozenset("eEiI:")  # a line starting otherwise is no if/elif/else/endif line
_BLANKS = " \t\n\v\f\r"
EXCLUDE_REGEXP_SECONDS = 1.0  # all LOCAL_CONFIG_DIR_EXCLUDE_REGEXP searches in one directory
# an innermost group followed by a repetition (its content is checked in Python: one regular
# expression for "a repetition inside" backtracked quadratically on a long pattern)
# (compiled when used, through re's cache: only a configured exclude pattern needs them)
_REPEATED_GROUP = r"\(((?:[^()\\]|\\.)*)\)[+*{]"
_ESCAPE = r"\\."


def _nested_quantifier(pattern: str) -> bool:
    """A group containing a repetition or an alternative, itself repeated: (a+)+ (a*)* (a|aa)+ ...
    (exponential backtracking on a crafted file name)."""
    for group in re.finditer(_REPEATED_GROUP, pattern):
        content = group.group(1)
        if "|" in content or any(char in re.sub(_ESCAPE, "", content) for char in "+*}"):
            return True
    return False


def _is_file(path: str | None) -> bool:
    return path is not None and os.path.isfile(path)


def _fatal(message: "str | Text", where: Location | None, code: str = "config-error", notes=None) -> CondorcfgError:
    diagnostic = Diagnostic("error", message, where, code=code, notes=list(notes or []))
    return CondorcfgError(diagnostic)


def _same_param_value(default: str | None, value: str) -> bool:
    """HTCondor's test for "this assignment just repeats the built-in default" (kept as the default text)."""
    if default is None:
        return False
    if default == value:
        return True
    return default.lower() == value.lower() and default.lower() in ("true", "false")


def _truthy(text: str | None, fallback: bool) -> bool:
    """HTCondor's boolean knob reading for the few knobs the reader itself uses (T/F initials accepted)."""
    if text is None:
        return fallback
    word = text.strip().lower()
    if not word:
        return fallback
    if word in ("true", "t", "yes", "1") or word.startswith("t"):
        return True
    if word in ("false", "f", "no", "0") or word.startswith("f"):
        return False
    return fallback


# condorcfg.gitside writes a git revision's files only as a load asks for them: when set, this callable
# is given every path a Reader is about to look at (file, directory or include), before it looks.
MODES = ("host", "repository")
# Reader errors about the input itself (not about what the configuration says): commands exit 2.
UNUSABLE_INPUT = frozenset({"unreadable-file", "file-too-large", "binary-file", "empty-directory", "missing-root",
                            "template-render"})


class Reader:
    """Reads sources into one Config.  One Reader per load()."""

    def __init__(self, config: Config, allow_exec: bool, templates, allowed_dirs: list[str], cwd: str,
                 mode: str = "host", host: HostView | None = None):
        self.config = config
        self.allow_exec = allow_exec
        self.templates = templates
        self.allowed_dirs = [os.path.realpath(d) for d in allowed_dirs]
        self.cwd = cwd
        self.repository = mode == "repository"
        self.host = host  # where the host's absolute paths come from (None: read them as they are)
        self.use_depth = 0
        self.release = ".".join(map(str, VERSION))  # the HTCondor release read as (load(release=...))
        self.version = VERSION
        self.place: tuple | None = None  # (file, line, column, end_line) being read (for a budget-exceeded error)
        # the `use` lines being applied, outermost first: (template "CAT:Name", use Location)
        self.use_chain: list[tuple[str, Location]] = []
        # what rendering the role's templates may still cost in this load (condorcfg.config.jinja): the steps of
        # work, and the template text compiled (Jinja2's compiler is not counted, so its input is bounded)
        self.render_steps_left: int | None = None
        self.template_bytes_left: int | None = None

    # --- sources ---------------------------------------------------------------------------

    def _map(self, path: str, given: bool = False) -> str | None:
        """The path to open for ``path``: an absolute one the configuration names as the host view has it
        (None: the deployment removes it); relative ones from cwd.  ``given`` paths (the command line's)
        are never mapped."""
        if os.path.isabs(path):
            full = self.host.locate(path) if self.host is not None and not given else path
            if full is None:
                return None
        else:
            full = os.path.join(self.cwd, path)
        return observed(full)

    def _mapped(self, path: str, given: bool = False) -> bool:
        """Whether the host view decides where ``path`` is read from."""
        return self.host is not None and not given and os.path.isabs(path) and self.host.covers(path)

    def _outside(self, full: str) -> bool:
        real = os.path.realpath(full)
        return bool(self.allowed_dirs) and not any(real == d or real.startswith(d.rstrip("/") + "/")
                                                   for d in self.allowed_dirs)

    def _not_read(self, path: str, where: Location | None, setting: str) -> None:
        """Repository mode: a path outside the configuration is reported, never read."""
        full = self._map(path) or path
        if os.path.islink(full) or os.path.realpath(os.path.dirname(full)) != os.path.dirname(os.path.abspath(full)):
            # a committed link counts as where it points; its target (maybe /etc/passwd) is not named
            self.config.diagnostics.append(Diagnostic(
                "warning", Text("not reading {path}: it is a symbolic link leading outside the configuration given",
                                path=Location(path)), where, code="outside-file",
                notes=["a linter reads only the files it was given; put the file itself in the repository instead "
                       "of a link to it"]))
            return
        hint = ("it is not under --sysroot either; add the file to the repository there"
                if self.host is not None and self.host.sysroot else
                "set `sysroot` (--sysroot DIR) to map absolute paths onto the repository, or pass the file explicitly")
        # the setting as written when it uses macros: host values (LOCAL_DIR is $(TILDE), the condor user's
        # home) are not known here, so the expanded path may not be the one the host reads
        stored = self.config.stored(setting) if setting in ("LOCAL_CONFIG_FILE", "LOCAL_CONFIG_DIR") else None
        written = (stored.raw or "").strip() if stored is not None and "$(" in (stored.raw or "") else ""
        shown = (Text("the file {setting} = `{written}` names (here {path})", setting=setting, written=written,
                      path=Location(path)) if written else
                 Text("{path} (named by {setting})", path=Location(path), setting=setting))
        self.config.diagnostics.append(Diagnostic(
            "warning", Text("not reading {shown}: it is outside the configuration given", shown=shown), where,
            code="outside-file", notes=[f"a linter reads only the files it was given; {hint}"]))

    def _missing_host_file(self, path: str, where: Location | None, setting: str) -> None:
        """Repository mode: a file only the target host would have is reported, and reading goes on."""
        self.config.diagnostics.append(Diagnostic(
            "error", Text("{setting} names {path}, which is not in the repository; HTCondor on the host stops "
                          "reading its configuration if the file is missing there", setting=setting,
                          path=Location(path)), where, code="missing-host-file",
            notes=[self._looked_at(path)]))

    def _looked_at(self, path: str):
        """Where a file the host has was looked for in the repository (a note)."""
        full = self._map(path)
        if full is None:
            return "the role's `removed` list deletes it from the host"
        if self._mapped(path) or not os.path.isabs(path):
            return Text("looked for it at {path}", path=Location(full))
        return "set `sysroot` (--sysroot DIR), or `mounts` of a role, if the repository keeps the host's files"

    def _not_in_repository(self, path: str, where: Location | None, setting: str, what: str) -> None:
        """Repository mode: a folder or optional file the host reads is not in the repository.  HTCondor
        reads nothing from it, which is fine on the host; but nothing of it is checked, which must be said."""
        self.config.diagnostics.append(Diagnostic(
            "info", Text("{setting} names {path}, which is not in the repository: nothing of that {what} is read "
                         "or checked", setting=setting, path=Location(path), what=what), where,
            code="not-in-repository", notes=[self._looked_at(path)]))

    def read_file(self, path: str, depth: int, where: Location | None = None, required: bool = True,
                  setting: str = "include", given: bool = False) -> bool:
        """Parse one file; False if it does not exist and is not required.  ``given``: named on the
        command line (never mapped, never outside)."""
        full = self._map(path, given)
        if full is None:  # the deployment removes it: as on a host without the file
            return self._absent(path, None, where, required, given, setting)
        # a given file is inside by construction (its folder is allowed) unless it is a link leading out:
        # a link committed in a config.d (or named by a hook) counts as where it points
        if self.repository and self._outside(full):
            if required or given:
                self._not_read(path, where or Location(path), setting)
            elif self.host is not None and os.path.isabs(path) and not self._mapped(path):
                # (a role's view says where the host's files come from, and none gives this one: say so, the
                # same on every machine; without a view an optional file outside is not reported, as the
                # report must not depend on this machine)
                self._not_in_repository(path, where or Location(path), setting, "file")
            return True
        if "\0" not in full and os.path.isdir(full):
            return True  # HTCondor accepts a directory as an include and reads nothing
        try:
            status = os.stat(full)
            mode = status.st_mode
            if not stat.S_ISREG(mode):
                raise _fatal(Text("{path} is not a regular file (a device, pipe or socket); reading it could block "
                                  "forever, so it is refused", path=Location(path)), where or Location(path),
                             code="unreadable-file")
            with open(full, "rb") as handle:
                data = handle.read(MAX_FILE_SIZE + 1)  # bounded even for /dev/zero
            if len(data) > MAX_FILE_SIZE:
                raise _fatal(Text("{path} is larger than {limit} bytes; such a configuration file is refused",
                                  path=Location(path), limit=MAX_FILE_SIZE), where or Location(path),
                             code="file-too-large")
            if b"\0" in data:
                raise _fatal(Text("{path} is a binary file (it contains NUL bytes), not configuration text; remove "
                                  "it or exclude it (LOCAL_CONFIG_DIR_EXCLUDE_REGEXP)", path=Location(path)),
                             where or Location(path),
                             code="binary-file")
        except FileNotFoundError:
            return self._absent(path, full, where, required, given, setting)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            if not required:
                return False
            reason = getattr(exc, "strerror", None) or str(exc)
            raise _fatal(f"cannot read {path!r}: {reason}", where or Location(path), code="unreadable-file")
        if self._outside(full):
            self.config.diagnostics.append(Diagnostic(
                "warning", Text("reading {path}, which is outside the directories of the configuration given",
                                path=Location(path)),
                where, code="outside-file",
                notes=["the result depends on this machine's files; pass the file explicitly to check it too"]))
        self.config.budget.read(len(data), (status.st_dev, status.st_ino), where or Location(path))
        shown = shown_path(full, self.cwd) if self._mapped(path, given) else path  # the file read
        if self.host is not None and self.host.labels:
            shown = self.host.labels.get(full, shown)
        self.config.files.append(shown)
        text, line_map = decode(data), None
        if self.host is not None and self.host.renders(full):
            text, line_map = self._render(text, shown, where or Location(path))
        self.read_text(text, shown, depth, line_map=line_map)
        return True

    def _render(self, text: str, shown: str, where: Location):
        """A role's template rendered with its variables, from what this load may still spend on templates:
        every rendered byte is text read (MAX_TEXT_BYTES), and all templates share one step budget and one
        allowance of template text."""
        from condorcfg.config import jinja  # (only a role's *.j2 files need Jinja2)

        if self.render_steps_left is None:
            self.render_steps_left, self.template_bytes_left = jinja.MAX_RENDER_STEPS, jinja.MAX_TEMPLATE_BYTES
        self.template_bytes_left -= len(text)
        if self.template_bytes_left < 0:
            raise _fatal(Text("the role's templates amount to more than {limit} characters, more than condorcfg "
                              "renders for one configuration; render them with your own tool and lint the output",
                              limit=jinja.MAX_TEMPLATE_BYTES), Location(shown), code="template-render")
        rendered, line_map, steps = jinja.render_lines(text, self.host.variables, shown, self.render_steps_left)
        self.render_steps_left -= steps
        self.config.budget.read(len(rendered), None, where, is_file=False)
        return rendered, line_map

    def _absent(self, path: str, full: str | None, where: Location | None, required: bool, given: bool,
                setting: str) -> bool:
        """A file that is not there (``full`` None: the deployment removes it): False when that is fine."""
        if full is not None:
            self.config.places_looked.append(full)
        if not required:
            # (an optional file outside the configuration is not reported: the report must not depend on this
            # machine; one the repository would hold is)
            # (one the role's `removed` deletes is not there on the host either: nothing to say)
            if self.repository and not given and full is not None and (self._mapped(path) or not self._outside(full)):
                self._not_in_repository(path, where or Location(path), setting, "file")
            return False
        if given:
            raise _fatal(Text("cannot read {path}: no such file; check the path given", path=Location(path)),
                         Location(path), code="missing-root")
        if self.repository:
            self._missing_host_file(path, where, setting)
            return True
        hint = "create it or use `include ifexist :`" if where else "check the path given"
        raise _fatal(Text("cannot open {path}: no such file; {hint}", path=Location(path), hint=hint),
                     where or Location(path), code="missing-file")

    def read_command(self, command: str, depth: int, where: Location | None, cache: str | None = None) -> None:
        """Run a configuration command (only with allow_exec) and parse its output."""
        if cache:
            cache_path = cache if os.path.isabs(cache) else os.path.join(self.cwd, cache)
            if os.path.exists(cache_path):
                self.read_file(cache, depth, where)
                return
        if not self.allow_exec:
            self.config.diagnostics.append(Diagnostic(
                "warning", f"not running configuration command `{command}`; its output is not included",
                where, code="command-include",
                notes=["pass --allow-exec (allow_exec=True) to run commands named by the configuration"]))
            return
        import subprocess  # only with allow_exec: keeps start-up fast

        argv = command.split()
        if not argv:
            raise _fatal("an include command is empty; name a program to run", where, code="bad-command")
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=COMMAND_TIMEOUT, cwd=self.cwd, check=False)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            raise _fatal(f"cannot run configuration command `{command}`: {exc}", where, code="bad-command")
        output = proc.stdout[:MAX_FILE_SIZE]
        self.config.budget.read(len(output), None, where)
        self.config.files.append(command + " |")
        if cache:
            try:
                with open(cache_path, "wb") as handle:
                    handle.write(output)
            except OSError as exc:
                self.config.diagnostics.append(warning(f"cannot write the include cache {cache}: {exc.strerror}",
                                                       where.file if where else None, where.line if where else 0))
        self.read_text(decode(output), command + " |", depth)

    # --- statements ------------------------------------------------------------------------

    def read_text(self, text: str, file: str, depth: int, first_line: int = 1, template: str | None = None,
                  use_location: Location | None = None, line_map: list[int] | None = None) -> None:
        """Read configuration text; ``line_map``: the line of ``file`` each line of ``text`` comes from (a
        rendered template's), so every place points into the file the user wrote."""
        lines = iter_logical_lines(text, first_line)
        if line_map:
            last = len(line_map)
            lines = ((logical, line_map[min(line, last) - 1], line_map[min(end, last) - 1], column, strict)
                     for logical, line, end, column, strict in lines)
        try:
            self._read_lines(lines, file, depth, template, use_location)
        except LineTooLong as exc:
            raise _fatal("a logical line is longer than the limit; check for a runaway `\\` continuation",
                         Location(file, exc.line), code="line-too-long")
        except BudgetExceeded as exc:
            if exc.diagnostic.location is None:  # an expansion ran out: point at the line that did it
                exc.diagnostic.location = Location(*self.place) if self.place else None
            raise

    def _read_lines(self, lines, file: str, depth: int, template: str | None, use_location: Location | None) -> None:
        """Read the statements of ``lines`` (an iterator of logical lines: each is read before the next is made).

        Each line's place is kept as ``(file, line, column, end_line)``, a Location made of it only
        where one is needed (a statement other than an assignment or if-line, an error), and its
        statement as a record (:func:`condorcfg.config.statements.from_record`): both are made for
        every line of every file and template read.
        """
        ifs: list[list] = []  # [parent_active, taking, done, seen_else, place]
        active = True  # all enclosing branches are taken
        context = (template, use_location, tuple(self.use_chain) if template else ())
        cfg = self.config
        budget = cfg.budget
        records = cfg.statement_records
        if_keyword, parse_statement = st.if_keyword, st.parse_statement
        plain_assign, store = st.PLAIN_ASSIGN.match, self._store
        for line_text, line_number, end_line, column, strict in lines:
            place = self.place = (file, line_number, column, end_line)
            budget.statement(None)  # (read_text points a spent budget at self.place)
            first = line_text[0]
            if active and first not in _KEYWORD_INITIALS:
                plain = plain_assign(line_text)
                if plain is not None:  # NAME = value: the short cut (statements.PLAIN_ASSIGN)
                    name, value = plain.groups()
                    records.append((st.ASSIGN, place, line_text, name, "=", value, "", context, True))
                    store(name, value, "=", place, line_text, context)
                    continue
            text_ = line_text
            if first == ":":
                rest = text_[1:].lstrip(_BLANKS)
                keyword = if_keyword(rest)
                if ifs or (keyword and keyword[0] == "if"):
                    text_ = rest
                    first = text_[:1]
            # (only a line starting with i/e can be an if/elif/else/endif line: skip the call otherwise)
            keyword = if_keyword(text_) if first in _IF_INITIALS else None
            if keyword:
                word, condition = keyword
                # an elif/else/endif line belongs to the context around its block, like the `if` line
                context_active = active if word == "if" or not ifs else ifs[-1][0]
                records.append((word, place, line_text, None, None, condition, "", context, context_active))
                self._if_line(word, condition, ifs, active, place)
                # (a branch is taken only inside taken branches: the innermost decides)
                active = ifs[-1][1] if ifs else True
                continue
            if not active:
                records.append(("skipped", place, text_, None, None, None, "", context, False))
                continue
            try:
                kind, name, operator, value, options = parse_statement(text_)
            except st.StatementError as exc:
                raise _fatal(f"HTCondor rejects this line: {exc.hint}", Location(*place), code="syntax")
            if kind == st.HEREDOC:
                value = self._collect_heredoc(lines, value, Location(*place))
                name = self._assign(name, value, "@=", place, text_, context)
            elif kind in (st.ASSIGN, st.APPEND):
                if operator == ":" and strict:
                    raise _fatal(f"obsolete use of ':' for assignment of {name} after #opt:strict; "
                                 f"write `{name} = ...`", Location(*place), code="colon-assignment")
                name = self._assign(name, value, operator, place, text_, context)
            records.append((kind, place, text_, name, operator, value, options, context, True))
            if kind == st.INCLUDE:
                self._include(options, value, depth, Location(*place))
            elif kind == st.USE:
                self._use(options, value, depth, Location(*place))
            elif kind in (st.ERROR, st.WARNING):
                self._message(kind, value, Location(*place), text_, context)
        if ifs:
            raise _fatal("this `if` has no matching `endif` before the end of the file "
                         "(an if-block must be closed in the file that opens it)", Location(*ifs[-1][4]),
                         code="unclosed-if")

    def _collect_heredoc(self, lines, tag: str, where: Location) -> str:
        """The body of a ``NAME @=tag`` value: the lines up to ``@tag``, taken from the ``lines`` iterator."""
        close = "@" + tag
        body = []
        budget = self.config.budget
        for text_, *_ in lines:
            budget.statement(where)
            # (exactly: lines come trimmed, except a last line without a newline, which HTCondor
            # keeps raw - there "  @end" is no closing tag and the file ends inside the value)
            if text_ == close:
                return "\n".join(body)
            body.append(text_)
        raise _fatal(f"the multi-line value started here is never closed: add a line `{close}`", where,
                     code="unclosed-heredoc")

    def _if_line(self, word: str, condition: str, ifs: list, active: bool, place: tuple) -> None:
        if word == "if":
            if len(ifs) >= MAX_IF_DEPTH:
                raise _fatal(f"if-blocks are nested more than {MAX_IF_DEPTH} deep (HTCondor: if nesting too deep!)",
                             Location(*place), code="if-depth")
            taking = self._condition(condition, "if", place) if active else False
            ifs.append([active, taking, taking, False, place])
        elif word == "elif":
            if not ifs:
                raise _fatal("`elif` without a matching `if`", Location(*place), code="if-structure")
            top = ifs[-1]
            if top[3]:
                raise _fatal("`elif` after `else` is not allowed; move it before the `else`", Location(*place),
                             code="if-structure")
            if top[0] and not top[2]:
                top[1] = self._condition(condition, "elif", place)
                top[2] = top[1]
            else:
                top[1] = False
        elif word == "else":
            if not ifs:
                raise _fatal("`else` without a matching `if`", Location(*place), code="if-structure")
            top = ifs[-1]
            if top[3]:
                raise _fatal("a second `else` in the same if-block is not allowed", Location(*place),
                             code="if-structure")
            top[1] = top[0] and not top[2]
            top[2] = True
            top[3] = True
        else:  # endif
            if not ifs:
                raise _fatal("`endif` without a matching `if`", Location(*place), code="if-structure")
            ifs.pop()

    def _condition(self, condition: str, keyword: str, place: tuple) -> bool:
        cfg = self.config
        try:
            return evaluate_condition(condition, cfg.expand, cfg.is_defined, self._template_exists, self.version)
        except ConditionError as exc:
            raise _fatal(f"`{condition}` is not a valid {keyword} condition because {exc.reason}; HTCondor "
                         f"accepts only numbers, true/false/yes/no, `defined NAME`, `version OP X.Y.Z` "
                         f"and `$(...)` expanding to one of those", Location(*place), code="bad-condition")
        except CondorcfgError as exc:
            if exc.diagnostic.location is None:  # (a limit met expanding the condition: point at its line)
                exc.diagnostic.location = Location(*place)
            raise

    def _template_exists(self, category: str, name: str | None) -> bool:
        names = self.templates.template_names(category)
        if name is None:
            return bool(names)
        return self.templates.find_template(category, name) is not None

    def _assign(self, name_text: str, value: str, operator: str, place: tuple, text: str, context: tuple) -> str:
        """Define the knob ``name_text`` names (macros in it expanded, then checked); returns the name."""
        cfg = self.config
        # names are expanded now - except in template bodies, where `$(` makes the name invalid
        name = cfg.expand(name_text) if "$" in name_text and not context[0] else name_text
        if not st.is_valid_name(name):
            shown = f"{name_text!r} expands to {name!r}" if name != name_text else repr(name)
            raise _fatal(f"illegal knob name {shown}; knob names may only contain letters, digits, '_', '.' "
                         f"and '/'", Location(*place), code="illegal-name")
        if operator == ":" and name.lower() != "runbenchmarks":
            cfg.diagnostics.append(Diagnostic(
                "warning", f"obsolete use of ':' for assignment of {name}; write `{name} = ...`", Location(*place),
                code="colon-assignment"))
        self._store(name, value, operator, place, text, context)
        return name

    def _store(self, name: str, value: str, operator: str, place: tuple, text: str, context: tuple) -> None:
        """Define the valid knob name ``name`` as ``value`` (the assignment's value text)."""
        cfg = self.config
        key = name.upper()
        if key == name:
            key = name  # the same string: the tables then hold no second copy of an upper-case name
        existing = cfg.stored_key(key)
        if existing is not None and existing.matches_default and "." not in key:
            existing = None  # HTCondor never stored that one (it repeated the default)
        if operator == "+=":
            old = existing.raw if existing is not None else cfg.defaults.get(key)
            value = f"{old} {value}" if old else value
        raw = cfg.expand_self(name, value, place) if "$" in value else value
        matches_default = False
        if existing is None:
            # HTCondor stores the built-in text when a new value just repeats the default (TRUE -> true);
            # for PREFIX.KNOB the default of KNOB counts.
            default = cfg.defaults.get(key.split(".", 1)[-1] if "." in key else key)
            if default is not None and _same_param_value(default, raw):
                raw, matches_default = default, True
        template, use_location, chain = context
        cfg.define(Definition(name, raw, place, "template" if template else "file", template, use_location, None,
                              text, matches_default, chain), key)

    def _include(self, options: str, target_text: str, depth: int, where: Location) -> None:
        ifexist = command = False
        cache = None
        words = options.split()
        unknown = []
        position = 0
        while position < len(words):
            word = words[position].lower()
            if word in ("ifexist", "ifexists"):
                ifexist = True
            elif word in ("command", "output"):
                command = True
            elif word == "into" and position + 1 < len(words):
                position += 1
                cache = self.config.expand(words[position])
            else:
                unknown.append(words[position])
            position += 1
        if unknown:
            raise _fatal(f"unexpected word(s) {' '.join(unknown)!r} after include; the options are "
                         f"ifexist, command and into FILE", where, code="bad-include")
        target = self.config.expand(target_text).strip(_BLANKS)
        if target.endswith("|"):
            command = True
            target = target[:-1].rstrip(_BLANKS)
        if depth + 1 >= MAX_INCLUDE_DEPTH:
            raise _fatal(f"includes are nested {MAX_INCLUDE_DEPTH} deep (an include loop?); HTCondor stops with "
                         f"`includes nested too deep`", where, code="include-depth")
        if command:
            self.read_command(target, depth + 1, where, cache)
            return
        if not target:
            raise _fatal("include of an empty file name (did a macro expand to nothing?)", where,
                         code="missing-file")
        if not self.read_file(target, depth + 1, where, required=not ifexist):
            return

    def _use(self, category_text: str, items_text: str, depth: int, where: Location) -> None:
        category = self.config.expand(category_text).strip(_BLANKS) if category_text else ""
        if not category:
            raise _fatal(f"`use` needs a category before the colon, e.g. `use ROLE : {items_text.strip()}`",
                         where, code="bad-use")
        for name, args in use_items(items_text):
            template = self.templates.find_template(category, name)
            if template is None:
                raise self._unknown_template(category, name, where)
            self._apply_template(template, args, depth, where)

    def _unknown_template(self, category: str, name: str, where: Location) -> CondorcfgError:
        import difflib  # only on this error path

        known = self.templates.template_names(category)
        if not known:
            close = difflib.get_close_matches(category.upper(), TEMPLATE_CATEGORIES, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else f"the categories are {', '.join(TEMPLATE_CATEGORIES)}"
            return _fatal(f"unknown template category {category!r} in `use {category}:{name}`; {hint}", where,
                          code="unknown-template")
        by_lower = {known_name.lower(): known_name for known_name in known}
        close = [by_lower[n] for n in difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6)]
        if close:
            hint = f"did you mean {' or '.join(close)}?"
        elif len(known) <= MAX_NAMES_LISTED:
            hint = f"the {category.upper()} templates are {', '.join(known)}"
        else:  # a long list would bury the message
            hint = f"none of the {len(known)} {category.upper()} templates has a similar name; check the spelling"
        return _fatal(f"use {category.upper()}: there is no template {name!r} in HTCondor {self.release}; {hint}",
                      where, code="unknown-template")

    def _apply_template(self, template, args: str | None, depth: int, where: Location,
                        auto_use_knob: str | None = None) -> None:
        """Read a template body as if its text stood at ``where`` (a `use` line or an AUTO_USE knob).

        For an AUTO_USE knob an error inside the body is reported and ends only this template
        (what HTCondor does); after a `use` line it ends the load.
        """
        if self.use_depth >= MAX_USE_DEPTH:
            raise _fatal("templates are nested too deep (a template that uses itself?)", where, code="use-depth")
        body = substitute_arguments(template.body, args)
        qualified = f"{template.category}:{template.name}"
        self.config.budget.read(len(body), ("template", qualified), where, is_file=False)
        outermost = self.use_chain[0][1] if self.use_chain else where
        self.use_depth += 1
        self.use_chain.append((qualified, where))
        try:
            self.read_text(body, template.file, depth, template.line, template=qualified, use_location=outermost)
        except CondorcfgError as exc:
            inner = exc.diagnostic
            if auto_use_knob is not None:
                own = getattr(exc, "error_text", None)  # the text of an `error :` line
                problem = (f"template {qualified} stops with its own error: {own}" if own is not None
                           else f"template {qualified} is rejected: {inner.message}")
                self.config.diagnostics.append(Diagnostic(
                    "error", f"{auto_use_knob}: {problem}; HTCondor stops applying this template "
                             f"there and goes on", where, code="auto-use",
                    notes=([Text("at {where}", where=inner.location)] if inner.location else []) + list(inner.notes)))
                return
            if inner.location is not None and inner.location.file == where.file:
                raise
            notes = [Text("in template {template} at {where}", template=qualified, where=inner.location)] \
                if inner.location else []
            raise _fatal(f"use {qualified}{'(' + args + ')' if args is not None else ''}: {inner.message}",
                         where, code=inner.code, notes=notes + inner.notes) from None
        finally:
            self.use_depth -= 1
            self.use_chain.pop()

    # --- AUTO_USE_<CATEGORY>_<Name> ----------------------------------------------------------

    def apply_auto_use(self) -> None:
        """Apply the templates named by true ``AUTO_USE_<CAT>_<Name>`` knobs, after every other source.

        As HTCondor 25.14.1 does: bare names only (``TOOL.AUTO_USE_X`` is not one, but the value is
        looked up with the usual prefixes), configured and built-in ones, in name order; the value
        is judged like an ``if`` condition.  Problems are reported and skipped, never fatal.
        """
        cfg = self.config
        names: dict[str, str] = {}  # upper name -> spelling
        for key in cfg.keys():
            if key.startswith(AUTO_USE_PREFIX) and "." not in key:
                names.setdefault(key, cfg.history(key)[0].name)
        for table in (cfg.defaults, cfg.subsystem_defaults):
            for key in table:
                if key.startswith(AUTO_USE_PREFIX) and "." not in key:
                    names.setdefault(key, key)
        for key in sorted(names, key=str.lower):  # HTCondor compares case-blind in lower case: "_" < "a"
            self._auto_use(names[key])

    def _auto_use(self, knob: str) -> None:
        cfg = self.config
        category, _, name = knob[len(AUTO_USE_PREFIX):].partition("_")
        if not category or not name:
            return  # HTCondor ignores AUTO_USE_ROLE and AUTO_USE_ROLE_ silently
        definition = cfg.source(knob)
        where = definition.location if definition is not None else Location("<built-in default>")
        prefix = f"Configuration error while interpreting {knob} : "
        raw = cfg.lookup(knob)
        if not raw or not raw.strip(_BLANKS):
            return
        try:
            wanted = evaluate_condition(raw, cfg.expand, cfg.is_defined, self._template_exists, self.version)
        except ConditionError as exc:
            self._auto_use_problem(prefix + exc.reason, where, "the value must be true/false, yes/no, a number, "
                                   "`defined NAME` or a $(...) expanding to one of those")
            return
        except CondorcfgError as exc:
            self._auto_use_problem(prefix + exc.diagnostic.message, where, None)
            return
        if not wanted:
            return
        template = self.templates.find_template(category, name)
        if template is None:
            self._auto_use_problem(f"{prefix}no template named {category}:{name}", where,
                                   self._unknown_template(category, name, where).diagnostic.message)
            return
        self._apply_template(template, None, 0, where, auto_use_knob=knob)

    def _auto_use_problem(self, message: str, where: Location, note: str | None) -> None:
        self.config.diagnostics.append(Diagnostic(
            "error", f"{message}; HTCondor ignores this knob and goes on", where, code="auto-use",
            notes=[note] if note else []))

    def _message(self, kind: str, text: str, where: Location, line_text: str, context: tuple) -> None:
        cfg = self.config
        message = cfg.expand(text)
        if kind == st.ERROR:
            stop = _fatal(f"the configuration stops here with its own error: {message}", where,
                          code="error-statement")
            stop.error_text = message  # an AUTO_USE template reports just this text
            raise stop
        cfg.diagnostics.append(Diagnostic("warning", message, where, code="warning-statement"))
        template, use_location, chain = context
        if template:  # HTCondor quirk: a template's `warning :` also defines the knob `warning`
            cfg.define(Definition("warning", message, where, origin="template", template=template,
                                  use_location=use_location, text=line_text, template_chain=chain))

    # --- local config files ----------------------------------------------------------------

    def read_local_config(self) -> None:
        cfg = self.config
        dirs = cfg.value("LOCAL_CONFIG_DIR") or ""
        self._read_local_dirs(dirs)
        files_value = cfg.value("LOCAL_CONFIG_FILE") or ""
        done: set[str] = set()
        todo = self._local_files(files_value)
        while todo:
            entry = todo.pop(0)
            where = self._knob_location("LOCAL_CONFIG_FILE")
            required = _truthy(cfg.value("REQUIRE_LOCAL_CONFIG_FILE"), True)
            if entry.endswith("|"):
                self.read_command(entry[:-1].strip(_BLANKS), 0, where)
            elif self.repository:  # a missing required file is a finding there, never the end of the read
                self.read_file(entry, 0, where, required=required, setting="LOCAL_CONFIG_FILE")
            elif not self.read_file(entry, 0, where, required=False, setting="LOCAL_CONFIG_FILE"):
                if required:
                    raise _fatal(f"LOCAL_CONFIG_FILE names {entry}, which does not exist; create it or set "
                                 f"REQUIRE_LOCAL_CONFIG_FILE = false", where, code="missing-local-config")
            done.add(entry)
            new_value = cfg.value("LOCAL_CONFIG_FILE") or ""
            if new_value != files_value:
                files_value = new_value
                todo = [f for f in self._local_files(new_value) if f not in done]
        new_dirs = cfg.value("LOCAL_CONFIG_DIR") or ""
        if new_dirs != dirs:
            self._read_local_dirs(new_dirs)

    def _knob_location(self, name: str) -> Location | None:
        definition = self.config.stored(name)
        return definition.location if definition else None

    @staticmethod
    def _local_files(value: str) -> list[str]:
        value = value.strip(_BLANKS)
        if value.endswith("|"):
            return [value]
        return [f for f in re.split(r"[,\s]+", value) if f]

    def _read_local_dirs(self, value: str) -> None:
        for directory in [d for d in re.split(r"[,\s]+", value) if d]:
            self.read_directory(directory, self._knob_location("LOCAL_CONFIG_DIR"))

    def read_directory(self, directory: str, where: Location | None, given: bool = False) -> None:
        """Read a config.d directory: regular files, sorted bytewise, minus the exclude regexp.

        ``given``: the directory was named on the command line, so one holding no configuration
        file is a mistake (a typo, an empty checkout), not HTCondor's silently empty config.d.
        """
        full = self._map(directory, given)
        mapped = self._mapped(directory, given)
        if full is not None and not mapped and self.repository and (not given or os.path.islink(directory)) \
                and self._outside(full):  # (a folder named on the command line that is a link leading out too)
            self._not_read(directory, where or Location(directory), "LOCAL_CONFIG_DIR")
            return
        if mapped:
            sources = self.host.sources(directory)
            self.config.places_looked += sources
            # a folder the view assembles from one that is (or sits in) a link leading out of the configuration
            # is not listed: its file names are not the repository's to show
            leading_out = [s for s in sources if self.repository and os.path.isdir(s) and self._outside(s)]
            if leading_out:
                self._not_read(directory, where or Location(directory), "LOCAL_CONFIG_DIR")
            names = self.host.listing(directory, skip=leading_out)
        else:
            self.config.places_looked.append(full)
            try:
                names = os.listdir(full)
            except (OSError, ValueError):
                names = None
        if names is None:  # HTCondor ignores a missing folder; a linter that read nothing says so
            if self.repository and not given:
                self._not_in_repository(directory, where, "LOCAL_CONFIG_DIR", "folder")
            return
        paths = [os.path.join(directory, name) for name in self._kept(names, directory, full, mapped)]
        if given and not paths:
            raise _fatal(Text("{directory} holds no configuration file to read; check the path",
                              directory=Location(directory)), Location(directory),
                         code="empty-directory")
        for path in sorted(paths, key=lambda p: os.fsencode(p)):
            self.read_file(path, 0, where, setting="LOCAL_CONFIG_DIR", given=given)

    def _kept(self, names: list[str], directory: str, full: str | None, mapped: bool) -> list[str]:
        """The regular files of ``names`` (in ``directory``) LOCAL_CONFIG_DIR_EXCLUDE_REGEXP keeps.

        The pattern comes from the configuration, so matching is bounded: a pattern with a nested
        repetition is not run, and all searches in one directory share EXCLUDE_REGEXP_SECONDS
        (``a*a*a*a*a*a*b`` is polynomial, not nested); past it HTCondor's default exclusions apply.
        """
        files = [name for name in names
                 if _is_file(self._map(os.path.join(directory, name)) if mapped else os.path.join(full, name))]
        pattern = self._exclude_pattern()
        if pattern is None:
            return files
        if isinstance(pattern, re.Pattern):  # HTCondor's default: known to match in linear time
            return [name for name in files if not pattern.search(name[:1024])]
        deadline = time.monotonic() + EXCLUDE_REGEXP_SECONDS
        try:
            return [name for name in files
                    if not pattern.search(name[:1024], timeout=max(deadline - time.monotonic(), 0.001))]
        except TimeoutError:
            self._unsafe_regexp(f"takes more than {EXCLUDE_REGEXP_SECONDS:g} s to match this directory's file names")
            default = re.compile(DEFAULT_EXCLUDE_REGEXP)
            return [name for name in files if not default.search(name[:1024])]

    def _exclude_pattern(self):
        """LOCAL_CONFIG_DIR_EXCLUDE_REGEXP compiled, or None: HTCondor's default by ``re``, any other by
        ``regex`` (imported only then), whose searches take a timeout."""
        pattern_text = self.config.value("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")
        if pattern_text and _nested_quantifier(pattern_text):
            # A nested quantifier can take exponential time on a crafted file name; HTCondor would
            # run it, condorcfg refuses and uses HTCondor's default exclusions instead.
            self._unsafe_regexp("has a nested repetition that can take exponential time")
            pattern_text = DEFAULT_EXCLUDE_REGEXP
        if not pattern_text:
            return None
        if pattern_text == DEFAULT_EXCLUDE_REGEXP:
            return re.compile(pattern_text)
        import regex

        try:
            return regex.compile(pattern_text)
        except (regex.error, ValueError, OverflowError) as exc:
            self.config.diagnostics.append(Diagnostic(
                "warning", f"LOCAL_CONFIG_DIR_EXCLUDE_REGEXP is not a valid regular expression ({exc}); "
                           f"no file is excluded", self._knob_location("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP"),
                code="bad-regexp"))
            return None

    def _unsafe_regexp(self, why: str) -> None:
        pattern_text = self.config.value("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP") or ""
        shown = pattern_text if len(pattern_text) <= 200 else pattern_text[:200] + "..."
        self.config.diagnostics.append(Diagnostic(
            "warning", f"LOCAL_CONFIG_DIR_EXCLUDE_REGEXP {shown!r} {why}; using the default exclusions instead",
            self._knob_location("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP"), code="unsafe-regexp"))

    def read_user_config(self) -> None:
        if self.repository:
            return  # a file in the home directory of whoever runs the linter says nothing about the host
        name = self.config.value("USER_CONFIG_FILE")
        if not name:
            return
        if not os.path.isabs(name):
            home = self.config.environ.get("HOME")
            if not home:
                return
            name = os.path.join(home, ".condor", name)
        self.read_file(name, 0, self._knob_location("USER_CONFIG_FILE"), required=False, setting="USER_CONFIG_FILE")


def _config_root(root: str, host: HostView | None) -> str:
    """HTCondor's CONFIG_ROOT: the root file's folder as the host sees it.  Without a host view that is
    where the file is; with one, the root's place on the host (inside the sysroot: where it is there;
    else where the role says, else where HTCondor looks first), so $(CONFIG_ROOT)/config.d is read
    through the view like any other host path."""
    if os.path.isdir(root):
        return os.path.abspath(root)
    if host is None:
        return os.path.dirname(os.path.abspath(root))
    return os.path.dirname(host.root_path or root_path_in(root, host.sysroot) or DEFAULT_ROOT_PATH)


class _ReleaseTemplates:
    """The templates of another HTCondor release (:mod:`condorcfg.releases`), as the reader asks for them."""

    def __init__(self, release: str):
        from condorcfg import releases
        from condorcfg.config.templates import Template

        self.by_category: dict[str, dict] = {}
        for key, entry in releases.templates(release).items():
            category, _, name = entry["name"].partition(":")
            body = entry["body"] if entry["body"].endswith("\n") else entry["body"] + "\n"
            template = Template(category.upper(), name, body, f"<HTCondor {release} template {entry['name']}>", 1)
            self.by_category.setdefault(category.upper(), {})[name.upper()] = template

    def find_template(self, category: str, name: str):
        return self.by_category.get(category.strip().upper(), {}).get(name.strip().upper())

    def template_names(self, category: str) -> list[str]:
        return [t.name for t in self.by_category.get(category.strip().upper(), {}).values()]


class _LazyTemplates:
    """condorcfg.config.templates, imported only when a `use` line or `defined use` needs it."""

    def find_template(self, category: str, name: str):
        from condorcfg.config import templates

        return templates.find_template(category, name)

    def template_names(self, category: str) -> list[str]:
        from condorcfg.config import templates

        return templates.template_names(category)


def load(paths=None, machine=None, subsystem: str | None = None, local_name: str | None = None,
         allow_exec: bool = False, environ: Mapping[str, str] | None = None, templates=None,
         defaults: Mapping[str, str] | None = None, cwd: str | None = None, mode: str = "host",
         sysroot: str | None = None, allowed_dirs=(), release: str | None = None,
         host: HostView | None = None) -> Config:
    """Read a configuration as HTCondor 25.14.1 would and return the :class:`Config`.

    ``paths``: a file, a config.d directory, or a list of those (read in order as the main
    configuration); None means discover it like HTCondor (``CONDOR_CONFIG``, then the system
    locations).  ``machine``: a MachineProfile, a profile file path, or None to detect this
    host.  ``environ`` (default ``os.environ``) supplies ``_CONDOR_*`` overrides, ``$ENV()``
    and the CPU limits.  ``templates`` (default :mod:`condorcfg.config.templates`) and
    ``defaults`` (default the built-in table) can be replaced for tests.  ``mode`` ("host" or
    "repository"), ``sysroot`` and ``allowed_dirs`` (directories besides those of ``paths`` whose
    files count as part of the configuration, e.g. the project's) are described in the module
    docstring; ``host`` (a :class:`~condorcfg.config.hostview.HostView`: a role's mounts, removals
    and sysroot) replaces ``sysroot``, which is the view of a sysroot alone.  ``release`` (a
    :mod:`condorcfg.releases` name) reads the configuration as that HTCondor release would: its templates, its built-in defaults, its version in ``if version``
    (the per-subsystem default tables stay 25.14.1's).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if sysroot and host is not None:
        raise ValueError("give the sysroot in the host view, not both")
    if sysroot:
        host = HostView(sysroot=os.path.abspath(sysroot))
    import gc

    # Reading creates many small objects and no reference cycles: the cyclic collector only
    # costs time here (about 10 %), so it is paused and restored afterwards.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(paths, machine, subsystem, local_name, allow_exec, environ, templates, defaults, cwd, mode,
                     release, host, allowed_dirs)
    finally:
        if was_enabled:
            gc.enable()


def _load(paths, machine, subsystem, local_name, allow_exec, environ, templates, defaults, cwd, mode, release,
          host, allowed_dirs) -> Config:
    from condorcfg import machine as machine_module

    if environ is None:
        # The environment of whoever runs the linter (a CI job, with its secrets) says nothing
        # about the target host: in repository mode $ENV(X) is unset and no _CONDOR_* applies.
        environ = {} if mode == "repository" else dict(os.environ)
    environ = dict(environ)
    subsystem = (subsystem or "TOOL").upper()
    profile = machine_module.resolve(machine)
    release_subsystem_defaults: dict = {}  # (another release's generic table; 25.14.1's per-subsystem ones)
    if release is not None:
        from condorcfg import releases

        if templates is None:
            templates = _ReleaseTemplates(release)
        if defaults is None:
            from condorcfg.config import defaults as defaults_module

            defaults = {name: entry["default"] for name, entry in releases.knobs(release).items()
                        if entry["default"] is not None}
            release_subsystem_defaults = defaults_module.subsystem_defaults(subsystem)
    if templates is None:
        templates = _LazyTemplates()
    if defaults is None:
        from condorcfg.config import defaults as defaults_module

        # "-" is no subsystem: this gives the generic table without any subsystem's overrides
        generic = defaults_module.builtin_defaults("-")
        per_subsystem = defaults_module.subsystem_defaults(subsystem)
    else:
        generic = {k.upper(): v for k, v in defaults.items()}
        per_subsystem = release_subsystem_defaults
    generic = dict(generic)
    generic.setdefault("LOCALNAME", local_name or subsystem)
    config = Config(subsystem=subsystem, local_name=local_name, machine=profile, environ=environ,
                    defaults=generic, subsystem_defaults=per_subsystem)

    only_env = False
    if paths is None:
        found, notes, only_env = discover_config(environ)
        config.diagnostics.extend(notes)
        paths = found
    elif isinstance(paths, (str, os.PathLike)):
        paths = [os.fspath(paths)]
    else:
        paths = [os.fspath(p) for p in paths]

    # (a folder named that is a link counts as where it points, like a file: what is allowed is the folder
    # holding the link, so one leading out is not listed)
    allowed = [os.path.abspath(p) if os.path.isdir(p) and not os.path.islink(p) else os.path.dirname(os.path.abspath(p))
               for p in paths if not p.rstrip().endswith("|")]
    allowed += [os.path.abspath(d) for d in (*allowed_dirs, *(host.folders() if host is not None else ()))]
    reader = Reader(config, allow_exec, templates, allowed, cwd or os.getcwd(), mode, host)
    if release is not None:
        reader.release = release
        reader.version = tuple(int(part) for part in release.split(".")[:3])

    facts = profile.host_facts()
    late = {"FULL_HOSTNAME", "HOSTNAME", "IP_ADDRESS", "IPV4_ADDRESS", "IPV6_ADDRESS", "USERNAME"}
    for name, value in facts.items():
        if name not in late:
            config.define(host_definition(name, value))
    limit = int(facts.get("DETECTED_CPUS", "1") or 1)
    for variable in ("OMP_THREAD_LIMIT", "SLURM_CPUS_ON_NODE"):
        text = environ.get(variable, "").strip()
        if text.isdigit() and 0 < int(text) < limit:
            limit = int(text)
    config.define(host_definition("DETECTED_CPUS_LIMIT", str(limit)))
    config.define(host_definition("SUBSYSTEM", subsystem))
    config.define(host_definition("CondorIsAdmin", "false"))
    if paths:
        first = paths[0]
        root = first.rstrip()[:-1].strip().split()[0] if first.rstrip().endswith("|") else first
        config.define(host_definition("CONFIG_ROOT", _config_root(root, host)))

    for path in paths:
        if path.rstrip().endswith("|"):
            reader.read_command(path.rstrip()[:-1].strip(), 0, None)
        elif os.path.isdir(path):
            reader.read_directory(path, None, given=True)
        else:
            reader.read_file(path, 0, None, given=True)

    insert_hostnames(config, profile)
    if not only_env:
        reader.read_local_config()
        reader.read_user_config()
    apply_environment(config, environ)
    reader.apply_auto_use()
    insert_special(config, profile, facts, environ)
    return config
