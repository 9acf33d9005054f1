"""Org tools: the company directory (people, teams, departments). All read-only."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.org import presenters, schemas, services

from .base import IdOrName, Limit, Offset, PersonRef, episode_call, page_of, tool

DepartmentRef = Annotated[IdOrName, Field(description="The department: name (e.g. Sales), slug or numeric id")]
DepartmentFilter = Annotated[IdOrName | None, Field(
    description="Only in this department (name, slug or numeric id); omit for all")]
TeamRef = Annotated[IdOrName, Field(description="The team: name, slug or numeric id")]


@tool(read_only=True)
def org_search_people(
    ctx: Context,
    query: Annotated[str, Field(max_length=200, description=(
        "Words that must all appear in the name, handle, email or job title; empty lists everyone"))] = "",
    department: DepartmentFilter = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.PersonPage:
    """Find people in the directory by part of a name, handle, email or title; use it to learn a handle."""
    with episode_call(ctx) as (session, actor):
        page = services.search_people(session, actor, query, department, offset, limit)
        return schemas.PersonPage(items=presenters.people_out(session, page.items), **presenters.page_fields(page))


@tool(read_only=True)
def org_get_me(ctx: Context) -> schemas.MeOut:
    """Get who you are (your profile: name, handle, title, team, manager) and the company's current date and time."""
    with episode_call(ctx) as (session, actor):
        person, now = services.whoami(session, actor)
        return presenters.me_out(session, person, now)


@tool(read_only=True)
def org_get_person(ctx: Context, person: PersonRef) -> schemas.PersonOut:
    """Get one person's profile: title, department, team, manager, location, timezone and workspace role."""
    with episode_call(ctx) as (session, actor):
        return presenters.person_out(session, services.get_person(session, actor, person))


@tool(read_only=True)
def org_list_direct_reports(ctx: Context, person: PersonRef, offset: Offset = 0,
                            limit: Limit = 100) -> schemas.PersonPage:
    """List the people who report directly to someone (their manager field names that person), by name."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.direct_reports(session, actor, person), offset, limit)
        return schemas.PersonPage(items=presenters.people_out(session, page.items), **presenters.page_fields(page))


@tool(read_only=True)
def org_list_departments(ctx: Context, offset: Offset = 0, limit: Limit = 100) -> schemas.DepartmentPage:
    """List the departments by name, each with its head, headcount and teams."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_departments(session, actor), offset, limit)
        return schemas.DepartmentPage(items=presenters.departments_out(session, page.items),
                                      **presenters.page_fields(page))


@tool(read_only=True)
def org_get_department(ctx: Context, department: DepartmentRef) -> schemas.DepartmentOut:
    """Get one department: its head, headcount and team names."""
    with episode_call(ctx) as (session, actor):
        return presenters.departments_out(session, [services.get_department(session, actor, department)])[0]


@tool(read_only=True)
def org_list_teams(ctx: Context, department: DepartmentFilter = None, offset: Offset = 0,
                   limit: Limit = 100) -> schemas.TeamPage:
    """List teams by name with their department, lead and size, optionally for one department."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_teams(session, actor, department), offset, limit)
        return schemas.TeamPage(items=presenters.teams_out(session, page.items), **presenters.page_fields(page))


@tool(read_only=True)
def org_get_team(ctx: Context, team: TeamRef) -> schemas.TeamDetailOut:
    """Get one team with its lead and the profile of every member."""
    with episode_call(ctx) as (session, actor):
        return presenters.team_detail_out(session, services.get_team(session, actor, team))
