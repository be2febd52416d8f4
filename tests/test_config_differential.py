"""Differential test: generated configurations read by condorcfg and by HTCondor 25.14.1 itself.

A seeded generator combines the constructs where re-implementations go wrong -
continuations (with comments and blanks inside), self references, ``+=``,
defaults and nested defaults, references to built-in defaults, the dollar
functions, if/elif/else blocks with every condition form, heredocs, obsolete
``:`` assignments, name case, ``TOOL.`` prefixes, templates and now and then a
line HTCondor rejects - into 240 small configs; a second generator spreads 60
more over files (include, config.d, LOCAL_CONFIG_FILE chains) read as another
subsystem with ``_CONDOR_*`` environment overrides.  All of them are read by ONE oracle child process that
re-reads the configuration with ``htcondor2.reload_config()`` per case (a case
HTCondor rejects kills the child; the runner notes it and starts a new child
for the rest), so the whole comparison costs a couple of subprocess starts.
Every value of every assigned knob (and a few built-ins) must be equal, and a
config HTCondor rejects must be rejected by condorcfg too.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import condorcfg
from condorcfg.diagnostics import CondorcfgError
from condorcfg.machine import MachineProfile, from_mapping

PINNED_HOST = "oracle-host.example.org"
CASES = 240
SEED = 2514

_CHILD = r'''
import json, os, signal, sys
cases = json.loads(sys.stdin.read())
import htcondor2 as h
previous_env = {}
for case in cases:
    signal.alarm(case.get("alarm", 1))  # a case HTCondor hangs on (a reference cycle) ends the child
    for key in previous_env:
        os.environ.pop(key, None)
    previous_env = case.get("env") or {}
    os.environ.update(previous_env)
    os.environ["CONDOR_CONFIG"] = case["config"]
    h.set_subsystem(case.get("subsystem") or "TOOL")
    sys.stdout.write(json.dumps({"id": case["id"], "start": True}) + "\n"); sys.stdout.flush()
    h.reload_config()
    out = {}
    for k in case["knobs"]:
        h.param["CONDORCFG_PROBE"] = "$(%s:CONDORCFGUNSETSENTINEL)" % k
        v = h.param.get("CONDORCFG_PROBE")
        out[k] = None if v == "CONDORCFGUNSETSENTINEL" else v
    sys.stdout.write(json.dumps({"id": case["id"], "values": out}) + "\n"); sys.stdout.flush()
'''


class Generator:
    """Builds one random config text and the knobs worth asking about."""

    WORDS = ["alpha", "beta", "gamma", "x y", "1", "0", "true", "False", "42", "3.5", "/p/q/r.tar.gz"]

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.names: list[str] = []

    def name(self, new: bool = True) -> str:
        if self.names and (not new or self.rng.random() < 0.35):
            base = self.rng.choice(self.names)
            return self.rng.choice([base, base.lower(), base.capitalize()])
        base = f"K{len(self.names)}"
        self.names.append(base)
        return base

    def earlier(self, target: str | None) -> list[str]:
        """Names a value for ``target`` may refer to: only earlier knobs, so no cycle can form
        (HTCondor hangs on cycles and crashes on a self reference through a function)."""
        if target is None:
            return self.names
        index = int(target.upper().split(".")[-1][1:])
        return self.names[:index]

    def ref(self, target: str | None = None) -> str:
        rng = self.rng
        names = self.earlier(target)
        choice = rng.randrange(9)
        if choice == 0 and names:
            return f"$({rng.choice(names)})"
        if choice == 1:
            return f"$(UNDEF_{rng.randrange(3)}:{rng.choice(['d', 'a b', '7', ''])})"
        if choice == 2:
            return rng.choice(["$(MINUTE)", "$(HOUR)", "$(LOG)", "$(SPOOL)", "$(VANILLA)", "$(FULL_HOSTNAME)"])
        if choice == 3 and names:
            return f"$({rng.choice(names)}:$(UNDEF:deep))"
        if choice == 4:
            return rng.choice(["$INT(2*3)", "$REAL(1.0/4)", "$SUBSTR(abcdef, 1, 3)", "$Fn(/a/b.c)",
                               "$Fpq(/a/b.c)", "$CHOICE(1, p, q, r)", "$BASENAME(/x/y.z)", "$EVAL(1+2)",
                               "$STRING(lit)", "$INT(7.9,%03d)", "$REAL(2,%.1f)", "$Fdb(/d1/d2/f)"])
        if choice == 5 and names:
            return rng.choice([f"$INT({n})" for n in names] + [f"$Fx({n})" for n in names])
        if choice == 6:
            return rng.choice(["$$(Memory)", "$(DOLLAR)(X)", "$(A B)", "$ (Y)", "$()"])
        return rng.choice(self.WORDS)

    def value(self, target: str) -> str:
        return " ".join(self.ref(target) for _ in range(self.rng.randrange(1, 4)))

    def statement(self, depth: int = 0) -> str:
        rng = self.rng
        kind = rng.randrange(13)
        name = self.name(new=kind not in (0, 1, 8))
        value = self.value
        if kind == 0:
            return f"{name} = $({name}) {value(name)}\n"
        if kind == 1:
            return f"{name} += {value(name)}\n"
        if kind == 2:
            return f"{name} = {value(name)} \\\n   {value(name)}\\\n{value(name)}\n"
        if kind == 3:
            return f"{name} = {value(name)} \\\n# a comment\n"
        if kind == 4:
            return f"{name} = {value(name)} \\\n# skipped \\\n  {value(name)}\n"
        if kind == 5 and depth < 3:
            return self.if_block(depth)
        if kind == 6:
            return f"{name} @=end\n  {value(name)}\n\n  {value(name)}\n@end\n"
        if kind == 7:
            return f"{name} : {value(name)}\n"
        if kind == 8:
            return f"TOOL.{name} = {value(name)}\n"
        if kind == 9:
            return rng.choice(["START = ($(START)) && Owner == 1\n", "DAEMON_LIST += STARTD\n",
                               "use ROLE : Execute\n", "use POLICY : Always_Run_Jobs\n",
                               "use FEATURE : PartitionableSlot(1, 50%)\n", "MASTER_UPDATE_INTERVAL = $(MASTER_UPDATE_INTERVAL)0\n",
                               "SUSPEND = FALSE\n", "USE_SHARED_PORT = TRUE\n"])
        if kind == 10:
            return f"{name} = {value(name)}   \n"
        if kind == 11 and rng.random() < 0.05:  # now and then a line HTCondor rejects
            return rng.choice(["this is junk\n", "if maybe\nendif\n", f"{name}+=1\n", "[Section Header]\n",
                               "use ROLE : NoSuchRole\n", "else\n", f"{name} @ = x\n", "if (true)\nendif\n",
                               "[Section]\n", f":{name} = 1\n", "if version >= 5.1\nendif\n"])
        return f"{name} = {value(name)}\n"

    def condition(self) -> str:
        rng = self.rng
        forms = ["true", "false", "yes", "NO", "1", "0", "-2", "0.0", ".5", "t", "F",
                 "version >= 8.9.0", "version == 25.14", "version < 25.15.0", "version != 25.14.1",
                 "defined START", "defined CONDOR_HOST", "defined true", "defined 0", "defined use ROLE",
                 "defined use ROLE:Execute", "defined use NOCAT"]
        if self.names:
            name = rng.choice(self.names)
            forms += [f"defined {name}", f"$({name}:false)", f"! defined {name}", f"$INT({name}:0)"]
        text = rng.choice(forms)
        return ("!" + text) if rng.random() < 0.2 and not text.startswith("!") else text

    def if_block(self, depth: int) -> str:
        out = f"if {self.condition()}\n" + self.statement(depth + 1)
        for _ in range(self.rng.randrange(2)):
            out += f"elif {self.condition()}\n" + self.statement(depth + 1)
        if self.rng.random() < 0.6:
            out += "else\n" + self.statement(depth + 1)
        return out + "endif\n"

    def config(self) -> str:
        return "".join(self.statement() for _ in range(self.rng.randrange(4, 12)))


# Hand-picked edge cases (checked against HTCondor while writing the reader), kept as regression cases.
EDGE_CASES = [
 ("A = x\nX = $(Y:$(A))\n", ["X"]),
 ("#opt:oldcomment\n# c \\\nX = 1\nY = 2\n", ["X","Y"]),
 ("X = a\\", ["X"]),
 ("if true # comment\nX = 1\nendif\n", ["X"]),
 ("a/b = 1\nX = $(a/b)\n", ["X", "a/b"]),
 ("X = $(A:b:c)\n", ["X"]),
 ("X = $(DOLLAR)\nY = cost $$\nZ = $$\n", ["X","Y","Z"]),
 ("X = <$ENV()>\nY = <$INT()>\nZ = <$F()>\nW = <$SUBSTR()>\nV = <$EVAL()>\n", ["X","Y","Z","W","V"]),
 ("X = 1\nX = $(X:$(X)) $(X)\n", ["X"]),
 ("START = $(START) && $(START)\n", ["START"]),
 ("use ROLE : Execute(x)\n", ["DAEMON_LIST"]),
 ("X = $(IsStartd)\nIsTool = false\nY = $(IsTool)\n", ["X","Y","IsTool"]),
 ("X = 1\nif $(X)\nY = a\nelif $(NOPE)\nY = b\nendif\n", ["Y"]),
 ("X @=e\n  a \\\n  b\n@e\n", ["X"]),
 ("X = $INT(3.5e2)\nY = $REAL(1e3)\nZ = $INT(-7.9)\nW = $REAL(-0.0)\n", ["X","Y","Z","W"]),
 ("X = $SUBSTR(N,0,0)\nN=abc\nY = $SUBSTR(N, 1, -1)\n", ["X","Y"]),
 ("L = a , b ,c\nX = $CHOICE(2,L)\nY = $CHOICE( 1 , p , q )\n", ["X","Y"]),
 ("P = a.b/c\nX = $Fn(P)|$Fx(P)|$Fp(P)|$Fd(P)\n", ["X"]),
 ("P = /a.b/c.d.e\nX = $Fxb(P)|$Fnb(P)|$Fdb(P)\n", ["X"]),
 ("X = $STRING(Q)\nQ = \"quoted\"\nY = $STRING(\"lit\")\n", ["X","Y"]),
 ("X = $EVAL(L)\nL = {1, 2, \"a\"}\nY = $EVAL(R)\nR = [a = 1; b = \"x\"]\n", ["X","Y"]),
 ("X = $EVAL(A)\nA = 1.5\nY = $EVAL(B)\nB = 1e100\nZ = $EVAL(C)\nC = -0.25\n", ["X","Y","Z"]),
 ("X = $INT(T)\nT = true && false\nY = $REAL(U)\nU = 3 / 2.0\n", ["X","Y"]),
 ("X = $INT(5,%5d|)\nY = $INT(5,%-5d|)\nZ = $REAL(2.5,%e)\nW = $REAL(2.5,%08.3f)\n", ["X","Y","Z","W"]),
]


def edge_cases() -> list[dict]:
    return [{"id": f"edge-{number:02d}", "text": text, "knobs": knobs} for number, (text, knobs) in enumerate(EDGE_CASES)]


def generate_cases() -> list[dict]:
    rng = random.Random(SEED)
    cases = []
    for number in range(CASES):
        generator = Generator(rng)
        text = generator.config()
        knobs = sorted(set(generator.names)) + ["START", "DAEMON_LIST", "MASTER_UPDATE_INTERVAL", "SUSPEND",
                                                "USE_SHARED_PORT", "NUM_SLOTS_TYPE_1", "SLOT_TYPE_1"]
        cases.append({"id": f"gen-{number:03d}", "text": text, "knobs": knobs})
    return cases


class StructureGenerator(Generator):
    """Configs spread over files: include, config.d directories, LOCAL_CONFIG_FILE chains,
    subsystem-prefixed knobs read as another subsystem, and _CONDOR_* environment overrides."""

    def case(self, number: int) -> dict:
        rng = self.rng
        files: dict[str, str] = {}
        main = [self.statement() for _ in range(rng.randrange(1, 4))]
        for part in range(rng.randrange(1, 4)):
            name = f"inc{part}"
            files[name] = self.config()
            option = rng.choice(["", "ifexist ", "ifexists "])
            main.insert(rng.randrange(len(main) + 1), f"include {option}: {{DIR}}/{name}\n")
        if rng.random() < 0.3:
            main.append("include ifexist : {DIR}/not-there\n")
        if rng.random() < 0.6:
            for part in range(rng.randrange(1, 4)):
                files[f"config.d/{rng.randrange(100):02d}-part{part}"] = self.config()
            files["config.d/skip.rpmsave"] = "SKIPPED = yes\n"
            files["config.d/.hidden"] = "SKIPPED = yes\n"
            main.append("LOCAL_CONFIG_DIR = {DIR}/config.d\n")
        if rng.random() < 0.6:
            files["local1"] = self.config() + ("LOCAL_CONFIG_FILE = {DIR}/local2\n" if rng.random() < 0.4 else "")
            files["local2"] = self.config()
            main.append(rng.choice(["LOCAL_CONFIG_FILE = {DIR}/local1\n",
                                    "LOCAL_CONFIG_FILE = {DIR}/local1, {DIR}/local2\n"]))
        for name in rng.sample(self.names, min(len(self.names), rng.randrange(3))):
            main.append(f"{rng.choice(['STARTD', 'SCHEDD', 'TOOL'])}.{name} = {self.value(name)}\n")
        env = {}
        for name in rng.sample(self.names, min(len(self.names), rng.randrange(3))):
            env[rng.choice(["_CONDOR_", "_condor_"]) + name] = rng.choice(["env", f"$({name}) env", "  padded"])
        knobs = sorted(set(self.names)) + ["SKIPPED", "DAEMON_LIST", "IsStartd", "SUBSYSTEM"]
        return {"id": f"struct-{number:03d}", "text": "".join(main), "files": files, "knobs": knobs, "env": env,
                "subsystem": rng.choice([None, None, "STARTD", "SCHEDD"])}


def generate_structure_cases(count: int = 60) -> list[dict]:
    rng = random.Random(SEED + 1)
    return [StructureGenerator(rng).case(number) for number in range(count)]


def _write_case(case: dict, root: Path) -> Path:
    directory = root / case["id"]
    directory.mkdir()
    for name, text in (case.get("files") or {}).items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{DIR}", str(directory)))
    (directory / "case.conf").write_text(case["text"].replace("{DIR}", str(directory)))
    top = directory / "condor_config"
    top.write_text(f"LOCAL_DIR = /opt/cc-local\nRELEASE_DIR = /opt/cc-release\nNETWORK_HOSTNAME = {PINNED_HOST}\n"
                   f"LOCAL_CONFIG_FILE =\nLOCAL_CONFIG_DIR =\ninclude : {directory / 'case.conf'}\n")
    return top


def run_oracle(cases: list[dict], root: Path, alarm: int = 1) -> dict[str, dict]:
    """HTCondor's values for every case: {id: {"values": {...}} or {"error": text}}.

    A case taking longer than ``alarm`` seconds is taken as one HTCondor hangs on
    (``{"error": "timeout", "hang": True}``)."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    results: dict[str, dict] = {}
    pending = [{"id": c["id"], "config": str(root / c["id"] / "condor_config"), "knobs": c["knobs"],
                "env": c.get("env") or {}, "subsystem": c.get("subsystem"), "alarm": alarm} for c in cases]
    first = dict(env, CONDOR_CONFIG="/dev/null")  # each case sets its own before reload_config()
    while pending:
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(pending), env=first,
                              capture_output=True, text=True, timeout=240)
        started = None
        for line in proc.stdout.splitlines():
            record = json.loads(line)
            if record.get("start"):
                started = record["id"]
            else:
                results[record["id"]] = {"values": record["values"]}
                started = None
        done = set(results)
        if started is not None:  # this case killed the child: HTCondor rejected it (or hung)
            results[started] = {"error": proc.stderr.strip()[-3000:] or f"exit status {proc.returncode}",
                                "hang": proc.returncode == -14}
            done.add(started)
        elif proc.returncode != 0:
            raise RuntimeError(f"oracle child failed: {proc.stderr[-500:]}")
        pending = [p for p in pending if p["id"] not in done]
    return results


