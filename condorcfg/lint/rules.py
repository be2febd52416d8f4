"""Load and validate the lint rules in ``rules/*.yaml``.

Every rule is one entry of a YAML list in ``rules/<family>.yaml``::

    - code: POL501                      # 3 capital letters + 3 digits, unique
      name: job-attr-in-is-owner        # slug: lowercase words joined by '-', unique
      severity: error                   # error | warning | info
      summary: IS_OWNER refers to job attributes        # one line
      rationale: why this is bad (several sentences)
      fix: what to do instead
      check: job_attr_in_is_owner       # a function registered in condorcfg.lint.checks ...
      # match: {...}                    # ... or a declarative matcher (exactly one of the two)
      enabled: true                     # optional; false = opt-in rule, run only when selected
      ignorable: true                   # optional; false = `# condorcfg: ignore[...]` cannot hide it
      references: [https://...]         # optional links shown by `condorcfg explain`
      needs: [machine]                  # optional: machine | root | version (what the rule relies on)
      examples:
        pass:                           # configurations to copy: no finding of this rule, and the default
          - "IS_OWNER = KeyboardIdle < 600\\n"   # run passes (the page's "Use instead")
        fail:                           # configurations that must give at least one (the page's "Example")
          - "IS_OWNER = Owner == \\"bob\\"\\n"
          - config: "NUM_SLOTS = 99\\n"   # the long form adds a machine profile
            machine: {cpus: 4}
        silent:                         # no finding of this rule, but no configuration to copy either
          - "NUM_CPUS = 4  # four cores\\n"     # (tested, not shown)

A page shows each example with the command that lints it; tests/test_rule_pages.py runs them so.

The declarative ``match`` keys are documented in :mod:`condorcfg.lint.declarative`.

Rules are read from ``$CONDORCFG_RULES_DIR`` (directories separated by ``os.pathsep``), else
from the shipped ``rules/`` (the package data ``condorcfg.rules``, see :mod:`condorcfg.resources`).
A malformed rule file is a :class:`RuleFileError` whose diagnostic names the file and line.
Reading YAML costs ~80 ms of imports, so the validated rules are cached as JSON in the
user's cache directory, keyed by the rule files' names, sizes and modification times.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from condorcfg.diagnostics import SEVERITIES, CondorcfgError, Diagnostic, Location
from condorcfg.records import as_dict, factory, record

RULES_DIR_ENV = "CONDORCFG_RULES_DIR"
CODE_RE = re.compile(r"^[A-Z]{3}[0-9]{3}$")
SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_CACHE_FORMAT = 3  # bump when Rule's fields change
_CACHE_KEEP = 8    # cache files kept (several checkouts may share the cache directory)

_KEYS = {"code", "name", "severity", "summary", "rationale", "fix", "check", "match", "enabled",
         "ignorable", "references", "needs", "examples"}
_REQUIRED = ("code", "name", "severity", "summary", "rationale")
# machine: a machine profile; root: the whole configuration a host reads (a root, not loose files)
_NEEDS = {"machine", "root", "version"}


class RuleFileError(CondorcfgError):
    """A rule file that cannot be used; ``.diagnostic`` points at the offending line."""


# The machine every rule example is linted on (a profile's facts; an example's own `machine` overrides some):
# fixed, so a page and its test never depend on the machine that renders or runs them.
EXAMPLE_MACHINE = {"hostname": "ep01.example.org", "cpus": 8, "memory": 16384, "disk": 200_000_000, "swap": 0,
                   "ip": "10.0.0.1", "opsys": "LINUX", "arch": "X86_64", "gpus": 0, "resources": {}}
EXAMPLE_CONFIG = "condor_config"  # the file name an example is written to
EXAMPLE_PROFILE = "ep.yaml"  # and its machine profile


@record
class Example:
    config: str
    machine: dict | None = None
    line: int = 0  # where the example is written in the rule file
    target_version: list[str] = factory(list)  # the releases the example's pool runs (--target-version)

    def command(self, rule) -> str:
        """The command line a reader runs on the example, as its page shows it (the test runs the same)."""
        words = ["condorcfg", "lint", "--config-root", EXAMPLE_CONFIG]
        if self.profile(rule) is not None:
            words += ["--machine", EXAMPLE_PROFILE]
        for release in self.target_version:
            words += ["--target-version", release]
        if not rule.enabled:
            words += ["--select", rule.code]
        return " ".join(words)

    def profile(self, rule) -> dict | None:
        """The machine profile the example is linted on when it needs one (its page shows it), else None."""
        if self.machine is None and "machine" not in rule.needs:
            return None
        return {**EXAMPLE_MACHINE, **(self.machine or {})}


@record
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    rationale: str
    fix: str = ""
    check: str | None = None
    match: dict | None = None
    enabled: bool = True
    ignorable: bool = True
    references: list[str] = factory(list)
    needs: list[str] = factory(list)
    pass_examples: list[Example] = factory(list)
    fail_examples: list[Example] = factory(list)
    # the rule stays silent on these, though they are no configuration to copy (a mistake of another rule's):
    # tested like `pass`, not shown under "Use instead"
    silent_examples: list[Example] = factory(list)
    file: str = ""
    line: int = 0

    @property
    def family(self) -> str:
        return self.code[:3]

    @property
    def location(self) -> Location:
        return Location(self.file, self.line, 1)


class RuleSet:
    """All rules, looked up by code or slug (case-insensitive)."""

    def __init__(self, rules: list[Rule]):
        self.rules = sorted(rules, key=lambda r: r.code)
        self._by_key = {}
        self._reader_kinds: dict[str, Rule] | None = None
        for rule in self.rules:
            self._by_key[rule.code.upper()] = rule
            self._by_key[rule.name.upper()] = rule

    def __iter__(self):
        return iter(self.rules)

    def __len__(self):
        return len(self.rules)

    def get(self, code_or_slug: str) -> Rule | None:
        return self._by_key.get(code_or_slug.strip().upper())

    def reader_kinds(self) -> dict[str, Rule]:
        """Reader diagnostic kind -> the rule that reports it (``match: {reader: [...]}``)."""
        if self._reader_kinds is None:
            self._reader_kinds = {kind: rule for rule in self.rules for kind in (rule.match or {}).get("reader", ())}
        return self._reader_kinds


def default_rules_dirs() -> list[Path]:
    """``$CONDORCFG_RULES_DIR`` (directories separated by os.pathsep) or the shipped ``rules/``."""
    override = os.environ.get(RULES_DIR_ENV)
    if override:
        return [Path(p) for p in override.split(os.pathsep) if p]
    from condorcfg.resources import data_dir

    return [Path(data_dir("rules"))]


_loaded: dict[str, RuleSet] = {}


def load_rules(directories=None, use_cache: bool = True) -> RuleSet:
    """Read every ``*.yaml`` in the rule directories (default: :func:`default_rules_dirs`)."""
    if directories is None:
        directories = default_rules_dirs()
    elif isinstance(directories, (str, os.PathLike)):
        directories = [Path(directories)]
    files = [f for d in directories for f in sorted(Path(d).glob("*.yaml"))]
    if not files:
        names = ", ".join(str(d) for d in directories)
        hint = f"set {RULES_DIR_ENV} to the rules/ directory"
        if not any(Path(d).is_dir() for d in directories):
            hint = (f"this installation of condorcfg lacks its rule files (package data condorcfg.rules); "
                    f"reinstall it, or {hint}")
        raise RuleFileError(Diagnostic("error", f"no rule files (*.yaml) found in {names}; {hint}", Location(names)))
    key = _cache_key(files)
    if key in _loaded:
        return _loaded[key]
    rules = _read_cache(key) if use_cache else None
    if rules is None:
        rules = []
        for path in files:
            rules.extend(parse_rule_file(path))
        _check_unique(rules)
        if use_cache:
            _write_cache(key, rules)
    ruleset = RuleSet(rules)
    _loaded[key] = ruleset
    return ruleset


# ---------------------------------------------------------------- validation

def _fail(path, line: int, message: str, column: int = 1):
    raise RuleFileError(Diagnostic("error", message, Location(str(path), line or 1, column), code="rule-file"))


def _line_of(node, key=None) -> int:
    """1-based line of a ruamel node (or of ``key`` inside a mapping node); 0 if unknown."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return 0
    try:
        if key is not None:
            return lc.key(key)[0] + 1
        return lc.line + 1
    except (KeyError, TypeError, AttributeError):
        return 0


