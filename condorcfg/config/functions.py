"""The dollar functions of HTCondor 25's configuration language (config-language.md section 9).

``$ENV`` ``$INT`` ``$REAL`` ``$SUBSTR`` ``$STRING`` ``$EVAL`` ``$CHOICE``
``$RANDOM_CHOICE`` ``$RANDOM_INTEGER`` ``$BASENAME`` ``$DIRNAME`` and the
``$F<letters>`` path functions - that is every function 25.14.1 compiles in.

As in HTCondor, an error inside a function is not fatal: it is reported
through ``ctx.error(message)`` (with HTCondor's wording) and the function
expands to empty text - except for the few cases where HTCondor prints
something else (an invalid printf format is echoed, a bad ``$RANDOM_INTEGER``
gives ``0``).  ClassAd evaluation (``$INT`` of an expression, ``$STRING``,
``$EVAL``) uses :mod:`condorcfg.classad`, imported only when needed.

Deliberate difference: ``$RANDOM_CHOICE`` and ``$RANDOM_INTEGER`` are reproducible here (the
pick is a hash of the knob name and the function text), so condorcfg's output is stable.

Numbers behave like HTCondor's C code, never like Python's unbounded integers: an integer
literal saturates to a 64-bit ``long long`` (``$INT(99999999999999999999)`` is
9223372036854775807), a real out of that range converts to -9223372036854775808 (what x86
does), a real literal too big for a double is ``INF``; ``$INT``/``$REAL`` print into a
56-byte buffer (at most 55 characters; a width or precision of 2^31 or more prints nothing),
and a ``printf`` conversion without ``l``/``ll`` prints the low 32 bits.  So no input makes a
function build a huge string or trip over Python's integer/string conversion limit.
"""
from __future__ import annotations

import math

import re
from condorcfg.config.macros import FILENAME

TYPE_CHECKING = False  # (not `typing`: importing it costs start-up time)
if TYPE_CHECKING:
    from typing import Callable, Mapping, Protocol
else:
    Protocol = object  # FunctionContext only documents what the functions use of their context

_INT_RE = re.compile(r"[-+]?\d+\Z")
# No character can be matched two ways in these (`\d+\.?\d*`, or "0" both a flag and a width digit,
# backtracks quadratically on a long run of digits): a width starts with 1-9, as in C.
_REAL_RE = re.compile(r"[-+]?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z")
# one printf conversion: flags, width, precision, length modifiers, type
# C's strtod also reads hexadecimal reals and infinities: $REAL(0x10) is 16, $REAL(inf) is INF
_C_DOUBLE_RE = re.compile(r"[-+]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?[0-9]+)?"
                          r"|(?i:inf(?:inity)?|nan))")
_CONVERSION = re.compile(r"%([-+ #0]*)([1-9]\d*)?(\.\d*)?(hh|h|ll|l|L|q|j|z|t)?([a-zA-Z%])")

LLONG_MIN, LLONG_MAX = -(1 << 63), (1 << 63) - 1
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
NUMBER_BUFFER = 55  # $INT/$REAL snprintf into a 56-byte buffer: at most 55 characters
PRECISION_CAP = 1100  # a double has at most 1074 exact fraction digits: beyond this only zeros follow
MAX_STRING_FORMAT = 1_000_000  # a $STRING() format printing more than this is refused (the expansion limit)


class FunctionContext(Protocol):
    environ: Mapping[str, str]
    seed_name: str  # the knob being expanded (seeds $RANDOM_*; optional, "" when absent)

    def lookup(self, name: str) -> str | None: ...  # raw value by HTCondor's lookup order
    def expand(self, text: str) -> str: ...  # full expansion
    def error(self, message: str) -> None: ...  # a non-fatal expansion error


def evaluate_function(kind: str, prefix: str, body: str, ctx: FunctionContext) -> str:
    """The replacement text of ``$<prefix>(body)``."""
    if kind == FILENAME:
        return _filename(prefix, body, ctx)
    return _HANDLERS[kind](body, ctx)


# --- helpers ---------------------------------------------------------------------------------

def _expand_knob(name: str, raw: str, ctx: FunctionContext) -> str:
    """The expanded value of knob ``name`` whose raw value is ``raw`` (remembered by a Config's context)."""
    expand_knob = getattr(ctx, "expand_knob", None)
    return expand_knob(name, raw) if expand_knob is not None else ctx.expand(raw)


