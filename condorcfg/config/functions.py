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


def _evaluate_expression(text: str, ctx: FunctionContext):
    """(ok, value) of ``text`` as a ClassAd expression; ok is False when it does not parse."""
    try:
        classad = _classad()
        return True, classad.evaluate(text)
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


def _format(fmt: str, value, allowed: str, func: str, ctx: FunctionContext, limit: int | None = None) -> str | None:
    """printf ``fmt`` with one conversion of a type in ``allowed``, as C does; None (after an error) if invalid.

    ``limit``: snprintf into a buffer of ``limit`` + 1 bytes - the first ``limit`` characters,
    computed without building a longer string.  Without it (``$STRING``) an output longer than
    ``MAX_STRING_FORMAT`` is refused with an error (and never built).
    """
    cut = limit if limit is not None else MAX_STRING_FORMAT + 1
    conversions = [m for m in _CONVERSION.finditer(fmt) if m.group(5) != "%"]
    if len(conversions) != 1 or conversions[0].group(5) not in allowed or conversions[0].group(5) in "aA":
        ctx.error(f"${func}() macro: '{fmt}' is not a valid format specifier!")
        return None
    matches = list(_CONVERSION.finditer(fmt))
    literals = [fmt[end:start] for end, start in zip([0] + [m.end() for m in matches], [m.start() for m in matches] +
                                                                                   [len(fmt)])]
    if any("%" in literal for literal in literals):  # a "%" that starts no conversion
        ctx.error(f"${func}() macro: '{fmt}' is not a valid format specifier!")
        return None
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
    text = _knob_or_literal(body, ctx)
    if not text.strip():
        return ""
    ok, value = _evaluate_expression(text, ctx)
    if not ok:
        return ""
    if isinstance(value, str):
        return value
    try:
        return _classad().unparse(value)
    except Exception as exc:  # an unprintable value must not abort the whole expansion
        ctx.error(f"$EVAL() macro: cannot print the value of {text!r}: {exc}")
        return ""


def _int_argument(text: str, ctx: FunctionContext) -> int | None:
    """An integer argument written literally or as a knob name (saturated to 64 bits, as C reads it)."""
    stripped = text.strip()
    if _INT_RE.match(stripped):
        return c_long(stripped)
    raw = ctx.lookup(stripped) if stripped else None
    if raw is not None:
        value = _expand_knob(stripped, raw, ctx).strip()
        if _INT_RE.match(value):
            return c_long(value)
    return None


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
    index = _int_argument(parts[0], ctx)
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
    return filename_parts(path, letters)


def filename_parts(path: str, letters: str) -> str:
    """``$F<letters>(path)``: pick directory / name / extension parts and decorate them."""
    opts = letters.lower()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "\"'":
        path = path[1:-1]
    elif path[:1] in "\"'":
        path = path[1:]
    cut = path.rfind("/") + 1
    directory, file = path[:cut], path[cut:]
    dot = file.rfind(".")
    name, ext = (file[:dot], file[dot:]) if dot >= 0 else (file, "")
    # directory = prefix + last `d` components (each with its trailing "/")
    depth = opts.count("d")
    components = [c + "/" for c in directory.split("/")[:-1]] if directory else []
    kept = components[-depth:] if depth and components else []
    if depth and components and components[0] == "/" and kept and kept[0] == "/":
        kept = kept[1:]
    prefix = directory[:len(directory) - sum(len(c) for c in kept)]
    pieces = [("p", prefix), ("d", "".join(kept)), ("n", name), ("x", ext)]
    wanted = {"p": "p" in opts, "d": "d" in opts or "p" in opts, "n": "n" in opts, "x": "x" in opts}
    if not any(wanted.values()):
        result = path
    else:
        chosen = [i for i, (key, _) in enumerate(pieces) if wanted[key]]
        result = "".join(text for _, text in pieces[chosen[0]:chosen[-1] + 1])
        if "b" in opts:
            if result.endswith("/") and pieces[chosen[-1]][0] in "pd":
                result = result[:-1]
            elif pieces[chosen[0]][0] == "x" and result.startswith("."):
                result = result[1:]
    if "w" in opts:
        result = result.replace("/", "\\")
    if "u" in opts:
        result = result.replace("\\", "/")
    if "q" in opts:
        quote = "'" if "a" in opts else '"'
        result = quote + result + quote
    return result


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
