"""CRM lists: home, the list view of each record kind with filter/sort/pagination, the Kanban board
of open opportunities, search and the pipeline report. Views parse, call a service, render."""

from __future__ import annotations

from flask import render_template

from officegym.apps.org.presenters import people_briefs
from officegym.web_request import arg_int, ui

from . import presenters, services
from .blueprint import PAGE, arg, bp, filter_title, kept
from .fields import dollars
from .models import (CASE_PRIORITIES, CASE_STATUSES, INDUSTRIES, LEAD_SOURCES, LEAD_STATUSES, OPEN_STAGES, REGIONS,
                     STAGES)

CARDS = 8  # cards per column of the board, soonest to close first; the list view shows the rest


def _sorting(default: str, descending: bool = False) -> tuple[str, bool]:
    return arg("sort") or default, (arg("dir") or ("desc" if descending else "asc")) == "desc"


def _list(db, noun: str, kind: str, page, cells, columns, sort: tuple[str, bool], **extra):
    """Render a list view: one row per record with its cells and its owner."""
    owners = people_briefs(db, {r.owner_id for r in page.items})
    rows = [(r.id, row, owners[r.owner_id]) for r, row in zip(page.items, cells)]
    return render_template("crm/list.html", noun=noun, title=filter_title(noun), kind=kind, page=page, rows=rows,
                           columns=columns, sort=sort[0], descending=sort[1], keep=kept(), **extra)


@bp.get("/")
def home():
    """My open deals, my open tasks and the discount requests waiting on me."""
    with ui() as (db, actor):
        scope = services.scope_of(db, actor)
        sales = scope.is_sales or scope.is_admin
        deals = services.list_opportunities(db, actor, stage="open", owner=actor.id, limit=10) if sales else None
        tasks = presenters.activities_out(db, services.list_my_tasks(db, actor, limit=10).items) if sales else []
        pending = services.list_approvals(db, actor, status="Pending", mine=True).items if sales else []
        return render_template("crm/home.html", sales=sales, deals=deals, tasks=tasks,
                               approvals=presenters.approvals_out(db, pending), dollars=dollars)


@bp.get("/accounts")
def accounts():
    """Accounts, filtered by words, industry, region and owner."""
    sort = _sorting("name")
    with ui() as (db, actor):
        page = services.list_accounts(db, actor, arg("q"), arg("industry") or None, arg("region") or None,
                                      arg("owner") or None, *sort, arg_int("offset", 0), PAGE)
        return _list(db, "Accounts", "account", page, [[a.name, a.industry, a.region, a.size] for a in page.items],
                     [("name", "Name"), ("industry", "Industry"), ("region", "Region"), ("size", "Employees")],
                     sort, filters=[("industry", "Industry", INDUSTRIES), ("region", "Region", REGIONS)],
                     creatable=True)


@bp.get("/contacts")
def contacts():
    """Contacts, filtered by words and account."""
    sort = _sorting("name")
    with ui() as (db, actor):
        page = services.list_contacts(db, actor, arg("q"), arg("account") or None, arg("owner") or None, *sort,
                                      arg_int("offset", 0), PAGE)
        return _list(db, "Contacts", "contact", page,
                     [[c.name, c.title, c.account.name, c.email] for c in page.items],
                     [("name", "Name"), ("title", "Title"), ("", "Account"), ("", "Email")], sort, filters=[],
                     creatable=False)


@bp.get("/leads")
def leads():
    """Leads, filtered by words, status and source."""
    sort = _sorting("created", True)
    with ui() as (db, actor):
        page = services.list_leads(db, actor, arg("q"), arg("status") or None, arg("source") or None,
                                   arg("owner") or None, *sort, arg_int("offset", 0), PAGE)
        return _list(db, "Leads", "lead", page, [[x.name, x.company, x.status, x.source] for x in page.items],
                     [("name", "Name"), ("company", "Company"), ("status", "Status"), ("", "Source")], sort,
                     filters=[("status", "Status", LEAD_STATUSES), ("source", "Source", LEAD_SOURCES)],
                     creatable=True)


@bp.get("/opportunities")
def opportunities():
    """Opportunities, filtered by words, stage, owner and close dates."""
    sort = _sorting("close_date")
    with ui() as (db, actor):
        page = services.list_opportunities(db, actor, arg("q"), arg("stage") or None, arg("owner") or None,
                                           arg("account") or None, arg("close_from") or None,
                                           arg("close_to") or None, *sort, arg_int("offset", 0), PAGE)
        cells = [[o.name, o.account.name, o.stage, dollars(o.amount_cents), o.close_date.isoformat()]
                 for o in page.items]
        return _list(db, "Opportunities", "opportunity", page, cells,
                     [("name", "Name"), ("", "Account"), ("stage", "Stage"), ("amount", "Amount"),
                      ("close_date", "Close date")], sort,
                     filters=[("stage", "Stage", ("open", "closed") + STAGES)], dates=True, creatable=True,
                     views=True)


@bp.get("/cases")
def cases():
    """Cases, filtered by words, status and priority."""
    sort = _sorting("created", True)
    with ui() as (db, actor):
        page = services.list_cases(db, actor, arg("q"), arg("status") or None, arg("priority") or None,
                                   arg("account") or None, arg("owner") or None, *sort,
                                   arg_int("offset", 0), PAGE)
        return _list(db, "Cases", "case", page, [[c.subject, c.account.name, c.status, c.priority]
                                                 for c in page.items],
                     [("subject", "Subject"), ("", "Account"), ("status", "Status"), ("priority", "Priority")],
                     sort, filters=[("status", "Status", ("open",) + CASE_STATUSES),
                                    ("priority", "Priority", CASE_PRIORITIES)], creatable=True)


@bp.get("/search")
def search():
    """Every record type whose name, email, company or subject contains the words."""
    query = arg("q")
    with ui() as (db, actor):
        page = services.search_records(db, actor, query, None, arg_int("offset", 0), PAGE) if query else None
        return render_template("crm/search.html", q=query, page=page)


@bp.get("/reports/pipeline")
def pipeline():
    """Deals grouped by stage, owner or quarter, a page of groups at a time, as a table and bars."""
    group_by, stages, quarter = arg("group_by") or "stage", arg("stages") or "open", arg("quarter")
    with ui() as (db, actor):
        report = services.pipeline_report(db, actor, group_by, quarter or None, None, stages,
                                          arg_int("offset", 0), PAGE)
        top = report.largest_cents or 1
        bars = [(r, round(100 * r.amount_cents / top)) for r in report.page.items]
        return render_template("crm/pipeline.html", bars=bars, group_by=group_by, stages=stages, quarter=quarter,
                               report=report, page=report.page, dollars=dollars)


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
