"""Parse ClassAd expressions and ads the way HTCondor 25.x does (HTCondor mode).

Text becomes tokens (:mod:`condorcfg.classad.lexer`), and tokens become
:mod:`condorcfg.classad.ast` nodes through a hand-written precedence-climbing
parser: one function per kind of operand, one loop for the binary operators
ordered by precedence, no parse tree in between.

``classad.lark`` is the grammar of record: tests/test_classad_grammar.py
parses random and vector texts with lark's LALR(1) parser built from it and
with this parser and compares the trees, positions and refusals, so the two
cannot drift.  (Importing lark costs ~70 ms; this parser costs nothing to
start.)

``absTime("...")`` / ``relTime("...")`` with one string-literal argument are
folded at parse time, as HTCondor does (an unparsable time string is a
syntax error).

Every syntax error is a :class:`ClassAdSyntaxError` (a ``ValueError``) with
a 1-based line and column.  Pathological input ends with such an error in
linear time: nesting deeper than :data:`MAX_DEPTH` is refused rather than
risking Python's recursion limit in later stages.
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache

from condorcfg.classad import ast, civil_time
from condorcfg.classad.lexer import NEW, OLD, ClassAdSyntaxError, tokenize
from condorcfg.classad.printer import format_reltime_spelling, unparse
from condorcfg.classad.values import AbsTime, ClassAd

__all__ = ["MAX_DEPTH", "NEW", "OLD", "ClassAdSyntaxError", "parse", "parse_ad", "parse_ads",
           "parse_abstime_string", "parse_reltime_string", "tokenize"]

# HTCondor refuses more than 1000 nested sub-expressions; condorcfg also caps
# the depth of the whole tree there, so that every recursive consumer
# (printer, evaluator, analysis) stays far from Python's recursion limit.
MAX_DEPTH = 1000

# Trees may be MAX_DEPTH levels deep and every stage walks them recursively
# (this parser takes up to six frames a level, a record's value): make sure
# Python's recursion limit leaves room for that.
if sys.getrecursionlimit() < 10000:
    sys.setrecursionlimit(10000)

_SPACE = " \t\n\r\f\v"


# --------------------------------------------------------------------------- time literals


def _atoi(text: str) -> int:
    match = re.match(r"\s*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


def parse_abstime_string(text: str) -> AbsTime | None:
    """HTCondor's absTime("...") string reader (lenient ISO 8601); None if it rejects the text."""
    s = text
    size = len(s)
    i = size - 1
    while i >= 0 and s[i] in _SPACE:
        i -= 1
    has_offset, tz_hours, tz_minutes = False, 0, 0
    if i > 0 and s[i] in "zZ":
        has_offset = True
        s = s[:i] + s[i + 1:]
    elif size > 5 and s[size - 5] in "+-":
        has_offset, s, tz_hours, tz_minutes = _extract_zone(s)
    elif size > 6 and s[size - 6] in "+-" and s[size - 3] == ":":
        s = s[:size - 3] + s[size - 2:]
        has_offset, s, tz_hours, tz_minutes = _extract_zone(s)
    size = len(s)

    def next_digit(k: int) -> int:
        while k < size and not s[k].isdigit():
            k += 1
        return k

    i = next_digit(0)
    if i > size - 4:
        return None
    fields = [_atoi(s[i:i + 4]), 0, 0, 0, 0, 0]  # year, month-1, day, hour, minute, second
    i = next_digit(i + 4)
    for index, adjust in ((1, -1), (2, 0), (3, 0), (4, 0), (5, 0)):
        if i <= size - 2:
            fields[index] = _atoi(s[i:i + 2]) + adjust
            i += 2
        i = next_digit(i)
    if i <= size - 1 and s[i].isdigit():
        return None
    year, month0, day, hour, minute, second = fields
    year += month0 // 12
    month0 %= 12
    try:
        days = civil_time.timegm(year, month0 + 1, 1) // 86400 + day - 1
    except (ValueError, OverflowError):
        return None
    wall = days * 86400 + hour * 3600 + minute * 60 + second
    offset = tz_hours * 3600 + tz_minutes * 60 if has_offset else civil_time.local_offset(wall)
    if wall - civil_time.local_offset(wall) == -1:  # mktime's failure value: HTCondor rejects that instant
        return None
    return AbsTime(wall - offset, offset)


