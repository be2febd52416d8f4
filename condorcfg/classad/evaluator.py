"""Evaluate ClassAd expressions the way HTCondor 25 does ("old ClassAd semantics" mode).

Each tree is compiled once into nested Python closures ``fn(cur, st)``:
``cur`` is the ad the expression is being evaluated in (HTCondor's
``state.curAd``) and ``st`` the per-evaluation :class:`_State`.  Compiled
forms are kept on the tree's root and, for attribute values, inside the
ad's entry, so repeated evaluation of policy expressions does no tree walking.
A tree just parsed is read without compiling the first time it is evaluated
(:func:`_interpret`: compiling costs more than one evaluation), and compiled
the second time.

Scoping follows HTCondor (spec/classad.md §6): a name is looked up in the
current ad, then its lexical parents; ``toplevel root self my parent
CurrentTime`` are special at the first level; in a two-ad evaluation the two
ads sit in a match ad (``lCtx``/``rCtx`` contexts give ``TARGET``/``OTHER``)
and an unscoped name missing from the starting ad is looked up in the other
ad.  The match ad is only built when an expression can actually see it.

Limits, as HTCondor's EvalState: a circular reference evaluates to
UNDEFINED at the point it re-enters; nesting depth is budgeted (400, counted
over operators and attribute references like the C++).  Work is paid from the
command's :class:`~condorcfg.classad.budget.Budget` (the C++ caps the node
evaluations of one evaluation at 10 million; condorcfg caps what a whole command
spends, see :mod:`condorcfg.classad.budget`): an evaluation pays for the nodes
of its expression (a first, read evaluation for its tokens, which bound them),
every attribute dereference for the nodes of the expression it evaluates, and
long strings compared pay for their length.  Past the depth
limit, or when the budget is spent, the whole evaluation fails and
:func:`evaluate` returns ERROR.
"""
from __future__ import annotations

import math
import operator as _operator
import time as _time

from condorcfg.classad import ast, functions
from condorcfg.classad import budget as _budget
from condorcfg.classad.budget import WORK_CHUNK, Budget, BudgetSpent
from condorcfg.classad.operators import (
    INT_MAX, INT_MIN, LONG_STRING, PARSE_UNITS_PER_CHAR, EvalFailure, arith, bitwise, compare, fold_ascii, identical,
    int_div, logical, logical_and, logical_or, pay_for_length, unary, wrap,
)
from condorcfg.classad.values import ERROR, UNDEFINED, AbsTime, ClassAd, ClassAdList, RelTime

MAX_DEPTH = 400


class _Miss:
    __slots__ = ()


_MISS = _Miss()


class _State:
    """Per-evaluation state: depth and work budgets, the in-progress set, the clock and the two-ad context.

    ``steps`` is work drawn from ``budget`` (the command's) and not used yet: the hot
    path counts in this local int and draws more when it goes negative.
    """

    __slots__ = ("depth", "steps", "budget", "stack", "now", "left", "right", "match", "root", "lctx", "rctx",
                 "alternate")

    def __init__(self, now=None, budget: Budget | None = None):
        self.depth = MAX_DEPTH
        self.steps = 0
        self.budget = budget if budget is not None else (_budget.current() or Budget())
        self.stack = None  # ids of the ad entries being evaluated (made at the first that is not constant)
        self.now = now
        self.left = self.right = self.match = self.root = self.lctx = self.rctx = None
        self.alternate = None  # (ad, other ad): an extra alternate scope (evalInEachContext's nested ad)

    def pay(self, units: int) -> None:
        """Spend ``units`` of work (raises BudgetSpent when the command has none left)."""
        self.steps -= units
        if self.steps < 0:
            self.budget.refill(self)

    # --- what the built-in functions need from the evaluator (they cannot import it: it imports them)

    def item(self, lst, i: int):
        """Element ``i`` of a list value, evaluated in the list's scope."""
        return list_item(lst, i, self)

    def compiled(self, node) -> tuple:
        """``(fn, maxd, cost)`` of a tree (see :func:`compiled_with_cost`)."""
        return compiled_with_cost(node)

    def compiled_native_text(self, text: str) -> tuple:
        """``(fn, maxd, cost)`` of text in the new syntax, as eval() reads it; parsing text not seen
        before is slow and pays by length.  Raises the parser's error for text that does not parse."""
        if (text, True) not in _text_cache:
            self.pay(len(text) * PARSE_UNITS_PER_CHAR)
        return compiled_text_with_cost(text, native=True)

    def definition(self, node, cur):
        """The expression an attribute reference names in scope ``cur``, or None (see :func:`definition`)."""
        return definition(node, cur, self)

    def nested(self) -> "_State":
        """A fresh state for evaluating inside another ad: same clock and budget, nothing else."""
        return _State(self.now, self.budget)

    def clock(self) -> float:
        now = self.now
        if now is None:
            return _time.time()
        return now() if callable(now) else now

    def match_ad(self) -> ClassAd:
        """Build HTCondor's MatchClassAd around the two ads (only when an expression can see it)."""
        if self.match is None:
            def ref(name):
                return ast.AttrRef(name, scope="ROOT", scope_text=".")

            def ctx(me, other):
                return ClassAd([("ad", ref(me)), ("my", ref(me)), ("other", ref(other)), ("target", ref(other))])

            def req(side):
                return ast.Select(ast.AttrRef(side), "requirements")

            self.lctx, self.rctx = ctx("LEFT", "RIGHT"), ctx("RIGHT", "LEFT")
            m = ClassAd([
                ("lCtx", ast.Literal(self.lctx)), ("LEFT", ast.Literal(self.left)),
                ("rCtx", ast.Literal(self.rctx)), ("RIGHT", ast.Literal(self.right)),
                ("leftRankValue", ast.Select(ast.AttrRef("LEFT"), "rank")),
                ("rightRankValue", ast.Select(ast.AttrRef("RIGHT"), "rank")),
                ("symmetricMatch", ast.BinaryOp("&&", req("RIGHT"), req("LEFT"))),
                ("leftMatchesRight", req("RIGHT")), ("rightMatchesLeft", req("LEFT")),
            ])
            self.lctx.parent = self.rctx.parent = m
            self.match = self.root = m
        return self.match


