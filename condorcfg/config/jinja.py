"""Render a configuration fragment kept as a Jinja2 template (an Ansible role's ``*.j2``) before reading it.

A template comes with a pull request, so it is untrusted.  It is rendered in Jinja2's immutable
sandbox (no unsafe attributes, no changing values) without a loader (``include``, ``import`` and
``extends`` are refused), and everything it may spend is bounded by counting, never by a clock (a
clock would make the verdict depend on how loaded the CI machine is):

* work: every Python line run while rendering is a step - the template's own lines and those of
  Jinja2's filters alike, as a filter such as ``batch`` or ``lipsum`` loops in Python - counted by
  a trace function; an operation whose C code is proportional to the size of a value (copying,
  comparing, joining, hashing) also costs a step per ``UNITS_PER_STEP`` characters or items;
* memory: no value the template makes may hold more than ``MAX_RENDERED_BYTES`` characters or
  items, counted as ``str()`` would write it (a list holding one big string many times counts it
  each time), and an operation whose result could be larger (``'x' * n``, ``9 ** 9 ** 9``,
  ``s.ljust(n)``, ``|center(n)``, ``'%*s'``, ``|replace`` ...) is refused *before* it runs;
* output: at most ``MAX_RENDERED_BYTES`` bytes, what the reader takes from one configuration file;
* compiling is not counted (Jinja2's parser alone runs ~70 lines per byte), so the size of the
  text bounds it: at most ``MAX_TEMPLATE_BYTES``.

Every failure is a :class:`CondorcfgError` with code ``template-render`` at the template line
where it happened, never a traceback.
"""
from __future__ import annotations

import functools
import operator
import re
import sys
from collections.abc import Mapping, Sized

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError, TemplateRuntimeError, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import MAX_RANGE, ImmutableSandboxedEnvironment
from jinja2.utils import Namespace
from markupsafe import Markup

from condorcfg.config.limits import MAX_FILE_SIZE
from condorcfg.diagnostics import CondorcfgError, Diagnostic, Location, Text

# About a second of work at worst; a 200-line template writing 1,100 lines from loops takes ~80,000.
MAX_RENDER_STEPS = 2_000_000
MAX_RENDERED_BYTES = MAX_FILE_SIZE  # what the reader reads of one file
MAX_TEMPLATE_BYTES = 64 * 1024  # of template text per configuration (compiling a hostile 64 KiB takes ~4 s); real ones are KBs
MAX_INT_BITS = 65_536  # 19,729 digits: Python prints at most 4,300 anyway
UNITS_PER_STEP = 32  # copying, comparing or hashing 32 items in C costs about as much as a traced line
REPR_GROWTH = 10  # str() of a container may write a character of a string in it as ten ('\U000e0001')
CODE = "template-render"

_RENDER_ELSEWHERE = ("render the file with your own tool and lint the output, e.g. an Ansible `template:` task "
                     "with `validate: condorcfg lint --fragment %s`")
_UNKNOWN = re.compile(r"No (filter|test) named '([^']*)'")
_UNDEFINED = re.compile(r"'([^']*)' is undefined")
_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le, "gt": operator.gt,
            "gteq": operator.ge, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b}
_TEXTS = (str, bytes, bytearray, range)
_NUMBERS = (int, float)
# Methods of lists, dicts, sets and dict views that read the whole collection.
_SCANS = {"copy", "count", "difference", "index", "intersection", "isdisjoint", "issubset", "issuperset",
          "symmetric_difference", "union"}
_COLLECTIONS = (list, tuple, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))


class _Stop(BaseException):
    """A limit was reached while rendering (a BaseException: no ``except Exception`` in Jinja2 may swallow it)."""

    def __init__(self, message: Text):
        super().__init__(str(message))
        self.message = message


class _Refused(Exception):
    """A limit was reached while Jinja2 folded constants at compile time: it then leaves the work to run time."""

    def __init__(self, message: Text):
        super().__init__(str(message))
        self.message = message


