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

from condorcfg.diagnostics import DEFAULT_FAIL_ON, SEVERITIES, CondorcfgError, Diagnostic, Location, Text
from condorcfg.config.hostview import TEMPLATE_SUFFIX
from condorcfg.lint.project import Role
from condorcfg.records import record
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
    parser.add_argument("--role", action="append", metavar="NAME",
                        help="lint only this role of the project settings (repeatable; default: every role, or with "
                             "PATHs every role reading one of them)")


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
        project = project_module.for_command(args.project, args.settings_from, _settings_start(args))
        ruleset = load_rules()
        machine = project_module.resolve_machine(project, args.machine) if not project.all_roles() else None
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
    if args.sysroot and project.roles:
        return _usage("--sysroot does not apply to the roles of the project settings: each role says where its "
                      "host's files come from (`sysroot`, `mounts`)")
    if args.sysroot:
        project.sysroot = os.path.abspath(args.sysroot)  # (this run's: a given sysroot replaces the settings')
    if project.sysroot and not os.path.isdir(project.sysroot):
        return _usage(f"sysroot {project.sysroot} is not a directory")

    try:
        units = _pre_commit_units(args, project) if args.pre_commit else _units(args, project)
    except CondorcfgError as exc:
        return _unusable(exc.diagnostic)
    if isinstance(units, str):
        return _usage(units)
    for unit in units:
        for path in unit.paths:
            if not os.path.exists(path):
                where = f" (the root of {_role_label(unit.role)} in {project.path})" if unit.role else ""
                return _usage(f"cannot read {path}: no such file or directory{where}")
            if not os.access(path, os.R_OK):
                return _usage(f"cannot read {path}: permission denied")

    from condorcfg import roles as roles_module

    allowed = roles_module.allowed_dirs(project)
    try:
        results = []
        for unit in units:
            role = unit.role
            unit_machine = roles_module.machine(role, project, args.machine) if role else machine
            unit_settings = settings
            if role is not None and role.version and not args.target_version:
                unit_settings = settings.copy()
                unit_settings.target_versions = [role.version]  # (the release this role runs)
            if unit.fragment:
                unit_settings = settings.copy()
                unit_settings.fragment = True
            results.append(engine.run(unit.paths, machine=unit_machine, settings=unit_settings, ruleset=ruleset,
                                      allow_exec=args.allow_exec, subsystem=args.subsystem,
                                      sysroot=None if role else project.sysroot, host=role.host if role else None,
                                      allowed_dirs=allowed, whole=unit.whole))
            _read_by_no_role(unit, results[-1], ruleset, unit_settings)
    except engine.LintUsageError as exc:
        return _usage(str(exc))
    except CondorcfgError as exc:
        return _unusable(exc.diagnostic)
    for result in results:
        if result.unusable is not None:
            return _unusable(result.unusable)
    result = _merge(results, units)
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


@record
class Unit:
    """One configuration to lint: paths read in order as one, whether it is a host's whole configuration
    (a role's root) rather than loose files, the role, and whether it is a file no role reads."""
    paths: list[str]
    whole: bool
    role: Role | None = None
    fragment: bool = False


def _role_label(role) -> str:
    return f"role {role.name!r}" if role.name else "the root"


def _settings_start(args) -> str | None:
    """Where the settings are looked for (ruff's way): above the files named, else the current directory.
    Files governed by different settings files are a usage error: one run has one set of rules."""
    named = [*args.paths, *args.config, *args.config_root]
    if not named or args.project:
        return None
    from condorcfg.lint.project import governing_file

    found = {governing_file(path) for path in named}
    if len(found) > 1:
        shown = ", ".join(sorted(str(f) if f else "(none)" for f in found))
        raise _SeveralProjects(f"the files named are governed by different project settings ({shown}); lint each "
                               f"project on its own, or name one with --project")
    return named[0]


class _SeveralProjects(CondorcfgError):
    def __init__(self, message: str):
        super().__init__(Diagnostic("error", message, Location("<command line>", 0, 1), code="project-config"))


def _units(args, project) -> list[Unit] | str:
    """The configurations to lint; a string is a usage error.  ``--config-root`` roots, then the files named
    (with roles: every role reading one of them, see _roles_reading), then the project's roles, then
    CONDOR_CONFIG."""
    from condorcfg import roles

    units = [Unit([root], True, _given_root_role(project, root)) for root in args.config_root]
    paths = [*args.paths, *args.config]
    if paths and project.all_roles() and not args.config_root:
        return _roles_reading(args, project, paths, deleted=[])
    if args.role and (paths or args.config_root):
        return "--role chooses among the project's roles: with --config-root FILE, name no role"
    if paths:
        units.append(Unit(paths, False))
    if units:
        return units
    if project.all_roles():
        return [Unit([role.root], True, role) for role in roles.chosen(project, args.role)]
    if args.role:
        return "--role needs roles in the project settings (`roles:` in .condorcfg.yaml)"
    condor_config = os.environ.get("CONDOR_CONFIG", "").strip()
    if condor_config and condor_config.upper() != "ONLY_ENV":
        return [Unit([condor_config], True)]
    return ("give config files or config.d directories, or --config-root FILE "
            "(or set `roles` or `roots` in .condorcfg.yaml / pyproject.toml [tool.condorcfg], or CONDOR_CONFIG)")


def _given_root_role(project, root: str):
    """A root named with --config-root: read with the sysroot its place implies, as a root of `roots` is."""
    from condorcfg.lint.project import root_role

    return root_role(project, os.path.abspath(root), single=True)


