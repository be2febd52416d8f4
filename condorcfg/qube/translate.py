"""Translating a Qube! requirement into a ClassAd expression, through a property map.

The result is evaluated in the machine ad (a START expression, or a job's Requirements read from
the machine's side): host properties are machine attributes, job properties ``TARGET.X``, as the
map (``default_map.yaml``, or the user's) says.  It is true exactly when the Qube requirement is,
for hosts that advertise the mapped attributes; every construct that could not keep that promise
is reported with its column instead of being guessed:

* a property the map does not name;
* a comparison of a number with text (Qube compares those as text, and ClassAd writes numbers as
  text differently), arithmetic, ``min``/``max`` or bitwise operators on text;
* an ordering (``lt`` ...) of a property whose values the map renames (renaming keeps equality,
  not order), or such a property compared with another property;
* a string holding a backslash (read differently by the two ClassAd syntaxes).

A string property (``type: string`` in the map) is taken to hold text, not numerals: Qube would
compare two numerals numerically (``10`` equals ``010``), the translation compares text.
Equality of text is ``=?=`` / ``=!=`` (case-sensitive, as Qube's), ordering ``strcmp``, ``in`` and
``has`` ``stringListMember(item, list, ",")``, numbers compare and compute as in ClassAds (64-bit
integers, C division), and a number or a string used as a truth value is compared with 0 or with
"" and "0" as Qube's truth rule says.
"""
from __future__ import annotations

import os
import re
from collections import namedtuple

from condorcfg.classad.printer import format_string
from condorcfg.qube.evaluate import list_items, number, text, truth
from condorcfg.qube.syntax import Number, Property, QubeError, String, Unary, deep_enough, spell

MapEntry = namedtuple("MapEntry", "attribute type values")  # values: {qube value: ClassAd value} or None
Problem = namedtuple("Problem", "message column")
Translation = namedtuple("Translation", "expression problems")  # expression: None when there are problems

# One translated piece: ClassAd text, its kind ("num", "str", "bool"), whether it needs no
# parentheses inside another operator, the top operator (to chain && and || without parentheses),
# the map entry of a renamed property, the Qube text of a literal, and whether a number may be real
# (number properties are taken as integers: TotalCpus, TotalMemory).
_Piece = namedtuple("_Piece", "text kind atomic op entry literal real written", defaults=(False, None))
_BAD = _Piece("", None, True, None, None, None)

_ATTRIBUTE = re.compile(r"((TARGET|MY)\.)?[A-Za-z_][A-Za-z0-9_]*", re.IGNORECASE)
_PROPERTY = re.compile(r"(host|job)(\.[A-Za-z_][A-Za-z0-9_]*)+", re.IGNORECASE)
# ClassAd's operator precedence (C's), for the parentheses a translation needs and no more.
_LEVEL = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "=?=": 6, "=!=": 6,
          "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
          "unary": 11}
_COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_ARITHMETIC = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%",
               "band": "&", "bor": "|", "xor": "^", "ls": "<<", "rs": ">>"}


def default_map_path() -> str:
    return os.path.join(os.path.dirname(__file__), "default_map.yaml")


def read_map(data, shown: str) -> dict[str, MapEntry]:
    """A property map from its YAML data; QubeError naming ``shown`` and the property when it is malformed."""
    if not isinstance(data, dict):
        raise QubeError(f"{shown}: a property map is a mapping of Qube properties (host.os, job.user) to "
                        f"{{attribute, type, values}}")
    entries = {}
    for name, entry in data.items():
        where = f"{shown}: {name}"
        if not isinstance(name, str) or not _PROPERTY.fullmatch(name):
            raise QubeError(f"{where}: not a Qube property (host.<name> or job.<name>)")
        if not isinstance(entry, dict) or not isinstance(entry.get("attribute"), str):
            raise QubeError(f"{where}: give at least `attribute: <ClassAd attribute>`")
        attribute = entry["attribute"].strip()
        if not _ATTRIBUTE.fullmatch(attribute):
            raise QubeError(f"{where}: {attribute!r} is not a ClassAd attribute name (Name or TARGET.Name)")
        kind = entry.get("type", "string")
        if kind not in ("string", "number"):
            raise QubeError(f"{where}: type must be string or number, not {kind!r}")
        values = entry.get("values")
        if values is not None:
            if kind != "string" or not isinstance(values, dict) or \
                    not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
                raise QubeError(f"{where}: values maps Qube strings to ClassAd strings (type: string only)")
            if len(set(values.values())) != len(values):
                raise QubeError(f"{where}: two Qube values map to the same ClassAd value")
        unknown = set(entry) - {"attribute", "type", "values"}
        if unknown:
            raise QubeError(f"{where}: unknown key {str(min(unknown, key=str))!r} (attribute, type, values)")
        entries[name.lower()] = MapEntry(attribute, kind, dict(values) if values else None)
    return entries


