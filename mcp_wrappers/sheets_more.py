"""Sheets tools, part 2: inserting and deleting rows and columns, sorting, copy and paste, fill down,
find and replace, named ranges, filter views, summary tables, and CSV/XLSX import and export.

Each tool calls one function of officegym.apps.sheets.services and presents the result with
officegym.apps.sheets.presenters. Part 1 (workbooks, shares, sheets, reading and writing cells, and the
argument types) is sheets.py.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from officegym.apps.sheets import presenters, schemas, services

from .base import Int, Limit, Offset, episode_call, page_of, tool
from .sheets import CellRef, Range, SheetName, Text, WorkbookRef

Column = Annotated[Int | Annotated[str, StringConstraints(max_length=10)], Field(description=(
    "A column letter such as C (or its number, 3)"))]
RowNumber = Annotated[Int, Field(description="A row number, from 1")]


def Count(high: int, what: str):
    """How many rows or columns, 1 to `high`."""
    return Annotated[Int, Field(description=f"How many {what} (1-{high}); default 1")]


class SortKey(BaseModel):
    """One column to sort by."""

    model_config = ConfigDict(extra="forbid")
    column: Column
    descending: bool = Field(False, description="true for largest, latest or Z first")


class Condition(BaseModel):
    """One condition of a filter view."""

    model_config = ConfigDict(extra="forbid")
    column: Annotated[str, Field(max_length=3, description="Column letter inside the range, such as C")]
    op: Annotated[str, Field(max_length=12, description=(
        "=, !=, >, >=, <, <=, contains, not contains, empty or not empty"))] = "="
    value: Annotated[str | int | float, Field(description="What to compare with (ignored by empty and not empty)")] = ""


# ---------------------------------------------------------------- rows and columns

@tool()
def sheets_insert_rows(ctx: Context, workbook: WorkbookRef, before: RowNumber, count: Count(1000, "rows") = 1,
                       sheet: SheetName = None) -> schemas.StructureOut:
    """Insert empty rows before a row number; cells below move down and every formula, named range and
    filter view that refers to them follows."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        first = services.insert_rows(session, actor, workbook, sheet, before, count)
        return presenters.structure_out(session, book, presenters.sheet_name(session, book, sheet),
                                     f"Inserted {count} empty row(s) from row {first}.", count)


@tool(destructive=True)
def sheets_delete_rows(ctx: Context, workbook: WorkbookRef, first: RowNumber, count: Count(100000, "rows") = 1,
                       sheet: SheetName = None) -> schemas.StructureOut:
    """Delete rows from a row number; cells below move up, and formulas that read a deleted cell show #REF!."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        gone = services.delete_rows(session, actor, workbook, sheet, first, count)
        return presenters.structure_out(session, book, presenters.sheet_name(session, book, sheet),
                                     f"Deleted {gone} row(s) from row {first}.", gone)


@tool()
def sheets_insert_columns(ctx: Context, workbook: WorkbookRef, before: Column, count: Count(100, "columns") = 1,
                          sheet: SheetName = None) -> schemas.StructureOut:
    """Insert empty columns before a column; cells to the right move right and formulas follow."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        letter = services.insert_columns(session, actor, workbook, sheet, before, count)
        return presenters.structure_out(session, book, presenters.sheet_name(session, book, sheet),
                                     f"Inserted {count} empty column(s) from column {letter}.", count)


@tool(destructive=True)
def sheets_delete_columns(ctx: Context, workbook: WorkbookRef, first: Column, count: Count(702, "columns") = 1,
                          sheet: SheetName = None) -> schemas.StructureOut:
    """Delete columns from a column; cells to the right move left, and formulas that read a deleted cell
    show #REF!."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        gone = services.delete_columns(session, actor, workbook, sheet, first, count)
        return presenters.structure_out(session, book, presenters.sheet_name(session, book, sheet),
                                     f"Deleted {gone} column(s) from column {first}.", gone)


# ---------------------------------------------------------------- moving cells

@tool()
def sheets_sort_range(
    ctx: Context,
    workbook: WorkbookRef,
    range: Range,
    keys: Annotated[list[SortKey], Field(min_length=1, max_length=10, description=(
        'Columns to sort by, most important first, e.g. [{"column": "C", "descending": true}, {"column": "A"}]'))],
    has_header: Annotated[bool, Field(description="true when the range's first row is a header that stays on "
                                                  "top")] = False,
) -> schemas.AreaOut:
    """Sort the rows of a range by one or more of its columns (empty cells last); a formula moves with its
    row and keeps reading its own row."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        sorted_rows = services.sort_range(session, actor, workbook, range, [k.model_dump() for k in keys], has_header)
        return presenters.area_out(session, book, range, sorted_rows)


