"""Pool repository speed: `condorcfg lint`, the pre-commit hook and `diff` on a generated pool of roles.

The issue's goal: a repository of 3 roles x 40 fragments with 20 machine profiles: full `lint`
under 3 s, and a pre-commit run with one changed role fragment under 1 s on a 2-core machine
(only the roles reading it are linted).  This script generates (seeded, deterministic) such a
git repository in a temporary folder:

* ``common/condor_config`` (``LOCAL_CONFIG_DIR = /etc/condor/config.d``), ``common/config.d/`` with
  SHARED fragments, ``roles/{cm,ap,ep}/config.d/`` with ROLE_FRAGMENTS each (so a role reads
  SHARED + ROLE_FRAGMENTS fragments): knobs, macros, expressions, ``use`` templates,
  START/RANK/PREEMPT, security lists, if-blocks, continuations, a job transform;
* PROFILES machine profiles (``machines/*.yaml``, each a different hardware class) named by the
  ``ep`` role's ``machine-profiles``;
* ``.condorcfg.yaml``: the three roles, each mounting
  ``/etc/condor/config.d: [common/config.d, roles/<role>/config.d]``,

and times, as whole ``condorcfg`` processes run from the repository (median and fastest of --runs):

  (a) ``condorcfg lint``                                      (every role; target < 3 s)
  (b) ``condorcfg lint --pre-commit -- roles/ep/config.d/F``  (F changed and staged; target < 1 s;
                                                               only ep may be linted)
  (c) the same with a changed shared fragment                 (every role reads it)
  (d) ``condorcfg diff HEAD~1 HEAD`` after a commit changing one ep fragment (slot ads for each
      distinct profile of ep's 20)

next to ``condorcfg --version`` (the interpreter and the CLI starting, nothing read), and the roles
each lint run linted (``--format json``: the ``files`` read and the ``roles`` of the findings; the
generated pool has three findings, one in a shared fragment, two in ep's).  The oracle ratio:
HTCondor itself (the htcondor2 wheel, a fresh process: import, read, look up DAEMON_LIST) reading
each role's configuration from an assembled copy of the role's host tree (the mounts laid out
under a temporary ``/etc/condor``), against ``condorcfg value --role R DAEMON_LIST``, timed
alternately; 13 knobs of each role are first checked to have the same values in both.  Like
bench_config.py's whole-process numbers, condorcfg is run as users run it: its wheel installed in a
fresh venv (--editable: the development install instead, whose import hook costs every process
~25 ms).

Then, in process (the development install, this interpreter): where the time of (a)-(d) goes.

* instrumented runs (median of --instrument-runs; each function's own time, less the instrumented
  functions it calls): each configuration read (``condorcfg.load``, less the imports it made), by
  whom (the hook's pass over every role to find those reading the changed file, or the lint of a
  role); each file read (``Reader.read_file``: statements stored, templates applied), shared or the
  role's, how often each is read per run, and what parsing alone (read + decode + logical lines +
  statement parsing, timed on its own) costs, so what a per-run parse cache would save; the imports
  made during the run, the project settings, the rule definitions, the hook's ``git diff``, each
  rule's check, merging the roles' results, the report;
* cProfile of (a) and (b): the top functions by own time and by cumulative time.

At --scale 1 a role reads ~1,300 lines; --scale N puts N times the site macros in every fragment.

Nothing here is a timed test: the numbers are for people, and the exit status is 1 only when a
target is missed.

    python benchmarks/bench_pool.py [--runs N] [--editable] [--no-profile] [--scale N] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = 2025
ROLES = ("cm", "ap", "ep")
SHARED = 20          # fragments in common/config.d
ROLE_FRAGMENTS = 20  # fragments in each roles/<role>/config.d
PROFILES = 20        # machine profiles of the ep role
TARGETS = {"a": 3.0, "b": 1.0}  # seconds: full lint, pre-commit with one changed role fragment
EP_CHANGED = "roles/ep/config.d/54-start-policy"
EP_CHANGE = ("SITE_EP_START_MAX_CPUS = 64", "SITE_EP_START_MAX_CPUS = 48")
SHARED_CHANGED = "common/config.d/06-logging"
SHARED_CHANGE = ("MAX_DEFAULT_LOG = 50 Mb", "MAX_DEFAULT_LOG = 100 Mb")
ORACLE_PROBE = "import htcondor2; print(htcondor2.param['DAEMON_LIST'])"
# knobs both programs must agree on before their times are compared (one check per role)
CHECKED = ["DAEMON_LIST", "START", "PREEMPT", "WANT_HOLD", "RANK", "ALLOW_READ", "ALLOW_ADMINISTRATOR",
           "GROUP_NAMES", "SUBMIT_REQUIREMENT_NAMES", "JOB_TRANSFORM_NAMES", "STARTD_ATTRS", "MAX_DEFAULT_LOG",
           "SITE_LIMITS_MAX_MEMORY"]
ORACLE_CHECK = ("import htcondor2, json, sys; print(json.dumps({k: htcondor2.param.get(k) for k in sys.argv[1:]}))")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.edu", "-c", "core.hooksPath=/dev/null",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]

# --- the generated repository ------------------------------------------------------------------

CONDOR_CONFIG = """\
######################################################################
##
##  /etc/condor/condor_config on every host of the pool (generated by
##  benchmarks/bench_pool.py).  Site settings go in config.d.
##
######################################################################

##  Where have you installed the bin, sbin and lib condor directories?
RELEASE_DIR = /usr

##  Where is the local condor directory for each host?
LOCAL_DIR = /var

##  The machine-specific local file: the hosts have none (`removed` in .condorcfg.yaml).
LOCAL_CONFIG_FILE = /etc/condor/condor_config.local
REQUIRE_LOCAL_CONFIG_FILE = false

##  Read all of the files in this directory, in lexicographic order.
LOCAL_CONFIG_DIR = /etc/condor/config.d

