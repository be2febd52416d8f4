#!/usr/bin/env python3
"""Generate the lint knowledge base, condorcfg/lint/knowledge/*.json.

Sources, in order of authority:

* HTCondor itself (the ``htcondor`` wheel, run in a child process): every name the
  configuration reader defines on an empty configuration (``param.keys()``: the
  built-in table plus the host facts such as ``FULL_HOSTNAME``), and the Python
  type ``param.get()`` gives each, which confirms the declared knob types;
* the built-in default table (``condorcfg/config/default_table.py`` made by
  tools/make_defaults.py, or the copy in ../shared/spec when that is absent): knob
  names, declared types, raw defaults;
* ``templates/*.config``: names that HTCondor's own templates assign;
* ../shared/spec/attr-lists.json: machine-ad vs job-ad attribute names;
* the HTCondor manual (../shared/reference/htcondor/docs): every ``:macro-def:`` entry is a
  documented knob, and one written with placeholders (``<SUBSYS>_TIMEOUT_MULTIPLIER``,
  ``CONSUMPTION_<Resource>``, ``SEC_*_AUTHENTICATION``) is a name family; the subsystem table
  (subsystems.rst) says what ``<SUBSYS>`` may be;
* curated tables in this file, each item checked against the manual or source (families the
  manual describes only in prose, knowledge packs for HTCondor-CE and glideinWMS, obsolete
  knobs and their replacements, daemon names).

Output: ``knobs.json`` (names, types, families, obsolete knobs) and
``attributes.json`` (attribute vocabularies).  Both are committed; rerun this
script after changing a curated table or moving to a new HTCondor version.

Usage: .venv/bin/python tools/make_knowledge.py [--check] [--no-oracle]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "condorcfg" / "lint" / "knowledge"
SHARED = Path(os.environ.get("CONDORCFG_SHARED", ROOT.parent / "shared"))
HTCONDOR_VERSION = "25.14.1"

# The manual (../shared/reference/htcondor/docs) is the list of documented knobs: every
# ``:macro-def:`NAME``` entry, families written with placeholders (``<SUBSYS>_LOG``,
# ``CONSUMPTION_<Resource>``, ``SEC_*_AUTHENTICATION``).  What a placeholder may stand for:
PERMISSION_LEVELS = """READ WRITE ADMINISTRATOR CONFIG DAEMON NEGOTIATOR OWNER ADVERTISE_MASTER ADVERTISE_STARTD
ADVERTISE_SCHEDD CLIENT DEFAULT""".split()
# <LEVEL> of <SUBSYS>_<LEVEL>_LOG: a debug level without D_ (global.rst, <SUBSYS>_DEBUG)
DEBUG_LEVELS = """ALWAYS ERROR FAILURE STATUS JOB MACHINE CONFIG PROTOCOL PRIV DAEMONCORE FULLDEBUG SECURITY COMMAND
MATCH NETWORK KEYBOARD PROCFAMILY IDLE THREADS ACCOUNTANT SYSCALLS CKPT HOSTNAME PERF_TRACE LOAD PROC AUDIT TEST
STATS MATERIALIZE BUG CRON HOOK ZKM CAT PID FDS ANY ALL""".split()
_LEVELS = "(?:" + "|".join(PERMISSION_LEVELS) + ")"
# placeholder (upper case) -> regex; {SUBSYS} is filled in at run time with the subsystem names
# (the knowledge base's list plus the daemons a configuration's DAEMON_LIST adds)
PLACEHOLDERS = {
    "N": r"\d+",
    "SUBSYS": "{SUBSYS}",
    "DAEMONNAME": "{SUBSYS}",
    "ACCESS-LEVEL": _LEVELS,
    "PERMISSION-LEVEL": _LEVELS,
    "LEVEL": "(?:" + "|".join(DEBUG_LEVELS) + ")",
}
ANY_NAME = r"[A-Za-z0-9_.]+"  # any other placeholder: a name the admin chooses (a route, a group, a job ...)
# MASTER_<name>_BACKOFF_*: <name> is a daemon of DAEMON_LIST
SUBSYS_NAMED = {"MASTER_<name>_BACKOFF_CEILING", "MASTER_<name>_BACKOFF_CONSTANT", "MASTER_<name>_BACKOFF_FACTOR",
                "MASTER_<name>_RECOVER_FACTOR"}
# `*` in a macro-def: an access level; ALLOW_*/DENY_* also take a subsystem suffix (security.rst:
# ALLOW_READ_COLLECTOR)
STAR = {"ALLOW_*": "ALLOW_" + _LEVELS + "(?:_{SUBSYS})?", "DENY_*": "DENY_" + _LEVELS + "(?:_{SUBSYS})?"}

# Knobs HTCondor 25 reads that have no macro-def in the manual and no built-in default: described
# in prose (WANT_SUSPEND_VANILLA, ep-policy-configuration.rst), read by the source (param("...") in
# the daemons: STARTD_COMPUTE_AVAIL_STATS), or kept for the obsolete-knob rules to report.
SOURCE_READ = """
STARTD_EXPRS STARTD_JOB_EXPRS SUBMIT_EXPRS SCHEDD_EXPRS STARTD_SLOT_EXPRS STARTD_VM_ATTRS STARTD_VM_EXPRS
LOCAL_ROOT_CONFIG_FILE ROOT_CONFIG_FILE JOB_ROUTER_DEFAULTS JOB_ROUTER_ENTRIES JOB_ROUTER_ENTRIES_FILE
JOB_ROUTER_ENTRIES_CMD JOB_ROUTER_SCHEDD1_SPOOL JOB_ROUTER_SCHEDD2_SPOOL JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES
CONDOR_DEVELOPERS CONDOR_DEVELOPERS_COLLECTOR ACCOUNTING_GROUP HAD_PORT REPLICATION_PORT
SINGULARITY_BIND_BASE SINGULARITY_IS_SETUID DEFAULT_DEBUG CONFIG_SERVER_FILE THINPOOL_NAME
THINPOOL_VOLUME_GROUP_NAME THINPOOL_BACKING_FILE OFFLINE_LOG LOCAL_CREDMON_PROVIDER_NAME ADSTASH_SE_URL
ADSTASH_CA_CERTS GLITE_LOCATION PBS_GAHP LSF_GAHP SGE_GAHP SLURM_GAHP SUBMIT_SKIP_FILECHECK SLOT_USER
WANT_SUSPEND_VANILLA WANT_VACATE_VANILLA SUSPEND_VANILLA CONTINUE_VANILLA PREEMPT_VANILLA KILL_VANILLA
WANT_SUSPEND_VM WANT_VACATE_VM SUSPEND_VM CONTINUE_VM PREEMPT_VM KILL_VM STARTD_COMPUTE_AVAIL_STATS
STARTD_MAX_AVAIL_PERIOD_SAMPLES STARTD_AVAIL_CONFIDENCE XAUTHORITY_USERS NAMED_CHROOT SCITOKENS_SERVER_AUDIENCE
VM_UNIV_NOBODY_USER VMP_HOST_MACHINE VMP_VM_LIST
CONDOR_JOB_POLL_INTERVAL SEC_INVALIDATE_SESSIONS_VIA_TCP ENABLE_STDOUT_TESTING
""".split()  # (the last line: condor_gridmanager/baseresource.cpp's legacy poll knob, daemon_core.cpp)

# Subsystem names beyond the manual's table (subsystems.rst): daemons HTCondor 25 ships.
EXTRA_SUBSYSTEMS = """CREDD LIBRARIAN ANNEX ANNEXD ADSTASH VIEW_SERVER CONDOR_VIEW CREDMON_KRB CREDMON_OAUTH
PELICANCACHE AP_COLLECTOR PREEN HAD REPLICATION VM_GAHP TRANSFERD LOCAL_CREDMON""".split()

# Families the manual describes in prose, not as a macro-def (why, source).
CURATED_FAMILIES = [
    ("MAX_NUM_{SUBSYS}_" + PLACEHOLDERS["LEVEL"] + "_LOG",
     "rotated copies of a per-level log, MAX_NUM_<SUBSYS>_<LEVEL>_LOG (read by the dprintf configuration code)"),
    (r"OFFLINE_MACHINE_RESOURCE_" + ANY_NAME, "custom resources taken offline (startd.rst)"),
    (r"JOB_ROUTER_(PRE|POST)_ROUTE_TRANSFORM_" + ANY_NAME, "job router transforms named by *_TRANSFORM_NAMES"),
    (r"DOCKER_VOLUME_DIR_" + ANY_NAME + r"(_MOUNT_IF)?",
     "a docker universe volume named in DOCKER_MOUNT_VOLUMES: its host path and when to mount it (docker_proc.cpp; "
     "the manual asks for a DOCKER_VOLUME_DIR_ knob with the host path of each volume)"),
]

# Knowledge packs: knobs of software built on HTCondor that its configurations carry (the CE's and
# glideinWMS's tools read them; HTCondor passes them through).  On by default.
PACKS = {
    "htcondor-ce": [(r"(HTCONDORCE|CONDORCE|HTCONDOR_CE)_.+", "HTCondor-CE settings (read by the CE's own tools)")],
    "glideinwms": [(r"(GLIDEIN|GLIDECLIENT)_.+", "glideinWMS settings published in pilot ads")],
}

# Knobs that HTCondor no longer reads, or reads only for compatibility: name regex -> info.
OBSOLETE_KNOBS = [
    {"pattern": r"HOSTALLOW_.+", "status": "removed", "replacement": "ALLOW_<level>",
     "note": "host-based HOSTALLOW_* lists are no longer read; only ALLOW_* is consulted"},
    {"pattern": r"HOSTDENY_.+", "status": "removed", "replacement": "DENY_<level>",
     "note": "host-based HOSTDENY_* lists are no longer read; only DENY_* is consulted"},
    {"pattern": r"VIRTUAL_MACHINE_TYPE_\d+", "status": "removed", "replacement": "SLOT_TYPE_<N>",
     "note": "the pre-6.9 'virtual machine' spelling of slot types is ignored"},
    {"pattern": r"NUM_VIRTUAL_MACHINES(_TYPE_\d+)?", "status": "removed",
     "replacement": "NUM_SLOTS / NUM_SLOTS_TYPE_<N>",
     "note": "the pre-6.9 'virtual machine' spelling of slot counts is ignored"},
    {"pattern": r"VIRTUAL_MACHINES_CONNECTED_TO_(CONSOLE|KEYBOARD)", "status": "removed",
     "replacement": "SLOTS_CONNECTED_TO_CONSOLE / SLOTS_CONNECTED_TO_KEYBOARD",
     "note": "renamed when virtual machines became slots"},
    {"pattern": r"(.+_)?STARTD_EXPRS|SUBMIT_EXPRS|SCHEDD_EXPRS|MASTER_EXPRS|COLLECTOR_EXPRS|NEGOTIATOR_EXPRS|"
                r"STARTD_JOB_EXPRS|STARTD_VM_EXPRS|STARTD_SLOT_EXPRS",
     "status": "deprecated", "replacement": "the matching *_ATTRS knob",
     "note": "*_EXPRS is still merged into *_ATTRS but is deprecated"},
    {"pattern": r"JOB_ROUTER_(DEFAULTS|ENTRIES|ENTRIES_FILE|ENTRIES_CMD|ENTRIES_REFRESH)", "status": "removed",
     "replacement": "JOB_ROUTER_ROUTE_NAMES + JOB_ROUTER_ROUTE_<name> (and JOB_ROUTER_TRANSFORM_*)",
     "note": "the old ClassAd-syntax job router configuration was removed in HTCondor 25.0"},
    {"pattern": r"EXECUTE_LOGIN_IS_DEDICATED", "status": "deprecated", "replacement": "DEDICATED_EXECUTE_ACCOUNT_REGEXP",
     "note": "still read, but deprecated in favour of DEDICATED_EXECUTE_ACCOUNT_REGEXP (global.rst)"},
    {"pattern": r"ALLOW_WRITE_COLLECTOR|ALLOW_WRITE_STARTD", "status": "deprecated",
     "replacement": "ALLOW_ADVERTISE_STARTD / ALLOW_DAEMON",
     "note": "since 9.0 ALLOW_WRITE only controls job submission; daemons advertise with ADVERTISE_* / DAEMON"},
    {"pattern": r"GLEXEC_.+|GLEXEC", "status": "removed", "replacement": None,
     "note": "glexec support was removed in HTCondor 8.9"},
    {"pattern": r"(SEC_.+_)?GSI_.+|GRIDMAP", "status": "removed",
     "replacement": "SSL, SCITOKENS or IDTOKENS authentication",
     "note": "GSI authentication was removed in HTCondor 9.x/23.0"},
    {"pattern": r"QUILL_.+|QUILL", "status": "removed", "replacement": None, "note": "Quill was removed"},
    {"pattern": r"HAWKEYE_.+", "status": "removed", "replacement": "STARTD_CRON_*",
     "note": "Hawkeye is the old name of startd cron"},
    {"pattern": r"ENABLE_SOAP|SOAP_.+|ENABLE_WEB_SERVER|WEB_ROOT_DIR", "status": "removed", "replacement": None,
     "note": "the SOAP / web-service interface of the daemons was removed"},
]

# Daemon names a DAEMON_LIST may hold (plus anything defined as a knob pointing at a binary).
DAEMON_NAMES = """MASTER STARTD SCHEDD COLLECTOR NEGOTIATOR KBDD SHARED_PORT JOB_ROUTER CREDD GRIDMANAGER
HAD REPLICATION DEFRAG GANGLIAD ROOSTER VIEW_SERVER CONDOR_VIEW ADSTASH LIBRARIAN ANNEXD
HDFS TRANSFERER TRANSFERD LEASEMANAGER STORK QUILL DBMSD CKPT_SERVER C_GAHP VM_GAHP STARTERD
PLACEMENTD METRICD PELICANCACHE CREDMON_KRB CREDMON_OAUTH AP_COLLECTOR""".split()

# Well-known host facts and macros HTCondor provides without a table entry.
SPECIAL_MACROS = """FULL_HOSTNAME HOSTNAME IP_ADDRESS IPV4_ADDRESS IPV6_ADDRESS ARCH OPSYS OPSYSANDVER OPSYSVER
OPSYSMAJORVER OPSYSNAME OPSYSLONGNAME OPSYSSHORTNAME OPSYSLEGACY UNAME_ARCH UNAME_OPSYS FILESYSTEM_DOMAIN
UID_DOMAIN USERNAME CONFIG_ROOT SUBSYSTEM LOCALNAME TILDE DETECTED_MEMORY DETECTED_CPUS DETECTED_CORES
DETECTED_PHYSICAL_CPUS DETECTED_CPUS_LIMIT DETECTED_HYPERTHREAD_CPUS PID PPID REAL_UID REAL_GID
CondorIsAdmin DOLLAR RANDOM_CHOICE RANDOM_INTEGER ENV ALL_DEBUG""".split()


def _read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _read_table_module(path: Path) -> dict:
    """condorcfg's generated table module, as {"knobs": ...} (executed alone: no condorcfg import)."""
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return {"knobs": namespace["KNOBS"]}