def _knob_or_literal(text: str, ctx: FunctionContext) -> str:
    """A knob name gives the knob's expanded value; anything else is taken literally (and expanded)."""
    raw = ctx.lookup(text) if text else None
    return _expand_knob(text, raw, ctx) if raw is not None else ctx.expand(text)


def c_long(text: str) -> int:
    """An integer literal (optional sign, digits) as C's ``strtoll`` reads it: saturated to 64 bits.

    Never converts more than 19 significant digits (Python refuses >4300-digit conversions).
    """
    negative = text.startswith("-")
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > 19:
        return LLONG_MIN if negative else LLONG_MAX
    value = -int(digits or "0") if negative else int(digits or "0")
    return min(max(value, LLONG_MIN), LLONG_MAX)


def c_double_to_long(number: float) -> int:
    """A double converted to ``long long`` as x86 does: out of range (or NaN) gives LLONG_MIN."""
    if number != number or not -9.223372036854775808e18 <= number < 9.223372036854775808e18:
        return LLONG_MIN
    return int(number)


def _double(value) -> float:
    """A number as a C double (a huge integer is infinite there, not an OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _wrap(value: int, bits: int, signed: bool) -> int:
    """``value`` cast to a C integer type of ``bits`` bits."""
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _classad():
    from condorcfg import classad  # lazy: only $INT/$REAL of expressions, $STRING and $EVAL need it

    return classad


def _evaluate_expression(text: str, ctx: FunctionContext, in_ad: bool = False):
    """(ok, value) of ``text`` as a ClassAd expression; ok is False when it does not parse.

    ``in_ad``: evaluated as an attribute of an empty ad, as HTCondor's $EVAL and $STRING do
    (``.name`` then is undefined, not error)."""
    try:
        classad = _classad()
        return True, classad.evaluate(text, my={} if in_ad else None)
    except ImportError as exc:  # the evaluator is a separate stage; say clearly what is missing
        ctx.error(f"ClassAd evaluation is not available ({exc}); cannot evaluate {text!r}")
        return False, None
    except Exception:  # a parse error of user text is an expected outcome here
        return False, None


def _number(text: str, ctx: FunctionContext, want_int: bool):
    """The number ``text`` stands for (plain literal or ClassAd expression), or None."""
    stripped = text.strip()
    if _INT_RE.match(stripped):
        return c_long(stripped) if want_int else float(stripped)  # float(): "9"*400 is inf, as strtod says
    if _REAL_RE.match(stripped):
        number = float(stripped)
        return c_double_to_long(number) if want_int else number
    if not want_int and _C_DOUBLE_RE.fullmatch(stripped):  # what strtod reads besides decimals: 0x10, inf, nan
        lowered = stripped.lower()
        if "x" in lowered:
            try:
                return float.fromhex(stripped)
            except OverflowError:
                return -math.inf if stripped.startswith("-") else math.inf
        return float(lowered.replace("infinity", "inf"))
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return int(lowered == "true")
    if not stripped:
        return None
    ok, value = _evaluate_expression(stripped, ctx)
    if not ok:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return min(max(value, LLONG_MIN), LLONG_MAX) if want_int else _double(value)
    if isinstance(value, float):
        if want_int and value != value:
            return None
        return c_double_to_long(value) if want_int else value
    return None


class _Overflow(Exception):
    """snprintf would fail with EOVERFLOW (a width, precision or output of 2^31 characters or more)."""


def _literals(fmt: str, matches: list) -> list[str]:
    return [fmt[end:start] for end, start in zip([0] + [m.end() for m in matches], [m.start() for m in matches] +
                                                 [len(fmt)])]


def _valid_format(fmt: str, allowed: str) -> bool:
    """One conversion of a type in ``allowed`` (``%%`` aside), and no stray ``%``: what HTCondor accepts."""
    matches = list(_CONVERSION.finditer(fmt))
    conversions = [m for m in matches if m.group(5) != "%"]
    if len(conversions) != 1 or conversions[0].group(5) not in allowed:
        return False
    if conversions[0].group(5) in "aA" and conversions[0].group(4):  # %La reads a long double: not a double
        return False
    return not any("%" in literal for literal in _literals(fmt, matches))


def _format(fmt: str, value, allowed: str, func: str, ctx: FunctionContext, limit: int | None = None) -> str | None:
    """printf ``fmt`` with one conversion of a type in ``allowed``, as C does; None (after an error) if invalid.

    ``limit``: snprintf into a buffer of ``limit`` + 1 bytes - the first ``limit`` characters,
    computed without building a longer string.  Without it (``$STRING``) an output longer than
    ``MAX_STRING_FORMAT`` is refused with an error (and never built).
    """
    cut = limit if limit is not None else MAX_STRING_FORMAT + 1
    if not _valid_format(fmt, allowed):
        ctx.error(f"${func}() macro: '{fmt}' is not a valid format specifier!")
        return None
    matches = list(_CONVERSION.finditer(fmt))
    literals = _literals(fmt, matches)
    pieces: list[str] = []
    total = 0
    for literal, match in zip(literals, matches + [None]):
        pieces.append(literal)
        total += len(literal)
        if match is None:
            break
        try:
            text, size = ("%", 1) if match.group(5) == "%" else _conversion(match, value, cut)
        except _Overflow:
            break  # snprintf stops here (EOVERFLOW): what it printed before stays in the buffer
        pieces.append(text)
        total += size
        if "\0" in text:  # %c of 0 ends the C string
            break
    if limit is None and total > MAX_STRING_FORMAT:
        ctx.error(f"${func}() macro: '{fmt}' prints {total} characters, more than condorcfg's limit of "
                  f"{MAX_STRING_FORMAT} (MAX_STRING_FORMAT)")
        return ""
    return "".join(pieces).split("\0", 1)[0][:cut]


def _conversion(match, value, limit: int) -> tuple[str, int]:
    """(text, full length) of one printf conversion; the text is cut to ``limit`` characters."""
    flags, width_text, precision_text, length, kind = match.groups()
    width = c_long(width_text) if width_text else 0
    precision = c_long(precision_text[1:]) if precision_text else None
    if width > INT_MAX or (precision is not None and precision > INT_MAX):
        raise _Overflow
    body, size = _body(flags, precision, length, kind, value)
    pad = max(0, width - size)
    shown = min(pad, limit)
    if "-" in flags:
        text = body + " " * shown
    elif "0" in flags and kind not in "sc" and (precision is None or kind in "eEfFgG") and not _not_finite(body):
        sign = len(body) - len(body.lstrip("+- "))
        if body[sign:sign + 2] in ("0x", "0X"):
            sign += 2
        text = body[:sign] + "0" * shown + body[sign:]
    else:
        text = " " * shown + body
    return text[:limit], size + pad


def _not_finite(body: str) -> bool:
    lowered = body.lower()
    return "inf" in lowered or "nan" in lowered  # C pads these with blanks even with the 0 flag


def _body(flags: str, precision: int | None, length: str | None, kind: str, value) -> tuple[str, int]:
    """The converted value without padding, and its full length (precision past the caps adds zeros)."""
    python_flags = flags.replace("-", "").replace("0", "")
    if kind == "s":
        text = str(value) if precision is None else str(value)[:precision]
        return text, len(text)
    if kind == "c":
        return chr(int(value) & 0xFF), 1
    if kind in "aA":
        shown = precision if precision is None or precision <= PRECISION_CAP else PRECISION_CAP
        text = _hex_float(float(value), shown, flags)
        extra = 0 if shown == precision or not math.isfinite(float(value)) else precision - shown
        return (text.upper() if kind == "A" else text), len(text) + extra
    if kind in "eEfFgG":
        shown = precision if precision is None or precision <= PRECISION_CAP else PRECISION_CAP
        spec = "%" + python_flags + ("" if shown is None else f".{shown}") + kind
        text = spec % (value,)
        extra = 0 if shown == precision or (kind in "gG" and "#" not in flags) else precision - shown
        return text, len(text) + extra
    bits = {"hh": 8, "h": 16}.get(length or "", 32 if not length else 64)
    number = _wrap(int(value), bits, signed=kind in "di")
    shown = precision if precision is None or precision <= 64 else 64
    octal_prefix = kind == "o" and "#" in flags
    if octal_prefix or (kind in "xX" and number == 0):
        python_flags = python_flags.replace("#", "")  # C's "#o" adds "0" (not "0o"); "#x" of 0 adds nothing
    spec = "%" + python_flags + ("" if shown is None else f".{shown}") + ("d" if kind in "diu" else kind)
    text = spec % (number,)
    if octal_prefix and not text.lstrip("+- ").startswith("0"):
        text = "0" + text
    extra = 0 if shown == precision else precision - shown
    return text, len(text) + extra


def _hex_float(value: float, precision: int | None, flags: str) -> str:
    """C's ``%a`` of a double (glibc): ``0x1.8p+0``; with a precision, rounded half to even."""
    sign = "-" if math.copysign(1.0, value) < 0 else ("+" if "+" in flags else (" " if " " in flags else ""))
    if math.isinf(value):
        return sign + "inf"
    if math.isnan(value):
        return sign + "nan"
    lead_text, rest = abs(value).hex()[2:].split(".")
    fraction, exponent = rest.split("p")
    lead = int(lead_text)
    if precision is None:
        fraction = fraction.rstrip("0")
    elif precision < len(fraction):
        drop = 4 * (len(fraction) - precision)
        kept, left = divmod(int(lead_text + fraction, 16), 1 << drop)
        half = 1 << (drop - 1)
        if left > half or (left == half and kept & 1):
            kept += 1
        digits = format(kept, "x").rjust(precision + 1, "0")
        lead, fraction = int(digits[:len(digits) - precision], 16), digits[len(digits) - precision:]
    else:
        fraction += "0" * (precision - len(fraction))
    point = "." + fraction if fraction or "#" in flags else ""
    power = int(exponent)
    return f"{sign}0x{lead:x}{point}p{'+' if power >= 0 else '-'}{abs(power)}"


