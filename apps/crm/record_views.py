"""CRM record pages (account, contact, lead, opportunity, case) and the create and edit forms.

Forms hand the raw text to the services ("$120,000", "2026-03-31", "15"), which parse it the same
way for the UI and MCP. On an edit form a blank field means "leave as is". The inline edits of a
record page post one field to the same update view. The actions live in action_views.py."""

from __future__ import annotations

import inspect

from flask import render_template, request, url_for

from officegym.web_request import see_other, ui

from . import services
from .blueprint import bp, flash_info, form_value, record_url
from .fields import dollars
from .models import LOSS_REASONS, OPEN_STAGES, STAGES
from .record_fields import (CLEARABLE, FORMS, HIGHLIGHTS, PICKERS, current_values, edit_fields, locked_fields,
                            record_fields, same_value)

KINDS = "<any(account, contact, lead, opportunity, case):kind>"
CREATE = {"account": services.create_account, "contact": services.create_contact, "lead": services.create_lead,
          "opportunity": services.create_opportunity, "case": services.create_case}
UPDATE = {"account": services.update_account, "contact": services.update_contact, "lead": services.update_lead,
          "opportunity": services.update_opportunity, "case": services.update_case}
GET = {"account": services.get_account, "contact": services.get_contact, "lead": services.get_lead,
       "opportunity": services.get_opportunity, "case": services.get_case}


# ---------------------------------------------------------------- create and edit

@bp.get(f"/{KINDS}/new")
def new_record(kind: str):
    """An empty create form (fields may be pre-filled from the query string); a choice left blank
    takes the default the service names, and the form says which."""
    signature = inspect.signature(CREATE[kind]).parameters
    defaults = {name: signature[name].default for name, _label, options, _req in FORMS[kind] if options}
    with ui():
        return render_template("crm/record_form.html", kind=kind, fields=FORMS[kind], values=request.args,
                               editing=False, pickers=PICKERS, focus="", defaults=defaults,
                               action=url_for("crm.create_record", kind=kind))


@bp.post(f"/{KINDS}/new")
def create_record(kind: str):
    """Create a record from the form; blank optional fields take their defaults."""
    values = {name: form_value(name) for name, *_ in FORMS[kind] if form_value(name).strip()}
    for name, _label, _options, required in FORMS[kind]:
        if required:
            values.setdefault(name, "")
    with ui() as (db, actor):
        record = CREATE[kind](db, actor, **values)
        target = record_url(kind, record.id)
    flash_info(f"The {kind} was created.")
    return see_other(target)


@bp.get(f"/{KINDS}/<int:record_id>/edit")
def edit_record(kind: str, record_id: int):
    """The edit form showing the current values (`?focus=<field>` puts the cursor in one field)."""
    with ui() as (db, actor):
        record = GET[kind](db, actor, record_id)
        return render_template("crm/record_form.html", kind=kind, fields=edit_fields(kind), editing=True,
                               values=current_values(db, actor, kind, record), record=record, pickers=PICKERS,
                               locked=locked_fields(db, kind, record),
                               focus=request.args.get("focus", ""),
                               action=url_for("crm.update_record", kind=kind, record_id=record_id))


@bp.post(f"/{KINDS}/<int:record_id>/edit")
def update_record(kind: str, record_id: int):
    """Apply the fields that differ from what the record holds (blank = unchanged)."""
    with ui() as (db, actor):
        record = GET[kind](db, actor, record_id)
        held = current_values(db, actor, kind, record)
        changes = {name: form_value(name) for name, *_ in edit_fields(kind)
                   if name in request.form and not same_value(name, form_value(name), held[name])}
        UPDATE[kind](db, actor, record_id, **{k: v for k, v in changes.items() if v.strip() or k in CLEARABLE})
    flash_info(f"The {kind} was saved.")
    return see_other(record_url(kind, record_id))


# ---------------------------------------------------------------- record pages

def _page(db, actor, kind: str, record, sales: bool, **extra):
    """Render a record page: highlights, details with inline edits, related lists and activity."""
    can_edit = sales and services.scope_of(db, actor).can_edit(record.owner_id)
    editable = can_edit and not (kind == "opportunity" and record.is_closed)
    shown = record_fields(db, actor, kind, record, editable)
    related = {"activities": services.list_activities(db, actor, kind, record.id, limit=50).items,
               "history": services.record_history(db, actor, kind, record.id, limit=50).items} if sales \
        else {"activities": [], "history": []}
    return render_template(f"crm/{kind}.html", record=record, kind=kind, sales=sales, editable=editable,
                           can_edit=can_edit,
                           shown=shown, highlights=[shown[n] for n in HIGHLIGHTS[kind]], dollars=dollars,
                           **related, **extra)


def _is_sales(db, actor) -> bool:
    scope = services.scope_of(db, actor)
    return scope.is_sales or scope.is_admin


@bp.get("/accounts/<int:record_id>")
def account(record_id: int):
    """An account with its family, contacts, deals, cases, activities and history."""
    with ui() as (db, actor):
        found, sales = services.get_account(db, actor, record_id), _is_sales(db, actor)
        return _page(db, actor, "account", found, sales, children=services.child_accounts(db, actor, record_id),
                     contacts=services.list_contacts(db, actor, account=record_id, limit=100).items,
                     deals=services.list_opportunities(db, actor, account=record_id, limit=100).items if sales else [],
                     cases=services.list_cases(db, actor, account=record_id, limit=100).items if sales else [])


@bp.get("/contacts/<int:record_id>")
def contact(record_id: int):
    """A contact and what was logged on them."""
    with ui() as (db, actor):
        return _page(db, actor, "contact", services.get_contact(db, actor, record_id), _is_sales(db, actor))


@bp.get("/leads/<int:record_id>")
def lead(record_id: int):
    """A lead, with a link to convert it."""
    with ui() as (db, actor):
        found = services.get_lead(db, actor, record_id)
        converted = services.get_account(db, actor, found.converted_account_id) if found.converted_account_id \
            else None
        return _page(db, actor, "lead", found, True, converted=converted)


@bp.get("/opportunities/<int:record_id>")
def opportunity(record_id: int):
    """A deal: stage path, highlights, fields, products, discount approvals, activities and history."""
    with ui() as (db, actor):
        found = services.get_opportunity(db, actor, record_id)
        approvals = services.list_approvals(db, actor, limit=200, opportunity=record_id).items
        stage = found.stage
        following = OPEN_STAGES[OPEN_STAGES.index(stage) + 1] if stage in OPEN_STAGES[:-1] else None
        return _page(db, actor, "opportunity", found, True, items=services.line_items(db, actor, record_id),
                     approvals=approvals, products=services.list_products(db, actor, limit=200).items,
                     stages=STAGES, open_stages=OPEN_STAGES, loss_reasons=LOSS_REASONS, following=following)


@bp.get("/cases/<int:record_id>")
def case(record_id: int):
    """A case, with its escalation form."""
    with ui() as (db, actor):
        return _page(db, actor, "case", services.get_case(db, actor, record_id), True)
