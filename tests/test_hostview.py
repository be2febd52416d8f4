"""The host's file tree as a pool repository assembles it (condorcfg.config.hostview), the `roles` settings
that build it (condorcfg.lint.project) and how the reader reads through it, with HTCondor as the oracle for
the order of the local files."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import condorcfg
from condorcfg import roles
from condorcfg.config.hostview import HostView, Mount, host_folder_of, host_key, root_path_in
from condorcfg.diagnostics import CondorcfgError
from condorcfg.lint import project as project_module
from condorcfg.machine import MachineProfile


PROFILE = MachineProfile(hostname="node1.example.org", cpus=4, memory=8192, ip="10.0.0.5")


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# --- the view on its own -------------------------------------------------------------------------

def test_a_folder_mount_assembles_folders_in_order_and_the_later_wins(tmp_path):
    write(tmp_path, {"common/10-a": "", "common/20-b": "", "role/20-b": "", "role/30-c.j2": ""})
    view = HostView(mounts=[Mount("/etc/condor/config.d", [str(tmp_path / "common"), str(tmp_path / "role")])])
    assert sorted(view.listing("/etc/condor/config.d")) == ["10-a", "20-b", "30-c"]
    assert view.locate("/etc/condor/config.d/20-b") == str(tmp_path / "role/20-b")
    assert view.locate("/etc/condor/config.d/10-a") == str(tmp_path / "common/10-a")
    assert view.locate("/etc/condor/config.d/30-c") == str(tmp_path / "role/30-c.j2")
    assert view.renders(str(tmp_path / "role/30-c.j2")) and not view.renders(str(tmp_path / "common/10-a"))
    assert view.listing("/etc/condor/other") is None
    assert view.locate("/etc/passwd") == "/etc/passwd"  # (not covered: read as it is, i.e. outside)


def test_file_mounts_rename_removals_win_and_the_sysroot_gives_the_rest(tmp_path):
    write(tmp_path, {"variants/local.uaf": "", "sys/etc/condor/config.d/00-packaged": "",
                     "sys/etc/condor/config.d/50-site": "", "sys/etc/condor/other": ""})
    view = HostView(sysroot=str(tmp_path / "sys"),
                    mounts=[Mount("/etc/condor/config.d/91_local.config", [str(tmp_path / "variants/local.uaf")],
                                  False)],
                    removed=["/etc/condor/config.d/00-packaged"])
    assert sorted(view.listing("/etc/condor/config.d")) == ["50-site", "91_local.config"]
    assert view.locate("/etc/condor/config.d/91_local.config") == str(tmp_path / "variants/local.uaf")
    assert view.locate("/etc/condor/config.d/00-packaged") is None
    assert view.locate("//etc/condor/./other") == str(tmp_path / "sys/etc/condor/other")


def test_the_innermost_mount_decides(tmp_path):
    write(tmp_path, {"outer/d/x": "", "inner/x": "", "inner/y": ""})
    view = HostView(mounts=[Mount("/etc/condor", [str(tmp_path / "outer")]),
                            Mount("/etc/condor/d", [str(tmp_path / "inner")])])
    assert sorted(view.listing("/etc/condor/d")) == ["x", "y"]
    assert view.locate("/etc/condor/d/x") == str(tmp_path / "inner/x")


def test_host_paths_and_root_places():
    assert host_key("etc//condor/../condor/config.d/") == "/etc/condor/config.d"
    assert host_folder_of("/r/hosts/cm/etc/condor/condor_config") == "/r/hosts/cm"
    assert host_folder_of("/r/common/condor_config") is None
    assert root_path_in("/r/etc/condor/condor_config", "/r") == "/etc/condor/condor_config"
    assert root_path_in("/elsewhere/condor_config", "/r") is None


def test_listing_and_locating_agree_on_random_layouts(tmp_path):
    """What a listing names is what locating finds: seeded layouts of mounted folders, names in several
    folders, templates, removals."""
    rng = random.Random(26)
    for case in range(40):
        base = tmp_path / f"c{case}"
        folders = [base / f"f{i}" for i in range(rng.randint(1, 4))]
        files: dict[str, str] = {}
        for folder in folders:
            folder.mkdir(parents=True)
            for name in rng.sample(["10-a", "20-b", "30-c", "40-d", "50-e.j2"], rng.randint(0, 4)):
                files[str(folder / name)] = f"{folder.name}/{name}"
                (folder / name).write_text(files[str(folder / name)])
        removed = rng.sample(["/h/10-a", "/h/30-c", "/h/zz"], rng.randint(0, 2))
        view = HostView(mounts=[Mount("/h", [str(f) for f in folders])], removed=removed)
        names = view.listing("/h") or []
        for name in names:
            found = view.locate(f"/h/{name}")
            assert found is not None and os.path.isfile(found), (case, name)
            later = [f for f in folders if (f / name).exists() or (f / (name + ".j2")).exists()]
            assert Path(found).parent == later[-1], (case, name)  # the last folder holding it wins
        assert not set(names) & {r.rsplit("/", 1)[1] for r in removed}


# --- roles in the project settings ---------------------------------------------------------------

POOL = {
    "common/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\nLOCAL_CONFIG_FILE = /etc/condor/local\n"
                            "REQUIRE_LOCAL_CONFIG_FILE = false\n",
    "common/config.d/10-pool": "ORDER = $(ORDER) common10\nWHO = common\n",
    "common/config.d/20-site": "ORDER = $(ORDER) common20\n",
    "roles/ep/config.d/20-site": "ORDER = $(ORDER) ep20\n",
    "roles/ep/config.d/30-ep.j2": "ORDER = $(ORDER) ep30\nGPUS = {{ gpus }}\n{% if primary %}PRIMARY = yes\n{% endif %}",
    "roles/ep/local": "ORDER = $(ORDER) local\nLOCAL_CONFIG_DIR = $(LOCAL_CONFIG_DIR) /etc/condor/late.d\n",
    "roles/ep/late.d/90-late": "ORDER = $(ORDER) late\n",
}
SETTINGS = """roles:
  ep:
    root: common/condor_config
    mounts:
      /etc/condor/config.d: [common/config.d, roles/ep/config.d]
      /etc/condor/local: roles/ep/local
      /etc/condor/late.d: roles/ep/late.d
    vars: {gpus: 2, primary: false}
    hosts:
      ep01: {vars: {primary: true}}
      ep02: {}
  cm:
    root: common/condor_config
    mounts: {/etc/condor/config.d: common/config.d}
    removed: [/etc/condor/config.d/20-site]
    version: "24.0"
