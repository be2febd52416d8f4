"""Every rule page is right as a reader uses it: each "Example" block, linted with the command on its first
line (and the machine profile after it), reports the page's rule; each "Use instead" block passes that same
default run (nothing at warning or above, and not the rule).  The blocks are taken from the rendered page,
the text `condorcfg explain` prints and docs/rules/ holds, and run through the command line."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from condorcfg.cli import main
from condorcfg.lint.rules import load_rules
from condorcfg.report.rule_page import render_rule

ROOT = Path(__file__).resolve().parents[1]
RULES = load_rules([ROOT / "rules"])
KNOWN_FAILURES_FILE = ROOT / "tests" / "data" / "lint_golden" / "known_page_failures.json"
KNOWN_FAILURES: dict[str, str] = json.loads(KNOWN_FAILURES_FILE.read_text()) if KNOWN_FAILURES_FILE.exists() else {}
BLOCK = re.compile(r"```(yaml)?\n(.*?)```", re.S)


def page_blocks(page: str, section: str) -> list[tuple[list[str], str, str | None]]:
    """(command words, configuration, machine profile or None) of each block of a page's section."""
    match = re.search(rf"^## {section}\n(.*?)(?=^## |\Z)", page, re.S | re.M)
    if match is None:
        return []
    blocks, found = BLOCK.findall(match.group(1)), []
    for kind, text in blocks:
        if kind:  # a profile: it belongs to the configuration before it
            found[-1] = (*found[-1][:2], text.split("\n", 1)[1])
            continue
        first, _, config = text.partition("\n")
        assert first.startswith("# condorcfg lint "), first
        found.append((shlex.split(first[2:])[1:], config, None))
    return found


def _cases():
    for rule in RULES:
        page = render_rule(rule)
        for section in ("Example", "Use instead"):
            for number, block in enumerate(page_blocks(page, section), 1):
                yield pytest.param(rule.code, section, *block, id=f"{rule.code}-{section.split()[0].lower()}-{number}")


@pytest.mark.parametrize("code, section, argv, config, profile", list(_cases()))
def test_a_page_block_does_what_its_page_says(code, section, argv, config, profile, tmp_path, monkeypatch, capsys,
                                              request):
    monkeypatch.chdir(tmp_path)
    for name in ("CONDOR_CONFIG", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "condor_config").write_text(config)
    if profile is not None:
        (tmp_path / "ep.yaml").write_text(profile)
    status = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    codes = [finding["code"] for finding in json.loads(out)["findings"]]
    failing = [finding["code"] for finding in json.loads(out)["findings"]
               if finding["severity"] in ("warning", "error")]
    ok = code in codes if section == "Example" else (status == 0 and code not in codes)
    case = request.node.callspec.id
    if case in KNOWN_FAILURES:
        assert not ok, f"{case} now does what its page says: remove it from {KNOWN_FAILURES_FILE.name}"
        return
    assert ok, (f"{case}: `{' '.join(argv)}` on\n{config}\ngives {codes} (failing: {failing}); the page says "
                + ("it reports " + code if section == "Example" else "it passes"))
