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
_REAL_RE = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")
# one printf conversion: flags, width, precision, length modifiers, type
_CONVERSION = re.compile(r"%([-+ #0]*)(\d*)(\.\d*)?(hh|h|ll|l|L|q|j|z|t)?([a-zA-Z%])")


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

def _knob_or_literal(text: str, ctx: FunctionContext) -> str:
    """A knob name gives the knob's expanded value; anything else is taken literally (and expanded)."""
    raw = ctx.lookup(text) if text else None
    return ctx.expand(raw if raw is not None else text)


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
        return int(stripped)
    if _REAL_RE.match(stripped):
        number = float(stripped)
        if want_int and number in (float("inf"), float("-inf")):
            return None  # no integer (HTCondor reports the value as not an integer)
        return int(number) if want_int else number
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
        return value
    if isinstance(value, float):
        if want_int and (value != value or value in (float("inf"), float("-inf"))):
            return None
        return int(value) if want_int else value
    return None


def _format(fmt: str, value, allowed: str, func: str, ctx: FunctionContext) -> str | None:
    """printf ``fmt`` with one conversion of a type in ``allowed``; None (after an error) if invalid."""
    conversions = [m for m in _CONVERSION.finditer(fmt) if m.group(5) != "%"]
    if len(conversions) != 1 or conversions[0].group(5) not in allowed:
        ctx.error(f"${func}() macro: '{fmt}' is not a valid format specifier!")
        return None
    clean = _CONVERSION.sub(lambda m: m.group(0) if m.group(5) == "%" else
                            "%" + m.group(1) + m.group(2) + (m.group(3) or "") + m.group(5), fmt)
    try:
        return clean % (value,)
    except (TypeError, ValueError, OverflowError):
        ctx.error(f"${func}() macro: '{fmt}' is not a valid format specifier!")
        return None


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
    formatted = _format(fmt, number, "dioxXuc", "INT", ctx)
    return fmt if formatted is None else formatted


def _real(body: str, ctx: FunctionContext) -> str:
    name, fmt = _split_first_comma(body)
    text = _knob_or_literal(name, ctx)
    number = _number(text, ctx, want_int=False)
    if number is None:
        ctx.error(f"$REAL() macro: {text} does not evaluate to an real!")
        return ""
    if fmt is None:
        return "%.16G" % float(number)
    formatted = _format(fmt, float(number), "eEfFgGaA", "REAL", ctx)
    if formatted is None:
        return fmt
    return formatted if "." in formatted else formatted + ".0"


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
    """An integer argument written literally or as a knob name."""
    stripped = text.strip()
    if _INT_RE.match(stripped):
        return int(stripped)
    raw = ctx.lookup(stripped) if stripped else None
    if raw is not None:
        value = ctx.expand(raw).strip()
        if _INT_RE.match(value):
            return int(value)
    return None


def _substr(body: str, ctx: FunctionContext) -> str:
    parts = body.split(",")
    raw = ctx.lookup(parts[0]) if parts[0] else None
    text = ctx.expand(raw) if raw is not None else ""  # unlike $INT, a literal is not accepted
    if len(parts) < 2:
        ctx.error("$SUBSTR() macro: no length specified!")
        return ""
    start = _int_argument(parts[1], ctx)
    if start is None:
        ctx.error(f"$SUBSTR() macro: {parts[1]} is invalid start index!")
        return ""
    length = len(text)
    if start < 0:
        start = max(0, length + start)
    start = min(start, length)
    end = length
    if len(parts) > 2:
        count = _int_argument(parts[2], ctx)
        if count is None:
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
    items = [p.strip() for p in parts[1:]]
    if len(items) == 1:
        raw = ctx.lookup(items[0])
        if raw is None:
            ctx.error(f'$CHOICE() macro: no list named "{items[0]}"!')
            return ""
        items = [p.strip() for p in ctx.expand(raw).split(",")]
    if index is None or index < 0 or index >= len(items):
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
            items = [p.strip() for p in ctx.expand(raw).split(",")]
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
    return str(low + step * _pick((high - low) // step + 1, "RANDOM_INTEGER", body, ctx))


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
