"""condorcfg test on a pull request: its files decide neither what is read nor how much work is done.

Closed as classes, with seeded generated variants:

* the trust boundary is the project folder, fixed before any test file is read; nothing of the
  change (a committed bare repository that makes git call ``/`` the work tree, a link, a ``../``
  chain, an absolute path) makes a test file, its ``config:`` or its ``machine:`` read a file
  outside, in any output format (no secret of an outside file reaches stdout or stderr);
* alias-expanded text is counted (``inputs.MAX_ALIAS_CHARS``) and so is each case's work
  (``MAX_CASE_WORK``): a file of a few hundred KB cannot make a run parse gigabytes;
* failing cases are bounded in what they show and build (``MAX_EXPLANATION_LINES``,
  ``MAX_SHOWN_CHARS``, ``MAX_REPORT_CHARS``): counted sizes, never time.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from condorcfg import policytest
from condorcfg.classad import budget as budget_module
from condorcfg.cli import main
from condorcfg.inputs import MAX_ALIAS_CHARS

FORMATS = ("text", "json", "junit")
CASE = "cases:\n  - {name: c, job: 'Owner = \"nobody\"', expect: {start: true}}\n"


def _run(capsys, monkeypatch, cwd, *argv):
    monkeypatch.chdir(cwd)
    status = main(["test", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _parses(out: str, fmt: str) -> None:
    """Whatever a run printed on stdout is a whole report of its format."""
    if fmt == "json" and out:
        json.loads(out)
    if fmt == "junit" and out:
        ET.fromstring(out)


# --- the trust boundary -----------------------------------------------------------------------------

def _outside(root: Path, secret: str) -> Path:
    """A folder beside the project holding what a CI runner must never print: a config, a profile."""
    outside = root / "outside"
    (outside / "dir").mkdir(parents=True)
    config = f'use ROLE : Execute\nSTART = TARGET.Owner == "{secret}"\n{secret}_KEY = {secret}\n'
    (outside / "secrets.env").write_text(config)
    (outside / "dir" / "condor_config").write_text(config)
    (outside / "hosts.yml").write_text(f"{secret}: {secret}\n")
    (outside / "dir" / "hosts.yml").write_text(f"{secret}: {secret}\n")
    (outside / "dir" / "t.yaml").write_text(f"config: condor_config\n{CASE}")
    return outside


def _project(root: Path, settings: str = "") -> Path:
    project = root / "project"
    (project / "conf").mkdir(parents=True)
    (project / "conf" / "condor_config").write_text("use ROLE : Execute\n")
    (project / "conf" / "ep.yaml").write_text("cpus: 4\nmemory: 8192\n")
    (project / ".condorcfg.yaml").write_text(settings or "policy-tests: [tests]\n")
    return project


def _bare_repository(folder: Path) -> None:
    """The files of a bare repository whose config makes git call / the work tree, committed in ``folder``."""
    bare = folder.parent / f"{folder.name}.bare"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    shutil.copytree(bare, folder, dirs_exist_ok=True)  # HEAD, objects/, refs/, config
    shutil.rmtree(bare)
    config = (folder / "config").read_text().replace("bare = true", "bare = false")
    (folder / "config").write_text(config + "\tworktree = /\n")
    found = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True)
    assert found.stdout.strip() == "/", "the trick is armed: git itself calls / the work tree here"


def test_a_committed_bare_repository_does_not_widen_what_is_read(tmp_path, capsys, monkeypatch):
    secret = "s3cr3t-bare-repo-token"
    _outside(tmp_path, secret)
    project = _project(tmp_path)
    (project / "tests").mkdir()
    _bare_repository(project / "tests")
    (project / "tests" / "policy.yaml").write_text(
        "config: [../../outside/secrets.env, ../conf/condor_config]\n" + CASE)
    for fmt in FORMATS:  # as the condorcfg-test pre-commit hook runs it: no file names, the settings' tests
        status, out, err = _run(capsys, monkeypatch, project, "--format", fmt)
        assert status == 2 and secret not in out + err, (fmt, out, err)
        assert "leads outside" in err and "policy.yaml:1" in err
        _parses(out, fmt)
    assert "subprocess" not in Path(policytest.__file__).read_text()  # no git, nothing run, decides the boundary


def _link(path: Path, target: Path, rng: random.Random) -> None:
    """A symbolic link, its target written relative or absolute (both are committed as links)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(os.path.relpath(target, path.parent) if rng.random() < 0.5 else target)


