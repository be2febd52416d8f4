"""condorcfg diff output of values: a long value's change is never cut away in markdown, and text output
never prints ``None``.

* markdown: a value longer than SHOWN_VALUE shows its changed words (common words around them elided with
  "…", both sides) in the table, and its full old and new values in a collapsed <details> block whose
  strings stay inside code (a value holding ``` or </details> cannot break out); the full values fill only
  the room under MAX_COMMENT_CHARS and are left out with a note past it, the changed words never;
* text: an unset side (a knob added or removed, a slot attribute that appears or disappears) reads
  ``(unset)``, a definition without a place is never ``None``; JSON keeps ``null`` for them.
"""
from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import pytest

from commonmark import code_spans
from condorcfg.cli import main
from condorcfg.commands import diff as diff_command
from condorcfg.config.model import Definition
from condorcfg.diagnostics import Location
from condorcfg.diff import SlotChange, ValueChange
from condorcfg.textsafe import defuse, printable

CLAUSES = [f'(TARGET.Owner =!= "user{i:02d}")' for i in range(12)]
LONG_START = " && ".join(CLAUSES[:6] + ["(TARGET.RequestMemory <= 2048)"] + CLAUSES[6:])  # ~400 characters
NEW_START = LONG_START.replace("RequestMemory <= 2048", "RequestMemory <= 4096")
PROFILE = "hostname: ep.example.org\ncpus: 4\nmemory: 8192\n"


# -- a markdown reader, enough of CommonMark for this comment --------------------------------------------------

SUMMARY = re.compile(r"<details><summary>(.*)</summary>")


def _read(markdown: str) -> dict:
    """The parts of a diff comment, checking on the way that no string from the configuration can make
    markup: outside code spans and fenced blocks no backtick, HTML, mention, image or link but the
    <details>/<summary> lines the comment makes, whose only variable text is in escaped <code>; every
    fenced block is closed by its own fence; <details> blocks are balanced and set apart by blank lines."""
    lines = markdown.split("\n")
    found = {"rows": [], "fenced": [], "summaries": [], "spans": []}
    index, depth = 0, 0
    while index < len(lines):
        line = lines[index]
        fence = re.fullmatch(r"(`{3,})", line)
        if fence:  # a fenced block: its one line of content, then the same fence
            assert lines[index + 2] == fence.group(1), lines[index:index + 3]
            content = lines[index + 1]
            assert not re.fullmatch(r" {0,3}`{%d,} *" % len(fence.group(1)), content)  # (cannot close it)
            assert max((len(r) for r in re.findall(r"`+", content)), default=0) < len(fence.group(1))
            assert lines[index - 1] == "" and lines[index + 3] == "", lines[index - 1:index + 4]
            found["fenced"].append(content)
            index += 3
            continue
        summary = SUMMARY.fullmatch(line)
        if summary:
            assert depth == 0 and lines[index - 1] == "" and lines[index + 1] == "", line
            depth += 1
            text = summary.group(1)
            codes = re.findall(r"<code>(.*?)</code>", text)
            for code in codes:
                assert "<" not in code and ">" not in code and '"' not in code, code
                assert re.sub(r"&(amp|lt|gt|quot|#x27);", "", code).count("&") == 0, code
            fixed = re.sub(r"<code>.*?</code>", "", text)
            assert re.fullmatch(r"Full old and new value of ( on )?( and [\d,]+ more slots?)?", fixed), fixed
            found["summaries"].append([html.unescape(code) for code in codes])
        elif line == "</details>":
            assert depth == 1 and lines[index - 1] == "" and lines[index + 1] == "", lines[index - 1:index + 2]
            depth -= 1
        else:
            spans, outside = code_spans(line)
            assert "`" not in outside, line
            assert "<" not in outside and "![" not in outside and "](" not in outside, line
            assert "@" not in outside and "&" not in outside, line
            if line.startswith("|"):
                spans = [span.replace("\\|", "|") for span in spans]
                assert len(re.findall(r"(?<!\\)\|", outside)) - 1 in (4, 5), line
                found["rows"].append(line)
            found["spans"] += spans
        index += 1
    assert depth == 0
    return found


def _row(found: dict, text: str) -> str:
    rows = [row for row in found["rows"] if text in row]
    assert len(rows) == 1, (text, rows)
    return rows[0]


def _place(text: str) -> Definition:
    return Definition("X", "x", Location(text, 1, 1))


