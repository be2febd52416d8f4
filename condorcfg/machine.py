"""Machine profile: the host facts a configuration is read against.

HTCondor fills macros such as ``FULL_HOSTNAME``, ``DETECTED_CORES`` or
``OPSYS`` from the machine it runs on.  condorcfg reads them from a profile
(``--machine FILE``, YAML or JSON) so that a configuration can be checked for
a machine other than the one running the tool.  Without a profile the local
host is detected.  The same profile later sizes the slots.

Profile keys: ``hostname``, ``cpus``, ``memory`` (MiB), ``disk`` (KiB),
``swap`` (KiB), ``ip``, ``ipv6``, ``opsys``, ``arch``, ``os_name``,
``os_version``, ``os_long_name``, ``kernel``, ``gpus`` (a count or a list of
ids), ``resources`` (``{Tag: quantity | [ids]}``).

A profile describes another machine, so a key it leaves out takes a fixed
default, never a fact of the host running condorcfg (the result is the same
on every computer):

    hostname      localhost.localdomain   FULL_HOSTNAME; HOSTNAME is "localhost"
    cpus          1                       DETECTED_CORES, DETECTED_CPUS ...
    memory        1024 (MiB)              DETECTED_MEMORY
    disk          104857600 (KiB, 100 GiB) the execute disk the slots share
    swap          0 (KiB)                 no swap
    ip            127.0.0.1               IP_ADDRESS, IPV4_ADDRESS
    ipv6          none                    IPV6_ADDRESS empty: no public IPv6 address
    opsys         LINUX                   OPSYS
    arch          X86_64                  ARCH; UNAME_ARCH is "x86_64"
    os_name       none                    OPSYSNAME, OPSYSVER, OPSYSANDVER ... undefined
    os_version    none                    (used only with os_name)
    os_long_name  "<os_name> <os_version>" (used only with os_name)
    kernel        none                    UTSNAME_RELEASE undefined
    gpus          0                       no GPUs
    resources     none                    no custom machine resources

Values are checked: counts and sizes are whole, non-negative numbers
(``cpus`` at least 1) below a bound far above any real machine
(:data:`LIMITS`); text keys take a single value; ``resources`` quantities
are finite numbers, its tags are attribute names (at most
:data:`MAX_RESOURCE_TAGS` of them), and the id lists of ``gpus`` and
``resources`` together hold at most :data:`MAX_IDS` ids.  A profile comes with
the pull request like the configuration, so its size is bounded too: YAML text
up to ``inputs.MAX_YAML_SIZE``, and no more than ``inputs.MAX_YAML_VALUES``
values once YAML aliases are expanded.  A profile that breaks a rule, is not a
mapping, or is not UTF-8 YAML/JSON is a :class:`CondorcfgError` naming the file
and the key.
"""
from __future__ import annotations

import os
import re

from condorcfg import flat_yaml
from condorcfg.diagnostics import CondorcfgError, error