def _split_first_comma(body: str) -> tuple[str, str | None]:
    name, comma, rest = body.partition(",")
    return name, (rest if comma else None)


# --- the functions ---------------------------------------------------------------------------

def _env(body: str, ctx: FunctionContext) -> str:
    name, colon, default = body.partition(":")
    value = ctx.environ.get(name)
    if value is None:
        return default if colon else "UNDEFINED"
    return value


def _int(body: str, ctx: FunctionContext) -> str:
    name, fmt = _split_first_comma(body)
    if fmt is not None and not _valid_format(fmt, "dioxXuc"):  # checked first, whatever the value
        ctx.error(f"$INT() macro: '{fmt}' is not a valid format specifier!")
        return fmt
    text = _knob_or_literal(name, ctx)
    number = _number(text, ctx, want_int=True)
    if number is None:
        ctx.error(f"$INT() macro: {text} does not evaluate to an integer!")
        return ""
    if fmt is None:
        return str(number)
    formatted = _format(fmt, number, "dioxXuc", "INT", ctx, NUMBER_BUFFER)
    return fmt if formatted is None else formatted


def _real(body: str, ctx: FunctionContext) -> str:
    name, fmt = _split_first_comma(body)
    if fmt is not None and not _valid_format(fmt, "eEfFgGaA"):  # checked first, whatever the value
        if re.search(r"%[-+ #0-9.]*L[aA]", fmt):
            ctx.error(f"$REAL() macro: '{fmt}' reads a long double HTCondor never passes: what it prints is "
                      f"undefined (garbage such as nan.0); write %a")
            return ""
        ctx.error(f"$REAL() macro: '{fmt}' is not a valid format specifier!")
        return fmt
    text = _knob_or_literal(name, ctx)
    number = _number(text, ctx, want_int=False)
    if number is None:
        ctx.error(f"$REAL() macro: {text} does not evaluate to an real!")
        return ""
    if fmt is None:
        return "%.16G" % number
    formatted = _format(fmt, number, "eEfFgGaA", "REAL", ctx, NUMBER_BUFFER)
    if formatted is None:
        return fmt
    if "." in formatted:
        return formatted
    if len(formatted) >= NUMBER_BUFFER:  # appending ".0" would overflow HTCondor's buffer
        ctx.error(f"$REAL() macro: '{fmt}' prints {NUMBER_BUFFER} or more characters without a '.'; HTCondor "
                  f"overflows its buffer adding '.0' and crashes; use a narrower format")
        return ""
    return formatted + ".0"


