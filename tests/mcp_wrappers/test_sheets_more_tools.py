"""Sheets tools, part 2, through the real MCP client: sharing and who may do what, revisions, named
ranges, filter views, summary tables, CSV and XLSX import and export. The scene is the one of
test_sheets_tools ("Zz Budget", made with the services)."""

from __future__ import annotations

import base64
import io

from openpyxl import Workbook as XlsxBook
from openpyxl import load_workbook
from sqlalchemy import select

from officegym.apps.sheets.models import FilterView, NamedRange, Share, Sheet
from officegym.journal import entries
from test_sheets_tools import BOOK, raw, roles, value, world  # noqa: F401  (world is a fixture)


def journal(actor, since: int) -> list[tuple[str, str]]:
    """(surface, action) of the journal entries after `since`."""
    with actor.episode.session() as s:
        return [(e.surface, e.action) for e in entries(s, since)]


def test_sharing_decides_who_reads_and_who_edits(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.write("sheets_share_workbook", {"workbook": BOOK, "person": f"@{scene['stranger']}"},
                      "sheets.share_workbook")
    assert (out["person"]["handle"], out["role"]) == (scene["stranger"], "viewer") and len(out["shares"]) == 3
    promoted = owner.write("sheets_share_workbook", {"workbook": book, "person": f"@{scene['viewer']}",
                                                     "role": "Editor"}, "sheets.share_workbook")
    assert promoted["role"] == "editor"
    removed = owner.write("sheets_unshare_workbook", {"workbook": book, "person": f"@{scene['editor']}"},
                          "sheets.unshare_workbook")
    assert removed["role"] is None and {s["person"]["handle"] for s in removed["shares"]} == {
        scene["viewer"], scene["stranger"]}
    with owner.episode.session() as s:
        r = roles(s)
        assert {(x.person_id, x.role) for x in s.scalars(select(Share).where(Share.workbook_id == book))} == {
            (r["viewer"].id, "editor"), (r["stranger"].id, "viewer")}


def test_a_viewer_reads_but_cannot_edit(world):
    viewer, scene = world("viewer")
    book = scene["book"]
    got = viewer.ok("sheets_get_workbook", {"workbook": BOOK})
    assert got["my_role"] == "viewer" and got["owner"]["handle"] == scene["owner"]
    assert viewer.ok("sheets_read_range", {"workbook": book, "range": "E2"})["cells"][0]["value"] == 450
    viewer.fails("sheets_write_cells", {"workbook": book, "cells": [{"cell": "C2", "value": 1}]}, "You can only view")
    viewer.fails("sheets_share_workbook", {"workbook": book, "person": f"@{scene['stranger']}"}, "You can only view")
    viewer.fails("sheets_delete_workbook", {"workbook": book}, "Only the owner")
    left = viewer.write("sheets_unshare_workbook", {"workbook": book, "person": f"@{scene['viewer']}"},
                        "sheets.unshare_workbook")
    assert left["role"] is None and left["workbook"] == {"id": book, "name": BOOK}
    viewer.fails("sheets_get_workbook", {"workbook": book}, "No workbook")
    assert value(viewer, book, "C2") == 120


def test_a_stranger_does_not_see_the_workbook(world):
    stranger, scene = world("stranger")
    assert stranger.ok("sheets_list_workbooks", {"query": "Zz"})["total"] == 0
    stranger.fails("sheets_read_range", {"workbook": scene["book"], "range": "A1"}, "No workbook")


def test_revisions_record_cell_changes(world):
    editor, scene = world("editor")
    editor.write("sheets_write_cells", {"workbook": scene["book"], "cells": [{"cell": "C2", "value": 125}]},
                 "sheets.write_cells")
    page = editor.ok("sheets_list_revisions", {"workbook": scene["book"], "limit": 1})
    newest = page["items"][0]
    assert (newest["sheet"], newest["cell"], newest["old_input"], newest["new_input"]) == ("Data", "C2", "120", "125")
    assert newest["changed_by"]["handle"] == scene["editor"] and page["next_offset"] == 1 and page["total"] > 5


def test_named_ranges_feed_formulas(world):
    owner, scene = world("owner")
    book = scene["book"]
    named = owner.write("sheets_define_named_range", {"workbook": book, "name": "Amounts", "range": "Data!C2:C5"},
                        "sheets.define_named_range")
    assert (named["sheet"], named["range"], named["ref"]) == ("Data", "C2:C5", "Data!C2:C5")
    owner.write("sheets_write_cells", {"workbook": book, "cells": [{"cell": "F1", "value": "=MAX(Amounts)"}]},
                "sheets.write_cells")
    assert value(owner, book, "F1") == 200
    owner.write("sheets_insert_rows", {"workbook": book, "before": 2}, "sheets.insert_rows")
    assert owner.ok("sheets_get_workbook", {"workbook": book})["named_ranges"][0]["range"] == "C3:C6"
    gone = owner.write("sheets_delete_named_range", {"workbook": book, "name": "amounts"},
                       "sheets.delete_named_range")
    assert (gone["deleted"], gone["name"]) == ("named range", "Amounts")
    assert value(owner, book, "F1").code == "#NAME?"
    with owner.episode.session() as s:
        assert s.scalars(select(NamedRange).where(NamedRange.workbook_id == book)).all() == []


def test_filter_views_select_rows_without_changing_cells(world):
    editor, scene = world("editor")
    book = scene["book"]
    view = editor.write("sheets_create_filter_view", {
        "workbook": book, "name": "Big deals", "range": "A1:C5", "sort_column": "C", "sort_descending": True,
        "criteria": [{"column": "C", "op": ">", "value": 60}]}, "sheets.create_filter_view")
    assert view["criteria"] == [{"column": "C", "op": ">", "value": "60"}] and view["sort_column"] == "C"
    shown = editor.ok("sheets_apply_filter_view", {"workbook": book, "name": "big deals"})
    assert shown["rows"] == [1, 5, 2, 3]
    assert shown["values"] == [["Region", "Rep", "Amount"], ["AMER", "Dee", 200], ["EMEA", "Ann", 120],
                               ["APAC", "Bob", 80]]
    listed = editor.ok("sheets_list_filter_views", {"workbook": book, "sheet": "Data"})
    assert [v["name"] for v in listed["items"]] == ["Big deals"] and listed["total"] == 1
    assert raw(editor, book, "A2") == "EMEA"
    editor.write("sheets_delete_filter_view", {"workbook": book, "name": "Big deals"}, "sheets.delete_filter_view")
    with editor.episode.session() as s:
        assert s.scalars(select(FilterView)).all() == []


def test_summary_table_groups_with_live_formulas(world):
    owner, scene = world("owner")
    book = scene["book"]
    seq = owner.last_seq()
    out = owner.ok("sheets_create_summary_table", {"workbook": book, "source": "A1:C5", "group_by": "A",
                                                   "value_column": "C", "aggregate": "sum", "target": "Summary!A1"})
    assert (out["sheet"], out["range"]) == ("Summary", "A1:B5")
    assert [[c["value"] for c in out["cells"]][i:i + 2] for i in range(0, 10, 2)] == [
        ["Region", "SUM of Amount"], ["AMER", 200], ["APAC", 80], ["EMEA", 170], ["Total", 450]]
    assert out["cells"][3]["formula"].startswith("=SUMIF(")
    assert journal(owner, seq) == [("mcp", "sheets.create_sheet"), ("mcp", "sheets.create_summary_table")]
    owner.write("sheets_write_cells", {"workbook": book, "cells": [{"cell": "C4", "value": 70}]}, "sheets.write_cells")
    assert value(owner, book, "Summary!B4") == 190 and value(owner, book, "Summary!B5") == 470


def test_csv_import_and_export(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.write("sheets_import_csv", {"workbook": book, "sheet": "Data",
                                            "csv": "Item,Cost\nPens,2.5\nPaper,4\nTotal,=SUM(B2:B3)\n"},
                      "sheets.import_csv")
    assert out["cells"] == 8 and out["sheets"][0]["used_range"] == "A1:B4"
    assert value(owner, book, "B4") == 6.5 and raw(owner, book, "C2") == ""
    seq = owner.last_seq()
    made = owner.ok("sheets_import_csv", {"workbook": book, "sheet": "Costs", "csv": "a,b\n1,2\n"})
    assert journal(owner, seq) == [("mcp", "sheets.create_sheet"), ("mcp", "sheets.import_csv")]
    assert made["sheets"][0]["name"] == "Costs" and made["cells"] == 4
    exported = owner.ok("sheets_export_csv", {"workbook": book})
    assert exported["csv"] == "Item,Cost\r\nPens,2.5\r\nPaper,4\r\nTotal,6.5\r\n" and exported["rows"] == 4
    assert owner.ok("sheets_export_csv", {"workbook": book, "sheet": "q1 PLAN"})["csv"] == "0\r\n"  # Data!E2 is gone


def test_xlsx_round_trip(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.ok("sheets_export_xlsx", {"workbook": BOOK})
    data = base64.b64decode(out["base64"])
    assert out["filename"] == "Zz Budget.xlsx" and out["size"] == len(data)
    opened = load_workbook(io.BytesIO(data))
    assert opened.sheetnames == ["Data", "Q1 plan"] and opened["Data"]["E2"].value == "=SUM(C2:C5)"
    upload = XlsxBook()
    upload.active.title = "Imported"
    upload.active.append(["x", 2, "=B1*3"])
    buffer = io.BytesIO()
    upload.save(buffer)
    seq = owner.last_seq()
    done = owner.ok("sheets_import_xlsx", {"workbook": book, "data": base64.b64encode(buffer.getvalue()).decode()})
    assert [s["name"] for s in done["sheets"]] == ["Imported"] and done["cells"] == 3
    assert value(owner, book, "Imported!C1") == 6
    assert journal(owner, seq) == [("mcp", "sheets.create_sheet"), ("mcp", "sheets.import_xlsx")]
    with owner.episode.session() as s:
        assert [x.name for x in s.scalars(select(Sheet).where(Sheet.workbook_id == book)
                                          .order_by(Sheet.position))] == ["Data", "Q1 plan", "Imported"]
