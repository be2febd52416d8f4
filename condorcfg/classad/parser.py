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

from condorcfg.classad import ast, civil_time, lexer
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

# binary operator item -> (precedence (loosest 1), operator); all are left-associative.  'is' and
# 'isnt' in any case are operators, and '=?='/'=!=' are spelled so in the tree.
_BINARY = {op: (precedence, op) for precedence, ops in enumerate(
    [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>", ">>>"),
     ("+", "-"), ("*", "/", "%")], start=1) for op in ops}
_BINARY.update({"=?=": (6, "is"), "=!=": (6, "isnt")})
_BINARY.update({spelling: (6, value) for spelling, (kind, value) in lexer.KEYWORDS.items() if kind == "EQOP"})
_PREFIX = frozenset({"-", "+", "!", "~"})
# items that continue an operand: a plain name or value followed by none of these is complete
_CONTINUES = frozenset({".", "[", "?:", "("})
_KEYWORDS = lexer.KEYWORDS
_CLASS_OF = lexer.CLASS_OF
_NAME, _NUMBER, _STRING, _QUOTED = lexer.NAME, lexer.NUMBER, lexer.STRING, lexer.QUOTED
_DECODED, _DECODED_NAME = lexer.DECODED, lexer.DECODED_NAME
_ARGUMENT_SEPARATORS = frozenset({",", ";"})
_ITEM_SEPARATORS = frozenset({","})
_new = object.__new__  # nodes made here skip __init__ (a third of a parse's time): see _literal


def _literal(value, column: int):
    node = _new(ast.Literal)
    node.value = value
    node.spelling = None
    node.line = 1
    node.column = column
    return node


def _attr(name: str, scope, scope_text, quoted: bool, column: int):
    node = _new(ast.AttrRef)
    node.name = name
    node.scope = scope
    node.scope_text = scope_text
    node.quoted = quoted
    node.line = 1
    node.column = column
    return node