def parse_rule_file(path: str | os.PathLike, text: str | None = None) -> list[Rule]:
    """Validate one rule file; raise :class:`RuleFileError` naming file:line on the first problem."""
    from condorcfg.inputs import load_yaml
    from ruamel.yaml.error import YAMLError

    path = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            _fail(path, 0, f"cannot read rule file: {exc}")
    try:
        data = load_yaml(text, "rt")
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "mapping values are not allowed" in problem:
            problem += " (a value containing ': ' must be quoted or written as a '>' block)"
        _fail(path, mark.line + 1 if mark else 0, f"rule file is not valid YAML: {problem}",
              mark.column + 1 if mark else 1)
    if data is None:
        return []
    if not isinstance(data, list):
        _fail(path, 1, "a rule file must be a YAML list of rule entries (each starting with '- code: ...')")
    rules = []
    for entry in data:
        rules.append(_parse_rule(path, entry))
    return rules


def _parse_rule(path: str, entry) -> Rule:
    line = _line_of(entry)
    if not isinstance(entry, dict):
        _fail(path, line, "each rule entry must be a mapping with code, name, severity, summary, rationale")
    for key in entry:
        if key not in _KEYS:
            _fail(path, _line_of(entry, key),
                  f"unknown key {key!r} in rule entry; allowed keys: {', '.join(sorted(_KEYS))}")
    where = lambda key: _line_of(entry, key) or line  # noqa: E731 - tiny local helper
    for key in _REQUIRED:
        if key in entry and (not isinstance(entry[key], str) or not entry[key].strip()):
            _fail(path, where(key), f"{key!r} must be a non-empty string")
    code, name, severity = (str(entry.get(k, "")) for k in ("code", "name", "severity"))
    if "code" in entry and not CODE_RE.match(code):
        _fail(path, where("code"), f"rule code {code!r} must be 3 capital letters and 3 digits, e.g. POL501")
    if "name" in entry and not SLUG_RE.match(name):
        _fail(path, where("name"), f"rule name {name!r} must be lowercase words joined by '-'")
    if "severity" in entry and severity not in SEVERITIES:
        _fail(path, where("severity"), f"severity {severity!r} must be one of {', '.join(SEVERITIES)}")
    missing = [key for key in _REQUIRED if key not in entry]
    if missing:
        _fail(path, line, f"rule entry {code or ''} lacks required key(s) {', '.join(missing)}".replace("  ", " "))
    if ("check" in entry) == ("match" in entry):
        _fail(path, line, f"rule {code} needs exactly one of 'check' (a Python check) or 'match' "
                          f"(a declarative matcher)")
    check = entry.get("check")
    if check is not None and (not isinstance(check, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", check)):
        _fail(path, where("check"), "'check' must be the name of a function in condorcfg.lint.checks")
    match = None
    if "match" in entry:
        from condorcfg.lint.declarative import MatcherError, validate_matcher

        try:
            match = validate_matcher(_plain(entry["match"]))
        except MatcherError as exc:
            node = entry["match"]
            _fail(path, (_line_of(node, exc.key) if exc.key and isinstance(node, dict) else 0) or where("match"),
                  f"rule {code}: {exc}")
    for key in ("enabled", "ignorable"):
        if key in entry and not isinstance(entry[key], bool):
            _fail(path, where(key), f"{key!r} must be true or false")
    references = _plain(entry.get("references") or [])
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        _fail(path, where("references"), "'references' must be a list of strings")
    needs = _plain(entry.get("needs") or [])
    if not isinstance(needs, list) or not set(needs) <= _NEEDS:
        _fail(path, where("needs"), f"'needs' must be a list drawn from {', '.join(sorted(_NEEDS))}")
    fix = entry.get("fix", "")
    if not isinstance(fix, str):
        _fail(path, where("fix"), "'fix' must be a string")
    passes, fails, silent = _parse_examples(path, entry, where("examples") if "examples" in entry else line)
    return Rule(code=code, name=name, severity=severity, summary=str(entry["summary"]).strip(),
                rationale=str(entry["rationale"]).strip(), fix=str(fix).strip(), check=check, match=match,
                enabled=entry.get("enabled", True), ignorable=entry.get("ignorable", True),
                references=references, needs=needs,
                pass_examples=passes, fail_examples=fails, silent_examples=silent, file=path, line=line)


def _parse_examples(path: str, entry, line: int) -> tuple[list[Example], list[Example], list[Example]]:
    examples = entry.get("examples")
    if examples is None:
        _fail(path, line, f"rule {entry['code']} needs 'examples' with at least one 'fail' example")
    if not isinstance(examples, dict) or not set(examples) <= {"pass", "fail", "silent"}:
        _fail(path, line, "'examples' must be a mapping with 'pass', 'fail' and 'silent' lists")
    result = []
    for kind in ("pass", "fail", "silent"):
        items = examples.get(kind) or []
        if not isinstance(items, list):
            _fail(path, _line_of(examples, kind) or line, f"examples.{kind} must be a list")
        parsed = []
        for index, item in enumerate(items):
            item_line = _item_line(items, index) or line
            if isinstance(item, str):
                parsed.append(Example(str(item), None, item_line))
            elif isinstance(item, dict) and "config" in item and set(item) <= {"config", "machine", "target-version"}:
                machine = _plain(item.get("machine"))
                if machine is not None and not isinstance(machine, dict):
                    _fail(path, item_line, "an example's 'machine' must be a mapping (cpus, memory, ...)")
                targets = _plain(item.get("target-version")) or []
                if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
                    _fail(path, item_line, "an example's 'target-version' must be a list of releases")
                parsed.append(Example(str(item["config"]), machine, item_line, list(targets)))
            else:
                _fail(path, item_line, "an example is a config text string, or a mapping with 'config' "
                                       "and optional 'machine' and 'target-version'")
        result.append(parsed)
    from condorcfg.lint.declarative import NO_FAIL_EXAMPLE

    if not result[1] and (_plain(entry.get("match")) or {}).get("engine") not in NO_FAIL_EXAMPLE:
        _fail(path, line, f"rule {entry['code']} needs at least one 'fail' example")
    return result[0], result[1], result[2]


def _item_line(seq, index: int) -> int:
    lc = getattr(seq, "lc", None)
    try:
        return lc.item(index)[0] + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return 0


def _plain(node):
    """ruamel round-trip containers -> plain dict/list/str (so rules cache as JSON)."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node


def _check_unique(rules: list[Rule]) -> None:
    seen: dict[str, Rule] = {}
    for rule in rules:
        for key in (rule.code, rule.name):
            if key in seen:
                first = seen[key]
                _fail(rule.file, rule.line, f"duplicate rule {key!r}; first defined at {first.file}:{first.line}")
            seen[key] = rule


# ---------------------------------------------------------------- JSON cache

def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "condorcfg"


def _cache_key(files: list[Path]) -> str:
    """What the cached rules depend on: the rule files' paths, sizes and times, and this code."""
    parts = [str(_CACHE_FORMAT)]
    for path in files + [Path(__file__), Path(__file__).with_name("declarative.py")]:
        try:
            stat = path.stat()
        except OSError:
            continue
        parts.append(f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return "\n".join(parts)


def _cache_file(key: str) -> Path:
    import zlib  # a short file name; the full key inside the file guards against collisions

    return _cache_dir() / f"rules-{zlib.crc32(key.encode()):08x}.json"


def _read_cache(key: str) -> list[Rule] | None:
    try:
        data = json.loads(_cache_file(key).read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        rules = []
        for item in data["rules"]:
            item["pass_examples"] = [Example(**e) for e in item["pass_examples"]]
            item["fail_examples"] = [Example(**e) for e in item["fail_examples"]]
            item["silent_examples"] = [Example(**e) for e in item.get("silent_examples", [])]
            rules.append(Rule(**item))
        return rules
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # no cache or a stale/corrupt one: read the YAML


def _write_cache(key: str, rules: list[Rule]) -> None:
    target = _cache_file(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"key": key, "rules": [as_dict(r) for r in rules]}), encoding="utf-8")
        os.replace(tmp, target)
        directory = target.parent
        # Every edit of a rule file makes a new cache entry: keep only the most recent few.
        entries = sorted(directory.glob("rules-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in entries[_CACHE_KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only home only costs speed