def _string(body: str, ctx: FunctionContext) -> str:
    name, fmt = _split_first_comma(body)
    text = _knob_or_literal(name, ctx)
    result = text
    if text.strip():
        ok, value = _evaluate_expression(text, ctx)
        if ok and isinstance(value, str):
            result = value
    if fmt is None:
        return result
    formatted = _format(fmt, result, "s", "STRING", ctx)
    return fmt if formatted is None else formatted


def _eval(body: str, ctx: FunctionContext) -> str:
    raw = ctx.lookup(body) if body else None
    source = raw if raw is not None else body
    text = (_expand_knob(body, raw, ctx) if raw is not None else ctx.expand(body)) if "$" in source else source
    ok, value = _evaluate_expression(text, ctx, in_ad=True) if text.strip() else (False, None)
    if not ok:
        # HTCondor: text that does not parse is kept as its expansion (if it had a macro to expand),
        # else nothing.  $EVAL($(S)) reads the body "$(S" (a function's body ends at the first ")"),
        # keeps it, and the ")" after completes $(S) again: the result is S's text, unevaluated.
        return text if "$" in source else ""
    if isinstance(value, str):
        return value
    try:
        return _classad().unparse(value)
    except Exception as exc:  # an unprintable value must not abort the whole expansion
        ctx.error(f"$EVAL() macro: cannot print the value of {text!r}: {exc}")
        return ""