def _escape(kind: str, rng: random.Random, project: Path, folder: Path, outside: Path, what: str) -> str:
    """A reference, from a test file in ``folder``, to an outside config or profile (or a fine one)."""
    name = {"config": "condor_config", "machine": "hosts.yml"}[what]
    up = os.path.relpath(project, folder).count("..") + 1
    if kind == "absolute":
        return str(outside / "dir" / name)
    if kind == "dotdot":
        noise = rng.choice(["", "./", "conf/../", "x/../"])
        return noise + "../" * (up + rng.randrange(0, 3)) + "outside/dir/" + name  # (extra ../ stop at /)
    if kind == "file-link":
        link = folder / f"l{rng.randrange(10**6)}"
        _link(link, outside / "dir" / name, rng)
        return link.name
    if kind == "dir-link":
        link = folder / f"d{rng.randrange(10**6)}"
        _link(link, outside / "dir", rng)
        return f"{link.name}/{name}"
    # a link inside the project to a file of the project: fine
    link = folder / f"ok{rng.randrange(10**6)}"
    _link(link, project / "conf" / {"config": "condor_config", "machine": "ep.yaml"}[what], rng)
    return link.name


KINDS = ("absolute", "dotdot", "file-link", "dir-link", "inside-link")


@pytest.mark.parametrize("seed", range(12))
def test_config_and_machine_paths_never_lead_outside(tmp_path, capsys, monkeypatch, seed):
    rng = random.Random(seed)
    secret = f"s3cr3t{rng.randrange(16 ** 8):08x}"
    outside = _outside(tmp_path, secret)
    project = _project(tmp_path)
    for index, (what, kind) in enumerate([(w, k) for w in ("config", "machine") for k in KINDS]):
        folder = project / "tests" / "/".join(rng.choice("abc") for _ in range(rng.randrange(3))) / str(index)
        folder.mkdir(parents=True)
        if rng.random() < 0.5:  # (and git, asked, would call / the work tree)
            _bare_repository(folder)
        reference = _escape(kind, rng, project, folder, outside, what)
        fine_config = os.path.relpath(project / "conf" / "condor_config", folder)
        lines = {"config": f"config: [{fine_config}, {reference}]" if rng.random() < 0.5 else f"config: {reference}",
                 "machine": f"config: {fine_config}\nmachine: {reference}"}[what]
        test = folder / "t.yaml"
        test.write_text(lines + "\n" + CASE)
        fmt = FORMATS[(seed + index) % 3]
        status, out, err = _run(capsys, monkeypatch, project, test, "--format", fmt)
        assert secret not in out + err, (what, kind, reference, out, err)
        assert "Traceback" not in err
        _parses(out, fmt)
        if kind == "inside-link":
            assert status == 0, (what, reference, err)  # read, and the case runs (the role's START holds)
        else:
            assert status == 2 and "leads outside" in err and f"{test}:" in err, (what, kind, reference, err)


