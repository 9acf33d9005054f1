"""The formula engine end to end, without a database: formulas typed into a Book give the results a
spreadsheet gives; recalculation reaches exactly the dependents of a change; circular references
are found; references shift on structural edits as in Excel and Google Sheets."""

from __future__ import annotations

from datetime import date

import pytest

from officegym.apps.sheets.formula.a1 import BadReference, col_index, col_name, parse_area
from officegym.apps.sheets.formula.graph import Book
from officegym.apps.sheets.formula.parser import FormulaError, parse, read_input
from officegym.apps.sheets.formula.shift import Edit, rewrite
from officegym.apps.sheets.formula.values import CellError

TODAY = date(2026, 3, 16)


def make_book(cells: dict[str, str], sheets=("Data", "Other")) -> Book:
    """A Book with two sheets and the inputs given as {"Data!A1": "5"} (no prefix: Data)."""
    book = Book({k + 1: name for k, name in enumerate(sheets)}, TODAY, {})
    for ref, raw in cells.items():
        put(book, ref, raw)
    book.recalculate(book.formula_keys())
    return book


def key_of(book: Book, ref: str):
    """The (sheet id, row, col) of Data!B3-style text."""
    area = parse_area(ref)
    return (book.sheet_ids[(area.sheet or book.sheet_names[1]).lower()], area.top, area.left)


def put(book: Book, ref: str, raw: str):
    """Type an input into a cell; returns its key."""
    meaning = read_input(raw)
    key = key_of(book, ref)
    book.put(key, raw, meaning.formula, None if meaning.formula is not None else meaning.value)
    return key


def value(book: Book, ref: str):
    """A cell's value, errors as their code."""
    found = book.value(key_of(book, ref))
    return found.code if isinstance(found, CellError) else found


SHEET = {"A1": "10", "A2": "20", "A3": "30", "A4": "abc", "A5": "", "B1": "2", "B2": "0", "B3": "TRUE",
         "C1": "North", "C2": "South", "C3": "North", "D1": "2026-03-01", "D2": "12%", "D3": "$1,200.50",
         "Other!A1": "7", "Other!B2": "=Data!A1*2"}
KNOWN = [
    ("=1+2*3", 7.0), ("=(1+2)*3", 9.0), ("=2^3^2", 64.0), ("=-2^2", 4.0), ("=10/4", 2.5), ("=50%", 0.5),
    ("=A1+A2", 30.0), ("=A1/B2", "#DIV/0!"), ("=A4+1", "#VALUE!"), ("=A5+1", 1.0), ('="a"&"b"&1', "ab1"),
    ("=A1&B3", "10TRUE"), ("=A1>A2", False), ('="abc"="ABC"', True), ('=1<"a"', True), ("=TRUE=1", False),
    ("=SUM(A1:A5)", 60.0), ("=SUM(A1:A3,5)", 65.0), ("=AVERAGE(A1:A5)", 20.0), ("=COUNT(A1:A5)", 3.0),
    ("=COUNTA(A1:A5)", 4.0), ("=MIN(A1:A3)", 10.0), ("=MAX(A1:A3)", 30.0),
    ('=COUNTIF(C1:C3,"North")', 2.0), ('=SUMIF(C1:C3,"North",A1:A3)', 40.0), ('=SUMIFS(A1:A3,C1:C3,"North",A1:A3,">15")', 30.0),
    ('=COUNTIFS(C1:C3,"North",A1:A3,">5")', 2.0), ('=AVERAGEIF(C1:C3,"South",A1:A3)', 20.0),
    ("=ROUND(2.345,2)", 2.35), ("=ROUND(-2.5,0)", -3.0), ("=ROUNDUP(2.001,1)", 2.1), ("=ROUNDDOWN(-2.99,0)", -2.0),
    ("=ROUND(1234,-2)", 1200.0), ("=ABS(-4)", 4.0),
    ('=IF(A1>5,"big","small")', "big"), ("=IF(FALSE,1)", False), ('=IFS(A1>50,"a",A1>5,"b")', "b"),
    ("=IFS(A1>50,1)", "#N/A"), ("=AND(TRUE,A1>5)", True), ("=OR(FALSE,A1>50)", False), ("=NOT(B3)", False),
    ("=IFERROR(A1/B2,-1)", -1.0), ("=IFERROR(A1,-1)", 10.0),
    ('=VLOOKUP("South",C1:D3,1,FALSE)', "South"), ('=VLOOKUP("East",C1:D3,2,FALSE)', "#N/A"),
    ("=VLOOKUP(25,A1:B3,2,TRUE)", 0.0), ("=VLOOKUP(10,A1:B3,3,FALSE)", "#REF!"),
    ("=HLOOKUP(2,A1:C2,2,FALSE)", 0.0), ('=XLOOKUP("South",C1:C3,A1:A3)', 20.0),
    ('=XLOOKUP("East",C1:C3,A1:A3,"none")', "none"), ("=INDEX(A1:B3,2,1)", 20.0), ("=INDEX(A1:B3,9,1)", "#REF!"),
    ('=MATCH("South",C1:C3,0)', 2.0), ("=MATCH(25,A1:A3,1)", 2.0),
    ("=TODAY()", 46097.0), ("=DATE(2026,3,16)", 46097.0), ("=DATE(2026,14,1)", 46419.0), ("=YEAR(D1)", 2026.0),
    ("=MONTH(D1)", 3.0), ("=EOMONTH(D1,0)", 46112.0), ("=EOMONTH(D1,-1)", 46081.0),
    ('=TEXT(D3,"$#,##0.00")', "$1,200.50"), ('=TEXT(D2,"0%")', "12%"), ('=TEXT(D1,"yyyy-mm-dd")', "2026-03-01"),
    ('=CONCAT(C1,"-",A1)', "North-10"), ('=LEFT("Spreadsheet",6)', "Spread"), ('=RIGHT("Spreadsheet",5)', "sheet"),
    ('=MID("Spreadsheet",7,3)', "she"), ('=LEN("abc ")', 4.0), ('=UPPER("abc")', "ABC"), ('=LOWER("AbC")', "abc"),
    ('=TRIM("  a   b ")', "a b"), ('=SUBSTITUTE("a-b-c","-","+")', "a+b+c"), ('=SUBSTITUTE("a-b-c","-","+",2)', "a-b+c"),
    ("=Other!A1+1", 8.0), ("=Other!B2", 20.0), ("=Missing!A1", "#REF!"), ("=NOSUCH(1)", "#NAME?"),
    ("=UnknownName+1", "#NAME?"), ("=#N/A", "#N/A"), ("=SUM(A:A)", 60.0), ("=A1:A3", "#VALUE!"),
    ("=B1^0.5*B1^0.5", pytest.approx(2.0)), ("=(-8)^(1/3)", "#NUM!"),
]