def _pre_commit_units(args, project) -> list[Unit]:
    """What the hook lints: with roles, those a changed (or deleted) file or a settings file touches
    (_roles_reading); without, the changed files named like HTCondor configuration; may be nothing."""
    if project.all_roles():
        return _roles_reading(args, project, [*args.paths, *args.config], _deleted_files(project.directory),
                              hook=True)
    changed = [*args.paths, *args.config]
    config_files = [path for path in changed if CONFIG_NAME.search(path.replace(os.sep, "/"))]
    return [Unit(config_files, False)] if config_files else []


def _roles_reading(args, project, paths: list[str], deleted: list[str], hook: bool = False) -> list[Unit]:
    """The roles whose configuration reads one of ``paths`` (through include, LOCAL_CONFIG_DIR,
    LOCAL_CONFIG_FILE or a mount), or looked where a ``deleted`` file was; every role when a settings
    file (the project's, a machine profile, the baseline) is among them.  A file no role reads is
    linted alone, as a fragment (the hook: only one named like HTCondor configuration)."""
    from condorcfg import roles as roles_module

    candidates = roles_module.chosen(project, args.role)
    real = os.path.realpath
    settings_files = {real(path) for path in project.settings_files()}
    for role in candidates:
        settings_files.update(real(str(p)) for p in role.machine_profiles.values() if isinstance(p, str)
                              and p not in role.machine_profiles)

    def places(path: str) -> set[str]:  # where the name is and where it points: a committed link counts too
        return {real(path), os.path.join(real(os.path.dirname(os.path.abspath(path))), os.path.basename(path))}

    changed = [path for path in paths]
    if any(places(path) & settings_files for path in [*changed, *deleted]):
        return [Unit([role.root], True, role) for role in candidates]
    reads: list[tuple[Role, set[str], set[str]]] = []
    every = project.all_roles()  # (a file --role leaves out may still be read by another role: not "no role")
    for role in every:  # (reading is a fraction of linting; only the roles touched are linted)
        config = roles_module.read(role, project, subsystem=args.subsystem, allow_exec=args.allow_exec)
        reads.append((role, {real(f) for f in config.files} | {real(role.root)},
                      {real(p) for p in config.places_looked}))
    touched: list[Role] = []
    alone: list[str] = []
    for path in changed:
        found = [role for role, files, _looked in reads if places(path) & files]
        if not found and not hook:
            found = [role for role, _files, looked in reads if places(path) & looked]
        chosen = [role for role in found if role in candidates]
        if chosen:
            touched += [role for role in chosen if role not in touched]
        elif found:
            print(safe_line(f"condorcfg lint: {path} is read by {', '.join(role.label for role in found)}, which "
                            f"--role leaves out; not linted"), file=sys.stderr)
        elif path.endswith(TEMPLATE_SUFFIX):  # (a template for another tool: not configuration until rendered)
            print(safe_line(f"condorcfg lint: {path} is a Jinja2 template no role mounts; not linted (a role's "
                            f"`mounts` renders it)"), file=sys.stderr)
        elif not hook or CONFIG_NAME.search(path.replace(os.sep, "/")):
            alone.append(path)
    for path in deleted:
        parent = real(os.path.dirname(path))
        touched += [role for role, files, looked in reads if role not in touched and role in candidates
                    and (real(path) in looked or parent in looked or places(path) & files)]
    units = [Unit([role.root], True, role) for role in candidates if role in touched]
    return units + [Unit([path], False, None, fragment=True) for path in alone]


def _read_by_no_role(unit: Unit, result, ruleset, settings) -> None:
    """Say that a file was linted alone because no role reads it (an info finding)."""
    if not unit.fragment:
        return
    from condorcfg.lint.declarative import READ_BY_NO_ROLE
    from condorcfg.lint.engine import select_rules

    rule = next((r for r in ruleset if r.match and r.match.get("engine") == READ_BY_NO_ROLE), None)
    if rule is None or rule not in select_rules(ruleset, settings):
        return
    result.findings.append(Diagnostic(
        settings.severity.get(rule.code) or settings.severity.get(rule.name) or rule.severity,
        Text("{path} is read by none of the project's roles; it was linted alone, as a fragment",
             path=Location(unit.paths[0])), Location(unit.paths[0], 0, 1), code=rule.code, rule=rule.name,
        fix=rule.fix))


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


def _merge(results, units=()):
    """One result of several configurations' results: each finding once, with the roles it holds in."""
    from condorcfg.lint.engine import LintResult

    named = [unit.role.name if unit.role is not None else "" for unit in units]
    if len(results) == 1 and not any(named):
        return results[0]  # (nothing to merge: hashing every finding again costs a big run seconds)
    merged = LintResult(findings=[])
    seen: dict = {}
    seen_hidden = set()
    for index, result in enumerate(results):
        role = named[index] if index < len(named) else ""
        for finding in result.findings:
            key = (finding.code, finding.location, finding.message)
            first = seen.get(key)
            if first is None:
                seen[key] = finding
                merged.findings.append(finding)
                first = finding
            if role and role not in first.roles:
                first.roles = (*first.roles, role)
        for finding in result.hidden:
            key = (finding.code, finding.location, finding.message)
            if key not in seen_hidden:
                seen_hidden.add(key)
                merged.hidden.append(finding)
        merged.suppressed += result.suppressed
        known = {rule.code for rule in merged.rules_run}  # (by code: comparing whole rule records costs a run ms)
        merged.rules_run += [r for r in result.rules_run if r.code not in known]
        merged.skipped_rules += [s for s in result.skipped_rules if s not in merged.skipped_rules]
        merged.files += [f for f in result.files if f not in merged.files]
        merged.fatal |= result.fatal
    return merged
