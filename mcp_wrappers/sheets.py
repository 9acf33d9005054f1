"""Sheets tools, part 1: the argument types every sheets tool shares, then workbooks, sharing,
revision history, sheets (tabs) and reading and writing cells.

Each tool calls one function of officegym.apps.sheets.services (where every rule lives, including
who may see and change a workbook) and presents the result with officegym.apps.sheets.presenters.
Part 2 (rows and columns, sorting, copying, named ranges, filter views, summary tables, import and
export) is sheets_more.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from officegym.apps.sheets import presenters, schemas, services

from .base import IdOrName, Int, Limit, Offset, PersonRef, episode_call, tool


def Text(limit: int, description: str, optional: bool = False) -> Any:
    """A text argument of at most `limit` characters (None allowed when optional)."""
    kind = str | None if optional else str
    return Annotated[kind, Field(max_length=limit, description=description)]


A1 = ("in A1 notation, optionally after a sheet name and '!': B2:D10, A:A (whole column), 3:5 (whole rows), "
      "Budget!B2:D10 or 'Q1 plan'!A:A (quote names with spaces). Without a sheet name it means the workbook's "
      "first sheet")
WorkbookRef = Annotated[IdOrName, Field(description=(
    "The workbook: its numeric id or exact title (sheets_list_workbooks finds them)"))]
Range = Text(200, f"The range, {A1}")
CellRef = Text(200, "One cell, such as B3 or 'Q1 plan'!B3 (without a sheet name: the first sheet)")
SheetName = Text(100, "The sheet (tab) name; omit for the workbook's first sheet", True)
CellValue = Annotated[str | int | float | bool | None, Field(description=(
    "What to type into the cell: a number, true/false, text, or a formula starting with = such as =SUM(B2:B9). "
    "Text is read as typed: 12% is a percent, $5 currency, 2026-03-01 a date, TRUE a boolean; start it with ' to "
    "keep it text. '' or null empties the cell"))]


class CellWrite(BaseModel):
    """One cell to write."""

    model_config = ConfigDict(extra="forbid")
    cell: CellRef
    value: CellValue


# ---------------------------------------------------------------- workbooks

@tool(read_only=True)
def sheets_list_workbooks(
    ctx: Context,
    query: Text(120, "Part of the title to look for; empty for all") = "",
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.WorkbookPage:
    """List the workbooks you own or that are shared with you, most recently changed first, with your role."""
    with episode_call(ctx) as (session, actor):
        page = services.list_workbooks(session, actor, query, offset, limit)
        return presenters.page_out(schemas.WorkbookPage, presenters.workbooks_out(session, actor, page.items), page)


@tool(read_only=True)
def sheets_get_workbook(ctx: Context, workbook: WorkbookRef) -> schemas.WorkbookDetailOut:
    """Get a workbook with its sheets (tab order, used range of each), named ranges, shares and your role."""
    with episode_call(ctx) as (session, actor):
        return presenters.workbook_detail_out(session, actor, services.get_workbook(session, actor, workbook))


@tool()
def sheets_create_workbook(
    ctx: Context,
    title: Text(120, "The workbook's title"),
    sheets: Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(max_length=50, description=(
        'Names of its sheets in tab order, e.g. ["Data", "Summary"]; omit for one sheet called Sheet1'))] = None,
    description: Text(500, "What the workbook is for") = "",
) -> schemas.WorkbookDetailOut:
    """Create a workbook that you own, with empty sheets."""
    with episode_call(ctx) as (session, actor):
        made = services.create_workbook(session, actor, title, sheets, description)
        return presenters.workbook_detail_out(session, actor, made)


@tool()
def sheets_update_workbook(
    ctx: Context,
    workbook: WorkbookRef,
    title: Text(120, "New title; omit to keep", True) = None,
    description: Text(500, "New description ('' clears it); omit to keep", True) = None,
) -> schemas.WorkbookDetailOut:
    """Rename a workbook or change its description (owner and editors); give only what changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_workbook(session, actor, workbook, title=title, description=description)
        return presenters.workbook_detail_out(session, actor, changed)


@tool(destructive=True)
def sheets_delete_workbook(ctx: Context, workbook: WorkbookRef) -> schemas.DeletedOut:
    """Delete a workbook with all its sheets, cells, names, filter views and shares (owner only)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        services.delete_workbook(session, actor, workbook)
        return presenters.deleted_out(book, "workbook", book.title)


@tool()
def sheets_share_workbook(
    ctx: Context,
    workbook: WorkbookRef,
    person: PersonRef,
    role: Text(10, "viewer (may read) or editor (may also change it); default viewer") = "viewer",
) -> schemas.SharesOut:
    """Share a workbook with a person, or change their role (owner and editors)."""
    with episode_call(ctx) as (session, actor):
        share = services.share_workbook(session, actor, workbook, person, role)
        return presenters.shares_changed_out(session, share.workbook_id, share.person_id)


@tool(destructive=True)
def sheets_unshare_workbook(ctx: Context, workbook: WorkbookRef, person: PersonRef) -> schemas.SharesOut:
    """Stop sharing a workbook with a person (owner and editors; anyone may remove themselves)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        removed = services.unshare_workbook(session, actor, workbook, person)
        return presenters.shares_changed_out(session, book.id, removed.id)


@tool(read_only=True)
def sheets_list_revisions(ctx: Context, workbook: WorkbookRef, offset: Offset = 0,
                          limit: Limit = 50) -> schemas.RevisionPage:
    """List a workbook's changes, newest first: each cell's input from old to new, and structural edits."""
    with episode_call(ctx) as (session, actor):
        page = services.list_revisions(session, actor, workbook, offset, limit)
        return presenters.page_out(schemas.RevisionPage, presenters.revisions_out(session, page.items), page)


