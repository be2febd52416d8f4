"""The host's file tree as a pool repository assembles it: a sysroot, mounts, removals.

HTCondor names absolute paths (``LOCAL_CONFIG_DIR = /etc/condor/config.d``); a repository keeps
the files elsewhere.  A :class:`HostView` says where each host path comes from:

* ``mounts``: a host folder assembled from repository folders in order (a deployment copying
  them one after the other: on equal file names the later folder wins), or one host file taken
  from one repository file under any name (a per-role variant installed as ``91_local.config``);
  a mounted ``*.j2`` file is a Jinja2 template, rendered with ``variables`` and seen without
  its ``.j2`` (as Ansible's ``template`` module installs it);
* ``sysroot``: a repository folder standing for the host's ``/``, for every other path;
* ``removed``: host paths the deployment deletes (a packaged ``config.d`` file), absent
  whatever the sysroot holds;
* ``root_path``: where the host has the file HTCondor reads first, so ``CONFIG_ROOT`` is that
  file's folder *as the host sees it* and ``$(CONFIG_ROOT)/config.d`` goes through the view.

A path the view does not cover is read as it is (the reader's repository mode then reports it
as outside the configuration).  Plain data: built by :mod:`condorcfg.roles`, read by the reader.
"""
from __future__ import annotations

import os
import posixpath

from condorcfg.inputs import within
from condorcfg.records import factory, record

# Called with each repository path before it is looked at (a git side writes a revision's files as
# they are asked for: condorcfg.gitside); None when nobody watches.
path_observer = None

TEMPLATE_SUFFIX = ".j2"
DEFAULT_ROOT_PATH = "/etc/condor/condor_config"  # where HTCondor looks first without CONDOR_CONFIG
# Where HTCondor finds its root file (besides CONDOR_CONFIG): a root kept at <folder>/<one of these>
# is that host's file, so <folder> is the host's /
ROOT_LOCATIONS = ("etc/condor/condor_config", "usr/local/etc/condor_config", "etc/condor_config")


@record
class Mount:
    host: str                 # the host path, absolute and normalised
    sources: list[str]        # repository paths, absolute; a folder mount's in order (the last wins)
    folder: bool = True


