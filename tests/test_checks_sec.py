"""SEC801 (insecure-allow): `*` is fine for WRITE when authentication is required (SECURITY templates)."""
from __future__ import annotations

from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

RULES = load_rules([Path(__file__).resolve().parents[1] / "rules"])


def lint(tmp_path, *texts, select=("SEC801",)):
    paths = []
    for index, text in enumerate(texts, 1):
        path = tmp_path / f"{index:02d}.conf"
        path.write_text(text)
        paths.append(str(path))
    findings = engine.run(paths, settings=engine.LintSettings(select=list(select)), ruleset=RULES).findings
    assert not [f for f in findings if f.rule == engine.INTERNAL_ERROR]
    return findings


@pytest.mark.parametrize("text", [
    "use SECURITY : recommended\n",
    "use SECURITY : recommended_v9_0\n",
    "use SECURITY : get_htcondor_idtokens\n",
    "use SECURITY : HOST_BASED\n",
    "use SECURITY : USER_BASED\n",
    "SEC_DEFAULT_AUTHENTICATION = REQUIRED\nALLOW_WRITE = *\n",
    "SEC_WRITE_AUTHENTICATION = REQUIRED\nALLOW_WRITE = *\n",
    "ALLOW_WRITE = *.cs.wisc.edu\nALLOW_DAEMON = condor@*\n",
    "ALLOW_READ = *\n",
    "SEC_DAEMON_AUTHENTICATION = REQUIRED\nSEC_DAEMON_AUTHENTICATION_METHODS = PASSWORD\nALLOW_DAEMON = *\n",
], ids=lambda text: text.strip().replace("\n", " | ")[:60])
def test_no_finding(tmp_path, text):
    assert lint(tmp_path, text) == []


def test_open_write_points_at_the_star(tmp_path):
    [finding] = lint(tmp_path, "ALLOW_WRITE = host1, *\n")
    assert (finding.location.line, finding.location.column, finding.location.end_column) == (1, 22, 23)
    assert finding.severity == "error" and "authentication" in finding.message


def test_level_specific_setting_beats_the_default(tmp_path):
    [finding] = lint(tmp_path, "SEC_DEFAULT_AUTHENTICATION = REQUIRED\nSEC_WRITE_AUTHENTICATION = OPTIONAL\n"
                               "ALLOW_WRITE = *\n")
    assert finding.location.line == 3 and "SEC_WRITE_AUTHENTICATION" in finding.message


@pytest.mark.parametrize("level", ["ADMINISTRATOR", "DAEMON", "NEGOTIATOR", "CONFIG", "ADVERTISE_STARTD"])
def test_star_above_write_is_wrong_even_with_authentication(tmp_path, level):
    [finding] = lint(tmp_path, f"SEC_DEFAULT_AUTHENTICATION = REQUIRED\nALLOW_{level} = *\n")
    assert finding.location.line == 2 and level in finding.message


def test_template_star_made_open_by_the_users_line(tmp_path):
    """The template's ALLOW_WRITE = * relies on authentication; the user's OPTIONAL is to blame."""
    [finding] = lint(tmp_path, "use SECURITY : recommended\n", "SEC_DEFAULT_AUTHENTICATION = OPTIONAL\n")
    assert finding.location.file.endswith("02.conf") and finding.location.line == 1
    assert "use SECURITY : recommended" in finding.message and "ALLOW_WRITE" in finding.message


def test_users_own_star_over_a_template(tmp_path):
    [finding] = lint(tmp_path, "use SECURITY : recommended\nALLOW_ADMINISTRATOR = $(ALLOW_ADMINISTRATOR) *\n")
    assert finding.location.line == 2 and "ADMINISTRATOR" in finding.message


def test_claimtobe_and_anonymous(tmp_path):
    findings = lint(tmp_path, "SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE\n"
                              "SEC_READ_AUTHENTICATION_METHODS = FS, ANONYMOUS\n", select=("SEC804",))
    assert [f.location.line for f in findings] == [1]
    assert findings[0].location.column == 42
