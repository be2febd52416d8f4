"""AUTO_USE_<CATEGORY>_<Name> knobs against HTCondor 25.14.1 itself: values and the messages it prints.

One configuration holds every awkward form at once (bad words, expressions, unknown templates and
categories, a template that stops with its own `error :` line, prefixed names and values, an
environment override, lower-case names); one oracle child reads it.  condorcfg must give the same
values and report exactly the knobs HTCondor complains about, in HTCondor's order (names compared
case-blind in lower case, so `_` sorts before letters) and with HTCondor's wording.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import condorcfg
from condorcfg.machine import MachineProfile

CONFIG = """\
LOCAL_CONFIG_FILE =
LOCAL_CONFIG_DIR =
NETWORK_HOSTNAME = oracle-host.example.org
AUTO_USE_ROLE = true
AUTO_USE_ROLE_ = true
AUTO_USE_NOCAT_X = true
AUTO_USE_X_Y_Z = yes
AUTO_USE_ROLE_NoSuch = true
AUTO_USE_ROLE_Execute = maybe
AUTO_USE_ROLE_Submit = 1+1
AUTO_USE_ROLE_CentralManager = "true"
AUTO_USE_FEATURE_Monitor = true
AUTO_USE_POLICY_Always_Run_Jobs = $(WANT_IT)
WANT_IT = true
auto_use_policy_uwcs_desktop = 1
AUTO_USE_FEATURE_GANGLIA = $(NOT_SET_ANYWHERE)
AUTO_USE_FEATURE_GPUs = false
TOOL.AUTO_USE_FEATURE_GPUs = true
TOOL.AUTO_USE_ROLE_Personal = true
AUTO_USE_ROLE_get_htcondor_execute = true
DAEMON_LIST = MASTER FIRST
AUTO_USE_ROLEA_X = true
AUTO_USE_Z_1 = true
AUTO_USE_a_1 = true
"""
ENV = {"_CONDOR_AUTO_USE_FEATURE_PartitionableSlot": "true"}
KNOBS = ["DAEMON_LIST", "START", "SUSPEND", "WANT_SUSPEND", "STARTD_CRON_JOBLIST", "GPU_DISCOVERY_EXTRA",
         "USE_FEATURE_GPUS", "SLOT_TYPE_1", "SLOT_TYPE_1_PARTITIONABLE", "NUM_SLOTS_TYPE_1", "SEC_TOKEN_DIRECTORY",
         "warning", "error", "ALL_DEBUG"]

_CHILD = r'''
import json, sys
import htcondor2 as h
print(json.dumps({k: h.param.get(k) for k in json.loads(sys.argv[1])}))
'''
_MESSAGE = re.compile(r"Configuration error while interpreting (\S+) : (.*)")


def test_auto_use_matches_htcondor(oracle, tmp_path):
    top = tmp_path / "condor_config"
    top.write_text(CONFIG)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env.update(ENV, CONDOR_CONFIG=str(top))
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(KNOBS)], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    their_messages = _MESSAGE.findall(proc.stderr)  # in the order HTCondor processed the knobs
    assert " Error : use feature : monitor requires five or more arguments" in proc.stderr

    cfg = condorcfg.load([str(top)], machine=MachineProfile(hostname="oracle-host.example.org"),
                         environ={**ENV, "HOME": str(tmp_path)})
    actual = {k: cfg.value(k) for k in KNOBS}
    # the Python bindings' param.get() returns None for a knob defined only with a prefix (spec 18)
    assert {k: v for k, v in actual.items() if expected[k] is not None or cfg.stored(k)} == \
        {k: v for k, v in expected.items() if v is not None or cfg.stored(k)}
    assert actual["DAEMON_LIST"] == expected["DAEMON_LIST"] and "FIRST" in actual["DAEMON_LIST"]

    ours = [d for d in cfg.diagnostics if d.code == "auto-use"]
    our_messages = [_MESSAGE.match(d.message).groups() for d in ours if _MESSAGE.match(d.message)]
    assert [(k, m.split(";")[0]) for k, m in our_messages] == their_messages
    stopped = [d.message for d in ours if not _MESSAGE.match(d.message)]
    assert stopped == ["AUTO_USE_FEATURE_Monitor: template FEATURE:Monitor stops with its own error: use feature : "
                       "monitor requires five or more arguments; HTCondor stops applying this template there and "
                       "goes on"]
