"""Directory pages: people search and paging, profiles, teams and departments, bad input."""

from __future__ import annotations

import re

from sqlalchemy import select

from officegym.apps.org.models import Department, Person, Team

from ui_helpers import error_message, text_of


def handles_on(response) -> list[str]:
    """The people rows of a page, by handle, in order."""
    return re.findall(r'data-testid="person-([a-z0-9._-]+)"', text_of(response))


def test_people_page_lists_everyone_by_name(browser):
    with browser.db() as db:
        everyone = [p.handle for p in db.scalars(select(Person).order_by(Person.name, Person.id))]
    response = browser.get("/org/")
    assert response.status_code == 200
    assert handles_on(response) == everyone[:50]
    assert f"{len(everyone)} people" in text_of(response)


def test_search_finds_people_by_part_of_a_name_and_title(browser):
    with browser.db() as db:
        target = db.scalars(select(Person).order_by(Person.id)).all()[3]
    response = browser.get("/org/", query_string={"q": target.name.split()[-1].lower()})
    assert target.handle in handles_on(response)
    with browser.db() as db:
        others = [p.handle for p in db.scalars(select(Person)) if target.name.split()[-1].lower() not in
                  f"{p.name} {p.handle} {p.email} {p.title}".lower()]
    assert not set(others) & set(handles_on(response))
    nobody = browser.get("/org/", query_string={"q": "zzzz-nobody"})
    assert handles_on(nobody) == [] and "0 people" in text_of(nobody)


def test_department_filter_and_paging(browser):
    with browser.db() as db:
        department = db.scalars(select(Department).order_by(Department.id)).first()
        members = {p.handle for p in db.scalars(select(Person).where(Person.department_id == department.id))}
        total = len(db.scalars(select(Person)).all())
    filtered = browser.get("/org/", query_string={"department": department.slug})
    assert set(handles_on(filtered)) == members
    second = browser.get("/org/", query_string={"offset": 10})
    assert len(handles_on(second)) == total - 10
    assert 'data-testid="page-previous"' in text_of(second)
    assert f"11–{total} of {total}" in text_of(second)


def test_profile_shows_every_fact_with_links(browser):
    with browser.db() as db:
        someone = db.scalar(select(Person).where(Person.manager_id.is_not(None), Person.team_id.is_not(None))
                            .order_by(Person.id))
        facts = (someone.name, someone.email, someone.title, someone.department.name, someone.location,
                 someone.timezone, someone.role, someone.team.name, someone.manager.name)
        manager, team = someone.manager.handle, someone.team.slug
    page = text_of(browser.get(f"/org/people/{someone.handle}"))
    for fact in facts:
        assert fact in page
    assert f'href="/e/{browser.episode.id}/org/people/{manager}" data-testid="profile-manager"' in page
    assert f'/org/teams/{team}" data-testid="profile-team"' in page
    assert browser.get(f"/org/people/{someone.email}").status_code == 200  # by email works too


def test_team_and_department_pages_list_their_people(browser):
    with browser.db() as db:
        team = db.scalars(select(Team).order_by(Team.id)).first()
        members = {p.handle for p in team.members}
        department = team.department
        in_department = {p.handle for p in db.scalars(select(Person).where(Person.department_id == department.id))}
        slug, dept_slug, lead = team.slug, department.slug, db.get(Person, team.lead_id).name
    team_page = browser.get(f"/org/teams/{slug}")
    assert set(handles_on(team_page)) == members and lead in text_of(team_page)
    department_page = browser.get(f"/org/departments/{dept_slug}")
    assert set(handles_on(department_page)) == in_department
    assert f'data-testid="team-link-{slug}"' in text_of(department_page)
    assert f'data-testid="department-{dept_slug}"' in text_of(browser.get("/org/departments"))


def test_unknown_records_and_bad_paging_are_clear_errors(browser):
    missing = browser.get("/org/people/nobody.here")
    assert missing.status_code == 404 and "No person matches 'nobody.here'" in error_message(missing)
    assert browser.get("/org/people/99999").status_code == 404
    assert browser.get("/org/teams/no-such-team").status_code == 404
    assert "No department" in error_message(browser.get("/org/departments/nope"))
    bad = browser.get("/org/", query_string={"offset": "abc"})
    assert bad.status_code == 400 and "'offset' must be a whole number" in error_message(bad)
    assert browser.get("/org/", query_string={"department": "nope"}).status_code == 404


def test_every_page_shows_the_company_date_and_time_as_get_me_does(browser):
    from officegym import clock

    with browser.db() as db:
        now = clock.now(db)
    page = text_of(browser.get("/org/"))
    shown = re.search(r'<time[^>]*datetime="([^"]+)"[^>]*data-testid="company-now">([^<]+)</time>', page)
    assert shown and shown.group(1) == now.isoformat(timespec="minutes")
    assert shown.group(2) == now.strftime("%A %d %B %Y, %H:%M")


def _title(response) -> str:
    return re.search(r"<title>(.*?)</title>", response.get_data(as_text=True), re.S).group(1)


def test_a_directory_page_title_says_where_you_are(browser, owner):
    assert _title(browser.get("/org/?q=an&department=sales")) == "People matching “an” in Sales – Directory · officegym"
    assert _title(browser.get("/org/")) == "People – Directory · officegym"
    assert _title(browser.get(f"/org/people/{owner.handle}")) == (f"{owner.name} (@{owner.handle}) – Directory"
                                                                   " · officegym")
