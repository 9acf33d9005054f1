"""Org tools through the real MCP client: each result is checked against the directory tables."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from officegym.apps.org.models import Department, Person, Team


def test_search_people_finds_by_part_of_name_and_pages(agent):
    with agent.episode.session() as s:
        owner = agent.episode.actor(s)
        everyone = s.scalar(select(func.count()).select_from(Person))
    word = owner.name.split()[-1][:4].lower()
    found = agent.ok("org_search_people", {"query": word})
    assert owner.handle in [p["handle"] for p in found["items"]]
    assert all(word in " ".join([p["name"], p["handle"], p["email"], p["title"]]).lower() for p in found["items"])
    first = agent.ok("org_search_people", {"limit": 2})
    assert first["total"] == everyone and len(first["items"]) == 2 and first["next_offset"] == 2
    second = agent.ok("org_search_people", {"limit": 2, "offset": 2})
    assert {p["id"] for p in first["items"]}.isdisjoint(p["id"] for p in second["items"])
    assert agent.ok("org_search_people", {"query": "_"})["total"] == 0  # LIKE wildcards match themselves


def test_search_people_in_one_department(agent):
    with agent.episode.session() as s:
        department = s.scalars(select(Department).order_by(Department.id)).first()
        expected = set(s.scalars(select(Person.handle).where(Person.department_id == department.id)))
    for ref in (department.name, department.slug, department.id):
        found = agent.ok("org_search_people", {"department": ref, "limit": 200})
        assert {p["handle"] for p in found["items"]} == expected and found["total"] == len(expected)
        assert {p["department"] for p in found["items"]} == {department.name}


def test_get_person_by_handle_email_id_and_name_matches_the_table(agent):
    with agent.episode.session() as s:
        person = s.scalar(select(Person).where(Person.manager_id.is_not(None)).order_by(Person.id))
        manager, team = person.manager.handle, person.team.name if person.team else None
        department = person.department.name
    for ref in (f"@{person.handle}", person.email.upper(), person.id, str(person.id), person.name):
        assert agent.ok("org_get_person", {"person": ref}) == {
            "id": person.id, "name": person.name, "handle": person.handle, "email": person.email,
            "title": person.title, "department": department, "team": team, "manager": manager,
            "location": person.location, "timezone": person.timezone, "role": person.role}


def test_list_direct_reports(agent):
    with agent.episode.session() as s:
        manager_id = s.scalar(select(Person.manager_id).where(Person.manager_id.is_not(None))
                              .group_by(Person.manager_id).order_by(func.count().desc()))
        manager = s.get(Person, manager_id)
        expected = list(s.scalars(select(Person.handle).where(Person.manager_id == manager_id)
                                  .order_by(Person.name)))
    got = agent.ok("org_list_direct_reports", {"person": f"@{manager.handle}"})
    assert [p["handle"] for p in got["items"]] == expected and got["total"] == len(expected)
    assert {p["manager"] for p in got["items"]} == {manager.handle} and got["next_offset"] is None
    page = agent.ok("org_list_direct_reports", {"person": manager.id, "offset": 1, "limit": 1})
    assert [p["handle"] for p in page["items"]] == expected[1:2] and page["total"] == len(expected)


def test_list_departments_with_headcount(agent):
    with agent.episode.session() as s:
        departments = list(s.scalars(select(Department).order_by(Department.name)))
        people = s.scalar(select(func.count()).select_from(Person))
        teams = {d.name: [t.name for t in d.teams] for d in departments}
        heads = {d.name: s.get(Person, d.head_id).handle for d in departments}
    got = agent.ok("org_list_departments")
    assert [d["name"] for d in got["items"]] == [d.name for d in departments] and got["total"] == len(departments)
    assert sum(d["headcount"] for d in got["items"]) == people
    assert {d["name"]: d["teams"] for d in got["items"]} == teams
    assert {d["name"]: d["head"] for d in got["items"]} == heads
    assert agent.ok("org_list_departments", {"limit": 1})["next_offset"] == (1 if len(departments) > 1 else None)


def test_get_department_by_name_and_unknown(agent):
    with agent.episode.session() as s:
        department = s.scalars(select(Department).order_by(Department.id)).first()
        headcount = s.scalar(select(func.count()).where(Person.department_id == department.id))
    got = agent.ok("org_get_department", {"department": department.name.upper()})
    assert (got["id"], got["slug"], got["headcount"]) == (department.id, department.slug, headcount)
    assert department.name in agent.fails("org_get_department", {"department": "Astrology"}, "No department")


def test_list_teams_all_and_by_department(agent):
    with agent.episode.session() as s:
        teams = list(s.scalars(select(Team).order_by(Team.name)))
        department = teams[0].department
        in_department = [t.name for t in teams if t.department_id == department.id]
        sizes = {t.name: len(t.members) for t in teams}
    got = agent.ok("org_list_teams")
    assert [t["name"] for t in got["items"]] == [t.name for t in teams] and got["total"] == len(teams)
    assert {t["name"]: t["member_count"] for t in got["items"]} == sizes
    filtered = agent.ok("org_list_teams", {"department": department.slug})
    assert [t["name"] for t in filtered["items"]] == in_department
    assert {t["department"] for t in filtered["items"]} == {department.name}


def test_get_team_with_members(agent):
    with agent.episode.session() as s:
        team = s.scalars(select(Team).order_by(Team.id)).first()
        members = [p.handle for p in team.members]
        lead = s.get(Person, team.lead_id).handle if team.lead_id else None
    for ref in (team.name, team.slug, team.id):
        got = agent.ok("org_get_team", {"team": ref})
        assert [m["handle"] for m in got["members"]] == members
        assert got["member_count"] == len(members) and got["lead"] == lead and got["id"] == team.id
    assert team.name in agent.fails("org_get_team", {"team": "No Such Team"}, "No team")


@pytest.mark.parametrize("name, args, says", [
    ("org_search_people", {"query": "x" * 201}, "at most 200 characters"),
    ("org_search_people", {"limit": 0}, "greater than or equal to 1"),
    ("org_search_people", {"department": "Astrology"}, "No department 'Astrology'"),
    ("org_search_people", {"dept": "Sales"}, "has no argument 'dept'"),
    ("org_get_person", {"person": ["a", "b"]}, "valid string"),
    ("org_get_person", {"person": "@nobody-by-this-handle"}, "use org_search_people"),
    ("org_get_person", {"person": 10**30}, "No person has id"),
    ("org_get_person", {"person": " "}, "is required"),
    ("org_list_direct_reports", {"person": "@nobody-by-this-handle"}, "No person matches"),
    ("org_list_departments", {"offset": -1}, "greater than or equal to 0"),
    ("org_get_department", {"department": 10**30}, "No department"),
    ("org_list_teams", {"department": "Astrology"}, "No department"),
    ("org_get_team", {}, "team: field required"),
], ids=["query-too-long", "limit-zero", "unknown-department", "unknown-argument", "list-for-person",
        "unknown-person", "huge-id", "blank-person", "unknown-manager", "negative-offset",
        "huge-department-id", "teams-unknown-department", "team-missing"])
def test_bad_org_input_is_an_error_and_changes_nothing(agent, name, args, says):
    agent.fails(name, args, says)



def test_get_me_tells_who_i_am_and_the_company_time(small_episode, agent_as):
    from officegym import clock

    with small_episode.session() as s:
        handle = s.scalar(select(Person.handle).where(Person.manager_id.is_not(None)).order_by(Person.id.desc()))
    me = agent_as(handle)
    with me.episode.session() as s:
        now = clock.now(s)
    got = me.ok("org_get_me")
    assert got == {**me.ok("org_get_person", {"person": handle}), "now": now.isoformat(timespec="seconds"),
                   "weekday": now.strftime("%A")}
    me.ok("chat_post_message", {"channel": "general", "text": "morning"})  # a write moves the company clock
    with me.episode.session() as s:
        assert me.ok("org_get_me")["now"] == clock.now(s).isoformat(timespec="seconds") > got["now"]
