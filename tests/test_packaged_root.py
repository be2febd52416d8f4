"""The packaged root configuration (condorcfg.config.packaged): HTCondor's own /etc/condor/condor_config
of each release series, shipped as data, chosen by release, and read by condorcfg as HTCondor reads it."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import condorcfg
from condorcfg import releases
from condorcfg.config import packaged
from condorcfg.diagnostics import CondorcfgError

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "templates" / "packaged"
ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=", re.M)


def _series_of_releases() -> list[str]:
    return sorted({r.rsplit(".", 1)[0] for r in releases.known()}, key=lambda s: tuple(map(int, s.split("."))))


def test_series_come_from_the_files_and_cover_every_known_release_series():
    on_disk = {flavor: sorted((p.name.removeprefix("condor_config-") for p in (FOLDER / flavor).iterdir()
                               if p.name.startswith("condor_config-")), key=lambda s: tuple(map(int, s.split("."))))
               for flavor in packaged.FLAVORS}
    assert packaged.SERIES == on_disk["rpm"] == on_disk["debian"]
    assert packaged.SERIES == _series_of_releases()


@pytest.mark.parametrize("flavor", packaged.FLAVORS)
@pytest.mark.parametrize("series", packaged.SERIES)
def test_every_series_file_is_found(series, flavor):
    text, label = packaged.packaged_root(series, flavor)
    assert text.encode("utf-8") == (FOLDER / flavor / f"condor_config-{series}").read_bytes()
    assert label == (f"<packaged {series} /etc/condor/condor_config>" if flavor == "rpm"
                     else f"<packaged {series} debian /etc/condor/condor_config>")
    # what every package's root file says (whatever else changed between series)
    assert "LOCAL_CONFIG_DIR = /usr/share/condor/config.d,/etc/condor/config.d\n" in text
    assert "LOCAL_CONFIG_FILE = /etc/condor/condor_config.local\n" in text
    assert "RELEASE_DIR = /usr\n" in text and "LOCAL_DIR = /var\n" in text


def test_files_match_the_recorded_provenance():
    """README.md records each file's SHA-256 (and where it comes from); the files have not drifted."""
    readme = (FOLDER / "README.md").read_text()
    recorded = dict(re.findall(r"^\| ((?:rpm|debian)/condor_config-[\d.]+)\s*\| `([0-9a-f]{64})` \|$", readme, re.M))
    present = {f"{flavor}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest()
               for flavor in packaged.FLAVORS for p in (FOLDER / flavor).iterdir()}
    assert recorded == present


def test_the_series_differences():
    def assigned(series, flavor="rpm"):
        return set(ASSIGNMENT.findall(packaged.packaged_root(series, flavor)[0]))

    assert "PROCD_ADDRESS" in assigned("10.0") and "PROCD_ADDRESS" not in assigned("23.0")
    assert "SINGULARITY" not in assigned("10.0") and "SINGULARITY" in assigned("23.0")
    assert "ETC" not in assigned("23.0") and "ETC" in assigned("23.10")
    assert "AUTH_SSL_CLIENT_CAFILE" in assigned("23.0", "debian") and "AUTH_SSL_CLIENT_CAFILE" not in assigned(
        "23.10", "debian")
    for flavor in packaged.FLAVORS:
        newest = packaged.packaged_root("25.14", flavor)[0]
        assert all(packaged.packaged_root(s, flavor)[0] == newest for s in ("23.10", "24.0", "24.12", "25.0"))
    # no security template in the root file: the packages put that in config.d
    assert not any(re.search(r"^\s*use\b", packaged.packaged_root(s, f)[0], re.M | re.I)
                   for s in packaged.SERIES for f in packaged.FLAVORS)


@pytest.mark.parametrize("release, series", [
    (None, "25.14"), ("25.14.1", "25.14"), ("25.14", "25.14"), ("v25.0", "25.0"), ("25.0.14", "25.0"),
    ("24.12", "24.12"), ("24.0.24", "24.0"), ("23.10", "23.10"), ("23.0", "23.0"), ("10.0.9", "10.0"),
])
def test_release_chooses_series(release, series):
    assert packaged.series_for(release) == series
    assert packaged.packaged_root(release)[1] == f"<packaged {series} /etc/condor/condor_config>"


def test_a_release_without_its_own_file_gets_the_newest_older_one(monkeypatch):
    known = releases.known()
    monkeypatch.setattr(releases, "known", lambda: [*known, "24.6.1", "26.0.1"])
    assert packaged.series_for("24.6") == "24.0"
    assert packaged.series_for("26.0.1") == "25.14"
    assert packaged.packaged_root("26.0", "debian")[1] == "<packaged 25.14 debian /etc/condor/condor_config>"