class _Meter:
    """The work and sizes one render spends, and the trace function that counts its lines."""

    def __init__(self, limit: int | None = None):
        self.limit = MAX_RENDER_STEPS if limit is None else limit  # steps this render may spend
        self.steps = 0
        self.stop: _Stop | None = None  # sticky: reported even if something swallowed it
        self.active = False  # rendering (not compiling) with the tracer installed
        self.outer = None  # the caller's trace function (coverage, a debugger), passed each event
        self.sizes: dict[int, tuple[object, int]] = {}  # a big container is walked once
        self.trace = self._global
        self.line = self._line

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename == __file__:  # this module counts its own work, and faster
            return None if self.outer is None else self.outer(frame, event, arg)
        if self.outer is None:
            return self.line
        return _Chained(self, self.outer(frame, event, arg))

    def _line(self, frame, event, arg):
        if event == "line":
            self.steps += 1
            if self.steps > self.limit:
                self.exhausted()
        return self.line

    def exhausted(self):
        self.halt(Text("the template does more than {limit} steps of work (a loop too long, or loops nested too "
                       "deep?), or the role's templates together do; make them do less", limit=MAX_RENDER_STEPS))

    def halt(self, message: Text):
        if not self.active:
            raise _Refused(message)
        if self.stop is None:
            self.stop = _Stop(message)
        raise self.stop

    def spend(self, units: int) -> None:
        self.steps += units // UNITS_PER_STEP
        if self.steps > self.limit:
            self.exhausted()
        if self.active and sys.gettrace() is not self.trace:  # a failing trace function is uninstalled
            sys.settrace(self.trace)

    def check(self, units: int, what: str, charge: bool = True) -> None:
        """Refuse an operation whose result could hold more than the limit, else charge its C work."""
        if units > MAX_RENDERED_BYTES:
            self.halt(Text("{what} would make a value of more than {limit} characters; make it smaller",
                           what=what, limit=MAX_RENDERED_BYTES))
        if charge:
            self.spend(units)

    def made(self, value, what: str):
        """Refuse a result past the limit (walking a new one is its charge; a big one is walked once)."""
        self.check(self.units(value), what, charge=False)
        return value

    def units(self, value) -> int:
        """What ``str(value)`` would write, in characters, items and digits; shared parts count each time.

        Walked without recursion (a value may nest deeper than Python recurses) and only until it
        is past the limit (a value may share itself into more parts than atoms in the universe);
        each part walked is a step.
        """
        big = isinstance(value, (list, tuple, dict)) and len(value) >= 64
        if big and (known := self.sizes.get(id(value))) and known[0] is value:
            return known[1]
        total, todo, left = 0, [value], self.limit - self.steps
        while todo and total <= MAX_RENDERED_BYTES:
            left -= 1
            if left < 0:
                self.exhausted()
            item = todo.pop()
            kind = type(item)  # (the exact types first: this loop is the hot one)
            if kind is list or kind is tuple or (kind is not str and isinstance(item, _COLLECTIONS)):
                total += len(item) + 1
                todo.extend(item)
            elif isinstance(item, _TEXTS):
                total += len(item) + 1
            elif isinstance(item, int):
                total += item.bit_length() // 3 + 1
            elif isinstance(item, float):
                total += 3  # (printed: up to 24 characters)
            elif isinstance(item, Mapping):
                total += len(item) + 1
                todo.extend(item.keys())
                todo.extend(item.values())
            elif isinstance(item, Namespace):
                todo.append(item._Namespace__attrs)
            else:
                total += 1
        self.steps = self.limit - left
        if big:
            self.sizes[id(value)] = (value, total)
        return total

    def printed(self, value) -> int:
        return len(value) if isinstance(value, str) else REPR_GROWTH * self.units(value)


class _Chained:
    """A frame's local trace function when the caller had one: count the event, then pass it on."""

    __slots__ = ("meter", "outer")

    def __init__(self, meter: _Meter, outer):
        self.meter = meter
        self.outer = outer

    def __call__(self, frame, event, arg):
        self.meter.line(frame, event, arg)
        if self.outer is not None:
            self.outer = self.outer(frame, event, arg)
        return self


