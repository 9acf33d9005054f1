"""Lookups every app shares: ids as the agent typed them, rows by id, and a case-insensitive
"contains" condition compiled for each database."""

from __future__ import annotations

from sqlalchemy import Boolean, String, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.functions import FunctionElement

# SQLite integers are signed 64-bit: a larger id names nothing (and must not crash the driver).
MAX_ID = 2**63 - 1


def numeric_id(ref) -> int | None:
    """The id in `ref` when it is a whole number or a string of digits; None when it is a name."""
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return ref
    if isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdecimal():
        return int(ref.strip())
    return None


def get_by_id(session: Session, model, ident: int):
    """The row of `model` with this id, or None (also for ids no row can have)."""
    return session.get(model, ident) if 0 < ident <= MAX_ID else None


class _contains(FunctionElement):
    """`column` LIKE `pattern` (a lower-cased pattern with backslash escapes), ignoring case."""

    type = Boolean()
    inherit_cache = True


@compiles(_contains)
def _lower_like(element, compiler, **kw) -> str:
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"lower({column}) LIKE {pattern} ESCAPE '\\'"


@compiles(_contains, "postgresql")
def _ilike(element, compiler, **kw) -> str:
    # ILIKE, not lower() LIKE: PostgreSQL estimates how many rows ILIKE keeps from the column's
    # statistics, while lower(column) has none, and a blind guess of a common word's matches picks
    # a plan that reads and sorts every match instead of walking the newest rows.
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"({column}) ILIKE {pattern} ESCAPE '\\'"


@compiles(_contains, "sqlite")
def _like(element, compiler, **kw) -> str:
    # SQLite's LIKE already ignores the case of ASCII letters and its lower() folds nothing else, so
    # the result is the same and a search scanning a large table does half the work.
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"({column}) LIKE {pattern} ESCAPE '\\'"


def contains(column, term: str):
    """A case-insensitive 'column contains term' condition where % and _ match themselves."""
    escaped = term.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return _contains(column, literal(f"%{escaped}%", String()))
