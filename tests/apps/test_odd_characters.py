"""Odd characters and oversized numbers that the fuzz suites found crashing a surface, kept as
cases of their own: digits that are not ASCII, control characters inside an id, offsets past what
a database column holds, and cell text that an XLSX file cannot carry."""

from __future__ import annotations

import base64
import io

import pytest
from openpyxl import load_workbook
from test_sheets_services import act, people, refused
from ui_helpers import error_message

from officegym.apps.chat import services as chat
from officegym.apps.sheets import services
from officegym.errors import Invalid, NotFound
from officegym.pagination import MAX_OFFSET


@pytest.mark.parametrize("ref", ["0\x1f", "\u00b2", "1\u00b2", "\u0661"])
def test_a_workbook_named_by_odd_digits_is_not_found_rather_than_a_crash(episode, ref):
    owner, _, _ = people(episode)
    assert "no workbook" in refused(episode, NotFound, owner, services.export_csv, ref, "Sheet1").lower()


@pytest.mark.parametrize("column", ["\u00b2", "\u00c9", "\u0661"])
def test_a_column_given_in_odd_characters_is_refused_with_the_expected_form(episode, column):
    owner, _, _ = people(episode)
    wb = act(episode, owner, services.create_workbook, "Odd").id
    assert "column" in refused(episode, Invalid, owner, services.insert_columns, wb, "Sheet1", column, 1).lower()


def test_an_offset_beyond_64_bits_is_refused_by_the_service_and_the_page(episode, browser):
    owner, _, _ = people(episode)
    message = refused(episode, Invalid, owner, chat.list_channels, "", False, False, MAX_OFFSET + 1, 10)
    assert str(MAX_OFFSET) in message
    response = browser.get("/chat/channels", query_string={"offset": str(2 ** 63)})
    assert response.status_code == 400 and "from 0 to" in error_message(response)


def test_xlsx_export_drops_control_characters_that_the_format_cannot_hold(episode):
    owner, _, _ = people(episode)
    wb = act(episode, owner, services.create_workbook, "Controls").id
    act(episode, owner, services.write_cells, wb, [{"cell": "A1", "value": "bell\x07 and\x1f unit"},
                                                    {"cell": "A2", "value": "=\"x\x01\"&\"y\""}])
    data = act(episode, owner, services.export_xlsx_base64, wb)
    sheet = load_workbook(io.BytesIO(base64.b64decode(data)))["Sheet1"]
    assert sheet["A1"].value == "bell and unit" and sheet["A2"].value == "=\"x\"&\"y\""
