"""The ticket page and every form on it: edit, assign, transitions, comments and work notes,
watching, links and the sprint. Forms hand the raw text to the services, which parse it exactly as
for the MCP tools; on the edit form a blank field means "leave as is"."""

from __future__ import annotations

from flask import render_template, request, url_for
from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.web import back_url, see_other, ui

from . import services
from .models import LEVELS, LINK_KINDS, PRIORITIES, Group
from .views import bp, flash_info, form


@bp.get("/<key>")
def ticket(key: str):
    """One ticket: fields, SLA clocks, transitions, assignment, comments, links, watchers, history."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        comments = services.list_comments(db, actor, found.key, 0, 200).items
        authors = dict(db.execute(select(Person.id, Person.name).where(
            Person.id.in_({c.author_id for c in comments}))).all())
        return render_template(
            "tickets/ticket.html", ticket=found, project=found.project, labels=services.labels_of(db, found),
            components=services.components_of(db, found), sub_tasks=services.sub_tasks(db, found),
            parent=db.get(type(found), found.parent_id) if found.parent_id else None,
            links=services.links_of(db, found, actor), watchers=services.list_watchers(db, actor, found.key),
            transitions=services.available_transitions(db, actor, found.key),
            sla=services.get_sla(db, actor, found.key), history=services.get_history(db, actor, found.key),
            comments=comments, authors=authors, can_work=services.is_worker(db, actor, found),
            group=db.get(Group, found.group_id) if found.group_id else None,
            groups=services.list_groups(db, actor), link_kinds=sorted({r for pair in LINK_KINDS.values() for r in pair}),
            sprints=[] if found.project.is_service_desk else [
                s for s in services.list_sprints(db, actor, found.project.key) if s.state != "closed"],
            watching=any(w.id == actor.id for w in services.list_watchers(db, actor, found.key)),
            now=clock.now(db))


@bp.get("/<key>/edit")
def edit_ticket(key: str):
    """The edit form, filled with the ticket's current values."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        values = {"summary": found.summary, "description": found.description, "priority": found.priority,
                  "impact": found.impact, "urgency": found.urgency,
                  "due_date": found.due_date.isoformat() if found.due_date else "",
                  "labels": " ".join(services.labels_of(db, found)),
                  "story_points": "" if found.story_points is None else str(found.story_points)}
        return render_template("tickets/ticket_form.html", editing=True, ticket=found, project=found.project,
                               values=values, priorities=PRIORITIES, levels=LEVELS,
                               components=services.list_components(db, actor, found.project.key),
                               chosen_components=services.components_of(db, found))


@bp.post("/<key>/edit")
def update_ticket(key: str):
    """Save the edit form; every field is sent, so unchanged ones are simply equal (components only
    when the form showed their checkboxes: unchecking them all clears them)."""
    with ui() as (db, actor):
        found = services.get_ticket(db, actor, key)
        is_incident = found.type == "Incident"
        services.update_ticket(
            db, actor, found.key, summary=form("summary"), description=form("description"),
            priority=None if is_incident else (form("priority") or None),
            impact=form("impact") or None if is_incident else None,
            urgency=form("urgency") or None if is_incident else None,
            due_date=form("due_date").strip(), labels=form("labels"),
            components=request.form.getlist("components") if form("components_shown") else None,
            story_points=None if found.project.is_service_desk else form("story_points").strip(),
            account=form("account").strip() if form("account").strip() else None)
        done = found.key
    flash_info(f"Saved {done}.")
    return see_other(url_for("tickets.ticket", key=done))


def _done(key: str, message: str):
    flash_info(message)
    return see_other(back_url(url_for("tickets.ticket", key=key)))


@bp.post("/<key>/assign")
def assign(key: str):
    """Set the assignee and/or the group; a blank field keeps it, '-' clears it."""
    def value(name: str):
        raw = form(name).strip()
        return None if raw == "" else "" if raw == "-" else raw
    with ui() as (db, actor):
        services.assign_ticket(db, actor, key, value("assignee"), value("group"))
    return _done(key, f"Assignment of {key.upper()} saved.")


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
    """Start or stop watching (yourself, or someone named if you work the ticket)."""
    person = form("person").strip() or None
    with ui() as (db, actor):
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