"""


def pool(tmp_path: Path, settings: str = SETTINGS):
    write(tmp_path, {**POOL, ".condorcfg.yaml": settings})
    return project_module.load(tmp_path / ".condorcfg.yaml")


def test_a_role_reads_its_mounts_in_htcondors_order(tmp_path):
    project = pool(tmp_path)
    assert [r.name for r in project.all_roles()] == ["ep@ep01", "ep@ep02", "cm"]
    ep01, ep02, cm = project.all_roles()
    config = roles.read(ep01, project, machine=PROFILE)
    # config.d over the assembled set, the later folder's 20-site, the template rendered, then the local file,
    # then LOCAL_CONFIG_DIR again as the local file changed it (HTCondor reads it whole: config.d twice)
    assert config.value("ORDER").split() == ["common10", "ep20", "ep30", "local", "common10", "ep20", "ep30", "late"]
    assert config.value("GPUS") == "2" and config.value("PRIMARY") == "yes"
    assert roles.read(ep02, project, machine=PROFILE).value("PRIMARY") is None
    assert config.value("CONFIG_ROOT") == "/etc/condor"  # the root's folder as the host sees it
    assert any(f.endswith("30-ep.j2") for f in config.files)
    cm_config = roles.read(cm, project, machine=PROFILE)
    assert cm_config.value("ORDER").split() == ["common10"]  # 20-site removed
    assert cm.version.startswith("24.0")


@pytest.mark.oracle
@pytest.mark.parametrize("local_dir, order", [
    ("$(LOCAL_CONFIG_DIR) {DIR}/e", "main a b lf a b e"),  # the changed value is read whole: d again, then e
    ("{DIR}/e", "main a b lf e"),
])
def test_the_local_file_order_agrees_with_htcondor(tmp_path, oracle, local_dir, order):
    """LOCAL_CONFIG_DIR is read before LOCAL_CONFIG_FILE, and when the local file changes LOCAL_CONFIG_DIR
    the new value is read after it: the same as HTCondor 25, on a real host tree."""
    text = "ORDER = main\nLOCAL_CONFIG_DIR = {DIR}/d\nLOCAL_CONFIG_FILE = {DIR}/lf\n"
    files = {"d/20-b": "ORDER = $(ORDER) b\n", "d/10-a": "ORDER = $(ORDER) a\n",
             "lf": f"ORDER = $(ORDER) lf\nLOCAL_CONFIG_DIR = {local_dir}\n", "e/10-x": "ORDER = $(ORDER) e\n"}
    expected = oracle.config_values(text, ["ORDER"], files)
    assert expected["error"] is None, expected["error"]
    write(tmp_path, {name: body.replace("{DIR}", str(tmp_path)) for name, body in files.items()})
    (tmp_path / "condor_config").write_text(text.replace("{DIR}", str(tmp_path)))
    config = condorcfg.load([str(tmp_path / "condor_config")], machine=PROFILE, environ={})
    assert config.value("ORDER") == expected["expect"]["ORDER"] == order


def test_a_packaged_root_is_the_shipped_file_of_the_roles_release(tmp_path):
    project = pool(tmp_path, "roles:\n  ep:\n    root: packaged\n    version: '24.0'\n"
                             "    mounts: {/etc/condor/config.d: [common/config.d]}\n")
    role = project.all_roles()[0]
    config = roles.read(role, project, machine=PROFILE)
    assert config.files[0] == "<packaged 24.0 /etc/condor/condor_config>"
    assert config.value("WHO") == "common" and config.value("CONFIG_ROOT") == "/etc/condor"


def test_the_sysroot_of_a_root_kept_at_a_hosts_place(tmp_path):
    """`roots` + `sysroot: .`: a root at hosts/cm/etc/condor/condor_config is the central manager's, and
    reads hosts/cm/etc/condor/config.d, not the sysroot's etc/condor/config.d."""
    write(tmp_path, {"etc/condor/condor_config": "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\n",
                     "etc/condor/config.d/10": "WHO = ep\n",
                     "hosts/cm/etc/condor/condor_config": "LOCAL_CONFIG_DIR = /etc/condor/config.d\n",
                     "hosts/cm/etc/condor/config.d/10-cm": "WHO = cm\n",
                     ".condorcfg.yaml": "roots: [etc/condor/condor_config, hosts/cm/etc/condor/condor_config]\n"
                                        "sysroot: .\n"})
    project = project_module.load(tmp_path / ".condorcfg.yaml")
    ep, cm = project.all_roles()
    assert roles.read(ep, project, machine=PROFILE).value("WHO") == "ep"
    assert roles.read(cm, project, machine=PROFILE).value("WHO") == "cm"


