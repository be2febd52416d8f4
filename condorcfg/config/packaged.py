"""The root configuration file HTCondor's packages install as ``/etc/condor/condor_config``.

A host installed from HTCondor's RPM or Debian packages reads ``/etc/condor/condor_config``
first; a pool's repository usually holds only what goes into ``config.d``.  So that a pool role
can say "this host runs the stock root file of release X", the packaged file of every release
series condorcfg knows is shipped as data: ``templates/packaged/<flavor>/condor_config-<series>``
(package ``condorcfg.templates``), byte for byte what the package installs - HTCondor's
``src/condor_examples/condor_config.generic`` with ``condor_config.generic.rpm.patch`` or
``condor_config.generic.debian.patch`` applied, as its CMake build does for a package build.
``templates/packaged/README.md`` records where each file comes from.

The files are the one source of truth: :data:`SERIES` is the series for which files are present.
"""
from __future__ import annotations

from importlib import resources

from condorcfg.diagnostics import CondorcfgError, error

PACKAGED_PATH = "/etc/condor/condor_config"  # where the packages install the file
FLAVORS = ("rpm", "debian")  # rpm: EL/Fedora/openSUSE/Amazon Linux; debian: Debian and Ubuntu
DEFAULT_FLAVOR = "rpm"
_PREFIX = "condor_config-"


def _folder(flavor: str):
    return resources.files("condorcfg.templates").joinpath("packaged", flavor)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _series_of(flavor: str) -> list[str]:
    """The series with a file for ``flavor``, oldest first."""
    folder = _folder(flavor)
    found = [entry.name[len(_PREFIX):] for entry in folder.iterdir()
             if entry.name.startswith(_PREFIX) and entry.is_file()] if folder.is_dir() else []
    return sorted(found, key=_version)


SERIES: list[str] = _series_of(DEFAULT_FLAVOR)  # e.g. ["10.0", "23.0", ..., "25.14"], oldest first


def series_for(release: str | None, flavor: str = DEFAULT_FLAVOR) -> str:
    """The shipped series whose file a host of ``release`` has: the newest not newer than it.

    ``release`` is a :mod:`condorcfg.releases` name (``25.0``, ``24.0.24``); None means the base
    release (the one condorcfg reads as).  A name condorcfg has no tables for, or a release
    older than every shipped file, gives a :class:`CondorcfgError`.
    """
    from condorcfg import releases

    if flavor not in FLAVORS:
        raise CondorcfgError(error(f"no packaged root configuration for flavor {flavor!r}; "
                                   f"choose one of {', '.join(FLAVORS)}", code="packaged-root"))
    try:
        resolved = releases.resolve(release) if release is not None else releases.base()
    except ValueError as exc:
        raise CondorcfgError(error(f"packaged root configuration: {exc}", code="packaged-root")) from None
    wanted = _version(resolved)[:2]
    shipped = SERIES if flavor == DEFAULT_FLAVOR else _series_of(flavor)
    older = [series for series in shipped if _version(series) <= wanted]
    if not older:
        raise CondorcfgError(error(
            f"no packaged {PACKAGED_PATH} is shipped for HTCondor {resolved} ({flavor}): the oldest shipped "
            f"series is {shipped[0] if shipped else '(none)'}; name the root configuration file explicitly",
            code="packaged-root"))
    return older[-1]


def packaged_label(series: str, flavor: str = DEFAULT_FLAVOR) -> str:
    """How the shipped file of ``series`` is named in diagnostics: ``<packaged 25.0 /etc/condor/condor_config>``
    (``<packaged 25.0 debian /etc/condor/condor_config>`` for the Debian file)."""
    middle = series if flavor == DEFAULT_FLAVOR else f"{series} {flavor}"
    return f"<packaged {middle} {PACKAGED_PATH}>"


def packaged_root(release: str | None, flavor: str = DEFAULT_FLAVOR) -> tuple[str, str]:
    """(text, label) of the ``/etc/condor/condor_config`` that HTCondor ``release``'s ``flavor``
    package ("rpm", the default, or "debian") installs; see :func:`series_for` for the choice."""
    series = series_for(release, flavor)
    text = _folder(flavor).joinpath(_PREFIX + series).read_bytes().decode("utf-8")
    return text, packaged_label(series, flavor)


def packaged_file(release: str | None, flavor: str = DEFAULT_FLAVOR) -> tuple[str, str]:
    """(path, label) of that file as installed with condorcfg, for the reader to open like any other."""
    import os

    series = series_for(release, flavor)
    entry = _folder(flavor).joinpath(_PREFIX + series)
    path = os.fspath(entry) if isinstance(entry, os.PathLike) else None
    if path is None or not os.path.isfile(path):  # (a zipped install has no file to open)
        raise CondorcfgError(error(f"the packaged {PACKAGED_PATH} of {series} is not a file of this installation "
                                   f"of condorcfg; keep the root configuration file in the repository instead",
                                   code="packaged-root"))
    return path, packaged_label(series, flavor)
