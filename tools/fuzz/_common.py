"""What every fuzz harness in tools/fuzz shares: the properties checked and the bounds enforced.

A harness module defines ``check(data: bytes)`` (one input, raising on a property violation) and
calls :func:`main` with it.  Everything else is here:

* **Allowed exceptions.**  ``check`` may end with the project's diagnostic exceptions
  (:class:`condorcfg.diagnostics.CondorcfgError` and subclasses, ``ClassAdSyntaxError``, plus
  what a harness adds for the one call that documents it); every other exception escapes and is
  a crash.  :func:`guard` wraps one call with that rule.
* **Time.**  The bound is max(2 s, 2 s per MiB of input) of *CPU* time (``ITIMER_PROF``, so a
  busy shared machine does not cause false alarms).  Coverage instrumentation makes Python code
  up to ~6 times slower, so inside the fuzzer an input gets ``FUZZ_TIME_FACTOR`` (default
  :data:`INSTRUMENTED_TIME_FACTOR`) times the bound before a :class:`FuzzTimeout` is raised
  *inside* the code that is running (the traceback shows where the time went); an input that
  took more than the plain bound but less than that is saved as ``slow-<sha1>`` in
  ``FUZZ_SLOW_DIR``, and run.py re-runs those without instrumentation, against the plain bound,
  to tell a real timeout from instrumentation overhead (``run.py --reproduce`` always uses the
  plain bound).  libFuzzer's ``-timeout`` (wall clock) catches what the signal cannot interrupt
  (a long C call such as a catastrophic regex).
* **Memory.**  ``RLIMIT_AS`` is set to the process size after start-up plus ``FUZZ_MEMORY_MB``
  (default 500): an input that needs more gets a ``MemoryError`` (a crash); libFuzzer's
  ``-rss_limit_mb`` is the second line.
* **Output.**  :func:`check_output` rejects raw control characters (C0 except ``\\n``, DEL, C1,
  U+2028/U+2029, lone surrogates) and lines starting with ``::`` after blanks (CI workflow
  commands).  ``FUZZ_CHECK_OUTPUT=0`` turns it off.
* **Known failures.**  ``FUZZ_KNOWN=<file>`` lists failure signatures (one a line, as written
  in ``<crash dir>/failures.jsonl``) that are counted and skipped instead of stopping the run, so
  a long campaign goes on past a bug that is already reported.  ``FUZZ_FAILURES=<file>``: where
  a new failure's signature, input hash and traceback are appended; ``FUZZ_SKIPPED_FILE``: where
  the counts of skipped known failures are kept.

The signature of a failure is ``ExceptionType@file:function`` of the innermost frame inside
``condorcfg/`` (or of the harness), or ``PropertyViolation[kind]`` when the code returned but
broke a property, so one bug found through many inputs is one signature.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHECK_OUTPUT = os.environ.get("FUZZ_CHECK_OUTPUT", "1") != "0"
INSTRUMENTED_TIME_FACTOR = 8.0
TIME_FACTOR = 1.0  # main() raises it to FUZZ_TIME_FACTOR / INSTRUMENTED_TIME_FACTOR when it instruments
MEMORY_MB = int(os.environ.get("FUZZ_MEMORY_MB", "500"))
PROFILE_FIXED = dict(hostname="fuzz.example.org", cpus=4, memory=8192)

# C0 except \n, DEL, C1, LINE/PARAGRAPH SEPARATOR, lone surrogates
_BAD_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


class PropertyViolation(AssertionError):
    """The code returned, but what it returned breaks a property of the target.

    ``kind`` names the property (it is part of the failure signature): ``control-character``,
    ``workflow-command``, ``internal-error`` ...
    """

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class FuzzTimeout(Exception):
    """One input used more CPU time than the bound (raised by SIGPROF inside the running code)."""


class Skip(Exception):
    """Internal: a known failure, counted and ignored (FUZZ_KNOWN)."""


def allowed_exceptions() -> tuple[type, ...]:
    from condorcfg.classad.parser import ClassAdSyntaxError
    from condorcfg.diagnostics import CondorcfgError

    return (CondorcfgError, ClassAdSyntaxError)


def time_bound(size: int, factor: float | None = None) -> float:
    """CPU seconds one input of ``size`` bytes may take (times ``factor``, default :data:`TIME_FACTOR`)."""
    return (TIME_FACTOR if factor is None else factor) * max(2.0, 2.0 * size / (1 << 20))


def decode_text(data: bytes) -> str:
    """UTF-8 when it is, else the bytes kept as lone surrogates (as Python decodes argv and file names)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