def _n(value) -> int:
    """A width or count argument."""
    return value if isinstance(value, int) and value > 0 else 0


def _replaced(m: _Meter, s, old, new, count=None) -> int:
    if not isinstance(s, str) or not isinstance(old, str):
        return m.printed(s) + m.printed(new)
    times = len(s) + 1 if not old else len(s) // len(old)
    if isinstance(count, int) and count >= 0:
        times = min(times, count)
    return len(s) + times * m.printed(new)


def _formatted(m: _Meter, fmt, args) -> int:
    """At most what ``fmt % args`` or ``fmt.format(*args)`` writes: each field may write every argument."""
    if not isinstance(fmt, (str, bytes)):
        return m.printed(fmt) + m.printed(args)
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    size = len(text) + (text.count("%") + text.count("{") + 1) * sum(m.printed(arg) for arg in args)
    for spec in re.findall(r"%[^a-zA-Z%]*|\{[^{}]*", text):  # widths and precisions written in the fields
        size += sum(int(digits) if len(digits) < 18 else MAX_RENDERED_BYTES for digits in re.findall(r"\d+", spec))
    if "*" in text or re.search(r"\{[^{}]*\{", text):  # widths taken from the arguments
        size += sum(_n(arg) for arg in args)
    return size


def _count(value) -> int:
    return len(value) if isinstance(value, Sized) else 1


# What a filter could write, where its arguments multiply its input; the others write about what they read.
_FILTER_SIZES = {
    "center": lambda m, value, width=80: m.printed(value) + _n(width),
    "indent": lambda m, s, width=4, first=False, blank=False:
        m.printed(s) * (1 + (_n(width) if isinstance(width, int) else m.printed(width))),
    "batch": lambda m, value, linecount, fill_with=None: m.units(value) + _n(linecount) * (1 + m.units(fill_with)),
    "slice": lambda m, value, slices, fill_with=None: m.units(value) + _n(slices) * (1 + m.units(fill_with)),
    "replace": _replaced,
    "join": lambda m, value, d="", attribute=None: m.printed(value) + m.printed(d) * _count(value),
    "format": lambda m, value, *args, **kwargs: _formatted(m, value, [*args, *kwargs.values()]),
    "wordwrap": lambda m, s, width=79, break_long_words=True, wrapstring=None, break_on_hyphens=True:
        m.printed(s) * (1 + m.printed("\n" if wrapstring is None else wrapstring)),
    "tojson": lambda m, value, indent=None:
        6 * m.printed(value) * (1 + (_n(indent) if isinstance(indent, int) else m.printed(indent or ""))),
    "urlize": lambda m, value, *args, **kwargs: m.printed(value) * (10 + m.printed([*args, *kwargs.values()])),
    "sum": lambda m, iterable, attribute=None, start=0:  # adding lists or strings copies the sum so far each time
        m.units(iterable) * (1 if isinstance(start, (int, float)) else _count(iterable) + 1),
    "escape": lambda m, value: 5 * m.printed(value),
    "e": lambda m, value: 5 * m.printed(value),
    "forceescape": lambda m, value: 5 * m.printed(value),
    "urlencode": lambda m, value: 9 * m.printed(value),
    "xmlattr": lambda m, value, autospace=True: 6 * m.printed(value),
}
# Filters that read their input without writing it as text (the others call str() on it) ...
_STRUCTURAL = {"batch", "dictsort", "groupby", "list", "max", "min", "reverse", "slice", "sort", "sum", "unique"}
# ... and those that only look at it, or return a generator whose work is traced as it runs.
_CHEAP = {"abs", "attr", "count", "d", "default", "first", "float", "int", "items", "last", "length", "map",
          "random", "reject", "rejectattr", "round", "select", "selectattr"}