def _extract_zone(s: str):
    off = s[len(s) - 5:]
    if off[0] in "+-" and off[1:].isdigit() and len(off) == 5:
        sign = 1 if off[0] == "+" else -1
        return True, s[:len(s) - 5], sign * _atoi(off[1:3]), sign * _atoi(off[3:5])
    return False, s, 0, 0


def parse_reltime_string(text: str) -> float | None:
    """HTCondor's relTime("...") string reader: ``[-][D+][HH:][MM:]SS[.f]`` or ``1d2h3m4s``; None if rejected."""
    s = text
    i = len(s) - 1

    def back_space(k: int) -> int:
        while k >= 0 and s[k] in _SPACE:
            k -= 1
        return k

    def back_digits(k: int) -> tuple[int, str]:
        start = k
        while k >= 0 and s[k].isdigit():
            k -= 1
        return k, s[k + 1:start + 1]

    def to_int(digits: str) -> int:
        significant = digits.lstrip("0")
        if len(significant) > 10:  # >= 2**31 whatever the digits (and too long for int() past 4,300)
            return 0
        value = int(significant) if significant else 0
        return value if value < 2 ** 31 else 0

    seconds = 0.0
    minutes = hours = days = 0
    negative = False
    i = back_space(i)
    if i >= 0 and (s[i] in "sS" or s[i].isdigit()):
        if s[i] in "sS":
            i -= 1
        i = back_space(i)
        i, digits = back_digits(i)
        if i >= 0 and s[i] == ".":
            i, more = back_digits(i - 1)
            digits = more + "." + digits
        try:
            seconds = float(digits) if digits not in ("", ".") else 0.0
        except ValueError:
            seconds = 0.0
    i = back_space(i)
    for unit in ("mM:", "hH:", "dD+"):
        if i >= 0 and s[i] in unit:
            i = back_space(i - 1)
            i, digits = back_digits(i)
            value = to_int(digits)
            if unit == "mM:":
                minutes = value
            elif unit == "hH:":
                hours = value
            else:
                days = value
        i = back_space(i)
    if i >= 0 and s[i] == "-":
        negative = True
        i -= 1
    i = back_space(i)
    if i >= 0:
        return None
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    return -total if negative else float(total)


def _fold_time_call(name: str, args: list, line: int, column: int):
    """absTime("...")/relTime("...") become literals at parse time (HTCondor's parser does this)."""
    lowered = name.lower()
    if lowered not in ("abstime", "reltime") or len(args) != 1:
        return None
    arg = args[0]
    if type(arg) is not ast.Literal or not isinstance(arg.value, str):
        return None
    if lowered == "abstime":
        value = parse_abstime_string(arg.value)
        if value is None:
            raise ClassAdSyntaxError(f"absTime({arg.value!r}): not a date HTCondor can read; "
                                     "write e.g. \"2024-01-31T12:00:00Z\"", line, column)
        return ast.Literal(value, line=line, column=column)
    seconds = parse_reltime_string(arg.value)
    if seconds is None:
        raise ClassAdSyntaxError(f"relTime({arg.value!r}): not a duration HTCondor can read; "
                                 "write e.g. \"1+02:03:04\" or \"90s\"", line, column)
    # HTCondor 25.14.1 quirk: the folded literal evaluates as a real number of
    # seconds but prints back as relTime("..."); keep both.
    return ast.Literal(seconds, spelling=f'relTime("{format_reltime_spelling(seconds)}")', line=line, column=column)


# --------------------------------------------------------------------------- building nodes
# (shared with the grammar-of-record test, which builds its trees with these)

_SCOPES = {"my": "MY", "target": "TARGET", "other": "OTHER", "parent": "PARENT"}


def build_select(base, name_tok):
    """``base.name``: a scope keyword on the left makes a scoped reference (``MY.x``)."""
    if type(base) is ast.AttrRef and base.scope is None:
        scope = _SCOPES.get(base.name.lower())
        if scope:
            return ast.AttrRef(name_tok[1], scope=scope, scope_text=base.name, line=base.line, column=base.column)
    return ast.Select(base, name_tok[1], line=base.line, column=base.column)