# names the match ad and its context ads define (looked at only when a lookup reaches them)
_CTX_NAMES = frozenset(("ad", "my", "other", "target"))
_MATCH_NAMES = frozenset(("lctx", "left", "rctx", "right", "leftrankvalue", "rightrankvalue",
                          "symmetricmatch", "leftmatchesright", "rightmatchesleft"))
_SPECIAL = frozenset(("toplevel", "root", "self", "parent", "my", "currenttime"))


# ---------------------------------------------------------------------------
# Compilation

_text_cache: dict[tuple, tuple] = {}  # (text, native) -> (fn, maxd, cost) or the syntax error
_CACHE_LIMIT = 20000


def compiled(node) -> tuple:
    """``(fn, maxd)`` for a tree: ``fn(cur, st)`` evaluates it; maxd is its static nesting depth."""
    fn, maxd, _ = compiled_with_cost(node)
    return fn, maxd


def compiled_with_cost(node) -> tuple:
    """``(fn, maxd, cost)``: cost is the work one evaluation of the tree is charged (its node count).

    Compiled once per tree and kept on its root node (see ``ast.Node``)."""
    try:
        hit = node._compiled
    except AttributeError:
        return _compile_tree(node)
    return hit if type(hit) is tuple else _compile_tree(node)


def _compile_tree(node) -> tuple:
    """Compile a tree not compiled yet, keep ``(fn, maxd, cost)`` on its root and return it."""
    outer = _compiled_nodes[0]  # (a compilation inside another keeps the outer count)
    _compiled_nodes[0] = 0
    try:
        fn, maxd = _compile(node, 0)
        size = _compiled_nodes[0]
    finally:
        _compiled_nodes[0] = outer
    node._compiled = hit = (fn, maxd, size)
    return hit


# Nodes compiled so far by the compilation running: its tree's size, counted on the way (every
# node passes through _compile; lists and records, whose items compile when evaluated, add their
# items' sizes) instead of a second walk.
_compiled_nodes = [0]


def tree_size(node) -> int:
    """The number of nodes of a tree: an upper bound of the nodes one evaluation of it runs."""
    count = 0
    stack = [node]
    children = ast.children
    while stack:
        current = stack.pop()
        count += 1
        if isinstance(current, ast.Node):
            stack.extend(children(current))
    return count


def _parse(text: str, native: bool = False):
    from condorcfg.classad import parser

    if native:
        return parser.parse(text, syntax="new")
    return parser.parse(text)


class _Refusal:
    """A remembered parse failure, raised as a new exception each time.

    Never the cached exception object itself: raising it attaches a traceback whose frames link
    (``f_back``) to every caller's locals, which kept a whole Config alive per cached error
    (found by fuzzing: memory grew by 17 KB per input).
    """

    __slots__ = ("kind", "args", "position")

    def __init__(self, exc: Exception):
        self.kind = type(exc)
        self.args = exc.args
        self.position = (exc.message, exc.line, exc.column) if hasattr(exc, "line") else None

    def fresh(self) -> Exception:
        if self.position is not None:
            return self.kind(*self.position)
        return self.kind(*self.args)


def compiled_text(text: str, native: bool = False) -> tuple:
    """Parse and compile expression text (cached); raises the parser's ClassAdSyntaxError."""
    fn, maxd, _ = compiled_text_with_cost(text, native)
    return fn, maxd


def compiled_text_with_cost(text: str, native: bool = False) -> tuple:
    """``(fn, maxd, cost)`` of expression text (cached); raises the parser's ClassAdSyntaxError."""
    key = (text, native)
    hit = _text_cache.get(key)
    if hit is None:
        try:
            hit = compiled_with_cost(_parse(text, native))
        except Exception as exc:  # remember syntax errors too: the same bad text comes back often
            hit = _Refusal(exc)
        if len(_text_cache) >= _CACHE_LIMIT:
            _text_cache.clear()
        _text_cache[key] = hit
    if type(hit) is _Refusal:
        raise hit.fresh()
    return hit


