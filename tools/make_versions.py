#!/usr/bin/env python3
"""Generate condorcfg/lint/knowledge/releases.json: what each HTCondor release series knows.

For every release below, the wheel is downloaded from the package registry (``pip download
htcondor==X``, into ``--cache``, never into the repository) and its ``libcondor_utils`` read
with tools/make_defaults.py's ELF reader: the compiled table of knobs (name, raw default,
type) and the compiled configuration templates (``use CATEGORY : Name`` bodies).  HTCondor
25.14.1 (the oracle, and condorcfg/config/default_table.py, templates/*.config) is the
base; each other release is stored as its differences from it, so the file stays small:

    {"base": "25.14.1", "releases": ["10.0.9", ...],
     "knobs":     {release: {"added": {name: {default, type}}, "removed": [name], "changed": {name: {...}}}},
     "templates": {release: {"added": {"CAT:Name": body}, "removed": ["CAT:Name"], "changed": {"CAT:Name": body}}}}

(``added``: the release has it and 25.14.1 does not.)  Version-history facts that the tables
cannot show (renamed knobs) are in condorcfg/lint/knowledge/upgrades.yaml, written by hand from
../shared/reference/htcondor/docs/version-history/.

Usage:  .venv/bin/python tools/make_versions.py [--check] [--cache DIR]
        (--check: verify the shipped file is what the wheels give; tests/test_versions.py runs it)
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_defaults  # noqa: E402  (the ELF reader of HTCondor's compiled tables)

OUTPUT = ROOT / "condorcfg" / "lint" / "knowledge" / "releases.json"
from condorcfg.config.conditions import VERSION  # noqa: E402  (the release condorcfg reads as)

BASE = ".".join(map(str, VERSION))
# The newest release of each series that has wheels (10.0 and 23.0 are long-term series;
# 23.10 and 24.12 the last feature releases before 24.0 and 25.0).
RELEASES = ["10.0.9", "23.0.28", "23.10.29", "24.0.24", "24.12.24", "25.0.14", BASE]
DEFAULT_CACHE = os.environ.get("CONDORCFG_WHEEL_CACHE", "/tmp/condorcfg-wheels")


def library(release: str, cache: Path) -> str:
    """The path of ``release``'s libcondor_utils (the installed oracle's for the base)."""
    if release == BASE:
        return make_defaults.find_library()
    unpacked = cache / release
    found = glob.glob(str(unpacked / "htcondor.libs" / "libcondor_utils_*.so*"))
    if not found:
        wheels = glob.glob(str(cache / f"htcondor-{release}-*.whl"))
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                            "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
                            "--platform", "manylinux2014_x86_64", "-d", str(cache), f"htcondor=={release}"],
                           check=True, timeout=600)
            wheels = glob.glob(str(cache / f"htcondor-{release}-*.whl"))
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [m for m in wheel.namelist() if m.startswith("htcondor.libs/libcondor_utils_")]
            wheel.extractall(unpacked, members)
        found = glob.glob(str(unpacked / "htcondor.libs" / "libcondor_utils_*.so*"))
    if f"_{release.replace('.', '_')}" not in os.path.basename(found[0]):
        sys.exit(f"{found[0]} is not HTCondor {release}")
    return found[0]


def tables(release: str, cache: Path) -> tuple[dict, dict]:
    """(knob -> {default, type}, "CATEGORY:Name" -> body) compiled into ``release``."""
    lib = make_defaults.Library(library(release, cache))
    knobs = {name: {"default": entry["default"], "type": entry["type"]}
             for name, entry in make_defaults.main_table(lib).items()}
    templates = {f"{category}:{name}": body for category, entries in make_defaults.template_tables(lib).items()
                 for name, body in entries.items()}
    return knobs, templates


def difference(release: dict, base: dict) -> dict:
    def key(name):
        return name.upper()

    base_keys = {key(n): n for n in base}
    release_keys = {key(n): n for n in release}
    added = {release_keys[k]: release[release_keys[k]] for k in sorted(release_keys.keys() - base_keys.keys())}
    removed = sorted(base_keys[k] for k in base_keys.keys() - release_keys.keys())
    changed = {release_keys[k]: release[release_keys[k]] for k in sorted(release_keys.keys() & base_keys.keys())
               if release[release_keys[k]] != base[base_keys[k]]}
    return {"added": added, "removed": removed, "changed": changed}


def build(cache: Path) -> dict:
    base_knobs, base_templates = tables(BASE, cache)
    out = {"base": BASE, "releases": RELEASES, "generated_by": "tools/make_versions.py", "knobs": {}, "templates": {}}
    for release in RELEASES:
        if release == BASE:
            continue
        knobs, templates = tables(release, cache)
        out["knobs"][release] = difference(knobs, base_knobs)
        out["templates"][release] = difference(templates, base_templates)
    return out


def render(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False, ensure_ascii=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the shipped file instead of writing it")
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="where wheels are downloaded and unpacked")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    text = render(build(cache))
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is not what the wheels give; run tools/make_versions.py", file=sys.stderr)
            return 1
        print(f"{OUTPUT.relative_to(ROOT)} is up to date ({len(RELEASES)} releases)")
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(RELEASES)} releases, {len(text):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
