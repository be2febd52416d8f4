"""Who HTCondor lets in at a permission level, and where it looks the lists up: the facts, in one place.

Every SEC and UPG rule that says what a level without an ALLOW list does, which levels imply
which, or which knobs a daemon consults, reads it here.  The facts come from HTCondor's source
(github.com/htcondor/htcondor; the 25.x line unless a release is named):

* ``src/condor_includes/condor_perms.h``, ``enum DCpermission``: the permission levels.  ALLOW
  is internal (always granted); OWNER was removed in 9.9.0 (commit 775b72e25d, HTCONDOR-1023: its
  commands need ADMINISTRATOR since), so from 10.0 on ALLOW_OWNER is no permission list.
* ``src/condor_utils/condor_perms.cpp``, ``DCpermissionHierarchy::aImpliedNext``: a grant of
  ADMINISTRATOR or DAEMON includes WRITE; WRITE, NEGOTIATOR, CONFIG and ADVERTISE_* include READ
  (ADVERTISE_* since 9.11.0/10.0.0, commit 32e99bf0f8, HTCONDOR-1164).  ``aConfigNext`` /
  ``aConfigNextLegacy``: the order in which a level's list is looked up: the level itself, then
  DAEMON for ADVERTISE_*, then (with LEGACY_ALLOW_SEMANTICS, and in every release before 9.0)
  WRITE for DAEMON, and finally DEFAULT.
* ``src/condor_io/condor_secman.cpp``, ``SecMan::getSecSetting``: at each step of that order the
  daemon reads ``ALLOW_<LEVEL>_<SUBSYS>`` (its own subsystem: ALLOW_NEGOTIATOR_SCHEDD is the
  NEGOTIATOR list of the condor_schedd), then ``ALLOW_<LEVEL>`` (which ``param()`` also finds as
  ``<SUBSYS>.ALLOW_<LEVEL>``); ``param_ctx`` in ``src/condor_utils/condor_config.cpp`` returns
  nothing for an empty value, so ``ALLOW_X =`` is the same as no line.
* ``src/condor_io/condor_ipverify.cpp``, ``IpVerify::Init``: with no ALLOW list (or ``DENY_<L> =
  *``) every level other than READ and WRITE is "optimized to deny everyone"; READ and WRITE
  keep a table, and ``IpVerify::Verify`` grants them only to the identities that a level implying
  them grants (``DirectlyImpliedBy``).  Since 8.9.0 (commit 1dfa2336e3; first stable release 9.0.0);
  until 8.8 a level with neither an ALLOW nor a DENY list was open to anyone, except CONFIG.
  HOSTALLOW_* / HOSTDENY_* were merged into the lists until 8.9.1 (commit 03a47b6e45; 9.0.0) and
  are never read since.  The manual's security chapter agrees ("If macros are omitted, the
  default behavior is to deny authorization for all users"); its later sentence "No ALLOW means
  allow anyone" describes 8.8.
* ``src/condor_utils/param_info.in``: ALLOW_CLIENT has the built-in default ``*``; no other
  ALLOW_* or DENY_* list has one.
"""
from __future__ import annotations

import re
from typing import NamedTuple

# enum DCpermission (condor_perms.h), 25.x, without the internal ALLOW level.
LEVELS = ("READ", "WRITE", "NEGOTIATOR", "ADMINISTRATOR", "CONFIG", "DAEMON", "SOAP", "DEFAULT", "CLIENT",
          "ADVERTISE_STARTD", "ADVERTISE_SCHEDD", "ADVERTISE_MASTER")
ADVERTISE_LEVELS = ("ADVERTISE_STARTD", "ADVERTISE_SCHEDD", "ADVERTISE_MASTER")
# Levels whose grant lets a client change something (everything a READ grant does not cover), for the
# rules about wide-open lists; DEFAULT, CLIENT and SOAP are not levels a command is checked at.
ABOVE_READ = ("WRITE", "NEGOTIATOR", "ADMINISTRATOR", "CONFIG", "DAEMON") + ADVERTISE_LEVELS
# Levels that SEC_<LEVEL>_<SETTING> knobs can name besides DEFAULT (the same enum; SecMan::getSecSetting).
SECURITY_SETTING_LEVELS = ("DEFAULT",) + tuple(level for level in LEVELS if level != "DEFAULT")