class MachineProfile:
    """The facts about one machine that HTCondor detects at start-up (see the table above).

    (A plain class, not a dataclass: creating dataclasses costs every command start-up time.)
    """

    # the profile's keys, in order (a profile file may give any of them but ``source``)
    KEYS = ("hostname", "cpus", "memory", "disk", "swap", "ip", "ipv6", "opsys", "arch", "os_name", "os_version",
            "os_long_name", "kernel", "gpus", "resources", "source")

    def __init__(self, hostname: str = "localhost.localdomain", cpus: int = 1, memory: int = 1024,
                 disk: int = 100 * 1024 * 1024, swap: int = 0, ip: str = "127.0.0.1", ipv6: str = "",
                 opsys: str = "LINUX", arch: str = "X86_64", os_name: str = "", os_version: str = "",
                 os_long_name: str = "", kernel: str = "", gpus: "int | list[str]" = 0,
                 resources: "dict[str, int | float | list[str]] | None" = None, source: str = "<detected>"):
        self.hostname = hostname
        self.cpus = cpus
        self.memory = memory  # MiB
        self.disk = disk  # KiB
        self.swap = swap  # KiB
        self.ip = ip
        self.ipv6 = ipv6  # empty: the host has no public IPv6 address
        self.opsys = opsys
        self.arch = arch
        self.os_name = os_name  # distribution as HTCondor names it: "Debian", "AlmaLinux", ...
        self.os_version = os_version  # "12", "9.4"
        self.os_long_name = os_long_name  # "Debian GNU/Linux 12"
        self.kernel = kernel  # uname release, e.g. "6.1.0-18-amd64"
        self.gpus = gpus
        self.resources: dict = {} if resources is None else resources
        self.source = source

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, key) == getattr(other, key) for key in self.KEYS)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return "MachineProfile(" + ", ".join(f"{key}={getattr(self, key)!r}" for key in self.KEYS) + ")"

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
            "UNAME_ARCH": os.uname().machine if self.source == "<detected>" else arch.lower(),
            "UNAME_OPSYS": opsys.capitalize(),
            "UTSNAME_SYSNAME": opsys.capitalize(),
            "UTSNAME_NODENAME": self.hostname,
            "UTSNAME_MACHINE": arch.lower(),
            **self._os_release_facts(opsys),
            **({"UTSNAME_RELEASE": self.kernel} if self.kernel else {}),
            **({"UTSNAME_VERSION": os.uname().version} if self.source == "<detected>" else {}),
        }

    def _os_release_facts(self, opsys: str) -> dict[str, str]:
        # HTCondor derives these from /etc/os-release; a profile without os_name has none.
        if not self.os_name:
            return {}
        parts = (self.os_version or "0").split(".")
        major = parts[0] if parts[0].isdigit() else "0"
        minor = parts[1] if len(parts) > 1 and parts[1].isdigit() else "0"
        return {
            "OPSYSNAME": self.os_name,
            "OPSYSSHORTNAME": self.os_name,
            "OPSYSLONGNAME": self.os_long_name or f"{self.os_name} {self.os_version}".strip(),
            "OPSYSMAJORVER": major,
            "OPSYSVER": str(int(major) * 100 + int(minor)),
            "OPSYSANDVER": f"{self.os_name}{major}",
            "OPSYSLEGACY": opsys,
        }


# (lowest, highest) of the whole-number keys: far above any real machine, low enough that every
# derived size (bytes of memory, per-slot shares) stays a 64-bit ClassAd integer
LIMITS = {"cpus": (1, 65536), "memory": (0, 2 ** 40), "disk": (0, 2 ** 50), "swap": (0, 2 ** 50),
          "gpus": (0, 65536)}
MAX_RESOURCE = 2 ** 50  # the largest custom resource quantity
MAX_IDS = 65536  # GPU and resource ids in all the lists of a profile together
MAX_RESOURCE_TAGS = 64  # custom resources in ``resources``
MAX_ID_LENGTH = 256  # characters of one id (GPU-0123abcd, /dev/fpga0 ...)
_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def _problem(message: str, where: str) -> CondorcfgError:
    return CondorcfgError(error(message, where, code="bad-profile"))


def _whole_number(name: str, value, where: str) -> int:
    """A count or size: an integer, an integral float or a decimal string, within LIMITS[name]."""
    low, high = LIMITS[name]
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():  # also False for inf and nan (1e400)
        number = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        digits = value.strip()
        number = int(digits) if len(digits) <= 30 else high + 1  # (int() refuses 4300+ digits)
    if number is None:
        raise _problem(f"machine profile key {name!r} must be a whole number, not {_shown(value)}", where)
    if not low <= number <= high:
        raise _problem(f"machine profile key {name!r} must be between {low} and {high}, not {_shown(value)}",
                       where)
    return number


