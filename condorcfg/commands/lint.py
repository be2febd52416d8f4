"""``condorcfg lint``: check composed configurations and report findings.

What is linted: each ``--config-root`` is one configuration (its includes and
``LOCAL_CONFIG_DIR`` composed); the positional paths and ``--config`` files together are one
more, read in order; with neither, the project's ``roots``, then ``CONDOR_CONFIG``.  Every
configuration is read as the target host would read it, but only from the given paths, the
project and ``--sysroot`` (see :mod:`condorcfg.config.reader`, repository mode).

Exit status: 0 no finding at or above ``--fail-on`` (default warning), 1 findings, 2 usage
error, input that cannot be read, or an unusable rule, project or baseline file.

``--pre-commit``: the paths are the files pre-commit passes (the hook runs on every commit,
deletions included).  With ``roots`` in the project settings, every root is linted whenever
the change touches a file a root reads, a file under a root's folder or the sysroot (a
deletion too), the project settings, a machine profile or the baseline; other files are
never linted.  Without ``roots``, the changed files named like HTCondor configuration
(``condor_config*``, ``config.d/*``) are linted together as one configuration.
"""
from __future__ import annotations

import os
import re
import sys

from condorcfg.diagnostics import DEFAULT_FAIL_ON, SEVERITIES, CondorcfgError, Diagnostic, Location
from condorcfg.inputs import within
from condorcfg.report import FORMATS
from condorcfg.textsafe import safe_line

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

# Without project roots, the changed files the hook lints: HTCondor's own names for config.
CONFIG_NAME = re.compile(r"(^|/)(condor_config[^/]*|config\.d/[^/]+)$")


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="config files or config.d directories, read in order as ONE configuration")
    parser.add_argument("--config", action="append", default=[], metavar="FILE",
                        help="a config file or config.d directory, added to PATHs (repeatable)")
    parser.add_argument("--config-root", action="append", default=[], metavar="FILE",
                        help="a top-level condor_config composing a configuration (repeatable: each is linted)")
    parser.add_argument("--machine", metavar="PROFILE",
                        help="machine profile: a YAML/JSON file or a name from the project's machine-profiles")
    parser.add_argument("--subsystem", metavar="S", help="read as daemon subsystem S (default TOOL)")
    parser.add_argument("--sysroot", metavar="DIR",
                        help="the folder standing for the host's /: absolute LOCAL_CONFIG_FILE, LOCAL_CONFIG_DIR "
                             "and include paths are read under it (default: `sysroot` in the project settings)")
    parser.add_argument("--format", choices=FORMATS,
                        help="report format (default: text; github when GITHUB_ACTIONS=true)")
    parser.add_argument("--statistics", action="store_true", help="print a count of findings per rule instead")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings and nothing else (text format)")
    parser.add_argument("--select", metavar="CODES", help="comma-separated codes, prefixes or slugs to run "
                        "(replaces the default set; ALL = every rule)")
    parser.add_argument("--extend-select", metavar="CODES", help="rules to run in addition")
    parser.add_argument("--ignore", metavar="CODES", help="comma-separated codes, prefixes or slugs to skip")
    parser.add_argument("--fragment", action="store_true",
                        help="the files are fragments of a configuration kept elsewhere (an HTCondor-CE or glideinWMS "
                             "config.d): report the macros they use but do not define once, as coming from it")
    parser.add_argument("--target-version", action="append", metavar="RELEASE",
                        help="judge knobs and templates against this HTCondor release (24.0, 23.0.28, ...); repeat "
                             "for a mixed pool (default: the project's target-version, else 25.14.1)")
    parser.add_argument("--fail-on", choices=SEVERITIES, help="lowest severity that makes the exit status 1 "
                        f"(default: {DEFAULT_FAIL_ON})")
    parser.add_argument("--baseline", metavar="FILE",
                        help="hide the findings FILE accepts (default: `baseline` in the project settings)")
    parser.add_argument("--write-baseline", metavar="FILE",
                        help="record the current findings in FILE (they stop failing), then exit 0")
    parser.add_argument("--allow-exec", action="store_true",
                        help="run the commands the configuration names (include command : ...); off by default")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text report (auto: on a terminal, unless NO_COLOR is set)")
    parser.add_argument("--project", metavar="FILE", help="project settings file (default: .condorcfg.yaml or "
                        "pyproject.toml [tool.condorcfg] found upward from here)")
    parser.add_argument("--settings-from", metavar="REV",
                        help="take the project settings and baseline as committed in git revision REV (in CI of a "
                             "pull request: the base branch), not from the work tree")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--pre-commit", action="store_true",
                        help="PATHs are the files a commit changes (the pre-commit hook's mode)")


