"""Ranges a Book keeps between recalculations (formula/ranges.py): after any sequence of edits every
formula shows exactly what a fresh Book computes from the same inputs, reading every range afresh
and scanning it cell by cell; and the kept ranges stay within their memory budget."""

from __future__ import annotations

import random

import pytest
from test_sheets_engine import TODAY, key_of, put

from officegym.apps.sheets.formula.a1 import parse_area
from officegym.apps.sheets.formula.graph import Book
from officegym.apps.sheets.formula.ranges import RangeCache
from officegym.apps.sheets.formula.values import CellError

NAMES = {"Amounts": parse_area("Data!$B$2:$B$61"), "Regions": parse_area("Data!$A$2:$A$61")}
ROWS = 60  # data rows 2..61 under a header row
FORMULAS = [
    '=SUMIFS(Data!B:B,Data!A:A,"North")', "=SUMIFS(Data!E:E,Data!A:A,H1)",
    "=SUMIFS(Amounts,Regions,H1,Data!$C$2:$C$61,H2)", "=COUNTIFS(Data!A:A,H1)",
    '=COUNTIFS(Data!A:A,"north",Data!B:B,">10")', "=COUNTIFS(Data!C:C,H2,Data!D:D,TRUE)",
    '=COUNTIF(Data!A:A,"")', '=COUNTIF(Data!A:A,"=")', '=COUNTIF(Data!A:A,"<>")', "=COUNTIF(Data!C:C,5)",
    '=COUNTIF(Data!C:C,"5")', '=COUNTIF(Data!B:B,"<>abc")', "=COUNTIF(Data!D:D,TRUE)", '=COUNTIF(Data!A:A,"#N/A")',
    '=COUNTIF(Data!A:A,"N*")', '=COUNTIF(Data!F:F,"big")', "=COUNTIF(Data!B:B,H2)", '=COUNTIF(Regions,"")',
    '=SUMIF(Data!A:A,"South",Data!B:B)', "=SUMIF(Regions,H1,Data!B2:B5)", '=SUMIF(Data!B:B,">=100")',
    "=AVERAGEIF(Data!A:A,H1,Data!B:B)", '=AVERAGEIFS(Data!B:B,Data!A:A,"East",Data!C:C,"<>5")',
    "=MINIFS(Data!B:B,Data!A:A,H1)", "=MAXIFS(Data!E:E,Data!C:C,H2)", '=SUMIFS(Data!B2:B61,Data!A2:A60,"North")',
    "=SUM(Data!B:B)", "=SUM(Amounts)+SUM(Data!F:F)", "=AVERAGE(Data!B2:B61)", "=MAX(Data!E:E)", "=MIN(Amounts)",
    "=COUNT(Data!B:B)", "=COUNTA(Regions)", "=MEDIAN(Data!B:B)", "=SUMPRODUCT(Data!B2:B61,Data!E2:E61)",
    "=VLOOKUP(H1,Data!A:B,2,FALSE)", "=VLOOKUP(5,Data!C:E,3,FALSE)", "=VLOOKUP(H2,Data!C2:F61,4,FALSE)",
    '=INDEX(Data!B:B,MATCH("East",Data!A:A,0))', "=MATCH(MAX(Data!B:B),Data!B:B,0)", "=MATCH(H2,Data!C:C,0)",
    "=MATCH(H1,Regions,0)", '=XLOOKUP(H1,Data!A:A,Data!B:B,"none",0,-1)', '=XLOOKUP("w*",Data!A:A,Data!E:E,"none",2)',
    '=HLOOKUP("Amount",Data!A1:F61,3,FALSE)', '=IFERROR(VLOOKUP(TRUE,Data!D:E,2,FALSE),"none")',
    "=SUM(Data!G:G)", "=MAX(Data!G:G)-MIN(Data!G2:G61)", "=AVERAGE(Data!G:G)", "=SUMIFS(Data!G:G,Data!A:A,H1)",
    "=COUNTIF(Data!A:A,H9)", "=SUMIF(Regions,H9,Data!G2:G61)",  # H9 stays empty: blank or "" match
]
REGIONS = ["North", "north", "South", "East", "West", "west", "N1", "'5", '=""', "TRUE", "=NA()", "=1/0", ""]
AMOUNTS = ["0", "-0", "'12", "abc", "", "=1/0", "TRUE", "100", "250.5"]
CODES = ["1", "2", "3", "5", "'5", "five", "5.0", "=2+3", "", "=NA()"]
FLAGS = ["TRUE", "FALSE", "1", "", "=NA()"]
UNITS = ["0", "-0", "'7", "x", "", "0.1", "1e-9"]  # never an error, so the column's numbers stay kept
CRITERIA = ["North", "south", ">100", "<>North", "N*", "", "=", "5", "TRUE", "#N/A", "<=3", "west", "'5", "=1/0"]


