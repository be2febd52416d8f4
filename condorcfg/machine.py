"""Machine profile: the host facts a configuration is read against.

HTCondor fills macros such as ``FULL_HOSTNAME``, ``DETECTED_CORES`` or
``OPSYS`` from the machine it runs on.  condorcfg reads them from a profile
(``--machine FILE``, YAML or JSON) so that a configuration can be checked for
a machine other than the one running the tool.  Without a profile the local
host is detected.  The same profile later sizes the slots.

Profile keys: ``hostname``, ``cpus``, ``memory`` (MiB), ``disk`` (KiB),
``swap`` (KiB), ``ip``, ``ipv6``, ``opsys``, ``arch``, ``gpus`` (a count or a list of
ids), ``resources`` (``{Tag: quantity | [ids]}``).
"""
from __future__ import annotations

import json
import os
import platform
import socket
from dataclasses import dataclass, field, fields

from condorcfg.diagnostics import CondorcfgError, error


@dataclass
class MachineProfile:
    hostname: str = "localhost.localdomain"
    cpus: int = 1
    memory: int = 1024  # MiB
    disk: int = 100 * 1024 * 1024  # KiB
    swap: int = 0  # KiB
    ip: str = "127.0.0.1"
    ipv6: str = ""  # empty: the host has no public IPv6 address
    opsys: str = "LINUX"
    arch: str = "X86_64"
    gpus: int | list[str] = 0
    resources: dict[str, int | float | list[str]] = field(default_factory=dict)
    source: str = "<detected>"

    @property
    def short_hostname(self) -> str:
        return self.hostname.split(".", 1)[0]

    def gpu_ids(self) -> list[str]:
        """GPU ids as HTCondor's discovery names them (``GPU-<n>`` style ids when only a count is given)."""
        if isinstance(self.gpus, list):
            return [str(g) for g in self.gpus]
        return [f"GPU-{i:08x}" for i in range(int(self.gpus or 0))]

    def host_facts(self) -> dict[str, str]:
        """The detected macros HTCondor defines before reading any file."""
        arch = self.arch.upper()
        opsys = self.opsys.upper()
        return {
            "FULL_HOSTNAME": self.hostname,
            "HOSTNAME": self.short_hostname,
            "IP_ADDRESS": self.ip,
            "IPV4_ADDRESS": self.ip if ":" not in self.ip else "",
            "IPV6_ADDRESS": self.ipv6 or (self.ip if ":" in self.ip else ""),
            "DETECTED_CORES": str(self.cpus),
            "DETECTED_PHYSICAL_CPUS": str(self.cpus),
            "DETECTED_CPUS": str(self.cpus),
            "DETECTED_CPUS_LIMIT": str(self.cpus),
            "DETECTED_MEMORY": str(self.memory),
            "OPSYS": opsys,
            "ARCH": arch,
            "UNAME_ARCH": platform.machine() if self.source == "<detected>" else arch.lower(),
            "UNAME_OPSYS": opsys.capitalize(),
        }


def _coerce(name: str, value, where: str):
    ints = {"cpus", "memory", "disk", "swap"}
    if name in ints:
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise CondorcfgError(error(f"machine profile key {name!r} must be a whole number, not {value!r}", where))
        if number < 0:
            raise CondorcfgError(error(f"machine profile key {name!r} must not be negative", where))
        return number
    if name == "gpus":
        if isinstance(value, list):
            return [str(v) for v in value]
        try:
            return int(value)
        except (TypeError, ValueError):
            raise CondorcfgError(error(f"machine profile key 'gpus' must be a count or a list of ids, not {value!r}", where))
    if name == "resources":
        if not isinstance(value, dict):
            raise CondorcfgError(error("machine profile key 'resources' must be a mapping of Tag: quantity or [ids]", where))
        return {str(k): ([str(i) for i in v] if isinstance(v, list) else v) for k, v in value.items()}
    return str(value)


def from_mapping(data: dict, source: str = "<profile>", base: MachineProfile | None = None) -> MachineProfile:
    """Build a profile from a mapping; keys not given keep ``base``'s (default: detected) values."""
    profile = base or detect()
    known = {f.name for f in fields(MachineProfile)} - {"source"}
    for key, value in data.items():
        if key not in known:
            raise CondorcfgError(error(
                f"unknown machine profile key {key!r}; known keys: {', '.join(sorted(known))}", source))
        setattr(profile, key, _coerce(key, value, source))
    profile.source = source
    return profile


def load_profile(path: str) -> MachineProfile:
    """Read a YAML or JSON machine profile."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise CondorcfgError(error(f"cannot read machine profile: {exc.strerror}", path))
    try:
        if path.endswith(".json"):
            data = json.loads(text)
        else:
            from ruamel.yaml import YAML

            data = YAML(typ="safe").load(text)
    except Exception as exc:  # any parse error of the profile is a user error
        line = getattr(getattr(exc, "problem_mark", None), "line", -1) + 1 or getattr(exc, "lineno", 0)
        raise CondorcfgError(error(f"machine profile is not valid YAML/JSON: {exc}".splitlines()[0], path, line or 0))
    if not isinstance(data, dict):
        raise CondorcfgError(error("machine profile must be a mapping of keys to values", path))
    return from_mapping(data, source=path)


def detect() -> MachineProfile:
    """The local host, as far as it can be seen without privileges."""
    hostname = socket.getfqdn() or socket.gethostname() or "localhost"
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = pages // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        memory = 1024
    try:
        stat = os.statvfs(os.getcwd())
        disk = stat.f_bavail * stat.f_frsize // 1024
    except OSError:
        disk = 0
    try:
        ip = socket.gethostbyname(socket.gethostname())
    except OSError:
        ip = "127.0.0.1"
    arch = {"x86_64": "X86_64", "amd64": "X86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
        platform.machine().lower(), platform.machine().upper())
    return MachineProfile(hostname=hostname, cpus=os.cpu_count() or 1, memory=memory, disk=disk,
                          swap=0, ip=ip, opsys=platform.system().upper() or "LINUX", arch=arch)