# -- the changed words --------------------------------------------------------------------------------------

def test_changed_words_elide_the_common_words_on_both_sides():
    (before, old, after), (before_new, new, after_new) = diff_command.changed_words(LONG_START, NEW_START)
    assert (old, new) == ("2048", "4096") and (before, after) == (before_new, after_new)
    assert before.startswith("…") and before.endswith("(TARGET.RequestMemory <= ")
    assert after.startswith(") && (TARGET.Owner =!= ") and after.endswith("…")
    assert len(before) - 1 <= diff_command.CONTEXT and len(after) - 1 <= diff_command.CONTEXT


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("a b c", "a x c", (("a ", "b", " c"), ("a ", "x", " c"))),
    ("a c", "a b c", (("a ", "", "c"), ("a ", "b ", "c"))),  # an insertion: nothing on the old side
    ("a b c", "a c", (("a ", "b ", "c"), ("a ", "", "c"))),
    ("x b c", "y b c", (("", "x", " b c"), ("", "y", " b c"))),  # at the start: no context before
    ("a b x", "a b y", (("a b ", "x", ""), ("a b ", "y", ""))),
    ("abc", "xyz", (("", "abc", ""), ("", "xyz", ""))),
    ("Memory > 2048", "Memory > 20480", (("Memory > ", "2048", ""), ("Memory > ", "20480", ""))),  # whole words
])
def test_changed_words_cases(old, new, expected):
    assert diff_command.changed_words(old, new) == expected


def test_context_is_cut_at_words_and_a_long_word_at_characters():
    words = " ".join(f"w{i}" for i in range(40))
    (before, changed, after), _new = diff_command.changed_words(words + " OLD " + words, words + " NEW " + words)
    assert changed == "OLD" and before == "…w30 w31 w32 w33 w34 w35 w36 w37 w38 w39 "  # (40 characters)
    assert after == " w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11…"
    long_word = "y" * 300
    (before, changed, after), _new = diff_command.changed_words(long_word + " 1 " + long_word,
                                                                long_word + " 2 " + long_word)
    assert (before, changed, after) == ("…" + "y" * 39 + " ", "1", " " + "y" * 39 + "…")


def test_generated_changes_are_never_cut_away():
    """Whatever two values are, the cells' parts are a common prefix, each side's changed words, and a common
    suffix: nothing that differs is left out, and the context shown is the text next to the change."""
    rng = random.Random(4242)
    alphabet = ["a", "b", " ", "(", ")", "&&", "1", "22", "x_y", "\t", "é", "`"]
    for _ in range(400):
        base = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        cut, end = sorted(rng.randint(0, len(base)) for _ in range(2))
        old = base[:cut] + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) + base[end:]
        new = base[:cut] + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) + base[end:]
        if old == new:
            continue
        (before, old_part, after), (before_new, new_part, after_new) = diff_command.changed_words(old, new, 10)
        assert (before, after) == (before_new, after_new) and (old_part or new_part)
        shown_before, shown_after = before.removeprefix("…"), after.removesuffix("…")
        assert len(shown_before) <= 10 and len(shown_after) <= 10
        # old = P + old_part + S and new = P + new_part + S, the context shown P's end and S's start
        assert any(old[:k] == new[:k] and old[k:k + len(old_part)] == old_part
                   and new[k:k + len(new_part)] == new_part and old[k + len(old_part):] == new[k + len(new_part):]
                   and old[:k].endswith(shown_before) and old[k + len(old_part):].startswith(shown_after)
                   and (before.startswith("…") or old[:k] == shown_before)
                   and (after.endswith("…") or old[k + len(old_part):] == shown_after)
                   for k in range(len(old) + 1)), (old, new, old_part, new_part)


# -- markdown of a long START change -------------------------------------------------------------------------

