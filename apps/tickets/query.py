"""The ticket query language, in the spirit of Jira's JQL, compiled to SQLAlchemy expressions.

    project = IT AND status != Done AND assignee = currentUser() ORDER BY priority DESC, created

- clauses `field op value` joined by AND, OR, NOT and parentheses (NOT binds tightest, then AND);
- operators `=`, `!=`, `~` and `!~` (contains), `<`, `<=`, `>`, `>=`, `IN (...)`, `NOT IN (...)`,
  `IS EMPTY`, `IS NOT EMPTY` (also written `= EMPTY`, `!= EMPTY`);
- values: words, "quoted text", numbers, dates (2026-03-01), relative times (-7d, -2w, -4h) and the
  functions currentUser(), now(), startOfDay([offset]), endOfDay([offset]), openSprints(),
  membersOf("group");
- ORDER BY one or more fields, each ASC or DESC.
The field table is in query_fields.py. Every error names the position and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import and_, not_, or_, true
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Invalid

from .models import Ticket
from .query_fields import FIELDS, ORDERS, Value, condition

MAX_QUERY = 2000
MAX_NESTING = 32  # parentheses and NOTs inside one another
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<op>!=|!~|>=|<=|=|~|<|>)
  | (?P<punct>[(),])
  | (?P<word>[A-Za-z0-9_.@\-+:/]+)
""", re.VERBOSE)
KEYWORDS = {"AND", "OR", "NOT", "IN", "IS", "EMPTY", "NULL", "ORDER", "BY", "ASC", "DESC"}


@dataclass
class Token:
    """One lexical token: kind (word, string, op, punct, end), its text and where it starts."""

    kind: str
    text: str
    at: int

    @property
    def upper(self) -> str:
        """The text in capitals (keywords are case-insensitive)."""
        return self.text.upper() if self.kind == "word" else ""