@record
class HostView:
    sysroot: str | None = None
    mounts: list[Mount] = factory(list)
    removed: list[str] = factory(list)
    root_path: str | None = None
    variables: dict = factory(dict)
    labels: dict = factory(dict)  # repository path -> how reports name it (the shipped packaged root)

    def locate(self, host_path: str) -> str | None:
        """The repository file (or folder) standing for ``host_path``; None when the deployment removes
        it.  A path the view does not cover is returned as it is."""
        path = host_key(host_path)
        if self._removed(path):
            return None
        for mount in self._mounts_for(path):
            if not mount.folder:
                return mount.sources[0]
            rest = path[len(mount.host):].lstrip("/")
            for source in reversed(mount.sources):
                found = _entry(source, rest)
                if found is not None:
                    return found
            return os.path.join(mount.sources[-1], rest) if rest else mount.sources[-1]
        if self.sysroot:
            return os.path.join(self.sysroot, path.lstrip("/"))
        return host_path

    def covers(self, host_path: str) -> bool:
        """Whether the view decides where ``host_path`` comes from (a mount, a removal or the sysroot)."""
        path = host_key(host_path)
        return bool(self.sysroot) or self._removed(path) or bool(self._mounts_for(path))

    def listing(self, host_folder: str, skip=()) -> list[str] | None:
        """The file names the host has in ``host_folder`` (unsorted); None when the folder is not there.
        ``skip``: repository folders (of :meth:`sources`) not to list (links leading out of the project)."""
        folder = host_key(host_folder)
        names: set[str] = set()
        found = False
        covering = [m for m in self._mounts_for(folder) if m.folder]
        if covering:  # (the innermost mount assembles this folder; the sysroot's copy is not the host's)
            mount = covering[0]
            rest = folder[len(mount.host):].lstrip("/")
            for source in mount.sources:
                full = observed(os.path.join(source, rest) if rest else source)
                if full in skip:
                    continue
                try:
                    entries = os.listdir(full)
                except (OSError, ValueError):
                    continue
                found = True
                names.update(_host_name(name) for name in entries)
        elif self.sysroot and os.path.join(self.sysroot, folder.lstrip("/")) not in skip:
            try:
                names.update(os.listdir(observed(os.path.join(self.sysroot, folder.lstrip("/")))))
                found = True
            except (OSError, ValueError):
                pass
        for mount in self.mounts:  # files (and folders) mounted right inside it
            if posixpath.dirname(mount.host) == folder:
                names.add(posixpath.basename(mount.host))
                found = True
        if not found:
            return None
        return [name for name in names if not self._removed(posixpath.join(folder, name))]

    def sources(self, host_folder: str) -> list[str]:
        """The repository folders that assemble ``host_folder`` (listed or not)."""
        folder = host_key(host_folder)
        covering = [m for m in self._mounts_for(folder) if m.folder]
        if covering:
            rest = folder[len(covering[0].host):].lstrip("/")
            return [os.path.join(source, rest) if rest else source for source in covering[0].sources]
        return [os.path.join(self.sysroot, folder.lstrip("/"))] if self.sysroot else []

    def renders(self, repository_path: str) -> bool:
        """Whether the file is a template to render before reading (a mounted ``*.j2``)."""
        if not repository_path.endswith(TEMPLATE_SUFFIX):
            return False
        real = os.path.realpath(repository_path)
        return any(real == os.path.realpath(s) or within(real, os.path.realpath(s))
                   for mount in self.mounts for s in mount.sources)

    def folders(self) -> list[str]:
        """Every repository folder the view can read from (the reader counts them as given)."""
        found = [self.sysroot] if self.sysroot else []
        for mount in self.mounts:
            found += mount.sources if mount.folder else [os.path.dirname(s) for s in mount.sources]
        return found

    def _mounts_for(self, path: str) -> list[Mount]:
        """The mounts holding ``path``, innermost first."""
        holding = [m for m in self.mounts if path == m.host or (m.folder and path.startswith(m.host.rstrip("/") + "/"))]
        return sorted(holding, key=lambda m: -len(m.host))

    def _removed(self, path: str) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in self.removed)


def shown_path(path: str, cwd: str | None = None) -> str:
    """How a repository file the view found is named in reports: relative to the current directory when it
    lies below it (as the user would type it), else as it is."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path, cwd or os.getcwd())
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative


def host_key(path: str) -> str:
    """A host path as the view compares it: absolute, normalised, no trailing slash."""
    normal = posixpath.normpath("/" + path.replace(os.sep, "/").lstrip("/"))
    return "/" + normal.lstrip("/")


def root_path_in(root: str, sysroot: str | None) -> str | None:
    """The host path of ``root`` when it lies in ``sysroot`` (``<sysroot>/etc/condor/condor_config`` is
    ``/etc/condor/condor_config``); None otherwise."""
    if not sysroot:
        return None
    real_root, real_sysroot = os.path.realpath(root), os.path.realpath(sysroot)
    if not within(real_root, real_sysroot):
        return None
    return host_key(os.path.relpath(real_root, real_sysroot))


def host_folder_of(root: str) -> str | None:
    """The folder standing for the host's / of a root kept at ``<folder>/etc/condor/condor_config`` (or
    another place HTCondor finds its root file); None when the root is not kept that way."""
    normal = os.path.abspath(root).replace(os.sep, "/")
    for location in ROOT_LOCATIONS:
        if normal.endswith("/" + location):
            return normal[:-len(location) - 1] or "/"
    return None


def _entry(source: str, rest: str) -> str | None:
    """The file (or folder) ``rest`` of a mounted folder, or its template; None when it has neither."""
    full = observed(os.path.join(source, rest) if rest else source)
    if os.path.lexists(full):
        return full
    if rest and os.path.lexists(observed(full + TEMPLATE_SUFFIX)):
        return full + TEMPLATE_SUFFIX
    return None


def _host_name(name: str) -> str:
    return name[:-len(TEMPLATE_SUFFIX)] if name.endswith(TEMPLATE_SUFFIX) and len(name) > 3 else name


def observed(path: str) -> str:
    """``path``, after the observer (if any) has seen it."""
    if path_observer is not None:
        path_observer(path)
    return path