def builtin_table() -> tuple[dict, str]:
    """name -> {type, default, path} from the config engineer's table (or the spec copy)."""
    for path in (ROOT / "condorcfg" / "config" / "default_table.py",
                 SHARED / "spec" / "builtin_defaults_25_14_1.json"):
        if path.is_file():
            data = _read_json(path) if path.suffix == ".json" else _read_table_module(path)
            table = data.get("knobs") or data.get("defaults") or {}
            knobs = {}
            for name, entry in table.items():
                if isinstance(entry, dict):
                    knobs[name] = {"type": entry.get("type") or "string",
                                   "path": bool(entry.get("is_path") or entry.get("path"))}
                else:
                    knobs[name] = {"type": "string", "path": False}
            # named the same in any checkout, whatever its folder is called (CI clones elsewhere)
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path("shared") / path.relative_to(SHARED)
            return knobs, shown.as_posix()
    sys.exit("no built-in default table found (run tools/make_defaults.py first)")


_ORACLE_CHILD = r"""
import json, sys
import htcondor2
names = json.loads(sys.stdin.read())
out = {"keys": sorted(htcondor2.param.keys()), "types": {}}
for name in names:
    try:
        value = htcondor2.param.get(name)
    except Exception:
        continue
    if value is not None:
        out["types"][name] = type(value).__name__
print(json.dumps(out))
"""


