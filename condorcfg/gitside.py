"""A side of ``condorcfg diff`` taken from git: ``HEAD~1``, ``git:REV`` or ``git:REV:PATH``.

A bare revision and ``git:REV`` stand for the project's roots (its settings name them, relative
to the repository) as of that commit, with its sysroot mapped the same way; ``git:REV:PATH``
names the configuration itself.  A name that is both a path here and a revision is refused as
ambiguous (:func:`is_git_side`): a pull request could otherwise commit a file named ``HEAD`` or
``origin/main`` and have the diff compare that file instead of the revision.

A revision's files are written to a private temporary directory only as the configuration
reader asks for them (:data:`condorcfg.config.hostview.path_observer`): the directories on the
way, a directory's listing (its files, empty until one is opened) and a file's committed bytes
when it is opened, streamed from ``git cat-file --batch``.  So a diff costs what the
configuration reaches, not what the tree holds, and is bounded per revision by
:data:`MAX_FILES`, :data:`MAX_BYTES` and :data:`MAX_ENTRIES`.  A file larger than the reader's
limit is not written: a sparse file one byte past the limit stands for it, so the reader
reports it as too large.  The bytes are the committed ones (no .gitattributes filter applies;
the work tree and the index are not touched); links and submodules are left out, so nothing
in the directory points outside it.  Nothing from the revision is ever run.

The directories are removed when the diff ends, also by SIGTERM, SIGHUP or SIGINT
(:func:`removed_on_signals`).
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile

from condorcfg.config import hostview, reader
from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.inputs import within

MAX_FILES = 8192  # files one revision may write, empty listings included (a load reads at most 4,096)
MAX_BYTES = 64 * 1024 * 1024  # bytes one revision may write (a load parses at most 32 MiB)
MAX_ENTRIES = 200_000  # tree entries one revision may look through (the directories the reader visits)
CHUNK = 64 * 1024  # bytes of a file copied at a time
_FILE_MODES = (b"100644", b"100755")  # (120000 is a link, 160000 a submodule: left out)
PREFIX = "condorcfg-git-"


def _fail(message: str) -> CondorcfgError:
    return CondorcfgError(error(message, "<git>", code="git"))


def _git(args: list[str], cwd: str):
    """git run at the top of the work tree holding ``cwd`` (None: there is none, and git is not run)."""
    top = repository_top(cwd)
    if top is None:
        return subprocess.CompletedProcess(["git", *args], 128, "", "not in a git work tree")
    try:
        return subprocess.run(["git", *args], cwd=top, capture_output=True, timeout=120, check=False, text=True)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:  # ValueError: a NUL byte in an argument
        raise _fail(f"cannot run git: {exc}") from None


def repository_top(cwd: str) -> str | None:
    """The work tree holding ``cwd``: the nearest folder, from ``cwd`` up, that holds ``.git``.

    Never asked of git from ``cwd``: git also takes a folder holding ``HEAD``, ``objects/`` and ``refs/``
    for a repository, and a pull request can commit one (with ``core.worktree``) to choose what a
    revision means.  From the top, git finds the real ``.git`` before anything else there.
    """
    folder = os.path.realpath(cwd)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _resolve(text: str, kind: str, cwd: str) -> str | None:
    """The object of type ``kind`` that revision ``text`` names (None when it names none)."""
    if not text or text.startswith("-"):
        return None
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{text}^{{{kind}}}"], cwd)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def commit_of(text: str, cwd: str) -> str | None:
    """The commit ``text`` names in the repository at ``cwd`` (None when it names none)."""
    return _resolve(text, "commit", cwd)


def _explicit_path(text: str) -> bool:
    return text in (".", "..") or text.startswith(("./", "../", "/", os.sep))


def is_git_side(text: str, cwd: str) -> bool:
    """``git:...``, or a revision that is not also a path here; CondorcfgError when ``text`` is both.

    The files of a pull request are untrusted, so they must not decide which meaning wins: as git
    does with ``git log NAME``, a name that is both is refused and the user says which.
    """
    if text.startswith("git:"):
        return True
    if _explicit_path(text):
        return False
    try:
        if repository_top(cwd) is None or commit_of(text, cwd) is None:
            return False
    except CondorcfgError:  # no git to run: a name can only be a file
        return False
    if os.path.lexists(os.path.join(cwd, text)):
        raise CondorcfgError(error(
            f"{text!r} is ambiguous: it is both a path here and a git revision; write git:{text} for the "
            f"revision or ./{text} for the file", "<command line>", code="ambiguous-side"))
    return True


class GitSide:
    """One revision, written to ``directory`` as it is read; ``cleanup()`` removes it."""

    def __init__(self, label: str, revision: str, tree: str, top: str, directory: str):
        self.label = label            # as the user wrote it
        self.revision = revision      # the commit it resolved to
        self.paths: list[str] = []    # the configuration in the directory
        self.sysroot: str | None = None
        self.directory = directory
        self.files_written = 0        # files created (empty listings included)
        self.bytes_written = 0
        self.entries_listed = 0       # tree entries looked through
        self._top = top
        self._tree = tree             # the commit's root tree
        self._listings: dict[str, dict] = {}  # tree object -> {name: (mode, sha, size)}
        self._listed: set[str] = set()         # directories whose files exist (empty until opened)
        self._filled: set[str] = set()         # files holding their committed bytes
        self._cat: subprocess.Popen | None = None

    @property
    def top(self) -> str:
        """The work tree the revision is of."""
        return self._top

    def rebased(self, path: str) -> str:
        """``path`` of the work tree as the same path in this revision's directory (others unchanged)."""
        real, top = os.path.realpath(path), os.path.realpath(self._top)
        if not within(real, top):
            return path
        relative = os.path.relpath(real, top)
        return self.directory if relative == "." else os.path.join(self.directory, relative)

    # -- what the reader asks for ------------------------------------------------------------

    def ask(self, full: str) -> bool:
        """Write what ``full`` (a path under the directory) names in the revision; False when it
        names nothing there (the reader then finds nothing, as on a host without the file)."""
        if "\0" in full:
            return False
        parts = full.split(os.sep)
        for index, part in enumerate(parts):  # the system walks through each folder named before a "..":
            if part == ".." and index:        # config.d/../extra.conf needs config.d to exist
                self.ask(os.sep.join(parts[:index]))
        full = os.path.normpath(full)
        if full != self.directory and not full.startswith(self.directory + os.sep):
            return False
        parts = [part for part in full[len(self.directory):].split(os.sep) if part]
        mode, sha, size, here = b"040000", self._tree, 0, self.directory
        for name in parts:
            if mode != b"040000":
                return False  # a path through a file
            entry = self._listing(sha).get(name)
            if entry is None or (entry[0] != b"040000" and entry[0] not in _FILE_MODES):
                return False
            mode, sha, size = entry
            here = os.path.join(here, name)
            if mode == b"040000" and not os.path.isdir(here):
                self._guarded(os.mkdir, here)
        if mode == b"040000":
            self._list(here, sha)
        else:
            self._fill(here, sha, size)
        return True

    def _listing(self, tree: str) -> dict:
        """{name: (mode, object, size)} of one tree object (``git ls-tree``, read as it comes)."""
        listing = self._listings.get(tree)
        if listing is not None:
            return listing
        listing, left = {}, MAX_ENTRIES - self.entries_listed
        try:
            with subprocess.Popen(["git", "ls-tree", "-z", "-l", "--end-of-options", tree], cwd=self._top,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
                pending = b""
                for block in iter(lambda: process.stdout.read(CHUNK), b""):
                    *lines, pending = (pending + block).split(b"\0")
                    for line in lines:
                        meta, _, raw_name = line.partition(b"\t")
                        mode, _kind, sha, size = meta.split()
                        listing[os.fsdecode(raw_name)] = (mode, sha.decode(), int(size) if size != b"-" else 0)
                    if len(listing) > left:
                        process.kill()
                        raise _fail(f"the directories of {self.revision[:12]} the configuration reaches hold more "
                                    f"than {MAX_ENTRIES:,} entries (limit MAX_ENTRIES)")
            if process.returncode != 0:
                raise _fail(f"git ls-tree {tree[:12]} failed (exit {process.returncode})")
        except (OSError, ValueError) as exc:
            raise _fail(f"cannot list {tree[:12]} with git: {exc}") from None
        self.entries_listed += len(listing)
        self._listings[tree] = listing
        return listing

    def _list(self, directory: str, tree: str) -> None:
        """The files of a directory, empty: the reader lists them, and each gets its bytes when opened."""
        if directory in self._listed:
            return
        self._listed.add(directory)
        for name, (mode, _sha, _size) in self._listing(tree).items():
            path = os.path.join(directory, name)
            if mode in _FILE_MODES and name not in ("", ".", "..") and os.sep not in name and not os.path.lexists(path):
                self._count(1, 0)
                self._guarded(lambda: os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)))

    def _fill(self, path: str, sha: str, size: int) -> None:
        if path in self._filled:
            return
        self._filled.add(path)
        self._count(0 if os.path.lexists(path) else 1, 0)
        if size > reader.MAX_FILE_SIZE:
            # Not written: a sparse file one byte past the reader's limit, which it reports as too large.
            self._guarded(lambda: os.truncate(self._created(path), reader.MAX_FILE_SIZE + 1))
            return
        self._count(0, size)
        self._guarded(self._copy, sha, size, path)

    def _created(self, path: str) -> str:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        return path

    def _copy(self, sha: str, size: int, path: str) -> None:
        """Stream one blob from ``git cat-file --batch`` into ``path``."""
        if self._cat is None:
            self._cat = subprocess.Popen(["git", "cat-file", "--batch"], cwd=self._top, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._cat.stdin.write(sha.encode() + b"\n")
        self._cat.stdin.flush()
        header = self._cat.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob" or header[2] != str(size).encode():
            raise _fail(f"git cat-file gave {b' '.join(header)[:80]!r} for blob {sha[:12]}")
        with open(path, "wb") as handle:
            left = size
            while left:
                block = self._cat.stdout.read(min(left, CHUNK))
                if not block:
                    raise _fail(f"git cat-file ended inside blob {sha[:12]}")
                handle.write(block)
                left -= len(block)
        self._cat.stdout.read(1)  # the line break after the contents

    def _count(self, files: int, size: int) -> None:
        if self.files_written + files > MAX_FILES:
            raise _fail(f"the configuration of {self.revision[:12]} reaches more than {MAX_FILES:,} files "
                        f"(limit MAX_FILES)")
        if self.bytes_written + size > MAX_BYTES:
            raise _fail(f"the configuration of {self.revision[:12]} reaches more than {MAX_BYTES // 2 ** 20} MiB "
                        f"of files (limit MAX_BYTES)")
        self.files_written += files
        self.bytes_written += size

    @staticmethod
    def _guarded(action, *args) -> None:
        try:
            action(*args)
        except (OSError, ValueError) as exc:  # a full disk, a name the file system refuses, a dead git
            raise _fail(f"cannot write the revision's files: {exc}") from None

    # -- the end -----------------------------------------------------------------------------

    def cleanup(self) -> None:
        import shutil

        with _held():
            if self in _OPEN:
                _OPEN.remove(self)
            if not _OPEN:
                hostview.path_observer = None
            if self._cat is not None:
                self._cat.kill()
                self._cat.wait()
                for stream in (self._cat.stdin, self._cat.stdout):
                    stream.close()
                self._cat = None
            shutil.rmtree(self.directory, ignore_errors=True)


_OPEN: list[GitSide] = []  # the sides the reader's paths are offered to


def _observe(full: str) -> None:
    for side in _OPEN:
        side.ask(full)


def _relative(text: str) -> str | None:
    """``text`` as a path inside a repository (``/``-separated, normalised), or None when it leads out."""
    path = os.path.normpath(text.replace(os.sep, "/")) if text else ""
    if not path or os.path.isabs(path) or path == ".." or path.startswith("../"):
        return None
    return path


def open_side(text: str, cwd: str, roots: list[str] | None, sysroot: str | None = None) -> GitSide:
    """The revision ``text`` names, ready to read; ``roots``/``sysroot`` (absolute, from the project
    settings: the roots of its roles; a root outside the repository, the packaged one, is not the
    revision's) say what a bare revision or ``git:REV`` stands for.  CondorcfgError for anything that
    cannot be used."""
    def refuse(message: str) -> CondorcfgError:
        return CondorcfgError(error(message, "<command line>", code="git"))

    top = repository_top(cwd)
    if top is None:
        raise refuse(f"{text!r} is not a file, and {cwd} is not in a git repository")
    revision_text, _, inside = text[4:].partition(":") if text.startswith("git:") else (text, "", "")
    if inside:
        wanted = [_relative(inside)]
        if wanted[0] is None:
            raise refuse(f"{inside!r} is not a path inside the repository; write it relative to the repository's top")
    else:
        real_top = os.path.realpath(top)
        wanted = [_relative(os.path.relpath(os.path.realpath(r), real_top)) for r in roots or ()
                  if within(os.path.realpath(r), real_top)]
        if roots is None:
            raise refuse(f"{text!r} is a revision: say which configuration it means with git:{revision_text}:PATH, "
                         f"or set roots in the project settings")
    commit = commit_of(revision_text, cwd)
    tree = _resolve(commit, "tree", cwd) if commit else None
    if commit is None or tree is None:
        raise refuse(f"{revision_text!r} is not a commit of the repository at {top}")
    with _held():  # (a signal between making the directory and recording it would leave it behind)
        directory = os.path.realpath(tempfile.mkdtemp(prefix=PREFIX))
        side = GitSide(text, commit, tree, top, directory)
        _OPEN.append(side)
        hostview.path_observer = _observe
    try:
        for path in wanted:
            full = os.path.join(directory, *path.split("/"))
            if not side.ask(full):
                raise refuse(f"{path} does not exist in {revision_text} ({commit[:12]})")
            side.paths.append(full)
        if sysroot:
            relative = _relative(os.path.relpath(os.path.realpath(sysroot), os.path.realpath(top)))
            side.sysroot = os.path.join(directory, *relative.split("/")) if relative else None
    except BaseException:
        side.cleanup()
        raise
    return side


# -- signals ---------------------------------------------------------------------------------
#
# SIGTERM (a CI job cancelled, a timeout), SIGHUP and SIGINT raise SystemExit, so the `finally`
# of the diff removes the directories; while one is made or removed, a signal waits (_held).

_hold = 0
_pending: list[int] = []


def _on_signal(signum, _frame) -> None:
    if _hold:
        _pending.append(signum)
        return
    raise SystemExit(128 + signum)


class _held:
    def __enter__(self):
        global _hold
        _hold += 1

    def __exit__(self, *exc_info):
        global _hold
        _hold -= 1
        if not _hold and _pending:
            signum = _pending[0]
            _pending.clear()
            raise SystemExit(128 + signum)
        return False


class removed_on_signals:
    """``with removed_on_signals():`` SIGTERM, SIGHUP and SIGINT end the process through Python's
    exception handling (so every ``finally`` runs) instead of killing it; a signal the process
    ignores stays ignored.  Only in the main thread (elsewhere a no-op)."""

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name))

    def __enter__(self):
        self.saved = {}
        for signum in self.SIGNALS:
            try:
                old = signal.getsignal(signum)
                if old in (signal.SIG_DFL, signal.default_int_handler):
                    signal.signal(signum, _on_signal)
                    self.saved[signum] = old
            except (ValueError, OSError):  # not the main thread
                pass
        return self

    def __exit__(self, *exc_info):
        for signum, old in self.saved.items():
            signal.signal(signum, old)
        return False
