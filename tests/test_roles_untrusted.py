"""A pool repository's roles come with the pull request: what its settings, links and templates can make
condorcfg read, list, spend or hide (the red-team review of the roles change, each finding a test)."""
from __future__ import annotations

import gc
import json
import os
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from condorcfg.cli import main
from condorcfg.config import jinja, limits
from condorcfg.lint import project as project_module

GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]
FORMATS = ["text", "json", "sarif", "github", "gitlab", "junit"]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True)


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def outside(tmp_path):
    """A folder beside the repository holding a secret: its name and content must never show."""
    folder = tmp_path / "outside"
    write(folder, {"secret_name_XYZ.conf": "SECRET = s3cr3t-value\n", "sub/other_secret_NAME.conf": "A = 1\n"})
    return folder


@pytest.fixture
def repo(tmp_path, monkeypatch):
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    monkeypatch.chdir(folder)
    for name in list(os.environ):
        if name.startswith(("_CONDOR_", "CONDOR_CONFIG", "PRE_COMMIT")):
            monkeypatch.delenv(name)
    return folder


# --- 1. a folder the view lists that is a link leading out is not listed --------------------------

@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sysroot_folder_that_links_out_is_not_listed(repo, outside, capsys, fmt):
    write(repo, {"common/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\n",
                 ".condorcfg.yaml": "roles:\n  a: {root: common/condor_config, sysroot: host}\n"})
    (repo / "host/etc/condor").mkdir(parents=True)
    (repo / "host/etc/condor/config.d").symlink_to(outside)
    code, out, err = run(capsys, "lint", "--format", fmt)
    assert "secret_name_XYZ" not in out + err and "s3cr3t" not in out + err
    assert "symbolic link leading outside" in out + err
    code, out, err = run(capsys, "value", "SECRET")
    assert code == 1 and "secret_name_XYZ" not in out + err and "s3cr3t" not in out + err


def test_a_folder_inside_a_mount_that_links_out_is_not_listed_even_with_trusted_settings(repo, outside, capsys):
    write(repo, {"common/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\n",
                 "common/config.d/10": "LOCAL_CONFIG_DIR = $(LOCAL_CONFIG_DIR) /etc/condor/config.d/sub\n",
                 ".condorcfg.yaml": "roles:\n  a:\n    root: common/condor_config\n"
                                    "    mounts: {/etc/condor/config.d: common/config.d}\n"})
    commit(repo, "settings")
    (repo / "common/config.d/sub").symlink_to(outside / "sub")
    for argv in (["lint", "--format", "json"], ["lint", "--settings-from", "HEAD"], ["dump"]):
        code, out, err = run(capsys, *argv)
        assert "other_secret_NAME" not in out + err, argv


def test_a_committed_folder_link_named_to_the_hook_is_not_listed(repo, outside, capsys):
    (repo / "condor_config.d").symlink_to(outside)  # (named like configuration: the hook lints it)
    code, out, err = run(capsys, "lint", "--pre-commit", "--format", "json", "--", "condor_config.d")
    assert "secret_name_XYZ" not in out + err and "s3cr3t" not in out + err
    assert "symbolic link leading outside" in out + err


# --- 2 and 3. templates: memory freed, one allowance of work, text and steps per configuration ------

def test_rendering_frees_what_a_template_built_even_with_the_collector_paused():
    template = "{% for k in range(3) %}{% set l = range(20000)|list %}{{ l|length }}{% endfor %}\n"
    was = gc.isenabled()
    gc.disable()  # (as the reader does for a whole load)
    tracemalloc.start()
    try:
        for _ in range(20):
            jinja.render(template, {}, "t.j2")
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        if was:
            gc.enable()
    assert kept < 4 * 1024 * 1024, kept  # (kept before: every list of every render, ~14 MB)


