"""Formula text to syntax trees, and typed input to values.

Trees are nested tuples, immutable and hashable, so one parse of a text serves every cell that holds
it (references are absolute positions, whatever cell the formula sits in):

    ("num", 1.0) ("str", "a") ("bool", True) ("err", "#REF!") ("ref", Area) ("name", "REVENUE")
    ("call", "SUM", (args...)) ("missing",) ("neg", x) ("pos", x) ("pct", x) ("bin", op, left, right)

Precedence, loosest first: comparison (= <> < > <= >=), &, + -, * /, ^, unary + -, postfix %.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from .a1 import REFERENCE, SHEET_PREFIX, BadReference, parse_area
from .values import ERROR_CODES, parse_number, serial_of

MAX_FORMULA = 4000
MAX_NESTING = 64  # parentheses, function calls and signs inside one another (as in Excel)
MAX_DEPTH = 400  # levels of the syntax tree: each operator of a chain adds one
_ERRORS = "|".join(re.escape(code) for code in ERROR_CODES)
_TOKEN = re.compile(rf"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"]|"")*")
  | (?P<error>(?:{SHEET_PREFIX})?(?:{_ERRORS}))
  | (?P<func>[A-Za-z_][A-Za-z0-9_.]*(?=\s*\())
  | (?P<ref>{REFERENCE}(?![A-Za-z0-9_.(!]))
  | (?P<bool>(?:TRUE|FALSE)(?![A-Za-z0-9_.]))
  | (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_\\][A-Za-z0-9_.]*)
  | (?P<op><>|<=|>=|[-+*/^&=<>%])
  | (?P<punct>[(),])
""", re.VERBOSE | re.IGNORECASE)
_COMPARISONS = ("=", "<>", "<", ">", "<=", ">=")


class FormulaError(ValueError):
    """A formula that does not parse; the message names the position and what was expected."""


@dataclass(frozen=True)
class Token:
    """One token of a formula: kind, text as written, position in the formula (after '=')."""

    kind: str
    text: str
    at: int


def tokenize(text: str) -> list[Token]:
    """Every token of a formula body (the text after '='), spaces included so text can be rebuilt."""
    tokens, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            if text[at] == '"':
                raise FormulaError(f"Unclosed text starting at position {at + 1}: end it with \".")
            raise FormulaError(f"Unexpected character {text[at]!r} at position {at + 1}.")
        tokens.append(Token(match.lastgroup, match.group(), at))
        at = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.tokens = [t for t in tokenize(text) if t.kind != "space"]
        self.pos = 0
        self.nesting = 0

    def nest(self, step: int) -> None:
        """Go one level into (1) or out of (-1) a parenthesis, a call or a sign; refuse past the limit."""
        self.nesting += step
        if self.nesting > MAX_NESTING:
            raise FormulaError(f"The formula puts parentheses, functions or signs more than {MAX_NESTING} "
                               "levels inside one another; simplify it or split it over several cells.")

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def is_op(self, *ops: str) -> bool:
        token = self.peek()
        return token is not None and token.kind == "op" and token.text in ops

    def is_punct(self, char: str) -> bool:
        token = self.peek()
        return token is not None and token.kind == "punct" and token.text == char

    def fail(self, expected: str):
        token = self.peek()
        where = "the end of the formula" if token is None else f"{token.text!r} at position {token.at + 1}"
        raise FormulaError(f"Unexpected {where}: expected {expected}.")

    def formula(self):
        if not self.tokens:
            raise FormulaError("The formula is empty: write something after '=', such as =SUM(A1:A3).")
        node = self.comparison()
        if self.peek() is not None:
            self.fail("an operator or the end of the formula")
        return node

    def comparison(self):
        node = self.concat()
        while self.is_op(*_COMPARISONS):
            op = self.take().text
            node = ("bin", op, node, self.concat())
        return node

    def concat(self):
        node = self.additive()
        while self.is_op("&"):
            self.take()
            node = ("bin", "&", node, self.additive())
        return node

    def additive(self):
        node = self.term()
        while self.is_op("+", "-"):
            op = self.take().text
            node = ("bin", op, node, self.term())
        return node

    def term(self):
        node = self.power()
        while self.is_op("*", "/"):
            op = self.take().text
            node = ("bin", op, node, self.power())
        return node

    def power(self):
        node = self.unary()
        while self.is_op("^"):
            self.take()
            node = ("bin", "^", node, self.unary())
        return node

    def unary(self):
        if self.is_op("-", "+"):
            op = self.take().text
            self.nest(1)
            operand = self.unary()
            self.nest(-1)
            return ("neg", operand) if op == "-" else ("pos", operand)
        node = self.primary()
        while self.is_op("%"):
            self.take()
            node = ("pct", node)
        return node

    def primary(self):
        token = self.peek()
        if token is None:
            self.fail("a value, reference or function")
        kind = token.kind
        if kind == "number":
            self.take()
            return ("num", float(token.text))
        if kind == "string":
            self.take()
            return ("str", token.text[1:-1].replace('""', '"'))
        if kind == "bool":
            self.take()
            return ("bool", token.text.upper() == "TRUE")
        if kind == "error":
            self.take()
            return ("err", token.text[token.text.index("#"):].upper())
        if kind == "ref":
            self.take()
            try:
                return ("ref", parse_area(token.text))
            except BadReference as bad:
                raise FormulaError(f"{bad} (position {token.at + 1})") from None
        if kind == "name":
            self.take()
            return ("name", token.text.upper())
        if kind == "func":
            return self.call()
        if kind == "punct" and token.text == "(":
            self.take()
            self.nest(1)
            node = self.comparison()
            if not self.is_punct(")"):
                self.fail("')'")
            self.take()
            self.nest(-1)
            return node
        self.fail("a value, reference or function")

    def call(self):
        name = self.take().text.upper()
        self.take()  # "("
        self.nest(1)
        args = []
        if self.is_punct(")"):
            self.take()
            self.nest(-1)
            return ("call", name, ())
        while True:
            if self.is_punct(",") or self.is_punct(")"):
                args.append(("missing",))
            else:
                args.append(self.comparison())
            if self.is_punct(","):
                self.take()
                continue
            if self.is_punct(")"):
                self.take()
                self.nest(-1)
                return ("call", name, tuple(args))
            self.fail(f"',' or ')' in the arguments of {name}")


