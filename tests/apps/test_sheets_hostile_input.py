"""Sheets against hostile input: exports that cannot smuggle a formula into another spreadsheet
program, XLSX round trips that keep text as text, and formulas nested past any sensible depth
refused with a message (never a crash), through the services, the MCP tools and the UI."""

from __future__ import annotations

import base64
import csv
import io
import json

import anyio
import pytest
from openpyxl import load_workbook
from test_sheets_services import act, people, refused, values

from officegym.apps.sheets import services
from officegym.apps.sheets.formula.parser import MAX_DEPTH, MAX_NESTING, FormulaError, parse
from officegym.errors import Invalid

@pytest.fixture
def book(episode):
    """(episode, owner id, workbook id): a workbook with sheets Data and Summary, Summary!A1 a formula."""
    owner, _, _ = people(episode)
    workbook = act(episode, owner, services.create_workbook, "Hostile", ["Data", "Summary"]).id
    act(episode, owner, services.write_cells, workbook, [{"cell": "Data!C2", "value": "475"},
                                                         {"cell": "Summary!A1", "value": "=Data!C2*2"}])
    return episode, owner, workbook


HOSTILE = ["=HYPERLINK(\"http://evil.example\",\"Click\")", "+1+2", "-2+3", "@SUM(A1)", "\tTab", "\rReturn"]


def typed_as_text(texts: list[str]) -> list[list]:
    return [["'" + text] for text in texts]


def test_csv_export_marks_text_that_would_open_as_a_formula_and_leaves_numbers_alone(book):
    episode, owner, wb = book
    act(episode, owner, services.write_range, wb, "Summary!B1", typed_as_text(HOSTILE) + [[-5], ["plain"]])
    exported = act(episode, owner, services.export_csv, wb, "Summary")
    column = [row[1] for row in csv.reader(io.StringIO(exported, newline=""))]
    assert column == ["'" + text for text in HOSTILE] + ["-5", "plain"]
    act(episode, owner, services.import_csv, wb, "Again", exported)
    assert values(episode, owner, wb, f"Again!B1:B{len(HOSTILE) + 2}") == [[t] for t in HOSTILE] + [[-5.0], ["plain"]]


def test_xlsx_export_keeps_text_as_text_and_formulas_as_formulas_through_a_round_trip(book):
    episode, owner, wb = book
    texts = [HOSTILE[0], "'quoted", "007", "2026-03-01", "TRUE"]
    act(episode, owner, services.write_range, wb, "Summary!C1", typed_as_text(texts))
    data = act(episode, owner, services.export_xlsx_base64, wb)
    sheet = load_workbook(io.BytesIO(base64.b64decode(data)))["Summary"]
    assert [(sheet.cell(r, 3).value, sheet.cell(r, 3).data_type) for r in range(1, 6)] == [(t, "s") for t in texts]
    assert (sheet["A1"].value, sheet["A1"].data_type) == ("=Data!C2*2", "f")
    copy = act(episode, owner, services.create_workbook, "Copy").id
    act(episode, owner, services.import_xlsx, copy, data)
    assert values(episode, owner, copy, "Summary!C1:C5") == [[t] for t in texts]
    assert values(episode, owner, copy, "Summary!A1") == [[950.0]]


@pytest.mark.parametrize("body, message", [
    ("(" * (MAX_NESTING + 1) + "1" + ")" * (MAX_NESTING + 1), f"more than {MAX_NESTING} levels inside one another"),
    ("ABS(" * 200 + "1" + ")" * 200, f"more than {MAX_NESTING} levels inside one another"),
    ("-" * 1000 + "1", f"more than {MAX_NESTING} levels inside one another"),
    ("+".join(["1"] * (MAX_DEPTH + 1)), f"the limit is {MAX_DEPTH}"),
    ("1" + "%" * 1999, f"the limit is {MAX_DEPTH}"),
], ids=["parentheses", "calls", "signs", "chain", "percents"])
def test_a_formula_nested_too_deep_is_refused_with_a_message(book, body, message):
    with pytest.raises(FormulaError, match=message):
        parse(body)
    episode, owner, wb = book
    assert message in refused(episode, Invalid, owner, services.write_cells, wb, [{"cell": "A1", "value": "=" + body}])


def test_the_deepest_formulas_allowed_still_compute(book):
    episode, owner, wb = book
    nested = "(" * MAX_NESTING + "1" + ")" * MAX_NESTING
    chain = "+".join(["1"] * MAX_DEPTH)
    act(episode, owner, services.write_cells, wb, [{"cell": "Summary!D1", "value": "=" + nested},
                                                   {"cell": "Summary!D2", "value": "=" + chain}])
    assert values(episode, owner, wb, "Summary!D1:D2") == [[1.0], [float(MAX_DEPTH)]]


def test_a_deep_formula_through_mcp_and_the_ui_gets_the_message_not_a_crash(episode, web_app):
    owner, _, _ = people(episode)
    body = "=" + "(" * 300 + "1" + ")" * 300

    async def over_mcp():
        from mcp.client import Client

        async with Client(episode.mcp_server()) as client:
            made = await client.call_tool("sheets_create_workbook", {"title": "Deep"})
            workbook = json.loads(made.content[0].text)["id"]
            return workbook, await client.call_tool("sheets_write_cells", {
                "workbook": workbook, "cells": [{"cell": "A1", "value": body}]})

    workbook, result = anyio.run(over_mcp)
    assert result.is_error and "levels inside one another" in result.content[0].text
    from ui_helpers import Browser

    browser = Browser(web_app.test_client(), episode)
    page = browser.post(f"/sheets/w/{workbook}/cells", {"sheet": "Sheet1", "cell": "A1", "value": body})
    assert page.status_code == 400 and b"levels inside one another" in page.data