class _Parser:
    """Precedence climbing over the items of a text (see classad.lark for the grammar it implements).

    Positions are offsets + 1 on line 1 until :func:`_located` finds the lines.  ``depth``
    counts the nested expressions being read; each adds a level to the tree, so refusing more
    than MAX_DEPTH refuses only trees that are too deep anyway, and keeps this parser's
    recursion (at most six frames a level) bounded.
    """

    __slots__ = ("items", "starts", "i", "depth", "deepest")

    def __init__(self, items: list, starts: list, i: int = 0):
        self.items = items
        self.starts = starts
        self.i = i
        self.depth = 0
        self.deepest = 0  # the most nested expressions read at once (see _check_depth)

    def token(self, i: int) -> tuple:
        """The classic token at item ``i`` (what an error describes)."""
        start = self.starts[i]
        for tok in lexer.tokens_of(self.items, self.starts):
            if tok[3] == start + 1:
                return tok
        return lexer.token_of(self.items[i], start)  # (not reached: every item starts a token)

    def error(self, i: int, hint: str) -> ClassAdSyntaxError:
        return _syntax_error(self.token(i), hint)

    def too_deep(self, i: int) -> ClassAdSyntaxError:
        return _too_deep(1, self.starts[i] + 1)

    def expect(self, item: str, hint: str) -> None:
        if self.items[self.i] != item:
            raise self.error(self.i, hint)
        self.i += 1

    def name_at(self, i: int):
        """``(name, quoted)`` when item ``i`` is a name or a quoted name, else None."""
        item = self.items[i]
        cls = _CLASS_OF[item[0]]
        if cls is _NAME:
            return None if item in _KEYWORDS else (item, False)
        if cls is _QUOTED:
            return item[1:-1], True
        if cls is _DECODED_NAME:
            return item[1], True
        return None

    def expression(self):
        """Operands joined by binary operators (by precedence, left to right), then maybe ``? a : b``."""
        self.depth += 1
        if self.depth > self.deepest:
            self.deepest = self.depth
            if self.depth > MAX_DEPTH:
                raise self.too_deep(self.i)
        items = self.items
        binary = _BINARY
        node = self.unary()
        item = items[self.i]
        operator = binary.get(item)
        if operator is not None:
            self.i += 1
            right = self.unary()
            item = items[self.i]
            following = binary.get(item)
            if following is None:  # one operator, as in most parentheses: no stacks
                left = node
                node = _new(ast.BinaryOp)
                node.op = operator[1]
                node.left = left
                node.right = right
                node.line = left.line
                node.column = left.column
            else:
                node = self.chain(node, operator, right, following)
                item = items[self.i]
        if item == "?":
            self.i += 1
            then = self.expression()
            self.expect(":", "expected ':' (the rest of 'condition ? a : b')")
            otherwise = self.expression()
            node = ast.Conditional(node, then, otherwise, node.line, node.column)
        self.depth -= 1
        return node

    def chain(self, first, operator: tuple, second, following: tuple):
        """``first operator second`` and the operators and operands after them (``following`` the
        next operator, not read yet), joined by precedence."""
        items = self.items
        binary = _BINARY
        operands = [first, second]
        pending = [operator]  # (precedence, operator), precedence rising
        operator = following
        while operator is not None:
            precedence = operator[0]
            while pending and pending[-1][0] >= precedence:
                right = operands.pop()
                left = operands[-1]
                operands[-1] = _binary(pending.pop()[1], left, right)
            pending.append(operator)
            self.i += 1
            operands.append(self.unary())
            operator = binary.get(items[self.i])
        while pending:
            right = operands.pop()
            left = operands[-1]
            operands[-1] = _binary(pending.pop()[1], left, right)
        return operands[0]

    def unary(self):
        """Prefix operators (``- + ! ~``), then an operand."""
        items = self.items
        i = self.i
        item = items[i]
        cls = _CLASS_OF[item[0]]
        # the common cases first (the items end with END: i + 1 exists after an operand)
        if cls is _NAME:
            after = items[i + 1]
            if after not in _CONTINUES:
                keyword = _KEYWORDS.get(item)
                if keyword is None:
                    self.i = i + 1
                    return _attr(item, None, None, False, self.starts[i] + 1)
                if keyword[0] == "LITERAL":
                    self.i = i + 1
                    return _literal(keyword[1], self.starts[i] + 1)
            elif after == "(":
                if item not in _KEYWORDS:
                    self.i = i + 1
                    node = self.name_or_call(item, False, self.starts[i] + 1)
                    return self.postfix(node) if items[self.i] in _CONTINUES else node
            elif after == ".":
                name = items[i + 2]  # (a name is not END: i + 3 exists)
                if _CLASS_OF[name[0]] is _NAME and items[i + 3] not in _CONTINUES and name not in _KEYWORDS:
                    scope = _SCOPES.get(item.lower())  # MY.x, TARGET.x: what build_select makes of them
                    if scope:
                        self.i = i + 3
                        return _attr(name, scope, item, False, self.starts[i] + 1)
        elif cls is _NUMBER:
            if items[i + 1] not in _CONTINUES:
                self.i = i + 1
                node = _new(ast.Literal)
                node.value = lexer.number_value(item)
                node.spelling = None
                node.line = 1
                node.column = self.starts[i] + 1
                return node
        elif item == "(":  # here rather than in primary(): two frames a level of parentheses
            self.i = i + 1
            inner = self.expression()
            if items[self.i] != ")":
                raise self.error(self.i, "expected an operator or ')'")
            self.i += 1
            node = _new(ast.Paren)
            node.inner = inner
            node.line = 1
            node.column = self.starts[i] + 1
            return self.postfix(node) if items[self.i] in _CONTINUES else node
        elif cls is _STRING:
            if items[i + 1] not in _CONTINUES:
                self.i = i + 1
                return _literal(item[1:-1], self.starts[i] + 1)
        if item not in _PREFIX:
            return self.postfix(self.primary(False))
        prefixes = []
        while item in _PREFIX and not (item == "-" and lexer.glued(items, self.starts, self.i)):
            prefixes.append(self.i)
            self.i += 1
            item = items[self.i]
        if self.depth + len(prefixes) > MAX_DEPTH:
            raise self.too_deep(prefixes[MAX_DEPTH - self.depth])
        node = self.postfix(self.primary(False))
        for k in reversed(prefixes):
            node = ast.UnaryOp(items[k], node, 1, self.starts[k] + 1)
        return node

    def postfix(self, node):
        """The selectors (``.name``, ``[index]``) after an operand, and ``?: operand`` (right-associative)."""
        node = self.selectors(node)
        if self.items[self.i] != "?:":
            return node
        chain = [node]
        while self.items[self.i] == "?:":
            self.i += 1
            if self.depth + len(chain) > MAX_DEPTH:
                raise self.too_deep(self.i - 1)
            chain.append(self.selectors(self.primary(True)))
        node = chain.pop()
        while chain:
            left = chain.pop()
            node = ast.Elvis(left, node, left.line, left.column)
        return node

    def selectors(self, node):
        items = self.items
        while True:
            item = items[self.i]
            if item == ".":
                name = self.name_at(self.i + 1)
                if name is None:
                    raise self.error(self.i + 1, "expected a name after '.'")
                self.i += 2
                node = build_select(node, (None, name[0]))
            elif item == "[":
                self.i += 1
                index = self.expression()
                self.expect("]", "expected an operator or ']'")
                node = ast.Subscript(node, index, node.line, node.column)
            else:
                return node

    def primary(self, after_elvis: bool):
        items = self.items
        i = self.i
        item = items[i]
        cls = _CLASS_OF[item[0]]
        column = self.starts[i] + 1
        self.i = i + 1
        if cls is _NAME:
            keyword = _KEYWORDS.get(item)
            if keyword is None:
                return self.name_or_call(item, False, column)
            if keyword[0] == "LITERAL":
                return _literal(keyword[1], column)
        elif cls is _NUMBER:
            return _literal(lexer.number_value(item), column)
        elif cls is _STRING:
            return _literal(item[1:-1], column)
        elif cls is _DECODED:
            return _literal(item[1], column)
        elif cls is _QUOTED:
            return self.name_or_call(item[1:-1], True, column)
        elif cls is _DECODED_NAME:
            return self.name_or_call(item[1], True, column)
        elif item == "(":
            inner = self.expression()
            self.expect(")", "expected an operator or ')'")
            return ast.Paren(inner, 1, column)
        elif item == "{":
            return ast.ListExpr(self.list_items("}", _ITEM_SEPARATORS, "expected an operator, ',' or '}'"), 1, column)
        elif item == "[":
            return build_record((None, None, 1, column), self.attributes())
        elif item == ".":
            name = self.name_at(i + 1)
            if name is None:
                raise self.error(i + 1, "expected a name after '.'")
            self.i = i + 2
            return ast.AttrRef(name[0], "ROOT", ".", name[1], 1, column)
        elif item == "-" and lexer.glued(items, self.starts, i):
            self.i = i + 2
            return _literal(lexer.number_value(items[i + 1], negative=True), column)
        self.i = i
        if item == "?:" or (after_elvis and item in _PREFIX):
            raise self.error(i, _ELVIS_HINT)
        raise self.error(i, _OPERAND_HINT)

    def name_or_call(self, name: str, quoted: bool, column: int):
        """An attribute reference, or a call when '(' follows the name (just read)."""
        if self.items[self.i] != "(":
            return _attr(name, None, None, quoted, column)
        self.i += 1
        return build_call((None, name, 1, column),
                          self.list_items(")", _ARGUMENT_SEPARATORS, "expected an operator, ',' or ')'"))

    def list_items(self, close: str, separators: frozenset, hint: str) -> list:
        """Expressions up to ``close`` (just read past it), one separator between each two."""
        items = self.items
        out = []
        if items[self.i] == close:
            self.i += 1
            return out
        while True:
            out.append(self.expression())
            item = items[self.i]
            self.i += 1
            if item == close:
                return out
            if item not in separators:
                self.i -= 1
                raise self.error(self.i, hint)

    def attributes(self) -> list:
        """``name = expr`` pairs up to ']' (just read past it); ';'s between, before and after."""
        items = self.items
        pairs = []
        while True:
            while items[self.i] == ";":
                self.i += 1
            if items[self.i] == "]":
                self.i += 1
                return pairs
            name = self.name_at(self.i)
            if name is None:
                raise self.error(self.i, "expected 'name = value' or ']'")
            self.i += 1
            self.expect("=", "expected '=' (an attribute is 'name = value')")
            pairs.append((name[0], self.expression()))
            item = items[self.i]
            if item != ";" and item != "]":
                raise self.error(self.i, "expected an operator, ';' or ']'")


