"""Run HTCondor itself (the ``htcondor`` wheel) as a test oracle.

Each call starts a fresh Python process so that HTCondor's global config
state never leaks between cases.  Only tests import this module; condorcfg
never does.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

PINNED_HOST = "oracle-host.example.org"


def available() -> bool:
    return importlib.util.find_spec("htcondor2") is not None


def config_child(module: str = "htcondor2") -> str:
    """The child script that prints HTCondor's expanded value of each knob in argv[1] (JSON); ``module``:
    the bindings to use (``htcondor`` for releases before the 2nd-generation bindings)."""
    return _CONFIG_CHILD.replace("import htcondor2 as h", f"import {module} as h")


_CONFIG_CHILD = r'''
import json, sys
import htcondor2 as h
knobs = json.loads(sys.argv[1])
out = {}
for k in knobs:
    h.param["CONDORCFG_PROBE"] = "$(%s:CONDORCFGUNSETSENTINEL)" % k
    v = h.param.get("CONDORCFG_PROBE")
    out[k] = None if v == "CONDORCFGUNSETSENTINEL" else v
print(json.dumps(out))
'''


def config_values(config_text: str, knobs: list[str], extra_files: dict[str, str] | None = None,
                  env: dict[str, str] | None = None, timeout: float = 20.0) -> dict:
    """HTCondor's expanded value of each knob after reading ``config_text``.

    The text is included from a wrapper that pins LOCAL_DIR, RELEASE_DIR and the
    host name (as the shared vectors do).  ``{DIR}`` in the text and in
    ``extra_files`` (relative name -> text) is replaced by the temporary
    directory.  Returns ``{"expect": {knob: str|None} | None, "error": str|None}``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (extra_files or {}).items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(text.replace("{DIR}", tmp))
        case = os.path.join(tmp, "case.conf")
        with open(case, "w") as handle:
            handle.write(config_text.replace("{DIR}", tmp))
        top = os.path.join(tmp, "condor_config")
        with open(top, "w") as handle:
            handle.write(f"LOCAL_DIR = /opt/cc-local\nRELEASE_DIR = /opt/cc-release\n"
                         f"NETWORK_HOSTNAME = {PINNED_HOST}\nLOCAL_CONFIG_FILE =\nLOCAL_CONFIG_DIR =\n"
                         f"include : {case}\n")
        child_env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        child_env.update(env or {})
        child_env["CONDOR_CONFIG"] = top
        try:
            proc = subprocess.run([sys.executable, "-c", _CONFIG_CHILD, json.dumps(knobs)], env=child_env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"expect": None, "error": "timeout (HTCondor hangs)"}
        if proc.returncode != 0 or not proc.stdout.strip():
            return {"expect": None, "error": (proc.stderr or proc.stdout).strip().replace(tmp, "<dir>")[-400:]}
        return {"expect": json.loads(proc.stdout), "error": None}


_CLASSAD_CHILD = r'''
import json, sys
import htcondor2  # switches classad2 to HTCondor mode
import classad2
cases = json.loads(sys.stdin.read())
out = []


def printed(tree):
    # the compact old-syntax print of an expression (lists and ads print on one line)
    holder = classad2.ClassAd()
    holder["x"] = tree
    return holder.printOld().strip()[len("x = "):]


for case in cases:
    try:
        expr = classad2.ExprTree(case["expr"])
    except Exception as exc:
        out.append({"error": "PARSE_ERROR"}); continue
    try:
        scopes = ()
        if case.get("my") is not None or case.get("target") is not None:
            my = classad2.ClassAd()
            for k, v in (case.get("my") or {}).items():
                my[k] = classad2.ExprTree(v)
            scopes = (my,)
            if case.get("target") is not None:
                target = classad2.ClassAd()
                for k, v in case["target"].items():
                    target[k] = classad2.ExprTree(v)
                scopes = (my, target)
        value = expr.eval(*scopes)
        text = printed(expr.simplify(*scopes)) if isinstance(value, (list, classad2.ClassAd, float)) \
            or type(value).__name__ == "datetime" else None
    except Exception as exc:
        out.append({"error": "EVAL_EXCEPTION: %s" % exc}); continue
    if isinstance(value, classad2.Value):
        typ = text = value.name.lower()
    elif isinstance(value, bool):
        typ, text = "bool", "true" if value else "false"
    elif isinstance(value, int):
        typ, text = "int", str(value)
    elif isinstance(value, float):
        typ = "reltime" if text.startswith("relTime(") else "real"
    elif isinstance(value, str):
        typ, text = "string", value
    elif isinstance(value, classad2.ClassAd):
        typ = "classad"
    elif isinstance(value, list):
        typ = "list"
    elif type(value).__name__ == "datetime":
        typ = "abstime"
    else:
        typ, text = type(value).__name__, str(value)
    out.append({"type": typ, "value": text})
print(json.dumps(out))
'''


def classad_eval_many(cases: list[dict], timeout: float = 120.0) -> list[dict]:
    """Evaluate ``[{"expr", "my", "target"}]`` with classad2 in HTCondor mode, in one process.

    classad2 parses ``expr`` and the ad values with the *native* syntax: keep
    backslashes and adjacent string literals out of texts meant to be read
    the same in both syntaxes.

    Each result is ``{"type", "value"}`` or ``{"error": "PARSE_ERROR" | "EVAL_EXCEPTION: ..." | "ORACLE_CRASH"}``.
    ``type`` is ``int real string bool undefined error list classad abstime reltime``;
    ``value`` is the raw text for strings and otherwise HTCondor's compact print of the
    value in *old* syntax (``{ 1,1 + 1 }``, ``2.500000000000000E+00``, ``relTime("01:30")``):
    parse it with ``syntax="old"`` to compare structurally.  A case that kills the
    library (it happens) is found by splitting the batch and marked ``ORACLE_CRASH``.
    """
    if not cases:
        return []
    env = dict(os.environ, CONDOR_CONFIG="/dev/null", TZ="UTC")
    proc = subprocess.run([sys.executable, "-c", _CLASSAD_CHILD], input=json.dumps(cases), env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode == 0:
        return json.loads(proc.stdout)
    if proc.returncode > 0 and "Traceback" in proc.stderr:
        raise RuntimeError(f"classad oracle failed: {proc.stderr[-400:]}")
    if len(cases) == 1:  # killed by a signal: this expression crashes HTCondor's library
        return [{"error": "ORACLE_CRASH"}]
    half = len(cases) // 2
    return classad_eval_many(cases[:half], timeout) + classad_eval_many(cases[half:], timeout)
