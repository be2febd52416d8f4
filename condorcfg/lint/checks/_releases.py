"""Which HTCondor releases know a knob (for --target-version; data: condorcfg.releases)."""
from __future__ import annotations


def _base_name(name: str) -> str:
    return name.split(".")[-1].upper()  # SCHEDD.MAX_JOBS_RUNNING is MAX_JOBS_RUNNING


def knows(release: str, name: str) -> bool:
    """Does ``release``'s knob table have ``name`` (its SUBSYS./LOCALNAME. prefix ignored)?"""
    from condorcfg import releases

    return releases.has_knob(release, _base_name(name))


def releases_knowing(name: str) -> list[str]:
    """The releases (oldest first) whose knob table has ``name``."""
    from condorcfg import releases

    if not releases.knob_in_any_release(_base_name(name)):
        return []
    return [release for release in releases.known() if knows(release, name)]
