#!/usr/bin/env python3
"""Generate condorcfg/config/default_table.py from the HTCondor oracle (the htcondor wheel).

HTCondor compiles its table of built-in defaults (raw default text and declared type of
every knob, plus small per-subsystem tables such as ``STARTD.IsStartd = true``) into
``libcondor_utils``.  The Python bindings only ever show *expanded* values, so the raw
text is read from that table in the wheel's library, and then every entry is checked
against the running oracle:

* for each subsystem (TOOL, STARTD, SCHEDD, NEGOTIATOR, COLLECTOR, MASTER, ...), the
  expansion of ``$(K)`` must equal the expansion of the extracted raw text of K;
* ``param.get(K)`` must come back with the Python type the declared type implies.

Every disagreement must be one of KNOWN_DIFFERENCES (values HTCondor inserts at
start-up or that are random); anything else aborts the run, so a wrong extraction
can never be written.

Usage:  .venv/bin/python tools/make_defaults.py [--check]   (--check: verify the
existing file is up to date instead of writing it)
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "condorcfg" / "config" / "default_table.py"
HTCONDOR_VERSION = "25.14.1"

# The type code is the low nibble of the entry's flags; 0x20 marks a path knob.
TYPE_CODES = {0: "string", 1: "int", 2: "bool", 3: "double", 4: "long"}
PATH_FLAG = 0x20
# Python type param.get() returns for each declared type.
PYTHON_TYPES = {"string": "str", "int": "int", "long": "int", "bool": "bool", "double": "float"}

# Knobs whose observed value legitimately differs from their table entry.
KNOWN_DIFFERENCES = {
    "DETECTED_CPUS": "placeholder in the table; the detected value is inserted at start-up",
    "DETECTED_CORES": "placeholder in the table; the detected value is inserted at start-up",
    "DETECTED_PHYSICAL_CPUS": "placeholder in the table; the detected value is inserted at start-up",
    "ENABLE_CLASSAD_CACHING": "the Python bindings switch ClassAd caching off at start-up",
    "PERIODIC_CHECKPOINT": "contains $RANDOM_INTEGER(), different on every read",
}
# Knobs without a table default that HTCondor fills in itself (host facts, process facts).
HOST_PROVIDED = {"SUBSYSTEM", "LOCALNAME", "FULL_HOSTNAME", "HOSTNAME", "IP_ADDRESS", "IPV4_ADDRESS",
                 "IPV6_ADDRESS", "ARCH", "OPSYS", "OPSYSANDVER", "OPSYSVER", "OPSYSMAJORVER",
                 "OPSYSNAME", "OPSYSLONGNAME", "OPSYSSHORTNAME", "OPSYSLEGACY", "UNAME_ARCH",
                 "UNAME_OPSYS", "FILESYSTEM_DOMAIN", "UID_DOMAIN", "USERNAME", "CONFIG_ROOT"}

# The probe configuration sets these itself (as every real condor_config does).
SET_BY_PROBE_CONFIG = {"LOCAL_DIR", "RELEASE_DIR"}

SUBSYSTEMS_TO_CHECK = ["TOOL", "STARTD", "SCHEDD", "NEGOTIATOR", "COLLECTOR", "MASTER",
                       "SHADOW", "STARTER", "SUBMIT"]


# --------------------------------------------------------------------------- ELF reading


class Library:
    """Just enough ELF (x86-64, little endian) to follow pointers in a shared library's data."""

    def __init__(self, path: str):
        self.path = path
        self.data = Path(path).read_bytes()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2 or self.data[5] != 1:
            sys.exit(f"{path}: not a 64-bit little-endian ELF file")
        phoff, shoff = struct.unpack_from("<QQ", self.data, 0x20)
        phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", self.data, 0x36)
        # (vaddr, offset, filesz) of every loaded segment, to map addresses to file offsets
        self.segments = []
        for i in range(phnum):
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                "<IIQQQQ", self.data, phoff + i * phentsize)
            if p_type == 1:  # PT_LOAD
                self.segments.append((p_vaddr, p_offset, p_filesz))
        sections = [struct.unpack_from("<IIQQQQIIQQ", self.data, shoff + i * shentsize) for i in range(shnum)]
        names_offset = sections[shstrndx][4]
        self.relative: dict[int, int] = {}  # address of a pointer slot -> address it points to
        for sh_name, sh_type, _f, _addr, sh_offset, sh_size, *_rest in sections:
            if sh_type == 4 and self.cstr_at(names_offset + sh_name) == ".rela.dyn":  # SHT_RELA
                for pos in range(sh_offset, sh_offset + sh_size, 24):
                    r_offset, r_info, r_addend = struct.unpack_from("<QQq", self.data, pos)
                    if r_info & 0xFFFFFFFF == 8:  # R_X86_64_RELATIVE: slot holds base + addend
                        self.relative[r_offset] = r_addend
        if not self.relative:
            sys.exit(f"{path}: no relative relocations found - not the library layout this tool knows")
        self._by_target: dict[int, list[int]] = {}
        for slot, target in self.relative.items():
            self._by_target.setdefault(target, []).append(slot)

    def offset(self, address: int) -> int:
        for vaddr, off, size in self.segments:
            if vaddr <= address < vaddr + size:
                return address - vaddr + off
        raise ValueError(f"address {address:#x} is not in a loaded segment")

    def cstr_at(self, offset: int) -> str:
        return self.data[offset:self.data.index(b"\0", offset)].decode("latin-1")

    def string(self, address: int) -> str:
        return self.cstr_at(self.offset(address))

    def word(self, address: int) -> int:
        return struct.unpack_from("<Q", self.data, self.offset(address))[0]

    def pointer(self, slot: int) -> int | None:
        """Target of the pointer stored at ``slot``; None for a null pointer; KeyError if not a pointer."""
        if slot in self.relative:
            return self.relative[slot]
        if self.word(slot) == 0:
            return None
        raise KeyError(slot)

    def string_addresses(self, text: str) -> list[int]:
        """Addresses where the C string ``text`` is stored (also as the tail of a longer string,
        which the linker merges); .rodata is loaded at its file offset."""
        needle = text.encode() + b"\0"
        found, pos = [], self.data.find(needle)
        while pos >= 0:
            found.append(pos)
            pos = self.data.find(needle, pos + 1)
        return found

    def slots_pointing_to(self, address: int) -> list[int]:
        return self._by_target.get(address, [])

    def is_string_pointer(self, slot: int) -> bool:
        target = self.relative.get(slot)
        if target is None:
            return False
        try:
            text = self.string(target)
        except (ValueError, IndexError):
            return False
        return 0 < len(text) < 200 and text.isprintable()