def _shown(value) -> str:
    """A short repr for messages: never walks (or prints) more than a few parts of a big value."""
    import reprlib  # (only for a message about a bad profile)

    short = reprlib.Repr()
    short.maxlevel, short.maxlist, short.maxdict, short.maxtuple, short.maxset = 2, 4, 4, 4, 4
    short.maxstring = short.maxother = short.maxlong = 40
    text = short.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _id_list(name: str, value: list, where: str, budget: list | None = None) -> list[str]:
    """Ids as text; ``budget`` ([ids left]) is shared by every list of one profile (MAX_IDS in all)."""
    left = MAX_IDS if budget is None else budget[0]
    if len(value) > left or not all(_is_id(v) for v in value):
        raise _problem(f"machine profile key {name!r} must be a list of ids (text of at most {MAX_ID_LENGTH} "
                       f"characters, or numbers); the profile may hold {MAX_IDS} ids in all its lists", where)
    if budget is not None:
        budget[0] -= len(value)
    return [str(v) for v in value]


def _is_id(value) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_ID_LENGTH
    return isinstance(value, int) and not isinstance(value, bool) and -(2 ** 63) <= value < 2 ** 64


def _resource(tag: str, value, where: str, budget: list | None = None) -> int | float | list[str]:
    if isinstance(value, list):
        return _id_list(f"resources.{tag}", value, where, budget)
    if (isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
            and 0 <= value <= MAX_RESOURCE):
        return value
    raise _problem(f"machine profile resource {tag!r} must be a quantity between 0 and {MAX_RESOURCE} or a "
                   f"list of ids, not {_shown(value)}", where)


def _coerce(name: str, value, where: str, budget: list | None = None):
    """The profile value of key ``name``, checked (a CondorcfgError naming the key otherwise)."""
    if name in LIMITS and not (name == "gpus" and isinstance(value, list)):
        return _whole_number(name, value, where)
    if name == "gpus":
        return _id_list("gpus", value, where, budget)
    if name == "resources":
        if not isinstance(value, dict):
            raise _problem("machine profile key 'resources' must be a mapping of Tag: quantity or [ids]", where)
        if len(value) > MAX_RESOURCE_TAGS:
            raise _problem(f"machine profile key 'resources' may name at most {MAX_RESOURCE_TAGS} resources, "
                           f"not {len(value)}", where)
        for tag in value:
            if not isinstance(tag, str) or not _TAG.fullmatch(tag):
                raise _problem(f"machine profile resource name {_shown(tag)} must be an attribute name (letters, "
                               f"digits and _, at most 64 characters)", where)
        return {tag: _resource(tag, quantity, where, budget) for tag, quantity in value.items()}
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _problem(f"machine profile key {name!r} must be a single text value, not {_shown(value)}", where)
    return str(value)


def from_mapping(data: dict, source: str = "<profile>", base: MachineProfile | None = None) -> MachineProfile:
    """Build a profile from a mapping; keys not given keep ``base``'s values.

    ``base`` defaults to ``MachineProfile()``, the documented defaults (module docstring): a
    profile describes another machine, so nothing is taken from the host running condorcfg.
    """
    profile = base or MachineProfile()
    known = set(MachineProfile.KEYS) - {"source"}
    ids_left = [MAX_IDS]  # shared by gpus and every resource list
    for key, value in data.items():
        if key not in known:
            raise _problem(f"unknown machine profile key {_shown(key)}; known keys: {', '.join(sorted(known))}",
                           source)
        setattr(profile, key, _coerce(key, value, source, ids_left))
    profile.source = source
    return profile


