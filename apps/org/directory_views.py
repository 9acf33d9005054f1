"""Directory pages: people (search, department filter), profiles, teams and departments.
Read-only: every write a person makes from here (e.g. 'Message') goes to another app's form."""

from __future__ import annotations

from flask import render_template, request

from officegym.web_request import arg_int, ui

from . import services
from .blueprint import PAGE, bp


@bp.get("/")
def people():
    """Everyone, or those matching a search, optionally in one department."""
    query = request.args.get("q", "")
    department = request.args.get("department") or None
    offset = arg_int("offset", 0)
    with ui() as (db, actor):
        page = services.search_people(db, actor, query, department, offset, PAGE)
        return render_template("org/people.html", page=page, q=query, department=department,
                               departments=services.list_departments(db, actor))


@bp.get("/people/<ref>")
def person(ref: str):
    """One profile: job, place in the org chart and contact details."""
    with ui() as (db, actor):
        found = services.get_person(db, actor, ref)
        reports = services.direct_reports(db, actor, found.id)
        return render_template("org/person.html", person=found, reports=reports)


@bp.get("/departments")
def departments():
    """Every department with its teams."""
    with ui() as (db, actor):
        return render_template("org/departments.html", departments=services.list_departments(db, actor))


@bp.get("/departments/<ref>")
def department(ref: str):
    """A department: its head, teams and people."""
    offset = arg_int("offset", 0)
    with ui() as (db, actor):
        found = services.get_department(db, actor, ref)
        head = services.get_person(db, actor, found.head_id) if found.head_id else None
        page = services.search_people(db, actor, "", found.slug, offset, PAGE)
        return render_template("org/department.html", department=found, head=head, page=page)


@bp.get("/teams/<ref>")
def team(ref: str):
    """A team: its lead, department and members."""
    with ui() as (db, actor):
        found = services.get_team(db, actor, ref)
        lead = services.get_person(db, actor, found.lead_id) if found.lead_id else None
        return render_template("org/team.html", team=found, lead=lead)