def _int_argument(text: str, ctx: FunctionContext) -> int | None:
    """An index or length argument as HTCondor reads one: a knob named exactly ``text`` (no blanks
    trimmed: ``$SUBSTR(S, IDX)`` looks up " IDX", finds nothing, and fails) gives its expanded
    value, other text is itself expanded; then it is a number or a ClassAd expression, whose
    real value truncates toward zero and ``true`` is 1 (HTCondor's ``string_is_long_param``:
    ``2.5`` is 2, ``1+1`` is 2, ``"2"`` and ``0x2`` are not numbers)."""
    return _number(_knob_or_literal(text, ctx), ctx, want_int=True)


def _substr(body: str, ctx: FunctionContext) -> str:
    parts = body.split(",")
    raw = ctx.lookup(parts[0]) if parts[0] else None
    text = _expand_knob(parts[0], raw, ctx) if raw is not None else ""  # unlike $INT, a literal is not accepted
    if len(parts) < 2:
        ctx.error("$SUBSTR() macro: no length specified!")
        return ""
    start = _int_argument(parts[1], ctx)
    if start is None or not INT_MIN <= start < INT_MAX:  # HTCondor's range for an int index
        ctx.error(f"$SUBSTR() macro: {parts[1]} is invalid start index!")
        return ""
    length = len(text)
    if start < 0:
        start = max(0, length + start)
    start = min(start, length)
    end = length
    if len(parts) > 2:
        count = _int_argument(parts[2], ctx)
        if count is None or not INT_MIN <= count <= INT_MAX:
            ctx.error(f"$SUBSTR() macro: {parts[2]} is invalid length !")
            return ""
        end = length + count if count < 0 else start + count
        end = max(start, min(end, length))
    return text[start:end]


def _choice(body: str, ctx: FunctionContext) -> str:
    parts = body.split(",")
    if len(parts) < 2:
        ctx.error("$CHOICE() error: no list")
        return ""
    index = _int_argument(parts[0].strip(), ctx)  # (the index, unlike $SUBSTR's arguments, is trimmed)
    if index is None or not 0 <= index < INT_MAX:
        # HTCondor 25 reports this and picks the first item (checked against HTCondor itself)
        ctx.error(f"$CHOICE() macro: {parts[0].strip()} is invalid index!")
        index = 0
    items = [p.strip() for p in parts[1:]]
    if len(items) == 1:
        raw = ctx.lookup(items[0])
        if raw is None:
            ctx.error(f'$CHOICE() macro: no list named "{items[0]}"!')
            return ""
        items = [p.strip() for p in _expand_knob(items[0], raw, ctx).split(",")]
    if index >= len(items):
        ctx.error(f"$CHOICE() config macro: index {parts[0].strip()} is out of range!")
        return ""
    return items[index]