def role_with_templates(repo: Path, templates: dict[str, str]) -> None:
    write(repo, {"common/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\n",
                 ".condorcfg.yaml": "roles:\n  a:\n    root: common/condor_config\n"
                                    "    mounts: {/etc/condor/config.d: t}\n",
                 **{f"t/{name}.j2": text for name, text in templates.items()}})


def test_the_templates_of_one_configuration_share_one_allowance_of_steps(repo, capsys, monkeypatch):
    busy = "{% for i in range(30000) %}{% endfor %}X_{{ n }} = 1\n"
    role_with_templates(repo, {"10": busy.replace("{{ n }}", "1"), "20": busy.replace("{{ n }}", "2")})
    code, out, err = run(capsys, "value", "X_1", "X_2")
    assert code == 0, err
    spent = jinja.render_lines(busy, {"n": 1}, "t.j2")[2]
    monkeypatch.setattr(jinja, "MAX_RENDER_STEPS", spent * 3 // 2)  # one fits, the two together do not
    code, out, err = run(capsys, "value", "X_1", "X_2")
    assert code == 2 and "t/20.j2" in err and "templates together" in err and "Traceback" not in err


def test_the_templates_of_one_configuration_share_one_allowance_of_text(repo, capsys, monkeypatch):
    role_with_templates(repo, {"10": "A = 1\n" + "# padding\n" * 100, "20": "B = 2\n" + "# padding\n" * 100})
    monkeypatch.setattr(jinja, "MAX_TEMPLATE_BYTES", 1500)
    code, out, err = run(capsys, "value", "A")
    assert code == 2 and "more than 1500 characters" in err and "t/20.j2" in err


def test_what_templates_render_is_text_read(repo, capsys, monkeypatch):
    role_with_templates(repo, {str(n): "{% for i in range(2000) %}# a line of padding text\n{% endfor %}"
                               for n in range(3)})
    monkeypatch.setattr(limits, "MAX_TEXT_BYTES", 120_000)  # (each renders ~54 KB)
    code, out, err = run(capsys, "value", "A")
    assert code == 2 and "MAX_TEXT_BYTES" in err and "Traceback" not in err


# --- 4. --settings-from finds the settings along the folders the path names ----------------------

def test_settings_from_a_revision_never_follow_a_committed_link(repo, tmp_path, capsys):
    other = tmp_path / "other"
    write(other, {".condorcfg.yaml": "ignore: [ALL]\n", "x/a.conf": "FOO_NOT_A_KNOB_XYZ = 1\n"})
    git(other, "init", "-q")
    commit(other)
    write(repo, {".condorcfg.yaml": "select: [ALL]\n"})
    (repo / "sub").symlink_to(other / "x")
    commit(repo)
    found = project_module.from_revision("HEAD", repo / "sub" / "a.conf")
    assert found.path == str(repo / ".condorcfg.yaml") and found.select == ["ALL"]


# --- 5. a mount of something that is not there is an error, not a silent nothing --------------------

@pytest.mark.parametrize("mount", ["[common/config.d, roles/cm/conf.d]", "roles/cm/local.conf"])
def test_a_mount_of_a_missing_path_is_refused(repo, capsys, mount):
    write(repo, {"common/condor_config": "X = 1\n", "common/config.d/10": "Y = 1\n",
                 ".condorcfg.yaml": f"roles:\n  cm:\n    root: common/condor_config\n"
                                    f"    mounts: {{/etc/condor/config.d: {mount}}}\n"})
    code, out, err = run(capsys, "lint")
    assert code == 2 and "which does not exist in the project" in err


# --- 6. diff: a revision's roles are its own, their roots found as they are read ------------------

POOL = {"common/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\nNUM_CPUS = 4\n",
        "common/config.d/10": "START = true\n",
        ".condorcfg.yaml": "roles:\n  ep:\n    root: common/condor_config\n"
                           "    mounts: {/etc/condor/config.d: common/config.d}\n"}


def test_diff_of_a_commit_moving_the_root(repo, capsys):
    write(repo, POOL)
    commit(repo)
    git(repo, "mv", "common/condor_config", "common/condor_config.base")
    settings = repo / ".condorcfg.yaml"
    settings.write_text(settings.read_text().replace("common/condor_config", "common/condor_config.base"))
    (repo / "common/condor_config.base").write_text(POOL["common/condor_config"].replace("4", "8"))
    commit(repo, "moved")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads", "--format", "json")
    assert code == 1, err
    [role] = json.loads(out)["roles"]
    assert [(c["name"], c["old"], c["new"]) for c in role["values"]] == [("NUM_CPUS", "4", "8")]


def test_diff_of_a_commit_adding_a_role_with_a_new_root(repo, capsys):
    write(repo, POOL)
    commit(repo)
    write(repo, {"cm/condor_config": "DAEMON_LIST = MASTER, COLLECTOR\n"})
    with open(repo / ".condorcfg.yaml", "a") as handle:
        handle.write("  cm: {root: cm/condor_config}\n")
    commit(repo, "a central manager")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads")
    assert code == 1 and out.startswith("2 roles: role cm added; ep unchanged"), out + err


def test_an_error_in_a_revisions_settings_names_that_revision(repo, capsys):
    write(repo, POOL)
    commit(repo)
    settings = repo / ".condorcfg.yaml"
    good = settings.read_text()
    settings.write_text(good + "bogus: 1\n")
    commit(repo, "broken settings")
    settings.write_text(good)
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD")
    assert code == 2 and "HEAD:.condorcfg.yaml" in err and "bogus" in err


# --- 7. bad paths in settings: a diagnostic, never a traceback ---------------------------------------

@pytest.mark.parametrize("settings", [
    'roles:\n  a: {root: "common/\\0"}\n',
    'roles:\n  a: {root: common/condor_config, sysroot: "x\\0"}\n',
    'roles:\n  a: {root: common/condor_config, mounts: {/etc/condor/config.d: ["c\\0"]}}\n',
])
@pytest.mark.parametrize("argv", [["lint"], ["value", "X"], ["diff", "HEAD", "HEAD"]])
def test_a_nul_in_a_path_setting_is_a_diagnostic(repo, capsys, settings, argv):
    write(repo, {"common/condor_config": "X = 1\n", ".condorcfg.yaml": settings})
    commit(repo)
    code, out, err = run(capsys, *argv)
    assert code == 2 and "NUL" in err and "Traceback" not in err


# --- lesser: links, templates nobody mounts, messages ----------------------------------------------

def test_a_checkout_reached_through_a_link_finds_its_settings(repo, tmp_path, capsys):
    write(repo, {".condorcfg.yaml": "ignore: [CFG113]\n", "etc/condor_config": "X = 1\n"})
    (tmp_path / "repo-link").symlink_to(repo)
    assert project_module.governing_file(tmp_path / "repo-link/etc/condor_config") == \
        tmp_path / "repo-link/.condorcfg.yaml"


def test_a_template_no_role_mounts_is_not_linted_as_configuration(repo, capsys):
    write(repo, POOL)
    write(repo, {"other/config.d/50.conf.j2": "{% if x %}\nA = 1\n{% endif %}\n"})
    commit(repo)
    code, out, err = run(capsys, "lint", "--pre-commit", "--", "other/config.d/50.conf.j2")
    assert code == 0 and "not linted" in err and "CFG007" not in out


def test_a_settings_file_that_links_out_is_refused_unread(repo, tmp_path, capsys):
    secret = tmp_path / "secret.yaml"
    secret.write_text("target-version: SECRET_VALUE_123\n")
    (repo / ".condorcfg.yaml").symlink_to(secret)
    code, out, err = run(capsys, "lint", "x.conf")
    assert code == 2 and "SECRET_VALUE" not in out + err and "symbolic link leading outside" in err
