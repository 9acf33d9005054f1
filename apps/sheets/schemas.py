"""Output models of the sheets app, shared by the MCP tools and the UI's JSON. The converters that
build them from the services' records are in presenters.py and presenters_cells.py.

A cell's value goes out as a number, text, true/false or null (empty); an error value goes out as
its code ("#DIV/0!") with the reason in `error`. Ranges are A1 text; rows are numbered from 1.
Optional cell fields that do not apply (no formula, the General format, no error) are left out.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_serializer

from officegym.apps.org.schemas import PersonBrief, Ref, page_model

Value = int | float | bool | str | None


class CellOut(BaseModel):
    """One non-empty cell: where it is, what it computes to, how it shows, and how it was typed."""

    ref: str = Field(description="The cell in A1 notation (with its sheet, as Data!B3, where several sheets "
                                 "may be involved)")
    value: Value = Field(description="The computed value: a number, text, true/false, or an error code such "
                                     "as #DIV/0! (then `error` says why)")
    display: str = Field(description="The value as the sheet shows it, under the cell's number format")
    formula: str | None = Field(None, description="The formula as typed, such as =SUM(B2:B9); left out for "
                                                  "typed values")
    number_format: str | None = Field(None, description="The number format pattern; left out for General")
    error: str | None = Field(None, description="Why the value is an error; left out otherwise")

    @model_serializer(mode="wrap")
    def _compact(self, handler) -> dict[str, Any]:
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None or k == "value"}


class RangeOut(BaseModel):
    """A range as read: its non-empty cells, row by row."""

    sheet: str
    range: str = Field(description="The A1 range read (whole rows and columns are cut to the part in use)")
    rows: int = Field(description="Rows the range spans")
    columns: int = Field(description="Columns the range spans")
    cells: list[CellOut] = Field(description="The non-empty cells, row by row, left to right; a cell not "
                                             "listed is empty")


class SheetOut(BaseModel):
    """One tab of a workbook."""

    name: str
    position: int = Field(description="Tab position, from 1")
    frozen_rows: int
    frozen_columns: int
    used_range: str | None = Field(description="From A1 to the last row and column holding a cell; null when "
                                               "the sheet is empty")
    cell_count: int = Field(description="Cells holding a value or a formula")


class NamedRangeOut(BaseModel):
    """A name usable in formulas instead of a range (=SUM(Revenue))."""

    name: str
    sheet: str
    range: str = Field(description="The range it names on that sheet, such as $B$2:$B$40")
    ref: str = Field(description="The same with its sheet, such as Data!$B$2:$B$40")


class ShareOut(BaseModel):
    """Someone a workbook is shared with."""

    person: PersonBrief
    role: str = Field(description="viewer (reads) or editor (reads and changes)")
    shared_by: PersonBrief
    shared_at: str


class WorkbookOut(BaseModel):
    """A spreadsheet file as lists show it."""

    id: int
    title: str
    description: str
    owner: PersonBrief
    my_role: str = Field(description="Your role: owner, editor or viewer (viewers cannot change it)")
    created_at: str
    updated_at: str


class WorkbookDetailOut(WorkbookOut):
    """A workbook with its sheets, named ranges and shares."""

    sheets: list[SheetOut] = Field(description="In tab order; the first is the one unprefixed ranges mean")
    named_ranges: list[NamedRangeOut]
    shares: list[ShareOut] = Field(description="People it is shared with (the owner is not listed)")


class SharesOut(BaseModel):
    """Who a workbook is shared with after a change of its shares."""

    workbook: Ref
    person: PersonBrief = Field(description="The person whose access changed")
    role: str | None = Field(description="Their role now; null when it is no longer shared with them")
    shares: list[ShareOut]


class TabsOut(BaseModel):
    """A workbook's sheets after one was added, renamed, moved, frozen or deleted."""

    workbook: Ref
    sheet: str = Field(description="The sheet the change was about")
    sheets: list[SheetOut] = Field(description="All sheets, in tab order")