##  Pathnames
RUN     = $(LOCAL_DIR)/run/condor
LOG     = $(LOCAL_DIR)/log/condor
LOCK    = $(LOCAL_DIR)/lock/condor
SPOOL   = $(LOCAL_DIR)/lib/condor/spool
EXECUTE = $(LOCAL_DIR)/lib/condor/execute
ETC     = /etc/condor
BIN     = $(RELEASE_DIR)/bin
LIB     = $(RELEASE_DIR)/lib64/condor
INCLUDE = $(RELEASE_DIR)/include/condor
SBIN    = $(RELEASE_DIR)/sbin
LIBEXEC = $(RELEASE_DIR)/libexec/condor
SHARE   = $(RELEASE_DIR)/share/condor

JAVA_CLASSPATH_DEFAULT = $(SHARE) .
"""

# (file name, what it is about, hand-written lines with real knobs); the rest of each fragment is
# the site's own macros (SITE_*), generated.  Names step by 2 so a role's files interleave later.
COMMON = [
    ("00-pool", "The pool: its central manager and the domains users and files belong to.", [
        "CONDOR_HOST = cm.example.edu",
        "UID_DOMAIN = example.edu",
        "FILESYSTEM_DOMAIN = example.edu"]),
    ("02-security", "Authentication and authorization: HTCondor's recommended model, IDTOKENS between hosts.", [
        "use SECURITY : recommended",
        "ALLOW_READ = *.example.edu, 10.20.*, 10.21.*",
        "ALLOW_ADMINISTRATOR = condor@$(UID_DOMAIN)/$(CONDOR_HOST), root@$(UID_DOMAIN)/$(CONDOR_HOST)",
        "SEC_DEFAULT_AUTHENTICATION_METHODS = IDTOKENS, FS",
        "SEC_TOKEN_DIRECTORY = /etc/condor/tokens.d",
        "SEC_PASSWORD_DIRECTORY = /etc/condor/passwords.d"]),
    ("04-network", "Networking: IPv4 only; all daemons of a host behind the shared port.", [
        "ENABLE_IPV6 = False",
        "USE_SHARED_PORT = True",
        "UPDATE_COLLECTOR_WITH_TCP = True"]),
    ("06-logging", "Daemon logs: bigger and more of them than the default, so a day of history is kept.", [
        "MAX_DEFAULT_LOG = 50 Mb",
        "MAX_NUM_DEFAULT_LOG = 3",
        "ALL_DEBUG = D_CAT"]),
    ("08-paths", "Site paths: scratch, software and the shared file systems.", []),
    ("10-daemon-core", "How often daemons report to the collector, and how the master restarts them.", [
        "UPDATE_INTERVAL = 300",
        "MASTER_UPDATE_INTERVAL = 300",
        "MASTER_BACKOFF_CEILING = 3600"]),
    ("12-site-limits", "Limits the site applies everywhere.", []),
    ("14-site-groups", "The departments that bought into the pool.", []),
    ("16-file-transfer", "File transfer: jobs bring their input, URLs are allowed.", [
        "MAX_TRANSFER_INPUT_MB = 10240",
        "MAX_TRANSFER_OUTPUT_MB = 10240",
        "ENABLE_URL_TRANSFERS = True"]),
    ("18-containers", "Apptainer: jobs naming an image run in it.", [
        "SINGULARITY = /usr/bin/apptainer",
        "SINGULARITY_JOB = !isUndefined(TARGET.SingularityImage)",
        "SINGULARITY_IMAGE_EXPR = TARGET.SingularityImage",
        'SINGULARITY_BIND_EXPR = "/cvmfs,/software"']),
    ("20-monitoring", "Statistics kept by every daemon for the dashboards.", [
        "STATISTICS_WINDOW_SECONDS = 1200"]),
    ("22-site-maintenance", "Maintenance windows and drains.", []),
    ("24-site-hardware", "Hardware classes the site buys.", []),
    ("26-site-software", "Software stacks on /software and CVMFS.", []),
    ("28-site-attributes", "Attributes every daemon advertises.", [
        "SITE_ADVERTISED = SiteName SiteContact"]),
    ("30-site-contacts", "Who to call.", []),
    ("32-site-audit", "What is kept for the audits.", []),
    ("34-site-accounting", "Accounting exports.", []),
    ("36-site-network", "Site network ranges.", []),
    ("38-site-upgrade", "Notes for the next upgrade.", []),
]

ROLE_FILES = {
    "cm": [
        ("50-central-manager", "Central manager: the collector and the negotiator.", [
            "use ROLE : CentralManager",
            "COLLECTOR_NAME = Example University Research Pool"]),
        ("52-negotiator", "Matchmaking: no preemption, usage remembered for three days.", [
            "NEGOTIATOR_INTERVAL = 60",
            "NEGOTIATOR_CONSIDER_PREEMPTION = False",
            "PREEMPTION_REQUIREMENTS = False",
            "PRIORITY_HALFLIFE = 259200"]),
        ("54-accounting-groups", "Fair share between the departments.", [
            "GROUP_NAMES = group_physics, group_chemistry, group_biology, group_cs",
            "GROUP_QUOTA_DYNAMIC_group_physics = 0.4",
            "GROUP_QUOTA_DYNAMIC_group_chemistry = 0.3",
            "GROUP_QUOTA_DYNAMIC_group_biology = 0.2",
            "GROUP_QUOTA_DYNAMIC_group_cs = 0.1",
            "GROUP_ACCEPT_SURPLUS = True"]),
        ("56-priorities", "Which slot a job gets first: an idle one, the smallest that fits.", [
            "DEFAULT_PRIO_FACTOR = 1000.0",
            "NEGOTIATOR_PRE_JOB_RANK = (10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) \\",
            "   - (100000 * Cpus) - Memory"]),
        ("58-collector", "The collector of a big pool.", [
            "COLLECTOR_MAX_FILE_DESCRIPTORS = 20000",
            "COLLECTOR_QUERY_WORKERS = 8"]),
        ("60-negotiator-limits", "A negotiation cycle is bounded.", [
            "NEGOTIATOR_MAX_TIME_PER_SUBMITTER = 60",
            "NEGOTIATOR_MAX_TIME_PER_CYCLE = 1200"]),
    ],
    "ap": [
        ("50-access-point", "Access point: where users log in and submit.", [
            "use ROLE : Submit",
            "MAX_JOBS_RUNNING = 20000"]),
        ("52-submit-requirements", "Jobs the pool can never run are refused at submit time.", [
            "SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) MemoryFits CpusFit",
            "SUBMIT_REQUIREMENT_MemoryFits = RequestMemory <= 252 * 1024",
            'SUBMIT_REQUIREMENT_MemoryFits_REASON = "request_memory is larger than any machine of the pool"',
            "SUBMIT_REQUIREMENT_CpusFit = RequestCpus <= 128",
            'SUBMIT_REQUIREMENT_CpusFit_REASON = "request_cpus is more than any machine of the pool has"']),
        ("54-job-cleanup", "Jobs held for two weeks are removed.", [
            "SYSTEM_PERIODIC_REMOVE_NAMES = $(SYSTEM_PERIODIC_REMOVE_NAMES) HeldTooLong",
            "SYSTEM_PERIODIC_REMOVE_HeldTooLong = JobStatus == 5 && (time() - EnteredCurrentStatus) > 14 * 24 * 3600",
            "MAX_HISTORY_LOG = 1000000000"]),
        ("56-periodic-hold", "Jobs using far more memory than they asked for are held.", [
            "SYSTEM_PERIODIC_HOLD = (JobStatus == 2) && (MemoryUsage > 2 * RequestMemory)",
            'SYSTEM_PERIODIC_HOLD_REASON = "memory usage above twice request_memory"']),
        ("58-job-defaults", "Defaults for what a job does not ask for.", [
            "JOB_DEFAULT_REQUESTMEMORY = 2048",
            "MAX_JOBS_PER_OWNER = 5000",
            "MAX_JOBS_PER_SUBMISSION = 50000"]),
        ("60-transforms", "Jobs without an accounting group are put in group_other.", [
            "JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) DefaultGroup",
            "JOB_TRANSFORM_DefaultGroup @=end",
            "   REQUIREMENTS AcctGroup is undefined",
            '   EVALSET AccountingGroup strcat("group_other.", Owner)',
            "@end"]),
        ("62-schedd", "The schedd's own pace.", [
            "SCHEDD_INTERVAL = 300",
            "MAX_SHADOW_EXCEPTIONS = 5"]),
    ],
    "ep": [
        ("50-execute", "Execute nodes: a startd that runs jobs.", [
            "use ROLE : Execute",
            "MAXJOBRETIREMENTTIME = 86400"]),
        ("52-slots", "One partitionable slot owning the whole node.", [
            "use FEATURE : PartitionableSlot",
            "RESERVED_MEMORY = 4096"]),
        ("54-start-policy", "Which jobs an execute node starts.", [
            "SITE_EP_START_MAX_CPUS = 64",
            'START = $(START) && (splitUserName(TARGET.User)[1] =?= "$(UID_DOMAIN)") \\',
            "   && (TARGET.RequestCpus <= $(SITE_EP_START_MAX_CPUS)) \\",
            "   && (TARGET.RequestMemory <= $(SITE_LIMITS_MAX_MEMORY))"]),
        ("56-rank", "Jobs of the groups that bought a node come first there.", [
            'RANK = (TARGET.AcctGroup =?= "group_physics") * 10 + (TARGET.AcctGroup =?= "group_chemistry")']),
        ("58-preempt", "Memory hogs are held; a job past its runtime is preempted.", [
            "use POLICY : Hold_If_Memory_Exceeded",
            "SITE_EP_MAX_RUNTIME = 3 * 24 * 3600",
            'PREEMPT = $(PREEMPT) || ((Activity == "Busy") \\',
            "   && (time() - EnteredCurrentActivity > $(SITE_EP_MAX_RUNTIME)))",
            "WANT_SUSPEND = False"]),
        ("60-attributes", "Attributes the slots advertise for jobs to match on.", [
            'MachineOwner = "campus"',
            "HasCVMFS = True",
            "STARTD_ATTRS = $(STARTD_ATTRS) MachineOwner HasCVMFS"]),
        ("62-health", "A periodic health check; an unhealthy node starts nothing.", [
            "use FEATURE : StartdCronPeriodic(HEALTH, 300, $(LIBEXEC)/site_health_check)",
            "START = $(START) && (HEALTH_OK =!= False)"]),
    ],
}

WORDS = ["alpha", "beta", "gamma", "delta", "scratch", "physics", "chemistry", "biology", "archive", "fast",
         "slow", "bulk", "gpu", "cvmfs", "software", "home", "data", "tmp", "local", "campus"]


def site_lines(rng: random.Random, prefix: str, count: int, numbers: list[str]) -> list[str]:
    """``count`` site macro definitions: numbers, paths, strings, lists, expressions over continuations,
    references (to ``numbers``, the numeric macros defined so far, which this extends), defaults,
    if-blocks and version checks."""
    out = []
    for k in range(count):
        name = f"{prefix}_{k}"
        word = rng.choice(WORDS)
        kind = rng.randrange(10)
        if kind == 0:
            out.append(f"# {word} settings, reviewed {rng.randrange(2019, 2026)}")
            out.append(f"{name}_LIMIT = {rng.randrange(1, 100000)}")
            numbers.append(f"{name}_LIMIT")
        elif kind == 1:
            out.append(f"{name}_DIR = $(LOCAL_DIR)/{word}/{k}")
        elif kind == 2:
            out.append(f"{name}_LIMIT = {rng.randrange(1, 100000)}")
            numbers.append(f"{name}_LIMIT")
        elif kind == 3:
            out.append(f'{name}_NAME = "{word}-{k}.example.edu"')
        elif kind == 4:
            out.append(f"{name}_EXPR = (TARGET.RequestMemory <= {rng.randrange(1, 512)} * 1024) \\")
            out.append(f"   && (TARGET.RequestCpus <= {rng.choice((1, 2, 4, 8, 16, 32))})")
        elif kind == 5 and numbers:
            out.append(f"{name}_REF = $({rng.choice(numbers)}) + {rng.randrange(1, 100)}")
        elif kind == 6:
            out.append(f"{name}_DEFAULT = $({prefix}_UNSET_{k}:{word})")
        elif kind == 7 and numbers:
            out += [f"if defined {rng.choice(numbers)}", f"  {name}_MODE = strict", "else",
                    f"  {name}_MODE = relaxed", "endif"]
        elif kind == 8:
            out += ["if version >= 24.0", f"  {name}_NEW = true", "else", f"  {name}_NEW = false", "endif"]
        else:
            out.append(f"{name}_LIST = {', '.join(rng.sample(WORDS, 3))}")
    return out


def fragment(rng: random.Random, prefix: str, about: str, lines: list[str], numbers: list[str], scale: int = 1) -> str:
    head = [f"# {about}", "#", f"# (Generated by benchmarks/bench_pool.py; the {prefix}_* macros are the site's own.)"]
    body = list(lines)
    if body:
        body.append("")
    body += site_lines(rng, prefix, rng.randrange(10, 18) * scale, numbers)
    return "\n".join(head + [""] + body) + "\n"


def role_fragments(role: str) -> list[tuple[str, str, list[str]]]:
    named = list(ROLE_FILES[role])
    number = 50 + 2 * len(named)
    while len(named) < ROLE_FRAGMENTS:
        named.append((f"{number}-site-{role}-{number}", f"The {role} hosts' own settings ({number}).", []))
        number += 2
    return named


def profile_text(index: int, rng: random.Random) -> tuple[str, str]:
    cpus = [8, 16, 24, 32, 48, 64, 96, 128][index % 8]
    memory = cpus * rng.choice((2048, 4096, 8192))
    gpus = index % 5 == 4
    name = f"ep-{index + 1:02d}-{'gpu' if gpus else 'cpu'}{cpus}"
    lines = [f"# Hardware class {index + 1}: {cpus} cores, {memory // 1024} GiB" + (", 4 GPUs" if gpus else ""),
             f"hostname: {name}.example.edu", f"cpus: {cpus}", f"memory: {memory}       # MiB",
             f"disk: {rng.randrange(200, 4000) * 1000000}    # KiB", f"swap: {rng.choice((0, 4194304, 8388608))}",
             f"ip: 10.20.{index // 10 + 1}.{index % 10 + 1}", "opsys: LINUX", "arch: X86_64"]
    if gpus:
        lines.append("gpus: [" + ", ".join(f"GPU-{index:02d}{g}a0b1c2" for g in range(4)) + "]")
    return name, "\n".join(lines) + "\n"


def generate(top: Path, scale: int = 1) -> dict:
    """Write the pool repository in ``top`` and commit it (``scale``: that many times the site macros in each
    fragment); returns what was written."""
    rng = random.Random(SEED)
    (top / "common" / "config.d").mkdir(parents=True)
    (top / "common" / "condor_config").write_text(CONDOR_CONFIG)
    shared_numbers = ["SITE_LIMITS_MAX_MEMORY"]
    lines = {"shared": CONDOR_CONFIG.count("\n")}
    for name, about, body in COMMON:
        if name == "12-site-limits":
            body = ["SITE_LIMITS_MAX_MEMORY = 252 * 1024"]
        text = fragment(rng, "SITE_" + re.sub(r"\W", "_", name.split("-", 1)[1].upper()), about, body,
                        shared_numbers, scale)
        (top / "common" / "config.d" / name).write_text(text)
        lines["shared"] += text.count("\n")
    for role in ROLES:
        folder = top / "roles" / role / "config.d"
        folder.mkdir(parents=True)
        numbers = list(shared_numbers)
        lines[role] = 0
        for name, about, body in role_fragments(role):
            text = fragment(rng, f"SITE_{role.upper()}_{name.split('-')[0]}", about, body, numbers, scale)
            (folder / name).write_text(text)
            lines[role] += text.count("\n")
    (top / "machines").mkdir()
    profiles = []
    for index in range(PROFILES):
        name, text = profile_text(index, rng)
        (top / "machines" / f"{name}.yaml").write_text(text)
        profiles.append(f"machines/{name}.yaml")
    settings = ["# condorcfg project settings of the generated pool (benchmarks/bench_pool.py)", "roles:"]
    for role in ROLES:
        settings += [f"  {role}:", "    root: common/condor_config", "    mounts:",
                     f"      /etc/condor/config.d: [common/config.d, roles/{role}/config.d]",
                     "    removed: [/etc/condor/condor_config.local]"]
        if role == "ep":
            settings.append("    machine-profiles:")
            settings += [f"      - {p}" for p in profiles]
    settings.append('known-knobs: ["SITE_.*", "MachineOwner", "HasCVMFS", "HEALTH_.*"]')
    (top / ".condorcfg.yaml").write_text("\n".join(settings) + "\n")
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "the pool")
    return {"lines": lines, "profiles": profiles}


def git(top: Path, *argv: str) -> None:
    subprocess.run([*GIT, *argv], cwd=top, check=True, capture_output=True)


def edit(top: Path, path: str, change: tuple[str, str], stage: bool = True) -> None:
    file = top / path
    text = file.read_text()
    if change[0] not in text:
        sys.exit(f"bench_pool: {path} has no {change[0]!r} to change")
    file.write_text(text.replace(change[0], change[1], 1))
    if stage:
        git(top, "add", path)


def restore(top: Path, path: str) -> None:
    git(top, "checkout", "HEAD", "--", path)


def assemble_host(top: Path, role: str, host: Path) -> Path:
    """The role's host tree as its mounts lay it out, under ``host`` standing for /, "/etc/condor" in the
    copies written as where they are; returns its condor_config."""
    etc = host / "etc" / "condor"
    (etc / "config.d").mkdir(parents=True)

    def copy(source: Path, target: Path) -> None:
        target.write_text(source.read_text().replace("/etc/condor", str(etc)))

    copy(top / "common" / "condor_config", etc / "condor_config")
    for folder in (top / "common" / "config.d", top / "roles" / role / "config.d"):  # (the later one wins)
        for file in sorted(folder.iterdir()):
            copy(file, etc / "config.d" / file.name)
    return etc / "condor_config"


# --- whole processes --------------------------------------------------------------------------------

def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("_CONDOR_", "PRE_COMMIT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with compiled modules, as installed
    env.pop("CONDOR_CONFIG", None)
    return env


def run(argv: list[str], cwd: Path, env: dict, ok=(0, 1)) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok or "Traceback (most recent call last)" in done.stderr:  # (a crash exits 1 too)
        sys.exit(f"bench_pool: {' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, done


def timings(argv: list[str], cwd: Path, env: dict, runs: int, ok=(0, 1)) -> list[float]:
    run(argv, cwd, env, ok)  # warm-up: .pyc files, the disk cache
    return [run(argv, cwd, env, ok)[0] for _ in range(runs)]


def linted_roles(report: dict) -> tuple[list[str], list[str]]:
    """(roles whose own files the run read, roles named by its findings), from a --format json report."""
    by_files = sorted({f.split("/")[1] for f in report["files"] if f.startswith("roles/")}, key=ROLES.index)
    by_findings = sorted({r for finding in report["findings"] for r in finding.get("roles", ())}, key=ROLES.index)
    return by_files, by_findings


def program(args, tmp: str) -> tuple[str, str]:
    """(the condorcfg program, the python running the oracle): the installed wheel's, or the development
    install's with --editable."""
    if args.editable:
        return str(Path(sys.executable).with_name("condorcfg")), sys.executable
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_config import installed_venv  # (the same installation as bench_config's whole-process numbers)

    python = installed_venv(tmp)
    return str(Path(python).with_name("condorcfg")), python