def oracle_facts(names: list[str]) -> dict:
    """What HTCondor defines on an empty configuration, and the Python type of each value."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "condor_config"
        config.write_text(f"LOCAL_DIR = {tmp}\nRELEASE_DIR = {tmp}\n")
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        env.update(CONDOR_CONFIG=str(config), HOME=tmp)
        proc = subprocess.run([sys.executable, "-c", _ORACLE_CHILD], input=json.dumps(names),
                              capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    if proc.returncode != 0:
        sys.exit(f"oracle failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(\+=|=|@=)")


def template_assigned_names() -> list[str]:
    """Names HTCondor's templates assign (argument-built names like COLLECTOR$(1) are skipped)."""
    names = set()
    for path in sorted((ROOT / "templates").glob("*.config")):
        in_body = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"^[A-Za-z0-9_.]+\s+@=", line):
                in_body = True
                continue
            if line.startswith("@"):
                in_body = False
                continue
            found = _ASSIGN.match(line)
            if in_body and found:
                names.add(found.group(1).split(".")[-1])
    return sorted(names, key=lambda n: (n.upper(), n))


_PY_TYPE = {"int": "int", "bool": "bool", "float": "double", "str": "string"}

MANUAL = SHARED / "reference" / "htcondor" / "docs"
_MACRO_DEF = re.compile(r":macro-def:`([^`]+)`")