@tool()
def sheets_copy_paste(
    ctx: Context,
    workbook: WorkbookRef,
    source: Range,
    target: CellRef,
    values_only: Annotated[bool, Field(description="true to paste the computed values instead of the inputs")] = False,
) -> schemas.AreaOut:
    """Copy a range to a top-left target cell on any sheet, as a spreadsheet pastes: relative references of
    formulas shift by the distance moved ($-anchored ones stay); number formats come along."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        count = services.copy_paste(session, actor, workbook, source, target, values_only)
        return presenters.area_out(session, book, presenters.paste_range(session, book, source, target), count)


@tool()
def sheets_fill_down(ctx: Context, workbook: WorkbookRef, range: Range) -> schemas.AreaOut:
    """Copy the first row of a range into the rows below it, formulas adjusting row by row (such as
    =B2*C2 filled down D2:D40)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.area_out(session, book, range, services.fill_down(session, actor, workbook, range))


@tool()
def sheets_find_replace(
    ctx: Context,
    workbook: WorkbookRef,
    find: Text(500, "The text to find"),
    replacement: Text(500, "What to put instead ('' removes it)"),
    sheet: Text(100, "Only this sheet; omit for every sheet", True) = None,
    match_case: Annotated[bool, Field(description="true to tell capitals from small letters")] = False,
    whole_cell: Annotated[bool, Field(description="true to replace only cells whose whole input is `find`")] = False,
    in_formulas: Annotated[bool, Field(description="true to replace inside formulas too")] = False,
) -> schemas.StructureOut:
    """Replace text in the typed inputs of cells (formulas only when asked)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        changed = services.find_replace(session, actor, workbook, find, replacement, sheet, match_case, whole_cell,
                                        in_formulas)
        return presenters.structure_out(session, book, presenters.sheet_name(session, book, sheet) if sheet else None,
                                     f"Replaced {find!r} with {replacement!r} in {changed} cell(s).", changed)


# ---------------------------------------------------------------- named ranges and filter views

@tool()
def sheets_define_named_range(ctx: Context, workbook: WorkbookRef, name: Text(60, (
        "The name: a letter or _, then letters, digits, _ or . (not a cell such as Q1), e.g. Revenue")),
        range: Range) -> schemas.NamedRangeOut:
    """Name a range so formulas can use it (=SUM(Revenue)), or point an existing name at a new range."""
    with episode_call(ctx) as (session, actor):
        return presenters.defined_out(session, services.define_named_range(session, actor, workbook, name, range))


@tool(destructive=True)
def sheets_delete_named_range(ctx: Context, workbook: WorkbookRef,
                              name: Text(60, "The range name to remove")) -> schemas.DeletedOut:
    """Remove a range name; formulas that use it show #NAME?."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.deleted_out(book, "named range", services.delete_named_range(session, actor, workbook, name))


ViewName = Text(80, "The filter view's name, unique on its sheet")


@tool()
def sheets_create_filter_view(
    ctx: Context,
    workbook: WorkbookRef,
    name: ViewName,
    range: Range,
    criteria: Annotated[list[Condition], Field(max_length=10, description=(
        'Conditions a row must all meet, e.g. [{"column": "C", "op": ">", "value": 5000}, {"column": "B", "op": '
        '"=", "value": "EMEA"}]; [] shows every row'))],
    sort_column: Text(3, "Column letter to sort the shown rows by; omit for sheet order", True) = None,
    sort_descending: Annotated[bool, Field(description="true to sort from the largest or latest")] = False,
) -> schemas.FilterViewOut:
    """Save a filter view over a range whose first row is its header (the cells are not changed)."""
    with episode_call(ctx) as (session, actor):
        view = services.create_filter_view(session, actor, workbook, name, range, [c.model_dump() for c in criteria],
                                           sort_column or "", sort_descending)
        return presenters.filter_views_out(session, [view])[0]