def _binary(op: str, left, right):
    node = _new(ast.BinaryOp)
    node.op = op
    node.left = left
    node.right = right
    node.line = left.line
    node.column = left.column
    return node


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


# Items whose node adds a level to the tree inside one nested expression (binary and prefix
# operators, '.', '[', '?', '?:'); the other levels are the nested expressions themselves.
_CHAINING = frozenset(_BINARY) | {"!", "~", ".", "[", "?", "?:"}


def _check_depth(node, items: list, deepest: int):
    """Refuse a tree deeper than MAX_DEPTH; ``deepest`` is the parser's most nested expressions.

    The parser refuses deep nesting as it reads; left-associative chains are checked here.  A
    path down the tree has, in each nested expression it passes, one node per chaining item
    and one more: so ``deepest`` plus the chaining items bounds the depth, and only when that
    bound is too high is the tree walked (a thousand nested parentheses need no walk).
    """
    if len(items) <= MAX_DEPTH or deepest + sum(map(_CHAINING.__contains__, items)) <= MAX_DEPTH:
        return node
    if _depth(node) > MAX_DEPTH:
        raise _too_deep(node.line, node.column)
    return node


def _located(text: str, node):
    """The tree of ``text`` with its positions (offsets + 1 on line 1) made lines and columns."""
    where = lexer.line_locator(text)
    for item in ast.walk(node):
        item.line, item.column = where(item.column - 1)
    return node


