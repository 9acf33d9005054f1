"""People and access workflows: the People team's part of the onboarding checklist. The four people
who joined today (welcomed in #general, beside a colleague welcomed back, who is on the staff list
already) go into the Headcount Plan 2026 workbook: a row each at the end of its People sheet, as the
other rows are written, and one planned hire less for their department in the quarter whose hire
they fill, which only the VP of People knows (asked, they say), so that the plan's end-of-year
headcount stays what it was."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym import colleagues
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Cell, Share
from officegym.graders.checks import check, guard, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard, value_of
from officegym.graders.statements import stated

from .base import Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_new_conversation, allow_posts, channel_named, named, pick, spread
from .handbook import read_rule
from .phrasing import goal_instruction
from .registry import register
from .sheets import row_labelled, sheet_named, values, workbook_titled
from .split import person_in
from .w_people import (HIRE_NAMES, add_person, day_spellings, free_names, handle_of, newcomer, person_named,
                       said_once)
from .w_people_replies import decision_reply_checks

RECORDED = ("added", "updated", "recorded", "entered", "taken off", "reduced", "adjusted", "put in")
CHECKLIST = "New-hire onboarding checklist"
COLUMNS = ("Name", "Department", "Title", "Location", "Team", "Manager", "Start date")
QUARTERS = "CDEF"  # the Plan sheet's columns of planned hires, Q1 to Q4
EPOCH = date(1899, 12, 30)  # day 0 of the sheets' date serials
JOINERS = 4


def _title(session, team: Team) -> str | None:
    """A non-manager title on the team."""
    titles = sorted({p.title for p in session.scalars(select(Person).where(Person.team_id == team.id,
                                                                            Person.id != team.lead_id))})
    ok = [t for t in titles if not any(w in t for w in ("Manager", "Lead", "Head", "Director", "Chief", "VP"))]
    return ok[0] if ok else None


def _last_row(session, sheet_id: int) -> int:
    """The last used row of a sheet (0-based)."""
    return max(r for r, _ in values(session, sheet_id))


def _quarters(rng, left: list[float], forward: bool) -> int | None:
    """The quarter (0-3) whose planned hire a joiner fills, among those with hires left: Q1 unless
    the hire was brought forward from a later quarter (or Q1 has none left); None when none fits."""
    later = [q for q in (1, 2, 3) if left[q] > 0]
    if left[0] > 0 and not forward:
        return 0
    return pick(rng, later) if later else None


def _note(name: str, department: str, quarter: int) -> str:
    """What the VP of People says about a joiner: the planned hire they fill."""
    if quarter == 0:
        return f"{name} fills one of {department}'s planned Q1 hires."
    return f"{name} fills one of {department}'s planned Q{quarter + 1} hires: we brought that hire forward."


@register
class HeadcountNewHires(TaskTemplate):
    id, apps, difficulty = "w.people_headcount_new_hires", ("sheets", "chat", "org", "tickets"), 4
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (CHECKLIST,)
    summary = ("Do the People team's part of the onboarding checklist for today's four joiners: a row each in the "
               "Headcount Plan, and one planned hire less for their department in the quarter the VP of People "
               "says each one fills.")

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Headcount Plan")
        head = session.get(Person, book.owner_id)
        editors = [p for p in session.scalars(select(Person).join(Share, Share.person_id == Person.id).where(
            Share.workbook_id == book.id, Share.role == "editor").order_by(Person.id))
            if person_in(self.split, p.id) and p.id != head.id]
        actor = spread(editors, instance)
        teams = [t for t in session.scalars(select(Team).order_by(Team.id)) if _title(session, t)
                 and session.get(Department, t.department_id).name != "Executive"]
        plan, people = sheet_named(session, book.id, "Plan"), sheet_named(session, book.id, "People")
        cells = values(session, plan.id)
        end = _last_row(session, people.id)
        forward = rng.randrange(JOINERS)  # the joiner whose hire was brought forward from a later quarter
        joined, filled, left = [], [], {}
        for team in [spread(teams, instance), *rng.sample(teams, len(teams))]:
            row = row_labelled(cells, session.get(Department, team.department_id).name)
            have = left.setdefault(row, [cells[(row, 2 + q)] for q in range(4)])
            quarter = None if team in joined else _quarters(rng, have, len(joined) == forward)
            if quarter is not None:
                have[quarter] -= 1
                joined.append(team)
                filled.append((row, quarter))
            if len(joined) == JOINERS:
                break
        names = free_names(session, HIRE_NAMES)
        hires = [spread(names, instance * JOINERS + k) for k in range(JOINERS)]
        back = pick(rng, [p for p in session.scalars(select(Person).where(Person.manager_id.is_not(None),
                                                                          Person.role == "member").order_by(Person.id))
                          if p.team_id not in {t.id for t in joined}])
        today = clock.company_now(session).date()
        rows, changes, notes = [], {}, []
        for name, team, (row, quarter) in zip(hires, joined, filled):
            lead = session.get(Person, team.lead_id)
            department = session.get(Department, team.department_id).name
            rows.append([name, department, _title(session, team), lead.location, team.name, lead.name,
                         today.isoformat()])
            changes[f"{row}:{2 + quarter}"] = left[row][quarter]
            notes.append(_note(name, department, quarter))
        general = channel_named(session, "general")
        posts = [(team.lead_id, f"Please welcome {name}, who joins {team.name} as {_title(session, team)} today!")
                 for name, team in zip(hires, joined)]
        posts.insert(rng.randrange(1, JOINERS), (back.manager_id, f"Welcome back {back.name}, back with us today "
                                                                  "after parental leave!"))
        reads = [ToolCall("org_get_person", {"person": f"@{handle_of(n)}"}) for n in hires]
        solution = [ToolCall("chat_list_messages", {"channel": "general", "limit": 10}),
                    *read_rule(session, CHECKLIST, "new hire onboarding"), *reads,
                    *[ToolCall("org_get_team", {"team": t.name}) for t in joined],
                    ToolCall("sheets_list_workbooks", {"query": "Headcount Plan"}),
                    ToolCall("sheets_get_workbook", {"workbook": book.id}),
                    ToolCall("sheets_read_range", {"workbook": book.id, "range": f"People!A{end - 3}:G{end + 1}"}),
                    ToolCall("sheets_read_range", {"workbook": book.id, "range": "Plan!A1:H12"}),
                    ToolCall("chat_open_conversation", {"people": [f"@{head.handle}"]})]
        dm = Ref(len(solution) - 1, "id")
        solution += [ToolCall("chat_post_message", {"channel": dm, "text": (
                         f"Hi, I'm adding today's joiners to the Headcount Plan: which planned hire does each of "
                         f"{', '.join(hires[:-1])} and {hires[-1]} fill (department and quarter)?")}, role="note"),
                     ToolCall("chat_list_messages", {"channel": dm, "limit": 5}),
                     ToolCall("sheets_write_range", {"workbook": book.id, "start": f"People!A{end + 2}", "rows": rows}),
                     ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                         {"cell": _cell(key), "value": value} for key, value in sorted(changes.items())]}),
                     ToolCall("chat_post_message", {"channel": dm, "text": (
                         "Thanks! Done: the four of them are added to the People sheet, and each one's planned hire "
                         "is taken off the quarter you gave.")}, role="report")]
        return TaskInstance(
            self.id, instance, actor.id,
            goal_instruction(rng, "Do the People team's part of the handbook's new-hire onboarding checklist for "
                             "everyone who joined the company today (their managers welcomed them in #general this "
                             "morning). Where the checklist has you record them, add one row per person at the end of "
                             "the sheet that lists the staff, filled in the way the other rows are. Each of them fills "
                             "one of the hires their department planned: the VP of People, "
                             f"{named(session, head)}, knows which quarter's, so ask them, and take each one off that "
                             "quarter's planned hires so that every department's end-of-year headcount in the plan "
                             "stays what it was.", head.name),
            solution,
            {"workbook": book.id, "hires": hires, "rows": rows, "plan": changes, "end": end, "back": back.id,
             "today": today.isoformat(), "first_cell": _cell(f"{filled[0][0]}:{2 + filled[0][1]}"), "head": head.id},
            setup=_welcomes([(name, _title(session, team), team.id, team.lead_id) for name, team in
                             zip(hires, joined)], general.id, posts, head.id, notes))

    def declare(self, start, inst):
        p = inst.params
        book = p["workbook"]
        # The first joiner (the reads name them; a look-alike would only be read), then the planned
        # hires their place fills, among the other departments' and quarters'.
        others = [f"Plan!{q}{r}" for r in range(2, 12) for q in QUARTERS if f"Plan!{q}{r}" != p["first_cell"]]
        return Declaration([Target("person", f"@{handle_of(p['hires'][0])}"),
                            Target("cell", p["first_cell"], others, {"workbook": book})])

    def check(self, ctx, inst):
        p = inst.params
        book = p["workbook"]
        sheet = sheet_named(ctx.start, book, "People")
        plan = sheet_named(ctx.start, book, "Plan")
        if sheet is None or plan is None or ctx.final.get(type(sheet), sheet.id) is None:
            return [check("The Headcount Plan's sheets are there", False, "a sheet is missing")]
        final = values(ctx.final, sheet.id)
        added = {r: [final.get((r, c)) for c in range(len(COLUMNS))] for r in range(p["end"] + 1, p["end"] + 20)
                 if final.get((r, 0))}
        results = []
        for expected in p["rows"]:
            found = [row for row in added.values() if _same(row[0], expected[0])]
            row = found[0] if len(found) == 1 else None
            wrong = [COLUMNS[i] for i in range(len(COLUMNS)) if row is None or not _same(row[i], expected[i])]
            results.append(check(f"One row for {expected[0]} at the end of the People sheet, filled as the others",
                                 row is not None and not wrong, f"found {len(found)} rows; wrong: {wrong}", weight=3))
        for key, value in sorted(p["plan"].items()):
            row, col = map(int, key.split(":"))
            now = value_of(ctx.final.get(Cell, (plan.id, row, col)))
            label = value_of(ctx.start.get(Cell, (plan.id, row, 0)))
            results.append(check(f"{label}'s planned Q{col - 1} hires are {value:g}", now == value, f"they are {now}",
                                 weight=2))
        last = p["end"] + 1 + len(p["rows"])
        rows_allowed = [f"People!A{p['end'] + 2}:G{last}"] + [_cell(k) for k in p["plan"]]
        head, me = ctx.start.get(Person, p["head"]), ctx.start.get(Person, ctx.actor_id)
        dm, opened = allow_new_conversation(ctx, [head, me])
        told = [r["text"] for r in ctx.diff.table("chat_message").added if dm is not None
                and r["author_id"] == ctx.actor_id and r["channel_id"] == dm.id]
        unasked = [n for n in p["hires"] if not stated("\n".join(told), [newcomer(n)])]
        results += [guard(f"You asked {head.name} about each joiner (only they know which planned hire each fills)",
                          not unasked, f"never asked about {unasked}"),
                    *decision_reply_checks(told, False, head.name, actions=RECORDED)]
        return results + [cells_guard(ctx, book, rows_allowed), said_once(ctx, dm and dm.id, head.name),
                          nothing_else_changed(ctx.diff, [*allow_workbook_cells(ctx, book), *opened,
                                                          *(allow_posts(ctx, dm.id, limit=4) if dm else [])])]


def _cell(key: str) -> str:
    """A Plan cell's A1 name from its "row:col" key (0-based)."""
    row, col = map(int, key.split(":"))
    return f"Plan!{'ABCDEFGH'[col]}{row + 1}"


def _same(value, expected: str) -> bool:
    """Whether a cell holds the expected text (a date may be a date serial or the day written out)."""
    try:
        day = date.fromisoformat(expected)
    except ValueError:
        day = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return day is not None and EPOCH + timedelta(days=int(value)) == day
    written = " ".join(str(value or "").split()).casefold()
    return written == expected.casefold() or (day is not None and written in {d.casefold() for d in
                                                                              day_spellings(day)})


def _welcomes(hires: list[tuple[str, str, int, int]], general_id: int, posts: list[tuple[int, str]], head_id: int,
              notes: list[str]):
    """A setup step: the new people join the directory, the VP of People knows which planned hire
    each fills, and their managers (and a returning colleague's) post in #general this morning."""
    def run(session) -> None:
        head = session.get(Person, head_id)
        for (name, title, team_id, lead_id), note in zip(hires, notes):
            add_person(name, title, team_id, lead_id)(session)
            colleagues.plant_note(session, head, "person", person_named(session, name).id, note)
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=50))
        for author, text in posts:
            chat.post_message(session, session.get(Person, author), general_id, text)
    return run

