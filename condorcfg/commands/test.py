"""``condorcfg test``: run policy tests (what the pool's policy must do; :mod:`condorcfg.policytest`).

    condorcfg test [FILE|DIR ...] [--format text|json|junit]

Without files: the ``policy-tests`` of the project settings (.condorcfg.yaml or pyproject.toml
[tool.condorcfg]); a directory stands for the ``*.yaml`` files in it.  A failing expectation
prints why: for START and a match, each clause with the values on both sides and the file:line
it was written at.  Exit status: 0 every case holds, 1 one fails, 2 a test file or the
configuration cannot be used, or the run reached one of its limits (the cases run until then are
reported).

The files a run may read are those of the project folder (where the settings are, else the
current directory), fixed before any test file is opened: a test file, or a directory of them,
that is a symbolic link leading out of it is refused (:mod:`condorcfg.policytest`).
"""
from __future__ import annotations

import json
import os
import sys

from condorcfg.textsafe import defuse, defuse_json, defuse_xml, printable, safe_line

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="policy test files (YAML), or directories of them; default: the project's "
                             "policy-tests")
    parser.add_argument("--project", metavar="FILE", help="project settings file (default: found upward)")
    parser.add_argument("--settings-from", metavar="REV",
                        help="take the project settings as committed in git revision REV (in CI of a pull request: "
                             "the base branch), not from the work tree")
    parser.add_argument("--role", action="append", metavar="NAME",
                        help="run only the cases of this role of the project settings (repeatable)")
    parser.add_argument("--format", choices=("text", "json", "junit"), default="text")


def _files(args, project) -> list[str]:
    """The test files named (or the project's); a directory stands for its YAML files, and is listed only
    when it really is inside the folder its files may name (a committed link to a folder outside is not)."""
    from condorcfg.diagnostics import CondorcfgError, error
    from condorcfg.policytest import inside_boundary

    named = args.files or project.policy_tests
    found = []
    for item in named:
        if not os.path.isdir(item):
            found.append(item)
            continue
        inside_boundary(item, project.directory, "directory of policy tests")
        try:
            names = os.listdir(item)
        except OSError as exc:
            raise CondorcfgError(error(f"cannot list the directory of policy tests: {exc.strerror}", item,
                                       code="unreadable-file")) from None
        found += sorted(os.path.join(item, n) for n in names if n.endswith((".yaml", ".yml")))
    return found


def run(args) -> int:
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.lint import project as project_module
    from condorcfg.policytest import Run, run_file

    # the project folder is the boundary of what test files may name: known before any of them is read
    # (the settings nearest above the first file named, as lint finds them; a nearer settings file can only
    # narrow the folder its tests may read)
    try:
        project = project_module.for_command(args.project, args.settings_from, args.files[0] if args.files else None)
        only = None
        if args.role:
            from condorcfg import roles

            only = {role.name for role in roles.chosen(project, args.role)}
        files = _files(args, project)
    except CondorcfgError as exc:
        print(exc.diagnostic.format(), file=sys.stderr)
        return EXIT_USAGE
    if not files:
        print(safe_line("condorcfg test: no policy test files: name them, or set policy-tests in the project "
                        "settings"), file=sys.stderr)
        return EXIT_USAGE
    results, limits = [], Run()
    for path in files:
        try:
            results.append((path, run_file(path, project, limits, only)))
        except CondorcfgError as exc:
            print(exc.diagnostic.format(), file=sys.stderr)
            return EXIT_USAGE
        if limits.stopped is not None:
            break
    render = {"json": _json, "junit": _junit}.get(args.format, _text)
    sys.stdout.write(render(results, limits.stopped))
    if limits.stopped is not None:  # the cases not run have no verdict: not a pass, not a plain failure
        print(limits.stopped.format(), file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if all(case.ok for _path, cases in results for case in cases) else EXIT_FAILED


def _shown(value) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return printable(str(value))


def _text(results, stopped=None) -> str:
    lines, total, failed = [], 0, 0
    for path, cases in results:
        lines.append(printable(path))
        for case in cases:
            total += 1
            failed += not case.ok
            lines.append(f"  {'PASS' if case.ok else 'FAIL'}  {printable(case.name)}  ({printable(case.file)}:"
                         f"{case.line})")
            if case.error:
                lines.append(f"        the case cannot run: {printable(case.error)}")
            for check in case.checks:
                if check.ok:
                    continue
                lines.append(f"        {check.expectation}: expected {_shown(check.expected)}, got {_shown(check.actual)}")
                lines += [f"          {printable(line)}" for line in check.explanation]
    lines.append(f"{total} case{'s' * (total != 1)}, {failed} failed")
    if stopped is not None:
        lines.append(f"stopped at {printable(str(stopped.location))}: {printable(stopped.message)}")
    return defuse("\n".join(lines) + "\n")


def _json(results, stopped=None) -> str:
    def plain(value):
        return value if isinstance(value, (bool, int, float, str, type(None), dict, list)) else str(value)

    data = {"files": [{"file": path, "cases": [
        {"name": c.name, "line": c.line, "ok": c.ok, "error": c.error,
         "checks": [{"expect": k.expectation, "expected": plain(k.expected), "actual": plain(k.actual), "ok": k.ok,
                     "explanation": k.explanation} for k in c.checks]} for c in cases]} for path, cases in results]}
    data["passed"] = stopped is None and all(c["ok"] for f in data["files"] for c in f["cases"])
    if stopped is not None:
        data["stopped"] = {"file": stopped.location.file, "line": stopped.location.line, "message": stopped.message}
    return defuse_json(json.dumps(data, indent=2, ensure_ascii=True, default=str)) + "\n"


def _junit(results, stopped=None) -> str:
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites")
    for path, cases in results:
        suite = ET.SubElement(suites, "testsuite", name=printable(path), tests=str(len(cases)),
                              failures=str(sum(not c.ok for c in cases)))
        for case in cases:
            element = ET.SubElement(suite, "testcase", classname=printable(path), name=printable(case.name))
            if case.ok:
                continue
            lines = [f"the case cannot run: {case.error}"] if case.error else []
            for check in case.checks:
                if not check.ok:
                    lines.append(f"{check.expectation}: expected {_shown(check.expected)}, got {_shown(check.actual)}")
                    lines += [f"  {line}" for line in check.explanation]
            failure = ET.SubElement(element, "failure", message=printable(lines[0] if lines else "failed"))
            failure.text = "\n".join(printable(line) for line in lines)
    if stopped is not None:  # (a run cut short must not read as green)
        suite = ET.SubElement(suites, "testsuite", name="condorcfg test", tests="1", failures="0", errors="1")
        run = ET.SubElement(suite, "testcase", name="the run")
        ET.SubElement(run, "error", message=printable(f"{stopped.location}: {stopped.message}"))
    return defuse_xml(ET.tostring(suites, encoding="unicode")) + "\n"
