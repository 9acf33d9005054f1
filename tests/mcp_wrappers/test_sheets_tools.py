"""Sheets tools through the real MCP client, each result read back through the tools and the tables.
The workbook under test ("Zz Budget", owned by a plain member and shared with an editor and a
viewer) is made with the services, never taken from the seeded world."""

from __future__ import annotations

import pytest
from scene_helpers import scene_worlds
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services
from officegym.apps.sheets.models import Cell, Sheet, Workbook
from officegym.apps.sheets.formula.values import CellError

BOOK = "Zz Budget"
TABLE = [["Region", "Rep", "Amount"], ["EMEA", "Ann", 120], ["APAC", "Bob", 80], ["EMEA", "Cid", 50],
         ["AMER", "Dee", 200]]


def roles(session) -> dict[str, Person]:
    """The first four plain members: the workbook's `owner`, an `editor`, a `viewer` and a `stranger`."""
    owner, editor, viewer, stranger = session.scalars(select(Person).where(Person.role == "member")
                                                      .order_by(Person.id).limit(4))
    return {"owner": owner, "editor": editor, "viewer": viewer, "stranger": stranger}


def build(session) -> dict:
    """The scene: "Zz Budget" with sheets Data (TABLE in A1:C5, E1 Total, E2 =SUM(C2:C5)) and 'Q1 plan'
    (A1 =Data!E2*2), shared with the editor and the viewer."""
    r = roles(session)
    book = services.create_workbook(session, r["owner"], BOOK, ["Data", "Q1 plan"], "Regional sales")
    services.write_range(session, r["owner"], book.id, "A1", TABLE)
    services.write_cells(session, r["owner"], book.id, [{"cell": "E1", "value": "Total"},
                                                         {"cell": "E2", "value": "=SUM(C2:C5)"},
                                                         {"cell": "'Q1 plan'!A1", "value": "=Data!E2*2"}])
    services.share_workbook(session, r["owner"], book.id, r["editor"].id, "editor")
    services.share_workbook(session, r["owner"], book.id, r["viewer"].id, "viewer")
    return {"book": book.id, **{role: person.handle for role, person in r.items()}}


@pytest.fixture
def world(store, agent):
    """A factory of fresh tiny episodes acting as one of `roles`, with the scene in place."""
    yield from scene_worlds(store, agent, roles, build)


def value(actor, book: int, ref: str):
    """A cell's stored value, read from the table ('' input means None)."""
    with actor.episode.session() as s:
        cell = services.stored_cell(s, book, ref)
        return None if cell is None else services.cell_value(cell.kind, cell.number, cell.text, cell.note)


def raw(actor, book: int, ref: str) -> str:
    """A cell's stored input."""
    with actor.episode.session() as s:
        cell = services.stored_cell(s, book, ref)
        return "" if cell is None else cell.raw


def by_ref(out: dict) -> dict[str, dict]:
    """The cells of a tool's output by ref."""
    return {c["ref"]: c for c in out["cells"]}


def test_create_list_get_update_and_delete_a_workbook(world):
    owner, scene = world("owner")
    made = owner.write("sheets_create_workbook", {"title": " Zz Plan ", "sheets": ["Inputs", "Q1 plan"]},
                       "sheets.create_workbook")
    assert (made["title"], made["my_role"], made["owner"]["handle"]) == ("Zz Plan", "owner", scene["owner"])
    assert [(s["name"], s["position"], s["used_range"]) for s in made["sheets"]] == [
        ("Inputs", 1, None), ("Q1 plan", 2, None)]
    listed = owner.ok("sheets_list_workbooks", {"query": "zz"})
    assert [w["title"] for w in listed["items"]] == ["Zz Plan", BOOK] and listed["total"] == 2
    paged = owner.ok("sheets_list_workbooks", {"query": "zz", "limit": 1})
    assert paged["next_offset"] == 1 and paged["items"][0]["title"] == "Zz Plan"
    got = owner.ok("sheets_get_workbook", {"workbook": BOOK.lower()})
    assert [(s["name"], s["used_range"], s["cell_count"]) for s in got["sheets"]] == [
        ("Data", "A1:E5", 17), ("Q1 plan", "A1", 1)]
    assert {(s["person"]["handle"], s["role"]) for s in got["shares"]} == {(scene["editor"], "editor"),
                                                                          (scene["viewer"], "viewer")}
    changed = owner.write("sheets_update_workbook", {"workbook": made["id"], "title": "Zz Plan 2",
                                                     "description": "Next year"}, "sheets.update_workbook")
    assert (changed["title"], changed["description"]) == ("Zz Plan 2", "Next year")
    gone = owner.write("sheets_delete_workbook", {"workbook": "Zz Plan 2"}, "sheets.delete_workbook")
    assert gone == {"workbook": {"id": made["id"], "name": "Zz Plan 2"}, "deleted": "workbook", "name": "Zz Plan 2"}
    with owner.episode.session() as s:
        assert s.get(Workbook, made["id"]) is None
        assert s.scalars(select(Sheet).where(Sheet.workbook_id == made["id"])).all() == []