DEFAULT_DENY_SINCE = "9.0"         # 8.9.0: a level without an ALLOW list denies (IpVerify::Init)
HOSTALLOW_READ_UNTIL = "8.8"       # 8.9.1 / 9.0: HOSTALLOW_* and HOSTDENY_* no longer read
OWNER_REMOVED_IN = "10.0"          # 9.9.0: the OWNER level is gone (its commands are ADMINISTRATOR's)
ADVERTISE_IMPLIES_READ_SINCE = "10.0"  # 9.11.0 and 10.0.0: ADVERTISE_* imply READ
BUILTIN_ALLOW = {"CLIENT": "*"}    # param_info.in defaults

# What stops working when a level refuses everyone (for messages; the manual's table of access levels, security
# chapter); (level, daemon) entries say it for one daemon's list.
_REFUSED = {
    "READ": "condor_q, condor_status and the other read-only queries are refused",
    "WRITE": "condor_submit and the other commands that change the job queue are refused",
    "NEGOTIATOR": "the negotiator can neither start negotiating with a schedd nor tell a startd of its match, so "
                  "no job is matched",
    ("NEGOTIATOR", "SCHEDD"): "the negotiator cannot start negotiating with the schedd, so none of its jobs is "
                              "matched",
    ("NEGOTIATOR", "STARTD"): "the negotiator cannot tell the startd of its matches",
    "ADMINISTRATOR": "condor_off, condor_on, condor_restart, condor_reconfig and condor_drain stop working",
    "CONFIG": "condor_config_val -set/-rset is refused (as it is by default)",
    "DAEMON": "the daemons of other hosts cannot send their daemon-to-daemon commands (ads, claims, job start)",
    "ADVERTISE_STARTD": "the collector refuses the ads of the startds of other hosts",
    "ADVERTISE_SCHEDD": "the collector refuses the ads of the schedds of other hosts",
    "ADVERTISE_MASTER": "the collector refuses the ads of the masters of other hosts",
    "CLIENT": "its tools and daemons refuse to talk to other daemons",
    "DEFAULT": "every level without a list of its own is refused",
    "SOAP": "nothing (SOAP is no longer used)",
}


def _release(release: str | None) -> tuple[int, ...]:
    """``"25.14.1"`` -> (25, 14, 1); None: the current line (25.x)."""
    if release is None:
        return (99,)
    found = re.match(r"\s*[vV]?(\d+(?:\.\d+)*)", str(release))
    if not found:
        raise ValueError(f"not an HTCondor release: {release!r}")
    return tuple(int(part) for part in found.group(1).split("."))


def _before(release: str | None, boundary: str) -> bool:
    return _release(release) < _release(boundary)


def levels(release: str | None = None) -> tuple[str, ...]:
    """The permission levels ``release`` has (OWNER only before 10.0)."""
    return LEVELS + (("OWNER",) if _before(release, OWNER_REMOVED_IN) else ())


def is_level(name: str, release: str | None = None) -> bool:
    return name.upper() in levels(release)


def default_for(level: str, release: str | None = None) -> str:
    """``"allow"`` or ``"deny"``: what ``release`` does at ``level`` when the configuration gives it no ALLOW
    list (none along :func:`lookup_levels`) and no DENY list.

    Since 9.0 every level is "deny" (IpVerify::Init) except the internal ALLOW level; READ and WRITE are
    then still granted to the identities that a level implying them grants (:func:`granted_through`).
    Before 9.0 every level except CONFIG was "allow".  (ALLOW_CLIENT has the built-in list ``*``: a
    configuration that does not write it gets "allow" at CLIENT through that list, see BUILTIN_ALLOW.)
    """
    upper = level.upper()
    if upper == "ALLOW":
        return "allow"
    if upper not in levels(release):
        raise ValueError(f"{level} is not a permission level of HTCondor {release or '25'}")
    if _before(release, DEFAULT_DENY_SINCE):
        return "deny" if upper == "CONFIG" else "allow"
    return "deny"


def implied_by(level: str, release: str | None = None) -> tuple[str, ...]:
    """The levels whose grant directly includes ``level`` (DCpermissionHierarchy::DirectlyImpliedBy)."""
    upper = level.upper()
    if upper == "WRITE":
        return ("ADMINISTRATOR", "DAEMON")
    if upper == "READ":
        advertise = () if _before(release, ADVERTISE_IMPLIES_READ_SINCE) else ADVERTISE_LEVELS
        return ("WRITE", "NEGOTIATOR", "CONFIG") + advertise
    return ()