# Tests that compare their arguments or write them as text.
_READING_TESTS = {"eq", "equalto", "==", "ne", "!=", "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">",
                  "ge", ">=", "in", "lower", "upper"}


class _CodeGenerator(CodeGenerator):
    """Comparisons and dictionary keys go through the environment, which charges what comparing
    and hashing cost (the sandbox has no hook for them)."""

    def visit_Compare(self, node: nodes.Compare, frame) -> None:
        self.write("environment.compare(")
        self.visit(node.expr, frame)
        for op in node.ops:
            self.write(f", {op.op!r}, lambda: ")  # a chained comparison's later operands stay lazy
            self.visit(op.expr, frame)
        self.write(")")

    def visit_Dict(self, node: nodes.Dict, frame) -> None:
        self.write("{")
        for index, item in enumerate(node.items):
            self.write(", environment.key(" if index else "environment.key(")
            self.visit(item.key, frame)
            self.write("): ")
            self.visit(item.value, frame)
        self.write("}")


class _Environment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset(("+", "-", "*", "**", "%"))  # (also kept from being folded at compile time)
    code_generator_class = _CodeGenerator

    def __init__(self, meter: _Meter):
        self.meter = meter
        # (trim_blocks: as Ansible's `template` renders, so the lines are the ones it deploys)
        super().__init__(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
                         autoescape=False,
                         finalize=self._finalize)
        self.filters = {name: self._filter(name, function) for name, function in self.filters.items()}
        self.tests = {name: self._test(name, function) for name, function in self.tests.items()}
        self.globals["range"] = self._range
        self.concat = self.join  # every buffer a template joins (macros, blocks, `set` blocks, `filter` blocks)

    def _filter(self, name, function):
        skip = 1 if getattr(function, "jinja_pass_arg", None) else 0  # the context Jinja2 passes first
        estimate = _FILTER_SIZES.get(name)
        what = f"the filter {name}"
        m = self.meter

        @functools.wraps(function)
        def checked(*args, **kwargs):
            if name in ("join", "sum") and len(args) > skip and not isinstance(args[skip], Sized):
                args = (*args[:skip], list(args[skip]), *args[skip + 1:])  # count what is joined
            values = args[skip:]
            try:
                size = estimate(m, *values, **kwargs) if estimate else None
            except TypeError:  # wrong arguments: the filter says so itself
                size = None
            if size is None:
                size = sum(map(m.units if name in _STRUCTURAL or name in _CHEAP else m.printed,
                               (*values, *kwargs.values())))
            m.check(size, what, charge=name not in _CHEAP)
            return m.made(function(*args, **kwargs), what)

        return checked

    def _test(self, name, function):
        m, charge = self.meter, name in _READING_TESTS

        @functools.wraps(function)
        def checked(*args, **kwargs):
            m.check(sum(map(m.printed if name in ("lower", "upper") else m.units, (*args, *kwargs.values()))),
                    f"the test {name}", charge)
            return function(*args, **kwargs)

        return checked

    def _range(self, *args):
        numbers = range(*args)
        try:
            count = len(numbers)
        except OverflowError:
            count = MAX_RANGE + 1
        if count > MAX_RANGE:
            self.meter.halt(Text("range() of more than {limit} numbers is refused; make the range smaller",
                                 limit=MAX_RANGE))
        return numbers

    def _finalize(self, value):
        if not isinstance(value, str):
            self.meter.check(self.meter.printed(value), "writing a value")
        return value

    def _strings(self, parts) -> list:
        m, strings, total = self.meter, [], 0
        for part in parts:
            if not isinstance(part, str):
                m.check(m.printed(part), "joining values")
                part = str(part)
            total += len(part)
            if total > MAX_RENDERED_BYTES:
                m.check(total, "joining text")
            strings.append(part)
        m.spend(total)
        return strings

    def join(self, parts) -> str:
        return "".join(self._strings(parts))

    def markup_join(self, parts) -> str:
        strings = self._strings(parts)
        if any(hasattr(part, "__html__") for part in strings):
            self.meter.check(5 * sum(map(len, strings)), "escaping text")
            return Markup("").join(strings)
        return "".join(strings)

    def compare(self, left, *rest):
        m, result = self.meter, True
        for index in range(0, len(rest), 2):
            right = rest[index + 1]()
            m.check(m.units(left) + m.units(right), "comparing values")
            result = _COMPARE[rest[index]](left, right)
            if not result:
                return result
            left = right
        return result

    def key(self, value):
        if not isinstance(value, (str, int)):
            self.meter.check(self.meter.units(value), "a dictionary key")
        return value

    def getitem(self, obj, argument):
        if not isinstance(argument, (str, int)):
            self.meter.check(self.meter.units(argument), "an item's key")
        value = super().getitem(obj, argument)
        return self.meter.made(value, "a slice") if isinstance(argument, slice) else value

    def call_binop(self, context, operator, left, right):
        m, what = self.meter, f"the operator {operator}"
        ints = isinstance(left, int) and isinstance(right, int)
        if operator == "**" and ints and right > 0 and abs(left) > 1 and left.bit_length() * right > MAX_INT_BITS:
            m.halt(Text("{what} would make a number of more than {limit} bits; make it smaller",
                        what=what, limit=MAX_INT_BITS))
        elif operator == "*" and ints and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            m.halt(Text("{what} would make a number of more than {limit} bits; make it smaller",
                        what=what, limit=MAX_INT_BITS))
        elif operator == "*" and isinstance(right, int) != isinstance(left, int):
            sequence, times = (left, right) if isinstance(right, int) else (right, left)
            m.check(m.units(sequence) * max(times, 0), what)
        elif operator == "%" and isinstance(left, (str, bytes)):
            m.check(_formatted(m, left, right.values() if isinstance(right, Mapping) else
                               right if isinstance(right, tuple) else (right,)), what)
        if not isinstance(left, _NUMBERS) or not isinstance(right, _NUMBERS):  # reads both: 'a' + b, keys() - c
            m.check(m.units(left) + m.units(right), what)
        return m.made(super().call_binop(context, operator, left, right), what)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja2's signature)
        if __obj is __self.globals.get(_LINE_MARK) and __obj is not None:  # (condorcfg's own: nothing to check)
            return __obj(*args)
        m, owner = __self.meter, getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "a function")
        charge = True
        if isinstance(owner, (str, bytes, bytearray, int)):  # a method of a value, e.g. 'x'.ljust(n)
            if name == "join" and args and not isinstance(args[0], Sized):
                args = (list(args[0]), *args[1:])
            size = __self._method_size(owner, name, args, kwargs)
        else:  # a macro (its work is traced), a dict's get() ...
            size = sum(map(m.units, (*args, *kwargs.values())))
            charge = name in _SCANS and isinstance(owner, (_COLLECTIONS, Mapping))  # ... or a long list's index()
            if charge:
                size += m.units(owner)
        m.check(size, f"calling {name}", charge)
        return m.made(super().call(__context, __obj, *args, **kwargs), f"calling {name}")

    def _method_size(self, owner, name, args, kwargs) -> int:
        m, values = self.meter, (*args, *kwargs.values())
        own = m.units(owner)
        if name == "expandtabs":
            return own * (1 + (_n(values[0]) if values else 8))
        if name == "replace" and len(args) >= 2:
            return _replaced(m, owner if isinstance(owner, str) else str(owner), *args[:3])
        if name == "join" and args:
            return m.printed(args[0]) + own * _count(args[0])
        if name in ("translate", "hex"):
            return own * (2 + m.printed(values))
        return own + sum(map(m.printed, values)) + sum(map(_n, values))  # an int argument may be a width

    def wrap_str_format(self, value):
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt, m = value.__self__, self.meter

        def checked(*args, **kwargs):
            m.check(_formatted(m, fmt, (*args, *kwargs.values())), "str.format")
            return wrapped(*args, **kwargs)

        return checked


