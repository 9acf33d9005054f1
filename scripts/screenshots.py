"""Screenshots of each app's main pages for the README: `.venv/bin/python scripts/screenshots.py`.

Serves a free episode of the small world (built on first use) in this process, opens each page in
Debian's Chromium at 1280x800 and writes docs/screenshots/<name>.png; prints each file's path. The
grid is shown to its workbook's owner, who may edit it. Emoji in messages need an emoji font
(Debian's fonts-noto-color-emoji); the UI's own icons do not."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.page_trees import CHROMIUM, CHROMIUM_ARGS, heaviest_pages, heaviest_sheet, serving  # noqa: E402
from officegym.apps.crm.models import Opportunity  # noqa: E402
from officegym.apps.tickets.models import Ticket  # noqa: E402
from officegym.episodes import EpisodeStore  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


def pages(episode) -> dict[str, str]:
    """The pages to photograph: each app's home and its most used record page."""
    from sqlalchemy import select

    with episode.session() as db:
        deal = db.scalar(select(Opportunity.id).where(Opportunity.stage == "Negotiation").order_by(Opportunity.id))
        ticket = db.scalar(select(Ticket).where(Ticket.key.like("IT-%")).order_by(Ticket.id)).key
    heavy = heaviest_pages(episode)
    return {"chat-channel": heavy["chat #general"], "crm-opportunity": f"/crm/opportunities/{deal}",
            "crm-kanban": heavy["crm opportunity kanban"], "tickets-board": heavy["tickets ENG board"],
            "tickets-ticket": f"/tickets/{ticket}", "sheets-grid": heavy["sheets grid window"]}


def stage(name: str, page) -> None:
    """Show a page's signature control open: a message's actions menu, a cell selected."""
    if name == "chat-channel":
        page.get_by_test_id("message-menu-button").last.click()
    elif name == "sheets-grid":
        page.get_by_role("gridcell").nth(14).click()


def grid_owner(episode) -> str:
    """The handle of the owner of the workbook the sheets grid shows."""
    from officegym.apps.org.models import Person

    with episode.session() as db:
        return db.get(Person, heaviest_sheet(db)[1].owner_id).handle


def act_as(page, base: str, handle: str) -> None:
    """Switch the free episode's browser to `handle` through the act-as form."""
    page.goto(f"{base}/act-as")
    page.get_by_role("combobox", name="Person").fill(handle)
    page.get_by_test_id("act-as-submit").click()


def main() -> int:
    """Write the screenshots."""
    store = EpisodeStore()
    episode = store.create(scale="small")
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        with serving(store) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            for name, path in pages(episode).items():
                if name == "sheets-grid":
                    act_as(page, f"{base}/e/{episode.id}", grid_owner(episode))
                response = page.goto(f"{base}/e/{episode.id}{path}", wait_until="load")
                if response is None or response.status != 200:
                    print(f"{name}: {path} answered {response.status if response else 'nothing'}", file=sys.stderr)
                    continue
                stage(name, page)
                target = OUT / f"{name}.png"
                page.screenshot(path=str(target))
                print(target.relative_to(ROOT))
            browser.close()
    finally:
        store.delete(episode.id)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