def _profile() -> MachineProfile:
    return from_mapping({"hostname": PINNED_HOST}, source="differential", base=MachineProfile())


@pytest.fixture(scope="module")
def compared(oracle, tmp_path_factory):
    root = tmp_path_factory.mktemp("differential")
    cases = edge_cases() + generate_cases() + generate_structure_cases()
    for case in cases:
        _write_case(case, root)
    return cases, run_oracle(cases, root), root


def test_generated_configs_match_htcondor(compared):
    cases, results, root = compared
    mismatches = []
    values_compared = 0
    rejected = 0
    for case in cases:
        expected = results[case["id"]]
        top = root / case["id"] / "condor_config"
        try:
            config = condorcfg.load([str(top)], machine=_profile(), environ={"USER": "root", **case.get("env", {})},
                                    subsystem=case.get("subsystem"), cwd=str(root / case["id"]))
            ours = {k: config.value(k) for k in case["knobs"]}
        except CondorcfgError as exc:
            if "error" not in expected:
                mismatches.append((case["id"], "condorcfg rejected", exc.diagnostic.format(), case["text"]))
            rejected += 1
            continue
        if "error" in expected and expected.get("hang"):
            # make sure HTCondor really hangs (and was not just slow on a busy machine)
            expected = run_oracle([case], root, alarm=30)[case["id"]]
        if "error" in expected:
            mismatches.append((case["id"], "HTCondor rejected", expected["error"], case["text"]))
            continue
        for knob, value in expected["values"].items():
            values_compared += 1
            if ours[knob] != value:
                mismatches.append((case["id"], knob, (ours[knob], value), case["text"]))
    assert not mismatches, "\n\n".join(f"{m[0]} {m[1]}: ours/HTCondor = {m[2]!r}\n{m[3]}" for m in mismatches[:4])
    print(f"{len(cases)} configs, {values_compared} values compared, {rejected} rejected by both")
    assert values_compared > 3000
    assert 0 < rejected < len(cases) // 4  # mostly configs HTCondor accepts, and some it rejects