_LINE_MARK = "_condorcfg_template_line_"  # called before each piece of output with its template line


def render(text: str, variables: Mapping[str, object], source: str) -> str:
    """``text``, a Jinja2 template read from ``source``, rendered with ``variables``; see :func:`render_lines`."""
    return render_lines(text, variables, source)[0]


def render_lines(text: str, variables: Mapping[str, object], source: str,
                 steps: int | None = None) -> tuple[str, list[int], int]:
    """``text``, a Jinja2 template read from ``source``, rendered with ``variables``: (the output, for each
    of its lines the template line it comes from (a finding in the rendered text points at the template),
    the steps spent).  ``steps``: what it may spend (default MAX_RENDER_STEPS; the reader gives what is
    left of one configuration's allowance, shared by all its templates).

    Raises :class:`CondorcfgError` (code ``template-render``) for anything the template does wrong or
    any limit it reaches.
    """
    if len(text) > MAX_TEMPLATE_BYTES:
        raise _error(Text("the template is larger than {limit} characters, more than condorcfg renders; split it, "
                          "or render it with your own tool and lint the output", limit=MAX_TEMPLATE_BYTES), source, 0,
                     [_RENDER_ELSEWHERE])
    meter = _Meter(steps)
    env = _Environment(meter)
    try:
        return _render(text, variables, source, meter, env)
    finally:  # (the reader pauses the cyclic garbage collector: free the render's cycles and sizes now)
        meter.sizes.clear()
        meter.trace = meter.line = None
        env.filters.clear()
        env.tests.clear()
        env.globals.clear()


