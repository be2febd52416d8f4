"""Host facts, ``CONDOR_CONFIG`` discovery and ``_CONDOR_*`` environment overrides.

HTCondor inserts detected values before reading any file (``ARCH``, ``DETECTED_*`` ...),
the host name after the main file, and re-inserts the "special" macros (host name,
subsystem, user, addresses) after everything else, so a file cannot override them
(config-language.md sections 2, 15, 16).  The facts come from the MachineProfile, not
from the machine running condorcfg, so a configuration can be checked for another host.
"""
from __future__ import annotations

import os

from condorcfg.config import statements as st
from condorcfg.config.model import Config, Definition
from condorcfg.diagnostics import Diagnostic, Location, warning

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Mapping

_BLANKS = " \t\n\v\f\r"
SYSTEM_CONFIG_LOCATIONS = ("/etc/condor/condor_config", "/usr/local/etc/condor_config",
                           "~condor/condor_config")


def discover_config(environ: Mapping[str, str]) -> tuple[list[str], list[Diagnostic], bool]:
    """Where HTCondor finds its main config without --config: (paths, diagnostics, only_env)."""
    value = environ.get("CONDOR_CONFIG")
    if value is not None:
        if value.strip().upper() == "ONLY_ENV":
            return [], [], True
        if value.rstrip().endswith("|"):
            return [value], [], False
        if value and os.path.isfile(value):
            return [value], [], False
        problem = "is a directory; point it at a file" if value and os.path.isdir(value) else "does not exist"
        return [], [warning(f"CONDOR_CONFIG={value!r} {problem}; using built-in defaults only",
                            code="no-config")], False
    for candidate in SYSTEM_CONFIG_LOCATIONS:
        path = os.path.expanduser(candidate)
        if os.path.isfile(path) and os.access(path, os.R_OK):
            return [path], [], False
    return [], [warning("no configuration found: CONDOR_CONFIG is not set and none of "
                        f"{', '.join(SYSTEM_CONFIG_LOCATIONS)} exists; pass --config FILE",
                        code="no-config")], False


def host_definition(name: str, value: str) -> Definition:
    return Definition(name, value, Location("<detected>"), origin="host")


def insert_hostnames(config: Config, profile) -> None:
    network = config.value("NETWORK_HOSTNAME")
    full = network or profile.hostname
    config.define(host_definition("FULL_HOSTNAME", full))
    config.define(host_definition("HOSTNAME", full.split(".", 1)[0]))


def apply_environment(config: Config, environ: Mapping[str, str]) -> None:
    for key, value in environ.items():
        if len(key) > 8 and key[:8].lower() == "_condor_":
            name = key[8:]
            if not st.is_valid_name(name):
                continue
            where = Location("<environment>")
            raw = value.lstrip(_BLANKS)
            existing = config.stored(name)
            if existing is not None and not (existing.matches_default and "." not in name):
                # HTCondor expands self references only when the knob already exists; for a new
                # knob `_CONDOR_X=$(X) b` stays a self reference (HTCondor hangs reading it,
                # condorcfg reports the cycle)
                raw = config.expand_self(name, raw, where)
            config.define(Definition(name, raw, where, origin="env", text=f"{key}={value}"))


def insert_special(config: Config, profile, facts: dict, environ: Mapping[str, str]) -> None:
    full = config.stored("FULL_HOSTNAME").raw
    network = config.value("NETWORK_HOSTNAME")
    if network:
        full = network
    config.define(host_definition("FULL_HOSTNAME", full))
    config.define(host_definition("HOSTNAME", full.split(".", 1)[0]))
    config.define(host_definition("SUBSYSTEM", config.subsystem))
    user = environ.get("USER") or environ.get("LOGNAME")
    if not user:
        try:
            import pwd

            user = pwd.getpwuid(os.getuid()).pw_name
        except (ImportError, KeyError):
            user = ""
    if user:
        config.define(host_definition("USERNAME", user))
    addresses = _addresses(config, facts)
    for name in ("IP_ADDRESS", "IPV4_ADDRESS", "IPV6_ADDRESS"):
        if addresses.get(name):
            config.define(host_definition(name, addresses[name]))
        elif config.stored(name) is not None:
            config.undefine(name)
    if facts.get("DETECTED_CPUS"):
        config.define(host_definition("DETECTED_CPUS", facts["DETECTED_CPUS"]))
    for name in ("FILESYSTEM_DOMAIN", "UID_DOMAIN"):
        if not config.value(name):  # still undefined (or empty): the full host name
            config.define(host_definition(name, full))


def _addresses(config: Config, facts: dict) -> dict[str, str]:
    """The address macros after NETWORK_INTERFACE picks the interface HTCondor would use.

    A literal address is used as is; a pattern (``192.168.*``) keeps the profile's address only
    if it matches; an interface name cannot be checked against a profile, so the profile's
    address is kept.
    """
    wanted = (config.value("NETWORK_INTERFACE") or "").strip()
    addresses = {name: facts.get(name, "") for name in ("IP_ADDRESS", "IPV4_ADDRESS", "IPV6_ADDRESS")}
    if not wanted or wanted == "*":
        return addresses  # (the usual case: the imports below cost start-up time)
    import fnmatch
    import ipaddress

    try:
        literal = ipaddress.ip_address(wanted)
    except ValueError:
        literal = None
    if literal is not None:
        key = "IPV6_ADDRESS" if literal.version == 6 else "IPV4_ADDRESS"
        return {"IP_ADDRESS": wanted, key: wanted}
    if "*" in wanted or any(c.isdigit() for c in wanted.split(".")[0]):
        return {name: value for name, value in addresses.items() if value and fnmatch.fnmatch(value, wanted)}
    if "." in wanted:  # a host name, not an interface name: no interface has that address
        return {}
    return addresses