class RevisionOut(BaseModel):
    """One change of a workbook: a cell's input from old to new, or a structural edit in words."""

    id: int
    sheet: str
    cell: str = Field(description="The cell changed; empty for a structural edit")
    action: str = Field(description="What was done, such as 'write cells' or 'insert 2 row(s) at 5 of Data'")
    old_input: str
    new_input: str
    changed_by: PersonBrief
    changed_at: str


class CellsWrittenOut(BaseModel):
    """Cells after a write: how many values changed and the written cells as they compute now."""

    workbook: Ref
    changed: int = Field(description="Cells whose value changed, including formulas elsewhere that read them")
    cells: list[CellOut] = Field(description="The written cells as they read now (at most 100, row by row)")
    more: int = Field(description="Written cells not listed; read them with sheets_read_range")


class AreaOut(BaseModel):
    """A range after an edit (clear, format, sort, paste, fill, summary): what it holds now."""

    workbook: Ref
    sheet: str
    range: str = Field(description="The range the edit covered")
    count: int = Field(description="Cells (or rows, for a sort) the edit touched")
    cells: list[CellOut] = Field(description="Its non-empty cells as they read now (at most 100)")
    more: int = Field(description="Non-empty cells not listed; read them with sheets_read_range")


class StructureOut(BaseModel):
    """A sheet after rows or columns were inserted or deleted, or text was replaced."""

    workbook: Ref
    sheet: str | None = Field(description="The sheet edited; null when every sheet was searched")
    summary: str = Field(description="What happened, in words")
    count: int = Field(description="Rows, columns or cells affected")
    used_range: str | None = Field(description="The sheet's used range now (null when empty or several sheets)")


class DeletedOut(BaseModel):
    """What a delete removed."""

    workbook: Ref = Field(description="The workbook it was in (or the workbook deleted)")
    deleted: str = Field(description="What was removed: workbook, sheet, named range or filter view")
    name: str


class ConditionOut(BaseModel):
    """One condition of a filter view."""

    column: str = Field(description="Column letter")
    op: str = Field(description="=, !=, >, >=, <, <=, contains, not contains, empty or not empty")
    value: str


class FilterViewOut(BaseModel):
    """A saved filter over a range whose first row is its header."""

    id: int
    name: str
    sheet: str
    range: str
    criteria: list[ConditionOut] = Field(description="A row shows when it meets every condition")
    sort_column: str | None = Field(description="Column letter the shown rows are sorted by; null for sheet order")
    sort_descending: bool
    created_by: PersonBrief


class FilteredOut(BaseModel):
    """What a filter view shows now."""

    view: FilterViewOut
    rows: list[int] = Field(description="Row numbers shown, header row first, in the view's order")
    values: list[list[Value]] = Field(description="The values of those rows across the view's range (first 200 "
                                                  "rows); errors as their code")


class ImportOut(BaseModel):
    """Sheets filled by an import."""

    workbook: Ref
    sheets: list[SheetOut] = Field(description="The sheets imported, as they are now")
    cells: int = Field(description="Cells written")


class CsvOut(BaseModel):
    """One sheet's shown values as CSV text."""

    workbook: Ref
    sheet: str
    csv: str = Field(description="Rows of comma-separated shown values (empty when the sheet is empty)")
    rows: int


class XlsxOut(BaseModel):
    """A workbook as an XLSX file."""

    workbook: Ref
    filename: str
    base64: str = Field(description="The file's bytes, base64-encoded")
    size: int = Field(description="Bytes of the file")


WorkbookPage = page_model("WorkbookPage", WorkbookOut, "workbooks, most recently changed first", __name__)
RevisionPage = page_model("RevisionPage", RevisionOut, "revisions, newest first", __name__)
FilterViewPage = page_model("FilterViewPage", FilterViewOut, "filter views", __name__)