def build_call(name_tok, args):
    line, column = name_tok[2], name_tok[3]
    folded = _fold_time_call(name_tok[1], args, line, column)
    if folded is not None:
        return folded
    return ast.Call(name_tok[1], args, line=line, column=column)


def build_record(tok, pairs):
    # A record is a map: a repeated name (any case) keeps the first spelling and
    # the last value, and HTCondor prints (and so iterates) attributes ordered
    # by name length, then case-insensitively by name.
    merged: dict[str, list] = {}
    for name, expr in pairs:
        key = name.lower()
        if key in merged:
            merged[key][1] = expr
        else:
            merged[key] = [name, expr]
    attrs = sorted(((n, e) for n, e in merged.values()), key=lambda pair: (len(pair[0]), pair[0].lower()))
    return ast.RecordExpr(attrs, line=tok[2], column=tok[3])


# --------------------------------------------------------------------------- syntax errors


def _describe(tok) -> str:
    kind, value = tok[0], tok[1]
    if kind == "$END":
        return "end of input"
    if kind == "LITERAL":
        return f"value {unparse(value)}"
    if kind in ("IDENT", "QIDENT"):
        return f"name {value!r}"
    return repr(value)


_OPERAND_HINT = "expected an operand (a value, a name, '(' ...)"
_ELVIS_HINT = ("the right side of '?:' must be a simple operand (a value, a name, a call or "
               "a parenthesised expression); add parentheses")
_COMPLETE_HINT = "the expression is already complete before it: join it with an operator or remove it"


def _syntax_error(tok, hint: str) -> ClassAdSyntaxError:
    message = "the expression ends too early" if tok[0] == "$END" else f"unexpected {_describe(tok)}"
    return ClassAdSyntaxError(f"{message}; {hint}", tok[2], tok[3])


def _too_deep(line: int, column: int) -> ClassAdSyntaxError:
    return ClassAdSyntaxError(f"expression nested more than {MAX_DEPTH} levels deep "
                              "(condorcfg's limit); split it into several attributes", line, column)


# --------------------------------------------------------------------------- the parser

# binary operator token -> precedence (loosest 1); all are left-associative
_BINARY = {"OROR": 1, "ANDAND": 2, "BOR": 3, "BXOR": 4, "BAND": 5, "EQOP": 6, "RELOP": 7, "SHIFTOP": 8,
           "PLUS": 9, "MINUS": 9, "MULOP": 10}
_PREFIX = frozenset({"MINUS", "PLUS", "NOTOP"})
_NAMES = frozenset({"IDENT", "QIDENT"})
# tokens that continue an operand: a plain name or value followed by none of these is complete
_CONTINUES = frozenset({"DOT", "LSQB", "ELVIS", "LPAR"})


