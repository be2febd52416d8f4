"""``condorcfg test``: run policy tests (what the pool's policy must do; :mod:`condorcfg.policytest`).

    condorcfg test [FILE|DIR ...] [--format text|json|junit]

Without files: the ``policy-tests`` of the project settings (.condorcfg.yaml or pyproject.toml
[tool.condorcfg]); a directory stands for the ``*.yaml`` files in it.  A failing expectation
prints why: for START and a match, each clause with the values on both sides and the file:line
it was written at.  Exit status: 0 every case holds, 1 one fails, 2 a test file or the
configuration cannot be used.
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
    parser.add_argument("--format", choices=("text", "json", "junit"), default="text")


def _files(args, project) -> list[str]:
    named = args.files or project.policy_tests
    found = []
    for item in named:
        if os.path.isdir(item):
            found += sorted(os.path.join(item, n) for n in os.listdir(item) if n.endswith((".yaml", ".yml")))
        else:
            found.append(item)
    return found


def run(args) -> int:
    from condorcfg.diagnostics import CondorcfgError
    from condorcfg.lint import project as project_module
    from condorcfg.policytest import run_file

    project = project_module.load(args.project) if args.project else project_module.discover()
    files = _files(args, project)
    if not files:
        print(safe_line("condorcfg test: no policy test files: name them, or set policy-tests in the project "
                        "settings"), file=sys.stderr)
        return EXIT_USAGE
    results = []
    for path in files:
        try:
            results.append((path, run_file(path, project.roots)))
        except CondorcfgError as exc:
            print(exc.diagnostic.format(), file=sys.stderr)
            return EXIT_USAGE
    render = {"json": _json, "junit": _junit}.get(args.format, _text)
    sys.stdout.write(render(results))
    return EXIT_OK if all(case.ok for _path, cases in results for case in cases) else EXIT_FAILED


def _shown(value) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return printable(str(value))


def _text(results) -> str:
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
    return defuse("\n".join(lines) + "\n")


def _json(results) -> str:
    def plain(value):
        return value if isinstance(value, (bool, int, float, str, type(None), dict, list)) else str(value)

    data = {"files": [{"file": path, "cases": [
        {"name": c.name, "line": c.line, "ok": c.ok, "error": c.error,
         "checks": [{"expect": k.expectation, "expected": plain(k.expected), "actual": plain(k.actual), "ok": k.ok,
                     "explanation": k.explanation} for k in c.checks]} for c in cases]} for path, cases in results]}
    data["passed"] = all(c["ok"] for f in data["files"] for c in f["cases"])
    return defuse_json(json.dumps(data, indent=2, ensure_ascii=True, default=str)) + "\n"


def _junit(results) -> str:
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
    return defuse_xml(ET.tostring(suites, encoding="unicode")) + "\n"