def _entry_code(entry) -> None:
    """Fill the compiled slots of an ad entry ``[spelling, expr, fn, maxd, constant-or-cost]``.

    A literal entry gets maxd -1 and its value in slot 4; any other gets in slot 4 the
    work a dereference of it is charged (the node count of its expression).
    """
    expr = entry[1]
    cost = 1
    if isinstance(expr, ast.Node):
        fn, maxd, cost = compiled_with_cost(expr)
    elif isinstance(expr, str):
        try:
            node = _parse(expr)
        except Exception:  # text HTCondor would not have accepted into an ad
            fn, maxd = _const(ERROR), 0
        else:
            entry[1] = expr = node  # the ad now holds the tree (what HTCondor stores)
            fn, maxd, cost = compiled_with_cost(node)
    elif isinstance(expr, (ClassAd, ClassAdList)):
        fn, maxd = _const(expr), 0
    else:
        fn, maxd = _compile(ast.Literal(expr), 0)
    if isinstance(expr, ast.Literal) and not isinstance(expr.value, (ClassAd, ClassAdList)):
        # a literal cannot recurse: readers take the value straight from the entry
        entry[4] = expr.value
        maxd = -1
    else:
        entry[4] = cost
    entry[3] = maxd
    entry[2] = fn


_const = functions.const_fn
_CONST_CODE = functions.CONST_CODE  # (a constant child lets its parent fold)


def _compile(node, d: int) -> tuple:
    """Compile ``node`` found under ``d`` depth-counting ancestors; returns (fn, maxd).

    Each handler counts its node in ``_compiled_nodes`` (the hot ones call the handlers of
    their children directly, through ``_handler``: a frame less per node)."""
    handler = _COMPILERS.get(type(node))
    if handler is None:
        for base, h in _COMPILERS.items():
            if isinstance(node, base):
                handler = h
                break
        else:
            _compiled_nodes[0] += 1
            return _const(ERROR), 0
    return handler(node, d)


def _c_literal(node, d):
    _compiled_nodes[0] += 1
    return _const(node.value), 0