# ---------------------------------------------------------------- sheets (tabs)

Position = Annotated[Int | None, Field(description="Tab position from 1 (1 is the first tab)")]


@tool()
def sheets_create_sheet(ctx: Context, workbook: WorkbookRef, name: Text(100, (
        "The new sheet's name, unique in the workbook, without [ ] * ? / \\ :")),
        position: Position = None) -> schemas.TabsOut:
    """Add an empty sheet at the end, or at a tab position (owner and editors)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        made = services.create_sheet(session, actor, workbook, name, position)
        return presenters.tabs_out(session, book, made.name)


@tool()
def sheets_rename_sheet(ctx: Context, workbook: WorkbookRef, sheet: Text(100, "The sheet's current name"),
                        new_name: Text(100, "Its new name, unique in the workbook")) -> schemas.TabsOut:
    """Rename a sheet; formulas that refer to it follow the new name."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.tabs_out(session, book, services.rename_sheet(session, actor, workbook, sheet, new_name).name)


@tool()
def sheets_move_sheet(ctx: Context, workbook: WorkbookRef, sheet: Text(100, "The sheet's name"),
                      position: Annotated[Int, Field(description="Its new tab position from 1")]) -> schemas.TabsOut:
    """Move a sheet to another tab position (the first tab is what unprefixed ranges mean)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.tabs_out(session, book, services.move_sheet(session, actor, workbook, sheet, position).name)


@tool(destructive=True)
def sheets_delete_sheet(ctx: Context, workbook: WorkbookRef, sheet: Text(100, "The sheet's name")) -> schemas.TabsOut:
    """Delete a sheet with its cells, names and filter views; formulas elsewhere that read it show #REF!."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.tabs_out(session, book, services.delete_sheet(session, actor, workbook, sheet))


@tool()
def sheets_freeze_rows(
    ctx: Context,
    workbook: WorkbookRef,
    rows: Annotated[Int, Field(description="Header rows to keep in view, 0-20 (0 unfreezes)")],
    columns: Annotated[Int, Field(description="Leading columns to keep in view, 0-10 (0 unfreezes)")] = 0,
    sheet: SheetName = None,
) -> schemas.TabsOut:
    """Freeze the first rows (and columns) of a sheet so they stay in view."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.tabs_out(session, book, services.freeze(session, actor, workbook, sheet, rows, columns).name)


# ---------------------------------------------------------------- cells

@tool(read_only=True)
def sheets_read_range(ctx: Context, workbook: WorkbookRef, range: Range) -> schemas.RangeOut:
    """Read a range (at most 10,000 cells). Returns its non-empty cells row by row, each as {ref, value,
    display, formula?, number_format?, error?}: value is the computed number, text or true/false, or an error
    code such as #DIV/0! with `error` saying why; display is the text the sheet shows under the number format;
    formula is the input when the cell holds one. Cells not listed are empty; optional keys are left out when
    they do not apply."""
    with episode_call(ctx) as (session, actor):
        return presenters.range_out(services.read_range(session, actor, workbook, range))


@tool()
def sheets_write_cells(
    ctx: Context,
    workbook: WorkbookRef,
    cells: Annotated[list[CellWrite], Field(min_length=1, max_length=5000, description=(
        'The cells to write, anywhere in the workbook, e.g. [{"cell": "B3", "value": 120}, {"cell": '
        '"Summary!B1", "value": "=SUM(Data!B2:B40)"}]'))],
) -> schemas.CellsWrittenOut:
    """Write a batch of cells (at most 5,000) in one change: all are written or, if one is refused (a bad
    reference, a formula that does not parse), none. Returns the written cells as they compute now."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        changed = services.write_cells(session, actor, workbook, [c.model_dump() for c in cells])
        return presenters.written_out(session, book, [c.cell for c in cells], changed)


@tool()
def sheets_write_range(
    ctx: Context,
    workbook: WorkbookRef,
    start: Text(200, "The top-left cell of the block, such as A1 or Data!B2 (without a sheet name: the first "
                     "sheet)"),
    rows: Annotated[list[list[CellValue]], Field(min_length=1, description=(
        'Rows of values from the start cell rightwards and downwards, e.g. [["Region", "Total"], ["EMEA", 120], '
        '["APAC", "=B2*2"]]; at most 5,000 cells'))],
) -> schemas.CellsWrittenOut:
    """Write a block of rows from a top-left cell (a table, a row of headers, a column of formulas)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        changed = services.write_range(session, actor, workbook, start, rows)
        return presenters.written_out(session, book, presenters.block_refs(session, book, start, rows), changed)


@tool(destructive=True)
def sheets_clear_range(ctx: Context, workbook: WorkbookRef, range: Range) -> schemas.AreaOut:
    """Empty every cell of a range (their number formats stay); formulas that read them recalculate."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.area_out(session, book, range, services.clear_range(session, actor, workbook, range))


@tool()
def sheets_set_number_format(
    ctx: Context,
    workbook: WorkbookRef,
    range: Range,
    number_format: Text(40, "general, number (#,##0.00), currency ($#,##0.00), percent (0.00%), date (yyyy-mm-dd), "
                            "text (@), or a pattern such as 0.0, #,##0, $#,##0, 0%, mm/dd/yyyy, d mmm yyyy"),
) -> schemas.AreaOut:
    """Set how the numbers of a range are shown (the values stay the same)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        count = services.set_number_format(session, actor, workbook, range, number_format)
        return presenters.area_out(session, book, range, count)