def check_output(text: str, what: str) -> None:
    if not CHECK_OUTPUT:
        return
    bad = _BAD_CHARS.search(text)
    if bad:
        start = max(bad.start() - 40, 0)
        raise PropertyViolation(f"{what} contains the raw character U+{ord(bad.group()):04X} at offset "
                                f"{bad.start()}: {text[start:bad.start() + 40]!r}", kind="control-character")
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip(" \t").startswith("::"):  # (the GitHub runner ignores leading blanks)
            raise PropertyViolation(f"{what} line {number} starts with '::' (a CI workflow command): {line[:80]!r}",
                                    kind="workflow-command")


def scratch_dir(name: str) -> str:
    """A fresh directory for the files one input is written to: in memory (/dev/shm) when there is one,
    since writing files on a disk costs more than most inputs do (FUZZ_SCRATCH picks another place)."""
    import tempfile

    parent = os.environ.get("FUZZ_SCRATCH") or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    return tempfile.mkdtemp(prefix=f"condorcfg-fuzz-{name}-", dir=parent)


def clear_report_caches() -> None:
    """Forget the source lines condorcfg.report caches per process: the fuzzed files change per input."""
    import condorcfg.report as report

    for name in ("source_lines", "source_line"):
        for default in getattr(getattr(report, name, None), "__defaults__", None) or ():
            if isinstance(default, dict):
                default.clear()


def guard(call, *args, extra: tuple[type, ...] = (), **kwargs):
    """``call(*args, **kwargs)``, or None when it raised one of the allowed exceptions."""
    try:
        return call(*args, **kwargs)
    except allowed_exceptions() + extra:
        return None


# ---------------------------------------------------------------- limits

def _process_size() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * resource.getpagesize()


def set_memory_limit() -> None:
    if MEMORY_MB <= 0:
        return
    limit = _process_size() + MEMORY_MB * (1 << 20)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _on_sigprof(signum, frame):
    raise FuzzTimeout("one input used more CPU time than its bound")


# ---------------------------------------------------------------- failures

def _signature(exc: BaseException) -> str:
    if isinstance(exc, PropertyViolation):
        detail = ""
        if exc.kind == "internal-error":  # which rule, or the reader: "rule POL501 (...) crashed: KeyError: ..."
            match = re.search(r"(rule \S+|configuration reader) .*?crashed: (\w+)", str(exc))
            detail = f":{match.group(1).replace(' ', '-')}:{match.group(2)}" if match else ""
        return f"PropertyViolation[{exc.kind}{detail}]"
    # (the SIGPROF handler's own frame says nothing about where the time went)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.name != "_on_sigprof"]
    inner = None
    for frame in frames:
        if f"{os.sep}condorcfg{os.sep}" in frame.filename:
            inner = frame
    if inner is None:  # nothing in condorcfg: the innermost frame of the harness
        harness = [f for f in frames if f.filename.startswith(HERE)]
        inner = (harness or frames or [None])[-1]
    where = ""
    if inner is not None:
        name = os.path.relpath(inner.filename, ROOT) if inner.filename.startswith(ROOT) else inner.filename
        where = f"{name}:{inner.name}"
    return f"{type(exc).__name__}@{where}"


def _known() -> set[str]:
    path = os.environ.get("FUZZ_KNOWN")
    if not path or not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as handle:
        return {line.strip() for line in handle if line.strip() and not line.startswith("#")}