def parse_items(items: list, starts: list) -> ast.Node:
    """One complete expression from items ending with END (positions: offsets + 1 on line 1)."""
    if len(items) == 1:
        raise ClassAdSyntaxError("empty expression: write a value or an expression", 1, 1)
    parser = _Parser(items, starts)
    node = parser.expression()
    if items[parser.i] != lexer.END:
        raise parser.error(parser.i, _COMPLETE_HINT)
    node._compiled = len(items) - 1  # not compiled yet; at most this many nodes and levels (see ast.Node)
    return node if len(items) <= MAX_DEPTH else _check_depth(node, items, parser.deepest)


def _parse_uncached(text: str, syntax: str) -> ast.Node:
    if syntax not in (OLD, NEW):
        raise ValueError(f"syntax must be 'old' or 'new', not {syntax!r}")
    try:
        node = parse_items(*lexer.read(text, syntax))
    except ClassAdSyntaxError as exc:
        raise lexer.located(text, exc) from None
    return _located(text, node) if "\n" in text else node


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
    try:
        records = _new_records(text)
    except ClassAdSyntaxError as exc:
        raise lexer.located(text, exc) from None
    if "\n" in text:
        records = [_located(text, record) for record in records]
    return [ClassAd(record.attrs) for record in records]


def _new_records(text: str) -> list:
    items, starts = lexer.read(text, NEW)
    records = []
    parser = _Parser(items, starts)
    while items[parser.i] != lexer.END:
        start = parser.i
        if items[start] != "[":
            tok = parser.token(start)
            raise ClassAdSyntaxError(f"expected '[' to start an ad, found {_describe(tok)}", tok[2], tok[3])
        parser.i += 1
        parser.depth = 1
        record = build_record((None, None, 1, starts[start] + 1), parser.attributes())
        records.append(_check_depth(record, items[start:parser.i], parser.deepest))
    return records


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
