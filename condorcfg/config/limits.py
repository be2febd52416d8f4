"""What one command may spend reading and expanding a configuration: the per-load :class:`Budget`.

Configuration text is untrusted (condorcfg runs in CI on what a pull request proposes), so
every way the text can multiply the work is bounded *per command*, not per call: a file
that includes itself ten times per level, or forty nested ``$SUBSTR`` calls that each
expand the next level twice, defeat any per-call or per-level limit.  One :class:`Budget`
belongs to a :class:`~condorcfg.config.model.Config` (``config.budget``); the reader and
every expansion of that configuration - while reading, and afterwards by ``value``,
``dump`` or all the rules of a lint run - draw from it.  Overrunning a limit raises
:class:`~condorcfg.diagnostics.CondorcfgError` whose message names the limit.

The limits (all far above the largest real configuration, ~112 KB in 40 files):

``MAX_FILE_READS`` = 4,096
    files (and command outputs) read by one load, counting every read of a file again.
``MAX_TEXT_BYTES`` = 32 MiB
    configuration text parsed by one load: files, command outputs and template bodies,
    each time it is read (one file may be 16 MiB: :data:`MAX_FILE_SIZE`).
``MAX_STATEMENTS`` = 100,000
    logical lines read by one load (files, heredoc bodies and template bodies).  Memory
    and lint time go per line (a statement, a definition, a location: ~0.7 KB; a lint
    finding about it: ~1.5 KB and ~80 us), so this is what bounds them; the largest real
    configuration file has 2,621 physical lines and the whole corpus of 147 files 15,489.
``MAX_REPEATED_BYTES`` = 4 MiB
    of that, text parsed *again*: a file already read in this load (same device and inode)
    or a template body after its first use.  This is what stops fan-out: a small file
    that includes itself many times has little text of its own to multiply.
``MAX_EXPANSION_STEPS`` = 1,000,000 plus 1 per 2 bytes of text parsed
    macro-expansion steps of all expansions of one configuration: one per substitution,
    per ``$`` examined and rejected, and ``FUNCTION_STEPS`` per dollar-function call (a
    step is ~1.5 us: a spent budget takes about a second, and a lint run of the largest
    real configuration takes under 1,000 steps).
``MAX_EXPANSION_BYTES`` = 256 MiB plus 16 per byte of text parsed
    characters copied by all expansions of one configuration, and ``SCAN_COST`` (8) per
    character their scans for macros examined (a scan runs a regular expression or a ``find``
    over the text: about 8 times slower per character than copying it), so 32 MiB of
    scanning spends it.

The expansion limits grow with the text read so that a big configuration (which
legitimately expands more) is never refused where a small one that multiplies its work
is; a real configuration uses well under 1 % of them.  Exhausting a budget is sticky:
every later expansion fails at once with the same message, so a lint run over a
configuration that exhausted it still ends quickly.
"""
from __future__ import annotations

from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location

MIB = 1024 * 1024
MAX_FILE_SIZE = 16 * MIB  # bytes of one configuration file (the largest real one seen is ~112 KB)
MAX_FILE_READS = 4_096
MAX_TEXT_BYTES = 32 * MIB
MAX_REPEATED_BYTES = 4 * MIB
MAX_STATEMENTS = 100_000
MAX_EXPANSION_STEPS = 1_000_000
BYTES_PER_STEP = 2  # MAX_EXPANSION_STEPS grows by one step per this many bytes of text parsed
MAX_EXPANSION_BYTES = 256 * MIB
BYTES_PER_BYTE = 16  # added to MAX_EXPANSION_BYTES per byte of configuration text parsed
SCAN_COST = 8  # a character examined by a macro scan costs as much as this many copied
FUNCTION_STEPS = 16  # a dollar-function call costs about as much as this many substitutions

BUDGET_CODE = "budget-exceeded"


class BudgetExceeded(CondorcfgError):
    """A per-command limit of :mod:`condorcfg.config.limits` was hit, or a value's references to
    itself grew past a limit of :mod:`condorcfg.config.macros` (``limit`` names it)."""

    def __init__(self, diagnostic: Diagnostic, limit: str):
        super().__init__(diagnostic)
        self.limit = limit


