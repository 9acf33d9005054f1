"""What a web agent pays to observe each app's heaviest page: the page loaded in Debian's Chromium
(Playwright) from a live server of the bench's store, timed to its `load` event, and the size of its
accessibility tree as a BrowserGym agent is shown it, with the lighter Playwright snapshot's size in
the note (benchmarks/page_tree.py).

Pages: the #general channel and its members, the open-opportunity list and the opportunity Kanban,
the ENG board and backlog, the grid window of the sheet with the most cells, and the people
directory; each as the free episode's owner, who sees the most. No tree may pass 40,000 characters
(#general: 30,000)."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from contextlib import contextmanager
from typing import Iterator
from urllib.parse import quote

from sqlalchemy import func, select

from .page_tree import snapshot_text, tree_characters
from .timing import Bench, Figure, percentiles, progress

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
# The heaviest tree an agent may be shown of a page at every scale; a channel at its default page size less.
TREE_LIMIT = 40_000
TREE_LIMITS = {"chat #general": 30_000}


def heaviest_sheet(db):
    """The sheet with the most cells, and its workbook."""
    from officegym.apps.sheets.models import Cell, Sheet, Workbook

    sheet_id = db.scalar(select(Cell.sheet_id).group_by(Cell.sheet_id).order_by(func.count().desc(), Cell.sheet_id)
                         .limit(1))
    sheet = db.get(Sheet, sheet_id)
    return sheet, db.get(Workbook, sheet.workbook_id)


def heaviest_pages(episode) -> dict[str, str]:
    """Each app's heaviest page in `episode`, as paths under its /e/<id> prefix."""
    with episode.session() as db:
        sheet, workbook = heaviest_sheet(db)
        grid = f"/sheets/w/{workbook.id}?sheet={quote(sheet.name)}"
    return {"chat #general": "/chat/c/general", "crm open opportunities": "/crm/opportunities?stage=open",
            "crm opportunity kanban": "/crm/opportunities/board", "tickets ENG board": "/tickets/projects/ENG/board",
            "tickets ENG backlog": "/tickets/projects/ENG/backlog", "chat #general members": "/chat/c/general/members",
            "sheets grid window": grid, "org people": "/org/"}


@contextmanager
def serving(store) -> Iterator[str]:
    """The UI of `store` on a free local port in a thread; its base URL."""
    from werkzeug.serving import make_server

    from officegym.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request on the progress stream
    server = make_server("127.0.0.1", 0, create_app(store), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


def bench_page_trees(bench: Bench) -> list[Figure]:
    """Per heaviest page: the load time in Chromium (p50/p95 ms) and its accessibility tree (characters)."""
    from playwright.sync_api import sync_playwright

    episode = bench.store.create(scale=bench.scale)
    figures: list[Figure] = []
    try:
        with serving(bench.store) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            for name, path in heaviest_pages(episode).items():
                bench.step(f"page in Chromium: {name}")
                url = f"{base}/e/{episode.id}{path}"
                response = page.goto(url, wait_until="load")
                if response is None or response.status != 200:
                    progress(f"  {name}: {path} answered {response.status if response else 'nothing'}; skipped")
                    continue
                samples = []
                for _ in range(bench.runs(20)):
                    start = time.perf_counter()
                    page.goto(url, wait_until="load")
                    samples.append((time.perf_counter() - start) * 1000)
                p50, p95 = percentiles(samples)
                figures.append(Figure(f"UI load in Chromium: {name}", len(samples), p50, p95, kind="",
                                      note=path.split("?")[0]))
                characters = tree_characters(page)
                limit = TREE_LIMITS.get(name, TREE_LIMIT)
                figures.append(Figure(f"UI accessibility tree: {name}", 1, characters, None,
                                      f"p50 <= {limit} chars", unit="chars",
                                      note=f"Playwright's snapshot: {len(snapshot_text(page)):,} chars"))
            browser.close()
    finally:
        bench.store.delete(episode.id)
    return figures
