"""CRM pages: home, list views with filter/sort/pagination, search and the pipeline report.
Record pages and every form live in record_views.py. Views parse, call a service, render."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from officegym.web import arg_int, ui

from . import services
from .fields import dollars
from .models import (CASE_PRIORITIES, CASE_STATUSES, INDUSTRIES, LEAD_SOURCES, LEAD_STATUSES, REGIONS, STAGES)

bp = Blueprint("crm", __name__, template_folder="templates")
PAGE = 25


def _arg(name: str) -> str:
    return request.args.get(name, "").strip()


def _sorting(default: str, descending: bool = False) -> tuple[str, bool]:
    return _arg("sort") or default, (_arg("dir") or ("desc" if descending else "asc")) == "desc"


@bp.get("/")
def home():
    """My open deals, my open tasks and the discount requests waiting on me."""
    with ui() as (db, actor):
        scope = services.scope_of(db, actor)
        sales = scope.is_sales or scope.is_admin
        deals = services.list_opportunities(db, actor, stage="open", owner=actor.id, limit=10) if sales else None
        tasks = services.list_my_tasks(db, actor, limit=10) if sales else None
        approvals = services.list_approvals(db, actor, status="Pending", mine=True) if sales else None
        return render_template("crm/home.html", sales=sales, deals=deals, tasks=tasks, approvals=approvals,
                               dollars=dollars)


@bp.get("/accounts")
def accounts():
    """Accounts, filtered by words, industry, region and owner."""
    sort, descending = _sorting("name")
    with ui() as (db, actor):
        page = services.list_accounts(db, actor, _arg("q"), _arg("industry") or None, _arg("region") or None,
                                      _arg("owner") or None, sort, descending, arg_int("offset", 0), PAGE)
        rows = [(a.id, [a.name, a.industry, a.region, a.size]) for a in page.items]
        return render_template("crm/list.html", title="Accounts", kind="account", page=page, rows=rows,
                               columns=[("name", "Name"), ("industry", "Industry"), ("region", "Region"),
                                        ("size", "Employees")],
                               filters=[("industry", "Industry", INDUSTRIES), ("region", "Region", REGIONS)],
                               new_url="crm.new_account")


@bp.get("/contacts")
def contacts():
    """Contacts, filtered by words and account."""
    sort, descending = _sorting("name")
    with ui() as (db, actor):
        page = services.list_contacts(db, actor, _arg("q"), _arg("account") or None, _arg("owner") or None, sort,
                                      descending, arg_int("offset", 0), PAGE)
        rows = [(c.id, [c.name, c.title, c.account.name, c.email]) for c in page.items]
        return render_template("crm/list.html", title="Contacts", kind="contact", page=page, rows=rows,
                               columns=[("name", "Name"), ("title", "Title"), ("", "Account"), ("", "Email")],
                               filters=[], new_url=None)


@bp.get("/leads")
def leads():
    """Leads, filtered by words, status and source."""
    sort, descending = _sorting("created", True)
    with ui() as (db, actor):
        page = services.list_leads(db, actor, _arg("q"), _arg("status") or None, _arg("source") or None,
                                   _arg("owner") or None, sort, descending, arg_int("offset", 0), PAGE)
        rows = [(lead.id, [lead.name, lead.company, lead.status, lead.source]) for lead in page.items]
        return render_template("crm/list.html", title="Leads", kind="lead", page=page, rows=rows,
                               columns=[("name", "Name"), ("company", "Company"), ("status", "Status"),
                                        ("", "Source")],
                               filters=[("status", "Status", LEAD_STATUSES), ("source", "Source", LEAD_SOURCES)],
                               new_url="crm.new_lead")


@bp.get("/opportunities")
def opportunities():
    """Opportunities, filtered by words, stage, owner and close dates."""
    sort, descending = _sorting("close_date")
    with ui() as (db, actor):
        page = services.list_opportunities(db, actor, _arg("q"), _arg("stage") or None, _arg("owner") or None,
                                           _arg("account") or None, _arg("close_from") or None,
                                           _arg("close_to") or None, sort, descending, arg_int("offset", 0), PAGE)
        rows = [(o.id, [o.name, o.account.name, o.stage, dollars(o.amount_cents), o.close_date.isoformat()])
                for o in page.items]
        return render_template("crm/list.html", title="Opportunities", kind="opportunity", page=page, rows=rows,
                               columns=[("name", "Name"), ("", "Account"), ("stage", "Stage"), ("amount", "Amount"),
                                        ("close_date", "Close date")],
                               filters=[("stage", "Stage", ("open", "closed") + STAGES)], dates=True,
                               new_url="crm.new_opportunity")


@bp.get("/cases")
def cases():
    """Cases, filtered by words, status and priority."""
    sort, descending = _sorting("created", True)
    with ui() as (db, actor):
        page = services.list_cases(db, actor, _arg("q"), _arg("status") or None, _arg("priority") or None,
                                   _arg("account") or None, _arg("owner") or None, sort, descending,
                                   arg_int("offset", 0), PAGE)
        rows = [(c.id, [c.subject, c.account.name, c.status, c.priority]) for c in page.items]
        return render_template("crm/list.html", title="Cases", kind="case", page=page, rows=rows,
                               columns=[("subject", "Subject"), ("", "Account"), ("status", "Status"),
                                        ("priority", "Priority")],
                               filters=[("status", "Status", ("open",) + CASE_STATUSES),
                                        ("priority", "Priority", CASE_PRIORITIES)], new_url="crm.new_case")


@bp.get("/search")
def search():
    """Every record type whose name, email, company or subject contains the words."""
    query = _arg("q")
    with ui() as (db, actor):
        page = services.search_records(db, actor, query, None, arg_int("offset", 0), PAGE) if query else None
        return render_template("crm/search.html", q=query, page=page)


@bp.get("/reports/pipeline")
def pipeline():
    """Deals grouped by stage, owner or quarter, a page of groups at a time, as a table and bars."""
    group_by, stages, quarter = _arg("group_by") or "stage", _arg("stages") or "open", _arg("quarter")
    with ui() as (db, actor):
        report = services.pipeline_report(db, actor, group_by, quarter or None, None, stages,
                                          arg_int("offset", 0), PAGE)
        top = report.largest_cents or 1
        bars = [(r, round(100 * r.amount_cents / top)) for r in report.page.items]
        return render_template("crm/pipeline.html", bars=bars, group_by=group_by, stages=stages, quarter=quarter,
                               report=report, page=report.page, dollars=dollars)


from . import record_views  # noqa: E402,F401 - registers the record pages on bp