def find_library() -> str:
    spec = importlib.util.find_spec("htcondor2")
    if spec is None or not spec.origin:
        sys.exit("the htcondor wheel (the oracle) is not installed: pip install htcondor==" + HTCONDOR_VERSION)
    site = Path(spec.origin).resolve().parents[1]
    found = sorted(glob.glob(str(site / "htcondor.libs" / "libcondor_utils_*.so*")))
    if not found:
        sys.exit(f"libcondor_utils not found under {site}/htcondor.libs")
    if f"_{HTCONDOR_VERSION.replace('.', '_')}" not in found[0]:
        sys.exit(f"{found[0]} is not HTCondor {HTCONDOR_VERSION}")
    return found[0]


def read_entry(lib: Library, pair: int) -> tuple[str, dict]:
    """A ``{name, definition}`` pair -> (name, {"default", "type", "path"})."""
    name = lib.string(lib.relative[pair])
    definition = lib.pointer(pair + 8)
    if definition is None:  # a known knob without a default
        return name, {"default": None, "type": "string", "path": False}
    text = lib.pointer(definition)
    flags = lib.word(definition + 8) & 0xFFFFFFFF
    kind = TYPE_CODES.get(flags & 0xF)
    if kind is None:
        sys.exit(f"{name}: unknown type code {flags & 0xF} in flags {flags:#x}")
    return name, {"default": lib.string(text) if text is not None else None, "type": kind,
                  "path": bool(flags & PATH_FLAG)}


def is_pair(lib: Library, slot: int) -> bool:
    if not lib.is_string_pointer(slot):
        return False
    try:
        lib.pointer(slot + 8)
    except (KeyError, ValueError):
        return False
    return True