def manual_macro_defs() -> dict[str, str]:
    """Every ``:macro-def:`` of the manual: spelling (index category ``[Networking]`` removed) -> page."""
    if not MANUAL.is_dir():
        sys.exit(f"the HTCondor manual is not at {MANUAL} (set CONDORCFG_SHARED)")
    found: dict[str, str] = {}
    for path in sorted(MANUAL.rglob("*.rst")):
        page = path.relative_to(MANUAL).as_posix()
        for match in _MACRO_DEF.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(re.sub(r"\[[^\]]*\]$", "", match.group(1)).strip(), page)
    return found


def manual_subsystems() -> list[str]:
    """The subsystem names of the manual's table (admin-manual/subsystems.rst)."""
    text = (MANUAL / "admin-manual" / "subsystems.rst").read_text(encoding="utf-8")
    names = {cell.strip() for row in text.splitlines() if row.startswith("|") for cell in row.split("|")}
    return sorted(n for n in names if re.fullmatch(r"[A-Z][A-Z0-9_]+", n))


def family_pattern(spelling: str) -> str:
    """The regex (``{SUBSYS}`` left to fill) of a macro-def written with placeholders or ``*``."""
    if spelling in STAR:
        return STAR[spelling]
    parts = []
    for piece in re.split(r"(<[^>]+>|\*)", spelling):
        if not piece:
            continue
        if piece == "*":
            parts.append(_LEVELS)
        elif piece.startswith("<"):
            key = piece[1:-1].upper()
            if key == "N" and parts and parts[-1] == "SLOT":  # SLOT<N>_X also names dynamic slots: SLOT1_32_USER
                parts.append(r"\d+(?:_\d+)?")
                continue
            parts.append("{SUBSYS}" if spelling in SUBSYS_NAMED else PLACEHOLDERS.get(key, ANY_NAME))
        else:
            parts.append(re.escape(piece))
    return "".join(parts)