def test_formulas_compute_and_read_back(world):
    editor, scene = world("editor")
    book = scene["book"]
    out = editor.write("sheets_write_cells", {"workbook": book, "cells": [
        {"cell": "C3", "value": 100}, {"cell": "F2", "value": "=E2/0"}, {"cell": "F3", "value": "=AVERAGE(C2:C5)"},
        {"cell": "'Q1 plan'!B1", "value": "12%"}, {"cell": "G2", "value": True}]}, "sheets.write_cells")
    cells = by_ref(out)
    assert out["changed"] >= 6 and out["more"] == 0  # E2 and 'Q1 plan'!A1 recomputed too
    assert cells["Data!C3"] == {"ref": "Data!C3", "value": 100, "display": "100"}
    assert cells["Data!F2"]["value"] == "#DIV/0!" and cells["Data!F2"]["formula"] == "=E2/0"
    assert cells["Data!F2"]["error"]
    assert cells["Data!F3"]["value"] == 117.5 and cells["Data!G2"]["value"] is True
    assert cells["'Q1 plan'!B1"] == {"ref": "'Q1 plan'!B1", "value": 0.12, "display": "12.00%",
                                     "number_format": "0.00%"}
    assert value(editor, book, "Data!E2") == 470 and value(editor, book, "'Q1 plan'!A1") == 940
    assert isinstance(value(editor, book, "F2"), CellError) and value(editor, book, "F2").code == "#DIV/0!"
    read = editor.ok("sheets_read_range", {"workbook": BOOK, "range": "Data!E1:F3"})
    assert (read["sheet"], read["range"], read["rows"], read["columns"]) == ("Data", "E1:F3", 3, 2)
    assert [c["ref"] for c in read["cells"]] == ["E1", "E2", "F2", "F3"]
    assert by_ref(read)["E2"] == {"ref": "E2", "value": 470, "display": "470", "formula": "=SUM(C2:C5)"}
    whole = editor.ok("sheets_read_range", {"workbook": book, "range": "A:A"})
    assert whole["range"] == "A1:A5" and [c["value"] for c in whole["cells"]] == ["Region", "EMEA", "APAC", "EMEA",
                                                                                 "AMER"]


