"""Org tools through the real MCP client: each result is checked against the directory tables."""

from __future__ import annotations

import anyio
import pytest
from mcp.client import Client
from sqlalchemy import func, select

from officegym.apps.org.models import Department, Person, Team
from officegym.worlds import content_hash


def call(episode, name: str, args: dict | None = None):
    """One tool call through the SDK client, in-process."""

    async def run():
        async with Client(episode.mcp_server()) as client:
            return await client.call_tool(name, args or {})

    return anyio.run(run)


def ok(episode, name: str, args: dict | None = None) -> dict:
    """The structured content of a call that must succeed."""
    result = call(episode, name, args)
    assert not result.is_error, result.content
    return result.structured_content


def error(episode, name: str, args: dict | None = None) -> str:
    """The message of a call that must fail."""
    result = call(episode, name, args)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_search_people_finds_by_part_of_name_and_pages(episode):
    with episode.session() as s:
        owner = episode.actor(s)
        everyone = s.scalar(select(func.count()).select_from(Person))
    word = owner.name.split()[-1][:4]
    found = ok(episode, "org_search_people", {"query": word.lower()})
    assert owner.handle in [p["handle"] for p in found["items"]]
    assert all(word.lower() in " ".join([p["name"], p["handle"], p["email"], p["title"]]).lower()
               for p in found["items"])
    first = ok(episode, "org_search_people", {"limit": 2})
    assert first["total"] == everyone and len(first["items"]) == 2 and first["next_offset"] == 2
    second = ok(episode, "org_search_people", {"limit": 2, "offset": 2})
    assert {p["id"] for p in first["items"]}.isdisjoint(p["id"] for p in second["items"])


def test_search_people_in_one_department(episode):
    with episode.session() as s:
        department = s.scalars(select(Department).order_by(Department.id)).first()
        expected = set(s.scalars(select(Person.handle).where(Person.department_id == department.id)))
    found = ok(episode, "org_search_people", {"department": department.name, "limit": 200})
    assert {p["handle"] for p in found["items"]} == expected
    assert {p["department"] for p in found["items"]} == {department.name}


def test_get_person_by_handle_email_and_id_matches_the_table(episode):
    with episode.session() as s:
        person = s.scalar(select(Person).where(Person.manager_id.is_not(None)).order_by(Person.id))
        manager, team = person.manager.handle, person.team.name if person.team else None
        department = person.department.name
    for ref in (f"@{person.handle}", person.email.upper(), person.id, person.name):
        got = ok(episode, "org_get_person", {"person": ref})
        assert got == {"id": person.id, "name": person.name, "handle": person.handle, "email": person.email,
                       "title": person.title, "department": department, "team": team, "manager": manager,
                       "location": person.location, "timezone": person.timezone, "role": person.role}


def test_get_person_unknown_says_how_to_find_someone(episode):
    message = error(episode, "org_get_person", {"person": "@nobody-by-this-handle"})
    assert "No person matches" in message and "org_search_people" in message


def test_list_direct_reports(episode):
    with episode.session() as s:
        manager_id = s.scalar(select(Person.manager_id).where(Person.manager_id.is_not(None))
                              .group_by(Person.manager_id).order_by(func.count().desc()))
        manager = s.get(Person, manager_id)
        expected = set(s.scalars(select(Person.handle).where(Person.manager_id == manager_id)))
    got = ok(episode, "org_list_direct_reports", {"person": f"@{manager.handle}"})
    assert {p["handle"] for p in got["items"]} == expected and got["total"] == len(expected)
    assert {p["manager"] for p in got["items"]} == {manager.handle}


def test_list_departments_with_headcount(episode):
    with episode.session() as s:
        departments = list(s.scalars(select(Department).order_by(Department.name)))
        people = s.scalar(select(func.count()).select_from(Person))
        teams = {d.name: [t.name for t in d.teams] for d in departments}
    got = ok(episode, "org_list_departments")
    assert [d["name"] for d in got["items"]] == [d.name for d in departments] and got["total"] == len(departments)
    assert sum(d["headcount"] for d in got["items"]) == people
    assert {d["name"]: d["teams"] for d in got["items"]} == teams


def test_get_department_by_name_and_unknown(episode):
    with episode.session() as s:
        department = s.scalars(select(Department).order_by(Department.id)).first()
        headcount = s.scalar(select(func.count()).where(Person.department_id == department.id))
    got = ok(episode, "org_get_department", {"department": department.name.upper()})
    assert (got["id"], got["headcount"]) == (department.id, headcount)
    assert department.name in error(episode, "org_get_department", {"department": "Astrology"})


def test_list_teams_all_and_by_department(episode):
    with episode.session() as s:
        teams = list(s.scalars(select(Team).order_by(Team.name)))
        department = teams[0].department
        in_department = [t.name for t in teams if t.department_id == department.id]
    got = ok(episode, "org_list_teams")
    assert [t["name"] for t in got["items"]] == [t.name for t in teams]
    filtered = ok(episode, "org_list_teams", {"department": department.slug})
    assert [t["name"] for t in filtered["items"]] == in_department


def test_get_team_with_members(episode):
    with episode.session() as s:
        team = s.scalars(select(Team).order_by(Team.id)).first()
        members = [p.handle for p in team.members]
        lead = s.get(Person, team.lead_id).handle if team.lead_id else None
    got = ok(episode, "org_get_team", {"team": team.name})
    assert [m["handle"] for m in got["members"]] == members
    assert got["member_count"] == len(members) and got["lead"] == lead
    message = error(episode, "org_get_team", {"team": "No Such Team"})
    assert "No team" in message and team.name in message


@pytest.mark.parametrize("name, args", [
    ("org_search_people", {"query": "x" * 201}),
    ("org_search_people", {"limit": 0}),
    ("org_search_people", {"department": "Astrology"}),
    ("org_get_person", {"person": ["a", "b"]}),
    ("org_list_direct_reports", {"person": "@nobody-by-this-handle"}),
    ("org_list_teams", {"department": "Astrology"}),
], ids=["query-too-long", "limit-zero", "unknown-department", "list-for-person", "unknown-manager",
        "teams-unknown-department"])
def test_bad_org_input_is_an_error_and_changes_nothing(episode, name, args):
    before = content_hash(episode.engine)
    assert error(episode, name, args)
    assert content_hash(episode.engine) == before


def test_org_reads_change_nothing(episode):
    before = content_hash(episode.engine)
    for name, args in [("org_search_people", {}), ("org_list_departments", {}), ("org_list_teams", {})]:
        ok(episode, name, args)
    assert content_hash(episode.engine) == before
