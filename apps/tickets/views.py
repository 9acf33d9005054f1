"""Tickets pages: projects, search with the query box and quick filters, and the create form. The
ticket page and its forms live in ticket_views.py, the board and the backlog in board_views.py.
Views parse, call a service, render; every rule is in the services."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request, url_for

from officegym.errors import OfficeError
from officegym.web import arg_int, see_other, ui

from . import presenters, services, workflow
from .models import LEVELS, PRIORITIES, SERVICE_TYPES, SOFTWARE_TYPES, TYPES
from .query import MAX_QUERY
from .quick import quick_filters, split_order

bp = Blueprint("tickets", __name__, template_folder="templates")
PAGE = 25
CARDS = services.BOARD_CARDS  # cards of each board column a page shows
SORTS = ("key", "summary", "type", "status", "priority", "assignee", "updated")


def arg(name: str) -> str:
    """A stripped query-string argument ('' when absent), cut one character past the longest query
    the services read (so a longer one is still refused by them, but costs no more to refuse)."""
    return request.args.get(name, "")[:MAX_QUERY + 1].strip()


def form(name: str) -> str:
    """A form field as typed ('' when absent)."""
    return request.form.get(name, "")


def flash_info(text: str) -> None:
    """A confirmation shown on the next page."""
    flash(text, "info")


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
            page, error = None, refused.message
        status = 400 if error else 200
        return render_template("tickets/search.html", page=page, error=error, query=query, projects=projects,
                               types=TYPES, statuses=workflow.ALL_STATUSES,
                               quick=[(q, url_for("tickets.search", q=q.query)) for q in quick_filters(query)]), status


@bp.get("/create")
def new_ticket():
    """The form to file a ticket (fields may be pre-filled from the query string)."""
    with ui() as (db, actor):
        projects = services.list_projects(db, actor)
        chosen = arg("project") or (projects[0].key if projects else "")
        project = services.get_project(db, actor, chosen) if chosen else None
        components = services.list_components(db, actor, project.key) if project else []
        types = SERVICE_TYPES if project and project.is_service_desk else SOFTWARE_TYPES
        return render_template("tickets/ticket_form.html", editing=False, projects=projects, project=project,
                               types=types, priorities=PRIORITIES, levels=LEVELS, components=components,
                               groups=services.list_groups(db, actor), values=request.args, ticket=None,
                               chosen_components=request.args.getlist("components"))


@bp.post("/create")
def create_ticket():
    """File a ticket from the form and open it."""
    with ui() as (db, actor):
        created = services.create_ticket(
            db, actor, form("project"), form("type"), form("summary"), form("description"),
            priority=form("priority") or None, impact=form("impact") or None, urgency=form("urgency") or None,
            assignee=form("assignee").strip() or None, group=form("group") or None, labels=form("labels"),
            components=request.form.getlist("components"), due_date=form("due_date") or None,
            parent=form("parent").strip() or None, account=form("account").strip() or None,
            story_points=form("story_points").strip() or None)
        key = created.key
    flash_info(f"Filed {key}.")
    return see_other(url_for("tickets.ticket", key=key))


from . import board_views, kb_views, ticket_views  # noqa: E402  (imported last: they add their routes to bp)
ROUTE_MODULES = (ticket_views, board_views, kb_views)  # named here so linters see why they are imported