def test_a_release_older_than_any_shipped_is_a_clear_error(monkeypatch):
    known = releases.known()
    monkeypatch.setattr(releases, "known", lambda: ["9.0.20", *known])
    with pytest.raises(CondorcfgError, match=r"no packaged /etc/condor/condor_config is shipped for HTCondor "
                                             r"9\.0\.20 \(rpm\): the oldest shipped series is 10\.0") as caught:
        packaged.packaged_root("9.0")
    assert caught.value.diagnostic.code == "packaged-root"


@pytest.mark.parametrize("release", ["8.8", "no-such", "99.1"])
def test_an_unknown_release_is_a_clear_error(release):
    with pytest.raises(CondorcfgError, match="no tables for HTCondor"):
        packaged.packaged_root(release)


def test_an_unknown_flavor_is_a_clear_error():
    with pytest.raises(CondorcfgError, match="flavor 'suse'"):
        packaged.packaged_root("25.0", "suse")


def test_packaged_files_are_not_use_templates():
    from condorcfg.config import templates

    assert "PACKAGED" not in templates.categories()
    assert not [name for category in templates.categories() for name in templates.template_names(category)
                if name.lower().startswith("condor_config")]


# ---- differential: condorcfg and HTCondor 25.14.1 read each packaged file the same way ----

# Knobs whose built-in defaults are computed from what the root file sets (the file's own knobs are added).
DERIVED = ["MASTER_LOG", "SCHEDD_LOG", "HISTORY", "JOB_QUEUE_LOG", "PROCD_ADDRESS", "MASTER", "STARTD", "SCHEDD",
           "SHADOW", "STARTER", "SEC_PASSWORD_DIRECTORY", "SEC_PASSWORD_FILE", "SEC_TOKEN_SYSTEM_DIRECTORY",
           "SEC_TOKEN_POOL_SIGNING_KEY_FILE", "SHARED_PORT_DAEMON_AD_FILE", "LOCAL_UNIV_EXECUTE",
           "FILETRANSFER_PLUGINS", "CRED_STORE_DIR", "AUTH_SSL_SERVER_CAFILE", "AUTH_SSL_CLIENT_CAFILE",
           "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP", "SEC_DEFAULT_AUTHENTICATION_METHODS", "USER_CONFIG_FILE", "DAEMON_LIST",
           "GANGLIA_LIB64_PATH"]
# Host-dependent: CONFIG_ROOT is the folder of the root file as read (a temporary copy for HTCondor, the target
# host's /etc/condor for condorcfg's repository read), so it is not compared.
IGNORED = {"CONFIG_ROOT"}
# What the packaged file makes HTCondor read next; they must not exist here, or the oracle would read them.
HOST_PATHS = ["/etc/condor/condor_config.local", "/etc/condor/config.d", "/usr/share/condor/config.d"]


@pytest.mark.oracle
@pytest.mark.parametrize("flavor", packaged.FLAVORS)
@pytest.mark.parametrize("series", packaged.SERIES)
def test_packaged_root_reads_like_htcondor(oracle, tmp_path, series, flavor):
    present = [p for p in HOST_PATHS if os.path.exists(p)]
    if present:
        pytest.skip(f"this host has {', '.join(present)}: HTCondor would read them after the packaged file")
    text, _ = packaged.packaged_root(series, flavor)
    copy = tmp_path / "condor_config"
    copy.write_bytes(text.encode("utf-8"))  # byte-identical temporary copy as CONDOR_CONFIG
    knobs = sorted((set(ASSIGNMENT.findall(text)) | set(DERIVED)) - IGNORED)
    assert {"LOCAL_CONFIG_FILE", "LOCAL_CONFIG_DIR", "REQUIRE_LOCAL_CONFIG_FILE", "SPOOL", "LIB"} <= set(knobs)

    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env.update(CONDOR_CONFIG=str(copy), HOME=str(tmp_path))  # no user_config either
    proc = subprocess.run([sys.executable, "-c", oracle.config_child(), json.dumps(knobs)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-400:]
    theirs = json.loads(proc.stdout)

    sysroot = tmp_path / "host"  # an empty target host: nothing LOCAL_CONFIG_FILE/DIR names exists
    sysroot.mkdir()
    config = condorcfg.load(str(copy), mode="repository", sysroot=str(sysroot), environ={})
    ours = {knob: config.value(knob) for knob in knobs}

    assert ours == theirs
    # and the values are the packaged ones, not built-in defaults
    assert theirs["LOCAL_CONFIG_DIR"] == "/usr/share/condor/config.d,/etc/condor/config.d"
    assert theirs["LOCAL_CONFIG_FILE"] == "/etc/condor/condor_config.local"
    assert theirs["REQUIRE_LOCAL_CONFIG_FILE"] == "false"
    assert theirs["SPOOL"] == ("/var/lib/condor/spool" if flavor == "rpm" else "/var/spool/condor")
