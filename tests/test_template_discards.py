"""TPL704: a setting a later `use` template sets again has no effect; its message's facts are HTCondor's."""
from __future__ import annotations

import pytest

from condorcfg.lint import engine

CASES = [
    ("ALLOW_WRITE = *.example.org\nuse SECURITY : recommended\n", "ALLOW_WRITE", "*.example.org"),
    ("SEC_DEFAULT_ENCRYPTION = OPTIONAL\nuse SECURITY : recommended\n", "SEC_DEFAULT_ENCRYPTION", "OPTIONAL"),
    ("START = KeyboardIdle > 600\nuse POLICY : Always_Run_Jobs\n", "START", "KeyboardIdle > 600"),
]


@pytest.mark.oracle
@pytest.mark.parametrize("text, knob, written", CASES)
def test_what_it_reports_is_what_htcondor_reads(tmp_path, oracle, text, knob, written):
    """HTCondor's value is the template's, not the line's; the finding names the template's value."""
    expected = oracle.config_values(text, [knob])
    assert expected["error"] is None, expected["error"]
    value = expected["expect"][knob]
    assert value is not None and value.strip() != written
    path = tmp_path / "condor_config"
    path.write_text(text)
    [finding] = [f for f in engine.lint(str(path), whole=True) if f.code == "TPL704"]
    assert finding.location.line == 1 and f"`{' '.join(value.split())}`" in finding.message


@pytest.mark.parametrize("text", [
    "use SECURITY : recommended\nALLOW_WRITE = *.example.org\n",  # after the template: it wins
    "DAEMON_LIST = MASTER\nuse ROLE : Execute\n",  # the template extends the value
    "ALLOW_WRITE = *\nuse SECURITY : recommended\n",  # the template sets the same value
    "ALLOW_WRITE = a\nuse SECURITY : recommended\nALLOW_WRITE = b\n",  # a later line decides anyway
])
def test_what_it_does_not_report(tmp_path, text):
    path = tmp_path / "condor_config"
    path.write_text(text)
    assert not [f for f in engine.lint(str(path), whole=True) if f.code == "TPL704"]
