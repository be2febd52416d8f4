"""Support for the slot tests (no tests here): a dict-backed stand-in for the reader's Config."""
from __future__ import annotations

from types import SimpleNamespace

from condorcfg.diagnostics import Location
from condorcfg.machine import MachineProfile

# built-in defaults the slot builder reads (HTCondor 25.14.1, spec slot-ads.md §1)
DEFAULTS = {
    "START": "True", "SUSPEND": "False", "CONTINUE": "True", "PREEMPT": "False", "KILL": "False",
    "WANT_SUSPEND": "False", "WANT_VACATE": "True", "CLAIM_WORKLIFE": "1200", "MachineMaxVacateTime": "600",
    "RunBenchmarks": "LastBenchmark == 0", "SLOT_WEIGHT": "Cpus", "IS_OWNER": "False",
    "PERIODIC_CHECKPOINT": "((time() - LastPeriodicCheckpoint)/60.0) > (180.0 + 7)",
    "SYSTEM_STARTD_ATTRS": "COLLECTOR_HOST_STRING DedicatedScheduler", "COLLECTOR_HOST_STRING": '""',
    "SYSTEM_STARTD_LATCH_EXPRS": "NumDynamicSlots", "STARTD_DETECT_GPUS": "-properties ",
    "EXECUTE": "/var/lib/condor/execute", "MAX_SLOT_TYPES": "10",
}


class FakeConfig:
    def __init__(self, text: str = "", file: str = "condor_config", defaults=True):
        self.files = [file]
        self._defs: dict[str, tuple[str, str, int]] = {}
        if defaults:
            for name, value in DEFAULTS.items():
                self._defs[name.lower()] = (name, value, 0)
        self._user: list[str] = []
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if not line or line.startswith("#"):
                continue
            if "@=" in line:  # heredoc
                name, tag = (p.strip() for p in line.split("@=", 1))
                start, body = i, []
                while lines[i].strip() != "@" + tag:
                    body.append(lines[i])
                    i += 1
                i += 1
                self._set(name, "\n".join(body), start)
                continue
            name, value = (p.strip() for p in line.split("=", 1))
            self._set(name, value, i)

    def _set(self, name, value, line):
        self._defs[name.lower()] = (name, value, line)
        if name.lower() not in [n.lower() for n in self._user]:
            self._user.append(name)

    def value(self, name):
        entry = self._defs.get(name.lower())
        if entry is None or not entry[1].strip():
            return None
        return entry[1]

    def raw(self, name):
        return self.value(name)

    def source(self, name):
        entry = self._defs.get(name.lower())
        if entry is None:
            return None
        origin = "file" if entry[2] else "default"
        return SimpleNamespace(name=entry[0], raw=entry[1], origin=origin,
                               location=Location(self.files[0], entry[2], 1))

    def names(self):
        return list(self._user)


def machine(**kw) -> MachineProfile:
    base = dict(hostname="ep01.example.org", cpus=16, memory=65536, disk=1000000, swap=1048576)
    base.update(kw)
    return MachineProfile(**base)
