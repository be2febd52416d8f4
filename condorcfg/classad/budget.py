"""What one command may spend evaluating ClassAd expressions: work, bytes, regex time.

condorcfg runs in CI on configuration anyone can propose in a pull request, so a
hostile expression must not make a command run for hours or exhaust memory:
attributes that share work (``A0 = A1 + A1``, ``A1 = A2 + A2`` ...) double it at
each level, a function can build a huge string, a backtracking regex can take
exponential time.  HTCondor caps one evaluation; condorcfg caps the *command*,
because a command runs thousands of evaluations (every slot, every expression
lint folds, every ``$EVAL``) and a per-evaluation cap is multiplied by them.

One :class:`Budget` is shared by every evaluation made inside
:func:`command_budget` (the CLI opens one per command; nested calls join the
open one).  An evaluation made outside any gets a budget of its own, the same
size, so library callers keep a bound per call.  The three limits:

* ``WORK_LIMIT`` units of work.  An attribute dereference costs the number of
  nodes of the expression it evaluates (an upper bound of what it runs), an
  evaluation costs its own expression's nodes, and functions and operators
  given long strings or lists pay in proportion to their length.  One unit is
  roughly half a microsecond of evaluation.
* ``BYTES_LIMIT`` bytes of strings and lists that functions make (and of the
  scratch space they need to make them), so memory stays bounded.
* ``REGEX_SECONDS`` of CPU time for all regular-expression matching: each
  match runs with what is left as its timeout (the ``regex`` module's
  ``timeout=``), so no pattern, however it backtracks, can take longer.

When work or bytes run out, the evaluation that ran out and every later one in
the command evaluate to ERROR (HTCondor, too, fails an evaluation that exceeds
its limit).  When regex time runs out, that match and every later one give
ERROR, as a regex that hits PCRE2's match limit does in HTCondor.  The budget
remembers the first limit spent; :meth:`Budget.message` says which, for the
command's diagnostic.
"""
from __future__ import annotations

import contextvars
import time

WORK_LIMIT = 2_000_000
BYTES_LIMIT = 256 * 1024 * 1024
REGEX_SECONDS = 0.5
WORK_CHUNK = 2048  # work handed to an evaluation at a time, so the hot path counts in a local int

_active: contextvars.ContextVar = contextvars.ContextVar("condorcfg_classad_budget", default=None)


class BudgetSpent(Exception):
    """The command's work or byte budget is spent: the evaluation (and every later one) fails."""


class Budget:
    """Work, bytes and regex seconds left for the evaluations of one command."""

    __slots__ = ("work", "bytes", "regex_seconds", "limits", "spent")

    def __init__(self, work: int = WORK_LIMIT, bytes: int = BYTES_LIMIT, regex_seconds: float = REGEX_SECONDS):
        self.work = work
        self.bytes = bytes
        self.regex_seconds = regex_seconds
        self.limits = (work, bytes, regex_seconds)  # for the message, and what renew() fills it back to
        self.spent: str | None = None  # the first limit that ran out: "work", "bytes" or "regex"

    def renew(self) -> bool:
        """Back to full, for reuse by the next evaluation outside a command; False (and unchanged)
        once a limit was spent: such a budget is not reused."""
        if self.spent is not None:
            return False
        self.work, self.bytes, self.regex_seconds = self.limits
        return True

    # -- work ---------------------------------------------------------------------------
    def refill(self, st) -> None:
        """Cover ``st.steps`` (gone below zero by the cost just charged) and hand out a chunk more."""
        need = -st.steps
        if self.failed or self.work < need:
            self.work = 0
            self._spend("work")
            raise BudgetSpent(self.message())
        grant = min(need + WORK_CHUNK, self.work)
        self.work -= grant
        st.steps += grant

    def give_back(self, st) -> None:
        """Return the part of an evaluation's chunk it did not use."""
        if st.steps > 0:
            self.work += st.steps
        st.steps = 0

    def charge_work(self, units: int) -> None:
        """Spend ``units`` at once (long strings and lists handed to functions and operators)."""
        left = self.work - units
        if left < 0 or (self.spent is not None and self.failed):
            self._run_out("work")
        self.work = left

    # -- bytes --------------------------------------------------------------------------
    def charge_bytes(self, size: int) -> None:
        """Spend ``size`` bytes of values made (or of the scratch space making them takes)."""
        left = self.bytes - size
        if left < 0 or (self.spent is not None and self.failed):
            self._run_out("bytes")
        self.bytes = left

    def _run_out(self, kind: str) -> None:
        setattr(self, kind, 0)
        self._spend(kind)
        raise BudgetSpent(self.message())

    # -- regex time ---------------------------------------------------------------------
    def regex_left(self) -> float:
        """CPU seconds the next match may take (0 when regex time is spent)."""
        return self.regex_seconds if self.regex_seconds > 0 else 0.0

    def regex_used(self, seconds: float) -> None:
        self.regex_seconds -= seconds
        if self.regex_seconds <= 0:
            self.regex_seconds = 0.0
            self._spend("regex")

    def regex_timed_out(self) -> None:
        """A match ran out of time: the regex budget is spent for the rest of the command."""
        self.regex_seconds = 0.0
        self._spend("regex")

    # -- state --------------------------------------------------------------------------
    @property
    def failed(self) -> bool:
        """True once work or bytes ran out: every evaluation from now on is ERROR."""
        return self.spent in ("work", "bytes")

    def _spend(self, limit: str) -> None:
        if self.spent is None or (self.spent == "regex" and limit != "regex"):
            self.spent = limit

    def message(self) -> str:
        """What ran out, with the limit's name and size (empty while nothing did)."""
        if self.spent == "work":
            return (f"ClassAd evaluation stopped: this command's work limit (WORK_LIMIT, "
                    f"{self.limits[0]:,} units) is spent; expressions evaluated from then on are error")
        if self.spent == "bytes":
            return (f"ClassAd evaluation stopped: this command's limit on the size of values built "
                    f"(BYTES_LIMIT, {self.limits[1]:,} bytes) is spent; expressions evaluated from then on "
                    f"are error")
        if self.spent == "regex":
            return (f"regular-expression matching stopped: this command's regex time limit (REGEX_SECONDS, "
                    f"{self.limits[2]:g} s) is spent; regular expressions matched from then on are error")
        return ""


# current() -> the budget of the command running, or None outside :func:`command_budget`;
# activate(budget) makes it the current one and returns the token deactivate(token) needs.
# (The context variable's own methods: evaluate() calls them on every evaluation.)
current = _active.get
activate = _active.set
deactivate = _active.reset


def command_budget(budget: Budget | None = None) -> "_CommandBudget":
    """Share one budget among every evaluation inside (a ``with`` block); joins the budget already
    open, if any.

    ``budget`` replaces the default one (tests give small limits).  ``with`` gives the budget in force.
    """
    return _CommandBudget(budget)


class _CommandBudget:
    """The context manager of :func:`command_budget` (a class: ``contextlib`` costs every command
    start-up a millisecond to import)."""

    __slots__ = ("budget", "token")

    def __init__(self, budget: Budget | None):
        self.budget = budget
        self.token = None

    def __enter__(self) -> Budget:
        outer = _active.get()
        if outer is not None and self.budget is None:
            return outer
        mine = self.budget if self.budget is not None else Budget()
        self.token = _active.set(mine)
        return mine

    def __exit__(self, *exc_info) -> bool:
        if self.token is not None:
            _active.reset(self.token)
            self.token = None
        return False


def cpu_time() -> float:
    """The clock regex time is counted in: CPU time, as the ``regex`` module measures its timeout."""
    return time.process_time()