@tool(read_only=True)
def sheets_list_filter_views(ctx: Context, workbook: WorkbookRef, sheet: Text(100, (
        "Only this sheet's views; omit for every sheet"), True) = None, offset: Offset = 0,
        limit: Limit = 50) -> schemas.FilterViewPage:
    """List a workbook's saved filter views by name, with their ranges, conditions and sort."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_filter_views(session, actor, workbook, sheet), offset, limit)
        return presenters.page_out(schemas.FilterViewPage, presenters.filter_views_out(session, page.items), page)


@tool(read_only=True)
def sheets_apply_filter_view(ctx: Context, workbook: WorkbookRef, name: ViewName,
                             sheet: SheetName = None) -> schemas.FilteredOut:
    """Show what a filter view selects now: the row numbers it shows (header first) and their values."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        rows = services.apply_filter_view(session, actor, workbook, sheet, name)
        return presenters.filtered_out(session, book, sheet, name, rows)


@tool(destructive=True)
def sheets_delete_filter_view(ctx: Context, workbook: WorkbookRef, name: ViewName,
                              sheet: SheetName = None) -> schemas.DeletedOut:
    """Delete a saved filter view (the cells are not changed)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.deleted_out(book, "filter view", services.delete_filter_view(session, actor, workbook, sheet,
                                                                                    name))


# ---------------------------------------------------------------- summaries, import and export

@tool()
def sheets_create_summary_table(
    ctx: Context,
    workbook: WorkbookRef,
    source: Range,
    group_by: Column,
    value_column: Column,
    aggregate: Text(10, "sum, count, average, min or max"),
    target: Text(200, "The table's top-left cell, such as Summary!A1 (a missing sheet is created)"),
) -> schemas.AreaOut:
    """Group the rows of a range (header first) by one column and aggregate another into a two-column table
    of live formulas (SUMIF, COUNTIF, ...) with a total row."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        made = services.create_summary_table(session, actor, workbook, source, group_by, value_column, aggregate,
                                             target)
        return presenters.area_out(session, book, made)


@tool(destructive=True)
def sheets_import_csv(ctx: Context, workbook: WorkbookRef, sheet: Text(100, (
        "The sheet to fill: its contents are replaced (created when missing)")),
        csv: Text(services.MAX_CSV_CHARS, "CSV text; each value is read as if typed (numbers, dates, =formulas)")
        ) -> schemas.ImportOut:
    """Replace a sheet's contents with CSV text (at most 2,000,000 characters and 100,000 cells)."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        written = services.import_csv(session, actor, workbook, sheet, csv)
        return presenters.import_out(session, book, [sheet.strip()], written)


@tool(read_only=True)
def sheets_export_csv(ctx: Context, workbook: WorkbookRef, sheet: SheetName = None) -> schemas.CsvOut:
    """Export a sheet's shown values (as formatted) as CSV text (RFC 4180, CRLF line ends); text that would
    open as a formula in a spreadsheet program (it starts with =, +, -, @, a tab or a carriage return)
    gets a leading apostrophe, the mark for text, so importing it back gives the same text."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.csv_out(session, book, sheet, services.export_csv(session, actor, workbook, sheet))


@tool(destructive=True)
def sheets_import_xlsx(ctx: Context, workbook: WorkbookRef, data: Text(services.MAX_XLSX_BASE64, (
        "The .xlsx file's bytes, base64-encoded"))) -> schemas.ImportOut:
    """Import the sheets of an XLSX file (at most 3,000,000 bytes and 100,000 cells) into a workbook: a sheet
    with the same name is replaced, others are added; formulas and number formats are kept."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.import_out(session, book, services.import_xlsx(session, actor, workbook, data))


@tool(read_only=True)
def sheets_export_xlsx(ctx: Context, workbook: WorkbookRef) -> schemas.XlsxOut:
    """Export a workbook as an XLSX file (base64): every sheet, formulas as formulas, number formats."""
    with episode_call(ctx) as (session, actor):
        book = presenters.open_workbook(session, actor, workbook)
        return presenters.xlsx_out(book, services.export_xlsx_base64(session, actor, workbook))