def test_write_range_format_and_clear(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.write("sheets_write_range", {"workbook": book, "start": "'Q1 plan'!B3",
                                             "rows": [["Month", "Cost"], ["Jan", 1500.5], ["Feb", "=C4*2"]]},
                      "sheets.write_range")
    assert [c["ref"] for c in out["cells"]] == ["'Q1 plan'!B3", "'Q1 plan'!C3", "'Q1 plan'!B4", "'Q1 plan'!C4",
                                                "'Q1 plan'!B5", "'Q1 plan'!C5"]
    assert by_ref(out)["'Q1 plan'!C5"]["value"] == 3001
    formatted = owner.write("sheets_set_number_format", {"workbook": book, "range": "'Q1 plan'!C4:C5",
                                                         "number_format": "currency"}, "sheets.set_number_format")
    assert [c["display"] for c in formatted["cells"]] == ["$1,500.50", "$3,001.00"] and formatted["count"] == 2
    with owner.episode.session() as s:
        assert services.stored_cell(s, book, "'Q1 plan'!C5").number_format == "$#,##0.00"
    cleared = owner.write("sheets_clear_range", {"workbook": book, "range": "'Q1 plan'!B3:C4"}, "sheets.clear_range")
    assert cleared["count"] == 4 and [c["ref"] for c in cleared["cells"]] == []
    assert value(owner, book, "'Q1 plan'!C5") == 0 and raw(owner, book, "'Q1 plan'!B3") == ""
    with owner.episode.session() as s:  # the format stays on the cleared cell
        assert services.stored_cell(s, book, "'Q1 plan'!C4").number_format == "$#,##0.00"


def test_sheets_are_added_renamed_moved_frozen_and_deleted(world):
    owner, scene = world("owner")
    book = scene["book"]
    added = owner.write("sheets_create_sheet", {"workbook": book, "name": "Notes", "position": 1},
                        "sheets.create_sheet")
    assert [s["name"] for s in added["sheets"]] == ["Notes", "Data", "Q1 plan"] and added["sheet"] == "Notes"
    owner.write("sheets_move_sheet", {"workbook": book, "sheet": "notes", "position": 3}, "sheets.move_sheet")
    renamed = owner.write("sheets_rename_sheet", {"workbook": book, "sheet": "Data", "new_name": "Sales 2030"},
                          "sheets.rename_sheet")
    assert [s["name"] for s in renamed["sheets"]] == ["Sales 2030", "Q1 plan", "Notes"]
    assert raw(owner, book, "'Q1 plan'!A1") == "='Sales 2030'!E2*2" and value(owner, book, "'Q1 plan'!A1") == 900
    frozen = owner.write("sheets_freeze_rows", {"workbook": book, "rows": 1, "columns": 1}, "sheets.freeze")
    assert (frozen["sheets"][0]["frozen_rows"], frozen["sheets"][0]["frozen_columns"]) == (1, 1)
    left = owner.write("sheets_delete_sheet", {"workbook": book, "sheet": "Sales 2030"}, "sheets.delete_sheet")
    assert [s["name"] for s in left["sheets"]] == ["Q1 plan", "Notes"]
    assert value(owner, book, "'Q1 plan'!A1").code == "#REF!"


def test_inserting_and_deleting_rows_and_columns_shifts_references(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.write("sheets_insert_rows", {"workbook": book, "before": 3, "count": 2}, "sheets.insert_rows")
    assert (out["sheet"], out["count"], out["used_range"]) == ("Data", 2, "A1:E7")
    assert raw(owner, book, "E2") == "=SUM(C2:C7)" and raw(owner, book, "A5") == "APAC"
    assert raw(owner, book, "'Q1 plan'!A1") == "=Data!E2*2" and value(owner, book, "'Q1 plan'!A1") == 900
    owner.write("sheets_insert_columns", {"workbook": book, "before": "B"}, "sheets.insert_columns")
    assert raw(owner, book, "F2") == "=SUM(D2:D7)" and raw(owner, book, "'Q1 plan'!A1") == "=Data!F2*2"
    owner.write("sheets_delete_columns", {"workbook": book, "first": 2}, "sheets.delete_columns")
    owner.write("sheets_delete_rows", {"workbook": book, "first": 3, "count": 2}, "sheets.delete_rows")
    assert raw(owner, book, "E2") == "=SUM(C2:C5)" and value(owner, book, "E2") == 450
    gone = owner.write("sheets_delete_rows", {"workbook": book, "first": 2, "sheet": "Data"}, "sheets.delete_rows")
    assert gone["used_range"] == "A1:E4" and value(owner, book, "'Q1 plan'!A1").code == "#REF!"


def test_sort_keeps_rows_together(world):
    owner, scene = world("owner")
    book = scene["book"]
    owner.write("sheets_write_cells", {"workbook": book, "cells": [{"cell": "D2", "value": "=C2*2"}]},
                "sheets.write_cells")
    out = owner.write("sheets_sort_range", {"workbook": book, "range": "A1:D5", "has_header": True,
                                            "keys": [{"column": "A"}, {"column": "C", "descending": True}]},
                      "sheets.sort_range")
    assert out["count"] == 4
    with owner.episode.session() as s:
        sheet = s.scalar(select(Sheet).where(Sheet.workbook_id == book, Sheet.name == "Data"))
        rows = {(c.row, c.col): c for c in s.scalars(select(Cell).where(Cell.sheet_id == sheet.id))}
    assert [(rows[(r, 0)].raw, rows[(r, 2)].raw) for r in range(5)] == [
        ("Region", "Amount"), ("AMER", "200"), ("APAC", "80"), ("EMEA", "120"), ("EMEA", "50")]
    assert rows[(3, 3)].raw == "=C4*2" and rows[(3, 3)].number == 240  # the formula moved with its row
    assert value(owner, book, "E2") == 450


def test_copy_paste_and_fill_down_shift_relative_references(world):
    owner, scene = world("owner")
    book = scene["book"]
    owner.write("sheets_write_cells", {"workbook": book, "cells": [{"cell": "D2", "value": "=C2*$C$2"}]},
                "sheets.write_cells")
    filled = owner.write("sheets_fill_down", {"workbook": book, "range": "D2:D5"}, "sheets.fill_down")
    assert [c["formula"] for c in filled["cells"]] == ["=C2*$C$2", "=C3*$C$2", "=C4*$C$2", "=C5*$C$2"]
    assert [c["value"] for c in filled["cells"]] == [14400, 9600, 6000, 24000] and filled["count"] == 3
    pasted = owner.write("sheets_copy_paste", {"workbook": book, "source": "D2:D3", "target": "'Q1 plan'!B2"},
                         "sheets.copy_paste")
    assert pasted["sheet"] == "Q1 plan" and pasted["range"] == "B2:B3"
    assert raw(owner, book, "'Q1 plan'!B2") == "=A2*$C$2"
    values = owner.write("sheets_copy_paste", {"workbook": book, "source": "C2:D2", "target": "G10",
                                               "values_only": True}, "sheets.copy_paste")
    assert [(c["ref"], c["value"]) for c in values["cells"]] == [("G10", 120), ("H10", 14400)]
    assert raw(owner, book, "H10") == "14400"


def test_find_replace_changes_inputs_not_formulas(world):
    owner, scene = world("owner")
    book = scene["book"]
    out = owner.write("sheets_find_replace", {"workbook": book, "find": "emea", "replacement": "Europe"},
                      "sheets.find_replace")
    assert out["count"] == 2 and out["sheet"] is None
    assert raw(owner, book, "A2") == "Europe" and raw(owner, book, "A4") == "Europe"
    owner.write("sheets_find_replace", {"workbook": book, "find": "C5", "replacement": "C4", "sheet": "Data",
                                        "in_formulas": True}, "sheets.find_replace")
    assert raw(owner, book, "E2") == "=SUM(C2:C4)" and value(owner, book, "E2") == 250