@pytest.mark.parametrize("formula,expected", KNOWN, ids=[k[0] for k in KNOWN])
def test_formulas_give_what_a_spreadsheet_gives(formula, expected):
    book = make_book({**SHEET, "E1": formula})
    assert value(book, "E1") == expected


def test_typed_inputs_read_as_a_spreadsheet_reads_them():
    assert read_input("1,234.5").value == 1234.5 and read_input("12%").value == pytest.approx(0.12)
    assert read_input("12%").implied_format == "0.00%" and read_input("$5").implied_format == "$#,##0.00"
    assert read_input("2026-03-16").value == 46097.0 and read_input("3/16/2026").value == 46097.0
    assert read_input("TRUE").value is True and read_input("'123").value == "123"
    assert read_input("hello").value == "hello" and read_input("").value is None
    assert read_input("=A1").formula == ("ref", parse_area("A1"))


@pytest.mark.parametrize("body,message", [
    ("SUM(A1", "expected ',' or ')'"), ("1+", "the end of the formula"), ("A1 A2", "expected an operator"),
    ('"open', "Unclosed text"), ("1 $ 2", "Unexpected character"), (")", "Unexpected ')'"),
    ("A0", "outside the sheet"), ("", "The formula is empty"),
])
def test_malformed_formulas_are_refused_with_the_place(body, message):
    with pytest.raises(FormulaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(body)


def test_a1_notation_round_trips():
    assert col_index("A") == 0 and col_index("Z") == 25 and col_index("AA") == 26 and col_name(701) == "ZZ"
    area = parse_area("'Q1 plan'!$B$2:C10")
    assert (area.sheet, area.top, area.left, area.bottom, area.right) == ("Q1 plan", 1, 1, 9, 2)
    assert area.text() == "'Q1 plan'!$B$2:C10" and parse_area("C10:B2").text() == "B2:C10"
    assert parse_area("A:C").whole == "cols" and parse_area("2:4").text() == "2:4"
    for bad in ("A1:", "1A", "AAAA1", "A100001", "Sheet!"):
        with pytest.raises(BadReference):
            parse_area(bad)


def test_a_change_recalculates_only_its_dependents_and_in_order():
    cells = {f"A{r}": str(r) for r in range(1, 11)}
    cells.update({f"B{r}": f"=A{r}*2" for r in range(1, 11)})
    cells.update({"C1": "=SUM(B1:B10)", "C2": "=C1+B3", "C3": "=Other!A1+1", "Other!A1": "5"})
    book = make_book(cells)
    assert value(book, "C1") == 110.0 and value(book, "C2") == 116.0
    changed = book.recalculate([put(book, "A3", "100")])
    assert {book.label(k) for k in changed} == {"Data!B3", "Data!C1", "Data!C2"}
    assert value(book, "B3") == 200.0 and value(book, "C1") == 304.0 and value(book, "C2") == 504.0
    assert book.recalculate([put(book, "A3", "100")]) == set()


def test_a_long_chain_recalculates_without_recursion_limits():
    cells = {"A1": "1", **{f"A{r}": f"=A{r - 1}+1" for r in range(2, 3001)}}
    book = make_book(cells)
    assert value(book, "A3000") == 3000.0
    book.recalculate([put(book, "A1", "10")])
    assert value(book, "A3000") == 3009.0


def test_circular_references_are_marked_and_downstream_cells_see_the_error():
    book = make_book({"A1": "=B1+1", "B1": "=A1+1", "C1": "=A1*2", "D1": "=D1", "E1": "5"})
    assert value(book, "A1") == value(book, "B1") == value(book, "D1") == "#REF!"
    assert "Circular reference among Data!A1, Data!B1" in book.value(key_of(book, "A1")).detail
    assert value(book, "C1") == "#REF!" and value(book, "E1") == 5.0
    book.recalculate([put(book, "B1", "3")])
    assert value(book, "A1") == 4.0 and value(book, "C1") == 8.0


SHIFTS = [
    ("A1+A5+$A$5", Edit("insert_rows", "Data", at=2, count=2), "A1+A7+$A$7"),
    ("SUM(A1:A10)", Edit("insert_rows", "Data", at=4, count=1), "SUM(A1:A11)"),
    ("SUM(A1:A10)", Edit("delete_rows", "Data", at=0, count=3), "SUM(A1:A7)"),
    ("A4+B9", Edit("delete_rows", "Data", at=3, count=1), "#REF!+B8"),
    ("SUM(A3:A4)", Edit("delete_rows", "Data", at=2, count=2), "SUM(#REF!)"),
    ("Other!A5+A5", Edit("insert_rows", "Other", at=0, count=1), "Other!A6+A5"),
    ("SUM(A:A)+C1", Edit("insert_rows", "Data", at=0, count=1), "SUM(A:A)+C2"),
    ("C1+$D$1+E1", Edit("delete_cols", "Data", at=3, count=1), "C1+#REF!+D1"),
    ("SUM(B2:E2)", Edit("insert_cols", "Data", at=1, count=2), "SUM(D2:G2)"),
    ("Data!A1+'Other'!B2", Edit("rename_sheet", "Other", new_name="Q1 plan"), "Data!A1+'Q1 plan'!B2"),
    ("Other!B2*2", Edit("delete_sheet", "Other"), "#REF!*2"),
    ("A1+$A$1+A$1+$A1", Edit("move", rows=2, cols=1), "B3+$A$1+B$1+$A3"),
    ("A1", Edit("move", rows=-1), "#REF!"),
    ('IF(A1>0,"A1",B2)', Edit("move", rows=1), 'IF(A2>0,"A1",B3)'),
]


@pytest.mark.parametrize("body,edit,expected", SHIFTS, ids=[f"{s[1].kind}:{s[0]}" for s in SHIFTS])
def test_references_follow_structural_edits(body, edit, expected):
    assert rewrite(body, "Data", edit) == expected


def test_volatile_today_recalculates_on_every_change():
    book = make_book({"A1": "=TODAY()", "B1": "1"})
    book.ctx = type(book.ctx)(date(2026, 3, 17))
    changed = book.recalculate([put(book, "B1", "2")])
    assert key_of(book, "A1") in changed and value(book, "A1") == 46098.0


def test_errors_carry_a_reason():
    book = make_book({"A1": "=1/0", "A2": "=NOPE()", "A3": "=Missing!B2"})
    assert "zero" in book.value(key_of(book, "A1")).detail.lower()
    assert "NOPE" in book.value(key_of(book, "A2")).detail
    assert "Missing" in book.value(key_of(book, "A3")).detail


def test_a_one_cell_reference_in_a_function_is_a_range_and_conditional_extremes_work():
    book = make_book({**SHEET, "E1": "=SUM(A4)", "E2": "=SUM(A1)", "E3": '=MINIFS(A1:A3,C1:C3,"North")',
                      "E4": '=MAXIFS(A1:A3,C1:C3,"North")', "E5": '=MAXIFS(A1:A3,C1:C3,"West")', "E6": "=ISBLANK(A5)"})
    assert [value(book, f"E{r}") for r in range(1, 7)] == [0.0, 10.0, 10.0, 30.0, 0.0, True]