@pytest.mark.parametrize("seed", range(6))
def test_a_test_file_that_leads_outside_is_refused_unopened(tmp_path, capsys, monkeypatch, seed):
    rng = random.Random(seed)
    secret = f"s3cr3t{rng.randrange(16 ** 8):08x}"
    outside = _outside(tmp_path, secret)
    project = _project(tmp_path)
    tests = project / "tests"
    tests.mkdir()
    (project / "shared").mkdir()
    (project / "shared" / "fine.yaml").write_text(f"config: ../conf/condor_config\n{CASE}")
    _link(tests / "leak.yaml", outside / rng.choice(["hosts.yml", "dir/hosts.yml", "dir/t.yaml"]), rng)
    _link(tests / "linked", outside / "dir", rng)
    _link(tests / "fine.yaml", project / "shared" / "fine.yaml", rng)  # a link inside: fine
    # how the test file is named: on the command line (a file, through a linked folder, a linked folder),
    # or by the settings (a directory listed, the link itself, the linked folder)
    ways = [("argv", ["tests/leak.yaml"]), ("argv", ["tests/linked/t.yaml"]), ("argv", ["tests/linked"]),
            ("argv", [str(tests / "leak.yaml")]), ("settings", "policy-tests: [tests]"),
            ("settings", "policy-tests: [tests/leak.yaml]"), ("settings", "policy-tests: [tests/linked]")]
    rng.shuffle(ways)
    for index, (how, named) in enumerate(ways):
        (project / ".condorcfg.yaml").write_text(named + "\n" if how == "settings" else "policy-tests: [tests]\n")
        fmt = FORMATS[(seed + index) % 3]
        status, out, err = _run(capsys, monkeypatch, project, *(named if how == "argv" else []), "--format", fmt)
        assert status == 2 and secret not in out + err, (how, named, out, err)
        assert "outside" in err and "Traceback" not in err, err
        _parses(out, fmt)
    (project / ".condorcfg.yaml").write_text("policy-tests: [tests/fine.yaml]\n")
    status, out, err = _run(capsys, monkeypatch, project)
    assert status == 0 and "1 case, 0 failed" in out, err


def test_a_test_file_named_outside_the_project_may_name_its_own_folder_only(tmp_path, capsys, monkeypatch):
    secret = "s3cr3t-own-folder"
    outside = _outside(tmp_path, secret)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "sub").mkdir(parents=True)
    (elsewhere / "sub" / "condor_config").write_text("use ROLE : Execute\nSTART = true\n")
    (elsewhere / "sub" / "t.yaml").write_text(f"config: condor_config\n{CASE}")
    (elsewhere / "sub" / "up.yaml").write_text(f"config: ../../outside/secrets.env\n{CASE}")
    (elsewhere / "sub" / "leak.yaml").symlink_to(outside / "hosts.yml")
    project = _project(tmp_path)
    status, out, err = _run(capsys, monkeypatch, project, elsewhere / "sub" / "t.yaml")
    assert status == 0 and "1 case, 0 failed" in out, err
    for name in ("up.yaml", "leak.yaml"):
        status, out, err = _run(capsys, monkeypatch, project, elsewhere / "sub" / name)
        assert status == 2 and "outside" in err and secret not in out + err, (name, err)
    assert policytest.boundary(str(elsewhere / "sub" / "t.yaml"), str(project)) == str((elsewhere / "sub").resolve())
    assert policytest.boundary("tests/x.yaml", str(project)) == str(project.resolve())


# --- bounded work: aliases and cases ------------------------------------------------------------------

@pytest.fixture
def parsed(monkeypatch):
    """Characters of job and state ads parsed: the work the aliases multiply, counted."""
    from condorcfg import classad

    count = {"chars": 0, "ads": 0}
    real = classad.parse_ad

    def counting(text, *args, **kwargs):
        count["chars"] += len(text)
        count["ads"] += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(classad, "parse_ad", counting)
    return count