@lru_cache(maxsize=200_000)
def parse(body: str):
    """The syntax tree of a formula body (the text after '='); raises FormulaError."""
    if len(body) > MAX_FORMULA:
        raise FormulaError(f"The formula is {len(body)} characters long; the limit is {MAX_FORMULA}.")
    tree = _Parser(body).formula()
    depth = tree_depth(tree)
    if depth > MAX_DEPTH:
        raise FormulaError(f"The formula is {depth} levels deep (each operator of a chain adds one); the limit is "
                           f"{MAX_DEPTH}: add long lists with SUM, or split the formula over several cells.")
    return tree


def tree_depth(tree: tuple) -> int:
    """The number of levels of a syntax tree (computed without recursion)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        kind = node[0]
        if kind == "bin":
            stack += [(node[2], depth + 1), (node[3], depth + 1)]
        elif kind == "call":
            stack += [(arg, depth + 1) for arg in node[2]]
        elif kind in ("neg", "pos", "pct"):
            stack.append((node[1], depth + 1))
    return deepest


@dataclass(frozen=True)
class Input:
    """What a typed cell input means: a formula tree, or a literal value, and the number format the
    typing implies (12% is a percent, $5 currency, 2026-03-01 a date)."""

    formula: tuple | None
    value: object
    implied_format: str = ""


_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_US_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")


def read_input(raw: str) -> Input:
    """The meaning of text typed into a cell; raises FormulaError for a formula that does not parse."""
    if raw.startswith("=") and len(raw) > 1:
        return Input(parse(raw[1:]), None)
    if raw.startswith("'"):
        return Input(None, raw[1:])
    stripped = raw.strip()
    if stripped.upper() in ("TRUE", "FALSE"):
        return Input(None, stripped.upper() == "TRUE")
    day = _date_text(stripped)
    if day is not None:
        return Input(None, serial_of(day), "yyyy-mm-dd")
    number = parse_number(stripped) if stripped else None
    if number is not None:
        implied = "0.00%" if stripped.endswith("%") else ("$#,##0.00" if "$" in stripped else "")
        return Input(None, number, implied)
    return Input(None, raw if raw else None)


def _date_text(text: str) -> date | None:
    match = _ISO_DATE.match(text)
    if match:
        year, month, day = (int(g) for g in match.groups())
    else:
        match = _US_DATE.match(text)
        if not match:
            return None
        month, day, year = (int(g) for g in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None