def knob_families(defs: dict[str, str]) -> list[dict]:
    """Manual families first (most specific: fewest placeholder characters first), then curated, then packs."""
    manual = [{"pattern": family_pattern(s), "spelling": s, "source": f"manual: {page}"}
              for s, page in defs.items() if "<" in s or "*" in s]
    manual.sort(key=lambda e: (-len(re.sub(r"<[^>]+>|\*", "", e["spelling"])), e["spelling"]))
    curated = [{"pattern": p, "spelling": None, "source": "curated", "why": why} for p, why in CURATED_FAMILIES]
    packs = [{"pattern": p, "spelling": None, "source": f"pack: {pack}", "why": why}
             for pack, entries in PACKS.items() for p, why in entries]
    families = manual + curated + packs
    for entry in families:
        re.compile(entry["pattern"].replace("{SUBSYS}", "X"))
    return families


PARAM_INFO = SHARED / "reference" / "htcondor" / "src" / "condor_utils" / "param_info.in"
# A macro-def whose own paragraphs say a reconfig is not enough.
_RESTART_PROSE = re.compile(
    r"(must\s+(be\s+)?restart|requires?\s+(a\s+)?restart|must\s+run\s+:tool:`condor_restart`|"
    r"cannot\s+be\s+changed\s+with\s+a\s+simple\s+reconfig|only\s+takes\s+note\s+of\s+the\s+value\s+of\s+this\s+"
    r"configuration\s+variable\s+on\s+start\s*up|restart\s+(the\s+)?\*?condor_\w+\*?\s+(daemon\s+)?for\s+the\s+change|"
    r"not\s+just\s+a\s+:tool:`condor_reconfig`|restarting\s+all\s+HTCondor\s+daemons)", re.I)
# A note that covers every macro-def after it up to the next section heading (startd.rst: slot provisioning).
_RESTART_SECTION = re.compile(r"change the number or definition of the different slot types with a reconfig", re.I)


