"""Seed text reads as written by people: no template placeholder such as `{contact}` is left unfilled
in any text column of any table, in the tiny, small and medium worlds."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import String, Text, select

from officegym.db import Base, make_sessionmaker, sqlite_engine
from officegym.registry import import_models

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def text_columns():
    """(table, column) for every string column of every app's tables."""
    import_models()
    return [(table, column) for table in Base.metadata.sorted_tables for column in table.columns
            if isinstance(column.type, (String, Text))]


@pytest.mark.parametrize("scale", ["tiny", "small", "medium"])
def test_no_text_column_holds_an_unfilled_placeholder(store, scale):
    world = store.world(scale, 0)
    holes = {}
    with make_sessionmaker(sqlite_engine(str(world.path), readonly=True))() as session:
        for table, column in text_columns():
            found = [v for v in session.scalars(select(column).where(column.like("%{%}%"))) if PLACEHOLDER.search(v)]
            if found:
                holes[f"{table.name}.{column.name}"] = (len(found), found[0][:120])
    assert holes == {}
    assert len(text_columns()) > 50  # the check reads every app's text, not a few tables