@pytest.mark.parametrize("settings, message", [
    ("roles: [a]\n", "must map role names"),
    ("roles:\n  ep: {}\n", "needs a `root`"),
    ("roles:\n  ep: {root: common/condor_config, colour: red}\n", "unknown setting 'colour'"),
    ("roles:\n  ep: {root: ../../etc/passwd}\n", "leads outside the project folder"),
    ("roles:\n  ep: {root: common/condor_config, mounts: {etc/condor: common}}\n", "absolute host path"),
    ("roles:\n  ep: {root: common/condor_config, mounts: {/etc/condor/config.d: [/etc]}}\n", "leads outside"),
    ("roles:\n  ep: {root: common/condor_config, removed: [relative]}\n", "absolute host paths"),
    ("roles:\n  ep: {root: common/condor_config, version: '1.0'}\n", "role 'ep': version"),
    ("roles:\n  'bad name': {root: common/condor_config}\n", "role name"),
    ("roots: [common/condor_config]\nroles:\n  ep: {root: common/condor_config}\n", "cannot both be set"),
    ("roles:\n  ep: {root: packaged, version: '10.0', mounts: {}}\n  cm: {root: 'packaged:solaris'}\n", "flavor"),
])
def test_settings_that_cannot_be_used_say_why(tmp_path, settings, message):
    with pytest.raises(CondorcfgError) as info:
        pool(tmp_path, settings)
    assert message in info.value.diagnostic.message
    assert info.value.diagnostic.location.file.endswith(".condorcfg.yaml")


