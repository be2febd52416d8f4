"""Seed inputs for each fuzz target, taken from the project's own data at run time.

Nothing is copied into the repository: :func:`build` writes the seeds of one target into a
directory outside it (run.py uses ``<workdir>/<target>/seeds``), reading

* ``tests/data``, ``examples/``, ``templates/`` of this checkout;
* ``../shared/corpus/real/`` (real configurations, read in place) and ``../shared/vectors``
  (the config vectors' texts, the ClassAd vectors' expressions), when ``../shared`` is there
  (``CONDORCFG_SHARED`` points elsewhere, as in the test suite);
* a few hand-written inputs per target (below) for what the data has none of;
* ``tests/data/fuzz_crashes/<target>/`` (the reproducers of bugs found before), so a
  campaign starts by re-checking them.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("CONDORCFG_SHARED", ROOT.parent / "shared"))
SEPARATOR = b"\n%%\n"  # fuzz_config: a config.d with two files
MAX_SEED = 128 * 1024

_CONFIG_NAMES = re.compile(r"(condor_config|\.conf(ig)?$|\.local$|^\d\d[-_])", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*(.*)$", re.MULTILINE)
_SLOT_TYPE = re.compile(r"^[ \t]*SLOT_TYPE_\d+[ \t]*=[ \t]*(.*)$", re.MULTILINE | re.IGNORECASE)
_EXPRESSION_KNOBS = re.compile(r"(START|RANK|REQUIREMENTS|PREEMPT|SUSPEND|CONTINUE|KILL|WANT_|IS_OWNER|"
                               r"_EXPR|POLICY|PERIODIC_|CLAIM|MACHINE_MAX|SLOT_WEIGHT|CUSTOM|BUSY|IDLE)",
                               re.IGNORECASE)


def _files(*roots: Path) -> list[Path]:
    found = []
    for root in roots:
        if root.is_file():
            found.append(root)
        elif root.is_dir():
            found += sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return found


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()[:MAX_SEED]
    except OSError:
        return b""


def config_files() -> list[Path]:
    """Configuration files of the checkout and of the shared corpus."""
    files = [ROOT / "tests/data/lint_golden/config/condor_config"]
    files += _files(ROOT / "examples/etc", ROOT / "templates")
    files = [f for f in files if f.suffix != ".py"]
    corpus = SHARED / "corpus/real"
    files += [f for f in _files(corpus) if f.name not in ("PROVENANCE.tsv", "golden.jsonl", "golden_meta.json",
                                                           "README.md")]
    return files


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _config_texts() -> list[bytes]:
    texts = [_read(f) for f in config_files()]
    for vector in _jsonl(SHARED / "vectors/config/vectors.jsonl"):
        if isinstance(vector.get("config"), str):
            texts.append(vector["config"].replace("{DIR}", "/tmp").encode("utf-8", "surrogatepass"))
    return [t for t in texts if t]


def config_seeds() -> list[bytes]:
    texts = _config_texts()
    seeds = list(texts)
    examples = sorted((ROOT / "examples/etc/config.d").glob("*"))
    for first, second in zip(examples, examples[1:]):  # config.d pairs (fuzz_config's separator)
        seeds.append(_read(first) + SEPARATOR + _read(second))
    seeds += [
        b"X = 1\n%%\nY = $(X)\n",
        b"include : 20-second\n%%\nA = $(B)\nB = $(A)\n",
        b"LOCAL_CONFIG_FILE = /etc/condor/condor_config.local\nLOCAL_CONFIG_DIR = config.d\n",
        b"if version >= 8.0\n  X = $ENV(HOME:/root)\nelif defined Y\n  X = @=end\n  body\n@end\nendif\n",
        b"use ROLE : Execute\nuse FEATURE : PartitionableSlot(1, 100%)\nuse POLICY : Preempt_If(Cpus > 2)\n",
        b"A = \x1b[31mred\r\nB = \xe2\x80\xa8\n::error::x\n##[error]y\n",
        b"# condorcfg: ignore[POL501] because\nSTART = TRUE\nMAX = $INT(99999999999999999999)\n",
    ]
    return seeds


def classad_seeds() -> list[bytes]:
    seeds: list[bytes] = []
    for name in ("vectors.jsonl", "vectors-newsyntax.jsonl", "parse-vectors.jsonl"):
        for vector in _jsonl(SHARED / "vectors/classad" / name):
            if isinstance(vector.get("expr"), str):
                seeds.append(vector["expr"].encode("utf-8", "surrogatepass"))
            for side in ("my", "target"):
                if isinstance(vector.get(side), str):
                    seeds.append(vector[side].encode("utf-8", "surrogatepass"))
    for job in _files(ROOT / "examples/jobs"):
        seeds.append(_read(job))
    # the expression knobs of the configurations (START, RANK, *_EXPR ...)
    for text in _config_texts()[:200]:
        for name, value in _ASSIGNMENT.findall(text.decode("utf-8", "replace")):
            if _EXPRESSION_KNOBS.search(name) and value.strip() and "$(" not in value:
                seeds.append(value.strip().encode("utf-8", "surrogatepass"))
    seeds += [b"[ a = 1; b = { 1, 2.5, \"x\" }; c = a + b[1] ]", b"TARGET.Memory >= MY.RequestMemory ?: 0",
              b'regexp("^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")',
              b'strcat("\\x1b[31m", "\\u2028") == "x" && absTime("2024-01-01T00:00:00Z") > 0',
              b"9223372036854775807 + 1 * -9223372036854775808 / -1 % 0 << 64 >>> 1"]
    return seeds


def slot_type_seeds() -> list[bytes]:
    seeds: list[bytes] = []
    for text in _config_texts():
        seeds += [m.strip().encode("utf-8", "surrogatepass")
                  for m in _SLOT_TYPE.findall(text.decode("utf-8", "replace")) if m.strip()]
    seeds += [b"cpus=1, memory=25%, disk=1/4, swap=auto", b"auto", b"1/4", b"25%", b"min", b"cpus=1\nram=1024",
              b"c=2 r=50% d=10% s=10% GPUs=1:ID==\"GPU-0\"", b"cpus=0.5, memory=1/3, ScratchBandwidth=5",
              b"cpus=100%, memory=100%, disk=100%", b"cpus=1e308, memory=-1, gpus=1/0", b"@=end\ncpus=1\n@end",
              b"1 \\\n memory=512"]
    return seeds


PROJECT_SEEDS = [
    b"roots: [etc/condor_config]\nselect: [POL, SEC801]\nextend-select: [KNB307]\nignore: [MAC203]\n"
    b"severity: {KNB303: error}\nfail-on: warning\nmachine: machines/ep.yaml\nrequire-reason: true\n"
    b"known-knobs: [\"SITE_.*\", GPU_MONITOR]\nmachine-profiles:\n  gpu: machines/ep.yaml\n"
    b"  small: {cpus: 4, memory: 8192}\nrule-options:\n  SLT602: {tolerance: 0.05}\n",
    b"roots = [\"etc/condor_config\"]\nsysroot = \".\"\nbaseline = \".condorcfg-baseline.json\"\n"
    b"select = [\"ALL\"]\nignore = [\"MAC203\"]\nseverity = {KNB303 = \"error\"}\nfail-on = \"info\"\n"
    b"machine = \"small\"\nknown_knobs = [\"SITE_.*\"]\n\n[tool.condorcfg.machine-profiles]\n"
    b"gpu = \"machines/ep.yaml\"\nsmall = {cpus = 4, memory = 8192}\n\n[tool.condorcfg.rule-options.SLT602]\n"
    b"tolerance = 0.05\n",
    b"[project]\nname = \"x\"\n\n[tool.condorcfg]\nroots = \"condor_config\"\nrule-options = {POL501 = {x = 1}}\n",
    b"select: ALL\nrule_options: {SLT602: {tolerance: [1, 2]}, KNB303: {}}\nmachine: {cpus: 99999999}\n",
    b"known-knobs: [\"(a+)+$\", \"[\"]\nmachine: /dev/zero\n",
    b"&a [1, *a]\n",
]


def project_seeds() -> list[bytes]:
    return list(PROJECT_SEEDS)


def profile_seeds() -> list[bytes]:
    seeds = [_read(f) for f in _files(ROOT / "examples/machines")]
    try:
        from ruamel.yaml import YAML

        for text in list(seeds):
            data = YAML(typ="safe").load(text)
            seeds.append(json.dumps(data).encode())
    except Exception:  # noqa: BLE001 - a seed that cannot be converted is just left out
        pass
    seeds += [
        b'{"hostname": "h.example.org", "cpus": 4, "memory": 8192, "gpus": ["GPU-a", 7], '
        b'"resources": {"Bandwidth": 20, "FPGA": ["f0", "f1"]}, "os_name": "AlmaLinux", "os_version": "9.4", '
        b'"kernel": "5.14", "ipv6": "2001:db8::1"}',
        b"cpus: 65536\nmemory: 1099511627776\ngpus: 65536\ndisk: 1125899906842624\n",
        b"cpus: '0012'\nmemory: 1.0e3\nswap: 1e400\nip: '::1'\nos_name: Debian\nos_version: x.y\n",
        b"hostname: \"\\e[31m\\u2028\"\nresources: {A: .nan, B: -1}\n",
        b"&a [*a]\n", b"[1, 2]\n", b"---\n...\n",
    ]
    return seeds


SEEDS = {
    "config": config_seeds,
    "classad": classad_seeds,
    "slot_types": slot_type_seeds,
    "project": project_seeds,
    "profile": profile_seeds,
}


def build(target: str, directory: str | os.PathLike, limit: int | None = None) -> int:
    """Write the seeds of ``target`` into ``directory`` (one file per distinct seed); return how many.

    ``limit``: at most that many, an even spread over the seeds (the regression reproducers of
    tests/data/fuzz_crashes always included).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        old.unlink()
    unique = {hashlib.sha1(seed).hexdigest(): seed for seed in SEEDS[target]()}
    chosen = sorted(unique)
    if limit is not None and len(chosen) > limit:
        step = len(chosen) / max(limit, 1)
        chosen = [chosen[int(i * step)] for i in range(limit)]
    kept = {digest: unique[digest] for digest in chosen}
    for path in _files(ROOT / "tests/data/fuzz_crashes" / target):
        if path.name != "README.md":
            data = _read(path)
            kept[hashlib.sha1(data).hexdigest()] = data
    for digest, seed in kept.items():
        (directory / digest).write_bytes(seed)
    return len(kept)


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:] or SEEDS:
        count = build(name, Path("/tmp/condorcfg-fuzz-seeds") / name)
        print(f"{name}: {count} seeds")
