"""Sheets benchmarks: recalculation of a 2,000-formula workbook after one input change (through
the service, database included, and in memory), range read and write; and on the seeded sales
forecast, a small read through the service, the grid page of its Pipeline sheet, and the MCP tools
sheets_read_range and sheets_write_cells timed server-side (as benchmarks.tools times the others);
and the refusal of an XLSX file of 950,000 cells."""

from __future__ import annotations

import io
import time
import zipfile

import anyio
from sqlalchemy import select

from .timing import Bench, Figure, count_queries, figure_of, measure, measure_async_each, recording

ROWS = 1000


def _formula_book(session, actor) -> int:
    """A workbook of 1,000 input rows and 2,000 formulas: C = A*B+1 per row and D a running total of C."""
    from officegym.apps.sheets import services
    workbook = services.create_workbook(session, actor, "Benchmark: 2,000 formulas", ["Data"]).id
    rows = [[r * 1.5, r % 7, f"=A{r}*B{r}+1", "=C1" if r == 1 else f"=D{r - 1}+C{r}"] for r in range(1, ROWS + 1)]
    for start in range(0, ROWS, 250):
        services.write_range(session, actor, workbook, f"Data!A{start + 1}", rows[start:start + 250])
    return workbook


def bench_sheets(bench: Bench) -> list[Figure]:
    """Recalculation after one change (mid-sheet and at the top), range read and write."""
    from officegym.apps.sheets import services
    from officegym.apps.sheets.book import load_book

    episode = bench.store.create(scale=bench.scale)
    figures = []
    with episode.session() as session:
        actor = episode.actor(session)
        workbook = _formula_book(session, actor)
        session.commit()
        counter = iter(range(10**9))
        for cell, reached in (("A500", "502 formulas recalculated"), ("A1", "1,001 formulas recalculated")):
            def change(cell=cell):
                services.write_cells(session, actor, workbook, [{"cell": f"Data!{cell}", "value": next(counter) % 97}])
                session.flush()
            figures.append(measure(f"sheets recalc after 1 change, {cell}, service + db", change, bench.runs(40),
                                   target=bench.target("p50 <= 50 ms"), note=reached))
        session.rollback()
        found = services.get_workbook(session, actor, workbook)
        book = load_book(session, found)
        key = next(k for k in book.cells if k[1] == 499 and k[2] == 0)

        def in_memory():
            book.put(key, "x", None, float(next(counter) % 97))
            book.recalculate([key])
        figures.append(measure("sheets recalc after 1 change, engine only", in_memory, bench.runs(40),
                               note="502 formulas, no database"))
        figures.append(measure("sheets load 2,000-formula workbook into the engine",
                               lambda: load_book(session, found), bench.runs(40)))
        figures.append(measure("sheets read range 200x4, service",
                               lambda: services.read_range(session, actor, workbook, "Data!A1:D200"), bench.runs(100),
                               target=bench.target("p50 <= 3 ms")))

        def write():
            services.write_range(session, actor, workbook, "Data!F1",
                                 [[next(counter), "text", 1.5, "=F1*2"] for _ in range(100)])
            session.flush()
        figures.append(measure("sheets write range 100x4, service", write, bench.runs(40), note="400 cells"))
    bench.store.delete(episode.id)
    return figures + bench_seeded_forecast(bench) + bench_xlsx_refusals(bench)