def _render(text: str, variables: Mapping[str, object], source: str, meter: _Meter, env) -> tuple[str, list, int]:
    filename = f"<template {source}>"  # the compiled code's: never the name of a Python file the tracer skips
    try:
        tree = env.parse(text, source, filename)
        for node in tree.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)):
            tag = {"FromImport": "from ... import"}.get(type(node).__name__, type(node).__name__.lower())
            raise _error(Text("`{tag}` is not supported: condorcfg renders one file; lint the rendered output "
                              "instead", tag=tag), source, node.lineno, [_RENDER_ELSEWHERE])
        _mark_lines(tree)
        template = env.template_class.from_code(env, env.compile(tree, source, filename), env.make_globals(None))
    except CondorcfgError:
        raise
    except Exception as exc:  # noqa: BLE001 (a syntax error, or Python refusing what Jinja2 generated)
        raise _failure(exc, exc.lineno or 0 if isinstance(exc, TemplateSyntaxError) else 0, source) from None
    template.root_render_func.__globals__.update(str_join=env.join, markup_join=env.markup_join)
    meter.steps, meter.sizes = 0, {}  # constants folded while compiling spent from the same meter
    parts, size, failure = [], 0, None
    lines: list[int] = []  # the template line of each output line
    place = {"line": 1, "literal": True}  # where the output being written comes from

    def mark(line: int, literal: bool) -> str:
        place["line"], place["literal"] = line, literal
        return ""

    env.globals[_LINE_MARK] = mark
    at_start = True
    meter.outer, meter.active = sys.gettrace(), True
    sys.settrace(meter.trace)
    try:
        stream = template.generate(dict(variables))
        try:
            for part in stream:
                size += len(part) if part.isascii() else len(part.encode("utf-8", "surrogatepass"))
                if size > MAX_RENDERED_BYTES:
                    meter.halt(Text("the rendered output is larger than {limit} bytes (what condorcfg reads of one "
                                    "configuration file); make the template write less", limit=MAX_RENDERED_BYTES))
                meter.spend(len(part))
                parts.append(part)
                if not part:
                    continue
                if at_start:
                    lines.append(place["line"])
                # (a literal's line breaks are the template's own; a value's stay on the line of its {{ }})
                breaks = part.count("\n")
                for _ in range(breaks if place["literal"] else 0):
                    place["line"] += 1
                    lines.append(place["line"])
                if not place["literal"]:
                    lines.extend([place["line"]] * breaks)
                at_start = part.endswith("\n")
                if at_start:
                    lines.pop()  # (the line after a final break has not started yet)
        finally:
            stream.close()
        if meter.stop is not None:
            raise meter.stop
    except (_Stop, Exception) as exc:  # noqa: BLE001 (whatever the template does, no traceback)
        failure = exc
    finally:
        sys.settrace(meter.outer)
        meter.active = False
    if failure is not None:
        exc = meter.stop or failure
        raise _failure(exc, _line(exc.__traceback__, template), source) from None
    return "".join(parts), lines, meter.steps