def oracle(condorcfg: str, python: str, top: Path, hosts: dict, env: dict, runs: int) -> dict:
    """Per role: wall times of `condorcfg value --role R DAEMON_LIST` and of HTCondor's read of the role's
    assembled host tree, alternately; and both answers."""
    result = {}
    for role in ROLES:
        ours = [condorcfg, "value", "--role", role, "DAEMON_LIST"]
        theirs_env = dict(env, CONDOR_CONFIG=str(hosts[role]))
        theirs = [python, "-c", ORACLE_PROBE]
        for _ in range(2):
            _, our_answer = run(ours, top, env)
            _, their_answer = run(theirs, top, theirs_env)
        mine, oracle_times = [], []
        for _ in range(runs):
            mine.append(run(ours, top, env)[0])
            oracle_times.append(run(theirs, top, theirs_env)[0])
        _, our_values = run([condorcfg, "value", "--role", role, "--format", "json", *CHECKED], top, env)
        _, their_values = run([python, "-c", ORACLE_CHECK, *CHECKED], top, theirs_env)
        mine_values, their_values = json.loads(our_values.stdout), json.loads(their_values.stdout)
        differ = [k for k in CHECKED if _normal(mine_values.get(k)) != _normal(their_values.get(k))]
        result[role] = {"ours": mine, "theirs": oracle_times, "our_answer": our_answer.stdout.strip(),
                        "their_answer": their_answer.stdout.strip(), "their_stderr": their_answer.stderr.strip(),
                        "differ": {k: (mine_values.get(k), their_values.get(k)) for k in differ}}
    return result