def book_of(inputs: dict[str, str], ranges: RangeCache | None = None) -> Book:
    """A Book with a Data and a Calc sheet, the inputs typed in ({"Calc!A1": "=SUM(...)"}), recalculated."""
    book = Book({1: "Data", 2: "Calc"}, TODAY, NAMES, ranges)
    for ref, raw in inputs.items():
        put(book, ref, raw)
    book.recalculate(book.formula_keys())
    return book


def uncached() -> RangeCache:
    """A cache that keeps nothing: every range is read afresh and scanned cell by cell, as before ranges were kept."""
    return RangeCache(max_cells=0)


def normal(value, signed_zero: bool = True):
    """A value compared exactly: numbers to the bit, errors by code and detail."""
    if isinstance(value, CellError):
        return ("error", value.code, value.detail)
    if isinstance(value, float):
        return ("number", (value if signed_zero or value else 0.0).hex())
    return (type(value).__name__, value)


def snapshot(book: Book, signed_zero: bool = True) -> dict[str, tuple]:
    """Every formula's value by label."""
    return {book.label(key): normal(book.value(key), signed_zero) for key in sorted(book.formula_keys())}


def amount(rng: random.Random) -> str:
    """A Data!B input: mostly numbers (some fractional), sometimes text, blanks, errors or TRUE."""
    return rng.choice([str(rng.randint(-50, 500)), f"{rng.uniform(0, 300):.3f}", rng.choice(AMOUNTS)])


def units(rng: random.Random) -> str:
    """A Data!G input: mostly numbers, sometimes text or a blank, never an error."""
    return rng.choice([str(rng.randint(1, 40)), f"{rng.uniform(0, 1):.4f}", rng.choice(UNITS)])


def data_row(rng: random.Random, row: int) -> dict[str, str]:
    """One Data row: region, amount, code, flag, two formulas over the amount, and units."""
    return {f"Data!A{row}": rng.choice(REGIONS), f"Data!B{row}": amount(rng), f"Data!C{row}": rng.choice(CODES),
            f"Data!D{row}": rng.choice(FLAGS), f"Data!E{row}": f"=B{row}*2",
            f"Data!F{row}": f'=IF(B{row}>100,"big",B{row})', f"Data!G{row}": units(rng)}


def workbook(rng: random.Random) -> dict[str, str]:
    """The inputs of the workbook the edits start from."""
    inputs = {"Data!A1": "Region", "Data!B1": "Amount", "Data!C1": "Code", "Data!D1": "Flag", "Data!E1": "Double",
              "Data!F1": "Size", "Data!G1": "Units", "Calc!H1": "North", "Calc!H2": "5"}
    for row in range(2, ROWS + 2):
        inputs.update(data_row(rng, row))
    inputs.update({f"Calc!A{n}": formula for n, formula in enumerate(FORMULAS, start=1)})
    return inputs


def random_edit(rng: random.Random, last_row: int) -> dict[str, str]:
    """Inputs one write changes: a number, a text, a blank, a deletion, an error, a criterion cell that
    moves rows between groups, or a whole row appended below the sheet's last row."""
    row = rng.randint(2, last_row)
    kind = rng.choice(["amount", "amount", "units", "units", "region", "region", "code", "flag", "delete",
                       "criterion", "append"])
    if kind == "amount":
        return {f"Data!B{row}": amount(rng)}
    if kind == "units":
        return {f"Data!G{row}": units(rng)}
    if kind == "region":
        return {f"Data!A{row}": rng.choice(REGIONS)}
    if kind == "code":
        return {f"Data!C{row}": rng.choice(CODES)}
    if kind == "flag":
        return {f"Data!D{row}": rng.choice(FLAGS)}
    if kind == "delete":
        return {f"Data!{rng.choice('ABCDEFG')}{row}": ""}
    if kind == "criterion":
        return {f"Calc!H{rng.randint(1, 2)}": rng.choice(CRITERIA)}
    return data_row(rng, last_row + rng.randint(1, 3))


