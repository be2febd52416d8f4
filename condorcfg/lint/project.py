"""Project configuration: ``[tool.condorcfg]`` in ``pyproject.toml`` or ``.condorcfg.yaml``.

Found by walking up from the current directory (stopping at a ``.git`` directory); the
first directory holding either file wins, ``.condorcfg.yaml`` before ``pyproject.toml``
(whose ``[tool.condorcfg]`` table must exist to count).  Keys (``-`` or ``_`` alike)::

    [tool.condorcfg]
    roots = ["etc/condor_config"]          # top-level configs linted when no path is given
    sysroot = "."                          # the folder standing for the host's / (see --sysroot)
    baseline = ".condorcfg-baseline.json"  # accepted findings (condorcfg lint --write-baseline)
    select = ["POL", "SEC801"]             # codes, code prefixes, slugs, or "ALL"
    extend-select = ["KNB307"]             # added to the default (or `select`) set
    ignore = ["MAC203"]
    severity = {KNB303 = "error"}          # per-rule severity override
    fail-on = "error"                      # warning (default) | error | info
    machine = "machines/ep.yaml"           # default machine profile: file, or a name below
    require-reason = true                  # a suppression must say why
    fragment = true                        # the files are config.d fragments of a configuration kept
                                           # elsewhere (HTCondor-CE, glideinWMS): macros come from it
    known-knobs = ["SITE_.*", "GPU_MONITOR"]   # site-specific knob names (regexes)
    target-version = ["24.0", "25.0"]      # the HTCondor releases the pool runs (a mixed pool: several)
    policy-tests = ["tests/policy"]        # condorcfg test's files or directories

    [tool.condorcfg.machine-profiles]      # named profiles for --machine NAME
    gpu = "machines/gpu.yaml"
    small = {cpus = 4, memory = 8192}

A pool repository holds several kinds of host: ``roles`` names each, and says how its
configuration is assembled (``roots`` + ``sysroot`` are the same as one role per root)::

    roles:
      cm:
        root: common/condor_config     # the file HTCondor reads first there; `packaged` (or
                                       # `packaged:debian`): the stock file of the role's release
        root-path: /etc/condor/condor_config   # where the host has it (default: its place under
                                       # the sysroot, else /etc/condor/condor_config)
        sysroot: hosts/cm              # other absolute paths are read under this folder
        mounts:                        # host path <- repository folders (in order: the last wins
          /etc/condor/config.d: [common/config.d, roles/cm/config.d]   # on equal names) or file
          /etc/condor/config.d/91_local.config: templates/91_local.config.uaf
        removed: [/etc/condor/config.d/00-htcondor-9.0.config]   # the deployment deletes these
        vars: {gpu_count: 4}           # Jinja2 variables of the role's mounted *.j2 files
        hosts:                         # hosts differing only in vars: each is a role cm@NAME
          cm01: {vars: {is_primary: true}}
        machine-profiles: [machines/cm.yaml]   # or a mapping of names (default: the project's)
        machine: machines/cm.yaml      # its default machine (default: its first profile)
        version: "24.0"                # the HTCondor release it runs (default: target-version)

Relative paths are relative to the directory of the file that sets them.

The project file comes with the pull request, so what it can cost is bounded: at most
:data:`MAX_PROJECT_FILE` bytes (``inputs.MAX_YAML_SIZE`` for YAML, which is parsed in pure
Python), no more than ``inputs.MAX_YAML_VALUES`` values once YAML aliases are expanded,
and ``known-knobs`` patterns that Python's backtracking ``re`` matches against any knob
name in time linear in the name (:func:`knob_pattern_problem`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from condorcfg.diagnostics import SEVERITIES, CondorcfgError, Diagnostic, Location
from condorcfg.inputs import MAX_YAML_SIZE, within
from condorcfg.records import factory, record

YAML_NAME = ".condorcfg.yaml"
TOML_NAME = "pyproject.toml"
MAX_PROJECT_FILE = 1024 * 1024  # bytes of pyproject.toml read (tomllib: ~0.5 s per MiB)
MAX_KNOB_PATTERN = 200  # characters of one known-knobs pattern
MAX_KNOB_CHOICES = 16  # ways through a pattern's alternatives and bounded repeats (each multiplies the work)

_LIST_KEYS = ("roots", "select", "extend-select", "ignore", "known-knobs", "target-version", "policy-tests")
_PATH_KEYS = ("sysroot", "baseline")
_KEYS = set(_LIST_KEYS) | set(_PATH_KEYS) | {"severity", "fail-on", "machine", "machine-profiles",
                                             "require-reason", "fragment", "roles"}
ROLE_KEYS = ("root", "root-path", "sysroot", "mounts", "removed", "vars", "hosts", "machine-profiles", "machine",
             "version")
PACKAGED = "packaged"  # `root: packaged` (or packaged:debian): the stock root file of the role's release
MAX_ROLES = 64  # roles (hosts included) in one project: each is a configuration a command may read
ROLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class ProjectConfigError(CondorcfgError):
    """A project configuration condorcfg cannot use (exit 2)."""


@record
class Role:
    """One kind of host of the pool: how its configuration is assembled from the repository."""
    name: str                    # as in `roles` ("" for the only root of `roots`)
    root: str                    # the file read first (a path; the packaged file as shipped for `packaged`)
    host: object = None          # condorcfg.config.hostview.HostView
    machine_profiles: dict = factory(dict)  # name -> profile file or mapping (the project's when it names none)
    machine: str | dict | None = None       # its default machine
    version: str | None = None   # the release it runs (resolved)
    line: int = 0                # where it is written in the settings file

    @property
    def label(self) -> str:
        return self.name or "(root)"


@record
class ProjectConfig:
    path: str | None = None          # the file read, None when there is none
    directory: str = "."             # project root: relative paths and SARIF URIs start here
    roots: list[str] = factory(list)
    select: list[str] | None = None
    extend_select: list[str] = factory(list)
    ignore: list[str] = factory(list)
    severity: dict[str, str] = factory(dict)
    fail_on: str | None = None
    machine: str | dict | None = None
    machine_profiles: dict[str, str | dict] = factory(dict)
    require_reason: bool = False
    known_knobs: list[str] = factory(list)
    sysroot: str | None = None
    baseline: str | None = None
    fragment: bool = False
    target_version: list[str] = factory(list)  # releases as resolved (condorcfg.releases)
    policy_tests: list[str] = factory(list)  # condorcfg test's files (or directories), paths as resolved
    # --settings-from REV: the settings (and the baseline they name) are the committed ones of this
    # revision, not the work tree's (a pull request must not decide how it is checked)
    revision: str | None = None
    git_top: str | None = None
    roles: list[Role] = factory(list)  # as written in `roles`; see all_roles() for the roots' roles too

    def all_roles(self) -> list[Role]:
        """Every role: those `roles` names, else one per root (with the sysroot each root's place implies)."""
        return self.roles or [root_role(self, root, single=len(self.roots) <= 1) for root in self.roots]

    def revision_file(self, path: str, limit: int) -> str | None:
        """The text of a file the settings name (the baseline) as committed in the settings' revision;
        None when that revision has no such file."""
        relative = os.path.relpath(os.path.realpath(path), self.git_top)
        return _revision_blob(self.git_top, self.revision, relative, limit, f"{self.revision[:12]}:{relative}")

    def settings_files(self) -> list[str]:
        """The files whose change changes what lint reports: this file, profiles, the baseline."""
        files = [self.path] if self.path else []
        profiles = [self.machine, *self.machine_profiles.values()]
        files += [str(Path(self.directory) / p) for p in profiles if isinstance(p, str) and p not in
                  self.machine_profiles]
        if self.baseline:
            files.append(self.baseline)
        return files

    def known_knob_patterns(self) -> list[re.Pattern]:
        """The known-knobs patterns, compiled as lint matches them (validated when the file was read)."""
        return [re.compile(p, re.IGNORECASE) for p in self.known_knobs]


def discover(start: str | os.PathLike | None = None) -> ProjectConfig:
    """The project configuration governing ``start`` (default: the current directory); without one, the
    current directory is the project folder (never a folder a named file's links lead to)."""
    found = governing_file(start)
    if found is None:
        return ProjectConfig(directory=str(Path.cwd().resolve()))
    if found.name == YAML_NAME:
        return load(found)
    return _build(_read_toml(found), found, _toml_line_finder(found))


def governing_file(start: str | os.PathLike | None = None) -> Path | None:
    """The settings file governing ``start`` (a file or folder; default the current directory), as ruff
    finds its settings: the nearest folder above it holding ``.condorcfg.yaml`` or a ``pyproject.toml``
    with ``[tool.condorcfg]``, not past the top of its git work tree; None when there is none.

    The folders are those the path names, not where committed links lead: a pull request's link
    ``tests/linked -> /elsewhere`` must not make a settings file elsewhere govern (and widen the folder
    the command may read).  So a folder reached through a link inside the work tree is passed over;
    links above the work tree's top (a symlinked home) are the machine's, and followed."""
    for candidate in _settings_folders(_start_folder(start)):
        yaml_path = candidate / YAML_NAME
        if yaml_path.is_file():
            return _own(yaml_path)
        toml_path = candidate / TOML_NAME
        if toml_path.is_file() and _read_toml(_own(toml_path)) is not None:
            return toml_path
    return None


def _own(path: Path) -> Path:
    """``path``, a settings file found in a folder, refused unread when it is a link leading out of it (its
    values would be echoed in messages)."""
    if path.is_symlink() and not within(os.path.realpath(path), os.path.realpath(path.parent)):
        _fail(path, 0, f"{path.name} is a symbolic link leading outside {path.parent}; it is not read: keep the "
                       f"settings file itself in the project")
    return path


def _settings_folders(directory: Path) -> list[Path]:
    """The folders whose settings may govern ``directory`` (a lexical, absolute path), nearest first."""
    chain = [directory, *directory.parents]
    top = next((index for index, folder in enumerate(chain) if (folder / ".git").exists()), None)
    if top is None:  # (no work tree: nothing committed can place a link; as the file system has it)
        real = directory.resolve()
        return [real, *real.parents]
    linked_below = [index for index in range(top) if chain[index].is_symlink()]  # (the top itself: the machine's)
    lowest_trusted = max(linked_below) + 1 if linked_below else 0
    return chain[lowest_trusted:top + 1]


def _start_folder(start) -> Path:
    """The folder a path is in (lexically: a link is not followed), or the folder itself."""
    directory = Path(os.path.abspath(start or os.getcwd()))
    if directory.is_symlink() or not directory.is_dir():  # a file, a link, or one the change deletes
        directory = directory.parent
    return directory


def load(path: str | os.PathLike, text: str | None = None, check_exists: bool = True) -> ProjectConfig:
    """Read one project configuration file (either kind); ``text``: its content, already read;
    ``check_exists``: the folders and files roles mount must exist (not for another revision's settings,
    whose own tree holds them)."""
    path = Path(path)
    if path.name == TOML_NAME or path.suffix == ".toml":
        data = _read_toml(path, text)
        if data is None:
            _fail(path, 0, f"{path} has no [tool.condorcfg] table")
        return _build(data, path, _toml_line_finder(path, text), check_exists)
    return _build(*_read_yaml(path, text), check_exists)


def for_command(project_file: str | None = None, settings_from: str | None = None,
                start: str | None = None) -> ProjectConfig:
    """The settings a command runs with: ``--settings-from REV``, else ``--project FILE``, else found upward
    from ``start`` (the first file the command names; default the current directory)."""
    if settings_from is not None:
        return from_revision(settings_from, _start_folder(start) if start else None)
    return load(project_file) if project_file else discover(start)


def from_revision(revision: str, start: str | os.PathLike | None = None) -> ProjectConfig:
    """The project settings as committed in ``revision`` (found upward from ``start`` as :func:`discover`
    finds them in the work tree), their relative paths still meaning the work tree's files.

    CI of a pull request runs ``--settings-from origin/main``: the change's own `.condorcfg.yaml` and
    baseline cannot then ignore rules, lower severities or accept its findings.  The repository is the
    one holding ``start`` (its ``.git`` found by walking up, never by asking git from inside the change).
    """
    directory = _start_folder(start)
    where = Location("<command line>", 0, 1)
    # (the folders the path names, as discover() walks them: a committed link does not lead the search away)
    folders = _settings_folders(directory)
    top = folders[-1] if folders and (folders[-1] / ".git").exists() else None
    if top is None:
        raise ProjectConfigError(Diagnostic("error", f"--settings-from {_short(revision)}: {directory} is not in a "
                                                     f"git work tree", where, code="project-config"))
    if not revision or revision.startswith("-"):
        raise ProjectConfigError(Diagnostic("error", f"--settings-from {_short(revision)} is not a revision",
                                            where, code="project-config"))
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], str(top))
    commit = done.stdout.decode("ascii", "replace").strip() if done.returncode == 0 else ""
    if not commit:
        raise ProjectConfigError(Diagnostic("error", f"--settings-from {_short(revision)} names no commit of the "
                                                     f"repository at {top}", where, code="project-config",
                                            notes=["in CI, fetch the base branch first (actions/checkout with "
                                                   "fetch-depth: 0, or git fetch origin main)"]))
    for candidate in folders:
        relative = os.path.relpath(candidate, top)
        for name in (YAML_NAME, TOML_NAME):
            inside = name if relative == "." else f"{relative}/{name}"
            shown = f"{revision}:{inside}"
            text = _revision_blob(str(top), commit, inside, MAX_YAML_SIZE if name == YAML_NAME else MAX_PROJECT_FILE,
                                  shown)
            if text is None or (name == TOML_NAME and "tool.condorcfg" not in text):
                continue
            project = load(candidate / name, text)
            project.revision, project.git_top = commit, os.path.realpath(top)
            return project
    return ProjectConfig(directory=str(Path.cwd().resolve()), revision=commit, git_top=os.path.realpath(top))


