"""The board and the backlog of a project, with their quick filters, and the lead's sprint forms.

The board shows the cards of a sprint (or of the open queue) in columns by status; each card has a
menu of the transitions its ticket can take, posting to the ticket's transition view. The backlog
lists the open tickets outside the active sprint, grouped by future sprint and then the backlog,
highest priority first: one search per group, in the query language."""

from __future__ import annotations

from flask import url_for

from officegym.errors import Invalid, OfficeError
from officegym.web_request import arg_int, ui
from officegym.web_wording import ui_message

from . import blueprint, services, workflow
from .blueprint import arg, back_to, bp, form, render_or_refuse
from .query import compile_query
from .quick import quick_filters, split_order

BACKLOG_ROWS = 20  # tickets of each backlog group a page lists; the rest are one search away


def _filters(endpoint: str, key: str, query: str, **kept) -> list:
    """(quick filter, the link that toggles it) for the page `endpoint` of project `key`."""
    return [(q, url_for(endpoint, key=key, q=q.query or None, **kept)) for q in quick_filters(query)]


@bp.get("/projects/<key>/board")
def board(key: str):
    """A project's board: columns by status for the chosen or the active sprint, else the open work;
    `q` (a quick filter, or any query) keeps the cards it matches."""
    query, sprint = arg("q"), arg("sprint") or None
    with ui() as (db, actor):
        error = None
        try:
            shown = services.get_board(db, actor, key, sprint, arg_int("offset", 0), blueprint.CARDS,
                                       query or None)  # CARDS read at each request, so it can be changed
        except OfficeError as refused:
            if not query:
                raise
            error = ui_message(refused.message)
            shown = services.get_board(db, actor, key, sprint, arg_int("offset", 0), blueprint.CARDS)
        project = shown.project
        sprints = [] if project.is_service_desk else services.list_sprints(db, actor, project.key)
        moves = {t.key: workflow.available(t.type, t.status) for c in shown.columns for t in c.tickets
                 if services.is_worker(db, actor, t)}
        is_lead = actor.is_admin or actor.id == project.lead_id
        quick = _filters("tickets.board", project.key, query, sprint=sprint)
        return render_or_refuse("tickets/board.html", error, board=shown, project=project, sprints=sprints,
                                is_lead=is_lead, moves=moves, filter_query=query, quick=quick)


@bp.get("/projects/<key>/backlog")
def backlog(key: str):
    """The open tickets of a software project outside its active sprint: each future sprint's, then
    the backlog's, highest priority first; `q` (a quick filter, or any query) narrows every group."""
    query = arg("q")
    with ui() as (db, actor):
        project = services.get_project(db, actor, key)
        if project.is_service_desk:
            raise Invalid(f"{project.key} is a service desk: its open work is the queue on its board, not a backlog.")
        future = [s for s in services.list_sprints(db, actor, project.key) if s.state == "future"]
        scope = f'project = "{project.key}" AND statusCategory != Done'
        conditions = split_order(query)[0]
        narrowed = f" AND ({conditions})" if conditions else ""
        order = " ORDER BY priority DESC, key ASC"
        groups, error = [], None
        try:
            if conditions:  # a query of its own first: its parentheses cannot reach the scope around it
                compile_query(db, actor, conditions)
            for name, clause in [(s.name, f"sprint = {s.id}") for s in future] + [("Backlog", "sprint is EMPTY")]:
                text = f"{scope} AND {clause}{narrowed}{order}"
                groups.append((name, text, services.search_tickets(db, actor, text, 0, BACKLOG_ROWS)))
        except OfficeError as refused:
            error, groups = ui_message(refused.message), []
        return render_or_refuse("tickets/backlog.html", error, project=project, groups=groups, filter_query=query,
                                quick=_filters("tickets.backlog", project.key, query))


@bp.post("/projects/<key>/sprints")
def sprint_action(key: str):
    """Create, start or complete a sprint (the project lead's forms on the board)."""
    action = form("action")
    with ui() as (db, actor):
        if action == "create":
            services.create_sprint(db, actor, key, form("name"), form("goal"))
        elif action == "start":
            services.start_sprint(db, actor, key, form("sprint"), form("end_date"), form("start_date") or None)
        elif action == "complete":
            services.complete_sprint(db, actor, key, form("sprint"), form("move_to") or None)
        else:
            raise Invalid("Choose a sprint action: create, start or complete.")
    return back_to(f"Sprint {action} done.", "tickets.board", key=key)