def _normal(value):
    return None if value is None else " ".join(value.split())


def words(text: str) -> list[str]:
    return [w for w in re.split(r"[,\s]+", text.upper()) if w]


# --- in process: where the time goes ----------------------------------------------------------------

_CHILD = r"""
import contextlib, cProfile, io, json, os, pstats, sys, time
mode, argv = sys.argv[1], json.loads(sys.argv[2])
top = os.getcwd()
clock = time.perf_counter
t0 = clock()
import condorcfg, condorcfg.cli
from condorcfg.config import reader as reader_module, source, statements as st
imported = clock() - t0

spent = {}        # label -> [calls, own seconds]: every wrapped function's time less the wrapped ones it calls
reads = []        # [phase, seconds] per configuration read (condorcfg.load), less the imports it made
files = {}        # "phase|path" -> [reads, own seconds of Reader.read_file]
rules_spent = {}  # "CODE name" -> [calls, own seconds] of each rule's check
stack = []
phase = ["-"]


def own_time(into, label, call):
    # call(), its own time (less the measured calls it makes) added to into[label]
    stack.append(0.0)
    start = clock()
    try:
        return call()
    finally:
        elapsed = clock() - start
        inner = stack.pop()
        if stack:
            stack[-1] += elapsed
        entry = into.setdefault(label, [0, 0.0])
        entry[0] += 1
        entry[1] += elapsed - inner


def wrap(owner, attr, label):
    real = getattr(owner, attr)

    def wrapper(*args, **kwargs):
        return own_time(spent, label, lambda: real(*args, **kwargs))

    setattr(owner, attr, wrapper)
    return wrapper


if mode == "instrument":
    import importlib._bootstrap as bootstrap
    from condorcfg.commands import lint as lint_command
    from condorcfg.lint import engine, project, rules
    from condorcfg import report

    wrap(bootstrap, "_find_and_load", "imports during the run")
    wrap(project, "for_command", "project settings")
    wrap(rules, "load_rules", "rule definitions (load_rules)")
    wrap(lint_command, "_deleted_files", "git diff --cached (the hook's deletions)")
    wrap(engine, "run", "rules: the engine around the checks")
    wrap(lint_command, "_merge", "merging the roles' results (_merge)")
    wrap(report, "render", "report")
    from condorcfg.lint import checks, declarative

    def timed_rule(function):
        def rule(ctx):  # (the engine takes every item anyway)
            return own_time(rules_spent, f"{ctx.rule.code} {ctx.rule.name}", lambda: list(function(ctx) or ()))
        return rule

    real_get_check = checks.get_check
    checks.get_check = lambda name: (lambda found: found and timed_rule(found))(real_get_check(name))
    declarative.run_matcher = timed_rule(declarative.run_matcher)
    real_load = condorcfg.load

    def load(*args, **kwargs):
        frame, name = sys._getframe(1), "other"
        while frame is not None:
            if frame.f_code.co_name == "_roles_reading":
                name = "find the roles reading the change"
                break
            if frame.f_code.co_name == "_run":
                name = "lint"
                break
            if frame.f_code.co_name == "_diff_role":
                name = "diff: each side, then each profile's"
                break
            frame = frame.f_back
        phase[0] = name
        imports = spent.get("imports during the run", [0, 0.0])[1]
        start = clock()
        try:
            return real_load(*args, **kwargs)
        finally:
            elapsed = clock() - start
            reads.append([name, elapsed - (spent.get("imports during the run", [0, 0.0])[1] - imports)])

    condorcfg.load = load
    wrap(condorcfg, "load", "reading: the rest (defaults, host facts, listings, auto-use)")
    real_read_file = reader_module.Reader.read_file

    def read_file(self, path, *args, **kwargs):
        full = self._map(path, kwargs.get("given", False))
        if full is None or not os.path.isfile(full):  # (a removed or missing file: nothing read)
            return real_read_file(self, path, *args, **kwargs)
        stack.append(0.0)
        start = clock()
        try:
            return real_read_file(self, path, *args, **kwargs)
        finally:
            elapsed = clock() - start
            inner = stack.pop()
            if stack:
                stack[-1] += elapsed
            for entry in (spent.setdefault("reading: files", [0, 0.0]),
                          files.setdefault(phase[0] + "|" + os.path.relpath(os.path.realpath(full), top), [0, 0.0])):
                entry[0] += 1
                entry[1] += elapsed - inner

    reader_module.Reader.read_file = read_file

sink = io.StringIO()
profiler = cProfile.Profile() if mode == "profile" else None
start = clock()
with contextlib.redirect_stdout(sink):
    if profiler:
        profiler.enable()
    status = condorcfg.cli.main(argv)
    if profiler:
        profiler.disable()
wall = clock() - start
out = {"status": status, "wall": wall, "imported": imported}
if mode == "instrument":
    def parse_only(path):  # what a parse cache keeps: the file read, decoded, cut in statements
        with open(path, "rb") as handle:
            text = source.decode(handle.read())
        plain = st.PLAIN_ASSIGN.match
        for line_text, *_ in source.iter_logical_lines(text):
            if plain(line_text) is None and not st.if_keyword(line_text):
                try:
                    st.parse_statement(line_text)
                except st.StatementError:
                    pass

    parse = {}
    for key in files:
        path = key.split("|", 1)[1]
        if path in parse:
            continue
        if not os.path.isfile(path):  # (a git side's temporary copy, gone by now: parsed like the work tree's)
            same = path.split(os.sep)
            same = os.sep.join(same[next((i for i, part in enumerate(same) if part.startswith("condorcfg-git-")),
                                         len(same)) + 1:])
            path_now = same if os.path.isfile(same) else None
        else:
            path_now = path
        if path_now is None:
            parse[path] = 0.0
            continue
        best = None
        for _ in range(5):
            t = clock()
            parse_only(path_now)
            t = clock() - t
            best = t if best is None else min(best, t)
        parse[path] = best
    from condorcfg import machine
    t = clock()
    machine.resolve(None)
    detect = clock() - t
    out.update(spent=spent, reads=reads, files=files, parse=parse, detect=detect, rules=rules_spent)
if profiler:
    stats = pstats.Stats(profiler)
    base = os.path.dirname(os.path.dirname(condorcfg.__file__))
    rows = []
    for (file, line, function), (calls, primitive, own, cumulative, _callers) in stats.stats.items():
        shown = os.path.relpath(file, base) if file.startswith(base) else os.path.basename(file)
        rows.append([f"{shown}:{line}({function})", calls, own, cumulative])
    out["rows"] = rows
    out["total"] = sum(row[2] for row in rows)
print(json.dumps(out))
"""