class _Parser:
    """Precedence climbing over a token list (see classad.lark for the grammar it implements).

    ``depth`` counts the nested expressions being read; each adds a level to the tree, so
    refusing more than MAX_DEPTH refuses only trees that are too deep anyway, and keeps
    this parser's recursion (at most six frames a level) bounded.
    """

    __slots__ = ("tokens", "i", "depth", "deepest")

    def __init__(self, tokens: list[tuple], i: int = 0):
        self.tokens = tokens
        self.i = i
        self.depth = 0
        self.deepest = 0  # the most nested expressions read at once (see _check_depth)

    def expect(self, kind: str, hint: str) -> tuple:
        tok = self.tokens[self.i]
        if tok[0] != kind:
            raise _syntax_error(tok, hint)
        self.i += 1
        return tok

    def expression(self):
        """Operands joined by binary operators (by precedence, left to right), then maybe ``? a : b``."""
        self.depth += 1
        if self.depth > self.deepest:
            self.deepest = self.depth
            if self.depth > MAX_DEPTH:
                raise _too_deep(*self.tokens[self.i][2:])
        tokens = self.tokens
        binary = _BINARY
        node = self.unary()
        tok = tokens[self.i]
        precedence = binary.get(tok[0])
        if precedence is not None:
            operands = [node]
            pending: list[tuple] = []  # (precedence, operator token), precedence rising
            while precedence is not None:
                while pending and pending[-1][0] >= precedence:
                    right = operands.pop()
                    left = operands[-1]
                    operands[-1] = ast.BinaryOp(pending.pop()[1][1], left, right, left.line, left.column)
                pending.append((precedence, tok))
                self.i += 1
                operands.append(self.unary())
                tok = tokens[self.i]
                precedence = binary.get(tok[0])
            while pending:
                right = operands.pop()
                left = operands[-1]
                operands[-1] = ast.BinaryOp(pending.pop()[1][1], left, right, left.line, left.column)
            node = operands[0]
        if tok[0] == "QMARK":
            self.i += 1
            then = self.expression()
            self.expect("COLON", "expected ':' (the rest of 'condition ? a : b')")
            otherwise = self.expression()
            node = ast.Conditional(node, then, otherwise, node.line, node.column)
        self.depth -= 1
        return node

    def unary(self):
        """Prefix operators (``- + ! ~``), then an operand."""
        tokens = self.tokens
        i = self.i
        tok = tokens[i]
        kind = tok[0]
        # the common cases first (the token list ends with $END: i + 1 exists after an operand)
        if kind == "LITERAL" and tokens[i + 1][0] not in _CONTINUES:
            self.i = i + 1
            return ast.Literal(tok[1], tok[2], tok[3])
        if kind == "IDENT":
            after = tokens[i + 1][0]
            if after not in _CONTINUES:
                self.i = i + 1
                return ast.AttrRef(tok[1], None, None, False, tok[2], tok[3])
            if after == "DOT" and tokens[i + 2][0] == "IDENT" and tokens[i + 3][0] not in _CONTINUES:
                scope = _SCOPES.get(tok[1].lower())  # MY.x, TARGET.x: what build_select makes of them
                if scope:
                    self.i = i + 3
                    return ast.AttrRef(tokens[i + 2][1], scope, tok[1], False, tok[2], tok[3])
        if kind == "LPAR":  # here rather than in primary(): two frames a level of parentheses
            self.i = i + 1
            inner = self.expression()
            self.expect("RPAR", "expected an operator or ')'")
            node = ast.Paren(inner, tok[2], tok[3])
            return self.postfix(node) if tokens[self.i][0] in _CONTINUES else node
        if kind not in _PREFIX:
            return self.postfix(self.primary(False))
        prefixes = []
        while tok[0] in _PREFIX:
            prefixes.append(tok)
            self.i += 1
            tok = tokens[self.i]
        if self.depth + len(prefixes) > MAX_DEPTH:
            raise _too_deep(*prefixes[MAX_DEPTH - self.depth][2:])
        node = self.postfix(self.primary(False))
        for tok in reversed(prefixes):
            node = ast.UnaryOp(tok[1], node, tok[2], tok[3])
        return node

    def postfix(self, node):
        """The selectors (``.name``, ``[index]``) after an operand, and ``?: operand`` (right-associative)."""
        node = self.selectors(node)
        if self.tokens[self.i][0] != "ELVIS":
            return node
        chain = [node]
        while self.tokens[self.i][0] == "ELVIS":
            self.i += 1
            if self.depth + len(chain) > MAX_DEPTH:
                raise _too_deep(*self.tokens[self.i - 1][2:])
            chain.append(self.selectors(self.primary(True)))
        node = chain.pop()
        while chain:
            left = chain.pop()
            node = ast.Elvis(left, node, left.line, left.column)
        return node

    def selectors(self, node):
        tokens = self.tokens
        while True:
            kind = tokens[self.i][0]
            if kind == "DOT":
                self.i += 1
                name = tokens[self.i]
                if name[0] not in _NAMES:
                    raise _syntax_error(name, "expected a name after '.'")
                self.i += 1
                node = build_select(node, name)
            elif kind == "LSQB":
                self.i += 1
                index = self.expression()
                self.expect("RSQB", "expected an operator or ']'")
                node = ast.Subscript(node, index, node.line, node.column)
            else:
                return node

    def primary(self, after_elvis: bool):
        tokens = self.tokens
        tok = tokens[self.i]
        kind = tok[0]
        self.i += 1
        if kind == "LITERAL":
            return ast.Literal(tok[1], tok[2], tok[3])
        if kind == "IDENT" or kind == "QIDENT":
            if tokens[self.i][0] != "LPAR":
                return ast.AttrRef(tok[1], None, None, kind == "QIDENT", tok[2], tok[3])
            self.i += 1
            return build_call(tok, self.items("RPAR", ("COMMA", "SEMI"), "expected an operator, ',' or ')'"))
        if kind == "LPAR":
            inner = self.expression()
            self.expect("RPAR", "expected an operator or ')'")
            return ast.Paren(inner, tok[2], tok[3])
        if kind == "LBRACE":
            return ast.ListExpr(self.items("RBRACE", ("COMMA",), "expected an operator, ',' or '}'"), tok[2], tok[3])
        if kind == "LSQB":
            return build_record(tok, self.attributes())
        if kind == "DOT":
            name = tokens[self.i]
            if name[0] not in _NAMES:
                raise _syntax_error(name, "expected a name after '.'")
            self.i += 1
            return ast.AttrRef(name[1], "ROOT", ".", name[0] == "QIDENT", tok[2], tok[3])
        self.i -= 1
        if kind == "ELVIS" or (after_elvis and kind in _PREFIX):
            raise _syntax_error(tok, _ELVIS_HINT)
        raise _syntax_error(tok, _OPERAND_HINT)

    def items(self, close: str, separators: tuple, hint: str) -> list:
        """Expressions up to ``close`` (just read past it), one separator between each two."""
        tokens = self.tokens
        items = []
        if tokens[self.i][0] == close:
            self.i += 1
            return items
        while True:
            items.append(self.expression())
            kind = tokens[self.i][0]
            self.i += 1
            if kind == close:
                return items
            if kind not in separators:
                self.i -= 1
                raise _syntax_error(tokens[self.i], hint)

    def attributes(self) -> list:
        """``name = expr`` pairs up to ']' (just read past it); ';'s between, before and after."""
        tokens = self.tokens
        pairs = []
        while True:
            while tokens[self.i][0] == "SEMI":
                self.i += 1
            tok = tokens[self.i]
            if tok[0] == "RSQB":
                self.i += 1
                return pairs
            if tok[0] not in _NAMES:
                raise _syntax_error(tok, "expected 'name = value' or ']'")
            self.i += 1
            self.expect("ASSIGN", "expected '=' (an attribute is 'name = value')")
            pairs.append((tok[1], self.expression()))
            tok = tokens[self.i]
            if tok[0] != "SEMI" and tok[0] != "RSQB":
                raise _syntax_error(tok, "expected an operator, ';' or ']'")


