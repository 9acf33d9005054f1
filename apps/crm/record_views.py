"""CRM record pages (account, contact, lead, opportunity, case) and every CRM form.

Forms hand the raw text to the services ("$120,000", "2026-03-31", "15"), which parse it the same
way for the UI and MCP. On an edit form a blank field means "leave as is"."""

from __future__ import annotations

from flask import flash, render_template, request, url_for

from officegym.web import back_url, see_other, ui

from . import services
from .fields import dollars
from .models import (ACTIVITY_KINDS, CASE_ORIGINS, CASE_PRIORITIES, CASE_STATUSES, INDUSTRIES, LEAD_SOURCES,
                     LEAD_STATUSES, LOSS_REASONS, OPEN_STAGES, OPPORTUNITY_TYPES, REGIONS, SIZES, STAGES)
from .views import bp

# Form fields per record kind: (name, label, options or None, required on create).
FORMS = {
    "account": [("name", "Account name", None, True), ("industry", "Industry", INDUSTRIES, False),
                ("size", "Employees", SIZES, False), ("region", "Region", REGIONS, False),
                ("website", "Website", None, False), ("phone", "Phone", None, False),
                ("parent", "Parent account (id or exact name)", None, False), ("owner", "Owner (@handle)", None, False)],
    "contact": [("account", "Account (id or exact name)", None, True), ("first_name", "First name", None, True),
                ("last_name", "Last name", None, True), ("title", "Title", None, False),
                ("email", "Email", None, False), ("phone", "Phone", None, False), ("owner", "Owner (@handle)", None, False)],
    "lead": [("first_name", "First name", None, True), ("last_name", "Last name", None, True),
             ("company", "Company", None, True), ("title", "Title", None, False), ("email", "Email", None, False),
             ("phone", "Phone", None, False), ("source", "Source", LEAD_SOURCES, False),
             ("owner", "Owner (@handle)", None, False)],
    "opportunity": [("account", "Account (id or exact name)", None, True), ("name", "Opportunity name", None, True),
                    ("amount", "Amount (dollars)", None, False), ("close_date", "Close date (YYYY-MM-DD)", None, True),
                    ("type", "Type", OPPORTUNITY_TYPES, False), ("next_step", "Next step", None, False),
                    ("competitor", "Competitor", None, False), ("description", "Description", None, False),
                    ("owner", "Owner (@handle)", None, False)],
    "case": [("account", "Account (id or exact name)", None, True), ("subject", "Subject", None, True),
             ("description", "Description", None, False), ("priority", "Priority", CASE_PRIORITIES, False),
             ("origin", "Origin", CASE_ORIGINS, False), ("contact", "Contact (id or email)", None, False),
             ("owner", "Owner (@handle)", None, False)],
}
EDIT_EXTRA = {"lead": [("status", "Status", tuple(s for s in LEAD_STATUSES if s != "Converted"), False)],
              "case": [("status", "Status", tuple(s for s in CASE_STATUSES if s != "Escalated"), False)]}
EDIT_SKIP = {"opportunity": {"account"}, "case": {"account"}}
CREATE = {"account": services.create_account, "contact": services.create_contact, "lead": services.create_lead,
          "opportunity": services.create_opportunity, "case": services.create_case}
UPDATE = {"account": services.update_account, "contact": services.update_contact, "lead": services.update_lead,
          "opportunity": services.update_opportunity, "case": services.update_case}
GET = {"account": services.get_account, "contact": services.get_contact, "lead": services.get_lead,
       "opportunity": services.get_opportunity, "case": services.get_case}


def flash_info(text: str) -> None:
    """A confirmation shown on the next page."""
    flash(text, "info")


def _form(name: str) -> str:
    return request.form.get(name, "")


def _record_url(kind: str, record_id: int) -> str:
    return url_for(f"crm.{kind}", record_id=record_id)


def _related(db, actor, kind: str, record_id: int) -> dict:
    return {"activities": services.list_activities(db, actor, kind, record_id, limit=50).items,
            "history": services.record_history(db, actor, kind, record_id, limit=50).items}


# ---------------------------------------------------------------- create and edit

@bp.get("/<any(account, contact, lead, opportunity, case):kind>/new")
def new_record(kind: str):
    """An empty create form (fields may be pre-filled from the query string)."""
    with ui():
        return render_template("crm/record_form.html", kind=kind, fields=FORMS[kind], values=request.args,
                               editing=False, action=url_for("crm.create_record", kind=kind))


