"""Every command on a copy of examples/pool, the pool repository whose `.condorcfg.yaml` names four roles
(cm, ap, ep-cpu, ep-gpu), and the regression tests of reading a pool repository (sysroot, several roots,
policy tests, git sides, settings found from outside, folders the repository does not hold).

Everything runs in-process through ``condorcfg.cli.main`` on a copy in ``tmp_path`` (a git repository when
a command needs history); the example itself is never changed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from condorcfg.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pool"
ROLES = ["cm", "ap", "ep-cpu", "ep-gpu"]
GIT = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]
BAD = 'IS_OWNER = Owner == "bob"\n'  # POL501: an error in every pool
GPU_JOB = textwrap.dedent("""\
    Owner = "dave"
    User = "dave@example.edu"
    JobUniverse = 5
    RequestCpus = 8
    RequestGPUs = 1
    RequestMemory = 65536
    RequestDisk = 50000000
    Requirements = (TARGET.OpSys == "LINUX")
""")
CPU_JOB = textwrap.dedent("""\
    Owner = "alice"
    User = "alice@example.edu"
    JobUniverse = 5
    RequestCpus = 4
    RequestMemory = 8192
    RequestDisk = 1000000
    Requirements = (TARGET.OpSys == "LINUX") && (TARGET.HasCVMFS =?= true)