def _depth(node) -> int:
    """Depth of the tree, iteratively (a deep tree must not blow Python's stack here)."""
    deepest = 0
    stack = [(node, 1)]
    while stack:
        item, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest > MAX_DEPTH:
                return deepest
        for child in ast.children(item):
            stack.append((child, level + 1))
    return deepest


# Tokens whose node adds a level to the tree inside one nested expression (binary and prefix
# operators, '.', '[', '?', '?:'); the other levels are the nested expressions themselves.
_CHAINING = frozenset(_BINARY) | {"NOTOP", "DOT", "LSQB", "QMARK", "ELVIS"}


def _check_depth(node, tokens: list[tuple], deepest: int):
    """Refuse a tree deeper than MAX_DEPTH; ``deepest`` is the parser's most nested expressions.

    The parser refuses deep nesting as it reads; left-associative chains are checked here.  A
    path down the tree has, in each nested expression it passes, one node per chaining token
    and one more: so ``deepest`` plus the chaining tokens bounds the depth, and only when that
    bound is too high is the tree walked (a thousand nested parentheses need no walk).
    """
    if len(tokens) <= MAX_DEPTH or deepest + sum(1 for tok in tokens if tok[0] in _CHAINING) <= MAX_DEPTH:
        return node
    if _depth(node) > MAX_DEPTH:
        raise _too_deep(node.line, node.column)
    return node


def parse_tokens(tokens: list[tuple]) -> ast.Node:
    """One complete expression from a token list ending with ``$END``."""
    if len(tokens) == 1:
        raise ClassAdSyntaxError("empty expression: write a value or an expression", 1, 1)
    parser = _Parser(tokens)
    node = parser.expression()
    tok = tokens[parser.i]
    if tok[0] != "$END":
        raise _syntax_error(tok, _COMPLETE_HINT)
    return _check_depth(node, tokens, parser.deepest)


def _parse_uncached(text: str, syntax: str) -> ast.Node:
    if syntax not in (OLD, NEW):
        raise ValueError(f"syntax must be 'old' or 'new', not {syntax!r}")
    return parse_tokens(tokenize(text, syntax))