def main_table(lib: Library) -> dict[str, dict]:
    """The big sorted ``{name, definition}`` array, found around the entry for DAEMON_LIST."""
    best: list[int] = []
    for address in lib.string_addresses("DAEMON_LIST"):
        for slot in lib.slots_pointing_to(address):
            if not is_pair(lib, slot):
                continue
            start = slot
            while is_pair(lib, start - 16) and _ordered(lib, start - 16, start):
                start -= 16
            end = slot
            while is_pair(lib, end + 16) and _ordered(lib, end, end + 16):
                end += 16
            if (end - start) // 16 + 1 > len(best):
                best = list(range(start, end + 16, 16))
    if len(best) < 1000:
        sys.exit(f"default table not found (longest candidate has {len(best)} entries)")
    return dict(read_entry(lib, pair) for pair in best)


def _ordered(lib: Library, first: int, second: int) -> bool:
    return lib.string(lib.relative[first]).lower() < lib.string(lib.relative[second]).lower()


def subsystem_tables(lib: Library) -> dict[str, dict[str, dict]]:
    """The ``{subsystem, table, count}`` array (found through STARTD's IsStartd entry)."""
    def is_triple(slot: int) -> bool:
        if not lib.is_string_pointer(slot) or slot + 8 not in lib.relative:
            return False
        count = lib.word(slot + 16)
        return 0 < count < 100 and all(is_pair(lib, lib.relative[slot + 8] + 16 * i) for i in range(count))

    for address in lib.string_addresses("IsStartd"):
        for pair in lib.slots_pointing_to(address):
            for triple in lib.slots_pointing_to(pair):
                triple -= 8
                if not is_triple(triple) or lib.string(lib.relative[triple]) != "STARTD":
                    continue
                start, end = triple, triple
                while is_triple(start - 24):
                    start -= 24
                while is_triple(end + 24):
                    end += 24
                tables = {}
                for slot in range(start, end + 24, 24):
                    base, count = lib.relative[slot + 8], lib.word(slot + 16)
                    tables[lib.string(lib.relative[slot]).upper()] = dict(
                        read_entry(lib, base + 16 * i) for i in range(count))
                return tables
    sys.exit("per-subsystem default tables not found")


def template_tables(lib: Library) -> dict[str, dict[str, str]]:
    """The configuration templates (metaknobs) compiled into the library: category -> name -> body.

    They use the same ``{category, table, count}`` layout as the per-subsystem tables; found
    through ROLE's Execute entry.  Used by tests/test_templates.py to check templates/*.config.
    """
    def is_triple(slot: int) -> bool:
        if not lib.is_string_pointer(slot) or slot + 8 not in lib.relative:
            return False
        count = lib.word(slot + 16)
        return 0 < count < 200 and all(is_pair(lib, lib.relative[slot + 8] + 16 * i) for i in range(count))

    for address in lib.string_addresses("Execute"):
        for pair in lib.slots_pointing_to(address):
            for back in range(0, 16 * 50, 16):  # the table may start a few entries earlier
                for triple in lib.slots_pointing_to(pair - back):
                    triple -= 8
                    if not is_triple(triple) or lib.string(lib.relative[triple]) != "ROLE":
                        continue
                    start, end = triple, triple
                    while is_triple(start - 24):
                        start -= 24
                    while is_triple(end + 24):
                        end += 24
                    tables: dict[str, dict[str, str]] = {}
                    for slot in range(start, end + 24, 24):
                        base, count = lib.relative[slot + 8], lib.word(slot + 16)
                        entries = {}
                        for i in range(count):
                            name = lib.string(lib.relative[base + 16 * i])
                            definition = lib.pointer(base + 16 * i + 8)
                            text = lib.pointer(definition) if definition is not None else None
                            entries[name] = lib.string(text) if text is not None else ""
                        tables[lib.string(lib.relative[slot])] = entries
                    return tables
    sys.exit("template tables not found")


# --------------------------------------------------------------------------- oracle checks

_CHILD = r'''
import json, sys
import htcondor2 as h
req = json.loads(sys.stdin.read())
if req["subsystem"] != "TOOL":
    h.set_subsystem(req["subsystem"])
    h.reload_config()
out = {}
for name, raw in req["knobs"].items():
    h.param["CONDORCFG_PROBE"] = "$(%s:CONDORCFG_UNSET)" % name
    seen = h.param.get("CONDORCFG_PROBE")
    predicted = None
    if raw is not None:
        h.param["CONDORCFG_PROBE"] = raw if raw else "CONDORCFG_UNSET"
        predicted = h.param.get("CONDORCFG_PROBE")
    try:
        typed = h.param.get(name)
    except Exception as exc:  # the bindings raise for unconvertible typed values
        typed = exc
    unset = lambda v: None if v == "CONDORCFG_UNSET" else v
    out[name] = [unset(seen), unset(predicted), type(typed).__name__]
print(json.dumps(out))
'''