def in_process(mode: str, argv: list[str], top: Path, env: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, mode, json.dumps(argv)], cwd=top, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_pool: the in-process {mode} run failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["status"] not in (0, 1):
        sys.exit(f"bench_pool: in-process `condorcfg {' '.join(argv)}` exited {result['status']}")
    return result


def instrumented(argv: list[str], top: Path, env: dict, runs: int) -> dict:
    in_process("instrument", argv, top, env)  # warm-up
    return median_summary([summarise(in_process("instrument", argv, top, env)) for _ in range(runs)])


def kind_of(path: str) -> str:
    parts = path.split(os.sep)  # (a git side's copy, condorcfg-git-*/common/...: as the work tree's file)
    at = next((i + 1 for i, part in enumerate(parts) if part.startswith("condorcfg-git-")), 0)
    path = "/".join(parts[at:])
    return "shared" if path.startswith("common/") else "role" if path.startswith("roles/") else "other"


READING = ("reading: files", "reading: the rest (defaults, host facts, listings, auto-use)")


def summarise(data: dict) -> dict:
    """The numbers of one instrumented run (seconds unless counted)."""
    spent = {label: seconds for label, (_calls, seconds) in data["spent"].items()}
    reading = sum(spent.pop(label, 0.0) for label in READING)
    checks = {label: seconds for label, (_calls, seconds) in data["rules"].items()}
    spent["rules: the checks"] = sum(checks.values())
    spent["the rest (arguments, units, baseline, ...)"] = data["wall"] - sum(spent.values()) - reading
    phases: dict[str, list] = {}
    for name, seconds in data["reads"]:
        phases.setdefault(name, []).append(seconds)
    kinds = ("shared", "role", "other")
    summary = {"wall": data["wall"], "imported": data["imported"], "reading": reading, "labels": spent,
               "checks": checks, "phases": phases, "detect": data["detect"], "own": dict.fromkeys(kinds, 0.0),
               "reads": dict.fromkeys(kinds, 0), "parse_all": dict.fromkeys(kinds, 0.0),
               "saved": dict.fromkeys(kinds, 0.0), "distinct": dict.fromkeys(kinds, 0)}
    per_path: dict[str, int] = {}
    for key, (count, seconds) in data["files"].items():
        path = key.split("|", 1)[1]
        kind = kind_of(path)
        summary["own"][kind] += seconds
        summary["reads"][kind] += count
        summary["parse_all"][kind] += data["parse"][path] * count
        per_path[path] = per_path.get(path, 0) + count
    for path, count in per_path.items():
        summary["saved"][kind_of(path)] += data["parse"][path] * (count - 1)
        summary["distinct"][kind_of(path)] += 1
    return summary


