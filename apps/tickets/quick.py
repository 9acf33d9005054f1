"""Quick filters of the board, backlog and search pages: each one is a clause of the query language
that a link adds to the query shown (or takes away again). The query language does the filtering;
this module only edits the query's text."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.errors import OfficeError

from .models import PRIORITIES
from .query import tokenize

QUICK_FILTERS: tuple[tuple[str, str], ...] = (
    ("Only my tickets", "assignee = currentUser()"),
    ("Recently updated", "updated >= -7d"),
    ("Unassigned", "assignee is EMPTY"),
) + tuple((f"Priority {p}", f"priority = {p}") for p in PRIORITIES)


@dataclass(frozen=True)
class QuickFilter:
    """One quick filter as a page shows it: its label, whether the query has its clause, and the
    query a click on it asks for (with the clause added, or taken away when it is there)."""

    label: str
    clause: str
    active: bool
    query: str


def split_order(query: str) -> tuple[str, str]:
    """(the conditions, the ORDER BY clause or '') of a query; a query that does not parse is all
    conditions (the search then says why it does not parse)."""
    try:
        tokens = tokenize(query)
    except OfficeError:
        return query.strip(), ""
    for token, following in zip(tokens, tokens[1:]):
        if token.upper == "ORDER" and following.upper == "BY":
            return query[:token.at].strip(), query[token.at:].strip()
    return query.strip(), ""


def _clauses(conditions: str) -> list[str] | None:
    """The clauses of the conditions joined by a top-level AND, or None when they are not such a
    list (an OR outside parentheses, or text that does not parse): a clause is then added around
    them, never taken out of them."""
    try:
        tokens = tokenize(conditions)
    except OfficeError:
        return None
    parts, depth, start = [], 0, 0
    for token in tokens:
        if token.kind == "punct" and token.text in "()":
            depth += 1 if token.text == "(" else -1
        elif depth == 0 and token.upper == "OR":
            return None
        elif depth == 0 and (token.upper == "AND" or token.kind == "end"):
            parts.append(conditions[start:token.at].strip())
            start = token.at + len(token.text)
    return [p for p in parts if p]


def with_clause(query: str, clause: str) -> str:
    """The query with `clause` added to its conditions (its ORDER BY kept at the end)."""
    conditions, order = split_order(query)
    if not conditions:
        joined = clause
    elif _clauses(conditions) is None:
        joined = f"({conditions}) AND {clause}"
    else:
        joined = f"{conditions} AND {clause}"
    return f"{joined} {order}".strip()


def toggled(query: str, clause: str) -> tuple[bool, str]:
    """(whether the query has `clause` as one of its AND-ed conditions, the query with the clause
    taken away if so, else added)."""
    conditions, order = split_order(query)
    clauses = _clauses(conditions)
    wanted = clause.lower().split()
    if clauses is not None and any(c.lower().split() == wanted for c in clauses):
        kept = [c for c in clauses if c.lower().split() != wanted]
        return True, f"{' AND '.join(kept)} {order}".strip()
    return False, with_clause(query, clause)


def quick_filters(query: str) -> list[QuickFilter]:
    """Every quick filter for the page showing `query`."""
    shown = []
    for label, clause in QUICK_FILTERS:
        active, following = toggled(query, clause)
        shown.append(QuickFilter(label, clause, active, following))
    return shown