def _alias_file(rng: random.Random, ad_chars: int, copies: int) -> str:
    """A file whose cases repeat one big ad through aliases: of a whole case, a job or state text, a name."""
    ad = "\n".join(f"      A{i} = \"{'x' * rng.randrange(5, 60)}\"" for i in range(ad_chars // 40))
    how = rng.choice(["case", "job", "state"])
    head = {"case": "  - &a\n    name: big\n    expect: {start: true}\n    job: |\n",
            "job": "  - name: big\n    expect: {start: true}\n    job: &a |\n",
            "state": "  - name: big\n    expect: {start: true}\n    state: &a |\n"}[how]
    repeat = {"case": "  - *a\n", "job": "  - {expect: {start: true}, job: *a}\n",
              "state": "  - {expect: {start: true}, state: *a}\n"}[how]
    return "config: condor_config\ncases:\n" + head + ad + "\n" + repeat * (copies - 1)


@pytest.mark.parametrize("seed", range(5))
def test_aliases_of_big_ads_are_refused_before_any_case_runs(tmp_path, capsys, monkeypatch, parsed, seed):
    rng = random.Random(seed)
    (tmp_path / "condor_config").write_text("use ROLE : Execute\n")
    ad_chars = rng.choice([20_000, 60_000, 150_000])
    copies = MAX_ALIAS_CHARS // ad_chars * rng.choice([2, 5, 20]) + 2
    text = _alias_file(rng, ad_chars, copies)
    if len(text) > 256 * 1024:  # (keep under MAX_YAML_SIZE: the aliases are what is tested)
        text = _alias_file(rng, ad_chars, (256 * 1024 - ad_chars) // 40)
    (tmp_path / "t.yaml").write_text(text)
    status, out, err = _run(capsys, monkeypatch, tmp_path, "t.yaml")
    assert status == 2 and "MAX_ALIAS_CHARS" in err and out == "", err
    assert parsed["chars"] == 0  # refused before the first case


def test_a_few_aliases_of_an_ad_are_fine(tmp_path, capsys, monkeypatch, parsed):
    (tmp_path / "condor_config").write_text("use ROLE : Execute\n")
    text = _alias_file(random.Random(1), 5_000, 50)
    (tmp_path / "t.yaml").write_text(text.replace("expect: {start: true}", "expect: {is_owner: false}"))
    status, out, err = _run(capsys, monkeypatch, tmp_path, "t.yaml")
    assert status == 0 and "50 cases, 0 failed" in out, err
    assert parsed["ads"] >= 50


@pytest.mark.parametrize("seed", range(3))
def test_case_work_is_counted_and_ends_the_run(tmp_path, capsys, monkeypatch, parsed, seed):
    """Each case copies the slot ad and parses its ads: many small cases on a slot ad of many
    attributes cost cases x attributes, which no single case shows."""
    rng = random.Random(seed)
    limit = rng.choice([20_000, 60_000, 150_000])
    monkeypatch.setattr(policytest, "MAX_CASE_WORK", limit)
    attributes = rng.randrange(200, 1000)
    (tmp_path / "condor_config").write_text("use ROLE : Execute\n" + "".join(f"X{i} = {i}\n" for i in range(attributes))
                                            + "STARTD_ATTRS = " + " ".join(f"X{i}" for i in range(attributes)) + "\n")
    cases = [{"name": f"c{i}", "job": f"Owner = \"{'y' * rng.randrange(10, 100)}\"", "expect": {"is_owner": False}}
             for i in range(400)]
    text = json.dumps({"config": "condor_config", "cases": cases})
    (tmp_path / "t.json").write_text(text)
    status, out, err = _run(capsys, monkeypatch, tmp_path, "t.json", "--format", "json")
    assert status == 2 and "MAX_CASE_WORK" in err
    report = json.loads(out)
    run = len(report["files"][0]["cases"])
    assert report["passed"] is False and "MAX_CASE_WORK" in report["stopped"]["message"] and 0 < run < len(cases)
    assert parsed["ads"] == run  # the case that would pass the limit is not run
    assert run * attributes + parsed["chars"] <= limit + len(text)  # the work done stayed within the limit


# --- bounded failures ---------------------------------------------------------------------------------

def _failing_pool(rng: random.Random, folder: Path, clauses: int, cases: int, value: int) -> Path:
    """A policy of ``clauses`` comparisons and ``cases`` jobs that fail every one with long values."""
    folder.mkdir(parents=True, exist_ok=True)
    start = " && ".join(f'TARGET.S{i} == "{"w" * rng.randrange(1, 2 * value)}"' for i in range(clauses))
    (folder / "condor_config").write_text(f"use ROLE : Execute\nSTART = {start}\n")
    jobs = [{"name": f"case {n}", "expect": {"start": True, "matches": True},
             "job": "\n".join(f'S{i} = "{"v" * rng.randrange(1, 2 * value)}"' for i in range(clauses))}
            for n in range(cases)]
    path = folder / "t.json"
    path.write_text(json.dumps({"config": "condor_config", "cases": jobs}))
    return path


def _explanations(out: str, fmt: str) -> list[list[str]]:
    """The explanation lines of each failing check a report shows."""
    if fmt == "json":
        return [k["explanation"] for f in json.loads(out)["files"] for c in f["cases"] for k in c["checks"]
                if not k["ok"]]
    text = out if fmt == "text" else "\n".join(e.text or "" for e in ET.fromstring(out).iter("failure"))
    checks, indent = [], "          " if fmt == "text" else "  "
    for line in text.splitlines():
        if line.lstrip().startswith(("start:", "matches:")):
            checks.append([])
        elif checks and line.startswith(indent):
            checks[-1].append(line[len(indent):])
    return checks


@pytest.mark.parametrize("seed", range(3))
def test_a_failing_check_shows_bounded_lines_and_values(tmp_path, capsys, monkeypatch, seed):
    rng = random.Random(seed)
    clauses = policytest.MAX_EXPLANATION_LINES + rng.randrange(5, 40)
    path = _failing_pool(rng, tmp_path, clauses, 3, policytest.MAX_SHOWN_CHARS * 2)
    for fmt in FORMATS:
        status, out, err = _run(capsys, monkeypatch, tmp_path, path, "--format", fmt)
        assert status == 1, err
        checks = _explanations(out, fmt)
        assert len(checks) == 6, fmt  # start and matches of three cases
        for lines in checks:
            assert len(lines) <= policytest.MAX_EXPLANATION_LINES and "more lines not shown" in lines[-1]
            assert sum("FAIL" in line for line in lines) >= policytest.MAX_EXPLANATION_LINES - 2  # failing first
            assert max(map(len, lines)) < 6 * policytest.MAX_SHOWN_CHARS + 200
        assert "more characters" in out


@pytest.mark.parametrize("seed", range(3))
def test_many_failing_cases_end_at_the_report_limit(tmp_path, capsys, monkeypatch, seed):
    rng = random.Random(seed)
    files = [_failing_pool(rng, tmp_path / f"p{n}", rng.randrange(10, 30), rng.randrange(300, 600), 150)
             for n in range(rng.randrange(1, 3))]
    total = sum(len(json.loads(p.read_text())["cases"]) for p in files)
    for fmt in FORMATS:
        status, out, err = _run(capsys, monkeypatch, tmp_path, *files, "--format", fmt)
        assert status == 2 and "MAX_REPORT_CHARS" in err and "Traceback" not in err
        _parses(out, fmt)
        checks = _explanations(out, fmt)
        shown = len(checks) // 2
        assert 0 < shown < total  # the run stopped part way, and said so
        assert "MAX_REPORT_CHARS" in out
        # what was shown is what the limit allows: a case's own lines, plus its failures' text
        assert sum(len(line) for lines in checks for line in lines) <= policytest.MAX_REPORT_CHARS
        assert len(out) <= 3 * policytest.MAX_REPORT_CHARS + 2_000 * shown


def test_a_spent_classad_budget_stops_the_run(tmp_path, capsys, monkeypatch):
    path = _failing_pool(random.Random(7), tmp_path, 20, 400, 5)
    with budget_module.command_budget(budget_module.Budget(work=20_000)):
        status, out, err = _run(capsys, monkeypatch, tmp_path, path, "--format", "json")
    report = json.loads(out)
    assert status == 2 and "WORK_LIMIT" in report["stopped"]["message"] and "WORK_LIMIT" in err
    assert len(report["files"][0]["cases"]) < 400
    assert not any("error" in json.dumps(c["checks"]).lower() for c in report["files"][0]["cases"])


def test_long_names_and_values_in_a_case_are_cut(tmp_path, capsys, monkeypatch):
    (tmp_path / "condor_config").write_text("use ROLE : Execute\n")
    long = "n" * 5000
    (tmp_path / "t.yaml").write_text(textwrap.dedent(f"""\
        config: condor_config
        cases:
          - {{name: {long}, job: 'A = 1', expect: {{start: {long}}}}}
          - {{name: x, slot: {long}, expect: {{start: true}}}}
          - {{name: y, job: 'A = 1', expect: {{rank: {long}}}}}
        """))
    for fmt in FORMATS:
        status, out, err = _run(capsys, monkeypatch, tmp_path, "t.yaml", "--format", fmt)
        assert status == 1 and long not in out and "more characters" in out, err
        assert len(out) < 10 * policytest.MAX_SHOWN_CHARS + 3000