@pytest.fixture
def long_start(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(PROFILE)
    (tmp_path / "old").write_text(f"NUM_SLOTS = 3\nSTART = {LONG_START}\n")
    (tmp_path / "new").write_text(f"NUM_SLOTS = 3\nSTART = {NEW_START}\n")
    return tmp_path


def test_a_long_start_change_shows_the_changed_clause_and_the_full_values(long_start, capsys):
    assert main(["diff", "old", "new", "--machine", "m.yaml", "--no-ads", "--format", "markdown"]) == 1
    found = _read(capsys.readouterr().out)
    row = _row(found, "`START`")
    assert "(TARGET.RequestMemory <= `**`2048`**`) && (TARGET.Owner" in row
    assert "(TARGET.RequestMemory <= `**`4096`**`) && (TARGET.Owner" in row
    assert len(row) < 2 * (2 * diff_command.CONTEXT + 60) + 60  # the changed words, not the 400 characters
    assert found["fenced"] == [LONG_START, NEW_START] and found["summaries"] == [["START"]]


def test_slot_ads_with_a_long_value_show_the_changed_words_once_per_distinct_change(long_start, capsys):
    assert main(["diff", "old", "new", "--machine", "m.yaml", "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    found = _read(markdown)
    starts = [row for row in found["rows"] if "| `Start` |" in row]
    assert len(starts) == 3
    for row in starts:
        assert "RequestMemory <= `**`2048`**`)" in row and "RequestMemory <= `**`4096`**`)" in row
        assert len(row) < 2 * (2 * diff_command.CONTEXT + 60) + 80
    assert len(found["fenced"]) == 4  # START's two values, then the slots' Start values once for all 3 slots
    assert "RequestMemory <= 2048" in found["fenced"][2] and "RequestMemory <= 4096" in found["fenced"][3]
    assert found["summaries"] == [["START"], ["Start", "slot1@ep.example.org"]]
    assert ("<summary>Full old and new value of <code>Start</code> on <code>slot1@ep.example.org</code> and 2 more "
            "slots</summary>") in markdown


def test_short_values_are_shown_whole_with_no_details(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old").write_text("START = Memory > 1\nA = x\n")
    (tmp_path / "new").write_text("START = Memory > 2\nB = y\n")
    assert main(["diff", "old", "new", "--no-ads", "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "| changed | `START` | `Memory > 1` | `Memory > 2` |" in markdown and "<details>" not in markdown
    assert "| added | `B` | *(unset)* | `y` |" in markdown and "| removed | `A` | `x` | *(unset)* |" in markdown


def test_a_long_added_value_starts_in_the_table_and_is_whole_in_details():
    value = "x" * 50 + " && " + "y" * 200
    found = _read(diff_command._markdown([ValueChange("START", None, value, None, _place("new"))], [],
                                         ("old", "new"), 0))
    row = _row(found, "`START`")
    assert "*(unset)*" in row and "`" + value[:diff_command.SHOWN_VALUE] + "…`" in row
    assert found["fenced"] == [value]


# -- hostile long values ------------------------------------------------------------------------------------

BREAKERS = ["```", "````", "`", "</details>", "<details>", "</summary>", "</code>", "</pre>", "<img src=x>",
            "@octocat", "@org/team", "#1", "|", "\n", "\n\n", "<!--", "-->", "![x](http://t.example/p.png)",
            "[a](http://t.example)", "&amp;", "&", "*", "**", "_", "~~~", ":+1:", "\t", "\u202e", "::error::x",
            "##[group]", "…", "    ", " ", "x", "knob"]


def test_values_holding_fences_and_details_tags_stay_inside_their_blocks():
    old = "A " * 60 + "``` </details>\n\n<img src=x> @octocat" + " B" * 60
    new = "A " * 60 + "```` </details></summary>#1 | ![x](y)" + " B" * 60
    values = [ValueChange("</details>`@x", old, new, _place("a"), _place("b"))]
    fleet = [(["ep"], [SlotChange("slot1@</summary>", "Start```", old, new)])]
    found = _read(diff_command._markdown(values, fleet, ("o", "n"), 1))
    assert found["fenced"] == [printable(old), printable(new)] * 2
    assert found["summaries"] == [["</details>`@x"], ["Start```", "slot1@</summary>"]]
    row = _row(found, "</details>`@x")
    assert "**" in row and "#1 " in "".join(found["spans"])


def test_generated_hostile_long_values_stay_in_code():
    rng = random.Random(2028)

    def hostile(low: int, high: int) -> str:
        return "".join(rng.choice(BREAKERS) for _ in range(rng.randint(low, high)))

    for _ in range(150):
        base = hostile(30, 80)
        cut = rng.randint(0, len(base))
        old, new = base[:cut] + hostile(0, 3) + base[cut:], base[:cut] + hostile(1, 3) + base[cut:]
        if old == new:
            continue
        name, slot, attribute, host = hostile(1, 4), hostile(1, 4), hostile(1, 4), hostile(1, 3)
        values = [ValueChange(name, old, new, _place(hostile(1, 3)), _place("x")),
                  ValueChange("ADDED", None, new, None, _place("y"))]
        fleet = [([host, "ep64"], [SlotChange(slot, attribute, old, new), SlotChange(slot + "2", attribute, old, new),
                                   SlotChange(slot, "Gone", old, None)])]
        found = _read(defuse(diff_command._markdown(values, fleet, (hostile(1, 3), hostile(1, 3)), 2)))
        long = max(len(printable(old)), len(printable(new))) > diff_command.SHOWN_VALUE
        if long:
            assert found["fenced"] == [defuse(printable(v)) for v in (old, new, new, old, new, old)]
            assert len(found["summaries"]) == 4
        assert len(found["rows"]) == 2 + 2 + 2 + 3


# -- the comment's size ---------------------------------------------------------------------------------------

def _many_long_changes(count: int) -> list[ValueChange]:
    return [ValueChange(f"KNOB{i}", LONG_START.replace("user03", f"old{i}"), LONG_START.replace("user03", f"new{i}"),
                        _place("a"), _place("b")) for i in range(count)]


def test_full_values_fit_the_comment_and_the_changed_words_are_always_there(monkeypatch):
    values = _many_long_changes(30)
    markdown = defuse(diff_command._markdown(values, [], ("o", "n"), 0))
    assert markdown.count("<details>") == 30 and "left out" not in markdown  # room for all
    monkeypatch.setattr(diff_command, "MAX_COMMENT_CHARS", 0)
    floor = len(defuse(diff_command._markdown(values, [], ("o", "n"), 0)))  # the tables and the note only
    for limit in (20_000, 9_000, floor, floor - 1, 1_000):
        monkeypatch.setattr(diff_command, "MAX_COMMENT_CHARS", limit)
        markdown = defuse(diff_command._markdown(values, [], ("o", "n"), 0))
        found = _read(markdown)
        for i in range(30):  # every change's words, whatever the room
            row = _row(found, f"`KNOB{i}`")
            assert f"`**`old{i}`**`" in row and f"`**`new{i}`**`" in row
        kept = markdown.count("<details>")
        assert kept < 30 and f"full values of {30 - kept:,} long values are left out" in markdown
        assert len(found["fenced"]) == 2 * kept
        if limit >= floor:  # the tables fit: the comment does too
            assert len(markdown) <= limit
        else:
            assert kept == 0
        assert (kept > 0) == (limit >= 9_000)
    monkeypatch.setattr(diff_command, "MAX_COMMENT_CHARS", 5_000)
    fleet = [(["ep"], [SlotChange(f"slot{i}@ep", "Start", v.old, v.new) for i, v in enumerate(values[:3])])]
    markdown = defuse(diff_command._markdown(values[:2], fleet, ("o", "n"), 1))
    found = _read(markdown)
    assert len(found["rows"]) == 2 + 2 + 2 + 3 and 0 < markdown.count("<details>") < 5
    assert "left out" in markdown and len(markdown) <= 5_000


def test_a_part_of_a_longer_comment_takes_a_smaller_limit():
    values = _many_long_changes(10)
    whole = defuse(diff_command._markdown(values, [], ("o", "n"), 0))
    part = defuse(diff_command._markdown(values, [], ("o", "n"), 0, limit=len(whole) // 2))
    assert whole.count("<details>") == 10 and 0 < part.count("<details>") < 10 and len(part) <= len(whole) // 2


def test_a_huge_changed_part_is_never_dropped(monkeypatch):
    monkeypatch.setattr(diff_command, "MAX_COMMENT_CHARS", 2_000)
    old, new = "A " * 100 + "x" * 5_000 + " B" * 100, "A " * 100 + "y" * 5_000 + " B" * 100
    markdown = diff_command._markdown([ValueChange("START", old, new, _place("a"), _place("b"))], [], ("o", "n"), 0)
    found = _read(markdown)
    assert "x" * 5_000 in _row(found, "`START`") and "y" * 5_000 in _row(found, "`START`")
    assert found["fenced"] == [] and "full values of 1 long value are left out" in markdown


# -- text: never None ---------------------------------------------------------------------------------------

def test_text_reads_unset_for_added_and_removed_knobs_and_slot_attributes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(PROFILE)
    (tmp_path / "old").write_text("NUM_SLOTS = 2\nSTARTD_ATTRS = SITE_A\nSITE_A = 1\nGONE = x\nEMPTIED = 3\n")
    (tmp_path / "new").write_text("NUM_SLOTS = 3\nSTARTD_ATTRS = SITE_B\nSITE_B = 2\nNEWK = y\nEMPTIED =\n")
    assert main(["diff", "old", "new", "--machine", "m.yaml"]) == 1
    text = capsys.readouterr().out
    assert "None" not in text
    assert re.search(r"^- GONE\n    - x    \(\S*old:4:1\)\n    \+ \(unset\)\n", text, re.M)
    assert re.search(r"^\+ NEWK\n    - \(unset\)\n    \+ y    \(\S*new:4:1\)\n", text, re.M)
    # (an empty value is unset to HTCondor: no place either, as in JSON)
    assert re.search(r"^- EMPTIED\n    - 3    \(\S*old:5:1\)\n    \+ \(unset\)\n", text, re.M)
    assert "  - slot1@ep.example.org SITE_A: 1 -> (unset)\n" in text
    assert "  + slot1@ep.example.org SITE_B: (unset) -> 2\n" in text
    assert "  + slot3@ep.example.org\n" in text and "  ~ slot1@ep.example.org Cpus: 2 -> 1\n" in text
    assert main(["diff", "old", "new", "--machine", "m.yaml", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    values = {v["name"]: v for v in data["values"]}
    assert values["GONE"]["new"] is None and values["GONE"]["new_source"] is None
    assert values["NEWK"]["old"] is None and values["NEWK"]["old_source"] is None
    slots = {(s["slot"], s["attribute"]): s for s in data["slots"]}
    assert slots[("slot1@ep.example.org", "SITE_A")]["new"] is None
    assert slots[("slot1@ep.example.org", "SITE_B")]["old"] is None
    assert slots[("slot3@ep.example.org", None)] == {"slot": "slot3@ep.example.org", "attribute": None,
                                                      "kind": "added", "old": None, "new": "present",
                                                      "machines": ["m.yaml"]}
    assert main(["diff", "old", "new", "--machine", "m.yaml", "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "None" not in markdown and "| `slot1@ep.example.org` | `SITE_A` | `1` | *(unset)* |" in markdown


def _template_definition(use_location) -> Definition:
    return Definition("START", "TRUE", Location("templates/role", 3, 1), origin="template", template="ROLE:Execute",
                      use_location=use_location)


@pytest.mark.parametrize(("source", "shown"), [
    (None, "built-in"),  # a value with no definition: the built-in default
    (Definition("START", "TRUE", None), "an unknown place"),  # a definition without a location
    (Definition("START", "TRUE", Location(None)), "an unknown place"),  # a location without a file
    (Definition("START", "TRUE", Location("")), "an unknown place"),
    (_template_definition(None), "templates/role:3:1 (template ROLE:Execute)"),  # no `use` line
    (_template_definition(Location("etc/condor_config", 7, 1)),
     "templates/role:3:1 (template ROLE:Execute, used at etc/condor_config:7:1)"),
])
def test_a_place_is_never_none_in_any_format(source, shown, capsys):
    changes = [ValueChange("START", "TRUE", "FALSE", source, source),
               ValueChange("ADDED", None, "1", None, source), ValueChange("REMOVED", "1", None, source, None)]
    fleet = [(["ep"], [SlotChange("slot1@ep", "Start", None, "TRUE"), SlotChange("slot1@ep", "Gone", "1", None),
                       SlotChange("slot2@ep", None, "present", None)])]
    diff_command._text(changes, fleet)
    text = capsys.readouterr().out
    assert "None" not in text and f"    + FALSE    ({shown})\n" in text
    assert "+ ADDED\n    - (unset)\n" in text and "- REMOVED\n" in text and "    + (unset)\n" in text
    assert "  + slot1@ep Start: (unset) -> TRUE\n  - slot1@ep Gone: 1 -> (unset)\n  - slot2@ep\n" in text
    markdown = diff_command._markdown(changes, fleet, ("o", "n"), 1)
    assert "None" not in markdown and f"`{shown}`" in markdown
    data = diff_command._json(changes, fleet, ("o", "n"))
    assert data["values"][0]["new_source"] == shown and data["values"][1]["old_source"] is None