""")


# ------------------------------------------------------------------------------------------------- helpers

def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", message)


def _write(repo: Path, name: str, text: str) -> Path:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _edit(repo: Path, name: str, old: str, new: str) -> None:
    path = repo / name
    text = path.read_text()
    assert old in text, (name, old)
    path.write_text(text.replace(old, new))


def _clean_environment(monkeypatch) -> None:
    """No host configuration, no CI, no git or pre-commit variables of whoever runs the suite."""
    for key in list(os.environ):
        if (key.upper().startswith(("_CONDOR_", "GIT_", "PRE_COMMIT")) or key in ("CONDOR_CONFIG", "GITHUB_ACTIONS",
                                                                                   "CONDORCFG_RULES_DIR")):
            monkeypatch.delenv(key)


@pytest.fixture
def pool(tmp_path, monkeypatch) -> Path:
    """A copy of examples/pool, committed in a git repository of its own; the current directory."""
    repo = tmp_path / "pool"
    shutil.copytree(EXAMPLE, repo)
    _clean_environment(monkeypatch)
    _git(repo, "init", "-q")
    _commit(repo, "the pool")
    monkeypatch.chdir(repo)
    return repo


def run(capsys, *argv: str):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def lint_json(capsys, *argv: str):
    code, out, err = run(capsys, "lint", "--format", "json", *argv)
    assert code in (0, 1), err
    return code, json.loads(out)


def _places(cwd: Path, places: list[str]) -> list[str]:
    """Files (or file:line:column places) as absolute paths, whether shown relative to ``cwd`` or not."""
    return [os.path.normpath(os.path.join(cwd, place)) for place in places]


def _role_files(repo: Path, role: str) -> set[str]:
    """The repository files role ``role`` reads, as the JSON report names them (from the example's layout)."""
    layers = {"cm": ["common", "roles/cm"], "ap": ["common", "roles/ap"],
              "ep-cpu": ["common", "roles/ep", "roles/ep-cpu"], "ep-gpu": ["common", "roles/ep", "roles/ep-gpu"]}[role]
    kept: dict[str, str] = {}
    for layer in layers:  # the later folder's file wins on equal names
        for path in sorted((repo / layer / "config.d").iterdir()):
            kept[path.name] = f"{layer}/config.d/{path.name}"
    files = {"common/condor_config", *kept.values()}
    if role == "ep-gpu":
        files.add("roles/ep-gpu/condor_config.local.j2")
    return files


# ------------------------------------------------------------------------------------------------- lint

def test_lint_is_clean_on_the_example(pool, capsys):
    code, report = lint_json(capsys)
    assert code == 0 and report["findings"] == [], report["findings"]
    assert set(report["files"]) == set().union(*(_role_files(pool, role) for role in ROLES))
    assert "roles/ep/config.d/70-start-policy" in report["files"]  # (read by ep-cpu; ep-gpu has its own)
    code, out, err = run(capsys, "lint")
    assert code == 0 and out.startswith("No findings in 23 files"), out + err


def test_an_error_in_the_shared_ep_folder_is_reported_once_for_both_execute_roles(pool, capsys):
    _write(pool, "roles/ep/config.d/90-owner", BAD)
    code, report = lint_json(capsys)
    found = [(f["code"], f["file"], f["line"], f.get("roles")) for f in report["findings"]]
    assert code == 1 and found == [("POL501", "roles/ep/config.d/90-owner", 1, ["ep-cpu", "ep-gpu"])]
    code, out, _ = run(capsys, "lint")
    assert code == 1 and out.count("POL501") == 2  # the finding's line and its `docs: condorcfg explain POL501`
    assert "roles/ep/config.d/90-owner:1:12: error POL501 job-attr-in-is-owner [ep-cpu, ep-gpu] " in out


def test_an_error_in_the_common_folder_is_reported_once_with_all_four_roles(pool, capsys):
    _write(pool, "common/config.d/35-owner", BAD)
    code, report = lint_json(capsys)
    assert code == 1 and [(f["code"], f["file"], f.get("roles")) for f in report["findings"]] == [
        ("POL501", "common/config.d/35-owner", ROLES)]
    code, out, _ = run(capsys, "lint")
    assert "common/config.d/35-owner:1:12: error POL501 job-attr-in-is-owner [cm, ap, ep-cpu, ep-gpu] " in out
    assert "Found 1 finding (1 error)" in out


def test_linting_one_file_lints_only_the_roles_reading_it(pool, capsys):
    code, report = lint_json(capsys, "roles/ep-gpu/config.d/65-gpus")
    assert code == 0 and report["findings"] == []
    assert set(report["files"]) == _role_files(pool, "ep-gpu")
    assert not any(f.startswith(("roles/ep-cpu/", "roles/cm/", "roles/ap/")) for f in report["files"])
    _write(pool, "roles/ep-gpu/config.d/65-gpus", (pool / "roles/ep-gpu/config.d/65-gpus").read_text() + BAD)
    code, report = lint_json(capsys, "roles/ep-gpu/config.d/65-gpus")
    assert code == 1 and [(f["code"], f.get("roles")) for f in report["findings"]] == [("POL501", ["ep-gpu"])]
    # the shared START policy is replaced on the GPU nodes: only the CPU nodes read it
    code, report = lint_json(capsys, "roles/ep/config.d/70-start-policy")
    assert code == 0 and set(report["files"]) == _role_files(pool, "ep-cpu")


def test_each_role_is_linted_for_the_release_it_runs(pool, capsys):
    """ep-gpu runs 24.0: a knob 24.0 does not have, in a folder both execute roles read, is said for it only."""
    _write(pool, "roles/ep/config.d/90-swap", "DISABLE_SWAP_FOR_JOB = true\n")
    code, report = lint_json(capsys)
    assert code == 1 and [(f["code"], f["file"], f.get("roles")) for f in report["findings"]] == [
        ("UPG906", "roles/ep/config.d/90-swap", ["ep-gpu"])]
    assert "HTCondor 24.0." in report["findings"][0]["message"]
    code, report = lint_json(capsys, "--role", "ep-cpu")
    assert code == 0 and report["findings"] == []


def test_a_file_the_chosen_roles_do_not_read_is_not_said_to_be_read_by_no_role(pool, capsys):
    code, report = lint_json(capsys, "--role", "ep-gpu", "roles/ep-cpu/config.d/65-claims")
    assert not any("read by none of the project's roles" in f["message"] for f in report["findings"]), report


def test_lint_role_chooses_the_roles(pool, capsys):
    _write(pool, "common/config.d/35-owner", BAD)
    code, report = lint_json(capsys, "--role", "ap", "--role", "cm")
    assert code == 1 and [f.get("roles") for f in report["findings"]] == [["ap", "cm"]]  # (in the order asked)
    assert set(report["files"]) == _role_files(pool, "cm") | _role_files(pool, "ap")


def test_a_file_no_role_reads_is_linted_alone_with_cfg010(pool, capsys):
    _write(pool, "notes/extra.conf", "MAX_JOBS_RUNNING = 100\n")
    code, report = lint_json(capsys, "notes/extra.conf")
    assert report["files"] == ["notes/extra.conf"]
    cfg010 = [f for f in report["findings"] if f["code"] == "CFG010"]
    assert len(cfg010) == 1 and cfg010[0]["severity"] == "info" and cfg010[0]["file"] == "notes/extra.conf"
    assert "read by none of the project's roles" in cfg010[0]["message"] and code == 0
    code, out, _ = run(capsys, "lint", "notes/extra.conf")
    assert "notes/extra.conf: info CFG010 read-by-no-role" in out


# ------------------------------------------------------------------------------------------------- value, dump

def test_value_answers_per_role_labelled(pool, capsys):
    code, out, err = run(capsys, "value", "DAEMON_LIST", "CONDOR_HOST")
    assert code == 0, err
    assert out.splitlines() == ["[cm]", "MASTER COLLECTOR NEGOTIATOR", "cm.example.edu", "[ap]", "MASTER SCHEDD",
                                "cm.example.edu", "[ep-cpu]", "MASTER STARTD", "cm.example.edu",
                                "[ep-gpu]", "MASTER STARTD", "cm.example.edu"]
    # a knob only some roles define: their values, and exit 1 for the others
    code, out, err = run(capsys, "value", "MachineOwner")
    assert code == 1 and out.splitlines() == ["[cm]", "[ap]", "[ep-cpu]", '"campus"', "[ep-gpu]", '"ml-lab"']
    assert err.count("Not defined: MachineOwner") == 2


def test_value_with_role(pool, capsys):
    code, out, err = run(capsys, "value", "--role", "ep-gpu", "DAEMON_LIST")
    assert (code, out) == (0, "MASTER STARTD\n"), err
    code, out, err = run(capsys, "value", "--role", "ap", "--role", "cm", "DAEMON_LIST")
    assert code == 0 and out.splitlines() == ["[ap]", "MASTER SCHEDD", "[cm]", "MASTER COLLECTOR NEGOTIATOR"]


def test_value_json_is_keyed_by_role(pool, capsys):
    code, out, err = run(capsys, "value", "--format", "json", "DAEMON_LIST", "CONDOR_HOST")
    data = json.loads(out)
    assert code == 0 and list(data) == ROLES, err
    assert data["cm"] == {"DAEMON_LIST": "MASTER COLLECTOR NEGOTIATOR", "CONDOR_HOST": "cm.example.edu"}
    assert data["ep-gpu"]["DAEMON_LIST"] == "MASTER STARTD"
    code, out, _ = run(capsys, "value", "--format", "json", "--role", "ep-cpu", "DAEMON_LIST")
    assert code == 0 and json.loads(out) == {"DAEMON_LIST": "MASTER STARTD"}  # one role: its values


def test_dump_with_role(pool, capsys):
    code, out, err = run(capsys, "dump", "--role", "ep-gpu")
    lines = out.splitlines()
    assert code == 0, err
    assert 'MachineOwner = "ml-lab"' in lines and "DAEMON_LIST = MASTER STARTD" in lines
    assert any(line.startswith("START = ") and line.endswith("(TotalGPUs =?= 4)") for line in lines)
    code, out, _ = run(capsys, "dump", "--role", "ep-cpu", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["MachineOwner"] == '"campus"' and data["HasLocalScratch"] == "True"
    assert "HasLocalScratch" not in json.loads(run(capsys, "dump", "--role", "ep-gpu", "--format", "json")[1])


@pytest.mark.parametrize("command", [["dump"], ["ads"], ["match", "--job", "JOB"]])
def test_one_configuration_commands_need_a_role(pool, capsys, command):
    _write(pool, "job.ad", GPU_JOB)
    code, out, err = run(capsys, *[str(pool / "job.ad") if a == "JOB" else a for a in command])
    assert code == 2 and out == ""
    assert "several roles (cm, ap, ep-cpu, ep-gpu)" in err and "--role" in err


# ------------------------------------------------------------------------------------------------- ads, match

def test_ads_of_the_gpu_role_show_its_gpus(pool, capsys):
    code, out, err = run(capsys, "ads", "--role", "ep-gpu", "--format", "json")
    ads = json.loads(out)
    assert code == 0 and len(ads) == 1, err
    [ad] = ads
    assert ad["Name"] == "slot1@gpu01.example.edu" and ad["Cpus"] == 32 and ad["GPUs"] == 4
    assert ad["AssignedGPUs"] == "GPU-5f0e1a2b,GPU-6a1f2b3c,GPU-7b2a3c4d,GPU-8c3b4d5e"
    assert ad["MachineOwner"] == "ml-lab"
    code, out, _ = run(capsys, "ads", "--role", "ep-gpu")
    assert code == 0 and "GPUs = 4" in out.splitlines()
    code, out, _ = run(capsys, "ads", "--role", "ep-cpu", "--format", "json")
    [ad] = json.loads(out)
    assert code == 0 and ad["Cpus"] == 64 and not ad.get("GPUs") and ad["MachineOwner"] == "campus"


def test_match_with_role(pool, capsys):
    gpu_job, cpu_job = _write(pool, "gpu.ad", GPU_JOB), _write(pool, "cpu.ad", CPU_JOB)
    code, out, err = run(capsys, "match", "--role", "ep-gpu", "--job", gpu_job)
    assert code == 0 and "1 of 1 slots match the job" in out, out + err
    assert "TotalGPUs is 4" in out  # (the clause condor_config.local.j2 adds)
    # the GPU nodes take GPU jobs only; the CPU nodes take it
    code, out, _ = run(capsys, "match", "--role", "ep-gpu", "--job", cpu_job)
    assert code == 1 and "0 of 1 slots match the job" in out
    code, out, _ = run(capsys, "match", "--role", "ep-cpu", "--job", cpu_job, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["matched"] == 1 and data["slots"][0]["slot"] == "slot1@ep101.example.edu"
    wheres = {c["where"] for c in data["slots"][0]["clauses"] if c["origin"] == "Start"}
    assert wheres == {"roles/ep/config.d/70-start-policy:10:1"}


# ------------------------------------------------------------------------------------------------- test

def test_the_policy_tests_pass(pool, capsys):
    code, out, err = run(capsys, "test")
    assert code == 0, out + err
    assert out.count("  PASS  ") == 10 and out.rstrip().endswith("10 cases, 0 failed")
    code, out, _ = run(capsys, "test", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["passed"] is True and sum(len(f["cases"]) for f in data["files"]) == 10


def test_a_broken_start_fails_the_policy_tests(pool, capsys):
    _edit(pool, "roles/ep/config.d/70-start-policy", '=?= "$(UID_DOMAIN)"',
          '=?= "$(UID_DOMAIN)" && TARGET.RequestCpus <= 2')
    code, out, err = run(capsys, "test")
    assert code == 1, out + err
    assert out.rstrip().endswith("10 cases, 1 failed")
    assert "FAIL  a pool user's 4-core analysis job needing CVMFS starts" in out
    assert "TARGET.RequestCpus <= 2" in out and "roles/ep/config.d/70-start-policy:10:1" in out
    # the GPU nodes replace that file: their cases still pass
    assert out.split("tests/ep-gpu.yaml\n", 1)[1].count("  PASS  ") == 5


def test_a_case_naming_an_unknown_role_is_a_usage_error(pool, capsys):
    _edit(pool, "tests/ep-gpu.yaml", "    role: ep-gpu\n    job: |\n      Owner = \"alice\"",
          "    role: nope\n    job: |\n      Owner = \"alice\"")
    code, out, err = run(capsys, "test")
    assert code == 2, out + err
    assert "tests/ep-gpu.yaml" in err and "no role named 'nope'" in err and "cm, ap, ep-cpu, ep-gpu" in err


def test_test_with_role_runs_that_roles_cases(pool, capsys):
    code, out, err = run(capsys, "test", "--role", "ep-gpu")
    assert code == 0, err
    assert out.rstrip().endswith("5 cases, 0 failed") and "ep-cpu.yaml:" not in out
    _edit(pool, "roles/ep/config.d/70-start-policy", '=?= "$(UID_DOMAIN)"',
          '=?= "$(UID_DOMAIN)" && TARGET.RequestCpus <= 2')  # (breaks an ep-cpu case only)
    assert run(capsys, "test", "--role", "ep-gpu")[0] == 0
    code, out, _ = run(capsys, "test", "--role", "ep-gpu", "--role", "ep-cpu")
    assert code == 1 and out.rstrip().endswith("10 cases, 1 failed")


def test_test_from_outside_the_repository_uses_its_settings(pool, monkeypatch, capsys):
    monkeypatch.chdir(pool.parent)
    code, out, err = run(capsys, "test", str(pool / "tests" / "ep-gpu.yaml"))
    assert code == 0 and out.rstrip().endswith("5 cases, 0 failed"), err


# ------------------------------------------------------------------------------------------------- diff

def test_diff_of_a_commit_changing_num_cpus_on_ep_cpu(pool, capsys):
    _write(pool, "roles/ep-cpu/config.d/65-claims", (pool / "roles/ep-cpu/config.d/65-claims").read_text()
           + "NUM_CPUS = 16\n")
    _commit(pool, "ep-cpu: 16 cores")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD")
    assert code == 1, err
    summary = out.splitlines()[0]
    assert summary.startswith("4 roles: ") and "NUM_CPUS" in summary and "change on ep-cpu" in summary
    assert "cm, ap, ep-gpu unchanged" in summary and summary.endswith("restart needed on ep-cpu")
    assert "== role ep-cpu ==" in out and "== role ep-gpu ==" not in out
    code, out, _ = run(capsys, "diff", "HEAD~1", "HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["summary"] == summary
    assert [r["role"] for r in data["roles"]] == ROLES
    assert {r["role"]: r["changed"] for r in data["roles"]} == {"cm": False, "ap": False, "ep-cpu": True,
                                                                  "ep-gpu": False}
    changes = [(r["role"], c) for r in data["roles"] for c in r["values"] + r["slots"]]
    assert changes and all(c["role"] == role for role, c in changes)
    assert [c["name"] for role, c in changes if "name" in c] == ["NUM_CPUS"]


def test_diff_of_a_commit_changing_the_shared_ep_folder(pool, capsys):
    _edit(pool, "roles/ep/config.d/60-slots", "RESERVED_MEMORY = 4096", "RESERVED_MEMORY = 8192")
    _commit(pool, "more memory kept back")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 1, err
    assert data["summary"].startswith("4 roles: ") and data["summary"].endswith("cm, ap unchanged")
    assert "change on ep-cpu" in data["summary"] and "change on ep-gpu" in data["summary"]
    for entry in data["roles"]:
        assert all(c["role"] == entry["role"] for c in entry["values"] + entry["slots"])
        assert [c["name"] for c in entry["values"]] == (["RESERVED_MEMORY"] if entry["role"].startswith("ep") else [])
    code, out, _ = run(capsys, "diff", "HEAD~1", "HEAD", "--role", "ep-gpu", "--format", "json")
    data = json.loads(out)
    assert code == 1 and [r["role"] for r in data["roles"]] == ["ep-gpu"]
    assert data["summary"].startswith("1 role: ")


def test_diff_of_a_start_change_in_a_file_the_gpu_nodes_replace(pool, capsys):
    _edit(pool, "roles/ep/config.d/70-start-policy", '=?= "$(UID_DOMAIN)"',
          '=?= "$(UID_DOMAIN)" && TARGET.RequestCpus <= 4')
    _commit(pool, "small jobs only")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD")
    summary = out.splitlines()[0]
    assert code == 1, err
    assert "START" in summary and "change on ep-cpu" in summary and "cm, ap, ep-gpu unchanged" in summary
    assert "restart needed" not in summary  # condor_reconfig applies START


def test_diff_of_a_comment_is_no_difference(pool, capsys):
    _write(pool, "roles/ep/config.d/60-slots", (pool / "roles/ep/config.d/60-slots").read_text() + "# reviewed\n")
    _commit(pool, "a comment")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD")
    assert code == 0, err
    assert out.splitlines()[0] == "4 roles: cm, ap, ep-cpu, ep-gpu unchanged"
    code, out, _ = run(capsys, "diff", "HEAD~1", "HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 0 and not any(r["changed"] or r["values"] or r["slots"] for r in data["roles"])


def test_diff_of_a_commit_changing_a_roles_vars(pool, capsys):
    _edit(pool, ".condorcfg.yaml", "vars: {gpu_count: 4}", "vars: {gpu_count: 2}")
    _commit(pool, "the GPU nodes have two GPUs")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads")
    summary = out.splitlines()[0]
    assert code == 1 and "START" in summary and "START changes on ep-gpu" in summary, out + err


# ------------------------------------------------------------------------------------------------- upgrade

def test_upgrade_plans_the_role_with_a_version(pool, capsys):
    code, out, err = run(capsys, "upgrade", "--role", "ep-gpu", "--format", "json")
    data = json.loads(out)
    assert code == 1, err  # (there are changes to review)
    [role] = data["roles"]
    assert role["role"] == "ep-gpu" and role["from"].startswith("24.0.") and role["to"].startswith("25.")
    assert role["changes"] and str(pool / "roles/ep-gpu/condor_config.local.j2") in _places(pool, role["files"])
    code, out, err = run(capsys, "upgrade")
    assert code == 1 and out.startswith("== role ep-gpu ==\nHTCondor 24.0.") and out.count("== role ") == 1
    assert "cm, ap, ep-cpu" in err  # the roles without a version are said, not silently skipped
    code, out, _ = run(capsys, "upgrade", "--from", "24.0", "--format", "json")
    assert code == 1 and [r["role"] for r in json.loads(out)["roles"]] == ROLES
    code, _, err = run(capsys, "upgrade", "--role", "cm")
    assert code == 2 and "--from" in err


# ------------------------------------------------------------------------------------------------- --role nope

@pytest.mark.parametrize("argv", [
    ["lint"], ["value", "START"], ["diff", "HEAD", "HEAD"], ["dump"], ["ads"], ["upgrade"],
    ["match", "--job", "JOB"], ["test"],
])
def test_an_unknown_role_is_a_usage_error(pool, capsys, argv):
    job = _write(pool, "job.ad", GPU_JOB)
    code, out, err = run(capsys, *[str(job) if a == "JOB" else a for a in argv], "--role", "nope")
    assert code == 2 and out == ""
    assert "no role named 'nope'" in err and "(its roles: cm, ap, ep-cpu, ep-gpu)" in err


# ------------------------------------------------------------------------------------------------- assembly

def test_the_j2_file_is_rendered_with_the_role_vars(pool, capsys):
    code, out, err = run(capsys, "value", "--role", "ep-gpu", "START")
    assert code == 0 and "TotalGPUs =?= 4" in out and "{{" not in out, err
    _edit(pool, ".condorcfg.yaml", "vars: {gpu_count: 4}", "vars: {gpu_count: 2}")
    code, out, err = run(capsys, "value", "--role", "ep-gpu", "START")
    assert code == 0 and "TotalGPUs =?= 2" in out and "TotalGPUs =?= 4" not in out, err
    # and what the policy tests see: the 4-GPU node no longer starts jobs
    code, out, _ = run(capsys, "test")
    assert code == 1 and "FAIL  a lab member's 1-GPU training job starts" in out


def test_a_definition_in_the_j2_file_is_located_at_its_template_line(pool, capsys):
    code, out, err = run(capsys, "value", "--role", "ep-gpu", "-v", "--format", "json", "START")
    assert code == 0, err
    [defined_at] = _places(pool, [json.loads(out)["START"]["defined_at"]])
    line = next(n for n, text in enumerate((pool / "roles/ep-gpu/condor_config.local.j2").read_text().splitlines(), 1)
                if text.startswith("START ="))
    assert defined_at == f"{pool}/roles/ep-gpu/condor_config.local.j2:{line}:1"


def test_the_later_folder_wins_on_equal_names(pool, capsys):
    code, out, err = run(capsys, "value", "--format", "json", "--role", "ep-cpu", "--role", "ep-gpu", "START")
    data = json.loads(out)
    assert code == 0, err
    assert data["ep-cpu"]["START"] == 'splitUserName(TARGET.User)[1] =?= "example.edu"'
    assert "(TARGET.RequestGPUs ?: 0) >= 1" in data["ep-gpu"]["START"]
    code, out, _ = run(capsys, "value", "--role", "ep-gpu", "-v", "--format", "json", "START", "MachineOwner")
    info = json.loads(out)
    overrode = _places(pool, [o["location"] for o in info["START"]["overrode"]])
    assert overrode == [f"{pool}/roles/ep-gpu/config.d/70-start-policy:10:1"]  # ep's file is not read at all
    # a later file (85-gpu-attributes) wins over an earlier one (80-attributes) of the same folder name
    assert info["MachineOwner"]["value"] == '"ml-lab"'
    assert _places(pool, [info["MachineOwner"]["defined_at"]]) == [
        f"{pool}/roles/ep-gpu/config.d/85-gpu-attributes:4:1"]
    assert _places(pool, [o["location"] for o in info["MachineOwner"]["overrode"]]) == [
        f"{pool}/roles/ep/config.d/80-attributes:7:1"]


# ------------------------------------------------------------------------------------------------- regressions

HOST = textwrap.dedent("""\
    CONDOR_HOST = cm.example.org
    use ROLE : {role}
    use SECURITY : recommended
    LOCAL_CONFIG_DIR = {local_config_dir}
""")


def _sysroot_repository(tmp_path: Path, settings: str, local_config_dir: str = "$(CONFIG_ROOT)/config.d") -> Path:
    repo = tmp_path / "repo"
    _write(repo, ".condorcfg.yaml", settings)
    _write(repo, "etc/condor/condor_config", HOST.format(role="Execute", local_config_dir=local_config_dir))
    (repo / "etc/condor/config.d").mkdir(parents=True)
    return repo


@pytest.mark.parametrize("argv", [["--sysroot", "."], ["--sysroot", ".", "--config-root", "etc/condor/condor_config"],
                                  []])
def test_a_sysroot_reads_config_root_config_d(tmp_path, monkeypatch, capsys, argv):
    """(a) `sysroot: .`, a root at etc/condor/condor_config and LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d:
    CONFIG_ROOT is the host's /etc/condor, read under the sysroot (not the sysroot joined to the real folder)."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config]\nsysroot: .\n")
    _write(repo, "etc/condor/config.d/50-exec", BAD)
    monkeypatch.chdir(repo)
    code, report = lint_json(capsys, *argv)
    assert "etc/condor/config.d/50-exec" in report["files"]
    assert code == 1 and [(f["code"], f["file"]) for f in report["findings"]] == [
        ("POL501", "etc/condor/config.d/50-exec")]


def test_each_root_reads_its_own_hosts_config_d(tmp_path, monkeypatch, capsys):
    """(b) roots [etc/condor/condor_config, hosts/cm/etc/condor/condor_config] with `sysroot: .`: the second
    root is that host's file, so its /etc/condor/config.d is hosts/cm/etc/condor/config.d."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config, hosts/cm/etc/condor/condor_config]\n"
                                         "sysroot: .\n", "/etc/condor/config.d")
    _write(repo, "hosts/cm/etc/condor/condor_config",
           HOST.format(role="CentralManager", local_config_dir="/etc/condor/config.d"))
    _write(repo, "etc/condor/config.d/50-ep", "MAX_JOBS_RUNNING = 10\n")
    _write(repo, "hosts/cm/etc/condor/config.d/50-cm", "PRIORITY_HALFLIFE = 3600\n" + BAD)
    monkeypatch.chdir(repo)
    code, report = lint_json(capsys)
    assert set(report["files"]) == {"etc/condor/condor_config", "etc/condor/config.d/50-ep",
                                    "hosts/cm/etc/condor/condor_config", "hosts/cm/etc/condor/config.d/50-cm"}
    assert code == 1 and [(f["code"], f["file"], f.get("roles")) for f in report["findings"]] == [
        ("POL501", "hosts/cm/etc/condor/config.d/50-cm", ["hosts/cm/etc/condor/condor_config"])]
    code, out, err = run(capsys, "value", "--format", "json", "PRIORITY_HALFLIFE", "MAX_JOBS_RUNNING")
    data = json.loads(out)
    assert code == 0, err
    assert data["hosts/cm/etc/condor/condor_config"]["PRIORITY_HALFLIFE"] == "3600"
    assert data["hosts/cm/etc/condor/condor_config"]["MAX_JOBS_RUNNING"] != "10"
    assert data["etc/condor/condor_config"] == {"PRIORITY_HALFLIFE": "86400", "MAX_JOBS_RUNNING": "10"}


@pytest.mark.parametrize("named", [False, True])
def test_policy_tests_read_config_d_under_the_project_sysroot(tmp_path, monkeypatch, capsys, named):
    """(c) a project `sysroot` and the stock LOCAL_CONFIG_DIR = /etc/condor/config.d: `condorcfg test` reads
    config.d there (the slot count comes from it), whether the test file names the root or not."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config]\nsysroot: .\npolicy-tests: [tests]\n",
                               "/etc/condor/config.d")
    _write(repo, "etc/condor/config.d/50-slots", "NUM_SLOTS = 4\n")
    config = "config: ../etc/condor/condor_config\n" if named else ""
    _write(repo, "tests/slots.yaml", config + "machine: {cpus: 8, memory: 16384}\ncases:\n"
                                              "  - name: four slots from config.d\n    expect:\n"
                                              "      slots: {count: 4}\n")
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "test")
    assert code == 0 and "PASS  four slots from config.d" in out, out + err


@pytest.mark.parametrize("local_config_dir", ["/etc/condor/config.d", "$(CONFIG_ROOT)/config.d"])
def test_diff_of_a_git_side_and_the_work_tree_with_a_sysroot(tmp_path, monkeypatch, capsys, local_config_dir):
    """(d) `diff git:HEAD:etc/condor/condor_config etc/condor/condor_config` with `sysroot: .`: both sides
    read config.d under their own sysroot, so a clean tree is no difference."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config]\nsysroot: .\n", local_config_dir)
    _write(repo, "etc/condor/config.d/50-slots", "NUM_SLOTS = 4\n")
    _git(repo, "init", "-q")
    _commit(repo, "pool")
    monkeypatch.chdir(repo)
    argv = ["diff", "git:HEAD:etc/condor/condor_config", "etc/condor/condor_config", "--no-ads"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and "No difference" in out.replace("no difference", "No difference"), out + err
    _write(repo, "etc/condor/config.d/50-slots", "NUM_SLOTS = 2\n")  # and a change there is seen
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 1 and [v["name"] for v in json.loads(out)["values"]] == ["NUM_SLOTS"], err


def _normalised(report: dict, cwd: Path) -> dict:
    """A JSON lint report with its paths (relative to where it ran) made absolute."""
    def absolute(name):
        return os.path.normpath(os.path.join(cwd, name)) if name else name

    findings = [{**f, "file": absolute(f["file"])} for f in report["findings"]]
    return {"findings": findings, "files": sorted(absolute(f) for f in report["files"]), "counts": report["counts"]}


@pytest.mark.parametrize("accepts", ["ignore", "baseline"])
def test_lint_from_outside_the_repository_uses_its_settings(pool, monkeypatch, capsys, accepts):
    """(e) a file of the repository linted from elsewhere is governed by the repository's settings."""
    _write(pool, "roles/ep/config.d/90-owner", BAD)
    _write(pool, "roles/ep/config.d/91-more", "MAX_JOBS_RUNNIN = 4\n")  # KNB303 stays
    if accepts == "ignore":
        _write(pool, ".condorcfg.yaml", (pool / ".condorcfg.yaml").read_text() + "ignore: [POL501]\n")
    else:
        assert run(capsys, "lint", "--select", "POL501", "--write-baseline", ".condorcfg-baseline.json")[0] == 0
        _write(pool, ".condorcfg.yaml", (pool / ".condorcfg.yaml").read_text()
               + "baseline: .condorcfg-baseline.json\n")
    names = ["roles/ep/config.d/90-owner", "roles/ep/config.d/91-more"]
    code, inside = lint_json(capsys, *names)
    assert not any(f["code"] == "POL501" for f in inside["findings"])
    assert any(f["code"] == "KNB303" for f in inside["findings"])
    assert inside["counts"]["hidden_by_settings" if accepts == "ignore" else "baselined"] == 1
    for elsewhere in (pool.parent, Path("/")):
        monkeypatch.chdir(elsewhere)
        for given in ([str(pool / n) for n in names], [os.path.relpath(pool / n, elsewhere) for n in names]):
            outside_code, outside = lint_json(capsys, *given)
            assert outside_code == code
            assert _normalised(outside, elsewhere) == _normalised(inside, pool)


@pytest.mark.parametrize("accepts", ["ignore", "baseline"])
def test_lint_from_outside_a_roots_repository_uses_its_settings(tmp_path, monkeypatch, capsys, accepts):
    """(e) the same for a repository of `roots` and a `sysroot`."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config]\nsysroot: .\n")
    _write(repo, "etc/condor/config.d/50-exec", BAD + "MAX_JOBS_RUNNIN = 4\n")
    monkeypatch.chdir(repo)
    if accepts == "ignore":
        _write(repo, ".condorcfg.yaml", (repo / ".condorcfg.yaml").read_text() + "ignore: [POL501]\n")
    else:
        assert run(capsys, "lint", "--select", "POL501", "--write-baseline", ".condorcfg-baseline.json")[0] == 0
        _write(repo, ".condorcfg.yaml", (repo / ".condorcfg.yaml").read_text()
               + "baseline: .condorcfg-baseline.json\n")
    name = "etc/condor/config.d/50-exec"
    code, inside = lint_json(capsys, name)
    assert [f["code"] for f in inside["findings"]] == ["KNB303"] and code == 1
    for elsewhere in (tmp_path, Path("/")):
        monkeypatch.chdir(elsewhere)
        for given in (str(repo / name), os.path.relpath(repo / name, elsewhere)):
            outside_code, outside = lint_json(capsys, given)
            assert outside_code == code
            assert _normalised(outside, elsewhere) == _normalised(inside, repo)


def test_a_local_config_dir_the_repository_does_not_hold_is_said(tmp_path, monkeypatch, capsys):
    """(f) LOCAL_CONFIG_DIR names a folder that is not in the repository: an info CFG113, not "No findings"."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roots: [etc/condor/condor_config]\nsysroot: .\n", "/etc/condor/config.d")
    (repo / "etc/condor/config.d").rmdir()
    monkeypatch.chdir(repo)
    code, report = lint_json(capsys)
    found = [(f["code"], f["severity"], f["file"], f["line"]) for f in report["findings"]]
    assert found == [("CFG113", "info", "etc/condor/condor_config", 4)] and code == 0
    assert "/etc/condor/config.d" in report["findings"][0]["message"]
    code, out, _ = run(capsys, "lint")
    assert "No findings" not in out and "info CFG113 not-in-repository" in out


def test_a_role_mounting_folders_the_repository_does_not_hold_is_said(tmp_path, monkeypatch, capsys):
    """(f) the same for a role whose mount names a folder that is not there: a settings error (a typo or a
    renamed folder would otherwise hide what it holds from every check, even with --settings-from)."""
    _clean_environment(monkeypatch)
    repo = _sysroot_repository(tmp_path, "roles:\n  ep:\n    root: etc/condor/condor_config\n    mounts:\n"
                                         "      /etc/condor/config.d: [ep/config.d]\n", "/etc/condor/config.d")
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "lint")
    assert code == 2 and out == "" and "names 'ep/config.d', which does not exist in the project" in err
    assert ".condorcfg.yaml:2:1" in err  # (the role's line)


def test_diff_of_a_commit_adding_a_role(pool, capsys):
    _edit(pool, ".condorcfg.yaml", "policy-tests:", "  ep-big:\n    root: common/condor_config\n"
          "    mounts: {/etc/condor/config.d: [common/config.d, roles/ep/config.d]}\npolicy-tests:")
    _commit(pool, "a new kind of execute node")
    code, out, err = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads")
    assert code == 1 and out.splitlines()[0].startswith("5 roles: role ep-big added;"), out + err
    code, out, _ = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads", "--format", "json")
    assert [r["presence"] for r in json.loads(out)["roles"] if r["role"] == "ep-big"] == ["added"]
    # the settings a command is told to trust define the roles of both sides: the change's own do not
    code, out, _ = run(capsys, "diff", "HEAD~1", "HEAD", "--no-ads", "--settings-from", "HEAD~1")
    assert code == 0 and "ep-big" not in out, out


def test_value_says_which_role_lacks_a_knob(pool, capsys):
    code, _, err = run(capsys, "value", "MachineOwner")
    assert code == 1 and "Not defined: MachineOwner (role cm)" in err and "(role ap)" in err


def test_an_unknown_knob_is_judged_against_the_release_the_role_runs(pool, capsys):
    _write(pool, "roles/ep-gpu/config.d/66-typo", "STARTD_NOT_A_KNOB_XYZ = 3\n")
    code, report = lint_json(capsys, "--select", "KNB303")
    [finding] = report["findings"]
    assert finding["roles"] == ["ep-gpu"] and "HTCondor 24.0." in finding["message"]
    assert "25.14" not in finding["message"]
