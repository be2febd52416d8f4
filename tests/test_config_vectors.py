"""Every case of /work/shared/vectors/config/vectors.jsonl (HTCondor 25.14.1's own answers).

Each vector is a config text with ``{DIR}`` placeholders (plus extra files,
environment, subsystem or CONDOR_CONFIG value) and either the expanded value
of some knobs or HTCondor's rejection.  condorcfg reads the same files with
the host facts pinned to the oracle machine's (hostname ``vm``, 2 CPUs,
24105 MiB, 192.0.2.2) and must give the same values, or raise
CondorcfgError pointing at the same line.  Where HTCondor hangs or crashes,
condorcfg must report an error instead.

A value that cannot match (a host fact MachineProfile does not carry, such as
the OS version or the IPv6 address) is listed with its reason in
tests/data/config_vector_exceptions.json; a test checks that list is exact.
"""
from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

import condorcfg
from condorcfg.diagnostics import CondorcfgError
from condorcfg.machine import MachineProfile, from_mapping

EXCEPTIONS_FILE = Path(__file__).parent / "data" / "config_vector_exceptions.json"
ORACLE_HOST = {"hostname": "vm", "cpus": 2, "memory": 24105, "ip": "192.0.2.2", "ipv6": "fd00::2",
               "opsys": "LINUX", "arch": "X86_64", "os_name": "Debian", "os_version": "12",
               "os_long_name": "Debian GNU/Linux 12"}


def _vectors():
    from conftest import SHARED

    path = SHARED / "vectors" / "config" / "vectors.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


VECTORS = _vectors()
EXCEPTIONS = json.loads(EXCEPTIONS_FILE.read_text())


def oracle_profile() -> MachineProfile:
    profile = from_mapping(ORACLE_HOST, source="vectors", base=MachineProfile())
    return profile


def _materialise(vector: dict, tmp: Path) -> None:
    for name, text in (vector.get("files") or {}).items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{DIR}", str(tmp)))
        if name.endswith(".sh"):
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (tmp / "condor_config").write_text(vector["config"].replace("{DIR}", str(tmp)))


def run_vector(vector: dict, tmp: Path):
    """Load the vector's configuration; returns the Config (or raises CondorcfgError)."""
    _materialise(vector, tmp)
    environ = {k: v.replace("{DIR}", str(tmp)) for k, v in (vector.get("env") or {}).items()}
    environ.setdefault("USER", "root")  # the oracle ran as root (USERNAME); pinned like the host facts
    paths = [str(tmp / "condor_config")]
    if vector.get("condor_config") is not None:
        environ["CONDOR_CONFIG"] = vector["condor_config"].replace("{DIR}", str(tmp))
        paths = None
    return condorcfg.load(paths, machine=oracle_profile(), subsystem=vector.get("subsystem"),
                          allow_exec=True, environ=environ, cwd=str(tmp))


def _error_lines(vector: dict) -> set[int]:
    """Line numbers HTCondor names for a rejected config (the including line and the offending one)."""
    return {int(n) for n in re.findall(r"Line (\d+)", vector["error"]) if int(n) > 0}


def _assigned_names(vector: dict) -> list[str]:
    return re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=", vector["config"], re.M)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector, tmp_path):
    skipped = EXCEPTIONS.get(vector["id"], {})
    error = vector["error"]
    if error and (error.startswith("TIMEOUT") or error.startswith("CRASH")):
        # HTCondor hangs or crashes; condorcfg must load and then refuse to expand, with a clear error.
        cfg = run_vector(vector, tmp_path)
        failures = []
        for name in _assigned_names(vector):
            try:
                cfg.value(name)
            except CondorcfgError as exc:
                failures.append(exc.diagnostic)
        assert failures, "expected a cycle/crash diagnostic"
        assert all(d.code in ("macro-cycle", "macro-too-large", "macro-too-deep") and d.location and d.location.line for d in failures)
        return
    if error:
        with pytest.raises(CondorcfgError) as info:
            cfg = run_vector(vector, tmp_path)
            for name in vector["expect"]:
                cfg.value(name)
        diagnostic = info.value.diagnostic
        assert diagnostic.severity == "error"
        assert diagnostic.location is not None and diagnostic.location.file, diagnostic.format()
        lines = _error_lines(vector)
        if lines and diagnostic.code not in ("unclosed-heredoc", "unclosed-if"):
            # (for an unclosed block HTCondor names the last line, condorcfg the opening one)
            # HTCondor does not count an unterminated last line; condorcfg reports the real line.
            allowed = lines | {n + 1 for n in lines}
            assert diagnostic.location.line in allowed, (diagnostic.format(), vector["error"])
        assert "Traceback" not in diagnostic.format()
        return
    cfg = run_vector(vector, tmp_path)
    for name, expected in vector["expect"].items():
        if name in skipped:
            continue
        if isinstance(expected, str):
            expected = expected.replace("{DIR}", str(tmp_path))
        assert cfg.value(name) == expected, f"{vector['id']} {name}: {vector['notes']}"
    _check_warnings(vector, cfg)


def _check_warnings(vector: dict, cfg) -> None:
    """HTCondor's non-fatal messages have condorcfg counterparts: reader warnings and expansion errors."""
    by_code: dict[str, list] = {}
    for diagnostic in cfg.diagnostics:
        by_code.setdefault(diagnostic.code, []).append(diagnostic)
    for line in vector["stderr"].splitlines():
        found = re.match(r'Config source Warning ".*", Line (\d+): (.*)', line)
        if found and found.group(2).startswith("obsolete use of ':'"):
            assert int(found.group(1)) in [d.location.line for d in by_code.get("colon-assignment", [])], line
        elif found:
            assert (int(found.group(1)), found.group(2)) in [(d.location.line, d.message)
                                                             for d in by_code.get("warning-statement", [])], line
        elif line.startswith(" Warning : "):
            assert line[len(" Warning : "):] in [d.message for d in by_code.get("warning-statement", [])], line
    for message in vector["expansion_errors"]:
        if message.startswith("$"):  # the others come from the bindings' typed conversions
            assert message in [d.message for d in by_code.get("expansion-error", [])], message


def test_exceptions_are_exact(tmp_path):
    """Each listed exception really differs (otherwise it must be removed from the list)."""
    by_id = {v["id"]: v for v in VECTORS}
    assert set(EXCEPTIONS) <= set(by_id)
    for vector_id, names in EXCEPTIONS.items():
        vector = by_id[vector_id]
        tmp = tmp_path / vector_id
        tmp.mkdir()
        cfg = run_vector(vector, tmp)
        for name, reason in names.items():
            assert reason.strip(), f"{vector_id} {name}: give the reason"
            expected = vector["expect"][name]
            assert cfg.value(name) != expected, f"{vector_id} {name} now matches; drop it from the exceptions"


def test_warning_checks_cover_vectors():
    """The stderr/expansion-error comparison in test_vector is not vacuous."""
    assert sum(1 for v in VECTORS if v["stderr"].startswith("Config source Warning")) >= 6
    assert sum(1 for v in VECTORS if any(m.startswith("$") for m in v["expansion_errors"])) >= 9
