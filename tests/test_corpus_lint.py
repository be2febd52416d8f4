"""Lint every real configuration of shared/corpus/real (each file alone, as one configuration).

* no rule may crash on real-world input (no internal-error finding);
* the error-level findings must equal tests/data/corpus_lint_triage.yaml exactly: every
  entry there says why the finding is a true problem; a new error is either a bug to fix
  or a true problem to add with its reason (false positives are never listed);
* the run stays fast enough for a commit hook.

``python tests/test_corpus_lint.py`` prints the current error findings as triage entries
(with the message where the reason goes), to review and merge into the triage file.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from condorcfg.lint import engine
from condorcfg.lint.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
TRIAGE_FILE = ROOT / "tests" / "data" / "corpus_lint_triage.yaml"
REVIEW_FILE = ROOT / "tests" / "data" / "corpus_lint_review.yaml"


def _corpus_files(shared) -> list[str]:
    real = shared("corpus", "real")
    rows = [json.loads(line) for line in (real / "golden.jsonl").read_text().splitlines() if line.strip()]
    return [row["file"] for row in rows if not row.get("templated")]


@pytest.fixture(scope="module")
def corpus_results(shared):
    real = shared("corpus", "real")
    rules = load_rules([ROOT / "rules"])
    results, started = {}, time.perf_counter()
    for name in _corpus_files(shared):
        results[name] = engine.run(str(real / name), ruleset=rules).findings
    return results, time.perf_counter() - started


def _error_findings(results) -> set[tuple[str, int, str]]:
    found = set()
    for name, findings in results.items():
        for finding in findings:
            if finding.severity == "error":
                found.add((name, finding.location.line if finding.location else 0, finding.code))
    return found


def _triage() -> list[dict]:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(TRIAGE_FILE.read_text()) or []


def test_corpus_has_all_files(shared):
    assert len(_corpus_files(shared)) == 147


def test_no_rule_crashes_on_the_corpus(corpus_results):
    results, _elapsed = corpus_results
    crashes = [f"{name}: {f.message}" for name, findings in results.items() for f in findings
               if f.rule == engine.INTERNAL_ERROR]
    assert not crashes, "\n".join(crashes)


def test_every_triage_entry_gives_a_reason():
    entries = _triage()
    assert entries, "the triage list is empty"
    for entry in entries:
        assert set(entry) == {"file", "line", "code", "rule", "reason"}, entry
        assert isinstance(entry["reason"], str) and len(entry["reason"]) > 20, entry


def test_error_findings_equal_the_triage_list(corpus_results):
    results, _elapsed = corpus_results
    found = _error_findings(results)
    listed = Counter((e["file"], e["line"], e["code"]) for e in _triage())
    duplicates = [key for key, count in listed.items() if count > 1]
    assert not duplicates, f"listed twice in {TRIAGE_FILE.name}: {duplicates}"
    new = sorted(found - set(listed))
    gone = sorted(set(listed) - found)
    messages = {(name, f.location.line if f.location else 0, f.code): f.message
                for name, findings in results.items() for f in findings}
    assert not new, ("error findings not in the triage list (fix the false positive, or add the true "
                     "problem with its reason):\n" + "\n".join(f"{k} {messages[k]}" for k in new))
    assert not gone, f"triage entries that are no longer reported (remove them): {gone}"


def _review() -> list[dict]:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(REVIEW_FILE.read_text()) or []


def test_every_review_entry_has_a_verdict_and_a_reason():
    entries = _review()
    assert len(entries) > 400
    for entry in entries:
        assert set(entry) == {"file", "line", "code", "verdict", "reason"}, entry
        assert entry["verdict"] in ("true", "debatable"), entry  # a false finding is a bug, never listed
        assert isinstance(entry["reason"], str) and len(entry["reason"]) > 15, entry


def test_warning_and_info_findings_equal_the_review(corpus_results):
    """Every finding below error level on the corpus has a reviewed verdict, and nothing else is listed: a
    new finding is reviewed (a false one is fixed, not listed), a finding that went away is removed."""
    results, _elapsed = corpus_results
    found = Counter((name, f.location.line if f.location else 0, f.code)
                    for name, findings in results.items() for f in findings if f.severity != "error")
    listed = Counter((e["file"], e["line"], e["code"]) for e in _review())
    messages = {(name, f.location.line if f.location else 0, f.code): f.message
                for name, findings in results.items() for f in findings}
    new = sorted((found - listed).elements())
    gone = sorted((listed - found).elements())
    assert not new, ("findings without a verdict in " + REVIEW_FILE.name + " (fix a false one; review a true one):\n"
                     + "\n".join(f"{k} {messages[k]}" for k in new))
    assert not gone, f"review entries no longer reported (remove them): {gone}"


def test_triage_rule_slugs_match_codes():
    rules = load_rules([ROOT / "rules"])
    for entry in _triage():
        rule = rules.get(entry["code"])
        assert rule is not None and rule.name == entry["rule"], entry


def test_corpus_lint_is_fast(corpus_results):
    _results, elapsed = corpus_results
    assert elapsed < 30, f"linting the 147 corpus files took {elapsed:.1f} s"


if __name__ == "__main__":  # print the current error findings as triage entries, for review
    import os

    shared_dir = Path(os.environ.get("CONDORCFG_SHARED", ROOT.parent / "shared"))
    real_dir = shared_dir / "corpus" / "real"
    ruleset = load_rules([ROOT / "rules"])
    for corpus_file in _corpus_files(lambda *parts: shared_dir.joinpath(*parts)):
        for item in engine.run(str(real_dir / corpus_file), ruleset=ruleset).findings:
            if item.severity == "error":
                print(f"- file: {corpus_file}\n  line: {item.location.line if item.location else 0}\n"
                      f"  code: {item.code}\n  rule: {item.rule}\n  reason: {json.dumps(item.message)}")