@pytest.mark.parametrize("make_cache", [RangeCache, lambda: RangeCache(budget=700, min_cells=2)],
                         ids=["default", "tiny-budget"])
def test_after_every_edit_formulas_equal_a_fresh_book(make_cache):
    rng = random.Random(20260316)
    inputs = workbook(rng)
    book, twin = book_of(inputs, make_cache()), book_of(inputs, uncached())
    assert snapshot(book) == snapshot(twin)
    last_row = ROWS + 1
    for step in range(150):
        edit = random_edit(rng, last_row)
        book.recalculate([put(book, ref, raw) for ref, raw in edit.items()])
        twin.recalculate([put(twin, ref, raw) for ref, raw in edit.items()])
        for ref, raw in edit.items():
            if raw:
                inputs[ref] = raw
            else:
                inputs.pop(ref, None)
        last_row = max([last_row] + [key_of(book, ref)[1] + 1 for ref in edit if ref.startswith("Data!")])
        # bit for bit what the same edits give without kept ranges...
        assert snapshot(book) == snapshot(twin), f"step {step}: {edit}"
        # ...and what a fresh book computes, but for one trait of the engine that kept ranges do not
        # touch: a formula recomputed from 0.0 to -0.0 keeps 0.0, as they compare equal (Book._set)
        fresh = book_of(inputs, uncached())
        assert snapshot(book, signed_zero=False) == snapshot(fresh, signed_zero=False), f"step {step}: {edit}"
    assert book.ranges.entries and book.ranges.cost <= book.ranges.budget


def test_the_kept_ranges_answer_through_their_indexes():
    """The fast paths are the ones exercised: criteria ranges hold an index or remembered matches,
    summed ranges their numbers, and edits patch the same kept grid rather than reading it again."""
    rng = random.Random(7)
    book = book_of(workbook(rng))
    kept = book.ranges.entries
    column_a = kept[(1, 0, 0, ROWS, 0)]
    assert column_a.index is not None and kept[(1, 0, 1, ROWS, 1)].kept_numbers is not None
    assert any(entry.matches for entry in kept.values())
    grid = column_a.grid
    book.recalculate([put(book, "Data!A3", "Zebra"), put(book, "Calc!H1", "zebra")])
    assert kept[(1, 0, 0, ROWS, 0)].grid is grid and grid.rows[2] == ["Zebra"]
    assert book.value(key_of(book, "Calc!A4")) == 1.0  # COUNTIFS(Data!A:A,H1) finds it, whatever the case


def test_a_whole_column_reads_rows_added_below_its_old_end():
    book = book_of({"Data!A1": "1", "Data!A2": "2", **{f"Data!B{r}": "x" for r in range(1, 21)},
                    "Calc!A1": "=SUM(Data!A:A)", "Calc!A2": '=COUNTIF(Data!B:B,"x")'}, RangeCache(min_cells=2))
    book.recalculate(book.formula_keys())  # read a second time: now kept, cut at row 20
    assert sorted(book.ranges.entries) == [(1, 0, 0, 19, 0), (1, 0, 1, 19, 1)]
    assert book.value((2, 0, 0)) == 3.0 and book.value((2, 1, 0)) == 20.0
    book.recalculate([put(book, "Data!A40", "10"), put(book, "Data!B40", "X")])
    assert book.value((2, 0, 0)) == 13.0 and book.value((2, 1, 0)) == 21.0
    assert not book.ranges.entries  # the ranges cut at row 20 are gone
    book.recalculate([put(book, "Data!A39", "5")])
    assert sorted(book.ranges.entries) == [(1, 0, 0, 39, 0)] and book.value((2, 0, 0)) == 18.0


def test_lookups_in_a_kept_row_or_table_find_what_a_scan_finds():
    heads = ["x", "North", "y", "North"] + ["z"] * 16
    row = {f"Data!{col}1": text for col, text in zip("ABCDEFGHIJKLMNOPQRST", heads)}
    table = {f"Data!{col}{r}": f"{col}{r % 3}" for col in "AB" for r in range(2, 30)}
    formulas = ['=VLOOKUP("North",Data!A1:T1,2,FALSE)', '=MATCH("north",Data!A1:T1,0)',
                '=XLOOKUP("NORTH",Data!A1:T1,Data!A1:T1,"none",0,-1)', '=VLOOKUP("A2",Data!A2:B29,2,FALSE)',
                '=VLOOKUP("B2",Data!A2:B29,2,FALSE)', '=HLOOKUP("North",Data!A1:T2,2,FALSE)', '=MATCH("z",Data!A1:T1,0)']
    inputs = {**row, **table, **{f"Calc!A{n}": f for n, f in enumerate(formulas, start=1)}}
    book, fresh = book_of(inputs, RangeCache(min_cells=2)), snapshot(book_of(inputs, uncached()))
    for _ in range(3):  # ranges are kept from their second read, indexed from their second lookup
        book.recalculate(book.formula_keys())
        assert snapshot(book) == fresh
        assert [book.value((2, n, 0)) for n in (0, 1, 4, 6)] == [CellError("#N/A"), 2.0, CellError("#N/A"), 5.0]
    assert book.ranges.entries[(1, 0, 0, 0, 19)].index is not None


