"""A side of ``condorcfg diff`` taken from git: ``HEAD~1``, ``main``, or ``git:REV:PATH``.

The tree of the revision is read from git's objects (``git archive``; the work tree and the
index are not touched) into a private temporary directory, bounded in size, and extracted
with tarfile's ``data`` filter (no links out of it, no device files).  A bare revision stands
for the project's roots (its settings name them, relative to the repository) and its sysroot
is mapped the same way; ``git:REV:PATH`` names the configuration itself.  Nothing from the
revision is ever run.
"""
from __future__ import annotations

import os
import subprocess
import tarfile
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
        for path in side.paths:
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


def _unpack(commit: str, top: str, directory: str) -> None:
    archive = os.path.join(directory, ".condorcfg-revision.tar")
    with open(archive, "wb") as handle:
        try:
            done = subprocess.run(["git", "archive", "--format=tar", commit], cwd=top, stdout=handle,
                                  stderr=subprocess.PIPE, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CondorcfgError(error(f"git archive failed: {exc}", "<git>", code="git")) from None
    if done.returncode != 0:
        raise CondorcfgError(error(f"git archive {commit[:12]} failed: {done.stderr.decode(errors='replace')[:200]}",
                                   "<git>", code="git"))
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        if sum(m.size for m in members) > MAX_TREE_BYTES:
            raise CondorcfgError(error(f"the tree of {commit[:12]} is larger than {MAX_TREE_BYTES} bytes",
                                       "<git>", code="git"))
        tar.extractall(directory, members=members, filter="data")
    os.unlink(archive)