def at_revision(project: ProjectConfig, top: str, commit: str, label: str) -> ProjectConfig | None:
    """The settings file of ``project`` as committed in ``commit`` of the work tree at ``top`` (its paths
    still the work tree's, as :func:`from_revision` reads them), or None when that revision has none there."""
    if not project.path:
        return None
    inside = os.path.relpath(os.path.realpath(project.path), os.path.realpath(top))
    limit = MAX_YAML_SIZE if Path(project.path).name == YAML_NAME else MAX_PROJECT_FILE
    text = _revision_blob(top, commit, inside, limit, f"{label}:{inside}")
    if text is None or (Path(project.path).name == TOML_NAME and "tool.condorcfg" not in text):
        return None
    try:
        return load(project.path, text, check_exists=False)  # (the revision's own tree is what it names)
    except ProjectConfigError as exc:  # the revision's file, not the work tree's, is the one to correct
        if exc.diagnostic.location is not None:
            exc.diagnostic.location = Location(f"{label}:{inside}", exc.diagnostic.location.line, 1)
        raise


def _git(args: list[str], cwd: str):
    import subprocess

    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ProjectConfigError(Diagnostic("error", f"cannot run git: {exc}", Location("<git>", 0, 1),
                                            code="project-config")) from None


def _revision_blob(top: str, commit: str, inside: str, limit: int, shown: str) -> str | None:
    """The text of ``inside`` (relative to the repository's top) in ``commit``; None when it holds no such
    file.  Refused past ``limit`` bytes or when it is not UTF-8."""
    if inside.startswith(".."):
        return None
    inside = inside.replace(os.sep, "/")
    size = _git(["cat-file", "-s", "--end-of-options", f"{commit}:{inside}"], top)
    kind = _git(["cat-file", "-t", "--end-of-options", f"{commit}:{inside}"], top)
    if size.returncode != 0 or kind.stdout.strip() != b"blob":
        return None
    if int(size.stdout.strip() or 0) > limit:
        _fail(shown, 0, f"{shown} is larger than {limit:,} bytes, more than condorcfg reads from a settings file; "
                        f"it is refused")
    blob = _git(["cat-file", "blob", "--end-of-options", f"{commit}:{inside}"], top)
    try:
        return blob.stdout.decode("utf-8")
    except UnicodeDecodeError:
        _fail(shown, 0, f"{shown} is not UTF-8 text")


