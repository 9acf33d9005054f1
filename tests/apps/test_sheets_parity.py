"""Parity: the same sheets operations through the UI's forms and through the MCP tools leave the same
changes in the database, row for row."""

from __future__ import annotations

from sqlalchemy import select
from ui_helpers import Browser, call_tools, db_changes, error_message

from officegym.apps.org.models import Person
from officegym.apps.sheets.models import Share, Workbook


def test_the_same_sheet_edits_through_ui_and_mcp_make_the_same_change(web_app, store):
    ui_episode, mcp_episode = store.create(scale="tiny"), store.create(scale="tiny")
    try:
        browser = Browser(web_app.test_client(), ui_episode)
        with browser.db() as db:
            book = db.scalars(select(Workbook).where(Workbook.title.startswith("Department Budgets"))).first()
            owner = db.get(Person, book.owner_id)
            shared = set(db.scalars(select(Share.person_id).where(Share.workbook_id == book.id)))
            colleague = db.scalars(select(Person).where(Person.id.not_in(shared | {owner.id}))
                                   .order_by(Person.id)).first()
            wb, handle = book.id, colleague.handle
        browser.act_as(owner.handle)
        steps = [
            (f"/sheets/w/{wb}/cells", {"sheet": "Budget", "cell": "F2", "value": "12345"},
             "sheets_write_cells", {"workbook": wb, "cells": [{"cell": "Budget!F2", "value": "12345"}]}),
            (f"/sheets/w/{wb}/batch", {"sheet": "Budget", "lines": "G2 = 700\nK1 = Note\nK2 = =I2/C2"},
             "sheets_write_cells", {"workbook": wb, "cells": [{"cell": "Budget!G2", "value": "700"},
                                                              {"cell": "Budget!K1", "value": "Note"},
                                                              {"cell": "Budget!K2", "value": "=I2/C2"}]}),
            (f"/sheets/w/{wb}/rows", {"sheet": "Budget", "action": "insert", "row": "3", "count": "2"},
             "sheets_insert_rows", {"workbook": wb, "sheet": "Budget", "before": 3, "count": 2}),
            (f"/sheets/w/{wb}/sort", {"sheet": "Budget", "range": "A5:J6", "column": "C", "direction": "desc"},
             "sheets_sort_range", {"workbook": wb, "range": "Budget!A5:J6",
                                   "keys": [{"column": "C", "descending": True}]}),
            (f"/sheets/w/{wb}/format", {"sheet": "Budget", "range": "K2:K3", "pattern": "0.0%"},
             "sheets_set_number_format", {"workbook": wb, "range": "Budget!K2:K3", "number_format": "0.0%"}),
            (f"/sheets/w/{wb}/share", {"person": handle, "role": "editor"},
             "sheets_share_workbook", {"workbook": wb, "person": handle, "role": "editor"}),
        ]
        for path, form, _tool, _args in steps:
            response = browser.post(path, form)
            assert response.status_code == 303, error_message(response)

        call_tools(mcp_episode, owner.id, [(tool, args) for _path, _form, tool, args in steps])
        ui_changes, mcp_changes = db_changes(ui_episode), db_changes(mcp_episode)
        assert set(ui_changes) >= {"sheets_cell", "sheets_share", "sheets_workbook"}
        assert ui_changes == mcp_changes
    finally:
        store.delete(ui_episode.id)
        store.delete(mcp_episode.id)