@bp.post("/<any(account, contact, lead, opportunity, case):kind>/new")
def create_record(kind: str):
    """Create a record from the form; blank optional fields take their defaults."""
    values = {name: _form(name) for name, _label, _options, _required in FORMS[kind] if _form(name).strip()}
    for name, _label, _options, required in FORMS[kind]:
        if required:
            values.setdefault(name, "")
    with ui() as (db, actor):
        record = CREATE[kind](db, actor, **values)
        target = _record_url(kind, record.id)
    flash_info(f"The {kind} was created.")
    return see_other(target)


@bp.get("/<any(account, contact, lead, opportunity, case):kind>/<int:record_id>/edit")
def edit_record(kind: str, record_id: int):
    """The edit form, showing the current values."""
    fields = [f for f in FORMS[kind] if f[0] not in EDIT_SKIP.get(kind, ())] + EDIT_EXTRA.get(kind, [])
    with ui() as (db, actor):
        record = GET[kind](db, actor, record_id)
        values = {name: _current(record, name) for name, *_ in fields}
        return render_template("crm/record_form.html", kind=kind, fields=fields, values=values, editing=True,
                               record=record, action=url_for("crm.update_record", kind=kind, record_id=record_id))


def _current(record, name: str) -> str:
    if name == "amount":
        return f"{record.amount_cents / 100:.2f}"
    if name in ("owner", "account", "parent", "contact"):
        value = getattr(record, f"{name}_id", None)
        return "" if value is None else str(value)
    value = getattr(record, name, "")
    return "" if value is None else str(value)


@bp.post("/<any(account, contact, lead, opportunity, case):kind>/<int:record_id>/edit")
def update_record(kind: str, record_id: int):
    """Apply the fields that differ from what the record holds (blank = unchanged)."""
    fields = [f for f in FORMS[kind] if f[0] not in EDIT_SKIP.get(kind, ())] + EDIT_EXTRA.get(kind, [])
    with ui() as (db, actor):
        record = GET[kind](db, actor, record_id)
        changes = {name: _form(name) for name, *_ in fields
                   if name in request.form and _form(name).strip() != _current(record, name)}
        UPDATE[kind](db, actor, record_id, **{k: v for k, v in changes.items() if v.strip() or k in (
            "next_step", "competitor", "description", "title", "website", "phone", "email")})
    flash_info(f"The {kind} was saved.")
    return see_other(_record_url(kind, record_id))


# ---------------------------------------------------------------- record pages

@bp.get("/accounts/<int:record_id>")
def account(record_id: int):
    """An account with its family, contacts, deals, cases, activities and history."""
    with ui() as (db, actor):
        found = services.get_account(db, actor, record_id)
        scope = services.scope_of(db, actor)
        sales = scope.is_sales or scope.is_admin
        return render_template(
            "crm/account.html", record=found, kind="account", sales=sales, dollars=dollars,
            children=services.child_accounts(db, actor, record_id),
            contacts=services.list_contacts(db, actor, account=record_id, limit=100).items,
            deals=services.list_opportunities(db, actor, account=record_id, limit=100).items if sales else [],
            cases=services.list_cases(db, actor, account=record_id, limit=100).items if sales else [],
            **(_related(db, actor, "account", record_id) if sales else {"activities": [], "history": []}))


@bp.get("/contacts/<int:record_id>")
def contact(record_id: int):
    """A contact and what was logged on them."""
    with ui() as (db, actor):
        found = services.get_contact(db, actor, record_id)
        scope = services.scope_of(db, actor)
        sales = scope.is_sales or scope.is_admin
        return render_template("crm/contact.html", record=found, kind="contact", sales=sales,
                               **(_related(db, actor, "contact", record_id) if sales
                                  else {"activities": [], "history": []}))


@bp.get("/leads/<int:record_id>")
def lead(record_id: int):
    """A lead, with a link to convert it."""
    with ui() as (db, actor):
        found = services.get_lead(db, actor, record_id)
        return render_template("crm/lead.html", record=found, kind="lead", sales=True,
                               **_related(db, actor, "lead", record_id))


@bp.get("/opportunities/<int:record_id>")
def opportunity(record_id: int):
    """A deal: stage path, fields, products, discount approvals, activities and history."""
    with ui() as (db, actor):
        found = services.get_opportunity(db, actor, record_id)
        approvals = services.list_approvals(db, actor, limit=200, opportunity=record_id).items
        return render_template("crm/opportunity.html", record=found, kind="opportunity", sales=True,
                               items=services.line_items(db, actor, record_id), approvals=approvals,
                               products=services.list_products(db, actor, limit=200).items, stages=STAGES,
                               open_stages=OPEN_STAGES, loss_reasons=LOSS_REASONS, dollars=dollars,
                               **_related(db, actor, "opportunity", record_id))


@bp.get("/cases/<int:record_id>")
def case(record_id: int):
    """A case, with its escalation form."""
    with ui() as (db, actor):
        found = services.get_case(db, actor, record_id)
        return render_template("crm/case.html", record=found, kind="case", sales=True,
                               **_related(db, actor, "case", record_id))


