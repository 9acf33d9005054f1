"""Every rule of the sheets app, behind one import: `from officegym.apps.sheets import services`.

The rules live in small modules by subject; each function takes `(session, actor, plain values)`
and raises an OfficeError on refusal:

- access.py     who sees and edits a workbook (owner, editors, viewers)
- workbooks.py  listing, creating, renaming, deleting, sharing, revision history
- tabs.py       sheets: add, rename (formulas follow), move, delete (formulas show #REF!), freeze
- cells.py      read a range; write cells, blocks and number formats; clear
- structure.py  insert/delete rows and columns, sort, copy/paste, fill down, find and replace
- names.py      named ranges and filter views
- summary.py    summary (pivot-like) tables written as formulas
- exchange.py   CSV import and export, XLSX export; one import per episode at a time
- xlsx_import.py  XLSX import, bounded before the work (file, unpacked size, cells as rows stream in)
- book.py       the bridge to the formula engine (formula/), which recalculates what a change reaches
- lookups.py    finding a workbook, sheet or range by what a caller names; `stored_cell` reads one stored
                cell without an access check (for graders and tests)

This module only gathers those operations; it has no rules of its own.
"""

from __future__ import annotations

from .book import cell_value
from .cells import (CellOut, RangeOut, clear_range, read_area, read_range, set_number_format, write_cells,
                    write_range)
from .exchange import MAX_CSV_CHARS, MAX_IMPORT_CELLS, export_csv, export_xlsx, export_xlsx_base64, import_csv
from .lookups import stored_cell
from .names import (apply_filter_view, create_filter_view, define_named_range, delete_filter_view,
                    delete_named_range, list_filter_views, list_named_ranges)
from .structure import (copy_paste, delete_columns, delete_rows, fill_down, find_replace, insert_columns,
                        insert_rows, sort_range)
from .summary import create_summary_table
from .tabs import create_sheet, delete_sheet, freeze, list_sheets, move_sheet, rename_sheet
from .xlsx_import import MAX_XLSX_BASE64, MAX_XLSX_BYTES, import_xlsx
from .workbooks import (create_workbook, delete_workbook, get_workbook, list_revisions, list_shares,
                        list_workbooks, my_role, share_workbook, unshare_workbook, update_workbook)

__all__ = [
    "list_workbooks", "get_workbook", "my_role", "create_workbook", "update_workbook", "delete_workbook",
    "list_shares", "share_workbook", "unshare_workbook", "list_revisions",
    "list_sheets", "create_sheet", "rename_sheet", "move_sheet", "delete_sheet", "freeze",
    "CellOut", "RangeOut", "read_range", "read_area", "write_cells", "write_range", "clear_range",
    "set_number_format",
    "insert_rows", "delete_rows", "insert_columns", "delete_columns", "sort_range", "copy_paste", "fill_down",
    "find_replace",
    "define_named_range", "delete_named_range", "list_named_ranges",
    "create_filter_view", "list_filter_views", "delete_filter_view", "apply_filter_view",
    "create_summary_table",
    "import_csv", "export_csv", "import_xlsx", "export_xlsx", "export_xlsx_base64",
    "MAX_CSV_CHARS", "MAX_IMPORT_CELLS", "MAX_XLSX_BASE64", "MAX_XLSX_BYTES",
    "cell_value", "stored_cell",
]