def _mark_lines(tree) -> None:
    """Put before each piece of output a call saying which template line it comes from (literal text, whose
    line breaks are the template's, or a value)."""
    for output in tree.find_all(nodes.Output):
        marked = []
        for child in output.nodes:
            literal = isinstance(child, nodes.TemplateData)
            marked.append(nodes.Call(nodes.Name(_LINE_MARK, "load", lineno=child.lineno),
                                     [nodes.Const(child.lineno), nodes.Const(literal)], [], None, None,
                                     lineno=child.lineno))
            marked.append(child)
        output.nodes = marked


def _line(tb, template) -> int:
    """The template line of the innermost template frame of a traceback (0 if none)."""
    line = 0
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == template.filename:
            if "__jinja_exception__" in frame.f_globals:  # a frame Jinja2 rewrote to the template line
                line = tb.tb_lineno
            else:
                line = template.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    return line


def _failure(exc: BaseException, line: int, source: str) -> CondorcfgError:
    notes: list = []
    if isinstance(exc, (_Stop, _Refused)):
        message = exc.message
    elif isinstance(exc, (TemplateSyntaxError, TemplateRuntimeError)) and (unknown := _UNKNOWN.search(str(exc))):
        message = Text("unknown Jinja2 {kind} {name}; condorcfg knows only Jinja2's built-in filters and tests: use "
                       "one of those, or render the file with your own tool and lint the output",
                       kind=unknown[1], name=unknown[2])
        notes = [f"those of Ansible (to_nice_yaml, ipaddr, ...) or other tools are not available here: "
                 f"{_RENDER_ELSEWHERE}"]
    elif isinstance(exc, TemplateSyntaxError):
        message = Text("Jinja2 syntax error: {reason}; correct the template", reason=_reason(exc.message or ""))
    elif isinstance(exc, UndefinedError):
        undefined = _UNDEFINED.fullmatch(str(exc))
        message = (Text("the variable {name} is undefined; define it, or guard it with `is defined` or `default()`",
                        name=undefined[1]) if undefined else
                   Text("{reason}; correct the name, or give the value it belongs to that attribute or item",
                        reason=_reason(str(exc))))
        notes = ["condorcfg renders the template with the role's variables: add it to the role's `vars:` in "
                 ".condorcfg.yaml"]
    elif isinstance(exc, SecurityError):
        message = Text("refused by the sandbox: {reason}; a template may not reach Python's internals or change "
                       "values, so remove this from it", reason=_reason(str(exc)))
    else:  # (Python's SyntaxError: what Jinja2 generated for the template nests too deep for Python)
        deep = isinstance(exc, (RecursionError, SyntaxError))
        reason = str(exc.msg) if isinstance(exc, SyntaxError) else _text(exc)  # (not its line of generated code)
        message = Text("rendering the template failed: {kind}: {reason}; correct the template"
                       + (" (it nests too deep, or a macro calls itself without end)" if deep else ""),
                       kind=type(exc).__name__, reason=_reason(reason))
    return _error(message, source, line, notes)


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return ""


def _reason(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    return text if len(text) <= 200 else text[:200] + "..."


def _error(message: Text, source: str, line: int, notes=None) -> CondorcfgError:
    return CondorcfgError(Diagnostic("error", message, Location(source, line, 1), code=CODE, notes=list(notes or [])))