def xlsx_of_cells(count: int, dimension: str) -> bytes:
    """A zipped worksheet of `count` numeric cells, 500 a row, declaring that it spans `dimension`: all
    an XLSX file needs to be refused for its size (about 2 MB for 950,000 cells)."""
    row = '<c t="n"><v>1</v></c>' * 500
    sheet = (f'<worksheet><dimension ref="{dimension}"/><sheetData>'
             + "".join(f'<row r="{r + 1}">{row}</row>' for r in range(count // 500)) + "</sheetData></worksheet>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return out.getvalue()


def bench_xlsx_refusals(bench: Bench) -> list[Figure]:
    """The refusal of an XLSX file of 950,000 cells, from the size its worksheet declares and, when it
    declares one cell, from the count of its cells (before openpyxl parses a row), with its CPU time."""
    from officegym.apps.sheets import services
    from officegym.errors import Invalid

    episode = bench.store.create(scale=bench.scale)
    figures = []
    with episode.session() as session:
        actor = episode.actor(session)
        workbook = services.create_workbook(session, actor, "Benchmark: imports").id
        for how, dimension in (("declared", "A1:SF1900"), ("counted", "A1")):
            data = xlsx_of_cells(950_000, dimension)

            def refuse(data=data):
                try:
                    services.import_xlsx(session, actor, workbook, data)
                except Invalid:
                    return
                raise AssertionError("an XLSX file of 950,000 cells was imported")
            started = time.process_time()
            refuse()
            cpu = time.process_time() - started
            figures.append(measure(f"sheets XLSX import of 950,000 cells refused, {how}", refuse, bench.runs(20),
                                   target=bench.target("p50 <= 500 ms"),
                                   note=f"{len(data) / 1e6:.1f} MB file; {cpu * 1000:.0f} ms CPU once"))
        session.rollback()
    bench.store.delete(episode.id)
    return figures


FORECAST = "Sales Forecast"  # part of the seeded forecast's title (FY<year> Sales Forecast)
SMALL_RANGE = "Pipeline!A1:D20"


def _forecast_episode(bench: Bench, scale: str):
    """An episode of `scale` acting as the seeded forecast's owner (the head of Sales), who may read
    and write it, and the forecast's workbook id."""
    from officegym.apps.org.models import Person
    from officegym.apps.sheets.models import Workbook

    probe = bench.store.create(scale=scale)
    with probe.session() as session:
        handle, book = session.execute(select(Person.handle, Workbook.id).join(Workbook, Workbook.owner_id == Person.id)
                                       .where(Workbook.title.contains(FORECAST))).one()
    bench.store.delete(probe.id)
    return bench.store.create(scale=scale, actor=handle), book


async def _server_figure(episodes, name: str, args, bench: Bench, note: str = "") -> Figure:
    """An MCP tool called in process, timed from the server's side as in benchmarks.tools:
    `server.call_tool` (argument validation, service, result), no client, in turn on each of
    `episodes` (the second, if any, is the small one); `args(episode)` gives each call's arguments."""
    servers = [episode.mcp_server() for episode in episodes]
    samples = await measure_async_each([lambda e=e, s=s: s.call_tool(name, args(e)) for e, s in zip(episodes, servers)],
                                       bench.runs(100))
    with recording(episodes[0].engine) as statements:
        await servers[0].call_tool(name, args(episodes[0]))
    figure = figure_of(f"MCP {name}, server", samples, bench.target("p50 <= 3 ms"), note, kind="tool")
    figure.queries = len(statements)
    return figure


def bench_seeded_forecast(bench: Bench) -> list[Figure]:
    """On the seeded FY sales forecast, as its owner: read A1:D20 of the Pipeline through the service,
    load the Pipeline's grid page through the Flask test client, and call sheets_read_range and
    sheets_write_cells (an amount on the Pipeline, which the Summary's totals depend on) over MCP;
    at medium and large, the page and the tools in turn with the same on a small episode."""
    from officegym.apps.sheets import services
    from officegym.web import create_app

    store = bench.store
    made = [_forecast_episode(bench, bench.scale)] + ([_forecast_episode(bench, "small")] if bench.paired else [])
    episodes, books = [e for e, _ in made], {e.id: book for e, book in made}
    episode, book = made[0]
    with episode.session() as session:
        actor = episode.actor(session)
        figures = [measure("sheets read range A1:D20, service",
                           lambda: services.read_range(session, actor, book, SMALL_RANGE), bench.runs(200),
                           target=bench.target("p50 <= 3 ms"), note="seeded forecast, Pipeline")]
    client = create_app(store).test_client()

    def page(e):
        url = f"/e/{e.id}/sheets/w/{books[e.id]}?sheet=Pipeline"
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    figure = measure("UI sheets grid page, forecast Pipeline", lambda: page(episode), bench.runs(100),
                     target=bench.target("p50 <= 30 ms"), note="40 rows x 12 columns", kind="page",
                     baseline=(lambda: page(episodes[1])) if len(episodes) > 1 else None)
    figure.queries = count_queries(episode.engine, lambda: page(episode))
    figures.append(figure)
    amounts = iter(range(10**9))

    async def tools() -> list[Figure]:
        read = await _server_figure(episodes, "sheets_read_range",
                                    lambda e: {"workbook": books[e.id], "range": SMALL_RANGE}, bench,
                                    "seeded forecast, Pipeline")
        write = await _server_figure(episodes, "sheets_write_cells", lambda e: {
            "workbook": books[e.id], "cells": [{"cell": "Pipeline!E2", "value": 100_000 + next(amounts) % 997}]},
            bench, "1 amount; weighted, quarter and stage totals recalculated")
        return [read, write]

    figures += anyio.run(tools)
    for made_episode in episodes:
        store.delete(made_episode.id)
    return figures