def load_map(path: str | None = None) -> dict[str, MapEntry]:
    """The property map in ``path`` (YAML), or the default one shipped with condorcfg."""
    from condorcfg.inputs import load_yaml, read_text

    from condorcfg.inputs import MAX_YAML_SIZE, check_expanded_size

    source, shown = read_text(path or default_map_path(), "property map", utf8_only=True)
    if len(source) > MAX_YAML_SIZE:  # (ruamel.yaml is pure Python: bound what it parses)
        raise QubeError(f"{shown}: the property map is larger than {MAX_YAML_SIZE} characters (MAX_YAML_SIZE)")
    try:
        data = load_yaml(source)
    except Exception as exc:  # ruamel's parse errors: one message, with its line
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise QubeError(f"{shown}: not YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    check_expanded_size(data, shown, "property map", "bad-map", text_size=len(source))
    return read_map(data, shown)


class _Translator:
    def __init__(self, mapping: dict[str, MapEntry]):
        self.mapping = mapping
        self.problems: list[Problem] = []

    def problem(self, message: str, column: int) -> _Piece:
        self.problems.append(Problem(message, column))
        return _BAD

    # -- operands -----------------------------------------------------------------------
    def piece(self, node) -> _Piece:
        kind = node.__class__
        if kind is Number:
            return _Piece(_number_literal(node.value), "num", True, None, None, text(node.value),
                          isinstance(node.value, float))
        if kind is String:
            found = number(node.value)
            if found is not None:  # Qube reads "10" as the number it spells (the text stays: in, truth)
                return _Piece(_number_literal(found), "num", True, None, None, node.value, isinstance(found, float),
                              node.value)
            return self.string(node.value, node.column)
        if kind is Property:
            name = f"{node.root}.{node.name}"
            entry = self.mapping.get(name.lower())
            if entry is None:
                return self.problem(f"{name} has no ClassAd attribute in the property map; add it "
                                    f"({name}: {{attribute: ..., type: string|number}})", node.column)
            kind = "num" if entry.type == "number" else "str"
            return _Piece(entry.attribute, kind, True, None, entry if entry.values else None, None)
        if kind is Unary:
            return self.unary(node)
        return self.binary(node)

    def string(self, value: str, column: int) -> _Piece:
        if "\\" in value:
            return self.problem("a string with a backslash is read differently by the two ClassAd syntaxes; "
                                "write the requirement without it", column)
        return _Piece(format_string(value), "str", True, None, None, value)

    # -- conversions ----------------------------------------------------------------------
    @staticmethod
    def paren(piece: _Piece, parent: str = "unary", left: bool = False) -> str:
        """``piece`` as an operand of ``parent``: in parentheses unless it binds tighter (or, as the left
        operand, as tight: the operators associate to the left)."""
        if piece.atomic:
            return piece.text
        level, outer = _LEVEL.get(piece.op, 0), _LEVEL[parent]
        return piece.text if level > outer or (left and level == outer) else f"({piece.text})"

    def boolean(self, piece: _Piece) -> _Piece:
        """``piece`` as a truth value, by Qube's rule (not 0; neither "" nor "0")."""
        if piece.kind in ("bool", None):
            return piece
        if piece.written is not None:  # a numeral written as a string: its truth is the text's ("00" is true)
            return _Piece("true" if truth(piece.written) else "false", "bool", True, None, None, None)
        if piece.kind == "num":
            return _Piece(f"{self.paren(piece, '!=', True)} != 0", "bool", False, "!=", None, None)
        inner = self.paren(piece, "=!=", True)
        zero = self.renamed(piece, "0")
        return _Piece(f'{inner} =!= "" && {inner} =!= {format_string(zero)}', "bool", False, "&&", None, None)

    def numeric(self, piece: _Piece, node, side: str) -> _Piece:
        if piece.kind == "bool":
            return _Piece(f"ifThenElse({piece.text}, 1, 0)", "num", True, None, None, None)
        if piece.kind == "str":
            return self.problem(f"{spell(node.op)} needs numbers, but {side} is text", node.column)
        return piece

    @staticmethod
    def renamed(piece: _Piece, value: str) -> str:
        return piece.entry.values.get(value, value) if piece.entry else value

    # -- operators ----------------------------------------------------------------------
    def unary(self, node) -> _Piece:
        operand = self.piece(node.operand)
        if operand.kind is None:
            return _BAD
        if node.op == "not":
            inner = self.boolean(operand)
            return _Piece(f"!{self.paren(inner)}", "bool", True, None, None, None)
        operand = self.numeric(operand, node, "its operand")
        if operand.kind is None:
            return _BAD
        if node.op == "pos":
            return operand
        return _Piece(f"-{self.paren(operand)}", "num", False, "unary", None, None, operand.real)

    def binary(self, node) -> _Piece:
        op = node.op
        left, right = self.piece(node.left), self.piece(node.right)
        if left.kind is None or right.kind is None:
            return _BAD
        if op in ("and", "or"):
            symbol = "&&" if op == "and" else "||"
            a, b = self.boolean(left), self.boolean(right)
            return _Piece(f"{self.paren(a, symbol, True)} {symbol} {self.paren(b, symbol)}", "bool", False, symbol,
                          None, None)
        if op in _COMPARISONS:
            return self.comparison(node, left, right)
        if op in ("in", "has"):
            needle, items = (left, right) if op == "in" else (right, left)
            return self.membership(node, needle, items)
        a = self.numeric(left, node, "the left side")
        b = self.numeric(right, node, "the right side")
        if a.kind is None or b.kind is None:
            return _BAD
        real = a.real or b.real
        if op in ("min", "max"):
            return _Piece(f"{op}({{{a.text}, {b.text}}})", "num", True, None, None, None, real)
        if op in ("div", "mod") and b.literal is not None and number(b.literal) == 0:
            return self.problem("division by zero", node.column)
        if op in ("mod", "band", "bor", "xor", "ls", "rs") and real:
            return self.problem(f"{spell(op)} of a real number: ClassAd's {_ARITHMETIC[op]} takes integers only",
                                node.column)
        symbol = _ARITHMETIC[op]
        if op in ("ls", "rs"):
            if b.literal is not None and not 0 <= number(b.literal) <= 63:
                return self.problem(f"a shift count must be 0 to 63, not {b.literal}", node.column)
            if b.literal is None:  # (Qube refuses a count outside 0..63; ClassAd would take it modulo 64)
                count = self.paren(b, "<=", True)
                return _Piece(f"ifThenElse({count} >= 0 && {count} <= 63, {self.paren(a, symbol, True)} {symbol} "
                              f"{self.paren(b, symbol)}, error)", "num", True, None, None, None)
        return _Piece(f"{self.paren(a, symbol, True)} {symbol} {self.paren(b, symbol)}", "num", False, symbol,
                      None, None, real)

    def comparison(self, node, left: _Piece, right: _Piece) -> _Piece:
        op = node.op
        if left.kind == "bool":
            left = self.numeric(left, node, "")
        if right.kind == "bool":
            right = self.numeric(right, node, "")
        if left.kind == "num" and right.kind == "num":
            symbol = _COMPARISONS[op]
            return _Piece(f"{self.paren(left, symbol, True)} {symbol} {self.paren(right, symbol)}", "bool", False,
                          symbol, None, None)
        if left.kind != right.kind:
            number_side, text_side = (left, right) if left.kind == "num" else (right, left)
            return self.problem(f"{spell(op)} compares a number with text ({text_side.literal or text_side.text} "
                                f"is not a number): Qube then compares them as text, which ClassAd cannot say "
                                f"plainly; compare numbers with numbers", node.column)
        if left.entry or right.entry:
            renamed = self.renamed_pair(node, left, right)
            if renamed is None:
                return _BAD
            left, right = renamed
        if op in ("eq", "ne"):
            symbol = "=?=" if op == "eq" else "=!="
            return _Piece(f"{self.paren(left, symbol, True)} {symbol} {self.paren(right, symbol)}", "bool", False,
                          symbol, None, None)
        symbol = _COMPARISONS[op]
        return _Piece(f"strcmp({left.text}, {right.text}) {symbol} 0", "bool", False, symbol, None, None)

    def renamed_pair(self, node, left: _Piece, right: _Piece):
        """Both sides of a text comparison with a renamed property: the literal renamed the same way."""
        if node.op not in ("eq", "ne"):
            self.problem(f"{spell(node.op)} orders a property whose values the map renames; renaming keeps "
                         f"equality, not order", node.column)
            return None
        prop, other = (left, right) if left.entry else (right, left)
        if other.literal is None:
            self.problem("a property whose values the map renames can only be compared with a literal value",
                         node.column)
            return None
        value = self.literal_for(prop, other.literal, node.column)
        if value is None:
            return None
        other = self.string(value, node.column)
        return (prop, other) if left is prop else (other, prop)

    def literal_for(self, prop: _Piece, value: str, column: int) -> str | None:
        values = prop.entry.values
        if value not in values and value in values.values():
            self.problem(f"{value!r} is what the map renames another value to ({prop.text} would match both); "
                         f"write the Qube value", column)
            return None
        return values.get(value, value)

    def membership(self, node, needle: _Piece, items: _Piece) -> _Piece:
        if items.kind != "str":
            return self.problem(f"{node.op} needs a comma list (text) on its list side", node.column)
        if needle.kind != "str":
            if needle.literal is None:  # (a number attribute: ClassAd writes reals differently)
                return self.problem(f"{node.op} looks for a computed number or truth value in a list; "
                                    f"look for a literal or a text property", node.column)
            needle = self.string(needle.literal, node.column)  # (the text as Qube uses it: "010" stays "010")
        if needle.entry and items.entry:
            return self.problem("both sides of the list test are properties whose values the map renames",
                                node.column)
        if needle.entry or items.entry:
            prop, other = (needle, items) if needle.entry else (items, needle)
            if other.literal is None:
                return self.problem("a property whose values the map renames can only be tested against "
                                    "literal values", node.column)
            parts = list_items(other.literal) if prop is needle else [other.literal]
            renamed = [self.literal_for(prop, part, node.column) for part in parts]
            if None in renamed:
                return _BAD
            other = self.string(",".join(renamed), node.column)
            needle, items = (prop, other) if prop is needle else (other, prop)
        return _Piece(f'stringListMember({needle.text}, {items.text}, ",")', "bool", True, None, None, None)


def translate(node, mapping: dict[str, MapEntry]) -> Translation:
    """The ClassAd expression for a parsed Qube requirement (None with the problems when it has some)."""
    deep_enough(node.depth)
    translator = _Translator(mapping)
    piece = translator.piece(node)
    if translator.problems:
        return Translation(None, translator.problems)
    return Translation(translator.boolean(piece).text, [])


def _number_literal(value) -> str:
    if isinstance(value, float):
        return repr(value) if value == value else "real(\"NaN\")"
    return str(value) if value >= 0 else f"({value})"


__all__ = ["MapEntry", "Problem", "QubeError", "Translation", "default_map_path", "load_map", "read_map", "translate"]
