"""Sheets tables: workbooks shared with people, their sheets (tabs), cells stored one row each with
the input as typed and the computed value, named ranges, filter views, and the revision history.

A cell row exists while the cell has an input or a number format. Its value is kept in typed
columns: `kind` is "n" (number, also dates as serial days), "s" (text), "b" (boolean, 1 or 0 in
`number`), "e" (an error code in `text`, why in `note`) or "" (empty). Graders read values through
services.cell_value, which turns these columns back into a number, text, boolean or error.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from officegym.apps.org.models import Person
from officegym.db import Base

ROLES = ("viewer", "editor")


class Workbook(Base):
    """A spreadsheet file: an owner, a title, and the people it is shared with."""

    __tablename__ = "sheets_workbook"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(120), index=True)
    description: Mapped[str] = mapped_column(String(500), default="")
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    version: Mapped[int] = mapped_column(Integer, default=0)  # +1 on every change of cells, sheets or names
    owner: Mapped[Person] = relationship(lazy="selectin")

    def __repr__(self) -> str:
        return f"<Workbook {self.id} {self.title!r}>"


class Share(Base):
    """A person a workbook is shared with, as viewer or editor."""

    __tablename__ = "sheets_share"
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"), primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(10))
    shared_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    shared_at: Mapped[datetime] = mapped_column(DateTime)

    def __repr__(self) -> str:
        return f"<Share {self.workbook_id} {self.person_id} {self.role}>"


class Sheet(Base):
    """One tab of a workbook, in tab order, with its frozen header rows and columns."""

    __tablename__ = "sheets_sheet"
    __table_args__ = (UniqueConstraint("workbook_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    position: Mapped[int] = mapped_column(Integer)
    frozen_rows: Mapped[int] = mapped_column(Integer, default=0)
    frozen_cols: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"<Sheet {self.id} {self.name!r}>"


class Cell(Base):
    """One cell (row and col 0-based): what was typed, what it computes to, how it is shown."""

    __tablename__ = "sheets_cell"
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), primary_key=True)
    row: Mapped[int] = mapped_column(Integer, primary_key=True)
    col: Mapped[int] = mapped_column(Integer, primary_key=True)
    raw: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(1), default="")
    number: Mapped[float | None] = mapped_column(Float, nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    note: Mapped[str] = mapped_column(String(300), default="")
    number_format: Mapped[str] = mapped_column(String(40), default="")

    @property
    def is_formula(self) -> bool:
        """Whether the input is a formula."""
        return self.raw.startswith("=") and len(self.raw) > 1

    def __repr__(self) -> str:
        return f"<Cell {self.sheet_id} r{self.row} c{self.col} {self.raw!r}>"


class NamedRange(Base):
    """A name for a range, usable in formulas (=SUM(Revenue))."""

    __tablename__ = "sheets_named_range"
    __table_args__ = (UniqueConstraint("workbook_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"))
    ref: Mapped[str] = mapped_column(String(40))  # A1 text on that sheet, such as $B$2:$B$40


class FilterView(Base):
    """A saved filter over a range of a sheet: conditions on columns, and an optional sort."""

    __tablename__ = "sheets_filter_view"
    __table_args__ = (UniqueConstraint("sheet_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    ref: Mapped[str] = mapped_column(String(40))  # the range filtered, header row first
    criteria: Mapped[str] = mapped_column(Text, default="[]")  # JSON: [{"column": "C", "op": ">", "value": "5"}]
    sort_column: Mapped[str] = mapped_column(String(3), default="")
    sort_descending: Mapped[bool] = mapped_column(default=False)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))


class Revision(Base):
    """One change of a workbook: a cell's input from old to new, or a structural edit described in
    words. Bookkeeping for history views (graders read the cells themselves)."""

    __tablename__ = "sheets_revision"
    __table_args__ = (Index("ix_sheets_revision_workbook", "workbook_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"))
    sheet_name: Mapped[str] = mapped_column(String(100), default="")
    cell: Mapped[str] = mapped_column(String(20), default="")
    action: Mapped[str] = mapped_column(String(200), default="")
    old_raw: Mapped[str] = mapped_column(Text, default="")
    new_raw: Mapped[str] = mapped_column(Text, default="")
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    changed_at: Mapped[datetime] = mapped_column(DateTime)