# ---------------------------------------------------------------- actions

@bp.post("/opportunities/<int:record_id>/stage")
def move_stage(record_id: int):
    """Move a deal along the sales path (loss reason and competitor when closing it lost)."""
    with ui() as (db, actor):
        services.move_stage(db, actor, record_id, _form("stage"), _form("loss_reason"), _form("competitor"))
    flash_info(f"Stage set to {_form('stage')}.")
    return see_other(_record_url("opportunity", record_id))


@bp.post("/opportunities/<int:record_id>/reopen")
def reopen(record_id: int):
    """Reopen a closed deal into an open stage."""
    with ui() as (db, actor):
        services.reopen(db, actor, record_id, _form("stage") or "Negotiation")
    flash_info("The opportunity was reopened.")
    return see_other(_record_url("opportunity", record_id))


@bp.post("/opportunities/<int:record_id>/line-items")
def add_line_item(record_id: int):
    """Add a product at its list price."""
    with ui() as (db, actor):
        services.add_line_item(db, actor, record_id, _form("product"), _form("quantity") or "1",
                               _form("discount") or "0", _form("price_book") or None)
    flash_info("The product was added.")
    return see_other(_record_url("opportunity", record_id))


@bp.post("/line-items/<int:item_id>/<any(update, remove, discount):action>")
def line_item_action(item_id: int, action: str):
    """Change, remove or ask for a bigger discount on one line item."""
    with ui() as (db, actor):
        if action == "update":
            services.update_line_item(db, actor, item_id, _form("quantity") or None, _form("discount") or None)
        elif action == "remove":
            services.remove_line_item(db, actor, item_id)
        else:
            services.request_discount(db, actor, item_id, _form("discount"), _form("reason"))
    flash_info({"update": "The line item was saved.", "remove": "The line item was removed.",
                "discount": "The discount request was sent to the deal owner's manager."}[action])
    return see_other(back_url())


@bp.post("/approvals/<int:approval_id>/<any(approve, reject):decision>")
def decide(approval_id: int, decision: str):
    """Approve or reject a discount request (the deal owner's manager)."""
    with ui() as (db, actor):
        (services.approve_discount if decision == "approve" else services.reject_discount)(
            db, actor, approval_id, _form("note"))
    flash_info(f"The discount request was {decision}d.")
    return see_other(back_url())


@bp.post("/<any(account, contact, lead, opportunity, case):kind>/<int:record_id>/activities")
def log_activity(kind: str, record_id: int):
    """Log a call, email, meeting, note or task on a record."""
    with ui() as (db, actor):
        services.log_activity(db, actor, kind, record_id, _form("kind"), _form("subject"), _form("body"),
                              _form("due_date") or None)
    flash_info("The activity was logged.")
    return see_other(back_url())


@bp.post("/tasks/<int:activity_id>/complete")
def complete_task(activity_id: int):
    """Mark a task done."""
    with ui() as (db, actor):
        services.complete_task(db, actor, activity_id)
    flash_info("The task was completed.")
    return see_other(back_url())


@bp.post("/cases/<int:record_id>/escalate")
def escalate(record_id: int):
    """Escalate a case with a reason."""
    with ui() as (db, actor):
        services.escalate_case(db, actor, record_id, _form("reason"), _form("ticket"))
    flash_info("The case was escalated.")
    return see_other(_record_url("case", record_id))


@bp.get("/leads/<int:record_id>/convert")
def convert_page(record_id: int):
    """The conversion form: existing or new account, and the opportunity to open."""
    with ui() as (db, actor):
        found = services.get_lead(db, actor, record_id)
        matches = services.list_accounts(db, actor, found.company[:40], limit=10).items
        return render_template("crm/convert.html", record=found, matches=matches, industries=INDUSTRIES,
                               sizes=SIZES, regions=REGIONS, stages=OPEN_STAGES)


@bp.post("/leads/<int:record_id>/convert")
def convert(record_id: int):
    """Convert the lead, all or nothing."""
    with ui() as (db, actor):
        lead = services.convert_lead(db, actor, record_id, _form("account") or None,
                                     request.form.get("create_opportunity") == "yes", _form("opportunity_name"),
                                     _form("amount") or "0", _form("close_date") or None,
                                     _form("stage") or "Qualification", _form("industry"), _form("size"),
                                     _form("region"))
        target = _record_url("account", lead.converted_account_id)
    flash_info("The lead was converted.")
    return see_other(target)


@bp.context_processor
def choices():
    """Option lists every CRM template may need."""
    return {"activity_kinds": ACTIVITY_KINDS}