def test_a_role_setting_error_points_at_its_role(tmp_path):
    with pytest.raises(CondorcfgError) as info:
        pool(tmp_path, "select: [ALL]\nroles:\n  cm:\n    root: common/condor_config\n  ep:\n    root: nope\n"
                       "    colour: red\n")
    assert info.value.diagnostic.location.line == 5 and "role 'ep'" in info.value.diagnostic.message


def test_role_choice(tmp_path):
    project = pool(tmp_path)
    assert [r.name for r in roles.chosen(project, ["ep"])] == ["ep@ep01", "ep@ep02"]
    assert [r.name for r in roles.chosen(project, ["cm", "ep@ep02"])] == ["cm", "ep@ep02"]
    with pytest.raises(CondorcfgError) as info:
        roles.chosen(project, ["nope"])
    assert "ep@ep01, ep@ep02, cm" in info.value.diagnostic.message


def test_a_template_that_cannot_be_rendered_is_unusable_input(tmp_path, capsys):
    from condorcfg.cli import main

    project = pool(tmp_path)
    (tmp_path / "roles/ep/config.d/30-ep.j2").write_text("A = 1\nB = {{ undefined_thing }}\n")
    os.chdir(tmp_path)
    assert main(["value", "--role", "ep@ep01", "A"]) == 2
    err = capsys.readouterr().err
    assert "30-ep.j2:2" in err and "undefined_thing" in err and "Traceback" not in err
    assert project.all_roles()


# --- which settings govern a file: the folders its path names, not where committed links lead -------

@pytest.mark.parametrize("named", ["linked", "linked/", "linked/sub/x.conf", "linked/x.conf", "deep/linked/x.conf"])
def test_settings_behind_a_committed_link_never_govern(tmp_path, named, capsys, monkeypatch):
    """A pull request commits `linked -> /elsewhere`, where a settings file (and a secret) wait: naming a
    file through the link still finds the repository's own settings, so the folder the command may read
    stays the repository, and the secret is never read."""
    from condorcfg.cli import main

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(outside, {".condorcfg.yaml": "roots: [secret.conf]\n", "secret.conf": "SECRET = s3cr3t-value\n",
                    "x.conf": "include : secret.conf\n", "sub/x.conf": "include : ../secret.conf\n"})
    write(repo, {".condorcfg.yaml": "ignore: [CFG113]\n", "deep/.keep": ""})
    (repo / ".git").mkdir()
    (repo / "linked").symlink_to(outside)
    (repo / "deep/linked").symlink_to(outside)
    assert project_module.governing_file(repo / named) == repo / ".condorcfg.yaml"
    monkeypatch.chdir(repo)
    main(["lint", "--format", "json", named])
    captured = capsys.readouterr()
    assert "s3cr3t-value" not in captured.out + captured.err


def test_links_above_the_work_tree_are_followed(tmp_path):
    """A checkout under a symlinked folder (a home on another disk) still finds its settings."""
    real = tmp_path / "data/repo"
    write(real, {".condorcfg.yaml": "ignore: [CFG113]\n", "etc/condor_config": "X = 1\n"})
    (real / ".git").mkdir()
    (tmp_path / "home").symlink_to(tmp_path / "data")
    assert project_module.governing_file(tmp_path / "home/repo/etc/condor_config") == \
        tmp_path / "home/repo/.condorcfg.yaml"
