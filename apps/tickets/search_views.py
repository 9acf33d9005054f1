"""The tickets home page (every project with its open counts, and the tickets assigned to me) and
the search page, with the query box, the simple filters, sortable columns and quick filters. Views
parse, call a service, render; the query language and who sees which ticket are the services'."""

from __future__ import annotations

from flask import render_template, url_for

from officegym.errors import OfficeError
from officegym.web_request import arg_int, ui
from officegym.web_wording import ui_message

from . import presenters, services, workflow
from .blueprint import PAGE, arg, bp, render_or_refuse
from .models import TYPES
from .quick import quick_filters, split_order

SORTS = ("key", "summary", "type", "status", "priority", "assignee", "updated")


def _in_board_order(project, counts: dict[str, int]) -> dict[str, int]:
    """Open counts per status in the order of the project's workflow."""
    kinds = workflow.SERVICE_STATUSES if project.is_service_desk else workflow.SOFTWARE_STATUSES
    return {status: counts[status] for status in kinds if status in counts}


@bp.get("/")
def home():
    """Every project with its lead and open counts, and the tickets assigned to me."""
    with ui() as (db, actor):
        found = services.list_projects(db, actor)
        projects = [(shown, _in_board_order(p, services.open_counts(db, actor, p)))
                    for shown, p in zip(presenters.projects_out(db, found), found)]
        mine = services.search_tickets(db, actor, "assignee = currentUser() AND statusCategory != Done "
                                                  "ORDER BY priority DESC, updated DESC", 0, 20)
        return render_template("tickets/home.html", projects=projects, mine=mine)


def _query_from_filters() -> str:
    """The query typed in the box, or one built from the simple filters."""
    if arg("q"):
        return arg("q")
    parts = []
    if arg("project"):
        parts.append(f"project = \"{arg('project')}\"")
    if arg("type"):
        parts.append(f"type = \"{arg('type')}\"")
    if arg("status"):
        parts.append("statusCategory != Done" if arg("status") == "open" else f"status = \"{arg('status')}\"")
    if arg("mine"):
        parts.append("assignee = currentUser()")
    return " AND ".join(parts)


@bp.get("/search")
def search():
    """Tickets matching the query box (or the filters), sortable by column, in pages."""
    query = _query_from_filters()
    sort = arg("sort")
    with ui() as (db, actor):
        projects = services.list_projects(db, actor)
        text = query
        if sort in SORTS:  # a column header replaces the query's own ORDER BY
            text = f"{split_order(query)[0]} ORDER BY {sort} {'DESC' if arg('dir') == 'desc' else 'ASC'}"
        try:
            page = services.search_tickets(db, actor, text, arg_int("offset", 0), PAGE)
            error = None
        except OfficeError as refused:
            page, error = None, ui_message(refused.message)
        return render_or_refuse("tickets/search.html", error, page=page, query=query, projects=projects,
                                types=TYPES, statuses=workflow.ALL_STATUSES,
                                quick=[(q, url_for("tickets.search", q=q.query)) for q in quick_filters(query)])