def load_profile(path: str) -> MachineProfile:
    """Read a YAML or JSON machine profile (UTF-8 text holding one mapping)."""
    from condorcfg.inputs import MAX_YAML_SIZE, check_expanded_size, load_yaml, read_text, syntax_error

    text, shown = read_text(path, "machine profile", utf8_only=True)
    is_json = path.endswith(".json")
    if not is_json and len(text) > MAX_YAML_SIZE:  # ruamel.yaml is pure Python: bound what it parses
        raise _problem(f"the YAML machine profile is larger than {MAX_YAML_SIZE} characters (MAX_YAML_SIZE); "
                       f"write a long id list as a JSON profile", shown)
    try:
        if is_json:
            import json  # only for a JSON profile: commands that print no JSON then never import it

            data = json.loads(text)
        else:
            data = flat_yaml.load(text)  # the usual flat profile, without ruamel.yaml's start-up
            if data is None:
                data = load_yaml(text)
    except Exception as exc:  # any parse error of the profile is a user error (also RecursionError)
        raise syntax_error(exc, shown, "machine profile", "JSON" if is_json else "YAML", "bad-profile")
    check_expanded_size(data, shown, "machine profile", "bad-profile", text_size=len(text))
    if not isinstance(data, dict):
        found = "an empty document" if data is None else f"a {type(data).__name__}"
        raise _problem(f"machine profile must be a mapping of keys to values, not {found}", shown)
    return from_mapping(data, source=shown)


def detect() -> MachineProfile:
    """The local host, as far as it can be seen without privileges."""
    import platform  # imported here: only detection needs them, and start-up time counts
    import socket

    # gethostname() only: getfqdn() asks the resolver, which can stall start-up for seconds
    hostname = socket.gethostname() or "localhost"
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
    ip = _address_from_hosts_file(hostname) or _routed_address(socket.AF_INET, "192.0.2.1") or "127.0.0.1"
    ipv6 = _routed_address(socket.AF_INET6, "2001:db8::1") or ""
    arch = {"x86_64": "X86_64", "amd64": "X86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
        platform.machine().lower(), platform.machine().upper())
    release = _os_release()
    name = _DISTRIBUTIONS.get(release.get("ID", "").lower(), release.get("ID", "").capitalize())
    version = release.get("VERSION_ID", "")
    return MachineProfile(hostname=hostname, cpus=os.cpu_count() or 1, memory=memory, disk=disk,
                          swap=_swap_kib(), ip=ip, ipv6=ipv6, opsys=platform.system().upper() or "LINUX", arch=arch,
                          os_name=name, os_version=version,
                          os_long_name=f"{release.get('NAME', name)} {version}".strip() if name else "",
                          kernel=platform.release())


_DISTRIBUTIONS = {"debian": "Debian", "ubuntu": "Ubuntu", "rhel": "RedHat", "centos": "CentOS",
                  "almalinux": "AlmaLinux", "rocky": "Rocky", "fedora": "Fedora", "opensuse-leap": "openSUSE",
                  "sles": "SLES", "amzn": "AmazonLinux"}


def _os_release() -> dict[str, str]:
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return {}
    fields_ = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep:
            fields_[key.strip()] = value.strip().strip('"')
    return fields_


def _swap_kib() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _address_from_hosts_file(hostname: str) -> str:
    """The host's address from /etc/hosts, without asking DNS (fast and offline)."""
    try:
        with open("/etc/hosts", encoding="utf-8") as handle:
            for line in handle:
                fields_ = line.split("#", 1)[0].split()
                if len(fields_) >= 2 and hostname in fields_[1:] and not fields_[0].startswith("127."):
                    return fields_[0]
    except OSError:
        pass
    return ""


def _routed_address(family, documentation_address: str) -> str:
    """The local address the kernel would route from (HTCondor's "most public" interface).

    Connecting a UDP socket only asks the routing table: no packet is sent, no
    resolver is asked.  The target is a documentation address (RFC 5737/3849).
    """
    import socket

    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((documentation_address, 9))
            address = probe.getsockname()[0]
    except OSError:
        return ""
    return "" if address.startswith(("127.", "::1", "fe80")) else address


def resolve(machine) -> MachineProfile:
    """A profile from what callers accept: None (this host), a profile file path, or a profile."""
    if machine is None:
        return detect()
    if isinstance(machine, MachineProfile):
        return machine
    return load_profile(os.fspath(machine))
