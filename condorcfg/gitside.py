"""A side of ``condorcfg diff`` taken from git: ``HEAD~1``, ``main``, or ``git:REV:PATH``.

The tree of the revision is read from git's objects (``git ls-tree`` and ``git cat-file``: the
committed bytes, whatever the revision's .gitattributes say; the work tree and the index are not
touched) into a private temporary directory, bounded in files and bytes; links and submodules are
left out, so nothing in the tree points outside it.  A bare revision stands
for the project's roots (its settings name them, relative to the repository) and its sysroot
is mapped the same way; ``git:REV:PATH`` names the configuration itself.  Nothing from the
revision is ever run.
"""
from __future__ import annotations

import os
import subprocess
import tempfile

from condorcfg.diagnostics import CondorcfgError, error
from condorcfg.records import factory, record

MAX_TREE_BYTES = 256 * 1024 * 1024  # what one revision may unpack to


@record
class GitSide:
    label: str                      # as the user wrote it
    revision: str                   # the commit it resolved to
    paths: list = factory(list)     # the configuration in the unpacked tree
    sysroot: str | None = None
    directory: str = ""             # the temporary tree (removed by cleanup())

    def cleanup(self) -> None:
        import shutil

        shutil.rmtree(self.directory, ignore_errors=True)


def _git(args: list[str], cwd: str, binary: bool = False):
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=120, check=False,
                              text=not binary)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CondorcfgError(error(f"cannot run git: {exc}", "<git>", code="git")) from None


def repository_top(cwd: str) -> str | None:
    done = _git(["rev-parse", "--show-toplevel"], cwd)
    return done.stdout.strip() if done.returncode == 0 else None


def commit_of(text: str, cwd: str) -> str | None:
    """The commit ``text`` names in the repository at ``cwd`` (None when it names none)."""
    if not text or text.startswith("-"):
        return None
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{text}^{{commit}}"], cwd)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def is_git_side(text: str, cwd: str) -> bool:
    """``git:REV:PATH``, or a revision that is not also a path here."""
    if text.startswith("git:"):
        return True
    return not os.path.exists(text) and repository_top(cwd) is not None and commit_of(text, cwd) is not None


def open_side(text: str, cwd: str, roots: list[str], sysroot: str | None) -> GitSide:
    """Unpack the revision ``text`` names; ``roots``/``sysroot`` (absolute, from the project settings) say
    what a bare revision stands for.  CondorcfgError for anything that cannot be used."""
    top = repository_top(cwd)
    if top is None:
        raise CondorcfgError(error(f"{text!r} is not a file, and {cwd} is not in a git repository", "<command line>",
                                   code="git"))
    if text.startswith("git:"):
        revision_text, _, inside = text[4:].partition(":")
        if not inside:
            raise CondorcfgError(error(f"{text!r}: write git:REV:PATH (the path inside the repository)",
                                       "<command line>", code="git"))
        wanted = [inside]
    else:
        revision_text, wanted = text, [os.path.relpath(os.path.realpath(r), os.path.realpath(top)) for r in roots]
        if not wanted:
            raise CondorcfgError(error(f"{text!r} is a revision: say which configuration it means with "
                                       f"git:{text}:PATH, or set roots in the project settings", "<command line>",
                                       code="git"))
    commit = commit_of(revision_text, cwd)
    if commit is None:
        raise CondorcfgError(error(f"{revision_text!r} is not a commit of the repository at {top}", "<command line>",
                                   code="git"))
    directory = tempfile.mkdtemp(prefix="condorcfg-git-")
    side = GitSide(label=text, revision=commit, directory=directory)
    try:
        _unpack(commit, top, directory)
        side.paths = [os.path.join(directory, path) for path in wanted]
        for path, written in zip(side.paths, wanted):
            inside = os.path.realpath(path)
            if os.path.isabs(written) or not inside.startswith(os.path.realpath(directory) + os.sep):
                raise CondorcfgError(error(f"{written!r} is not a path inside the repository; write it relative to "
                                           f"the repository's top", "<command line>", code="git"))
            if not os.path.exists(path):
                raise CondorcfgError(error(f"{os.path.relpath(path, directory)} does not exist in {revision_text} "
                                           f"({commit[:12]})", "<command line>", code="git"))
        if sysroot:
            relative = os.path.relpath(os.path.realpath(sysroot), os.path.realpath(top))
            side.sysroot = os.path.join(directory, relative) if not relative.startswith("..") else None
    except BaseException:
        side.cleanup()
        raise
    return side


MAX_TREE_FILES = 100_000  # files one revision may hold


def _unpack(commit: str, top: str, directory: str) -> None:
    """The committed bytes of every regular file of ``commit`` under ``directory`` (git ls-tree + cat-file:
    no .gitattributes filter or export-ignore applies; links and submodules are left out)."""
    listing = _git(["ls-tree", "-r", "-z", "-l", "--full-tree", commit], top, binary=True)
    if listing.returncode != 0:
        raise CondorcfgError(error(f"git ls-tree {commit[:12]} failed: {listing.stderr[:200]!r}", "<git>", code="git"))
    entries, total = [], 0
    for line in listing.stdout.split(b"\0"):
        if not line:
            continue
        meta, _, raw_path = line.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue  # (a link could point anywhere; a submodule is another repository)
        path = os.fsdecode(raw_path)
        parts = path.split("/")
        if path.startswith("/") or ".." in parts or "" in parts:
            continue
        total += int(size)
        entries.append((sha.decode(), path))
        if len(entries) > MAX_TREE_FILES or total > MAX_TREE_BYTES:
            raise CondorcfgError(error(f"the tree of {commit[:12]} holds more than {MAX_TREE_FILES} files or "
                                       f"{MAX_TREE_BYTES} bytes", "<git>", code="git"))
    try:
        done = subprocess.run(["git", "cat-file", "--batch"], cwd=top, input=b"".join(
            sha.encode() + b"\n" for sha, _path in entries), capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CondorcfgError(error(f"git cat-file failed: {exc}", "<git>", code="git")) from None
    data, offset = done.stdout, 0
    for sha, path in entries:
        end = data.index(b"\n", offset)
        header = data[offset:end].split()
        size = int(header[2])
        body = data[end + 1:end + 1 + size]
        offset = end + 1 + size + 1
        target = os.path.join(directory, *path.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(body)
