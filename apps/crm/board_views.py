"""The Kanban board of opportunities: a column per open stage, a card per deal (name, amount,
owner). A card's menu moves the deal through the stage view, as the record page's path does."""

from __future__ import annotations

from flask import render_template

from officegym.apps.org.schemas import people_briefs
from officegym.web import ui

from . import services
from .fields import dollars
from .models import OPEN_STAGES
from .views import arg, bp, filter_title, kept

CARDS = 25  # cards per column; the list view shows the rest


@bp.get("/opportunities/board")
def board():
    """Open deals by stage, filtered by words, owner and close dates as the list is."""
    with ui() as (db, actor):
        columns = [(stage, services.list_opportunities(
            db, actor, arg("q"), stage, arg("owner") or None, arg("account") or None, arg("close_from") or None,
            arg("close_to") or None, "close_date", False, 0, CARDS)) for stage in OPEN_STAGES]
        owners = people_briefs(db, {d.owner_id for _stage, page in columns for d in page.items})
        return render_template("crm/board.html", title=filter_title("Opportunities") + " (Kanban)",
                               columns=columns, owners=owners, open_stages=OPEN_STAGES, dollars=dollars,
                               keep=kept())