def _c_paren(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    inner = node.inner
    fn, maxd = _handler(type(inner), _compile)(inner, p)
    return fn, maxd if maxd > p else p


def _deref(entry, ad, st, p):
    """Evaluate an ad entry found by a reference at static depth ``p`` (cycle + budget checks)."""
    fn = entry[2]
    if fn is None:
        _entry_code(entry)
        fn = entry[2]
    if entry[3] < 0:
        return entry[4]
    key = id(entry)
    stack = st.stack
    if stack is None:
        stack = st.stack = set()
    elif key in stack:
        return UNDEFINED  # circular reference: HTCondor 25 yields undefined at the re-entry
    budget = st.depth
    nb = budget - p
    if entry[3] > nb:
        raise EvalFailure("expression nesting exceeds HTCondor's depth limit")
    st.steps -= entry[4]  # the nodes of the expression about to run
    if st.steps < 0:
        st.budget.refill(st)  # raises BudgetSpent when the command's work is spent
    st.depth = nb
    stack.add(key)
    value = fn(ad, st)
    stack.discard(key)
    st.depth = budget
    return value


def _scope_parent(ad, k, st):
    """The next scope above ``ad`` for a lookup of ``k``; the match context ads are virtual."""
    parent = ad.parent
    if parent is None and st.left is not None and (ad is st.left or ad is st.right):
        if k in _CTX_NAMES or k in _MATCH_NAMES:
            st.match_ad()
            return st.lctx if ad is st.left else st.rctx
    return parent


def _special(k, ad, st, p):
    """A special name not defined in ``ad`` (the first scope searched)."""
    if k == "self" or k == "my":
        return ad
    if k == "parent":
        parent = _scope_parent(ad, "lctx", st)
        return _MISS if parent is None else parent
    if k == "currenttime":
        return int(st.clock())
    # toplevel / root
    if st.left is not None:
        return st.match_ad()
    if st.root is None:
        raise EvalFailure("no root scope")
    return st.root


def _lookup(start, k, st, p):
    """HTCondor's LookupInScope from ``start`` followed by evaluation; _MISS when absent."""
    ad = start
    while True:
        entry = ad._data.get(k)
        if entry is not None:
            return _deref(entry, ad, st, p)
        if k in _SPECIAL:
            return _special(k, ad, st, p)
        ad = _scope_parent(ad, k, st)
        if ad is None or ad is start:
            return _MISS


def _lookup_unscoped(cur, k, st, p):
    """An unscoped name: the scope chain, then (two-ad evaluation) the other ad."""
    if cur is None:
        return UNDEFINED
    value = _lookup(cur, k, st, p)
    if value is _MISS:
        other = _alternate(cur, st)
        if other is not None:
            value = _lookup(other, k, st, p)
        if value is _MISS:
            return UNDEFINED
    return value


def _alternate(cur, st):
    """HTCondor's alternateScope of an ad: the other side of a match, if any."""
    left = st.left
    if left is not None:
        if cur is left:
            return st.right
        if cur is st.right:
            return left
    if st.alternate is not None and cur is st.alternate[0]:
        return st.alternate[1]
    return None


def find_entry(start, k, st):
    """LookupInScope without evaluating: the entry list, a special name's value, or _MISS."""
    ad = start
    while True:
        entry = ad._data.get(k)
        if entry is not None:
            return entry
        if k in _SPECIAL:
            value = _special(k, ad, st, 0)
            return value if value is _MISS else [k, ast.Literal(value), None, 0, None]
        ad = _scope_parent(ad, k, st)
        if ad is None or ad is start:
            return _MISS


def definition(node, cur, st):
    """The expression an attribute reference names (HTCondor's Deref), or None if it names nothing."""
    if isinstance(node, ast.AttrRef) and node.scope is None:
        if cur is None:
            return None
        k = node.name.lower()
        found = find_entry(cur, k, st)
        if found is _MISS:
            other = _alternate(cur, st)
            found = _MISS if other is None else find_entry(other, k, st)
    elif isinstance(node, ast.AttrRef) and node.scope == "ROOT":
        root = st.match_ad() if st.left is not None else st.root
        found = _MISS if root is None else find_entry(root, node.name.lower(), st)
    else:
        if isinstance(node, ast.AttrRef):
            base_node = ast.AttrRef((node.scope_text or node.scope).lower())
        else:
            base_node = node.base
        fn, _ = compiled(base_node)
        base = fn(cur, st)
        found = find_entry(base, node.name.lower(), st) if isinstance(base, ClassAd) else _MISS
    if found is _MISS:
        return None
    expr = found[1]
    if isinstance(expr, str):  # text the ad could not parse: parsing it again is slow, it pays
        st.pay(len(expr) * PARSE_UNITS_PER_CHAR)
        try:
            expr = _parse(expr)
        except Exception:
            return None
    return expr


def _c_attr(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    scope = node.scope
    k = node.name.lower()
    if scope is None:
        def attr(cur, st):
            if cur is not None:
                entry = cur._data.get(k)
                if entry is not None:
                    if entry[3] < 0:
                        return entry[4]
                    return _deref(entry, cur, st, p)
            return _lookup_unscoped(cur, k, st, p)
        return attr, p
    if scope == "ROOT":
        def absolute(cur, st):
            root = st.root
            if root is None:
                if st.left is not None:
                    root = st.match_ad()
                else:
                    raise EvalFailure("absolute reference with no root scope")
            value = _lookup(root, k, st, p)
            return UNDEFINED if value is _MISS else value
        return absolute, p
    # MY.x, TARGET.x, OTHER.x, PARENT.x: the scope word is itself an (unscoped) attribute
    # reference, one level deeper, evaluated when a fast path below does not apply
    base_name = (node.scope_text or scope).lower()
    if base_name == "my":
        def my_select(cur, st):
            if cur is None:
                return UNDEFINED
            if "my" not in cur._data:  # MY is the current ad unless an attribute is called MY
                entry = cur._data.get(k)
                if entry is not None:
                    if entry[3] < 0:
                        return entry[4]
                    return _deref(entry, cur, st, p)
                value = _lookup(cur, k, st, p)
                return UNDEFINED if value is _MISS else value
            return _select_value(_scope_word(base_name, p)(cur, st), k, st, p)
        return my_select, p + 1
    if base_name in ("target", "other"):
        def target_select(cur, st):
            if cur is None:
                return UNDEFINED
            left = st.left
            if left is not None and cur.parent is None and base_name not in cur._data:
                # fast path for the usual case: TARGET seen from the top of one side of a match
                if cur is left:
                    other = st.right
                elif cur is st.right:
                    other = left
                else:
                    other = None
                if other is not None:
                    entry = other._data.get(k)
                    if entry is not None:
                        if entry[3] < 0:
                            return entry[4]
                        return _deref(entry, other, st, p)
                    value = _lookup(other, k, st, p)
                    return UNDEFINED if value is _MISS else value
            return _select_value(_scope_word(base_name, p)(cur, st), k, st, p)
        return target_select, p + 1

    def scoped(cur, st):
        return _select_value(_scope_word(base_name, p)(cur, st), k, st, p)
    return scoped, p + 1


def _scope_word(name: str, p: int):
    """The compiled reference to scope word ``name`` (``my``, ``target`` ...) at depth ``p``.

    It depends on nothing else, so there is one per word and depth, made when first needed
    (not one per scoped reference: most are answered by the fast paths)."""
    key = (name, p)
    fn = _SCOPE_WORD_FNS.get(key)
    if fn is None:
        if len(_SCOPE_WORD_FNS) >= 1024:  # (hand-built trees may spell other words)
            _SCOPE_WORD_FNS.clear()
        outer = _compiled_nodes[0]
        fn = _SCOPE_WORD_FNS[key] = _c_attr(ast.AttrRef(name), p)[0]
        _compiled_nodes[0] = outer  # (made while evaluating: part of no tree's cost)
    return fn


_SCOPE_WORD_FNS: dict[tuple, object] = {}  # (scope word, depth) -> its compiled reference


def _select_value(base, k, st, p):
    """``base.name`` once ``base`` is known."""
    if type(base) is ClassAd or isinstance(base, ClassAd):
        entry = base._data.get(k)
        if entry is not None:
            return _deref(entry, base, st, p)
        value = _lookup(base, k, st, p)
        return UNDEFINED if value is _MISS else value
    if base is UNDEFINED:
        return UNDEFINED
    if isinstance(base, ClassAdList):
        out = []
        for i in range(len(base)):
            item = list_item(base, i, st)
            if isinstance(item, (ClassAd, ClassAdList)):
                item = _select_value(item, k, st, p)
            elif item is not UNDEFINED:
                item = ERROR
            out.append(ast.Literal(item))
        return ClassAdList(out, None)
    return ERROR


def _c_select(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    k = node.name.lower()
    base_fn, base_max = _compile(node.base, p)

    def select(cur, st):
        return _select_value(base_fn(cur, st), k, st, p)
    return select, max(p, base_max)


def list_item(lst, i, st):
    """Evaluate element ``i`` of a list value in the list's scope."""
    node = lst[i]
    if type(node) is ast.Literal:
        return node.value
    fn, maxd = compiled(node)
    if maxd > st.depth:
        raise EvalFailure("expression nesting exceeds HTCondor's depth limit")
    return fn(lst.scope, st)


def list_values(lst, st) -> list:
    return [list_item(lst, i, st) for i in range(len(lst))]


def _c_subscript(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    base_fn, bmax = _compile(node.base, p)
    index_fn, imax = _compile(node.index, p)

    def subscript(cur, st):
        base = base_fn(cur, st)
        index = index_fn(cur, st)
        if base is ERROR or index is ERROR:
            return ERROR
        if base is UNDEFINED or index is UNDEFINED:
            return UNDEFINED
        if isinstance(base, ClassAdList):
            if type(index) is int and 0 <= index < len(base):
                return list_item(base, index, st)
            return ERROR
        if isinstance(base, ClassAd):
            if type(index) is str:
                entry = base._data.get(index.lower())  # only this ad, not its parents
                return UNDEFINED if entry is None else _deref(entry, base, st, p)
            return ERROR
        return ERROR
    return subscript, max(p, bmax, imax)


def _c_list(node, d):
    _compiled_nodes[0] += 1
    items = list(node.items)
    _compiled_nodes[0] += sum(tree_size(item) for item in items)

    def make_list(cur, st):
        return ClassAdList(items, cur)
    return make_list, 0


def _c_record(node, d):
    _compiled_nodes[0] += 1
    _compiled_nodes[0] += sum(tree_size(expr) for _, expr in node.attrs)
    template: dict = {}
    for name, expr in node.attrs:
        key = name.lower()
        old = template.get(key)
        template[key] = [old[0] if old else name, expr, None, 0, None]

    def make_record(cur, st):
        return ClassAd._from_entries(template, cur)
    return make_record, 0


# ---------------------------------------------------------------------------


_SCALARS = (int, float, str, bool, AbsTime, RelTime)


def _fold(fn, *children):
    """``fn`` as a constant when every child is a scalar constant (``15 * 60``): evaluate it once now.

    The command's budget pays, as if the expression ran (a config full of costly constant calls
    cannot escape it by being compiled); outside a command a small one does.  A fold that fails
    or would make a long string is left to run time: the tree means the same either way.
    """
    for child in children:
        constant, v = functions.const_value(child)
        if not constant or not (isinstance(v, _SCALARS) or v is UNDEFINED or v is ERROR):
            return fn
    budget = _active_budget() or Budget(work=_FOLD_WORK, bytes=_FOLD_BYTES)
    st = _State(budget=budget)
    try:
        value = fn(None, st)
    except (EvalFailure, BudgetSpent):
        return fn
    finally:
        budget.give_back(st)
    if type(value) is str and len(value) > _FOLD_BYTES:
        return fn
    return _const(value)


_FOLD_WORK = 20_000  # about 10 ms
_FOLD_BYTES = 65_536  # a longer constant string is made at run time, paid by the command


def _c_binary(node, d):
    _compiled_nodes[0] += 1
    op = node.op
    if op == "&&" or op == "||":
        return _c_logical_chain(node, d)
    p = d + 1
    left = node.left
    right = node.right
    lf, lmax = _handler(type(left), _compile)(left, p)
    if type(right) is ast.Literal:  # (x > 60: what _c_literal does, without its frame)
        _compiled_nodes[0] += 1
        rf, rmax = _const(right.value), 0
    else:
        rf, rmax = _handler(type(right), _compile)(right, p)
    make = _BINARY_MAKERS.get(node.op) or _BINARY_MAKERS.get(node.op.lower())  # ('IS' in a hand-built tree)
    fn = make(lf, rf) if make else _error_fn
    if lmax < p:
        lmax = p
    if rmax > lmax:
        lmax = rmax
    if lf.__code__ is _CONST_CODE and rf.__code__ is _CONST_CODE:
        fn = _fold(fn, lf, rf)
    return fn, lmax


def _c_logical_chain(node, d):
    """``a && b``, and ``a && b && c ...`` (left-nested, as parsed) as one closure over its operands:
    the same values, depths and node count as the nested form, without a call per level."""
    op = node.op
    operands = []  # (operand node, depth it compiles at), rightmost first
    binary, depth = node, d
    while True:
        p = depth + 1
        operands.append((binary.right, p))
        left = binary.left
        if type(left) is ast.BinaryOp and left.op == op:
            _compiled_nodes[0] += 1  # (the nested binary node, which no handler sees)
            binary, depth = left, p
            continue
        operands.append((left, p))
        break
    fns = []
    maxd = p  # the innermost binary's children are the deepest operands
    constant = True
    for operand, at in reversed(operands):
        fn, m = _handler(type(operand), _compile)(operand, at)
        fns.append(fn)
        if m > maxd:
            maxd = m
        if constant and fn.__code__ is not _CONST_CODE:
            constant = False
    fn = _LOGICAL_CHAINS[op](fns)
    if constant:
        fn = _fold(fn, *fns)
    return fn, maxd


def _error_fn(cur, st):
    return ERROR


# op -> make(lf, rf): the closure evaluating ``left op right``, with inline fast paths
def _logical(decides: bool, slow):
    """Closures for ``f0 op f1 op f2 ...`` evaluated as ``((f0 op f1) op f2) ...``: && (decided by
    false) and || (decided by true), booleans on the fast path."""
    passes = not decides

    def chain(fns):
        first, rest = fns[0], tuple(fns[1:])

        def logical_chain(cur, st):
            acc = first(cur, st)
            for f in rest:
                if acc is passes:  # true && b, false || b: b's truth value
                    v = f(cur, st)
                    acc = v if v is True or v is False else logical(v)
                elif acc is decides:
                    return decides
                else:
                    acc = slow(acc, lambda: f(cur, st))  # (called at once: f is this iteration's)
            return acc
        return logical_chain
    return chain


def _pair(chain):
    """make(lf, rf) for a logical operator: the chain of two (trees built by hand, and tests)."""
    return lambda lf, rf: chain((lf, rf))


def _make_is(lf, rf):
    constant, b = functions.const_value(rf)
    if constant and (b is UNDEFINED or b is ERROR or b is True or b is False):
        def is_singleton(cur, st):  # x =?= undefined: identical() to a singleton is identity
            return lf(cur, st) is b
        return is_singleton

    def is_identical(cur, st):
        return identical(lf(cur, st), rf(cur, st))
    return is_identical


def _make_isnt(lf, rf):
    constant, b = functions.const_value(rf)
    if constant and (b is UNDEFINED or b is ERROR or b is True or b is False):
        def isnt_singleton(cur, st):
            return lf(cur, st) is not b
        return isnt_singleton

    def not_identical(cur, st):
        r = identical(lf(cur, st), rf(cur, st))
        return r if r is ERROR else not r
    return not_identical


def _arithmetic(pyop, op):
    """Closures for + - * with the int/int (64-bit wrap) and real fast paths inline; a constant
    int right side (``x * 60``, ``CurrentTime - 3600``) is not called."""
    def values(a, b):
        ta = type(a)
        tb = type(b)
        if ta is int and tb is int:
            r = pyop(a, b)
            return r if INT_MIN <= r <= INT_MAX else wrap(r)
        # (a bool is the int 0 or 1 here, in Python as in ClassAds: (x > 1) * 50)
        if (ta is float or ta is int or ta is bool) and (tb is float or tb is int or tb is bool):
            r = pyop(a, b)
            if type(r) is int:
                return r if INT_MIN <= r <= INT_MAX else wrap(r)
            return ERROR if r == math.inf else r
        return arith(op, a, b)

    def make(lf, rf):
        constant, b = functions.const_value(rf)
        if constant and type(b) is int:
            def arith_int(cur, st):
                a = lf(cur, st)
                if type(a) is int:
                    r = pyop(a, b)
                    return r if INT_MIN <= r <= INT_MAX else wrap(r)
                return values(a, b)
            return arith_int

        def arith_op(cur, st):
            a = lf(cur, st)
            b = rf(cur, st)
            ta = type(a)
            tb = type(b)
            if ta is int and tb is int:
                r = pyop(a, b)
                return r if INT_MIN <= r <= INT_MAX else wrap(r)
            if ta is float and (tb is float or tb is int):
                r = pyop(a, b)
                return ERROR if r == math.inf else r
            return values(a, b)
        return arith_op
    return make


def _make_div(lf, rf):
    def div(cur, st):
        a = lf(cur, st)
        b = rf(cur, st)
        ta = type(a)
        tb = type(b)
        if ta is int and tb is int and b:
            if a >= 0 and b > 0:
                return a // b  # (int_div's answer when neither is negative)
            return int_div(a, b)
        if (ta is float or ta is int) and (tb is float or tb is int) and b:  # (one is a real)
            r = a / b
            return ERROR if r == math.inf else r
        return arith("/", a, b)
    return div


def _make_mod(lf, rf):
    def mod(cur, st):
        return arith("%", lf(cur, st), rf(cur, st))
    return mod


def _comparison(pyop, op):
    """Closures for == != < <= > >=: numbers inline; a constant right side (``x > 60``,
    ``State == "Claimed"``) is not called, and a constant string is folded to lower case once."""
    def values(a, b, st):  # any two values but two numbers
        if type(a) is str and type(b) is str:
            if len(a) + len(b) > LONG_STRING:
                pay_for_length(len(a) + len(b), st.budget)
            if a.isascii() and b.isascii():
                return pyop(a.lower(), b.lower())
            return pyop(fold_ascii(a), fold_ascii(b))
        return compare(op, a, b)

    def make(lf, rf):
        constant, b = functions.const_value(rf)
        tb = type(b)
        # (a bool compares as the number 0 or 1, in Python as in ClassAds: x == false)
        if constant and (tb is int or tb is float or tb is bool):
            def cmp_number(cur, st):
                a = lf(cur, st)
                ta = type(a)
                if ta is int or ta is float or ta is bool:
                    return pyop(a, b)
                return values(a, b, st)
            return cmp_number
        if constant and tb is str and b.isascii() and len(b) <= LONG_STRING:
            folded = b.lower()
            room = LONG_STRING - len(b)  # (longer pairs pay for their length)

            def cmp_text(cur, st):
                a = lf(cur, st)
                if type(a) is str and a.isascii() and len(a) <= room:
                    return pyop(a.lower(), folded)
                return values(a, b, st)
            return cmp_text

        def cmp(cur, st):
            a = lf(cur, st)
            b = rf(cur, st)
            ta = type(a)
            tb = type(b)
            if (ta is int or ta is float or ta is bool) and (tb is int or tb is float or tb is bool):
                return pyop(a, b)
            return values(a, b, st)
        return cmp
    return make


def _bitwise(op):
    def make(lf, rf):
        def bits(cur, st):
            return bitwise(op, lf(cur, st), rf(cur, st))
        return bits
    return make


# The parser spells '=?=' and '=!=' as 'is' and 'isnt' (HTCondor prints them so); trees built
# by hand may use any.
_LOGICAL_CHAINS = {"&&": _logical(False, logical_and), "||": _logical(True, logical_or)}

_BINARY_MAKERS = {
    "&&": _pair(_LOGICAL_CHAINS["&&"]), "||": _pair(_LOGICAL_CHAINS["||"]),
    "is": _make_is, "=?=": _make_is, "isnt": _make_isnt, "=!=": _make_isnt,
    "+": _arithmetic(_operator.add, "+"), "-": _arithmetic(_operator.sub, "-"), "*": _arithmetic(_operator.mul, "*"),
    "/": _make_div, "%": _make_mod,
    "==": _comparison(_operator.eq, "=="), "!=": _comparison(_operator.ne, "!="),
    "<": _comparison(_operator.lt, "<"), "<=": _comparison(_operator.le, "<="),
    ">": _comparison(_operator.gt, ">"), ">=": _comparison(_operator.ge, ">="),
    "&": _bitwise("&"), "|": _bitwise("|"), "^": _bitwise("^"),
    "<<": _bitwise("<<"), ">>": _bitwise(">>"), ">>>": _bitwise(">>>"),
}


def _c_unary(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    op = node.op
    fn, maxd = _compile(node.operand, p)

    def un(cur, st):
        return unary(op, fn(cur, st))
    return (_fold(un, fn) if fn.__code__ is _CONST_CODE else un), maxd if maxd > p else p


def _c_conditional(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    cf, cmax = _compile(node.cond, p)
    tf, tmax = _compile(node.then, p)
    ef, emax = _compile(node.otherwise, p)

    def cond(cur, st):
        c = cf(cur, st)
        if c is True:
            return tf(cur, st)
        if c is False:
            return ef(cur, st)
        c = logical(c)
        if c is True:
            return tf(cur, st)
        if c is False:
            return ef(cur, st)
        return c
    return cond, max(p, cmax, tmax, emax)


def _c_elvis(node, d):
    _compiled_nodes[0] += 1
    p = d + 1
    lf, lmax = _compile(node.left, p)
    rf, rmax = _compile(node.right, p)

    def elvis(cur, st):
        a = lf(cur, st)
        return rf(cur, st) if a is UNDEFINED else a
    return elvis, max(p, lmax, rmax)


def _c_call(node, d):
    _compiled_nodes[0] += 1
    return functions.compile_call(node, d, _compile, _fold)


_COMPILERS = {
    ast.Literal: _c_literal, ast.AttrRef: _c_attr, ast.Select: _c_select, ast.Subscript: _c_subscript,
    ast.UnaryOp: _c_unary, ast.BinaryOp: _c_binary, ast.Conditional: _c_conditional, ast.Elvis: _c_elvis,
    ast.Call: _c_call, ast.ListExpr: _c_list, ast.RecordExpr: _c_record, ast.Paren: _c_paren,
}
_handler = _COMPILERS.get


# ---------------------------------------------------------------------------
# Public entry points

def as_ad(scope) -> ClassAd | None:
    """A ClassAd from a ClassAd or a mapping of attribute name -> expression text / Node / value."""
    if scope is None or isinstance(scope, ClassAd):
        return scope
    ad = ClassAd()
    for name, value in scope.items():
        if len(name) >= 2 and name[0] == "'" and name[-1] == "'":
            name = name[1:-1]  # a quoted attribute name
        if isinstance(value, str):
            try:
                value = _parse(value)
            except Exception:  # kept as text: it evaluates to error, as an unparsable value would
                pass
        ad[name] = value
    return ad


def _root_of(ad):
    seen = 0
    while ad.parent is not None and seen < 10000:
        ad = ad.parent
        seen += 1
    return ad


def evaluate(expr_or_text, my=None, target=None, now=None):
    """Evaluate an expression (text in old ClassAd syntax, or a tree) in HTCondor mode.

    ``my`` is the ad being evaluated (MY), ``target`` the other ad of a match
    (TARGET); each a ClassAd or a mapping of name -> expression text.  ``now``
    (epoch seconds, or a callable) replaces the clock for time(), CurrentTime,
    etc.  Returns a Python value: bool, int, float, str, ClassAdList, ClassAd,
    AbsTime, RelTime, UNDEFINED or ERROR.  Text that does not parse raises the
    parser's ClassAdSyntaxError.

    The work is paid from the command's budget (:func:`condorcfg.classad.budget.command_budget`);
    outside one, this evaluation gets a budget of its own.  A spent budget gives ERROR.
    """
    fresh = None  # a parsed tree evaluated for the first time: read, not compiled (see _interpret)
    if isinstance(expr_or_text, str):
        fn, maxd, cost = compiled_text_with_cost(expr_or_text)
    else:
        try:
            compiled = expr_or_text._compiled
        except AttributeError:
            compiled = None
        if type(compiled) is tuple:
            fn, maxd, cost = compiled
        elif type(compiled) is int and compiled <= MAX_DEPTH:  # tokens: bound its nodes and depth
            fresh = expr_or_text
            fresh._compiled = None  # (compiled if it is evaluated again)
            fn, maxd, cost = None, 0, compiled
        else:
            fn, maxd, cost = _compile_tree(expr_or_text)
    if maxd > MAX_DEPTH:
        return ERROR
    if my is not None and type(my) is not ClassAd:
        my = as_ad(my)
    if target is not None:
        if type(target) is not ClassAd:
            target = as_ad(target)
        if my is None:
            my = ClassAd()
    budget = _active_budget()
    own = budget is None
    if own:  # no command around: this evaluation is the command, with a budget of its own
        budget = _spare_budgets.pop() if _spare_budgets else Budget()
        token = _activate(budget)
    st = _State(now, budget)
    if target is not None:
        st.left = my
        st.right = target
    elif my is not None:
        st.root = my if my.parent is None else _root_of(my)
    try:
        grant = cost + WORK_CHUNK
        if budget.spent is None and budget.work >= grant:  # budget.refill(st), inline: once per evaluation
            budget.work -= grant
            st.steps = WORK_CHUNK
        else:
            st.steps = -cost
            budget.refill(st)
        return fn(my, st) if fresh is None else _interpret(fresh, my, st, 0)
    except (EvalFailure, BudgetSpent):
        return ERROR
    except RecursionError:  # Python's own stack, should the budgets above ever not suffice
        return ERROR
    finally:
        if st.steps > 0:  # the part of the chunk not used goes back
            budget.work += st.steps
        if own:
            _deactivate(token)
            if budget.renew():  # full again: the next evaluation outside a command takes it
                _spare_budgets.append(budget)


_active_budget, _activate, _deactivate = _budget.current, _budget.activate, _budget.deactivate
# Budgets of finished evaluations made outside a command, renewed: making one is a third of
# the fixed cost of a small evaluation.  A list (append/pop are atomic) keeps threads apart.
_spare_budgets: list = []


def _interpret(node, cur, st, d: int):
    """The value of ``node``, found under ``d`` depth-counting ancestors, without compiling it.

    Compiling a tree costs more than evaluating it once, and most trees parsed from fresh text
    are evaluated once.  Literals, parentheses and binary operators are read here, by the
    operators' own semantics (:mod:`~condorcfg.classad.operators`, which the compiled closures
    short-cut); any other node -- attribute references, calls, selections -- is compiled where
    it stands and run, so each has one implementation.  Depths are those the compiler gives
    (each level ``d + 1``), so references check the same depth budget.
    tests/test_classad_fast_paths.py compares the two ways on generated expressions.
    """
    kind = type(node)
    if kind is ast.BinaryOp:
        op = node.op
        p = d + 1
        if op == "&&" or op == "||":  # as logical_chain: && is decided by false, || by true
            decides = op == "||"
            a = _interpret(node.left, cur, st, p)
            if a is decides:
                return decides
            right = node.right
            if a is (not decides):  # true && b, false || b: b's truth value
                v = _interpret(right, cur, st, p)
                return v if v is True or v is False else logical(v)
            return (logical_or if decides else logical_and)(a, lambda: _interpret(right, cur, st, p))
        value_of = _OPERATOR_VALUES.get(op)
        if value_of is not None:
            return value_of(_interpret(node.left, cur, st, p), _interpret(node.right, cur, st, p))
    elif kind is ast.Literal:
        return node.value
    elif kind is ast.Paren:
        return _interpret(node.inner, cur, st, d + 1)
    fn, _ = _compile(node, d)
    return fn(cur, st)


def _not_identical(a, b):
    r = identical(a, b)
    return r if r is ERROR else not r


# the binary operators as the parser spells them -> their value (others compile)
_OPERATOR_VALUES = {op: (lambda op: lambda a, b: arith(op, a, b))(op) for op in "+-*/%"}
_OPERATOR_VALUES.update({op: (lambda op: lambda a, b: compare(op, a, b))(op) for op in ("==", "!=", "<", "<=", ">", ">=")})
_OPERATOR_VALUES.update({op: (lambda op: lambda a, b: bitwise(op, a, b))(op) for op in ("&", "|", "^", "<<", ">>", ">>>")})
_OPERATOR_VALUES.update({"is": identical, "isnt": _not_identical})


def evaluate_in(node, cur, st):
    """Evaluate a tree inside another evaluation, paying for its nodes from the same budget."""
    fn, maxd, cost = compiled_with_cost(node)
    if maxd > st.depth:
        raise EvalFailure("expression nesting exceeds HTCondor's depth limit")
    st.pay(cost)
    return fn(cur, st)


def to_python(value, now=None, _depth=0):
    """A value with lists evaluated element by element and ads turned into dicts of values."""
    if _depth > 100:
        return ERROR
    if isinstance(value, ClassAdList):
        st = _State(now)
        out = []
        for i in range(len(value)):
            try:
                item = list_item(value, i, st)
            except (EvalFailure, BudgetSpent, RecursionError):
                item = ERROR
            finally:
                st.budget.give_back(st)
            out.append(to_python(item, now, _depth + 1))
        return out
    if isinstance(value, ClassAd):
        st = _State(now)
        st.root = _root_of(value)
        out = {}
        for entry in list(value._data.values()):
            try:
                item = _deref(entry, value, st, 0)
            except (EvalFailure, BudgetSpent, RecursionError):
                item = ERROR
            finally:
                st.budget.give_back(st)
            out[entry[0]] = to_python(item, now, _depth + 1)
        return out
    return value
