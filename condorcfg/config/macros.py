"""``$(...)`` references: finding them, and expanding text the way HTCondor does.

HTCondor expands a value by repeatedly finding the *leftmost* recognised
reference, replacing it with the referenced knob's raw text (or a function's
result, or the default), and scanning again from the start until nothing is
left (config-language.md section 8).  The substituted text is therefore
re-scanned together with its surroundings; a few odd inputs (nested
defaults, a substitution completing an earlier ``$(``) depend on that, so it
is copied here exactly, including the scanner's rules:

* ``$(NAME)`` / ``$(NAME:default)``: NAME is ``A-Z a-z 0-9 _ . /``; after the
  first ``:`` blanks, ``$ , \\ :`` are allowed too and a ``(`` skips to the
  next ``)``; anything else makes the text literal;
* ``$$(...)`` is left for the daemons (never expanded here);
* ``$(DOLLAR)`` becomes ``$`` only at the very end, so it is never re-expanded;
* ``$FUNC(body)`` bodies end at the first ``)``.

HTCondor hangs on reference cycles and exponential self-growth; here every
expansion is bounded per call (:data:`MAX_SUBSTITUTIONS`, :data:`MAX_EXPANDED_SIZE`,
:data:`MAX_WORK`: overrunning raises :class:`ExpansionLimit`, which the Config turns into a
diagnostic naming the cycle if there is one, else the limit - lint's CFG006) and charged to the
command's :class:`~condorcfg.config.limits.Budget` (shared by all expansions of one configuration).
A value's references to its own knob that grow past those limits while it is assigned raise
:class:`~condorcfg.config.limits.BudgetExceeded` naming the limit: that is growth, never a cycle.

Rescanning from the start after every substitution is quadratic when many ``$`` that
start nothing (``$$(X)``, a ``$(`` nest) come first, so the scan remembers where each
rejected ``$`` stopped looking (:class:`_Walk`): after a substitution at ``s`` only the
``$`` whose scan reached ``s`` or beyond can change their verdict, and scanning resumes at
the first of those.  That finds exactly the macro a scan from the start would.

A knob's expansion can be remembered (:class:`Memo`): when the text a ``$(X)`` put in is
expanded without any scan leaving it and without interference from around it, the result
is what expanding X's raw value alone gives, so later ``$(X)`` take that result directly.
This keeps long reference chains linear (each link expanded once) without changing any
result.
"""
from __future__ import annotations

import re
from bisect import bisect_left

from condorcfg.config.limits import BUDGET_CODE, SCAN_COST, Budget, BudgetExceeded
from condorcfg.diagnostics import Diagnostic

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Callable, Iterator

NORMAL = "$"  # $(NAME)
DOUBLE_DOLLAR = "$$"  # $$(ATTR) - left alone
FILENAME = "F"  # $F<letters>(x)
FUNCTIONS = ("ENV", "RANDOM_CHOICE", "RANDOM_INTEGER", "CHOICE", "SUBSTR", "INT", "REAL", "STRING",
             "EVAL", "BASENAME", "DIRNAME")
FILENAME_LETTERS = frozenset("pdnxbqafwuPDNXBQAFWU")

MAX_SUBSTITUTIONS = 20_000
MAX_EXPANDED_SIZE = 1_000_000
MAX_WORK = 50_000_000  # characters copied over all substitutions of one expansion
MAX_MEMO_CHARS = 32 * 1024 * 1024  # characters of remembered expansions per configuration
MAX_REFERENCE_SCAN = 64  # references(): characters scanned per character of text (plus a constant)
_CHARGE_EVERY = 1 << 20  # an expansion's scan charges the budget after this many characters examined

_ANYTHING, _IDCHAR_COLON, _SCAN_BRACKET = range(3)


_IDCHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./")
# The body of $(NAME:default): identifier characters, then after the first ":" also "$ ,\\:"
# and "(...)" groups (a "(" skips to the next ")"); it must be followed by ")".  HTCondor scans
# this character by character; one regular expression does the same in C.  It cannot fail
# (everything is optional), so it never backtracks.
_IDCHAR_COLON_BODY = re.compile(r"[A-Za-z0-9_./]*(?::(?:[A-Za-z0-9_./$ ,\\:]+|\([^)]*\))*)?")
# a whole plain reference whose default has no "$" and no parentheses
_PLAIN_REF = re.compile(r"\$\(([A-Za-z0-9_./]*)(?::[A-Za-z0-9_./ ,\\:]*)?\)")


class MacroRef:
    """A ``$(name)`` / ``$(name:default)`` written in a value; ``start``/``end`` index the text.

    (Immutable by convention, compared and hashed by value; not a dataclass: start-up time.)
    """

    __slots__ = ("name", "default", "start", "end")

    def __init__(self, name: str, default: str | None, start: int, end: int):
        self.name = name
        self.default = default
        self.start = start
        self.end = end

    def _key(self) -> tuple:
        return (self.name, self.default, self.start, self.end)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"MacroRef(name={self.name!r}, default={self.default!r}, start={self.start!r}, end={self.end!r})"


class Found:
    """One recognised macro: ``kind`` is NORMAL, DOUBLE_DOLLAR, FILENAME or a function name.

    ``prefix`` is the text between "$" and "(" (the letters for FILENAME); ``end`` is the
    index after the closing ")".  (Slotted, not a dataclass: expansion makes many of these.)
    """

    __slots__ = ("kind", "prefix", "body", "start", "end")

    def __init__(self, kind: str, prefix: str, body: str, start: int, end: int):
        self.kind = kind
        self.prefix = prefix
        self.body = body
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Found({self.kind!r}, {self.prefix!r}, {self.body!r}, {self.start}, {self.end})"