def tokenize(text: str) -> list[Token]:
    """The tokens of a query, or a refusal naming the first character that starts none."""
    tokens, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            if text[at] in "\"'":
                raise Invalid(f"Unterminated quoted text starting at position {at}: close it with {text[at]}.")
            raise Invalid(f"Unexpected character {text[at]!r} at position {at}.")
        if match.lastgroup != "space":
            tokens.append(Token(match.lastgroup, match.group(), at))
        at = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class Parser:
    """Recursive descent over the tokens, building SQL conditions as it goes."""

    def __init__(self, session: Session, actor: Person, text: str):
        self.session, self.actor, self.tokens, self.pos = session, actor, tokenize(text), 0
        self.nesting = 0

    # ---------------------------------------------------------------- token helpers
    @property
    def current(self) -> Token:
        """The token under the cursor."""
        return self.tokens[self.pos]

    def advance(self) -> Token:
        """Consume and return the current token."""
        token = self.current
        self.pos += 1
        return token

    def accept(self, *words: str) -> bool:
        """Consume the keywords if they come next."""
        upcoming = self.tokens[self.pos:self.pos + len(words)]
        if len(upcoming) == len(words) and all(t.upper == w for t, w in zip(upcoming, words)):
            self.pos += len(words)
            return True
        return False

    def fail(self, expected: str):
        """Refuse the query at the current token."""
        token = self.current
        shown = "end of the query" if token.kind == "end" else repr(token.text)
        raise Invalid(f"Unexpected {shown} at position {token.at}: expected {expected}.")

    def expect(self, text: str) -> None:
        """Consume a punctuation token or refuse."""
        if self.current.text != text or self.current.kind not in ("punct", "op"):
            self.fail(f"'{text}'")
        self.advance()

    # ---------------------------------------------------------------- grammar
    def parse(self):
        """(condition, order) for the whole query."""
        if self.current.kind == "end" or self.current.upper == "ORDER":
            condition_ = None
        else:
            condition_ = self.or_expr()
        order = self.order_by() if self.accept("ORDER", "BY") else []
        if self.current.kind != "end":
            self.fail("AND, OR, ORDER BY or the end of the query")
        return condition_, order

    def or_expr(self):
        """and_expr {OR and_expr}."""
        parts = [self.and_expr()]
        while self.accept("OR"):
            parts.append(self.and_expr())
        return parts[0] if len(parts) == 1 else or_(*parts)

    def and_expr(self):
        """not_expr {AND not_expr}."""
        parts = [self.not_expr()]
        while self.accept("AND"):
            parts.append(self.not_expr())
        return parts[0] if len(parts) == 1 else and_(*parts)

    def not_expr(self):
        """NOT not_expr | ( or_expr ) | clause."""
        if self.accept("NOT"):
            self.nest(1)
            inner = not_(self.not_expr())
        elif self.current.text == "(" and self.current.kind == "punct":
            self.advance()
            self.nest(1)
            inner = self.or_expr()
            self.expect(")")
        else:
            return self.clause()
        self.nest(-1)
        return inner

    def nest(self, step: int) -> None:
        """Go one level into (1) or out of (-1) a parenthesis or a NOT; refuse past the limit."""
        self.nesting += step
        if self.nesting > MAX_NESTING:
            raise Invalid(f"The query puts parentheses and NOTs more than {MAX_NESTING} levels inside one "
                          "another; simplify it.")

    def field(self, table: dict, what: str) -> tuple[str, Token]:
        """A field name of `table`, case-insensitive."""
        token = self.current
        if token.kind not in ("word", "string") or token.upper in KEYWORDS:
            self.fail(what)
        name = token.text.strip("\"'").lower()
        if name not in table:
            raise Invalid(f"Unknown field {token.text!r} at position {token.at}; expected {what}: "
                          f"{', '.join(sorted(set(table)))}.")
        self.advance()
        return name, token

    def clause(self):
        """field op value."""
        name, token = self.field(FIELDS, "a field name")
        if self.accept("IS", "NOT"):
            self.empty_word()
            return condition(self, name, token, "is not empty", None)
        if self.accept("IS"):
            self.empty_word()
            return condition(self, name, token, "is empty", None)
        if self.accept("NOT", "IN"):
            return condition(self, name, token, "not in", self.value_list())
        if self.accept("IN"):
            return condition(self, name, token, "in", self.value_list())
        if self.current.kind != "op":
            self.fail(f"an operator after {token.text} (=, !=, ~, !~, <, <=, >, >=, IN, NOT IN, IS EMPTY)")
        op = self.advance().text
        if op in ("=", "!=") and self.current.kind == "word" and self.current.upper in ("EMPTY", "NULL"):
            self.advance()  # "= EMPTY" is "IS EMPTY", as in Jira
            return condition(self, name, token, "is empty" if op == "=" else "is not empty", None)
        return condition(self, name, token, op, self.value())

    def empty_word(self) -> None:
        """EMPTY (or NULL) after IS / IS NOT."""
        if not (self.accept("EMPTY") or self.accept("NULL")):
            self.fail("EMPTY after IS or IS NOT")

    def value_list(self) -> list[Value]:
        """( value {, value} ) or a function giving several values, such as openSprints()."""
        if self.current.kind == "word" and self.tokens[self.pos + 1].text == "(":
            return [self.value()]
        self.expect("(")
        values = [self.value()]
        while self.current.text == "," and self.current.kind == "punct":
            self.advance()
            values.append(self.value())
        self.expect(")")
        return values

    def value(self) -> Value:
        """A word, quoted text, number, date or function call."""
        token = self.current
        if token.kind == "string":
            self.advance()
            return Value(re.sub(r"\\(.)", r"\1", token.text[1:-1]), token.at, quoted=True)
        if token.kind != "word" or token.upper in KEYWORDS - {"EMPTY", "NULL"}:
            self.fail("a value")
        self.advance()
        if self.current.text == "(" and self.current.kind == "punct":
            self.advance()
            args = []
            if self.current.text != ")":
                args.append(self.value())
            self.expect(")")
            return Value(token.text, token.at, function=token.text.lower(), args=args)
        return Value(token.text, token.at)

    def order_by(self) -> list:
        """field [ASC|DESC] {, field [ASC|DESC]}."""
        clauses = []
        while True:
            name, _token = self.field(ORDERS, "a field to order by")
            descending = self.accept("DESC")
            if not descending:
                self.accept("ASC")
            clauses += [c.desc() if descending else c.asc() for c in ORDERS[name]]
            if not (self.current.text == "," and self.current.kind == "punct"):
                return clauses
            self.advance()


def compile_query(session: Session, actor: Person, text: str):
    """(where condition over Ticket, order_by clauses) for a query text; an empty text means every
    ticket, newest first."""
    if not isinstance(text, str):
        raise Invalid(f"A query is text, such as: project = IT AND status != Done; got {type(text).__name__}.")
    if len(text) > MAX_QUERY:
        raise Invalid(f"The query is {len(text)} characters; the limit is {MAX_QUERY}.")
    where, order = Parser(session, actor, text).parse()
    if where is None:
        where = true()
    if not order:
        order = [Ticket.created_at.desc(), Ticket.id.desc()]
    return where, order + [Ticket.id]
