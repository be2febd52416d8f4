"""``condorcfg lint``: check one composed configuration (or each project root) and report findings.

Exit status: 0 no finding at or above ``--fail-on`` (default error), 1 findings, 2 usage error,
unreadable input or an unusable rule/project file.

With ``--pre-commit`` the paths are the changed files pre-commit passes: every project root
(``roots`` in the project config) whose composed configuration reads one of them is linted as a
whole, so a change to ``config.d/20-slots`` is checked together with everything it composes
with; changed files that no root reads are linted together as one configuration.
"""
from __future__ import annotations

import os
import sys

from condorcfg.diagnostics import SEVERITIES, CondorcfgError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="config files or config.d directories, read in order as ONE configuration")
    parser.add_argument("--config-root", metavar="FILE",
                        help="a top-level condor_config; its includes and LOCAL_CONFIG_DIR compose the config")
    parser.add_argument("--machine", metavar="PROFILE",
                        help="machine profile: a YAML/JSON file or a name from the project's machine-profiles")
    parser.add_argument("--format", choices=("text", "json", "sarif", "github"),
                        help="report format (default: text; github when GITHUB_ACTIONS=true)")
    parser.add_argument("--select", metavar="CODES", help="comma-separated codes, prefixes or slugs to run "
                        "(replaces the default set; ALL = every rule)")
    parser.add_argument("--extend-select", metavar="CODES", help="rules to run in addition")
    parser.add_argument("--ignore", metavar="CODES", help="comma-separated codes, prefixes or slugs to skip")
    parser.add_argument("--fail-on", choices=SEVERITIES, help="lowest severity that makes the exit status 1 "
                        "(default: error)")
    parser.add_argument("--allow-exec", action="store_true",
                        help="run the commands the configuration names (include command : ...); off by default")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text report (auto: on a terminal, unless NO_COLOR is set)")
    parser.add_argument("--project", metavar="FILE", help="project settings file (default: .condorcfg.yaml or "
                        "pyproject.toml [tool.condorcfg] found upward from here)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--pre-commit", action="store_true",
                        help="PATHs are changed files: lint every project root that reads them")


def _codes(text: str | None) -> list[str]:
    return [c.strip() for c in (text or "").split(",") if c.strip()]


def _usage(message: str) -> int:
    print(f"condorcfg lint: {message}", file=sys.stderr)
    return EXIT_USAGE


def run(args) -> int:
    from condorcfg.lint import engine, project as project_module
    from condorcfg.lint.rules import load_rules

    try:
        project = project_module.load(args.project) if args.project else project_module.discover()
        ruleset = load_rules()
        machine = project_module.resolve_machine(project, args.machine)
    except CondorcfgError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return EXIT_USAGE

    settings = engine.LintSettings.from_project(project)
    if args.select is not None:
        settings.select = _codes(args.select)
    settings.extend_select += _codes(args.extend_select)
    settings.ignore += _codes(args.ignore)
    fail_on = args.fail_on or project.fail_on or "error"

    for path in [*args.paths, *([args.config_root] if args.config_root else [])]:
        if not os.path.exists(path):
            return _usage(f"cannot read {path}: no such file or directory")
        if not os.access(path, os.R_OK):
            return _usage(f"cannot read {path}: permission denied")

    units = _units(args, project)
    if isinstance(units, str):
        return _usage(units)
    for root in project.roots:
        if root in units and not os.path.exists(root):
            return _usage(f"cannot read {root}: no such file (listed in `roots` of {project.path})")

    def lint_one(target):
        return engine.run(target, machine=machine, settings=settings, ruleset=ruleset, allow_exec=args.allow_exec)

    try:
        results = [lint_one(target) for target in units]
        if args.pre_commit:
            results, uncovered = _affected(results, args.paths)
            if uncovered:
                results.append(lint_one(uncovered))
    except engine.LintUsageError as exc:
        return _usage(str(exc))
    result = _merge(results)

    from condorcfg.report import ReportView, render

    class View(ReportView):
        """The report view, computing each file's shown path once (a big report has thousands of findings)."""

        def display_path(self, file):
            _shown = self.__dict__.setdefault("_shown", {})
            if file not in _shown:
                _shown[file] = ReportView.display_path(self, file)
            return _shown[file]

    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = args.color == "always" or (args.color == "auto" and fmt == "text" and not args.output
                                       and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    report = render(fmt, result, View(ruleset=ruleset, root=project.directory, color=color, fail_on=fail_on))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            return _usage(f"cannot write {args.output}: {exc.strerror}")
    else:
        sys.stdout.write(report)
    return EXIT_FINDINGS if result.fails(fail_on) else EXIT_OK


def _units(args, project) -> list | str:
    """The configurations to lint, each a path or list of paths; a string is a usage error."""
    if args.pre_commit:
        return list(project.roots)  # the changed files no root reads are added by _affected
    if args.config_root:
        return [[args.config_root, *args.paths] if args.paths else args.config_root]
    if args.paths:
        return [list(args.paths)]
    if project.roots:
        return list(project.roots)
    return ("give config files or config.d directories, or --config-root FILE "
            "(or set `roots` in pyproject.toml [tool.condorcfg] / .condorcfg.yaml)")


def _affected(results, changed: list[str]):
    """Pre-commit: the roots that read a changed file, and the changed files no root reads."""
    changed_real = {os.path.realpath(p): p for p in changed}
    kept, covered = [], set()
    for result in results:
        files = {os.path.realpath(f) for f in result.files}
        if result.fatal or files & changed_real.keys():
            kept.append(result)
        covered |= files
    uncovered = [path for real, path in changed_real.items() if real not in covered]
    return kept, uncovered


def _merge(results):
    from condorcfg.lint.engine import LintResult

    merged = LintResult(findings=[])
    seen = set()
    for result in results:
        for finding in result.findings:
            key = (finding.code, finding.location, finding.message)
            if key not in seen:
                seen.add(key)
                merged.findings.append(finding)
        merged.suppressed += result.suppressed
        merged.rules_run += [r for r in result.rules_run if r not in merged.rules_run]
        merged.skipped_rules += [s for s in result.skipped_rules if s not in merged.skipped_rules]
        merged.files += [f for f in result.files if f not in merged.files]
        merged.fatal |= result.fatal
    return merged
