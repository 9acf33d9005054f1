"""Sheets benchmarks: recalculation of a 2,000-formula workbook after one input change (through
the service, database included, and in memory), range read and write."""

from __future__ import annotations

from officegym.episodes import EpisodeStore

from .timing import Figure, measure

ROWS = 1000


def _formula_book(session, actor) -> int:
    """A workbook of 1,000 input rows and 2,000 formulas: C = A*B+1 per row and D a running total of C."""
    from officegym.apps.sheets import services
    workbook = services.create_workbook(session, actor, "Benchmark: 2,000 formulas", ["Data"]).id
    rows = [[r * 1.5, r % 7, f"=A{r}*B{r}+1", "=C1" if r == 1 else f"=D{r - 1}+C{r}"] for r in range(1, ROWS + 1)]
    for start in range(0, ROWS, 250):
        services.write_range(session, actor, workbook, f"Data!A{start + 1}", rows[start:start + 250])
    return workbook


def bench_sheets(store: EpisodeStore, scale: str) -> list[Figure]:
    """Recalculation after one change (mid-sheet and at the top), range read and write."""
    from officegym.apps.sheets import services
    from officegym.apps.sheets.book import load_book

    episode = store.create(scale=scale)
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
            figures.append(measure(f"sheets recalc after 1 change, {cell}, service + db ({scale})", change, 40,
                                   target="p50 <= 50 ms", note=reached))
        session.rollback()
        found = services.get_workbook(session, actor, workbook)
        book = load_book(session, found)
        key = next(k for k in book.cells if k[1] == 499 and k[2] == 0)

        def in_memory():
            book.put(key, "x", None, float(next(counter) % 97))
            book.recalculate([key])
        figures.append(measure(f"sheets recalc after 1 change, engine only ({scale})", in_memory, 40,
                               note="502 formulas, no database"))
        figures.append(measure(f"sheets load 2,000-formula workbook into the engine ({scale})",
                               lambda: load_book(session, found), 40))
        figures.append(measure(f"sheets read range 200x4, service ({scale})",
                               lambda: services.read_range(session, actor, workbook, "Data!A1:D200"), 100,
                               target="p50 <= 3 ms"))

        def write():
            services.write_range(session, actor, workbook, "Data!F1",
                                 [[next(counter), "text", 1.5, "=F1*2"] for _ in range(100)])
            session.flush()
        figures.append(measure(f"sheets write range 100x4, service ({scale})", write, 40, note="400 cells"))
    store.delete(episode.id)
    return figures