def _pick(count: int, kind: str, body: str, ctx: FunctionContext) -> int:
    """A reproducible "random" index in ``range(count)`` for ``$<kind>(body)`` (see _random_choice).

    Derived from SHA-256 of the knob being expanded and the function text, not from Python's
    ``random``: the same on every run, machine and Python version.
    """
    import hashlib  # only when a random function is used

    seed = f"{getattr(ctx, 'seed_name', '')}\0${kind}({body})".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(seed).digest(), "big") % count


def _random_choice(body: str, ctx: FunctionContext) -> str:
    """``$RANDOM_CHOICE(a, b, ...)``: one of the items - chosen reproducibly, a deliberate difference.

    HTCondor draws a new random item on every read.  condorcfg instead picks the item from a
    hash of the knob being expanded and the function text, so ``condorcfg`` output is the same
    on every run (CI, golden files, ``condorcfg diff``); the item is still one HTCondor could
    pick, and different knobs (or different lists) usually get different items.
    """
    items = [p.strip() for p in body.split(",")]
    if items == [""]:
        ctx.error("$RANDOM_CHOICE() macro is empty!")
        return ""
    if len(items) == 1:
        raw = ctx.lookup(items[0])
        if raw is not None:
            items = [p.strip() for p in _expand_knob(items[0], raw, ctx).split(",")]
    return items[_pick(len(items), "RANDOM_CHOICE", body, ctx)]