def _fail(path, line: int, message: str):
    raise ProjectConfigError(Diagnostic("error", message, Location(str(path), line or 0, 1), code="project-config"))


def _read_text(path: Path, limit: int = MAX_PROJECT_FILE) -> str:
    """The file's text, refused past ``limit`` bytes (read no further than that)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            _fail(path, 0, f"{path.name} is larger than {limit:,} bytes, more than condorcfg reads from a project "
                           f"configuration file; it is refused")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(path, 0, f"cannot read project configuration: {exc}")


def _read_toml(path: Path, text: str | None = None) -> dict | None:
    text = _read_text(path) if text is None else text
    if "tool.condorcfg" not in text:
        return None  # most pyproject.toml files are not ours: skip importing and parsing TOML
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"line (\d+)", str(exc))
        _fail(path, int(where.group(1)) if where else 0, f"pyproject.toml is not valid TOML: {exc}")
    table = data.get("tool", {}).get("condorcfg")
    if table is None:
        return None
    if not isinstance(table, dict):
        _fail(path, 0, "[tool.condorcfg] must be a table")
    return table


def _toml_line_finder(path: Path, text: str | None = None):
    lines = (_read_text(path) if text is None else text).splitlines()

    def line_of(key: str, *inner) -> int:  # (TOML: the line of the top-level key, whatever is inside)
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=|^\s*\[tool\.condorcfg\.{re.escape(key)}\]")
        for number, text in enumerate(lines, 1):
            if pattern.search(text):
                return number
        return 0

    return line_of


def _read_yaml(path: Path, text: str | None = None):
    from ruamel.yaml.error import YAMLError

    from condorcfg.inputs import check_expanded_size, load_yaml

    text = _read_text(path, MAX_YAML_SIZE) if text is None else text
    try:
        data = load_yaml(text, "rt")
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        _fail(path, mark.line + 1 if mark else 0, f"{path.name} is not valid YAML: {getattr(exc, 'problem', exc)}")
    except RecursionError:
        _fail(path, 0, f"{path.name} is nested too deeply to read")
    except Exception as exc:  # a tag the loader cannot build (!!int d, an int of 4,300+ digits ...)
        reason = str(exc).splitlines()[0].split("; use sys.set_int_max_str_digits")[0] if str(exc) else ""
        _fail(path, 0, f"{path.name} is not valid YAML: {reason or type(exc).__name__}")
    try:  # before anything copies it: aliases can make a few lines hold billions of values
        check_expanded_size(data, str(path), "project configuration", "project-config", text_size=len(text))
    except CondorcfgError as exc:
        raise ProjectConfigError(exc.diagnostic)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        _fail(path, 1, f"{path.name} must be a mapping of settings (roots, select, ignore, ...)")

    def line_of(key: str, *inner) -> int:
        """The line of ``key``, or of ``inner`` keys below it (a role's own, ``roles`` then its name)."""
        node, line = data, 0
        for part in (key, *inner):
            try:
                line = node.lc.key(part)[0] + 1
                node = node[part]
            except (AttributeError, KeyError, TypeError):
                return line
        return line

    from condorcfg.lint.rules import _plain

    return _plain(data), path, line_of


def _build(data: dict, path: Path, line_of, check_exists: bool = True) -> ProjectConfig:
    directory = path.parent.resolve()
    project = ProjectConfig(path=str(path), directory=str(directory))
    for raw_key, value in data.items():
        key = raw_key.replace("_", "-")
        line = line_of(raw_key)
        if key not in _KEYS:
            _fail(path, line, f"unknown condorcfg setting {raw_key!r}; known: {', '.join(sorted(_KEYS))}")
        if key in _LIST_KEYS:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                _fail(path, line, f"{raw_key!r} must be a list of strings")
            if key in ("roots", "policy-tests"):
                value = [_inside(directory, v, path, line, raw_key) for v in value]
            if key == "known-knobs":
                for pattern in value:
                    problem = knob_pattern_problem(pattern)
                    if problem:
                        _fail(path, line, f"known-knobs entry {_short(pattern)} {problem}")
            if key == "target-version":
                value = [_release(v, path, line) for v in value]
            setattr(project, key.replace("-", "_"), list(value))
        elif key in _PATH_KEYS:
            if not isinstance(value, str) or not value:
                _fail(path, line, f"{raw_key!r} must be a path (relative to {path.name})")
            setattr(project, key, _inside(directory, value, path, line, raw_key))
        elif key == "severity":
            if not isinstance(value, dict):
                _fail(path, line, "'severity' must map rule codes or slugs to error/warning/info")
            for code, severity in value.items():
                if severity not in SEVERITIES:
                    _fail(path, line, f"severity of {code!r} must be one of {', '.join(SEVERITIES)}, not {severity!r}")
            project.severity = {str(k): v for k, v in value.items()}
        elif key == "fail-on":
            if value not in SEVERITIES:
                _fail(path, line, f"'fail-on' must be one of {', '.join(SEVERITIES)}")
            project.fail_on = value
        elif key == "require-reason":
            if not isinstance(value, bool):
                _fail(path, line, "'require-reason' must be true or false")
            project.require_reason = value
        elif key == "fragment":
            if not isinstance(value, bool):
                _fail(path, line, "'fragment' must be true or false")
            project.fragment = value
        elif key == "machine":
            project.machine = _profile_ref(value, directory, path, line)
        elif key == "machine-profiles":
            if not isinstance(value, dict):
                _fail(path, line, "'machine-profiles' must map names to profile files or mappings")
            project.machine_profiles = {str(n): _profile_ref(v, directory, path, line) for n, v in value.items()}
    if "roles" in {k.replace("_", "-") for k in data}:
        raw = next(k for k in data if k.replace("_", "-") == "roles")
        if project.roots:
            _fail(path, line_of("roots"), "'roots' and 'roles' cannot both be set: give each root as a role's `root`")
        project.roles = _roles(data[raw], project, path, line_of, raw, check_exists)
    return project


def _roles(value, project: ProjectConfig, path: Path, line_of, key: str, check_exists: bool) -> list[Role]:
    line = line_of(key)
    if not isinstance(value, dict) or not value:
        _fail(path, line, "'roles' must map role names to their settings (root, mounts, ...)")
    roles: list[Role] = []
    for name, settings in value.items():
        name = str(name)
        role_line = line_of(key, name) or line
        if not ROLE_NAME.fullmatch(name):
            _fail(path, role_line, f"role name {_short(name)} must be letters, digits, '.', '_' or '-' (at most 64)")
        roles += _role(name, settings, project, path, role_line, check_exists)
        if len(roles) > MAX_ROLES:
            _fail(path, role_line, f"more than {MAX_ROLES} roles (hosts included); condorcfg reads each one per run")
    return roles


def _role(name: str, settings, project: ProjectConfig, path: Path, line: int, check_exists: bool) -> list[Role]:
    from condorcfg.config.hostview import HostView, host_key

    directory = Path(project.directory)
    if not isinstance(settings, dict):
        _fail(path, line, f"role {name!r} must be a mapping of settings (root, mounts, ...)")
    settings = {str(k).replace("_", "-"): v for k, v in settings.items()}
    unknown = sorted(set(settings) - set(ROLE_KEYS))
    if unknown:
        _fail(path, line, f"unknown setting {unknown[0]!r} of role {name!r}; known: {', '.join(ROLE_KEYS)}")
    version = settings.get("version")
    if version is not None:
        version = _release(str(version), path, line, f"role {name!r}: version")
    host = HostView()
    if "sysroot" in settings:
        host.sysroot = os.path.realpath(_path_setting(settings["sysroot"], directory, path, line, f"{name}: sysroot"))
    root_path = settings.get("root-path")
    if root_path is not None:
        if not isinstance(root_path, str) or not root_path.startswith("/"):
            _fail(path, line, f"role {name!r}: root-path must be an absolute host path such as "
                              f"/etc/condor/condor_config")
        host.root_path = host_key(root_path)
    root = settings.get("root")
    if not isinstance(root, str) or not root:
        _fail(path, line, f"role {name!r} needs a `root`: the file HTCondor reads first on that host (a repository "
                          f"file, or `{PACKAGED}` for the stock file of its release)")
    if root == PACKAGED or root.startswith(PACKAGED + ":"):
        from condorcfg.config import packaged

        flavor = root.partition(":")[2] or packaged.DEFAULT_FLAVOR
        try:
            root, label = packaged.packaged_file(version, flavor)
        except CondorcfgError as exc:
            _fail(path, line, f"role {name!r}: {exc.diagnostic.message}")
        host.labels[root] = label
        host.root_path = host.root_path or packaged.PACKAGED_PATH
    else:
        root = _path_setting(root, directory, path, line, f"{name}: root")
    mounts = settings.get("mounts") or {}
    if not isinstance(mounts, dict):
        _fail(path, line, f"role {name!r}: mounts must map host paths to repository folders or files")
    from condorcfg.config.hostview import Mount

    for target, sources in mounts.items():
        target = str(target)
        if not target.startswith("/"):
            _fail(path, line, f"role {name!r}: mount {_short(target)} must be an absolute host path")
        listed = [sources] if isinstance(sources, str) else sources
        if not isinstance(listed, list) or not listed or not all(isinstance(s, str) and s for s in listed):
            _fail(path, line, f"role {name!r}: mount {_short(target)} must name a repository folder, a list of them, "
                              f"or one file")
        full = [_path_setting(s, directory, path, line, f"{name}: mount {target}") for s in listed]
        missing = [s for s, f in zip(listed, full) if check_exists and not os.path.exists(f)]
        if missing:  # (a typo, or a folder renamed: reading nothing from it would hide what it should hold)
            _fail(path, line, f"role {name!r}: mount {_short(target)} names {_short(missing[0])}, which does not "
                              f"exist in the project; correct the path")
        folder = not (isinstance(sources, str) and not os.path.isdir(full[0]))
        if folder and not all(os.path.isdir(f) or not os.path.exists(f) for f in full):
            _fail(path, line, f"role {name!r}: mount {_short(target)} lists a file among folders; mount a file on "
                              f"its own host path")
        host.mounts.append(Mount(host_key(target), full, folder))
    removed = settings.get("removed") or []
    if isinstance(removed, str):
        removed = [removed]
    if not isinstance(removed, list) or not all(isinstance(r, str) and r.startswith("/") for r in removed):
        _fail(path, line, f"role {name!r}: removed must list absolute host paths")
    host.removed = [host_key(r) for r in removed]
    variables = settings.get("vars") or {}
    if not isinstance(variables, dict):
        _fail(path, line, f"role {name!r}: vars must map variable names to values")
    if root.endswith(".j2"):  # a templated root: rendered like the files it mounts
        from condorcfg.config.hostview import DEFAULT_ROOT_PATH

        host.mounts.append(Mount(host.root_path or DEFAULT_ROOT_PATH, [root], False))
    profiles = settings.get("machine-profiles")
    if profiles is None:
        role_profiles = dict(project.machine_profiles)
    elif isinstance(profiles, list) and all(isinstance(p, str) for p in profiles):
        role_profiles = {Path(p).stem: p for p in profiles}
    elif isinstance(profiles, dict):
        role_profiles = {str(n): _profile_ref(v, directory, path, line) for n, v in profiles.items()}
    else:
        _fail(path, line, f"role {name!r}: machine-profiles must list profile files or map names to them")
    machine = settings.get("machine")
    if machine is not None:
        machine = _profile_ref(machine, directory, path, line)
    elif profiles is not None and role_profiles:
        machine = next(iter(role_profiles))
    else:
        machine = project.machine
    hosts = settings.get("hosts")
    if hosts is None:
        return [Role(name, root, _with_vars(host, variables), role_profiles, machine, version, line)]
    if not isinstance(hosts, dict) or not hosts:
        _fail(path, line, f"role {name!r}: hosts must map host names to their settings ({{vars: ...}})")
    roles = []
    for host_name, extra in hosts.items():
        host_name = str(host_name)
        if not ROLE_NAME.fullmatch(host_name):
            _fail(path, line, f"role {name!r}: host name {_short(host_name)} must be letters, digits, '.', '_' or '-'")
        extra = extra or {}
        if not isinstance(extra, dict) or set(extra) - {"vars"} or not isinstance(extra.get("vars", {}), dict):
            _fail(path, line, f"role {name!r}: host {host_name!r} may set only `vars` (a mapping)")
        roles.append(Role(f"{name}@{host_name}", root, _with_vars(host, {**variables, **extra.get("vars", {})}),
                          role_profiles, machine, version, line))
    return roles


def _with_vars(host, variables: dict):
    from condorcfg.config.hostview import HostView

    return HostView(host.sysroot, list(host.mounts), list(host.removed), host.root_path, dict(variables),
                    dict(host.labels))


def root_role(project: ProjectConfig, root: str, single: bool) -> Role:
    """The role of a root given in `roots` (or on the command line): a root kept at
    ``<folder>/etc/condor/condor_config`` inside the sysroot is that host's file, so ``<folder>`` is its
    sysroot (hosts/cm/etc/condor/condor_config reads hosts/cm/etc/condor/config.d, not the sysroot's)."""
    from condorcfg.config.hostview import HostView, host_folder_of

    host = None
    if project.sysroot:
        sysroot = os.path.realpath(project.sysroot)
        own = host_folder_of(os.path.realpath(root))
        host = HostView(sysroot=own if own and within(own, sysroot) else sysroot)
    name = "" if single else os.path.relpath(root, project.directory)
    return Role(name, root, host, dict(project.machine_profiles), project.machine, None, 0)


def _path_setting(value, directory: Path, path: Path, line: int, key: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(path, line, f"{key} must be a path (relative to {path.name})")
    return _inside(directory, value, path, line, key)


def _release(text: str, path, line: int, key: str = "target-version") -> str:
    from condorcfg import releases

    try:
        return releases.resolve(text)
    except ValueError as exc:
        _fail(path, line, f"{key}: {exc}")


def _profile_ref(value, directory: Path, path: Path, line: int):
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, str):
        return value  # a profile name or a file, resolved by resolve_machine
    _fail(path, line, "a machine profile is a file path, a profile name, or a mapping (cpus, memory, ...)")


def resolve_machine(project: ProjectConfig, choice: str | None):
    """The MachineProfile for ``--machine choice`` (a profile name or file) or the project default."""
    ref = choice if choice is not None else project.machine
    from_project = choice is None or choice in project.machine_profiles
    if ref is None:
        return None
    from condorcfg import machine as machine_module

    if isinstance(ref, str) and ref in project.machine_profiles:
        ref = project.machine_profiles[ref]
    if isinstance(ref, dict):
        return machine_module.from_mapping(ref, source=project.path or "<project>")
    if from_project and project.path:  # written in the project file: relative to it, and inside it
        return machine_module.load_profile(_inside(Path(project.directory), ref, Path(project.path), 0,
                                                   "machine profile"))
    top = os.path.realpath(project.directory)
    if within(os.path.abspath(ref), top) and not within(os.path.realpath(ref), top):
        # named on the command line, but a file of the project: a link the change committed counts as where
        # it points, and one leading out is not read
        raise ProjectConfigError(Diagnostic("error", f"machine profile {_short(ref)} is a symbolic link leading "
                                                     f"outside the project folder {top}; it is not read",
                                            Location(ref, 0, 1), code="project-config"))
    return machine_module.load_profile(ref)



def _inside(directory: Path, value: str, path: Path, line: int, key: str) -> str:
    """``value`` (relative to the project folder) as a path, refused when it leads outside the folder.

    The project file comes with the pull request like the configuration: a root, sysroot,
    baseline or profile naming /etc/shadow or ../../.netrc (or a link to them) must not make the
    linter read, and echo, a file of the machine it runs on.
    """
    if "\0" in value:
        _fail(path, line, f"{key} {_short(value)} holds a NUL character; write the path without it")
    full = directory / value
    real, top = os.path.realpath(full), os.path.realpath(directory)
    if not within(real, top):
        _fail(path, line, f"{key} {_short(value)} leads outside the project folder {directory}; project paths "
                          f"must stay inside it")
    return str(full)


def _short(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# -- known-knobs patterns ------------------------------------------------------------------------
#
# Lint matches every knob name against these with Python's re (fullmatch), which backtracks: a
# pattern like (A+)+$ takes time exponential in the name's length, and knob names are as long
# as the configuration makes them.  So a pattern must be one whose every way of matching is
# cheap: no repeat of something that itself repeats or branches, no back-references or
# look-arounds, at most one unbounded repeat per alternative, and few alternatives and bounded
# repeats in sequence (each multiplies the ways to try).  Then a match takes time linear in the
# name, and site patterns (SITE_.*, (GPU|FPGA)_[A-Z0-9_]+, SLOT[0-9]+_USER) all pass.

def knob_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a known-knobs entry (as the end of a sentence), or None."""
    if len(pattern) > MAX_KNOB_PATTERN:
        return f"is longer than {MAX_KNOB_PATTERN} characters"
    try:
        tree = _regex_parser().parse(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"is not a valid regex: {exc}"
    try:
        for alternative in _top_alternatives(tree):
            unbounded, choices = _pattern_cost(alternative)
            if unbounded > 1:
                return ("repeats more than one part without bound (*, +, {n,}); matching it against a long knob "
                        "name could take very long. Use at most one per alternative and bound the others, as "
                        "SLOT[0-9]{1,4}_.*")
            if choices > MAX_KNOB_CHOICES:
                return (f"has too many optional parts or alternatives in sequence (more than {MAX_KNOB_CHOICES} "
                        f"ways to match); matching it could take very long. Simplify it")
    except _Unsafe as exc:
        return str(exc)
    return None


class _Unsafe(Exception):
    """A construct a knob-name pattern may not use (the message says which and why)."""


def _regex_parser():
    try:
        import re._parser as parser  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as parser
    return parser


def _top_alternatives(tree) -> list:
    """The alternatives of ``A|B|C`` at the top (each is matched on its own), or the whole pattern."""
    items = list(tree)
    constants = _regex_parser()
    if len(items) == 1 and items[0][0] == constants.BRANCH:
        return list(items[0][1][1])
    return [items]


def _pattern_cost(items) -> tuple[int, int]:
    """(unbounded repeats, ways through bounded choices) of a parsed sequence; _Unsafe for what is never cheap."""
    c = _regex_parser()
    repeats = (c.MAX_REPEAT, c.MIN_REPEAT) + ((c.POSSESSIVE_REPEAT,) if hasattr(c, "POSSESSIVE_REPEAT") else ())
    unbounded, choices = 0, 1
    for op, arg in items:
        if op in (c.GROUPREF, getattr(c, "GROUPREF_EXISTS", None)):
            raise _Unsafe("uses a back-reference, which knob-name patterns do not allow")
        if op in (c.ASSERT, c.ASSERT_NOT):
            raise _Unsafe("uses a look-ahead or look-behind, which knob-name patterns do not allow")
        if op == c.SUBPATTERN:
            inner_unbounded, inner_choices = _pattern_cost(arg[-1])
        elif op == getattr(c, "ATOMIC_GROUP", None):
            inner_unbounded, inner_choices = _pattern_cost(arg)
        elif op == c.BRANCH:
            costs = [_pattern_cost(branch) for branch in arg[1]]
            inner_unbounded = max(u for u, _ in costs)
            inner_choices = len(costs) * max(n for _, n in costs)
        elif op in repeats:
            low, high, body = arg
            if _repeats_or_branches(body):
                raise _Unsafe("repeats a part that itself repeats or has alternatives (like (A+)+ or (a|b)*); "
                              "matching it can take time exponential in the knob name's length")
            if high == c.MAXREPEAT:
                inner_unbounded, inner_choices = 1, 1
            else:
                inner_unbounded, inner_choices = 0, high - low + 1
        else:
            continue  # a character, class, any-character or anchor
        unbounded += inner_unbounded
        choices *= inner_choices
        if choices > MAX_KNOB_CHOICES * 1000:  # far past the limit: stop multiplying huge numbers
            return unbounded, choices
    return unbounded, choices


def _repeats_or_branches(items) -> bool:
    """Whether a parsed sequence holds a repeat or an alternation, at any depth."""
    c = _regex_parser()
    for op, arg in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.BRANCH) or op == getattr(c, "POSSESSIVE_REPEAT", None):
            return True
        if op == c.SUBPATTERN and _repeats_or_branches(arg[-1]):
            return True
        if op == getattr(c, "ATOMIC_GROUP", None) and _repeats_or_branches(arg):
            return True
    return False
