"""CRM actions: the stage path (move, close, reopen), products and discounts, activities and tasks,
case escalation and lead conversion. Each parses the form, calls one service and redirects."""

from __future__ import annotations

from flask import render_template, request, url_for

from officegym.web_request import back_url, see_other, ui

from . import services
from .blueprint import bp, flash_info, form_value, record_url
from .models import CLOSED_STAGES, INDUSTRIES, LOSS_REASONS, OPEN_STAGES, REGIONS, SIZES


@bp.post("/opportunities/<int:record_id>/stage")
def move_stage(record_id: int):
    """Move a deal along the sales path (loss reason and competitor when closing it lost); back to
    the page the move was made from (the record, the Kanban board)."""
    with ui() as (db, actor):
        found = services.move_stage(db, actor, record_id, form_value("stage"), form_value("loss_reason"),
                                    form_value("competitor"))
        name, stage = found.name, found.stage
    flash_info(f"{name} moved to {stage}.")
    return see_other(back_url(record_url("opportunity", record_id)))


@bp.get("/opportunities/<int:record_id>/close")
def close_page(record_id: int):
    """The closing form: Closed Won or Closed Lost (`?stage=`), and for a loss its reason and the
    competitor who won."""
    wanted = request.args.get("stage", "")
    with ui() as (db, actor):
        found = services.get_opportunity(db, actor, record_id)
        return render_template("crm/close.html", record=found, stage=wanted if wanted in CLOSED_STAGES else "",
                               closed_stages=CLOSED_STAGES, loss_reasons=LOSS_REASONS)


@bp.post("/opportunities/<int:record_id>/reopen")
def reopen(record_id: int):
    """Reopen a closed deal into the open stage the form names."""
    with ui() as (db, actor):
        services.reopen(db, actor, record_id, form_value("stage"))
    flash_info("The opportunity was reopened.")
    return see_other(record_url("opportunity", record_id))


@bp.post("/opportunities/<int:record_id>/line-items")
def add_line_item(record_id: int):
    """Add a product at its list price."""
    with ui() as (db, actor):
        services.add_line_item(db, actor, record_id, form_value("product"), form_value("quantity") or "1",
                               form_value("discount") or "0", form_value("price_book") or None)
    flash_info("The product was added.")
    return see_other(record_url("opportunity", record_id, "related"))


@bp.post("/line-items/<int:item_id>/<any(update, remove, discount):action>")
def line_item_action(item_id: int, action: str):
    """Change, remove or ask for a bigger discount on one line item."""
    with ui() as (db, actor):
        if action == "update":
            services.update_line_item(db, actor, item_id, form_value("quantity") or None,
                                      form_value("discount") or None)
        elif action == "remove":
            services.remove_line_item(db, actor, item_id)
        else:
            services.request_discount(db, actor, item_id, form_value("discount"), form_value("reason"))
    flash_info({"update": "The line item was saved.", "remove": "The line item was removed.",
                "discount": "The discount request was sent to the deal owner's manager."}[action])
    return see_other(back_url())


@bp.post("/approvals/<int:approval_id>/<any(approve, reject):decision>")
def decide(approval_id: int, decision: str):
    """Approve or reject a discount request (the deal owner's manager)."""
    with ui() as (db, actor):
        (services.approve_discount if decision == "approve" else services.reject_discount)(
            db, actor, approval_id, form_value("note"))
    flash_info(f"The discount request was {decision}d.")
    return see_other(back_url())


@bp.post("/<any(account, contact, lead, opportunity, case):kind>/<int:record_id>/activities")
def log_activity(kind: str, record_id: int):
    """Log a call, email, meeting, note or task on a record."""
    with ui() as (db, actor):
        services.log_activity(db, actor, kind, record_id, form_value("kind"), form_value("subject"),
                              form_value("body"), form_value("due_date") or None)
    flash_info("The activity was logged.")
    return see_other(record_url(kind, record_id, "activity"))


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
        services.escalate_case(db, actor, record_id, form_value("reason"), form_value("ticket"))
    flash_info("The case was escalated.")
    return see_other(record_url("case", record_id))


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
    stage = {"stage": form_value("stage")} if form_value("stage") else {}  # blank: the service's default
    with ui() as (db, actor):
        lead = services.convert_lead(db, actor, record_id, form_value("account") or None,
                                     request.form.get("create_opportunity") == "yes", form_value("opportunity_name"),
                                     form_value("amount") or "0", form_value("close_date") or None,
                                     industry=form_value("industry"), size=form_value("size"),
                                     region=form_value("region"), **stage)
        target = url_for("crm.account", record_id=lead.converted_account_id)
    flash_info("The lead was converted.")
    return see_other(target)