def _random_integer(body: str, ctx: FunctionContext) -> str:
    """``$RANDOM_INTEGER(min, max[, step])``: min + k*step <= max - reproducible, a deliberate difference.

    As for ``$RANDOM_CHOICE``, k comes from a hash of the knob being expanded and the function
    text instead of a fresh random draw, so repeated runs agree; the number is one HTCondor could
    draw.
    """
    parts = body.split(",")
    values = [_int_argument(p, ctx) for p in parts[:3]]
    labels = ("min", "max", "step")
    bad = False
    for label, part, value in zip(labels, parts, values):
        if value is None:
            ctx.error(f"$RANDOM_INTEGER() config macro: invalid {label}!")
            bad = True
    if len(parts) < 2:
        ctx.error("$RANDOM_INTEGER() config macro: invalid max!")
        bad = True
    if bad:
        return "0"
    low, high = values[0], values[1]
    step = values[2] if len(values) > 2 else 1
    if step is None or step < 1:
        ctx.error("$RANDOM_INTEGER() config macro: invalid step!")
        return "0"
    if low > high:
        ctx.error("$RANDOM_INTEGER() config macro: min > max!")
        return "0"
    # HTCondor prints the number into a 20-byte buffer: at most 19 characters
    return str(low + step * _pick((high - low) // step + 1, "RANDOM_INTEGER", body, ctx))[:19]


def _filename(letters: str, body: str, ctx: FunctionContext) -> str:
    path = _knob_or_literal(body, ctx)
    try:
        return filename_parts(path, letters)
    except _TooManyDirs as exc:
        ctx.error(f"$F{letters}() macro: {exc}")
        return ""


class _TooManyDirs(ValueError):
    """More ``d`` letters than the path has directories: HTCondor's behaviour is undefined there."""


_PART_BITS = {"x": 1, "n": 2, "p": 4, "d": 8}  # HTCondor's bits for the parts a $F letter keeps
_SEPARATOR_LETTERS = {"u": "/", "w": "\\"}


def filename_parts(path: str, letters: str, cwd: str | None = None) -> str:
    """``$F<letters>(path)``, as HTCondor 25's ``evaluate_macro_func`` computes it, quirks included.

    Letters: ``x`` extension, ``n`` name, ``p`` directory path, ``d`` one more parent directory
    per ``d``, ``b`` bare (no trailing ``/`` or leading ``.``), ``q`` quote (``a``: with single
    quotes), ``f`` full path (from ``cwd``), ``u``/``w`` turn every separator into ``/``/``\\``
    before the parts are found (``$Fpu(a\\b\\c.txt)`` is ``a/b/``).  With both ``p`` and ``d``,
    ``d`` decides; a name without a directory drops ``p``/``d`` when ``n`` or ``x`` is asked for
    (``$Fpx(noext)`` is empty).
    """
    chosen = letters.lower()
    parts = 0
    for letter in chosen:
        parts |= _PART_BITS.get(letter, 0)
    dirs = chosen.count("d")
    quoted, arg_quote, full = "q" in chosen, "a" in chosen, "f" in chosen
    bare = "b" in chosen
    to_sep = ""
    for letter in chosen:  # (the last of u and w wins)
        to_sep = _SEPARATOR_LETTERS.get(letter, to_sep)
    quote = ("'" if arg_quote else '"') if quoted else ""
    if len(path) > 1 and path[0] == path[-1] and path[0] in "\"'":  # strlen_unquote
        path = path[1:-1]
    if full and not path.startswith("/") and cwd:
        directory = cwd[:-1] if cwd.endswith("/") or (to_sep and cwd.endswith(to_sep)) else cwd
        if len(path) > 2 and path[0] == "." and (path[1] == "/" or (to_sep and path[1] == to_sep)):
            path = path[2:]
        body = directory + (to_sep or "/") + _strip_quotes(path, quote)
    else:
        body = _strip_quotes(path, quote)
    if to_sep:
        body = body.replace("\\" if to_sep == "/" else "/", to_sep)
    buf = quote + body + quote
    end = len(buf)
    name_at = buf.rfind("/") + 1  # condor_basename (on Unix only "/" separates)
    dot = buf.rfind(".", name_at + 1)  # condor_basename_extension_ptr: a leading "." is no extension
    ext_at = dot if dot > name_at else end
    if not name_at and parts & 3:
        parts &= ~12
    kind = parts & 15
    if kind == 1:
        start = ext_at + (1 if bare and ext_at < end else 0)
    elif kind == 3:
        start = name_at
    elif kind == 2:
        start, end = name_at, ext_at
    elif kind in (0, 7, 5):
        start = 0
    elif kind == 4:
        start, end = 0, (name_at - 1 if bare and name_at > 0 else name_at)
    elif kind == 6:
        start, end = 0, ext_at
    elif name_at > 0:  # a 'd': the last directories (condor_basename_plus_dirs)
        start = _plus_dirs(buf, dirs)
        if parts & 3 == 2:
            end = ext_at
        elif parts & 3 == 0:
            end = name_at - 1 if bare else name_at
    else:  # only directories asked for, and there are none
        start = end = 1
    if not quote:
        return buf[start:end]
    # HTCondor puts back the quotes the cut removed, in place: a quote just before the start
    # (over the character there), and one at the end unless the cut already ends with one
    chars = list(buf) + [""]
    if chars[start] != quote:
        start -= 1
        chars[start] = quote
    if end > 1 and chars[end - 1] == quote:
        end -= 1
    chars[end] = quote
    return "".join(chars[start:end + 1])


def _strip_quotes(text: str, quote: str) -> str:
    """strcpy_quoted: drop a leading double quote (or ``quote``) and the same at the end."""
    if text[:1] == '"' or (quote and text[:1] == quote):
        mark, text = text[0], text[1:]
        if text.endswith(mark):
            text = text[:-1]
    return text


def _plus_dirs(path: str, count: int) -> int:
    """Where condor_basename_plus_dirs starts: the name plus ``count`` directories above it."""
    seps = []
    at = 0
    if path.startswith("\\\\"):
        at = 4 if path[2:4] == ".\\" else 2
        seps.append(at)
    for index in range(at, len(path)):
        if path[index] in "/\\":
            seps.append(index + 1)
    if count > len(seps):  # HTCondor pops an empty vector: it crashes or prints garbage
        raise _TooManyDirs(f"{path!r} has fewer directories than the {count} 'd' letters ask for; HTCondor's "
                           f"result is undefined (it crashes or prints garbage); use fewer 'd' letters")
    del seps[len(seps) - count:]
    return seps[-1] if seps else 0


def _basename(body: str, ctx: FunctionContext) -> str:
    return filename_parts(_knob_or_literal(body, ctx), "nx")


def _dirname(body: str, ctx: FunctionContext) -> str:
    return filename_parts(_knob_or_literal(body, ctx), "p")


_HANDLERS: dict[str, Callable[[str, FunctionContext], str]] = {
    "ENV": _env,
    "INT": _int,
    "REAL": _real,
    "STRING": _string,
    "EVAL": _eval,
    "SUBSTR": _substr,
    "CHOICE": _choice,
    "RANDOM_CHOICE": _random_choice,
    "RANDOM_INTEGER": _random_integer,
    "BASENAME": _basename,
    "DIRNAME": _dirname,
}