class Budget:
    """The reading and expansion work one command may still do on one configuration."""

    __slots__ = ("file_reads", "text_bytes", "repeated_bytes", "statements", "steps", "chars", "_seen", "_exhausted")

    def __init__(self):
        self.statements = 0
        self.file_reads = 0
        self.text_bytes = 0
        self.repeated_bytes = 0
        self.steps = 0
        self.chars = 0
        self._seen: set = set()  # (device, inode) of the files read, and template names used
        self._exhausted: BudgetExceeded | None = None

    # --- reading ---------------------------------------------------------------------------

    def read(self, size: int, identity, where: Location | None, is_file: bool = True) -> None:
        """Account for parsing ``size`` bytes of text from ``identity`` (a file's (dev, inode), a
        template's name; None for text that is never the same twice, like a command's output).
        ``is_file``: a file or command output (counted by MAX_FILE_READS), not a template body."""
        self.file_reads += is_file
        if self.file_reads > MAX_FILE_READS:
            self._fail(f"the configuration reads more than {MAX_FILE_READS} files (limit MAX_FILE_READS); an include "
                       f"that includes itself, directly or through other files?", "MAX_FILE_READS", where)
        self.text_bytes += size
        if self.text_bytes > MAX_TEXT_BYTES:
            self._fail(f"the configuration amounts to more than {MAX_TEXT_BYTES // MIB} MiB of text to read, counting "
                       f"every include and template use (limit MAX_TEXT_BYTES)", "MAX_TEXT_BYTES", where)
        if identity is None:
            return
        if identity in self._seen:
            self.repeated_bytes += size
            if self.repeated_bytes > MAX_REPEATED_BYTES:
                self._fail(f"the configuration reads the same files or templates again and again: more than "
                           f"{MAX_REPEATED_BYTES // MIB} MiB of text read a second time (limit MAX_REPEATED_BYTES); "
                           f"includes that fan out, or `use` naming a template many times?", "MAX_REPEATED_BYTES",
                           where)
        else:
            self._seen.add(identity)

    def statement(self, where: Location | None) -> None:
        """Account for one more logical line read."""
        self.statements += 1
        if self.statements > MAX_STATEMENTS:
            self._fail(f"the configuration has more than {MAX_STATEMENTS:,} lines to read, counting every include "
                       f"and template use (limit MAX_STATEMENTS)", "MAX_STATEMENTS", where)

    # --- expanding -------------------------------------------------------------------------

    def step_limit(self) -> int:
        return MAX_EXPANSION_STEPS + self.text_bytes // BYTES_PER_STEP

    def char_limit(self) -> int:
        return MAX_EXPANSION_BYTES + BYTES_PER_BYTE * self.text_bytes

    def spend(self, steps: int, chars: int) -> None:
        """Account for expansion work; raises :class:`BudgetExceeded` once the budget is spent."""
        self.steps += steps
        self.chars += chars
        read = self.text_bytes  # (the limits inline: this runs once per substitution)
        if (self.steps > MAX_EXPANSION_STEPS + read // BYTES_PER_STEP
                or self.chars > MAX_EXPANSION_BYTES + BYTES_PER_BYTE * read or self._exhausted is not None):
            self._expansion_spent()

    @property
    def exhausted(self) -> "BudgetExceeded | None":
        """The error every expansion now fails with once the expansion budget is spent (None before):
        lint reports it once (CFG006) even when every rule that met it carried on without the value."""
        return self._exhausted

    def check(self) -> None:
        """Raise at once if the expansion budget is already spent (before starting more work)."""
        if self._exhausted is not None:
            self._expansion_spent()

    def _expansion_spent(self) -> None:
        if self._exhausted is None:
            if self.steps > self.step_limit():
                what, limit = (f"more than {self.step_limit():,} expansion steps (limit MAX_EXPANSION_STEPS)",
                               "MAX_EXPANSION_STEPS")
            else:
                what, limit = (f"more than {self.char_limit() // MIB} MiB of text (limit MAX_EXPANSION_BYTES)",
                               "MAX_EXPANSION_BYTES")
            diagnostic = Diagnostic("error", f"expanding this configuration's macros takes {what}; macros that "
                                             f"multiply (A = $(B)$(B), B = $(C)$(C), ...), or a long chain of "
                                             f"values that each repeat the one before (B = $(A) text, C = $(B) "
                                             f"text, ...)?", None, code=BUDGET_CODE)
            self._exhausted = BudgetExceeded(diagnostic, limit)
        # a fresh exception (and diagnostic, which a caller may give a location) each time
        raise BudgetExceeded(self._exhausted.diagnostic.copy(), self._exhausted.limit)

    def _fail(self, message: str, limit: str, where: Location | None) -> None:
        raise BudgetExceeded(Diagnostic("error", message, where, code=BUDGET_CODE), limit)
