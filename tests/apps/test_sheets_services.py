"""Sheets rules through the service layer on a tiny episode: writing inputs recalculates what
depends on them; structural edits move cells and references; sorting, copy/paste, fill down, find
and replace, named ranges, filter views, summary tables, CSV/XLSX round trips; sharing and access.
Every refusal leaves the database as it was."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services
from officegym.apps.sheets.models import Revision
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.worlds import content_hash


def people(episode) -> tuple[int, int, int]:
    """(owner, another person, a third person) ids."""
    with episode.session() as s:
        ids = list(s.scalars(select(Person.id).order_by(Person.id)))
        owner = s.scalar(select(Person.id).where(Person.role == "owner"))
    others = [i for i in ids if i != owner]
    return owner, others[0], others[1]


def act(episode, who: int, fn, *args, **kwargs):
    """Call a service as `who` in its own committed transaction."""
    with episode.session() as s:
        return fn(s, s.get(Person, who), *args, **kwargs)


def refused(episode, error, who: int, fn, *args, **kwargs) -> str:
    """The service refuses with `error` and the database is unchanged; returns the message."""
    before = content_hash(episode.engine)
    with pytest.raises(error) as raised:
        act(episode, who, fn, *args, **kwargs)
    assert content_hash(episode.engine) == before
    return raised.value.message


def values(episode, who: int, workbook: int, ref: str) -> list[list]:
    """The values of a range, errors as their codes."""
    out = act(episode, who, services.read_range, workbook, ref)
    return [[getattr(c.value, "code", c.value) for c in row] for row in out.rows]


@pytest.fixture
def book(episode):
    """(episode, owner id, workbook id) with a small sales table on sheet Data and a Summary sheet."""
    owner, _, _ = people(episode)
    workbook = act(episode, owner, services.create_workbook, "Test Book", ["Data", "Summary"]).id
    act(episode, owner, services.write_range, workbook, "Data!A1", [
        ["Region", "Rep", "Amount"], ["North", "Ann", 100], ["South", "Bob", 250], ["North", "Cid", 50],
        ["East", "Dee", 75]])
    act(episode, owner, services.write_cells, workbook, [
        {"cell": "Data!C6", "value": "=SUM(C2:C5)"}, {"cell": "Summary!A1", "value": "=Data!C6*2"},
        {"cell": "Summary!A2", "value": '=SUMIF(Data!A2:A5,"North",Data!C2:C5)'}])
    return episode, owner, workbook


def test_writing_an_input_recalculates_its_dependents_across_sheets(book):
    episode, owner, wb = book
    assert values(episode, owner, wb, "Summary!A1:A2") == [[950.0], [150.0]]
    act(episode, owner, services.write_cells, wb, [{"cell": "Data!C2", "value": "200"}])
    assert values(episode, owner, wb, "Data!C6") == [[575.0]]
    assert values(episode, owner, wb, "Summary!A1:A2") == [[1150.0], [250.0]]
    read = act(episode, owner, services.read_range, wb, "Data!C6")
    assert read.rows[0][0].raw == "=SUM(C2:C5)" and read.rows[0][0].display == "575"
    with episode.session() as s:
        last = s.scalars(select(Revision).order_by(Revision.id.desc())).first()
        assert (last.cell, last.old_raw, last.new_raw) == ("C2", "100", "200")


def test_inserting_and_deleting_rows_moves_cells_and_references(book):
    episode, owner, wb = book
    act(episode, owner, services.insert_rows, wb, "Data", 3, 2)
    assert values(episode, owner, wb, "Data!A3:A5") == [[None], [None], ["South"]]
    total = act(episode, owner, services.read_range, wb, "Data!C8").rows[0][0]
    assert total.raw == "=SUM(C2:C7)" and total.value == 475.0
    assert act(episode, owner, services.read_range, wb, "Summary!A1").rows[0][0].raw == "=Data!C8*2"
    act(episode, owner, services.delete_rows, wb, "Data", 8)
    summary = act(episode, owner, services.read_range, wb, "Summary!A1").rows[0][0]
    assert summary.raw == "=#REF!*2" and summary.value.code == "#REF!"


def test_columns_insert_and_delete(book):
    episode, owner, wb = book
    act(episode, owner, services.insert_columns, wb, "Data", "B")
    assert act(episode, owner, services.read_range, wb, "Data!D6").rows[0][0].raw == "=SUM(D2:D5)"
    act(episode, owner, services.delete_columns, wb, "Data", "D")
    assert values(episode, owner, wb, "Summary!A2") == [["#REF!"]]


def test_sort_by_several_columns_keeps_row_formulas_with_their_rows(book):
    episode, owner, wb = book
    act(episode, owner, services.write_cells, wb, [{"cell": f"Data!D{r}", "value": f"=C{r}*2"} for r in range(2, 6)])
    act(episode, owner, services.sort_range, wb, "Data!A1:D5", [{"column": "A"}, {"column": "C", "descending": True}],
        has_header=True)
    assert values(episode, owner, wb, "Data!A1:D5") == [
        ["Region", "Rep", "Amount", None], ["East", "Dee", 75.0, 150.0], ["North", "Ann", 100.0, 200.0],
        ["North", "Cid", 50.0, 100.0], ["South", "Bob", 250.0, 500.0]]
    assert act(episode, owner, services.read_range, wb, "Data!D2").rows[0][0].raw == "=C2*2"


def test_copy_paste_and_fill_down_adjust_relative_references(book):
    episode, owner, wb = book
    act(episode, owner, services.write_cells, wb, [{"cell": "Data!D2", "value": "=C2/$C$6"}])
    act(episode, owner, services.fill_down, wb, "Data!D2:D5")
    assert act(episode, owner, services.read_range, wb, "Data!D5").rows[0][0].raw == "=C5/$C$6"
    assert sum(v[0] for v in values(episode, owner, wb, "Data!D2:D5")) == pytest.approx(1.0)
    act(episode, owner, services.copy_paste, wb, "Data!C6", "Summary!D10")
    assert act(episode, owner, services.read_range, wb, "Summary!D10").rows[0][0].raw == "=SUM(D6:D9)"
    act(episode, owner, services.copy_paste, wb, "Data!A1:C3", "Summary!E1", values_only=True)
    assert values(episode, owner, wb, "Summary!E1:G3") == [["Region", "Rep", "Amount"], ["North", "Ann", 100.0],
                                                           ["South", "Bob", 250.0]]
    act(episode, owner, services.copy_paste, wb, "Data!C6", "Data!C2")
    assert act(episode, owner, services.read_range, wb, "Data!C2").rows[0][0].raw == "=SUM(#REF!)"


def test_find_replace_names_filters_and_summary(book):
    episode, owner, wb = book
    assert act(episode, owner, services.find_replace, wb, "north", "N. Region", sheet="Data") == 2
    assert values(episode, owner, wb, "Summary!A2") == [[0.0]]
    act(episode, owner, services.define_named_range, wb, "Amounts", "Data!C2:C5")
    act(episode, owner, services.write_cells, wb, [{"cell": "Summary!B1", "value": "=MAX(Amounts)"}])
    assert values(episode, owner, wb, "Summary!B1") == [[250.0]]
    act(episode, owner, services.create_filter_view, wb, "Big", "Data!A1:C5", [{"column": "C", "op": ">", "value": "60"}],
        sort_column="C", sort_descending=True)
    assert act(episode, owner, services.apply_filter_view, wb, "Data", "Big") == [1, 3, 2, 5]
    table = act(episode, owner, services.create_summary_table, wb, "Data!A1:C5", "A", "C", "sum", "Pivot!A1")
    assert table == "Pivot!A1:B5"
    assert values(episode, owner, wb, "Pivot!A1:B5") == [["Region", "SUM of Amount"], ["East", 75.0],
                                                         ["N. Region", 150.0], ["South", 250.0], ["Total", 475.0]]
    act(episode, owner, services.write_cells, wb, [{"cell": "Data!C3", "value": "1000"}])
    assert values(episode, owner, wb, "Pivot!B4:B5") == [[1000.0], [1225.0]]


def test_sheets_rename_and_delete_carry_references(book):
    episode, owner, wb = book
    act(episode, owner, services.rename_sheet, wb, "Data", "Sales 2026")
    assert act(episode, owner, services.read_range, wb, "Summary!A1").rows[0][0].raw == "='Sales 2026'!C6*2"
    assert values(episode, owner, wb, "Summary!A1") == [[950.0]]
    act(episode, owner, services.write_cells, wb, [{"cell": "Summary!A3", "value": "=Later!A1"}])
    assert values(episode, owner, wb, "Summary!A3") == [["#REF!"]]
    act(episode, owner, services.create_sheet, wb, "Later")
    assert values(episode, owner, wb, "Summary!A3") == [[0.0]]
    act(episode, owner, services.delete_sheet, wb, "Sales 2026")
    assert values(episode, owner, wb, "Summary!A1") == [["#REF!"]]
    assert [s.name for s in act(episode, owner, services.list_sheets, wb)] == ["Summary", "Later"]


def test_csv_and_xlsx_round_trip(book):
    episode, owner, wb = book
    csv_text = act(episode, owner, services.export_csv, wb, "Data")
    assert csv_text.splitlines()[:2] == ["Region,Rep,Amount", "North,Ann,100"] and "475" in csv_text
    copy = act(episode, owner, services.create_workbook, "Copy").id
    act(episode, owner, services.import_csv, copy, "Imported", "a,b\n1,=A2*3\n")
    assert values(episode, owner, copy, "Imported!A2:B2") == [[1.0, 3.0]]
    data = act(episode, owner, services.export_xlsx_base64, wb)
    assert act(episode, owner, services.import_xlsx, copy, data) == ["Data", "Summary"]
    assert values(episode, owner, copy, "Summary!A1:A2") == [[950.0], [150.0]]
    assert act(episode, owner, services.read_range, copy, "Data!C6").rows[0][0].raw == "=SUM(C2:C5)"


def test_sharing_and_access(book):
    episode, owner, wb = book
    _, viewer, stranger = people(episode)
    refused(episode, NotFound, stranger, services.read_range, wb, "Data!A1")
    act(episode, owner, services.share_workbook, wb, viewer, "viewer")
    assert values(episode, viewer, wb, "Data!A1") == [["Region"]]
    message = refused(episode, Forbidden, viewer, services.write_cells, wb, [{"cell": "A1", "value": "x"}])
    assert "only view" in message
    refused(episode, Forbidden, viewer, services.share_workbook, wb, stranger, "editor")
    act(episode, owner, services.share_workbook, wb, viewer, "editor")
    act(episode, viewer, services.write_cells, wb, [{"cell": "Data!C5", "value": "25"}])
    refused(episode, Forbidden, viewer, services.delete_workbook, wb)
    before_unshare = [w.id for w in act(episode, viewer, services.list_workbooks, limit=100).items]
    assert wb in before_unshare
    assert wb not in [w.id for w in act(episode, stranger, services.list_workbooks, limit=100).items]
    act(episode, viewer, services.unshare_workbook, wb, viewer)
    refused(episode, NotFound, viewer, services.get_workbook, wb)
    after = [w.id for w in act(episode, viewer, services.list_workbooks, limit=100).items]
    assert sorted(after + [wb]) == sorted(before_unshare)


BAD = [
    (Invalid, services.write_cells, ([{"cell": "Data!A1", "value": "=SUM(A1"}],), "does not parse"),
    (Invalid, services.write_cells, ([{"cell": "ZZZZ1", "value": "1"}],), "not valid"),
    (NotFound, services.write_cells, ([{"cell": "Nope!A1", "value": "1"}],), "No sheet 'Nope'"),
    (Invalid, services.write_cells, ([{"cell": "A1:B2", "value": "1"}],), "is a range"),
    (Invalid, services.write_cells, ([{"cell": "A1", "value": {"x": 1}}],), "a cell takes text"),
    (Invalid, services.write_cells, ([],), "list of"),
    (Invalid, services.write_cells, ([{"cell": "A1", "value": "1"}, {"cell": "a1", "value": "2"}],), "twice"),
    (Invalid, services.read_range, ("A1:ZZ100000",), "read at most"),
    (Invalid, services.write_range, ("A1", "not rows"), "list of lists"),
    (Invalid, services.insert_rows, ("Data", 0), "Row"),
    (Invalid, services.delete_columns, ("Data", "1A"), "column letter"),
    (Invalid, services.sort_range, ("Data!A1:C5", [{"column": "F"}]), "outside the range"),
    (Invalid, services.fill_down, ("Data!A1",), "at least two rows"),
    (Invalid, services.find_replace, ("", "x"), "text to find"),
    (Invalid, services.define_named_range, ("A1", "Data!A1:A3"), "reads as a cell"),
    (Conflict, services.create_sheet, ("data",), "already has a sheet"),
    (Invalid, services.create_sheet, ("a/b",), "may not contain"),
    (Conflict, services.create_summary_table, ("Data!A1:C5", "A", "C", "sum", "Data!A1"), "empty"),
    (Invalid, services.create_summary_table, ("Data!A1:C5", "A", "C", "median", "Pivot!A1"), "Aggregate"),
    (Invalid, services.set_number_format, ("A1", "###weird"), ""),
    (Invalid, services.import_csv, ("New", ""), "CSV text"),
    (Invalid, services.import_xlsx, ("bm90IGEgemlw",), "XLSX"),
    (Invalid, services.create_filter_view, ("V", "Data!A1:C5", [{"column": "Z", "op": "=", "value": "1"}]), "not a column"),
]


@pytest.mark.parametrize("error,fn,args,message", BAD, ids=[f"{b[1].__name__}-{k}" for k, b in enumerate(BAD)])
def test_bad_input_is_refused_and_changes_nothing(book, error, fn, args, message):
    episode, owner, wb = book
    assert message in refused(episode, error, owner, fn, wb, *args)


def test_deleting_the_last_sheet_and_unknown_workbooks_are_refused(book):
    episode, owner, wb = book
    act(episode, owner, services.delete_sheet, wb, "Summary")
    assert "at least one sheet" in refused(episode, Conflict, owner, services.delete_sheet, wb, "Data")
    assert "No workbook" in refused(episode, NotFound, owner, services.get_workbook, 99999)
    act(episode, owner, services.delete_workbook, wb)
    refused(episode, NotFound, owner, services.get_workbook, wb)


def test_a_rolled_back_write_leaves_no_trace_in_later_calculations(book):
    """The engine keeps books between calls; a write whose transaction is rolled back must not leak."""
    episode, owner, wb = book
    with episode.session() as s:
        services.write_cells(s, s.get(Person, owner), wb, [{"cell": "Data!C2", "value": "5000"}])
        s.rollback()
    act(episode, owner, services.write_cells, wb, [{"cell": "Data!D1", "value": "=C2+C6"}])
    assert values(episode, owner, wb, "Data!D1") == [[575.0]]
    assert values(episode, owner, wb, "Summary!A1") == [[950.0]]
