"""The grid page (sheet tabs, a window of the sheet with frozen rows and columns, the selected cell
and the formula bar) and the forms that write cells: the formula bar, batch edit, clear and number
formats. The window arithmetic is in window.py."""

from __future__ import annotations

from flask import jsonify, render_template, url_for

from officegym.errors import Invalid
from officegym.web_request import arg_int, see_other, ui

from . import services
from .blueprint import arg, bp, done, flash_info, form, qualify, wants_json
from .cells import MAX_WRITE, sheet_for, used_extent
from .formula.a1 import Area, BadReference, cell_text, col_name, parse_area
from .formula.formats import NAMED_FORMATS
from .names import OPERATORS
from .summary import AGGREGATES
from .window import COLS, ROWS, Window, build_rows, column_start, read_cells


def _selection() -> Area | None:
    """The cell named by ?cell= (it may carry a sheet), or None."""
    text = arg("cell")
    if not text:
        return None
    try:
        return parse_area(text)
    except BadReference as bad:
        raise Invalid(f"Cannot go to {text!r}: {bad}") from None


@bp.get("/w/<int:wb>")
def workbook(wb: int):
    """A window of one sheet: 40 rows x 12 columns from ?r= and ?c= (or around ?cell=), frozen rows
    and columns kept in view, ?view= applies a filter view; the selected cell fills the formula bar."""
    picked = _selection()
    with ui() as (db, actor):
        book = services.get_workbook(db, actor, wb)
        role = services.my_role(db, actor, book)
        sheets = services.list_sheets(db, actor, book.id)
        sheet = sheet_for(db, actor, book.id, (picked.sheet if picked and picked.sheet else arg("sheet")) or None)
        row, col = (picked.top, picked.left) if picked else (None, None)
        view_name = arg("view")
        window = Window.around(arg_int("r"), column_start(arg("c")), row, col, sheet.frozen_rows, sheet.frozen_cols)
        matches = None
        if view_name:
            shown = services.apply_filter_view(db, actor, book.id, sheet.name, view_name)
            matches = len(shown) - 1
            window = window.filtered([r - 1 for r in shown], arg_int("offset", 0))
        selected = (row, col) if picked else (window.top, window.left)
        cells = read_cells(db, sheet, window.all_rows, window.cols)
        chosen = cells.get(selected) or read_cells(db, sheet, [selected[0]], [selected[1]])[selected]
        last_row, last_col = used_extent(db, sheet)
        context = dict(
            book=book, role=role, can_edit=role in ("owner", "editor"), sheets=sheets, sheet=sheet,
            window=window, head=build_rows(window.head_rows, window.cols, cells, selected),
            body=build_rows(window.body_rows, window.cols, cells, selected),
            columns=[(c, col_name(c), c < sheet.frozen_cols) for c in window.cols],
            selected=chosen, selected_ref=cell_text(*selected), sel_row=selected[0] + 1, sel_col=col_name(selected[1]),
            view_name=view_name, matches=matches, views=services.list_filter_views(db, actor, book.id, sheet.name),
            used=f"A1:{cell_text(last_row, last_col)}" if last_row >= 0 else "",
            formats=list(NAMED_FORMATS), operators=OPERATORS, aggregates=AGGREGATES, ROWS=ROWS, COLS=COLS,
            col_name=col_name)
        return render_template("sheets/workbook.html", **context)


@bp.post("/w/<int:wb>/cells")
def write(wb: int):
    """The formula bar (and the grid's in-cell editor): save one cell's input (a formula, a number,
    text; empty clears it). Answers JSON when asked for it, else goes back to the grid at that cell."""
    sheet, cell = form("sheet"), form("cell").strip()
    with ui() as (db, actor):
        changed = services.write_cells(db, actor, wb, [{"cell": qualify(sheet, cell), "value": form("value")}])
    message = f"Saved {cell.upper()}" + (f" ({changed} cell{'s' * (changed != 1)} changed value)." if changed else ".")
    if wants_json():
        return jsonify(cell=cell.upper(), changed=changed, message=message)
    flash_info(message)
    target = url_for("sheets.workbook", wb=wb, sheet=sheet or None, cell=cell or None, view=form("view") or None)
    return see_other(target)


def parse_batch(text: str, sheet: str) -> list[dict]:
    """Lines such as 'B3 = 42' or 'C4 = =SUM(C1:C3)' (the first '=' separates the cell from its
    input; nothing after it clears the cell) as cells to write."""
    cells = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        ref, sep, value = line.partition("=")
        if not sep or not ref.strip():
            raise Invalid(f"Line {number} ({line.strip()[:40]!r}): write each line as a cell, '=' and its input, "
                          "such as B3 = 42 or C4 = =SUM(C1:C3).")
        cells.append({"cell": qualify(sheet, ref.strip()), "value": value.strip()})
    return cells


@bp.post("/w/<int:wb>/batch")
def batch(wb: int):
    """Write many cells at once from lines of 'cell = input'."""
    cells = parse_batch(form("lines"), form("sheet"))
    with ui() as (db, actor):
        changed = services.write_cells(db, actor, wb, cells)
    return done(wb, f"Wrote {len(cells)} cell(s); {changed} changed value.", form("sheet"))


def parse_block(text: str) -> list[list[str]]:
    """Tab-separated text (a spreadsheet's copied cells: one line per row, a tab between cells) as rows."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.count("\t") + text.count("\n") > MAX_WRITE:  # counted before a list of cells is made
        raise Invalid(f"That is more than {MAX_WRITE:,} cells; paste at most {MAX_WRITE:,} at once.")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not any(line for line in lines):
        raise Invalid("Paste some text: one line per row, cells separated by tabs.")
    return [line.split("\t") for line in lines]


@bp.post("/w/<int:wb>/block")
def block(wb: int):
    """Write tab-separated rows of text from a top-left cell, as typed (what pasting copied cells does)."""
    rows, start = parse_block(form("text")), form("start").strip()
    with ui() as (db, actor):
        changed = services.write_range(db, actor, wb, qualify(form("sheet"), start), rows)
    count = sum(len(r) for r in rows)
    return done(wb, f"Pasted {count} cell(s) at {start.upper()}; {changed} changed value.", form("sheet"))


@bp.post("/w/<int:wb>/clear")
def clear(wb: int):
    """Empty every cell of a range (formats stay)."""
    with ui() as (db, actor):
        cleared = services.clear_range(db, actor, wb, qualify(form("sheet"), form("range")))
    return done(wb, f"Cleared {cleared} cell(s).", form("sheet"))


@bp.post("/w/<int:wb>/format")
def number_format(wb: int):
    """Show a range's numbers in a named format, or in a custom pattern when one is typed."""
    pattern = form("pattern").strip() or form("format")
    with ui() as (db, actor):
        covered = services.set_number_format(db, actor, wb, qualify(form("sheet"), form("range")), pattern)
    return done(wb, f"Formatted {covered} cell(s) as {pattern or 'general'}.", form("sheet"))