_parse_cached = lru_cache(maxsize=4096)(_parse_uncached)


def parse(text: str, syntax: str = OLD) -> ast.Node:
    """Parse one complete ClassAd expression into an :mod:`ast` tree.

    ``syntax="old"`` (the default) is the syntax of configuration values and
    ``condor_status -l`` output; ``"new"`` is the native ``[ ... ]`` syntax
    (C-style string escapes, adjacent strings joined).  Results are cached:
    treat the returned tree as immutable.
    """
    if len(text) > 10_000:
        return _parse_uncached(text, syntax)  # do not pin huge texts in the cache
    return _parse_cached(text, syntax)


# --------------------------------------------------------------------------- ads


def parse_ad(text: str, syntax: str | None = None) -> ClassAd:
    """One ad, in new syntax (``[ a = 1; b = 2 ]``) or old syntax (``Name = expr`` lines).

    ``syntax=None`` picks new syntax when the text starts with ``[``.  Old
    syntax with several blank-line separated ads is an error here: use
    :func:`parse_ads`.
    """
    ads = parse_ads(text, syntax)
    if len(ads) != 1:
        if not ads:
            return ClassAd()
        raise ClassAdSyntaxError(f"expected one ad, found {len(ads)} (blank lines separate ads); "
                                 "use parse_ads() for several", 1, 1)
    return ads[0]


def parse_ads(text: str, syntax: str | None = None) -> list[ClassAd]:
    """Every ad in ``text``: ``[...]`` ads one after another, or old-syntax ads separated by blank lines."""
    stripped = text.lstrip()
    if syntax is None:
        syntax = NEW if stripped.startswith("[") else OLD
    if syntax == NEW:
        return _parse_new_ads(text)
    return _parse_old_ads(text)


def _parse_new_ads(text: str) -> list[ClassAd]:
    tokens = tokenize(text, NEW)
    ads = []
    parser = _Parser(tokens)
    while tokens[parser.i][0] != "$END":
        tok = tokens[parser.i]
        if tok[0] != "LSQB":
            raise ClassAdSyntaxError(f"expected '[' to start an ad, found {_describe(tok)}", tok[2], tok[3])
        start = parser.i
        parser.i += 1
        parser.depth = 1
        record = _check_depth(build_record(tok, parser.attributes()), tokens[start:parser.i], parser.deepest)
        ads.append(ClassAd(record.attrs))
    return ads


# `Name = value`; '==', '=?=' and '=!=' are operators, not the assignment
_OLD_LINE_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=(?!=|\?=|!=)\s*(.*?)\s*$")


def _parse_old_ads(text: str) -> list[ClassAd]:
    ads: list[ClassAd] = []
    current: ClassAd | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.strip()
        if not content:
            current = None  # a blank line ends the ad
            continue
        if content.startswith("#"):
            continue
        match = _OLD_LINE_RE.match(line)
        if not match:
            column = len(line) - len(line.lstrip()) + 1
            raise ClassAdSyntaxError("expected 'Name = expression' (old ClassAd syntax)", number, column)
        name, value = match.group(1), match.group(2)
        if "." in name:
            raise ClassAdSyntaxError(f"attribute name {name!r} may not contain '.'", number, match.start(1) + 1)
        value_column = match.start(2) + 1
        try:
            expr = parse(value, OLD)
        except ClassAdSyntaxError as exc:
            # report the position in the whole text, not inside the value
            column = exc.column + (value_column - 1 if exc.line == 1 else 0)
            raise ClassAdSyntaxError(f"{name}: {exc.message}", number + exc.line - 1, column) from None
        if current is None:
            current = ClassAd()
            ads.append(current)
        current[name] = _shift(expr, number - 1, value_column - 1)
    return ads


def _shift(node, lines: int, columns: int):
    """Positions of an old-syntax value are relative to the value; move them to the file.

    Trees come from the parse cache and are shared, so this copies.
    """
    if not lines and not columns:
        return node
    import copy

    node = copy.deepcopy(node)
    stack = [node]
    while stack:
        item = stack.pop()
        if item.line == 1:
            item.column += columns
        item.line += lines
        stack.extend(child for child in ast.children(item))
    return node
