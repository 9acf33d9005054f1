"""Org tools: the company directory (people, teams, departments). All read-only."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field, StringConstraints

from officegym.apps.org import schemas, services

from .base import episode_call, tool

PersonRef = Annotated[int | Annotated[str, StringConstraints(max_length=160)], Field(
    description="The person: @handle, email, exact full name or numeric id")]
DepartmentRef = Annotated[int | Annotated[str, StringConstraints(max_length=80)], Field(
    description="The department: name (e.g. Sales), slug or numeric id")]
TeamRef = Annotated[int | Annotated[str, StringConstraints(max_length=80)], Field(
    description="The team: name, slug or numeric id")]
Offset = Annotated[int, Field(ge=0, description="How many results to skip; pass next_offset from the previous page")]
Limit = Annotated[int, Field(ge=1, le=200, description="Most results to return (1-200)")]


@tool(read_only=True)
def org_search_people(
    ctx: Context,
    query: Annotated[str, Field(max_length=200, description=(
        "Words that must all appear in the name, handle, email or job title; empty lists everyone"))] = "",
    department: Annotated[int | Annotated[str, StringConstraints(max_length=80)] | None, Field(
        description="Only people in this department (name, slug or id); omit for all")] = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.PersonPage:
    """Find people in the company directory by part of a name, handle, email or title; use it to learn someone's handle."""
    with episode_call(ctx) as (session, actor):
        page = services.search_people(session, actor, query, department, offset, limit)
        return schemas.PersonPage(items=schemas.people_out(session, page.items), **schemas.page_fields(page))


@tool(read_only=True)
def org_get_person(ctx: Context, person: PersonRef) -> schemas.PersonOut:
    """Get one person's profile: title, department, team, manager, location, timezone and workspace role."""
    with episode_call(ctx) as (session, actor):
        return schemas.person_out(session, services.get_person(session, actor, person))


@tool(read_only=True)
def org_list_direct_reports(ctx: Context, person: PersonRef) -> schemas.PeopleOut:
    """List the people who report directly to someone (their manager field names that person)."""
    with episode_call(ctx) as (session, actor):
        people = services.direct_reports(session, actor, person)
        return schemas.PeopleOut(items=schemas.people_out(session, people), total=len(people))


@tool(read_only=True)
def org_list_departments(ctx: Context) -> schemas.DepartmentsOut:
    """List every department with its head, headcount and teams."""
    with episode_call(ctx) as (session, actor):
        departments = services.list_departments(session, actor)
        return schemas.DepartmentsOut(items=schemas.departments_out(session, departments), total=len(departments))


@tool(read_only=True)
def org_get_department(ctx: Context, department: DepartmentRef) -> schemas.DepartmentOut:
    """Get one department: its head, headcount and team names."""
    with episode_call(ctx) as (session, actor):
        return schemas.departments_out(session, [services.get_department(session, actor, department)])[0]


@tool(read_only=True)
def org_list_teams(
    ctx: Context,
    department: Annotated[int | Annotated[str, StringConstraints(max_length=80)] | None, Field(
        description="Only teams of this department (name, slug or id); omit for every team")] = None,
) -> schemas.TeamsOut:
    """List teams with their department, lead and size, optionally for one department."""
    with episode_call(ctx) as (session, actor):
        teams = services.list_teams(session, actor, department)
        return schemas.TeamsOut(items=schemas.teams_out(session, teams), total=len(teams))


@tool(read_only=True)
def org_get_team(ctx: Context, team: TeamRef) -> schemas.TeamDetailOut:
    """Get one team with its lead and the profile of every member."""
    with episode_call(ctx) as (session, actor):
        return schemas.team_detail_out(session, services.get_team(session, actor, team))
