"""Issue 27: what the SEC and UPG rules say about authorization is HTCondor's behaviour, from one place.

The facts (condorcfg/lint/authorization.py, with the source they come from): since 9.0 a permission
level without an ALLOW list refuses everyone (IpVerify::Init), READ and WRITE are then granted only
through the levels that imply them (DCpermissionHierarchy), HOSTALLOW_*/HOSTDENY_* are not read, and
ALLOW_<LEVEL>_<SUBSYS> is the <LEVEL> list of the <SUBSYS> daemon (SecMan::getSecSetting).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
RULES = load_rules([ROOT / "rules"])


def lint(tmp_path, text, select=("UPG", "SEC")):
    path = tmp_path / "condor_config"
    path.write_text(text)
    findings = engine.run(str(path), settings=engine.LintSettings(select=list(select)), ruleset=RULES,
                          whole=True).findings
    assert not [f for f in findings if f.rule == engine.INTERNAL_ERROR]
    return findings


def codes(findings):
    return sorted(f.code for f in findings)


# ---------------------------------------------------------------- the facts, in one module

def test_every_level_without_an_allow_list_denies_since_9_0():
    from condorcfg.lint import authorization

    for level in authorization.LEVELS:
        assert authorization.default_for(level) == "deny", level
        assert authorization.default_for(level, "25.14.1") == "deny", level
        assert authorization.default_for(level, "9.0.0") == "deny", level
    assert authorization.default_for("ALLOW") == "allow"  # (the internal level: always granted)


def test_before_9_0_only_config_denied_by_default():
    from condorcfg.lint import authorization

    assert authorization.default_for("ADMINISTRATOR", "8.8.17") == "allow"
    assert authorization.default_for("WRITE", "8.8") == "allow"
    assert authorization.default_for("CONFIG", "8.8.17") == "deny"
    assert authorization.default_for("OWNER", "8.8") == "allow"


def test_owner_is_no_level_from_10_0_on():
    from condorcfg.lint import authorization

    assert not authorization.is_level("OWNER") and not authorization.is_level("OWNER", "10.0.9")
    assert authorization.is_level("OWNER", "9.0.0")
    with pytest.raises(ValueError):
        authorization.default_for("OWNER", "25.14.1")


def test_which_levels_imply_which():
    from condorcfg.lint import authorization

    assert set(authorization.implied_by("WRITE")) == {"ADMINISTRATOR", "DAEMON"}
    assert set(authorization.implied_by("READ")) == {"WRITE", "NEGOTIATOR", "CONFIG", "ADVERTISE_STARTD",
                                                     "ADVERTISE_SCHEDD", "ADVERTISE_MASTER"}
    assert set(authorization.granted_through("READ")) >= {"ADMINISTRATOR", "DAEMON", "WRITE"}
    assert set(authorization.implies("ADMINISTRATOR")) == {"WRITE", "READ"}
    assert set(authorization.implies("NEGOTIATOR")) == {"READ"}
    assert authorization.implied_by("ADMINISTRATOR") == () and authorization.implied_by("DAEMON") == ()


def test_where_a_daemon_looks_its_lists_up():
    from condorcfg.lint import authorization

    assert authorization.lookup_levels("ADVERTISE_STARTD") == ("ADVERTISE_STARTD", "DAEMON", "DEFAULT")
    assert authorization.lookup_levels("DAEMON") == ("DAEMON", "DEFAULT")
    assert authorization.lookup_levels("DAEMON", legacy=True) == ("DAEMON", "WRITE", "DEFAULT")
    assert authorization.lookup_levels("ADMINISTRATOR") == ("ADMINISTRATOR", "DEFAULT")
    # ALLOW_NEGOTIATOR_SCHEDD is the first list the schedd reads for NEGOTIATOR (SecMan::getSecSetting)
    assert authorization.lookup_knobs("NEGOTIATOR", "SCHEDD") == [
        "ALLOW_NEGOTIATOR_SCHEDD", "SCHEDD.ALLOW_NEGOTIATOR", "ALLOW_NEGOTIATOR",
        "ALLOW_DEFAULT_SCHEDD", "SCHEDD.ALLOW_DEFAULT", "ALLOW_DEFAULT"]


def test_a_knob_name_says_its_level_and_daemon():
    from condorcfg.lint import authorization

    found = authorization.parse_knob("HOSTALLOW_NEGOTIATOR_SCHEDD")
    assert (found.kind, found.level, found.daemon) == ("HOSTALLOW", "NEGOTIATOR", "SCHEDD")
    found = authorization.parse_knob("ALLOW_ADVERTISE_STARTD")
    assert (found.kind, found.level, found.daemon) == ("ALLOW", "ADVERTISE_STARTD", None)
    found = authorization.parse_knob("COLLECTOR.DENY_WRITE")
    assert (found.kind, found.level, found.daemon) == ("DENY", "WRITE", "COLLECTOR")
    assert authorization.parse_knob("ALLOW_OWNER").level is None
    assert authorization.parse_knob("ALLOW_OWNER", "9.0").level == "OWNER"
    assert authorization.parse_knob("ALLOW_SUBMIT_FROM_KNOWN_USERS_ONLY").level is None
    assert authorization.parse_knob("START") is None


def test_the_checks_take_levels_from_the_module():
    """No SEC/UPG check keeps its own list of levels or its own idea of the default."""
    for name in ("sec.py", "upg.py"):
        text = (ROOT / "condorcfg" / "lint" / "checks" / name).read_text()
        assert "ADVERTISE_STARTD" not in text and "ADVERTISE_MASTER" not in text, name
        assert not re.search(r"open to anyone|allow anyone", text, re.IGNORECASE), name


def test_htcondor_has_no_builtin_allow_list_but_client(oracle):
    """What the daemons find when the configuration writes no ALLOW list: nothing, except ALLOW_CLIENT = *."""
    from condorcfg.lint import authorization

    knobs = [f"ALLOW_{level}" for level in authorization.LEVELS] + ["HOSTALLOW_ADMINISTRATOR"]
    result = oracle.config_values("HOSTALLOW_READ_X = 1\n", knobs)
    assert result["error"] is None, result["error"]
    found = {knob: value for knob, value in result["expect"].items() if value}
    assert found == {f"ALLOW_{level}": value for level, value in authorization.BUILTIN_ALLOW.items()}


# ---------------------------------------------------------------- UPG901 / UPG905: what ignoring HOSTALLOW_* costs

def test_ignored_hostallow_administrator_star_becomes_deny_all(tmp_path):
    [finding] = lint(tmp_path, "HOSTALLOW_ADMINISTRATOR = *\n")
    assert finding.code == "UPG901" and finding.severity == "error"
    assert "open to anyone" not in finding.message
    assert "refused to everyone" in finding.message and "allowed to everyone" in finding.message
    assert "condor_off" in finding.message and "condor_reconfig" in finding.message


def test_ignored_hostallow_read_star_is_lost_not_harmless(tmp_path):
    """8.8 read `HOSTALLOW_READ = *` as "anyone may read"; 9.0 and later, without ALLOW_READ, grant READ only
    through the levels that imply it."""
    [finding] = lint(tmp_path, "HOSTALLOW_READ = *\n")
    assert finding.code == "UPG901"
    assert "only to the identities" in finding.message and "ALLOW_WRITE" in finding.message
    assert "changes nothing" not in finding.message


def test_hostallow_negotiator_schedd_is_the_schedds_negotiator_list(tmp_path):
    [finding] = lint(tmp_path, "HOSTALLOW_NEGOTIATOR_SCHEDD = cm.example.org\n")
    assert finding.code == "UPG901" and "schedd" in finding.message and "NEGOTIATOR" in finding.message
    assert "open to anyone" not in finding.message
    assert finding.fix.startswith("rename it to ALLOW_NEGOTIATOR_SCHEDD (the NEGOTIATOR list of the schedd)")
    # with a list the schedd does read for NEGOTIATOR, the line loses nothing: it is dead
    [finding] = lint(tmp_path, "HOSTALLOW_NEGOTIATOR_SCHEDD = cm.example.org\nALLOW_NEGOTIATOR = cm.example.org\n")
    assert finding.code == "UPG905" and "ALLOW_NEGOTIATOR" in finding.message


@pytest.mark.parametrize("text", ["HOSTALLOW_WRITE =\n", "HOSTALLOW_ADMINISTRATOR =\n", "HOSTDENY_READ =\n"])
def test_an_empty_hostallow_line_is_info_at_most(tmp_path, text):
    findings = lint(tmp_path, text)
    assert [(f.code, f.severity) for f in findings] == [("UPG905", "info")]
    assert "empty" in findings[0].message


def test_hostdeny_of_a_level_that_refuses_everyone_anyway_loses_nothing(tmp_path):
    [finding] = lint(tmp_path, "HOSTDENY_DAEMON = bad.example.org\n")
    assert (finding.code, finding.severity) == ("UPG905", "info")
    [finding] = lint(tmp_path, "HOSTDENY_WRITE = bad.example.org\nALLOW_WRITE = *.example.org\n", select=("UPG",))
    assert finding.code == "UPG901" and "ALLOW_WRITE" in finding.message


def test_debatable_rules_are_info_and_say_why():
    by_code = {rule.code: rule for rule in RULES}
    assert by_code["UPG905"].severity == "info" and "change nothing" in by_code["UPG905"].rationale
    assert by_code["UPG903"].severity == "info"
    assert "SubmitHash::init_base_ad" in by_code["UPG903"].rationale  # condor_submit still reads SUBMIT_EXPRS
    assert by_code["UPG901"].severity == "error"
    assert "open to anyone" not in by_code["UPG901"].rationale


def test_startd_vm_exprs_is_not_called_still_merged(tmp_path):
    findings = lint(tmp_path, "STARTD_VM_EXPRS = HasSSD\nHasSSD = true\n", select=("UPG",))
    assert codes(findings) == ["UPG904"] and "do not read it" in findings[0].message


# ---------------------------------------------------------------- the SEC rules agree

def test_no_sec_or_upg_message_says_a_missing_list_opens_a_level(tmp_path):
    text = ("DAEMON_LIST = MASTER, SCHEDD, COLLECTOR\nHOSTALLOW_WRITE = *.example.org\nHOSTDENY_READ = x.example.org\n"
            "HOSTALLOW_CONFIG = cm.example.org\nALLOW_READ = *\n")
    findings = lint(tmp_path, text)
    assert {"UPG901", "SEC809"} <= set(codes(findings))
    for finding in findings:
        assert not re.search(r"open to anyone|allow(s|ed)? anyone|is open", finding.message), finding.message


def test_allow_owner_is_no_permission_list(tmp_path):
    assert lint(tmp_path, "ALLOW_OWNER = *\n", select=("SEC801",)) == []


def test_allow_default_reaches_the_advertise_levels(tmp_path):
    """ADVERTISE_* fall back to DAEMON, then DEFAULT: with ALLOW_DEFAULT the collector has a list (SEC806)."""
    assert lint(tmp_path, "ALLOW_WRITE = *.example.org\nALLOW_DEFAULT = condor@example.org\n",
                select=("SEC806",)) == []
    [finding] = lint(tmp_path, "ALLOW_WRITE = *.example.org\n", select=("SEC806",))
    assert "refuses" in finding.message
