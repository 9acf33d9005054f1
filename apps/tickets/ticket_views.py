"""The create form and the ticket page with every form on it: the status menu and the transition
form, fields edited in place, the edit form, assignment, comments and work notes, watching, links
and the sprint. Forms hand the raw text to the services, which parse it exactly as for the MCP
tools. The ticket page shows the same presentation the MCP tool returns."""

from __future__ import annotations

from flask import render_template, request, url_for

from officegym.apps.crm.models import Account
from officegym.errors import Conflict, Invalid
from officegym.web_request import arg_int, safe_target, see_other, ui

from . import presenters, services
from .blueprint import arg, back_to, bp, flash_info, form, sent
from .models import LEVELS, LINK_KINDS, PRIORITIES, SERVICE_TYPES, SOFTWARE_TYPES

COMMENTS = 100


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


@bp.get("/<key>")
def ticket(key: str):
    """One ticket: the status menu, fields editable in place, SLA clocks, comments, links, watchers,
    history. `?edit=<field>` opens that field's editor (the page's editors without JavaScript)."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        detail = presenters.ticket_detail_out(db, actor, found)
        comments = services.list_comments(db, actor, found.key, arg_int("offset", 0), COMMENTS)
        software = not found.project.is_service_desk
        sprints = services.list_sprints(db, actor, found.project.key) if software else []
        parent = services.get_ticket(db, actor, detail.parent) if detail.parent else None
        return render_template(
            "tickets/ticket.html", ticket=detail, project=found.project, comments=comments,
            comment_rows=presenters.comments_out(db, comments.items),
            history=presenters.history_out(db, services.get_history(db, actor, found.key)),
            groups=services.list_groups(db, actor),
            link_kinds=sorted({r for pair in LINK_KINDS.values() for r in pair}),
            sprints=[s for s in sprints if s.state != "closed" or s.id == found.sprint_id],
            components=services.list_components(db, actor, found.project.key), priorities=PRIORITIES,
            levels=LEVELS, parent=parent, editing=request.args.get("edit", ""),
            watching=any(w.id == actor.id for w in detail.watchers))


@bp.get("/<key>/edit")
def edit_ticket(key: str):
    """The edit form, filled with the ticket's current values."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        values = {"summary": found.summary, "description": found.description, "priority": found.priority,
                  "impact": found.impact, "urgency": found.urgency,
                  "due_date": found.due_date.isoformat() if found.due_date else "",
                  "labels": " ".join(services.labels_of(db, found)),
                  "story_points": "" if found.story_points is None else str(found.story_points),
                  "account": db.get(Account, found.account_id).name if found.account_id else ""}
        return render_template("tickets/ticket_form.html", editing=True, ticket=found, project=found.project,
                               values=values, priorities=PRIORITIES, levels=LEVELS,
                               components=services.list_components(db, actor, found.project.key),
                               chosen_components=services.components_of(db, found))


@bp.post("/<key>/edit")
def update_ticket(key: str):
    """Save the edit form or one field edited in place. A field the form does not send is kept; a
    blank due date, story points or account clears it, blank labels clear them (components only when
    the form showed their checkboxes: unchecking them all clears them)."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        is_incident = found.type == "Incident"
        services.update_ticket(
            db, actor, found.key, summary=request.form.get("summary"), description=request.form.get("description"),
            priority=None if is_incident else (form("priority") or None),
            impact=form("impact") or None if is_incident else None,
            urgency=form("urgency") or None if is_incident else None,
            due_date=sent("due_date"), labels=request.form.get("labels"),
            components=request.form.getlist("components") if form("components_shown") else None,
            story_points=None if found.project.is_service_desk else sent("story_points"),
            account=sent("account"))
        done = found.key
    return back_to(f"Saved {done}.", "tickets.ticket", key=done)


def _done(key: str, message: str):
    """Flash `message` and go back to where the form came from, else to the ticket `key`."""
    return back_to(message, "tickets.ticket", key=key)


@bp.post("/<key>/assign")
def assign(key: str):
    """Set the assignee and/or the group: a field the form does not send is kept, a blank one or '-'
    clears it."""
    def value(name: str):
        """The field as sent: None when absent (kept), '' for a blank or '-' (cleared)."""
        raw = sent(name)
        return "" if raw == "-" else raw
    with ui() as (db, actor):
        services.assign_ticket(db, actor, key, value("assignee"), value("group"))
    return _done(key, f"Assignment of {key.upper()} saved.")


@bp.get("/<key>/transition")
def transition_form(key: str):
    """The form of a transition that needs input: its resolution and an optional comment."""
    name = arg("name")
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        offered = services.available_transitions(db, actor, found.key)
        chosen = next((t for t in offered if t.name.lower() == name.lower()), None)
        if chosen is None:
            listed = ", ".join(repr(t.name) for t in offered) or "none"
            raise Conflict(f"{found.key} is {found.status}; {name!r} is not a transition from there. "
                           f"Available: {listed}.")
        back = arg("next")
        if not safe_target(back):
            back = url_for("tickets.ticket", key=found.key)  # only a page of this episode
        return render_template("tickets/transition_form.html", ticket=found, transition=chosen, back=back)


@bp.post("/<key>/transition")
def transition(key: str):
    """Take one transition, with its resolution and an optional comment."""
    with ui() as (db, actor):
        moved = services.transition_ticket(db, actor, key, form("transition"), form("resolution") or None,
                                           form("comment") or None)
        status = moved.status
    return _done(key, f"{key.upper()} is now {status}.")


@bp.post("/<key>/comment")
def comment(key: str):
    """A public comment, or an internal work note when `internal` is set."""
    with ui() as (db, actor):
        if form("internal"):
            services.add_work_note(db, actor, key, form("body"))
        else:
            services.add_comment(db, actor, key, form("body"))
    return _done(key, "Work note added." if form("internal") else "Comment added.")


@bp.post("/<key>/watch")
def watch(key: str):
    """Start or stop watching: yourself, or the people named (comma-separated) if you work the ticket."""
    people = [p.strip() for p in form("person").split(",") if p.strip()] or [None]
    with ui() as (db, actor):
        for person in people:
            if form("stop"):
                services.unwatch_ticket(db, actor, key, person)
            else:
                services.watch_ticket(db, actor, key, person)
    return _done(key, "Watchers updated.")


@bp.post("/<key>/links")
def link(key: str):
    """Add a link, or remove one when `remove` is set."""
    with ui() as (db, actor):
        if form("remove"):
            services.unlink_tickets(db, actor, key, form("kind"), form("other").strip())
        else:
            services.link_tickets(db, actor, key, form("kind"), form("other").strip())
    return _done(key, "Links updated.")


@bp.post("/<key>/sprint")
def sprint(key: str):
    """Put the ticket in a sprint, or back in the backlog."""
    with ui() as (db, actor):
        if "sprint" not in request.form:
            raise Invalid("Choose a sprint, or the backlog.")
        services.set_sprint(db, actor, key, form("sprint"))
    return _done(key, "Sprint updated.")