class Runner:
    """Wraps a harness's ``check`` with the time bound, the failure bookkeeping and the counters."""

    def __init__(self, target: str, check):
        self.target = target
        self.check = check
        self.known = _known()
        self.skipped: dict[str, int] = {}
        self.failures_file = os.environ.get("FUZZ_FAILURES")
        self.executed = 0
        self._saved = 0.0

    def __call__(self, data: bytes) -> None:
        self.executed += 1
        bound = time_bound(len(data))
        started = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, bound)
        try:
            self.check(data)
            used = time.process_time() - started
            if used > time_bound(len(data), 1.0):
                self._save_slow(data, used)
        except Exception as exc:  # noqa: BLE001 - everything that escapes check() is a failure
            signal.setitimer(signal.ITIMER_PROF, 0)
            signature = _signature(exc)
            if signature in self.known:
                self.skipped[signature] = self.skipped.get(signature, 0) + 1
                self._save_skipped()
                return
            self._record(signature, data, exc)
            self._save_skipped(force=True)
            raise
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)

    def _save_slow(self, data: bytes, used: float) -> None:
        """Keep an input over the plain time bound (but under the instrumented one) for a re-check."""
        directory = os.environ.get("FUZZ_SLOW_DIR")
        if directory:
            with open(os.path.join(directory, f"slow-{hashlib.sha1(data).hexdigest()}"), "wb") as handle:
                handle.write(data)
            print(f"FUZZ-SLOW {used:.2f} s CPU (instrumented), {len(data)} bytes", file=sys.stderr, flush=True)

    def _record(self, signature: str, data: bytes, exc: BaseException) -> None:
        if not self.failures_file:
            return
        entry = {"target": self.target, "signature": signature, "sha1": hashlib.sha1(data).hexdigest(),
                 "size": len(data), "executed_in_process": self.executed,
                 "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-6000:]}
        with open(self.failures_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def _save_skipped(self, force: bool = False) -> None:
        """Write the skip counts to FUZZ_SKIPPED_FILE (at most once a second: libFuzzer ends the process
        with exit(), which runs no Python exit handler, so the last second's skips may be missing)."""
        path = os.environ.get("FUZZ_SKIPPED_FILE")
        now = time.monotonic()
        if not path or (not force and now - self._saved < 1.0):
            return
        self._saved = now
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(self.skipped, handle)
        os.replace(path + ".tmp", path)


# never instrumented: what no target runs (commands, CLI) and the report formats the targets do not render
NOT_INSTRUMENTED = ("condorcfg.commands", "condorcfg.cli", "condorcfg.__main__", "condorcfg.templates",
                    "condorcfg.rules", "condorcfg.report.json", "condorcfg.report.sarif", "condorcfg.report.junit",
                    "condorcfg.report.github", "condorcfg.report.gitlab", "condorcfg.report.rule_page",
                    "condorcfg.report.statistics", "condorcfg.diff")


# ruamel.yaml is instrumented where it reads YAML, not where it writes it (that costs seconds of start-up)
YAML_READER = ("ruamel.yaml",)
YAML_WRITER = ("ruamel.yaml.main", "ruamel.yaml.cyaml", "ruamel.yaml.dumper", "ruamel.yaml.emitter",
               "ruamel.yaml.serializer", "ruamel.yaml.representer", "ruamel.yaml.docinfo", "ruamel.yaml.compat",
               "ruamel.yaml.util", "ruamel.yaml.anchor", "ruamel.yaml.tag", "ruamel.yaml.error")


def import_instrumented(packages: tuple[str, ...] = ("condorcfg",), extra: tuple[str, ...] = ()) -> None:
    """Import the condorcfg modules under ``packages`` (and the ``extra`` packages) with atheris's
    coverage instrumentation.

    condorcfg imports lazily, so the modules are imported here, all at once, inside the
    instrumented block (a module first imported later runs uninstrumented: no coverage).
    Instrumenting costs start-up time (several seconds for all of condorcfg), so each target
    names only the packages it runs.
    """
    import importlib
    import pkgutil

    import atheris

    import condorcfg

    names = [info.name for info in pkgutil.walk_packages(condorcfg.__path__, "condorcfg.")]
    wanted = [name for name in names if name.startswith(tuple(p + "." for p in packages) + packages)
              and not name.startswith(NOT_INSTRUMENTED)]
    with atheris.instrument_imports(include=[*packages, *extra], exclude=[*NOT_INSTRUMENTED, *YAML_WRITER]):
        for name in wanted:
            importlib.import_module(name)
        for name in extra:  # (the package itself: it imports the modules it uses)
            importlib.import_module(name)


def main(target: str, check, setup=None, packages: tuple[str, ...] = ("condorcfg",),
         extra_instrumented: tuple[str, ...] = ()) -> None:
    """Entry point of every harness: ``python tools/fuzz/fuzz_X.py [libFuzzer flags] [corpus dirs | files]``."""
    import atheris

    global TIME_FACTOR
    if os.environ.get("FUZZ_NO_INSTRUMENT") != "1":
        import_instrumented(packages, extra_instrumented)
        TIME_FACTOR = INSTRUMENTED_TIME_FACTOR
    TIME_FACTOR = float(os.environ.get("FUZZ_TIME_FACTOR") or TIME_FACTOR)
    if setup is not None:
        setup()
    runner = Runner(target, check)
    signal.signal(signal.SIGPROF, _on_sigprof)
    # warm up (rule files, templates, tables are loaded once per process) before the memory baseline
    try:
        runner.check(b"")
    except Exception:  # noqa: BLE001 - the empty input is fuzzed like any other below
        pass
    set_memory_limit()
    atheris.Setup(sys.argv, runner)
    atheris.Fuzz()