def granted_through(level: str, release: str | None = None) -> tuple[str, ...]:
    """Every level whose grant includes ``level``, directly or through another (READ: WRITE, NEGOTIATOR,
    CONFIG, ADVERTISE_*, ADMINISTRATOR, DAEMON)."""
    found: list[str] = []
    todo = list(implied_by(level, release))
    while todo:
        one = todo.pop(0)
        if one not in found:
            found.append(one)
            todo.extend(implied_by(one, release))
    return tuple(found)


def implies(level: str, release: str | None = None) -> tuple[str, ...]:
    """The levels a grant of ``level`` includes (ADMINISTRATOR: WRITE, READ)."""
    return tuple(other for other in levels(release) if level.upper() in granted_through(other, release))


def lookup_levels(level: str, release: str | None = None, legacy: bool = False) -> tuple[str, ...]:
    """The levels whose lists a daemon consults for ``level``, in order (aConfigNext/aConfigNextLegacy):
    ADVERTISE_STARTD -> DAEMON -> DEFAULT; DAEMON -> (WRITE, with LEGACY_ALLOW_SEMANTICS or before 9.0) ->
    DEFAULT.  The first list found is used, the later ones are not merged in."""
    chain = [level.upper()]
    if chain[0] in ADVERTISE_LEVELS:
        chain.append("DAEMON")
    if "DAEMON" in chain and (legacy or _before(release, DEFAULT_DENY_SINCE)):
        chain.append("WRITE")
    if chain[0] != "DEFAULT":
        chain.append("DEFAULT")
    return tuple(chain)


def lookup_knobs(level: str, daemon: str | None = None, kind: str = "ALLOW", release: str | None = None,
                 legacy: bool = False) -> list[str]:
    """The knob names ``daemon`` (a subsystem: SCHEDD, ...; None: any daemon) reads for its ``kind`` (ALLOW or
    DENY) list of ``level``, in order (SecMan::getSecSetting): per level of :func:`lookup_levels`,
    ``<KIND>_<LEVEL>_<DAEMON>``, ``<DAEMON>.<KIND>_<LEVEL>``, ``<KIND>_<LEVEL>``."""
    names = []
    for step in lookup_levels(level, release, legacy):
        if daemon:
            names += [f"{kind}_{step}_{daemon.upper()}", f"{daemon.upper()}.{kind}_{step}"]
        names.append(f"{kind}_{step}")
    return names


def refused(level: str, daemon: str | None = None) -> str:
    """What stops working when ``level`` refuses everyone (at ``daemon``, when given), for messages."""
    upper = level.upper()
    return _REFUSED.get((upper, (daemon or "").upper())) or _REFUSED.get(upper) or f"{upper} commands are refused"


class LevelKnob(NamedTuple):
    kind: str               # ALLOW, DENY, HOSTALLOW or HOSTDENY
    level: str | None       # the permission level (None: the name names none)
    daemon: str | None      # the daemon the list is for: an _<SUBSYS> suffix or a SUBSYS. prefix
    rest: str               # what follows KIND_ as written (NEGOTIATOR_SCHEDD)


_LEVEL_KNOB = re.compile(r"(?:([\w.]+)\.)?(HOSTALLOW|HOSTDENY|ALLOW|DENY)_(\w+)", re.IGNORECASE)


def parse_knob(name: str, release: str | None = None) -> LevelKnob | None:
    """``ALLOW_NEGOTIATOR_SCHEDD`` -> LevelKnob("ALLOW", "NEGOTIATOR", "SCHEDD", ...); None for names of another
    shape.  The level is the longest level name the text starts with (ADVERTISE_STARTD before a daemon
    suffix); a name whose text starts with no level of ``release`` gets level None (ALLOW_OWNER from 10.0 on)."""
    found = _LEVEL_KNOB.fullmatch(name)
    if not found:
        return None
    prefix, kind, rest = found.group(1), found.group(2).upper(), found.group(3).upper()
    prefix = prefix.rsplit(".", 1)[-1] if prefix else None  # (LOCALNAME.SUBSYS.X: the daemon is the last part)
    for level in sorted(levels(release), key=len, reverse=True):
        if rest == level or rest.startswith(level + "_"):
            suffix = rest[len(level) + 1:] or None
            return LevelKnob(kind, level, suffix or (prefix.upper() if prefix else None), rest)
    return LevelKnob(kind, None, prefix.upper() if prefix else None, rest)


def describe_levels(names) -> str:
    """``ALLOW_WRITE, ALLOW_NEGOTIATOR and ALLOW_CONFIG`` (for messages)."""
    names = list(names)
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + (names[-1] if names else "")