class ExpansionLimit(Exception):
    """Expansion did not finish within the bounds (a reference cycle or explosive growth).

    ``growth`` is True when a size/work bound was hit (the text kept growing), False when
    nesting was too deep; only a search of the references can tell a cycle from mere growth.
    """

    def __init__(self, reason: str, text: str, growth: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.text = text
        self.growth = growth


def _classify(prefix: str, next_char: str) -> tuple[str, int] | None:
    """Which macro a ``$prefix(`` starts, and how its body is scanned; None if not a macro."""
    if prefix == "":
        return NORMAL, _IDCHAR_COLON
    if prefix == "$":
        return DOUBLE_DOLLAR, (_SCAN_BRACKET if next_char == "[" else _IDCHAR_COLON)
    if prefix in FUNCTIONS:
        return prefix, (_IDCHAR_COLON if prefix == "ENV" else _ANYTHING)
    if prefix[0] == "F" and all(c in FILENAME_LETTERS for c in prefix[1:]):
        return FILENAME, _ANYTHING
    return None


_PREFIX_RUN = re.compile(r"[A-Za-z0-9_]*")
_RANDOM_KINDS = frozenset({"RANDOM_CHOICE", "RANDOM_INTEGER"})  # their result depends on the knob expanded


class _Walk:
    """Every ``$`` a scan rejected, and how far it looked: where to resume after a substitution.

    ``starts[i]`` is the i-th rejected ``$`` (left to right), ``ends[i]`` the last index its scan
    examined (``len(text)`` when the verdict depends on what follows the text) and ``reach[i]``
    the largest of ``ends[:i+1]``.  ``scanned`` counts the characters examined, for the budget.
    With ``keep=False`` only ``scanned`` is kept.

    A ``$$([`` with no ``"])"`` after it looked to the end, but its verdict changes only if a
    ``"])"`` appears there: it is kept in ``brackets`` (its ``$`` and where its search began) and
    left out of ``reach``, so a substitution far after it does not rescan everything from it.

    One scan can examine a lot (each ``$(A:`` of ``$(A:x $(A:x ... (...)!`` looks to the end), so
    the characters are also counted as they go: past ``limit`` the scan stops with
    :class:`_ScanLimit` (``budget`` given: they are charged to it, which raises once it is spent).
    """

    __slots__ = ("starts", "ends", "reach", "brackets", "scanned", "keep", "budget", "limit")

    def __init__(self, keep: bool = True, budget=None, limit: int | None = None):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.reach: list[int] = []
        self.brackets: list[tuple[int, int]] = []
        self.scanned = 0
        self.keep = keep
        self.budget = budget
        self.limit = limit if limit is not None else (_CHARGE_EVERY if budget is not None else 1 << 62)

    def reject(self, dollar: int, end: int, bracket_from: int = -1) -> None:
        self.scanned += end - dollar + 1
        if self.scanned > self.limit:
            self._overrun()
        if self.keep:
            self.starts.append(dollar)
            self.ends.append(end)
            reach = self.reach
            if bracket_from >= 0:
                self.brackets.append((dollar, bracket_from))
                end = dollar
            reach.append(end if not reach or end > reach[-1] else reach[-1])

    def _overrun(self) -> None:
        if self.budget is None:
            raise _ScanLimit()
        self.charge(0, 0)

    def charge(self, steps: int, copied: int) -> None:
        """Charge the budget for ``steps``, ``copied`` characters and the characters scanned so far."""
        self.budget.spend(steps, self.scanned * SCAN_COST + copied)
        self.scanned = 0

    def restart(self, start: int, text: str) -> int:
        """Where to look again once the text from ``start`` on changed (``text`` is the new text):
        the first rejected ``$`` whose scan reached ``start`` (it may start a macro now), else
        ``start``.  The rejections from there on are forgotten; those before it stay valid,
        their scans end before ``start``."""
        index = bisect_left(self.reach, start)
        resume = self.starts[index] if index < len(self.starts) else start
        brackets = self.brackets
        if brackets:
            dollar, search_from = brackets[0]  # the first: its search covers every later one's
            if dollar < resume:
                self.scanned += len(text) - search_from
                if text.find("])", search_from) >= 0:
                    resume = dollar
                    index = bisect_left(self.starts, dollar)
            while brackets and brackets[-1][0] >= resume:
                brackets.pop()
        if index == len(self.starts):
            return start
        del self.starts[index:], self.ends[index:], self.reach[index:]
        return resume


class _ScanLimit(Exception):
    """A scan examined more than its walk's ``limit`` characters (no budget to charge)."""


def next_macro(text: str, pos: int, skip: "Callable[[str, str], bool]", walk: _Walk | None = None) -> Found | None:
    """The leftmost recognised macro at or after ``pos`` that ``skip(kind, body)`` does not reject.

    The walk over "$" characters is HTCondor's: a "$" consumed as the second character of
    "$$" or skipped over with a failed prefix is never a start position itself.  ``walk``
    records each rejected "$" and how far its scan looked.  Every scan is linear: the body
    rules are regular expressions or ``find``, and a ``$`` after the last ")" starts nothing.
    """
    length = len(text)
    last_close = text.rfind(")")  # every macro ends with ")"
    no_bracket = length + 1  # "])" does not occur from this index on
    search = pos
    while True:
        dollar = text.find("$", search)
        if dollar < 0:
            return None
        if dollar > last_close:
            if walk is not None:
                walk.reject(dollar, length)  # text appended after this one could still complete it
            return None
        # from here on dollar < last_close, and ")" is no prefix character: p stays below length
        p = dollar + 1
        if text[p] == "$":
            p += 1
        p = _PREFIX_RUN.match(text, p).end()
        if text[p] != "(":
            if walk is not None:
                walk.reject(dollar, p)
            search = p
            continue
        prefix = text[dollar + 1:p]
        kind = _classify(prefix, text[p + 1] if p + 1 < length else "")
        if kind is None:
            if walk is not None:
                walk.reject(dollar, p + 1)
            search = p
            continue
        kind, body_rule = kind
        name_start = p + 1
        if body_rule == _IDCHAR_COLON:
            q = _IDCHAR_COLON_BODY.match(text, name_start).end()
            if q >= length or text[q] != ")":
                if walk is not None:
                    # a "(" after the colon stopped it: its group has no ")", HTCondor's scan for one
                    # looked to the end; anywhere else the scan stopped at q
                    walk.reject(dollar, length if q < length and text[q] == "(" and ":" in text[name_start:q]
                                else q)
                search = name_start
                continue
        elif body_rule == _ANYTHING:
            q = text.find(")", name_start)  # found: name_start <= last_close
        else:  # _SCAN_BRACKET
            marker = text.find("])", name_start) if name_start < no_bracket else -1
            if marker < 0:
                no_bracket = name_start
                if walk is not None:
                    walk.reject(dollar, length, name_start)
                search = name_start
                continue
            q = marker + 1
        body = text[name_start:q]
        if skip(kind, body):
            if walk is not None:
                walk.reject(dollar, q)
            search = q
            continue
        return Found(kind, prefix[1:] if kind == FILENAME else prefix, body, dollar, q + 1)


def _skip_for_expansion(kind: str, body: str) -> bool:
    return kind == DOUBLE_DOLLAR or (kind == NORMAL and body.upper() == "DOLLAR")


def _only_dollar(kind: str, body: str) -> bool:
    return not (kind == NORMAL and body.upper() == "DOLLAR")


def _not_reference(kind: str, body: str) -> bool:
    return kind != NORMAL or body.upper() == "DOLLAR"


def _not_argument(kind: str, body: str) -> bool:
    return kind in (NORMAL, DOUBLE_DOLLAR) or kind == "ENV"


def _nested(text: str, skip) -> "Iterator[Found]":
    """The macros ``skip`` accepts, each one's inside searched too; bounded for hostile text.

    Nested defaults make the scans overlap; past ``MAX_REFERENCE_SCAN`` characters scanned per
    character of text the rest of the text is not searched (no real value comes near).
    """
    walk = _Walk(keep=False, limit=MAX_REFERENCE_SCAN * len(text) + 1_000_000)
    pos = 0
    while walk.scanned <= walk.limit:
        try:
            found = next_macro(text, pos, skip, walk)
        except _ScanLimit:
            return
        if found is None:
            return
        walk.scanned += found.end - found.start
        yield found
        pos = found.start + 2  # look inside the default too


def references(text: str) -> list[MacroRef]:
    """Every ``$(NAME)``/``$(NAME:default)`` written in ``text`` (nested defaults included), for lint."""
    refs: list[MacroRef] = []
    for found in _nested(text, _not_reference):
        name, colon, default = found.body.partition(":")
        refs.append(MacroRef(name, default if colon else None, found.start, found.end))
    return refs


def function_arguments(text: str) -> list[str]:
    """The words that dollar functions in ``text`` may read as knob names (``$INT(X)``, ``$CHOICE(1, L)``...).

    Used to find reference cycles that go through a function; the caller keeps the words that
    are defined knobs.
    """
    words: list[str] = []
    for found in _nested(text, _not_argument):
        words.extend(w.strip() for w in found.body.split(",") if w.strip() and all(c in _IDCHARS for c in w.strip()))
    return words


def split_body(body: str) -> tuple[str, str | None]:
    """``NAME:default`` -> (NAME, default); no colon -> (NAME, None)."""
    name, colon, default = body.partition(":")
    return name, (default if colon else None)


Evaluator = "Callable[[Found], str]"  # evaluate(found) -> replacement text


class Memo:
    """Remembered expansions of knobs (before ``$(DOLLAR)`` is replaced) for one configuration.

    ``lookup(name)`` is the raw value by the configuration's lookup order.  The owner calls
    :meth:`clear` whenever a definition changes.  ``epoch`` changes with every clear and every
    ``$RANDOM_*`` evaluated (whose result depends on the knob being expanded), so an expansion
    that saw either is not remembered.
    """

    __slots__ = ("lookup", "values", "chars", "epoch")

    def __init__(self, lookup: "Callable[[str], str | None]"):
        self.lookup = lookup
        self.values: dict[str, str] = {}
        self.chars = 0
        self.epoch = 0

    def clear(self) -> None:
        self.epoch += 1
        if self.values:
            self.values.clear()
            self.chars = 0

    def remember(self, key: str, text: str, epoch: int) -> None:
        if epoch == self.epoch and self.chars + len(text) <= MAX_MEMO_CHARS:
            self.chars += len(text) - len(self.values.get(key, ""))
            self.values[key] = text


def expand(text: str, evaluate: Evaluator, budget=None, memo: Memo | None = None, knob: str | None = None) -> str:
    """Expand every macro in ``text``; ``evaluate(found)`` gives the replacement of one macro.

    ``budget`` (a :class:`~condorcfg.config.limits.Budget`, default: a fresh one) is charged
    for the work.  With a ``memo``, ``$(NAME)`` is resolved through ``memo.lookup`` and
    remembered expansions; ``knob`` says ``text`` is that knob's raw value, to remember its
    expansion too.
    """
    if "$" not in text:
        return text
    if budget is None:
        budget = Budget()  # a caller without a configuration: this call's own budget
    budget.check()
    walk = _Walk(budget=budget)
    regions = _Regions()  # knob values being expanded in place: [key, start, tail length, epoch]
    if memo is not None and knob:
        regions.append([knob.upper(), 0, 0, memo.epoch])
    count = 0
    work = 0
    size_limit = max(MAX_EXPANDED_SIZE, 2 * len(text))
    resume = 0
    while True:
        first = len(walk.starts)
        found = None
        dollar = text.find("$", resume)
        if dollar >= 0:
            plain = _PLAIN_REF.match(text, dollar)
            if plain is not None and plain.group(1).upper() != "DOLLAR":
                # fast path: the first "$" starts a plain $(NAME) / $(NAME:default) - exactly what
                # next_macro would return for it
                found = Found(NORMAL, "", text[dollar + 2:plain.end() - 1], dollar, plain.end())
            else:
                found = next_macro(text, dollar, _skip_for_expansion, walk)
        if regions:
            _follow(regions, walk, first, found, text, memo)
        if found is None:
            walk.charge(1 + len(walk.starts) - first, 0)
            break
        if regions.counts and found.kind == NORMAL:
            name = split_body(found.body)[0]
            if name.upper() in regions.counts:
                # every open region holds ``found``: a value being expanded as it would be alone meets a
                # reference to itself, so its expansion contains itself and never ends - a cycle, found
                # after one round instead of at a limit (which costs MAX_WORK of the budget per knob)
                raise ExpansionLimit(f"$({name}) {CYCLE_FOUND}", text)
        # a remembered expansion stands for the raw value only where nothing before it scans into it
        clear = not walk.brackets and (not walk.reach or walk.reach[-1] < found.start)
        replacement, final, opened = _replacement(found, evaluate, memo if clear else None, memo)
        start = found.start
        text = text[:start] + replacement + text[found.end:]
        count += 1
        work += len(text)
        walk.charge(1 + len(walk.starts) - first, len(text))
        # (each message names its limit: lint reports a limit reached by that name, CFG006)
        if count > MAX_SUBSTITUTIONS:
            raise ExpansionLimit(f"it needs more than MAX_SUBSTITUTIONS, {MAX_SUBSTITUTIONS} substitutions "
                                 f"(the limit)", text, True)
        if work > MAX_WORK:
            raise ExpansionLimit(f"substituting copies more than MAX_WORK, {MAX_WORK} characters (the limit)", text,
                                 True)
        if len(text) > size_limit:
            raise ExpansionLimit(f"the expanded text grows beyond MAX_EXPANDED_SIZE, {size_limit} characters "
                                 f"(the limit)", text, True)
        resume = walk.restart(start, text)
        if final and resume == start:
            resume = start + len(replacement)  # a remembered expansion holds no macro: skip it
        if opened is not None:  # (at most one open region per substitution: bounded by MAX_SUBSTITUTIONS)
            regions.append([opened, start, len(text) - start - len(replacement), memo.epoch])
    return replace_dollar(text, budget)


CYCLE_FOUND = "refers back to itself while it is expanded (a reference cycle)"


class _Regions(list):
    """The open regions of :func:`expand` (innermost last), with how many are open per knob (``counts``)."""

    __slots__ = ("counts",)

    def __init__(self):
        super().__init__()
        self.counts: dict[str, int] = {}

    def append(self, region: list) -> None:
        super().append(region)
        self.counts[region[0]] = self.counts.get(region[0], 0) + 1

    def pop(self) -> list:
        region = super().pop()
        left = self.counts[region[0]] - 1
        if left:
            self.counts[region[0]] = left
        else:
            del self.counts[region[0]]
        return region


def _replacement(found: Found, evaluate: Evaluator, memo: Memo | None,
                 owner: Memo | None) -> tuple[str, bool, str | None]:
    """(text replacing ``found``, whether it is a remembered final expansion, the knob whose raw value it is).

    ``memo`` None: remembered expansions are not used (``owner``, the configuration's memo, still
    counts the ``$RANDOM_*`` evaluated)."""
    if memo is None:
        if owner is not None and found.kind in _RANDOM_KINDS:
            owner.epoch += 1
        return evaluate(found), False, None
    if found.kind != NORMAL:
        if found.kind in _RANDOM_KINDS:
            memo.epoch += 1
        return evaluate(found), False, None
    name, default = split_body(found.body)
    key = name.upper()
    remembered = memo.values.get(key)
    if remembered is not None:
        return remembered, True, None
    raw = memo.lookup(name) if name else None
    if raw:
        return raw, False, key
    return (default if default is not None else ""), False, None


def _follow(regions: list[list], walk: _Walk, first: int, found: Found | None, text: str, memo: Memo) -> None:
    """Update the knob values being expanded in place after one scan (``walk`` entries from ``first``).

    A region is remembered once the scan has moved past it (it holds no macro any more) if it
    was expanded exactly as its knob's value alone would be: no scan from inside it looked past
    its end, nothing from outside reached into it, and no ``$RANDOM_*`` was evaluated meanwhile.
    Regions nest, innermost last; each is pushed and popped once, so this stays linear.
    """
    length = len(text)
    starts, ends = walk.starts, walk.ends
    for index in range(first, len(starts)):
        dollar, end = starts[index], ends[index]
        _complete(regions, dollar, text, memo)
        while regions and dollar < regions[-1][1]:
            regions.pop()  # a scan from before the region: give it up (it may reach into the region)
        while regions and end >= length - regions[-1][2]:
            regions.pop()  # a scan from inside looked past the end: the value alone would differ
    if found is None:
        _complete(regions, length, text, memo)
        return
    _complete(regions, found.start, text, memo)
    while regions and (found.start < regions[-1][1] or found.end > length - regions[-1][2]):
        regions.pop()  # a macro across the region's edge: it is not expanded as the value alone


def _complete(regions: list[list], position: int, text: str, memo: Memo) -> None:
    """Remember (and close) the innermost regions that end at or before ``position``."""
    length = len(text)
    while regions and position >= length - regions[-1][2]:
        key, start, tail, epoch = regions.pop()
        memo.remember(key, text[start:length - tail], epoch)


def replace_dollar(text: str, budget=None) -> str:
    """Turn each ``$(DOLLAR)`` into ``$`` (last step of an expansion; the result is not rescanned for macros).

    As HTCondor does, the search starts again after each replacement, so a "$" put in can
    complete another ``$(DOLLAR)`` (``$(DOLLAR)(DOLLAR)`` is ``$``); the walk resumes where needed.
    """
    if "$" not in text:
        return text
    walk = _Walk(budget=budget)
    pos = 0
    while True:
        found = next_macro(text, pos, _only_dollar, walk)
        if found is None:
            return text
        text = text[:found.start] + "$" + text[found.end:]
        if budget is not None:
            walk.charge(1, len(text))
        pos = walk.restart(found.start, text)


def self_names(name: str, prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """Names that count as "self" when assigning ``name``: itself, and without a subsystem/local prefix."""
    upper = name.upper()
    for prefix in prefixes:
        if prefix and upper.startswith(prefix.upper() + ".") and len(upper) > len(prefix) + 1:
            return upper, upper[len(prefix) + 1:]
    return (upper,)


# `$(NAME)`: as the only "$" of a value, the usual self reference (`X = $(X) more`)
_LONE_REFERENCE = re.compile(r"\$\(([A-Za-z0-9_./]+)\)")


def expand_self(text: str, selves: tuple[str, ...], evaluate: Evaluator, budget=None) -> str:
    """Expand only references to the knob being assigned (``$(X)``, ``$(X:d)``, ``$F..(X)``)."""
    if "$" not in text:
        return text

    upper = text.upper()
    for self_name in selves:
        if self_name in upper:
            break
    else:
        return text  # cheap test first: no self reference is possible
    if budget is None:
        budget = Budget()  # a caller without a configuration: this call's own budget
    if text.count("$") == 1:
        lone = _LONE_REFERENCE.search(text)
        if lone is not None and lone.group(1).upper() in selves:
            start, end = lone.span()
            replacement = evaluate(Found(NORMAL, "", lone.group(1), start, end))
            if "$" not in replacement:
                # no "$" is left: what expand_self_walk() makes of it, and spends, without the walk
                text = text[:start] + replacement + text[end:]
                budget.spend(2, len(text))
                if len(text) > MAX_EXPANDED_SIZE:
                    _self_reference_too_large(selves[0], "MAX_EXPANDED_SIZE", f"{MAX_EXPANDED_SIZE} characters")
                return text
    return expand_self_walk(text, selves, evaluate, budget)


def expand_self_walk(text: str, selves: tuple[str, ...], evaluate: Evaluator, budget) -> str:
    """:func:`expand_self` by HTCondor's walk over the text, one self reference at a time."""

    def skip(kind: str, body: str) -> bool:
        if kind == NORMAL:
            return body.partition(":")[0].upper() not in selves
        if kind == FILENAME:
            return body.upper() not in selves
        return True

    walk = _Walk(budget=budget)
    count = 0
    pos = 0
    while True:
        first = len(walk.starts)
        found = next_macro(text, pos, skip, walk)
        if found is None:
            walk.charge(1 + len(walk.starts) - first, 0)
            return text
        text = text[:found.start] + evaluate(found) + text[found.end:]
        walk.charge(1 + len(walk.starts) - first, len(text))
        count += 1
        if count > MAX_SUBSTITUTIONS:
            _self_reference_too_large(selves[0], "MAX_SUBSTITUTIONS", f"{MAX_SUBSTITUTIONS} substitutions")
        if len(text) > MAX_EXPANDED_SIZE:
            _self_reference_too_large(selves[0], "MAX_EXPANDED_SIZE", f"{MAX_EXPANDED_SIZE} characters")
        pos = walk.restart(found.start, text)


def _self_reference_too_large(name: str, limit: str, size: str) -> None:
    """Raise the limit a value's references to its own knob reached.

    Each is replaced by the knob's previous value, which holds no reference to itself any more
    (7.2), so this is growth (``X = $(X)$(X)`` doubling it line after line), never a cycle: a
    limit of condorcfg reached (HTCondor would build the huge value), not ``macro-cycle``.  A
    cycle through a function (``X = $INT(X)``) ends otherwise: in the function's own nesting limit.
    """
    raise BudgetExceeded(Diagnostic(
        "error", f"the value assigned to {name} refers to {name} itself so many times that it grows beyond "
                 f"{limit}, {size} (the limit); HTCondor would build the whole value: assign the repeated "
                 f"part once and refer to it", None, code=BUDGET_CODE), limit)