def median_summary(runs: list[dict]) -> dict:
    """Each number of the summaries, as the median over the runs (lists element by element)."""
    first = runs[0]
    if isinstance(first, dict):
        return {key: median_summary([run.get(key, 0.0) for run in runs]) for key in first}
    if isinstance(first, list):
        return [median_summary([run[i] for run in runs]) for i in range(len(first))]
    return statistics.median(runs)


def instrument_report(title: str, t: dict, runs: int) -> None:
    wall = t["wall"]
    print(f"  {title}: {wall * 1000:.0f} ms in process, median of {runs} runs (after "
          f"{t['imported'] * 1000:.0f} ms importing the CLI)")
    print(f"    {'reading configurations (less the imports they made)':<58} {t['reading'] * 1000:6.1f} ms "
          f"{t['reading'] / wall:6.1%}")
    for name, values in t["phases"].items():
        shown = ", ".join(f"{v * 1000:.1f}" for v in values)
        print(f"      {name:<36} {len(values)} read{'s' if len(values) > 1 else ' '} {sum(values) * 1000:6.1f} ms "
              f"{sum(values) / wall:6.1%}  (in order: {shown} ms)")
    for kind in ("shared", "role", "other"):
        if t["reads"][kind]:
            print(f"      files {kind:<6} {t['distinct'][kind]:>3.0f} files read {t['reads'][kind]:>4.0f} times: "
                  f"{t['own'][kind] * 1000:5.1f} ms {t['own'][kind] / wall:5.1%} (of which parsing "
                  f"{t['parse_all'][kind] * 1000:4.1f} ms; a per-run parse cache saves "
                  f"{t['saved'][kind] * 1000:4.1f} ms)")
    for label, seconds in sorted(t["labels"].items(), key=lambda item: -item[1]):
        if seconds < 0.00005:
            continue
        print(f"    {label:<58} {seconds * 1000:6.1f} ms {seconds / wall:6.1%}")
        if label == "rules: the checks" and t["checks"]:
            costly = sorted(t["checks"].items(), key=lambda item: -item[1])[:6]
            print("      " + ", ".join(f"{name} {seconds * 1000:.1f}" for name, seconds in costly)
                  + f" ms; {len(t['checks'])} rules ran")


