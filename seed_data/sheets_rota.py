"""The on-call rota workbook: one row per week, one column per on-call group of the tickets app
(and the IT help desk), the person on call taken in turn from the group's real members.

Past weeks agree with the tickets: in a week when a group worked a production incident, the one on
call is the engineer the incident was assigned to, so "who was on call when X broke" has one answer.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from random import Random

from officegym.apps.sheets.formula.a1 import col_name

from .chat_text import history_end
from .org import Org
from .sheets_model import WorkbookDraft
from .sheets_build import COUNT, DAY, dated_draft
from .tickets_model import GroupRec, Tickets

WEEKS_BACK, WEEKS_AHEAD = 8, 8


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _incident_weeks(tickets: Tickets, group: GroupRec) -> dict[date, int]:
    """Week (Monday) -> assignee of the group's first production incident that week."""
    weeks: dict[date, int] = {}
    for ticket in tickets.production_incidents():
        if ticket.group_id == group.id and ticket.assignee_id in group.member_ids:
            weeks.setdefault(_monday(ticket.created_at.date()), ticket.assignee_id)
    return weeks


def _turns(org: Org, group: GroupRec, weeks: list[date], fixed: dict[date, int], rng: Random) -> list[int]:
    """Who is on call each week: the members in turn from a seeded start, skipping anyone who joined
    less than four weeks before (newcomers shadow first); an incident's assignee holds the week they
    worked it."""
    members = sorted(group.member_ids)
    position, chosen = rng.randrange(len(members)), []
    for week in weeks:
        if week in fixed:
            chosen.append(fixed[week])
            position = members.index(fixed[week]) + 1  # the turn continues after them
            continue
        for _ in range(len(members)):
            pid = members[position % len(members)]
            position += 1
            if org.person(pid).since.date() <= week - timedelta(weeks=4):
                break
        chosen.append(pid)
    return chosen


def rota(org: Org, tickets: Tickets | None, rng: Random) -> WorkbookDraft | None:
    """The rota, owned by the manager of the first on-call team, edited by everyone on call, shown
    to the rest of Engineering and IT; None when the tickets app has no on-call group."""
    groups = [g for g in (tickets.groups.values() if tickets else ()) if g.name.endswith("On-Call") and g.member_ids]
    if not groups:
        return None
    groups += [g for g in tickets.groups.values() if g.name == "IT Support" and g.member_ids]
    lead = next((t.lead_id for t in org.teams if t.id == groups[0].team_id and t.lead_id), None)
    owner = org.person(lead or org.heads.get("Engineering", org.ceo.id))
    this_week = _monday(org.now.date())
    weeks = [this_week + timedelta(weeks=k) for k in range(-WEEKS_BACK, WEEKS_AHEAD + 1)]
    end = history_end(org.now)
    start = datetime.combine(weeks[0], datetime.min.time())
    book = dated_draft(org, rng, "rota", "On-call Rota", owner,  # set up the week before the first one on it
                       (start - timedelta(days=10, hours=-9), start - timedelta(days=3, hours=7)),
                       (end - timedelta(days=4, hours=9), end))
    book.share([pid for g in groups for pid in g.member_ids], "editor")
    book.share([p.id for p in org.people if p.dept in ("Engineering", "IT")], "viewer")

    sheet = book.tab("Rota", 1, 1)
    sheet.put_row(0, ["Week of"] + [g.name for g in groups])
    columns = [_turns(org, g, weeks, _incident_weeks(tickets, g) if g.on_call else {}, rng) for g in groups]
    for r, week in enumerate(weeks, start=1):
        sheet.put_row(r, [week] + [org.person(col[r - 1]).name for col in columns], (DAY,))
    last = len(weeks) + 1
    letters = [col_name(k) for k in range(1, len(groups) + 1)]
    this_row, next_row = last + 1, last + 2  # 0-based: a blank row after the weeks
    sheet.put(this_row, 0, "On call this week")
    sheet.put(next_row, 0, "On call next week")
    for k, letter in enumerate(letters, start=1):
        sheet.put(this_row, k, f"=INDEX({letter}2:{letter}{last},MATCH(TODAY(),$A$2:$A${last},1))")
        sheet.put(next_row, k, f"=INDEX({letter}2:{letter}{last},MATCH(TODAY()+7,$A$2:$A${last},1))")

    members = book.tab("Members", 1)
    members.put_row(0, ["Group", "Name", "Email", "Weeks on call"])
    r = 1
    for group, letter in zip(groups, letters):
        for pid in sorted(group.member_ids, key=lambda i: (org.person(i).name, i)):
            person = org.person(pid)
            members.put_row(r, [group.name, person.name, person.email,
                                f"=COUNTIF(Rota!${letter}$2:${letter}${last},B{r + 1})"], ("", "", "", COUNT))
            r += 1
    return book