def observe(subsystem: str, knobs: dict[str, str | None]) -> dict[str, list]:
    """Ask the oracle, as ``subsystem``: [expanded $(K), expansion of the raw text, type of param.get(K)]."""
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "condor_config")
        Path(config).write_text(f"LOCAL_DIR = {tmp}\nRELEASE_DIR = {tmp}\n")
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        env["CONDOR_CONFIG"] = config
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(
            {"subsystem": subsystem, "knobs": knobs}), env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        sys.exit(f"oracle run for {subsystem} failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def effective(knobs: dict[str, dict], subsystems: dict[str, dict], subsystem: str) -> dict[str, dict]:
    merged = dict(knobs)
    merged.update(subsystems.get(subsystem, {}))
    return merged


def verify(knobs: dict[str, dict], subsystems: dict[str, dict]) -> list[str]:
    """Compare the extracted table with the running oracle; return the unexplained differences."""
    problems = []
    for subsystem in SUBSYSTEMS_TO_CHECK:
        table = effective(knobs, subsystems, subsystem)
        seen = observe(subsystem, {name: entry["default"] for name, entry in table.items()})
        for name, entry in table.items():
            value, predicted, typ = seen[name]
            if name in KNOWN_DIFFERENCES or name in SET_BY_PROBE_CONFIG:
                continue
            if entry["default"] is None:
                if value is not None and name not in HOST_PROVIDED:
                    problems.append(f"{subsystem}: {name} has no table default but reads {value!r}")
                continue
            if value != predicted:
                problems.append(f"{subsystem}: {name}: oracle {value!r}, table text expands to {predicted!r}")
            if value is not None and typ not in (PYTHON_TYPES[entry["type"]], "NoneType"):
                problems.append(f"{subsystem}: {name}: declared {entry['type']} but param.get gives {typ}")
        print(f"  {subsystem}: {len(table)} knobs checked against the oracle", file=sys.stderr)
    return problems


# --------------------------------------------------------------------------- output


def render(library: str, knobs: dict[str, dict], subsystems: dict[str, dict]) -> str:
    """The table as a Python module, one knob per line, sorted, so regenerations diff cleanly.

    (Python data, not JSON: every command reads the table at start-up, and a compiled module
    spares it the json import.)
    """
    def entry(fields: dict) -> str:
        return "{" + ", ".join(f"{key!r}: {fields[key]!r}" for key in sorted(fields)) + "}"

    def block(entries: dict[str, dict], indent: str) -> str:
        rows = [f"{indent}{name!r}: {entry(entries[name])}," for name in sorted(entries, key=str.upper)]
        return "{\n" + "\n".join(rows) + "\n" + indent[:-1] + "}"

    subsystem_rows = [f"    {name!r}: {block(subsystems[name], '        ')}," for name in sorted(subsystems)]
    return (f'"""HTCondor {HTCONDOR_VERSION}\'s built-in default table: generated by tools/make_defaults.py, do not edit.\n\n'
            f'Read out of {Path(library).name}.\n'
            f'KNOBS: knob -> raw default text (None: declared without one), whether it is a path, its type;\n'
            f'SUBSYSTEMS: subsystem -> its own entries (STARTD.IsStartd ...).\n"""\n'
            f"HTCONDOR_VERSION = {HTCONDOR_VERSION!r}\n"
            f"SOURCE = {Path(library).name!r}\n"
            f"COUNT = {len(knobs)}\n"
            f"KNOBS = {block(knobs, ' ')}\n"
            "SUBSYSTEMS = {\n" + "\n".join(subsystem_rows) + "\n}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed file differs")
    parser.add_argument("--no-verify", action="store_true", help="skip the oracle cross-check (faster)")
    args = parser.parse_args(argv)

    library = find_library()
    lib = Library(library)
    knobs = main_table(lib)
    subsystems = subsystem_tables(lib)
    print(f"{len(knobs)} knobs, {len(subsystems)} per-subsystem tables from {Path(library).name}",
          file=sys.stderr)
    if not args.no_verify:
        problems = verify(knobs, subsystems)
        if problems:
            print("unexplained differences from the oracle:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
    text = render(library, knobs, subsystems)
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT} is out of date; run tools/make_defaults.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