def profile_report(title: str, data: dict, top_n: int) -> None:
    rows, total = data["rows"], data["total"]
    print(f"  {title}: {total * 1000:.0f} ms profiled ({data['wall'] * 1000:.0f} ms wall under cProfile)")
    print(f"    by own time:{'':<67} {'calls':>8} {'own ms':>8} {'cum ms':>8}")
    for name, calls, own, cumulative in sorted(rows, key=lambda r: -r[2])[:top_n]:
        print(f"    {name[-78:]:<79} {calls:>8} {own * 1000:>8.1f} {cumulative * 1000:>8.1f}")
    print("    by cumulative time (condorcfg functions):")
    ours = [r for r in rows if r[0].startswith("condorcfg/")]
    for name, calls, own, cumulative in sorted(ours, key=lambda r: -r[3])[:top_n]:
        print(f"    {name[-78:]:<79} {calls:>8} {own * 1000:>8.1f} {cumulative * 1000:>8.1f}")


# --- main -------------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each command (after one warm-up)")
    parser.add_argument("--oracle-runs", type=int, default=7, help="alternate runs per role against HTCondor")
    parser.add_argument("--editable", action="store_true",
                        help="time the development install's condorcfg instead of a freshly installed wheel")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process breakdown and profiles")
    parser.add_argument("--instrument-runs", type=int, default=5, help="instrumented in-process runs of each case")
    parser.add_argument("--top", type=int, default=15, help="profile rows shown")
    parser.add_argument("--scale", type=int, default=1, help="N times the site macros in each fragment (headroom: "
                        "how the times grow with the size of the fragments)")
    parser.add_argument("--keep", metavar="DIR", help="generate the repository in DIR (kept) instead of a temp dir")
    args = parser.parse_args()
    env = clean_env()
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(args.keep).resolve() if args.keep else Path(tmp) / "pool"
        if args.keep and top.exists():
            shutil.rmtree(top)
        top.mkdir(parents=True)
        made = generate(top, args.scale)
        condorcfg, python = program(args, tmp)
        lint = [condorcfg, "lint"]
        per_role = {role: made["lines"]["shared"] + made["lines"][role] for role in ROLES}
        print(f"pool: {len(ROLES)} roles ({', '.join(ROLES)}), each {SHARED} shared + {ROLE_FRAGMENTS} own fragments "
              f"({', '.join(f'{r} {n} lines' for r, n in per_role.items())}), {PROFILES} machine profiles on ep; "
              f"{os.cpu_count()} CPUs; condorcfg {'(development install)' if args.editable else '(installed wheel)'}; "
              f"median of {args.runs} runs")
        results, roles_seen = {}, {}

        def case(key: str, argv: list[str]) -> None:
            results[key] = timings(argv, top, env, args.runs)
            if argv[1] == "lint":
                _, done = run([*argv[:2], "--format", "json", *argv[2:]], top, env)
                report = json.loads(done.stdout)
                roles_seen[key] = (*linted_roles(report), len(report["findings"]))

        profiles = {}
        case("startup", [condorcfg, "--version"])
        case("a", lint)
        if not args.no_profile:
            profiles["a"] = (instrumented(["lint"], top, env, args.instrument_runs),
                             in_process("profile", ["lint"], top, env))
        edit(top, EP_CHANGED, EP_CHANGE)
        hook = ["lint", "--pre-commit", "--", EP_CHANGED]
        case("b", [condorcfg, *hook])
        if not args.no_profile:
            profiles["b"] = (instrumented(hook, top, env, args.instrument_runs), in_process("profile", hook, top, env))
        restore(top, EP_CHANGED)
        edit(top, SHARED_CHANGED, SHARED_CHANGE)
        hook_shared = ["lint", "--pre-commit", "--", SHARED_CHANGED]
        case("c", [condorcfg, *hook_shared])
        if not args.no_profile:
            profiles["c"] = (instrumented(hook_shared, top, env, args.instrument_runs), None)
        restore(top, SHARED_CHANGED)
        edit(top, EP_CHANGED, EP_CHANGE)
        git(top, "commit", "-q", "-m", "ep: at most 48 cores per job")
        # (exit 2 when the fleet's slot ads would read more than diff's budget of configuration lines)
        diff = [condorcfg, "diff", "HEAD~1", "HEAD"]
        results["d"] = timings(diff, top, env, args.runs, ok=(0, 1, 2))
        _, diffed = run(diff, top, env, ok=(0, 1, 2))
        if not args.no_profile and diffed.returncode != 2:
            profiles["d"] = (instrumented(diff[1:], top, env, max(1, args.instrument_runs // 2) | 1), None)
        hosts = {role: assemble_host(top, role, Path(tmp) / "hosts" / role) for role in ROLES}  # (as HEAD has them)
        versus = oracle(condorcfg, python, top, hosts, env, args.oracle_runs)

    names = {"startup": "condorcfg --version (start-up only)", "a": "(a) lint, every role",
             "b": "(b) pre-commit, one ep fragment", "c": "(c) pre-commit, one shared fragment",
             "d": "(d) diff HEAD~1 HEAD (one ep fragment)"}
    failed = False
    print(f"\n{'case':<40} {'median':>9} {'fastest':>9} {'target':>8}  {'verdict':<7} roles linted (files; findings)")
    for key, times in results.items():
        median, fastest = statistics.median(times), min(times)
        target = TARGETS.get(key)
        verdict = "-" if target is None else "PASS" if median < target else "MISS"
        failed |= verdict == "MISS"
        seen = roles_seen.get(key)
        shown = (f"{', '.join(seen[0]) or '-'} ({len(seen[0])}); findings name {', '.join(seen[1]) or '-'} "
                 f"({seen[2]} findings)" if seen else "")
        print(f"{names[key]:<40} {median * 1000:>6.0f} ms {fastest * 1000:>6.0f} ms "
              f"{f'{target * 1000:.0f} ms' if target else '-':>8}  {verdict:<7} {shown}")
    if roles_seen.get("b") and roles_seen["b"][0] != ["ep"]:
        print(f"  !! (b) should lint only ep; it read the files of {roles_seen['b'][0]}")
        failed = True
    said = (diffed.stdout.strip() or diffed.stderr.strip() or "(nothing)").splitlines()[0]
    print(f"  (d) said{' (exit 2)' if diffed.returncode == 2 else ''}: {said}")

    print("\noracle: reading one role's configuration, a whole process each "
          "(`condorcfg value --role R DAEMON_LIST` vs `python -c \"import htcondor2; htcondor2.param[...]\"`)")
    total_ours = total_theirs = 0.0
    for role, data in versus.items():
        ours, theirs = statistics.median(data["ours"]), statistics.median(data["theirs"])
        total_ours, total_theirs = total_ours + ours, total_theirs + theirs
        same = words(data["our_answer"]) == words(data["their_answer"])
        print(f"  {role:<3} condorcfg {ours * 1000:6.0f} ms  HTCondor {theirs * 1000:6.0f} ms  "
              f"ratio {ours / theirs:5.2f}x (fastest {min(data['ours']) / min(data['theirs']):.2f}x)  DAEMON_LIST "
              f"{'agrees' if same else 'DIFFERS'}: {data['our_answer']!r}"
              + ("" if same else f" vs HTCondor {data['their_answer']!r} {data['their_stderr'][-300:]!r}"))
        agree = len(CHECKED) - len(data["differ"])
        print(f"      {agree}/{len(CHECKED)} checked knobs agree with HTCondor"
              + "".join(f"; {k}: condorcfg {o!r}, HTCondor {t!r}" for k, (o, t) in data["differ"].items()))
    print(f"  all three: condorcfg {total_ours * 1000:.0f} ms, HTCondor {total_theirs * 1000:.0f} ms: "
          f"{total_ours / total_theirs:.2f}x; full lint (a) is {statistics.median(results['a']) / total_theirs:.2f}x "
          f"HTCondor's three reads")

    if profiles:
        print("\nwhere the time goes (in process, development install; instrumented runs, then cProfile):")
        for key, (summary, _profiled) in profiles.items():
            instrument_report(names[key], summary, args.instrument_runs if key != "d" else
                              max(1, args.instrument_runs // 2) | 1)
        b = profiles.get("b", (None,))[0]
        if b:
            found = b["phases"].get("find the roles reading the change", [])
            again = b["phases"].get("lint", [])
            hook_wall = statistics.median(results["b"])
            static = sum(found) - found[0] + again[0]  # (the lint read becomes the process's first, cold one)
            print(f"\n  the hook's double reading in (b): it reads all {len(ROLES)} roles ({sum(found) * 1000:.0f} ms, "
                  f"the first, cold read {found[0] * 1000:.0f} ms) to find that only ep reads the change, then ep "
                  f"again to lint it ({sum(again) * 1000:.0f} ms).")
            print(f"    linting the Config objects already read (same machine and release as the lint's) saves "
                  f"~{sum(again) * 1000:.0f} ms = {sum(again) / hook_wall:.0%} of the whole hook process "
                  f"({hook_wall * 1000:.0f} ms);")
            print(f"    deciding from the mounts without reading (the reads kept for paths no mount holds) saves "
                  f"~{static * 1000:.0f} ms = {static / hook_wall:.0%}.  (Those reads give no machine: detecting this "
                  f"host costs {b['detect'] * 1000:.1f} ms each.)")
        for key in ("a", "b", "c"):
            t = profiles.get(key, (None,))[0]
            if t:
                print(f"  {names[key]:<38} shared files read {t['reads']['shared']:>3} times "
                      f"({t['distinct']['shared']} files): reading them {t['own']['shared'] / t['wall']:5.1%} of the "
                      f"run, parsing them {t['parse_all']['shared'] / t['wall']:4.1%}; a per-run parse cache saves "
                      f"{sum(t['saved'].values()) * 1000:.1f} ms ({sum(t['saved'].values()) / t['wall']:.1%})")
        for key, (_instrumented, profiled) in profiles.items():
            if profiled:
                print()
                profile_report(names[key], profiled, args.top)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