def restart_knobs() -> list[dict]:
    """Knobs a condor_reconfig does not apply (the daemon must restart): ``restart=true`` in
    param_info.in, and the macro-defs the manual says so of (their own text, or a section note)."""
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=\[)", PARAM_INFO.read_text(encoding="utf-8")):
        name = re.match(r"\[([A-Za-z0-9_.]+)\]", block)
        if name and re.search(r"^restart\s*=\s*true", block, re.M):
            found.setdefault(name.group(1), "param_info.in: restart=true")
    for path in sorted((MANUAL / "admin-manual" / "configuration").glob("*.rst")):
        page = path.relative_to(MANUAL).as_posix()
        text = path.read_text(encoding="utf-8")
        parts = re.split(r"(?m)^:macro-def:`([^`]+)`", text)
        covered = False  # inside the run of macro-defs a section note covers
        for index in range(1, len(parts), 2):
            spelled, body = parts[index], parts[index + 1]
            before = parts[index - 1]
            if _RESTART_SECTION.search(before):
                covered = True
            else:
                prose = " ".join(line for line in before.splitlines()
                                 if line and not line[0].isspace() and not line.startswith((".. ", ":macro")))
                if covered and prose and "slot" not in prose.lower():
                    covered = False  # prose on another topic ("... support java universe jobs") ends the run
            own = re.split(r"(?m)^\S", body, maxsplit=1)[0]  # its indented paragraphs
            if covered or _RESTART_PROSE.search(own):
                found.setdefault(re.sub(r"\[[^\]]*\]$", "", spelled).strip(),
                                 f"manual: {page}" + (" (slot provisioning)" if covered else ""))
    return [{"spelling": name, "pattern": family_pattern(name) if ("<" in name or "*" in name) else re.escape(name),
             "source": source} for name, source in sorted(found.items(), key=lambda kv: kv[0].upper())]


def build(use_oracle: bool = True) -> dict[str, dict]:
    # The table itself is not copied: the loader reads it from condorcfg/config at run time.
    table, table_source = builtin_table()
    upper = {k.upper() for k in table}
    oracle = oracle_facts(sorted(table)) if use_oracle else None
    type_corrections, host_defined = {}, []
    if oracle is not None:
        for name, py_type in oracle["types"].items():
            declared = table[name]["type"]
            observed = _PY_TYPE.get(py_type, "string")
            if declared in ("int", "long") and observed == "int":
                continue
            if observed != declared:
                type_corrections[name] = observed  # the oracle decides
        host_defined = sorted((n for n in oracle["keys"] if n.upper() not in upper), key=lambda n: (n.upper(), n))
        upper |= {n.upper() for n in host_defined}
    defs = manual_macro_defs()
    documented = {name: page for name, page in sorted(defs.items(), key=lambda kv: (kv[0].upper(), kv[0]))
                  if "<" not in name and "*" not in name}
    known = upper | {n.upper() for n in documented}
    source_read = sorted(n for n in SOURCE_READ if n.upper() not in known)
    subsystems = sorted(set(manual_subsystems()) | set(EXTRA_SUBSYSTEMS))
    attrs = _read_json(SHARED / "spec" / "attr-lists.json")
    attributes = {key: attrs[key] for key in ("machine", "machine_claimed_only", "machine_patterns", "config_ad",
                                              "copied_job_attrs", "job", "job_patterns", "both",
                                              "local_only_expressions")}
    attributes["about"] = ("Attribute vocabularies (case-insensitive). Generated by tools/make_knowledge.py "
                           "from shared/spec/attr-lists.json (HTCondor manual attribute pages + startd source).")
    return {
        "knobs.json": {
            "htcondor_version": HTCONDOR_VERSION,
            "sources": {"builtin_table": table_source, "oracle": bool(oracle),
                        "manual": "shared/reference/htcondor/docs (:macro-def: entries)"},
            "builtin_table_size": len(table),
            "type_corrections": type_corrections,
            "host_defined": host_defined,
            "documented": documented,
            "source_read": source_read,
            "template_assigned": template_assigned_names(),
            "special_macros": SPECIAL_MACROS,
            "subsystems": subsystems,
            "families": knob_families(defs),
            "obsolete": OBSOLETE_KNOBS,
            "daemons": DAEMON_NAMES,
            "restart": restart_knobs(),
        },
        "attributes.json": attributes,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the committed files are up to date")
    parser.add_argument("--no-oracle", action="store_true", help="skip the HTCondor cross-check (not for commits)")
    args = parser.parse_args(argv)
    outputs = build(use_oracle=not args.no_oracle)
    stale = []
    for name, data in outputs.items():
        text = json.dumps(data, indent=1, sort_keys=False) + "\n"
        path = OUT_DIR / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text)} bytes)")
    if stale:
        print(f"out of date: {', '.join(stale)}; run tools/make_knowledge.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