def expected_cost(entry) -> int:
    """What a kept range should count: its cells, its rows, and every number or position derived."""
    numbers = 2 * len(entry.kept_numbers[1] or ()) if entry.kept_numbers is not None else 0
    index = sum(len(found) for found in entry.index.values()) if entry.index is not None else 0
    return len(entry.flat) + len(entry.grid.rows) + numbers + index + sum(len(f) for _, f in entry.matches.values())


def test_kept_ranges_stay_within_their_budget():
    rng = random.Random(11)
    inputs = {f"Data!A{r}": str(rng.randint(1, 9)) for r in range(1, 201)}
    inputs.update({f"Data!B{r}": rng.choice(["a", "b", "'3"]) for r in range(1, 201)})
    formulas = [f'=COUNTIF(Data!A1:A{n},"<5")+SUMIF(Data!B1:B{n},"b",Data!A1:A{n})+SUM(Data!A{n}:A200)'
                for n in range(20, 201, 10)] + ["=SUM(Data!A:B)", '=COUNTIF(Data!A:A,">3")']
    inputs.update({f"Calc!A{n}": formula for n, formula in enumerate(formulas, start=1)})
    cache = RangeCache(budget=1_500, min_cells=2, max_cells=300)
    book = book_of(inputs, cache)
    for step in range(60):
        assert cache.cost <= cache.budget and cache.cost == sum(expected_cost(e) for e in cache.entries.values())
        assert all(len(entry.flat) <= 300 for entry in cache.entries.values())  # Data!A:B (400 cells) is never kept
        ref = f"Data!{rng.choice('AB')}{rng.randint(1, 220)}"
        raw = rng.choice([str(rng.randint(1, 9)), "b", "", "'3"])
        book.recalculate([put(book, ref, raw)])
        if raw:
            inputs[ref] = raw
        else:
            inputs.pop(ref, None)
    assert snapshot(book) == snapshot(book_of(inputs, uncached()))
    assert 0 < len(cache.entries) < 3 * 19  # of the 57 ranges read, some were dropped to stay within the budget


def test_a_recalculation_reading_more_than_fits_keeps_what_fits():
    """Ranges read in the last recalculation are not dropped for new ones, so a long column of
    running totals keeps the same ranges each time instead of dropping each before its turn."""
    inputs = {f"Data!A{r}": str(r) for r in range(1, 101)}
    inputs.update({f"Calc!A{r}": f"=SUM(Data!A$1:A{r})" for r in range(20, 101)})
    cache = RangeCache(budget=2_000, min_cells=2)
    book, kept = book_of(inputs, cache), []
    for _ in range(4):
        book.recalculate(book.formula_keys())
        kept.append(sorted(cache.entries))
    assert kept[1] and kept[1] == kept[2] == kept[3] and cache.cost <= cache.budget
    assert snapshot(book) == snapshot(book_of(inputs, uncached()))


def test_a_patch_that_grows_an_index_past_the_budget_drops_ranges():
    inputs = {f"Data!A{r}": "text" for r in range(1, 41)}
    inputs.update({"Calc!A1": '=COUNTIF(Data!A:A,"text")', "Calc!A2": '=COUNTIF(Data!A:A,"3")'})
    book = book_of(inputs, RangeCache(min_cells=2))
    book.recalculate(book.formula_keys())
    assert book.ranges.entries[(1, 0, 0, 39, 0)].index is not None
    book.ranges.budget = book.ranges.cost  # full to the brim
    book.recalculate([put(book, "Data!A5", "'3")])  # a text filed under two keys: one position more
    assert book.ranges.cost <= book.ranges.budget
    assert book.value((2, 0, 0)) == 39.0 and book.value((2, 1, 0)) == 1.0
