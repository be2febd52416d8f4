#!/usr/bin/env python3
"""Generate the lint knowledge base, condorcfg/lint/knowledge/*.json.

Sources, in order of authority:

* HTCondor itself (the ``htcondor`` wheel, run in a child process): every name the
  configuration reader defines on an empty configuration (``param.keys()``: the
  built-in table plus the host facts such as ``FULL_HOSTNAME``), and the Python
  type ``param.get()`` gives each, which confirms the declared knob types;
* the built-in default table (``condorcfg/config/builtin_defaults.json`` made by
  tools/make_defaults.py, or the copy in ../shared/spec when that is absent): knob
  names, declared types, raw defaults;
* ``templates/*.config``: names that HTCondor's own templates assign;
* ../shared/spec/attr-lists.json: machine-ad vs job-ad attribute names;
* curated tables in this file, each item checked against the manual or source
  (documented knobs that have no built-in default, name families such as
  ``SLOT_TYPE_<N>``, obsolete knobs and their replacements, daemon names).

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

# Knobs documented in the HTCondor manual (docs/admin-manual/configuration/*.rst,
# ep-policy-configuration.rst, security.rst) that have no entry in the built-in table,
# i.e. "there is no default" knobs that the daemons still read.
DOCUMENTED_WITHOUT_DEFAULT = """
RANK NUM_SLOTS MAXJOBRETIREMENTTIME MaxJobRetirementTime WANT_HOLD WANT_HOLD_REASON WANT_HOLD_SUBCODE
MEMORY RESERVED_DISK CONDOR_HOST CONDOR_VIEW_HOST NEGOTIATOR_HOST CONDOR_ADMIN MAIL SMTP_SERVER
CONDOR_IDS QUEUE_SUPER_USERS QUEUE_SUPER_USER_MAY_IMPERSONATE FLOCK_TO FLOCK_FROM FLOCK_COLLECTOR_HOSTS
FLOCK_NEGOTIATOR_HOSTS FLOCK_INCREMENT HIGHPORT LOWPORT IN_HIGHPORT IN_LOWPORT OUT_HIGHPORT OUT_LOWPORT
TCP_FORWARDING_HOST PRIVATE_NETWORK_NAME PRIVATE_NETWORK_INTERFACE GROUP_NAMES GROUP_SORT_EXPR
DEDICATED_EXECUTE_ACCOUNT_REGEXP STARTER_ALLOW_RUNAS_OWNER STARTD_EXPRS STARTD_ATTRS STARTD_JOB_ATTRS
STARTD_JOB_EXPRS SUBMIT_EXPRS SUBMIT_ATTRS SCHEDD_ATTRS SCHEDD_EXPRS MASTER_ATTRS COLLECTOR_ATTRS
NEGOTIATOR_ATTRS STARTD_CRON_JOBLIST STARTD_CRON_NAME SCHEDD_CRON_JOBLIST SCHEDD_CRON_NAME
BENCHMARKS_JOBLIST STARTD_LATCH_EXPRS STARTD_SLOT_ATTRS STARTD_SLOT_EXPRS STARTD_VM_ATTRS STARTD_VM_EXPRS
CONSOLE_DEVICES KBDD LOCAL_CONFIG_FILE LOCAL_CONFIG_DIR LOCAL_ROOT_CONFIG_FILE ROOT_CONFIG_FILE
REQUIRE_LOCAL_CONFIG_FILE USE_PROCESS_GROUPS SLOTS_CONNECTED_TO_CONSOLE SLOTS_CONNECTED_TO_KEYBOARD
DISCONNECTED_KEYBOARD_IDLE_BOOST STARTD_NAME SCHEDD_NAME MASTER_NAME COLLECTOR_NAME NEGOTIATOR_NAME
JOB_ROUTER_NAME JOB_ROUTER_ROUTE_NAMES JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES
JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES JOB_ROUTER_DEFAULTS JOB_ROUTER_ENTRIES JOB_ROUTER_ENTRIES_FILE
JOB_ROUTER_ENTRIES_CMD JOB_ROUTER_ENTRIES_REFRESH JOB_ROUTER_SOURCE_JOB_CONSTRAINT JOB_ROUTER_SCHEDD1_SPOOL
JOB_ROUTER_SCHEDD2_SPOOL JOB_ROUTER_SCHEDD1_NAME JOB_ROUTER_SCHEDD2_NAME JOB_ROUTER_SCHEDD1_POOL
JOB_ROUTER_SCHEDD2_POOL JOB_ROUTER_SCHEDD2_JOB_QUEUE_LOG JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES
JOB_TRANSFORM_NAMES SUBMIT_REQUIREMENT_NAMES SCHEDD_ROUND_ATTR_ JOB_ROUTER_LOCK JOB_ROUTER_HOOK_KEYWORD
STARTD_JOB_HOOK_KEYWORD STARTER_JOB_HOOK_KEYWORD SLOT_TYPE_0 NUM_SLOTS_TYPE_0 ENCRYPT_EXECUTE_DIRECTORY
USE_CLONE_TO_CREATE_PROCESSES NETWORK_INTERFACE NETWORK_HOSTNAME BIND_ALL_INTERFACES DEFAULT_DOMAIN_NAME
NO_DNS ENABLE_IPV4 ENABLE_IPV6 PREFER_IPV4 COLLECTOR_HOST_FOR_NEGOTIATOR NEGOTIATOR_USE_SLOT_WEIGHTS
SLOT_WEIGHT NEGOTIATOR_INTERVAL MASTER_UPDATE_INTERVAL CONDOR_DEVELOPERS CONDOR_DEVELOPERS_COLLECTOR
CONCURRENCY_LIMIT_DEFAULT ACCOUNTING_GROUP DEFRAG_REQUIREMENTS DEFRAG_WHOLE_MACHINE_EXPR DEFRAG_RANK
DEFRAG_DRAINING_MACHINES_PER_HOUR DEFRAG_MAX_WHOLE_MACHINES DEFRAG_MAX_CONCURRENT_DRAINING DEFRAG_INTERVAL
DEFRAG_DRAINING_START_EXPR DEFRAG_CANCEL_REQUIREMENTS DEFRAG_SCHEDULE DEFRAG_NAME DEFRAG_UPDATE_INTERVAL
HAD_LIST HAD_CONNECTION_TIMEOUT HAD_USE_PRIMARY HAD_CONTROLLEE HAD_USE_REPLICATION HAD_ARGS HAD_PORT
REPLICATION_LIST REPLICATION_ARGS REPLICATION_PORT STATE_FILE MASTER_HAD_BACKOFF_CONSTANT
MASTER_NEGOTIATOR_CONTROLLER VM_TYPE VM_MEMORY VM_NETWORKING VM_NETWORKING_TYPE VM_MAX_NUMBER VM_GAHP_SERVER
VM_GAHP_LOG LIBVIRT_XML_SCRIPT XEN_BOOTLOADER CGROUP_MEMORY_LIMIT_POLICY BASE_CGROUP DOCKER
DOCKER_IMAGE_CACHE_SIZE DOCKER_VOLUMES DOCKER_MOUNT_VOLUMES DOCKER_EXTRA_ARGUMENTS DOCKER_NETWORKS
SINGULARITY SINGULARITY_JOB SINGULARITY_IMAGE_EXPR SINGULARITY_TARGET_DIR SINGULARITY_BIND_EXPR
SINGULARITY_EXTRA_ARGUMENTS SINGULARITY_BIND_BASE SINGULARITY_IS_SETUID MOUNT_UNDER_SCRATCH
MOUNT_PRIVATE_DEV_SHM ALL_DEBUG TOOL_DEBUG SUBMIT_DEBUG DEFAULT_DEBUG UPDATE_COLLECTOR_WITH_TCP
COLLECTOR_UPDATE_INTERVAL GANGLIAD_METRICS_CONFIG_DIR GANGLIA_CONFIG GANGLIA_GMETRIC
GANGLIA_SEND_DATA_FOR_ALL_HOSTS GANGLIAD_VERBOSITY GANGLIAD_REQUIREMENTS GANGLIAD_PER_EXECUTE_NODE_METRICS
GANGLIA_GSTAT_COMMAND GANGLIA_LIB GANGLIAD_INTERVAL GANGLIAD_DEFAULT_CLUSTER GANGLIAD_DEFAULT_MACHINE
GANGLIAD_DEFAULT_IP SEC_PASSWORD_FILE SEC_PASSWORD_DIRECTORY SEC_TOKEN_DIRECTORY SEC_TOKEN_SYSTEM_DIRECTORY
SEC_TOKEN_POOL_SIGNING_KEY_FILE SEC_TOKEN_ISSUER_KEY CERTIFICATE_MAPFILE KERBEROS_MAP_FILE
AUTH_SSL_SERVER_CERTFILE AUTH_SSL_SERVER_KEYFILE AUTH_SSL_CLIENT_CERTFILE AUTH_SSL_CLIENT_KEYFILE
AUTH_SSL_SERVER_CAFILE AUTH_SSL_CLIENT_CAFILE AUTH_SSL_SERVER_CADIR AUTH_SSL_CLIENT_CADIR
AUTH_SSL_REQUIRE_CLIENT_CERTIFICATE AUTH_SSL_ALLOW_CLIENT_PROXY GSI_DAEMON_DIRECTORY GSI_DAEMON_CERT
GSI_DAEMON_KEY GSI_DAEMON_TRUSTED_CA_DIR GSI_DAEMON_NAME GRIDMAP GSI_AUTHZ_CONF GSI_SKIP_HOST_CHECK
GSI_DAEMON_PROXY USE_VOMS_ATTRIBUTES TRUST_DOMAIN SCITOKENS_FILE SEC_SCITOKENS_ALLOW_FOREIGN_TOKEN_TYPES
SEC_ENABLE_MATCH_PASSWORD_AUTHENTICATION SEC_CLAIMTOBE_USER SEC_CLAIMTOBE_INCLUDE_DOMAIN
SETTABLE_ATTRS_CONFIG SETTABLE_ATTRS_ADMINISTRATOR SETTABLE_ATTRS_OWNER ENABLE_RUNTIME_CONFIG
ENABLE_PERSISTENT_CONFIG PERSISTENT_CONFIG_DIR RUNTIME_CONFIG_ADMIN CONFIG_SERVER_FILE
START_LOCAL_UNIVERSE START_SCHEDULER_UNIVERSE SYSTEM_PERIODIC_HOLD SYSTEM_PERIODIC_RELEASE
SYSTEM_PERIODIC_REMOVE SYSTEM_PERIODIC_HOLD_REASON SYSTEM_PERIODIC_HOLD_SUBCODE SYSTEM_PERIODIC_VACATE
SYSTEM_ON_VACATE_COOL_DOWN SYSTEM_MAX_RELEASES APPEND_REQUIREMENTS APPEND_REQ_VANILLA APPEND_RANK
APPEND_RANK_VANILLA DEFAULT_RANK DEFAULT_RANK_VANILLA JOB_DEFAULT_REQUESTMEMORY JOB_DEFAULT_REQUESTDISK
JOB_DEFAULT_REQUESTCPUS JOB_DEFAULT_LEASE_DURATION USE_VISIBLE_DESKTOP MAX_JOBS_RUNNING MAX_JOBS_SUBMITTED
MAX_JOBS_PER_OWNER MAX_JOBS_PER_SUBMISSION MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER NEGOTIATOR_DEPTH_FIRST
NEGOTIATOR_CONSIDER_PREEMPTION NEGOTIATOR_CONSIDER_EARLY_PREEMPTION NEGOTIATOR_MATCH_EXPRS
NEGOTIATOR_JOB_CONSTRAINT NEGOTIATOR_SLOT_CONSTRAINT NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT
NEGOTIATOR_TRIM_SHUTDOWN_THRESHOLD PREEMPTION_REQUIREMENTS_STABLE PREEMPTION_RANK_STABLE
ALLOW_PSLOT_PREEMPTION NEGOTIATOR_PRE_JOB_RANK NEGOTIATOR_POST_JOB_RANK GLIDEIN_SITE
STARTD_RESOURCE_PREFIX MACHINE_RESOURCE_NAMES USE_PID_NAMESPACES STARTD_ENFORCE_DISK_LIMITS
LVM_VOLUME_GROUP_NAME THINPOOL_NAME THINPOOL_VOLUME_GROUP_NAME THINPOOL_BACKING_FILE
STARTD_DETECT_GPUS GPU_DISCOVERY_EXTRA DEFAULT_MASTER_SHUTDOWN_SCRIPT MASTER_SHUTDOWN_Graceful
UPDATE_INTERVAL UPDATE_OFFSET POLLING_INTERVAL KILLING_TIMEOUT MATCH_TIMEOUT STARTD_HISTORY STARTER
STARTER_LIST STARTER_STANDARD STARTER_LOCAL STARTER_DEBUG STARTER_UPLOAD_TIMEOUT EXECUTE_LOGIN_IS_DEDICATED
LINUX_HIBERNATION_METHOD HIBERNATE HIBERNATE_CHECK_INTERVAL OFFLINE_LOG OFFLINE_EXPIRE_ADS_AFTER
ROOSTER_INTERVAL ROOSTER_MAX_UNHIBERNATE ROOSTER_UNHIBERNATE ROOSTER_UNHIBERNATE_RANK ROOSTER_WAKEUP_CMD
CREDD_HOST CREDD_CACHE_LOCALLY SEC_CREDENTIAL_DIRECTORY SEC_CREDENTIAL_DIRECTORY_KRB
SEC_CREDENTIAL_DIRECTORY_OAUTH SEC_CREDENTIAL_PRODUCER SEC_CREDENTIAL_MONITOR SEC_CREDENTIAL_STORER
CREDMON_KRB CREDMON_OAUTH LOCAL_CREDMON_PROVIDER_NAME LOCAL_CREDMON_PRIVATE_KEY LOCAL_CREDMON_KEY_ID
LOCAL_CREDMON_ISSUER LOCAL_CREDMON_AUTHZ_TEMPLATE LOCAL_CREDMON_TOKEN_LIFETIME LOCAL_CREDMON_TOKEN_AUDIENCE
LOCAL_CREDMON_TOKEN_VERSION LOCAL_CREDMON_AUTHZ_GROUP_TEMPLATE LOCAL_CREDMON_AUTHZ_GROUP_MAPFILE
LOCAL_CREDMON_AUTHZ_GROUP_REQUIREMENT LOCAL_CREDMON_TOKEN_USE_JSON CREDMON_OAUTH_TOKEN_MINIMUM
CREDMON_OAUTH_TOKEN_REFRESH CREDMON_OAUTH_LOG OAUTH2_CREDMON_PROVIDER_NAMES CONDOR_SUPPORT_EMAIL
ADSTASH_READ_SCHEDDS ADSTASH_READ_STARTDS ADSTASH_SCHEDD_HISTORY ADSTASH_STARTD_HISTORY ADSTASH_SE_URL
ADSTASH_SE_USERNAME ADSTASH_SE_PASSWORD_FILE ADSTASH_SE_INDEX_NAME ADSTASH_SE_USE_HTTPS ADSTASH_CA_CERTS
ADSTASH_CHECKPOINT_FILE ADSTASH_INTERFACE ADSTASH_NUM_THREADS ADSTASH_SAMPLE_INTERVAL ADSTASH_LOG
JOB_INHERITS_STARTER_ENVIRONMENT STARTER_JOB_ENVIRONMENT USER_JOB_WRAPPER DISABLE_SWAP_FOR_JOB
ENABLE_USERLOG_LOCKING CREATE_LOCKS_ON_LOCAL_DISK LOCK ENABLE_CHIRP SHADOW_RUN_UNKNOWN_USER_JOBS
SOFT_UID_DOMAIN TRUST_UID_DOMAIN TRUST_LOCAL_UID_DOMAIN SLOT1_USER SLOT_TYPE_1 NUM_SLOTS_TYPE_1
CONDOR_GAHP GRIDMANAGER_MAX_SUBMITTED_JOBS_PER_RESOURCE GRIDMANAGER_DEBUG GRIDMANAGER_LOG
BATCH_GAHP BLAHPD_LOCATION GLITE_LOCATION PBS_GAHP LSF_GAHP SGE_GAHP SLURM_GAHP
DAGMAN_MAX_JOBS_SUBMITTED DAGMAN_MAX_JOBS_IDLE DAGMAN_LOG_ON_NFS_IS_ERROR DAGMAN_USER_LOG_SCAN_INTERVAL
CONDOR_VIEW_CLASSAD_TYPES KEEP_POOL_HISTORY POOL_HISTORY_DIR POOL_HISTORY_MAX_STORAGE
COLLECTOR_REQUIREMENTS COLLECTOR_QUERY_WORKERS COLLECTOR_MAX_FILE_DESCRIPTORS
USE_SHARED_PORT SHARED_PORT_ARGS SHARED_PORT_PORT COLLECTOR_USES_SHARED_PORT
SCHEDD_INTERVAL SCHEDD_HOST SCHEDD_ADDRESS_FILE SUBMIT_SKIP_FILECHECK SCHEDD_SEND_VACATE_VIA_TCP
FILETRANSFER_PLUGINS ENABLE_URL_TRANSFERS STARTER_ALLOW_RUNAS_OWNER SLOT_USER
WANT_SUSPEND_VANILLA WANT_VACATE_VANILLA SUSPEND_VANILLA CONTINUE_VANILLA PREEMPT_VANILLA KILL_VANILLA
WANT_SUSPEND_VM WANT_VACATE_VM SUSPEND_VM CONTINUE_VM PREEMPT_VM KILL_VM START_BACKFILL EVICT_BACKFILL
IsOwner SlotWeight SYSTEM_PERIODIC_REMOVE_REASON SYSTEM_PERIODIC_RELEASE_REASON DAEMON_SHUTDOWN
DAEMON_SHUTDOWN_FAST NEGOTIATOR_CYCLE_DELAY MAX_HISTORY_ROTATIONS MAX_HISTORY_LOG JOB_STOP_DELAY JOB_STOP_COUNT
EXPIRE_INVALIDATED_ADS MAX_TRANSFER_QUEUE_AGE STARTD_COMPUTE_AVAIL_STATS STARTD_MAX_AVAIL_PERIOD_SAMPLES
STARTD_AVAIL_CONFIDENCE XAUTHORITY_USERS SSH_TO_JOB_SSHD_CONFIG_TEMPLATE SSH_TO_JOB_SSHD_ARGS
SSH_TO_JOB_SSH_KEYGEN SSH_TO_JOB_SSH_KEYGEN_ARGS SSH_TO_JOB_SSHD NAMED_CHROOT SCITOKENS_SERVER_AUDIENCE
SUBMIT_TIMEOUT_MULTIPLIER VM_UNIV_NOBODY_USER VM_NETWORKING_BRIDGE_INTERFACE VMP_HOST_MACHINE VMP_VM_LIST
STARTER_LOCAL_LOGGING CONDOR_SSHD CONDOR_SSH_KEYGEN ABSENT_REQUIREMENTS ABSENT_EXPIRE_ADS_AFTER CLIENT_TIMEOUT
CONDOR_FSYNC
""".split()

# Families of knob names: (regex matched case-insensitively against the whole name, why).
KNOB_FAMILIES = [
    (r"SLOT_TYPE_\d+(_.+)?", "slot type definitions and per-type overrides (SLOT_TYPE_<N>[_<knob>])"),
    (r"NUM_SLOTS_TYPE_\d+", "slot counts per type"),
    (r"SLOT\d+_.+", "per-slot settings (SLOT<N>_<knob>, SLOT<N>_USER, SLOT<N>_STARTD_ATTRS)"),
    (r"(OFFLINE_)?MACHINE_RESOURCE_.+", "custom machine resources"),
    (r"ENVIRONMENT_(VALUE_)?FOR_(UN)?ASSIGNED.+", "environment for assigned custom resources"),
    (r"(STARTD|SCHEDD|BENCHMARKS)_CRON_.+", "startd/schedd cron jobs"),
    (r"JOB_ROUTER_(ROUTE|TRANSFORM|PRE_ROUTE_TRANSFORM|POST_ROUTE_TRANSFORM)_.+", "job router routes and transforms"),
    (r"JOB_TRANSFORM_.+", "schedd job transforms"),
    (r"SUBMIT_REQUIREMENT_.+", "schedd submit requirements"),
    (r"GROUP_(QUOTA|QUOTA_DYNAMIC|ACCEPT_SURPLUS|AUTOREGROUP|PRIO_FACTOR)_.+", "accounting group settings"),
    (r".+_LIMIT", "concurrency limits (<NAME>_LIMIT)"),
    (r"CONCURRENCY_LIMIT_DEFAULT_.+", "per-prefix default concurrency limits"),
    (r"(ALLOW|DENY)_(READ|WRITE|ADMINISTRATOR|CONFIG|DAEMON|NEGOTIATOR|OWNER|ADVERTISE_MASTER|ADVERTISE_STARTD|"
     r"ADVERTISE_SCHEDD|CLIENT|SOAP)(_.+)?",
     "authorization lists (ALLOW_<LEVEL>[_<SUBSYS>])"),
    (r"SEC_(DEFAULT|READ|WRITE|ADMINISTRATOR|CONFIG|DAEMON|NEGOTIATOR|OWNER|ADVERTISE_MASTER|ADVERTISE_STARTD|"
     r"ADVERTISE_SCHEDD|CLIENT)_.+",
     "security policy per access level"),
    (r"(.+_)?SEC_.+", "subsystem-specific security settings"),
    (r"SETTABLE_ATTRS_.+", "attributes settable at run time"),
    (r"MAX_.+_LOG", "per-daemon log size limits"),
    (r".+_(LOG|DEBUG|ARGS|ADDRESS_FILE|DAEMON_AD_FILE|ENVIRONMENT|USERID|LOCK|ATTRS|EXPRS|"
      r"NOT_RESPONDING_TIMEOUT|MAX_FILE_DESCRIPTORS|LOG_KEEP_OPEN|TOUCH_LOG_INTERVAL|LOCAL_NAME|NAME|"
      r"SOCKET_DIR|STARTUP_DELAY|UPDATE_INTERVAL|CONTROLLER|JOB_HOOK_KEYWORD|HOOK_KEYWORD)",
     "per-daemon standard settings (<SUBSYS>_LOG, _DEBUG, _ARGS, _ATTRS, ...)"),
    (r".+_HOOK_(FETCH_WORK|REPLY_FETCH|REPLY_CLAIM|EVICT_CLAIM|PREPARE_JOB|PREPARE_JOB_ARGS|"
      r"UPDATE_JOB_INFO|JOB_EXIT|JOB_CLEANUP|TRANSLATE_JOB|JOB_FINALIZE|ROUTE_JOB|FETCH_WORK_TIMEOUT)",
     "job hooks (<KEYWORD>_HOOK_<HOOK>)"),
    (r".+_(CLIENT_ID|CLIENT_SECRET_FILE|RETURN_URL_SUFFIX|AUTHORIZATION_URL|TOKEN_URL|USER_URL|USER_NAME_CLAIM)",
     "OAuth credential providers"),
    (r"(DEFRAG|HAD|REPLICATION|GANGLIAD|ADSTASH|ROOSTER|LIBRARIAN|ANNEX|CREDMON|LOCAL_CREDMON|OAUTH2|"
      r"PELICAN|GRIDMANAGER|DAGMAN|C_GAHP|VM_GAHP|JOB_ROUTER|CCB|SHARED_PORT|TRANSFERD|KBDD)_.+",
     "settings of a specific daemon or tool"),
    (r"USE_.+", "feature switches"),
    (r"GLIDEIN_.+|GLIDECLIENT_.+", "glideinWMS settings published in pilot ads"),
    (r"DOCKER_.+|SINGULARITY_.+|APPTAINER_.+|CONTAINER_.+", "container runtime settings"),
    (r"EXECUTE(_.+)?", "execute directory settings"),
    (r"(HTCONDORCE|CONDORCE|HTCONDOR_CE)_.+", "HTCondor-CE settings (read by the CE's own tools)"),
    (r"BOINC_.+", "BOINC backfill settings"),
    (r"CLASSAD_USER_MAP(FILE|DATA)_.+", "ClassAd user maps (userMap() function)"),
]

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
    {"pattern": r"EXECUTE_LOGIN_IS_DEDICATED", "status": "removed", "replacement": "DEDICATED_EXECUTE_ACCOUNT_REGEXP",
     "note": "replaced by DEDICATED_EXECUTE_ACCOUNT_REGEXP"},
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


def builtin_table() -> tuple[dict, str]:
    """name -> {type, default, path} from the config engineer's table (or the spec copy)."""
    for path in (ROOT / "condorcfg" / "config" / "builtin_defaults.json",
                 SHARED / "spec" / "builtin_defaults_25_14_1.json"):
        if path.is_file():
            data = _read_json(path)
            table = data.get("knobs") or data.get("defaults") or {}
            knobs = {}
            for name, entry in table.items():
                if isinstance(entry, dict):
                    knobs[name] = {"type": entry.get("type") or "string",
                                   "path": bool(entry.get("is_path") or entry.get("path"))}
                else:
                    knobs[name] = {"type": "string", "path": False}
            return knobs, str(path.relative_to(ROOT.parent))
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
    documented = sorted({n for n in DOCUMENTED_WITHOUT_DEFAULT if n.upper() not in upper}, key=lambda n: (n.upper(), n))
    for family, _why in KNOB_FAMILIES:
        re.compile(family)
    attrs = _read_json(SHARED / "spec" / "attr-lists.json")
    attributes = {key: attrs[key] for key in ("machine", "machine_claimed_only", "machine_patterns", "config_ad",
                                              "copied_job_attrs", "job", "job_patterns", "both",
                                              "local_only_expressions")}
    attributes["about"] = ("Attribute vocabularies (case-insensitive). Generated by tools/make_knowledge.py "
                           "from shared/spec/attr-lists.json (HTCondor manual attribute pages + startd source).")
    return {
        "knobs.json": {
            "htcondor_version": HTCONDOR_VERSION,
            "sources": {"builtin_table": table_source, "oracle": bool(oracle)},
            "builtin_table_size": len(table),
            "type_corrections": type_corrections,
            "host_defined": host_defined,
            "documented_without_default": documented,
            "template_assigned": template_assigned_names(),
            "special_macros": SPECIAL_MACROS,
            "families": [{"pattern": p, "why": w} for p, w in KNOB_FAMILIES],
            "obsolete": OBSOLETE_KNOBS,
            "daemons": DAEMON_NAMES,
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