def _codes(text: str | None) -> list[str]:
    return [c.strip() for c in (text or "").split(",") if c.strip()]


def _usage(message: str) -> int:
    print(safe_line(f"condorcfg lint: {message}"), file=sys.stderr)
    return EXIT_USAGE


def _unusable(diagnostic: Diagnostic) -> int:
    print(diagnostic.format(), file=sys.stderr)
    return EXIT_USAGE


def run(args) -> int:
    from condorcfg.lint import baseline as baseline_module, engine, project as project_module
    from condorcfg.lint.rules import load_rules

    try:
        project = project_module.for_command(args.project, args.settings_from)
        ruleset = load_rules()
        machine = project_module.resolve_machine(project, args.machine)
    except CondorcfgError as exc:
        return _unusable(exc.diagnostic)

    settings = engine.LintSettings.from_project(project)
    settings.fragment = settings.fragment or args.fragment
    settings.count_hidden = True  # what the rule selection hides is said in the report
    settings.findings_per_file = None  # every finding until the baseline is applied; capped below
    if args.target_version:
        from condorcfg import releases

        try:
            settings.target_versions = [releases.resolve(v) for v in args.target_version]
        except ValueError as exc:
            print(safe_line(f"condorcfg lint: --target-version: {exc}"), file=sys.stderr)
            return EXIT_USAGE
    if args.select is not None:
        settings.select = _codes(args.select)
    settings.extend_select += _codes(args.extend_select)
    settings.ignore += _codes(args.ignore)
    fail_on = args.fail_on or project.fail_on or DEFAULT_FAIL_ON
    sysroot = args.sysroot or project.sysroot
    if sysroot and not os.path.isdir(sysroot):
        return _usage(f"sysroot {sysroot} is not a directory")

    if args.pre_commit:
        units = _pre_commit_units(args, project)
    else:
        units = _units(args, project)
    if isinstance(units, str):
        return _usage(units)
    for unit, _whole in units:
        for path in unit:
            if not os.path.exists(path):
                where = f" (listed in `roots` of {project.path})" if path in project.roots else ""
                return _usage(f"cannot read {path}: no such file or directory{where}")
            if not os.access(path, os.R_OK):
                return _usage(f"cannot read {path}: permission denied")

    allowed = [project.directory] if project.path else []
    try:
        results = [engine.run(unit, machine=machine, settings=settings, ruleset=ruleset, allow_exec=args.allow_exec,
                              subsystem=args.subsystem, sysroot=sysroot, allowed_dirs=allowed, whole=whole)
                   for unit, whole in units]
    except engine.LintUsageError as exc:
        return _usage(str(exc))
    for result in results:
        if result.unusable is not None:
            return _unusable(result.unusable)
    if args.pre_commit and project.roots and not _touches_roots(args, project, results):
        results = []  # the change touches nothing the roots read: nothing to report
    result = _merge(results)
    if results:
        result.severity_changes = engine.severity_changes(ruleset, settings)

    # the files this run read, as a baseline names them: its entries for other files are neither stale nor lost
    linted = {baseline_module.relative_file(file, project.directory) for file in result.files}
    if args.write_baseline:
        try:
            earlier = _earlier_entries(baseline_module, args.write_baseline)
            written = baseline_module.write(args.write_baseline, _baselinable(result.findings, ruleset),
                                            project.directory, [e for e in earlier if e.file not in linted])
        except CondorcfgError as exc:
            return _unusable(exc.diagnostic)
        print(safe_line(f"condorcfg lint: wrote {written} baseline entr{'y' if written == 1 else 'ies'} "
                        f"({len(result.findings)} findings) to {args.write_baseline}"), file=sys.stderr)
        return EXIT_OK
    baseline_path = args.baseline or project.baseline
    try:  # (a --baseline given here is the work tree's; the settings' one comes from where they did)
        if args.baseline or (baseline_path and not project.revision and os.path.exists(baseline_path)):
            baseline_text = baseline_module.read_text(baseline_path)
        elif baseline_path and project.revision:
            baseline_text = project.revision_file(baseline_path, baseline_module.MAX_BASELINE_SIZE)
        else:
            baseline_text = None
        entries = baseline_module.read(baseline_path, baseline_text) if baseline_text is not None else None
    except CondorcfgError as exc:
        return _unusable(exc.diagnostic)
    if entries is not None:
        _kept, result.baselined, stale = baseline_module.apply(_baselinable(result.findings, ruleset), entries,
                                                               project.directory)
        accepted = {id(finding) for finding in result.baselined}
        result.findings = [finding for finding in result.findings if id(finding) not in accepted]
        stale = [(entry, left) for entry, left in stale if entry.file in linted or not entry.file]
        result.findings += _stale_findings(stale, baseline_path, ruleset, settings)

    result.findings = engine.cap_listed(result.findings, engine.MAX_FINDINGS_PER_FILE)
    from condorcfg.report import ReportView, render

    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = args.color == "always" or (args.color == "auto" and fmt == "text" and not args.output
                                       and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    view = ReportView(ruleset=ruleset, root=project.directory, color=color, fail_on=fail_on, quiet=args.quiet)
    if args.statistics:
        from condorcfg.report.statistics import render as statistics

        report = statistics(result, view)
    else:
        report = render(fmt, result, view)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            return _usage(f"cannot write {args.output}: {exc.strerror}")
    else:
        sys.stdout.write(report)
    if any(f.rule == engine.LIMIT_REACHED for f in result.findings):
        return EXIT_USAGE  # checking stopped part-way: fail closed, whatever --fail-on says
    return EXIT_FINDINGS if result.fails(fail_on) else EXIT_OK


def _earlier_entries(baseline_module, path: str) -> list:
    """The entries of the baseline ``path`` is now (none when there is none, or it is not a baseline: it
    is being written anew, as asked)."""
    if not os.path.exists(path):
        return []
    try:
        return baseline_module.read(path)
    except CondorcfgError:
        return []


def _baselinable(findings, ruleset) -> list[Diagnostic]:
    """The findings a baseline may accept: not those of rules that cannot be suppressed (a limit reached, a
    crash, a macro cycle): a baseline entry, written or committed, never hides them."""
    from condorcfg.lint.engine import unlisted_count

    fixed = {rule.code for rule in ruleset if not rule.ignorable}  # (nor a count of findings not kept)
    return [finding for finding in findings if finding.code not in fixed and not unlisted_count(finding)]


def _units(args, project) -> list[tuple[list[str], bool]] | str:
    """The configurations to lint: (paths read in order, whether it is a whole configuration
    (a root) rather than loose files); a string is a usage error."""
    units = [([root], True) for root in args.config_root]
    paths = [*args.paths, *args.config]
    if paths:
        units.append((paths, False))
    if units:
        return units
    if project.roots:
        return [([root], True) for root in project.roots]
    condor_config = os.environ.get("CONDOR_CONFIG", "").strip()
    if condor_config and condor_config.upper() != "ONLY_ENV":
        return [([condor_config], True)]
    return ("give config files or config.d directories, or --config-root FILE "
            "(or set `roots` in pyproject.toml [tool.condorcfg] / .condorcfg.yaml, or CONDOR_CONFIG)")


def _pre_commit_units(args, project) -> list[tuple[list[str], bool]]:
    """What the hook lints: the roots (kept only if the change touches them, see _touches_roots),
    or without roots the changed files named like HTCondor configuration; may be nothing."""
    if project.roots:
        return [([root], True) for root in project.roots]
    changed = [*args.paths, *args.config]
    config_files = [path for path in changed if CONFIG_NAME.search(path.replace(os.sep, "/"))]
    return [(config_files, False)] if config_files else []


def _touches_roots(args, project, results) -> bool:
    """Does the change touch a file the roots read, a file under a root's folder or the sysroot
    (deletions included), the project settings, a machine profile or the baseline?"""
    real = os.path.realpath
    watched_dirs = [os.path.dirname(real(root)) for root in project.roots]
    if args.sysroot or project.sysroot:
        watched_dirs.append(real(args.sysroot or project.sysroot))
    watched_files = {real(path) for path in project.settings_files()}
    watched_files.update(real(file) for result in results for file in result.files)

    def touches(path: str) -> bool:  # where the name is and where it points: a committed link counts too
        return any(full in watched_files or any(within(full, d) for d in watched_dirs)
                   for full in {real(path), os.path.join(real(os.path.dirname(os.path.abspath(path))),
                                                         os.path.basename(path))})

    return any(touches(path) for path in [*args.paths, *args.config, *_deleted_files(project.directory)])


def _deleted_files(directory: str) -> list[str]:
    """Files the commit (or the range pre-commit checks in CI) deletes: pre-commit passes none."""
    source, target = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    if source and target:  # revisions, never options (PRE_COMMIT_FROM_REF=--output=... must not reach git as one)
        if source.startswith("-") or target.startswith("-"):
            return []
        refs = ["--end-of-options", f"{source}...{target}"]
    else:
        refs = ["--cached"]
    import subprocess  # only the hook asks git; subprocess costs every lint run ~7 ms of start-up

    from condorcfg.gitside import repository_top  # (found by its .git, never asked of git inside the change)

    top = repository_top(directory)
    if top is None:
        return []
    try:
        listed = subprocess.run(["git", "diff", "--name-only", "--no-renames", "--diff-filter=D", "-z", *refs],
                                cwd=top, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if listed.returncode != 0:
        return []
    return [os.path.join(top, name) for name in listed.stdout.split("\0") if name]


def _stale_findings(stale, path: str, ruleset, settings) -> list[Diagnostic]:
    from condorcfg.lint.declarative import STALE_BASELINE
    from condorcfg.lint.engine import select_rules

    rule = next((r for r in ruleset if r.match and r.match.get("engine") == STALE_BASELINE), None)
    if rule is None or rule not in select_rules(ruleset, settings):
        return []
    findings = []
    for entry, left in stale:
        about = f"knob {entry.knob}" if entry.knob else f"“{entry.message}”"
        times = f" ({left} of {entry.count})" if entry.count > 1 else ""
        findings.append(Diagnostic(
            settings.severity.get(rule.code) or settings.severity.get(rule.name) or rule.severity,
            f"baseline entry for {entry.code} on {about} in {entry.file} matches no finding any more{times}; "
            f"remove it", Location(path, entry.line, 1), code=rule.code, rule=rule.name, fix=rule.fix))
    return findings


def _merge(results):
    from condorcfg.lint.engine import LintResult

    if len(results) == 1:
        return results[0]  # (nothing to merge: hashing every finding again costs a big run seconds)
    merged = LintResult(findings=[])
    seen, seen_hidden = set(), set()
    for result in results:
        for finding in result.findings:
            key = (finding.code, finding.location, finding.message)
            if key not in seen:
                seen.add(key)
                merged.findings.append(finding)
        for finding in result.hidden:
            key = (finding.code, finding.location, finding.message)
            if key not in seen_hidden:
                seen_hidden.add(key)
                merged.hidden.append(finding)
        merged.suppressed += result.suppressed
        merged.rules_run += [r for r in result.rules_run if r not in merged.rules_run]
        merged.skipped_rules += [s for s in result.skipped_rules if s not in merged.skipped_rules]
        merged.files += [f for f in result.files if f not in merged.files]
        merged.fatal |= result.fatal
    return merged
