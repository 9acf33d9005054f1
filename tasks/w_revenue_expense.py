"""Helpers of the expense-report workflow (w_revenue_more): what a quarter's spending was (a customer
trip, a conference, a team lunch, a software subscription asked for), what the Expense policy pays
back of it, the totals a report could wrongly claim, and a report's item rows as a sheet holds them."""

from __future__ import annotations

import re
from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Sheet, Workbook
from officegym.graders.statements import Candidate

from .common import pick
from .sheets import values
from .sheets_formulas import EXCEL_EPOCH

CITIES = ["Chicago", "Boston", "Austin", "Denver", "Toronto", "Seattle", "Atlanta", "Minneapolis"]
CONFERENCES = ["RevOps Summit", "SaaS Growth Forum", "Cloud Buyers Day", "Customer Success Live", "B2B Pricing Summit"]
TOOLS = ["DeckCraft Pro", "ChartPilot Teams", "NoteLoop Business", "PitchRadar", "DemoStage Plus"]
HOTEL_LIMIT, DINNER_LIMIT, MEAL_LIMIT, APPROVAL_ABOVE = 250, 150, 75, 1_000  # the Expense policy's limits ($)
SOFTWARE_LIMIT = 50  # a month: a bigger subscription is a Service Request in IT, not an expense
MONTHLY = (59, 75, 89, 120, 149)  # what a subscription costs a month
CATEGORIES = ("Travel", "Meals", "Software", "Office", "Events")
DASHES = re.compile(r"\s*[—–-]+\s*")
HEADERS = {"day": "date", "category": "categor", "what": "descri", "amount": "amount"}  # a report's columns, by header


def report_title(name: str) -> str:
    """The title the Expense policy gives a first-quarter report."""
    return f"Q1 expense report — {name}"


def dm(author_id: int, other_id: int, text: str):
    """A setup step: `author` writes `text` to `other` in their direct messages."""
    def run(session) -> None:
        author = session.get(Person, author_id)
        chat.post_message(session, author, chat.open_conversation(session, author, [other_id]).id, text)
    return run


def spending(rng, today: date) -> dict:
    """A customer trip earlier this quarter (what was booked and spent there, and whether the manager
    said yes to the flight, over $1,000), a one-day conference (registered for, approved or not), a
    team lunch the actor paid, and a software subscription the manager agreed to."""
    start = today - timedelta(days=pick(rng, [9, 11, 13, 16, 18]))
    nights, guests = pick(rng, [2, 3]), pick(rng, [2, 3, 4])  # the dinner stays under $1,000: no approval needed
    people = pick(rng, [4, 5, 6, 7])
    return {"city": pick(rng, CITIES), "start": start.isoformat(), "nights": nights,
            "flight": pick(rng, [1_080, 1_145, 1_190, 1_240, 1_315, 1_420]), "approved": rng.random() < 0.5,
            "rate": pick(rng, [189, 229, 245, 265, 289, 319]), "taxi": pick(rng, [38, 46, 52.5, 64, 71, 88]),
            "upgrade": pick(rng, [59, 75, 99, 129]), "guests": guests,
            "per_head": pick(rng, [h for h in (118, 134, 149, 158, 163, 176, 191)
                                   if (guests + 2) * h < APPROVAL_ABOVE]),
            "conference": pick(rng, CONFERENCES), "fee": pick(rng, [295, 349, 395, 450, 525]),
            "conf_day": (today - timedelta(days=pick(rng, [24, 29, 33, 38]))).isoformat(),
            "conf_ok": rng.random() < 0.5,
            "lunch_day": (today - timedelta(days=pick(rng, [3, 4, 6]))).isoformat(), "lunch_people": people,
            "lunch_bill": people * pick(rng, [58, 66, 72, 81, 88, 94]) + pick(rng, [0, 0.5, 4.25]),
            "tool": pick(rng, TOOLS), "monthly": pick(rng, MONTHLY)}


def claimable(trip: dict, customer: str) -> list[dict]:
    """The report's rows as the policy pays them back: the flight and the conference only if the
    manager approved them, the hotel up to its nightly limit, the taxi, the dinner up to its limit per
    person (naming the customer), the lunch up to the meal limit per person; never the seat upgrade,
    nor the subscription (IT buys it)."""
    start = date.fromisoformat(trip["start"])
    people = trip["guests"] + 2  # the customer's people, the actor and the colleague
    bill = people * trip["per_head"]
    rows = [{"what": f"Flight to {trip['city']}", "category": "Travel", "amount": trip["flight"], "days": [start]}
            ] if trip["approved"] else []
    rows += [{"what": f"Hotel in {trip['city']}, {trip['nights']} nights", "category": "Travel",
              "amount": trip["nights"] * min(trip["rate"], HOTEL_LIMIT),
              "days": [start + timedelta(days=k) for k in range(trip["nights"] + 1)]},
             {"what": "Taxi from the airport", "category": "Travel", "amount": trip["taxi"], "days": [start]},
             {"what": f"Customer dinner with {customer}, {people} people", "category": "Meals",
              "amount": min(bill, people * DINNER_LIMIT), "days": [start + timedelta(days=1)], "names": customer},
             {"what": f"Team lunch, {trip['lunch_people']} people", "category": "Meals",
              "amount": min(trip["lunch_bill"], trip["lunch_people"] * MEAL_LIMIT),
              "days": [date.fromisoformat(trip["lunch_day"])]}]
    if trip["conf_ok"]:
        rows.append({"what": f"{trip['conference']} registration", "category": "Events", "amount": trip["fee"],
                     "days": [date.fromisoformat(trip["conf_day"]), date.fromisoformat(trip["conf_day"]) - timedelta(
                         days=12)]})  # the day of the conference, or the day it was charged
    return rows


def amount_pool(trip: dict, right: float) -> list[Candidate]:
    """Totals a message could give instead of the right one: each item counted as billed or as the
    policy pays it, the flight, the conference, the upgrade and the subscription counted or not."""
    people = trip["guests"] + 2
    choices = [(0, trip["flight"]), (trip["nights"] * trip["rate"], trip["nights"] * min(trip["rate"], HOTEL_LIMIT)),
               (0, trip["upgrade"]), (people * trip["per_head"], min(people * trip["per_head"], people * DINNER_LIMIT)),
               (0, trip["fee"]), (trip["lunch_bill"], min(trip["lunch_bill"], trip["lunch_people"] * MEAL_LIMIT)),
               (0, trip["monthly"])]
    totals = {0.0}
    for pair in choices:
        totals = {t + c for t in totals for c in set(pair)}
    cents = {round((t + trip["taxi"]) * 100) for t in totals} - {round(right * 100)}
    return [Candidate.money(c) for c in sorted(cents)]


def options(session, split_ok) -> list[tuple[Person, Person, list[Person]]]:
    """(actor, manager, teammates) for the people `split_ok` accepts, with a manager and three
    teammates besides, and no Q1 expense report of their own yet."""
    reported = set(session.scalars(select(Workbook.owner_id).where(Workbook.title.like("Q1 expense report%"))))
    by_team: dict[int, list[Person]] = {}
    for person in session.scalars(select(Person).where(Person.team_id.is_not(None)).order_by(Person.id)):
        by_team.setdefault(person.team_id, []).append(person)
    found = []
    for team in by_team.values():
        for person in team:
            mates = [p for p in team if p.id not in (person.id, person.manager_id)]
            if split_ok(person.id) and person.manager_id and len(mates) >= 3 and person.id not in reported \
                    and person.role != "owner":
                found.append((person, session.get(Person, person.manager_id), mates))
    return sorted(found, key=lambda f: f[0].id)


def someone_in(session, team: str, department: str, *besides: int) -> Person:
    """The first person of a team (else of a department, else anyone) who is none of `besides`."""
    for where in (select(Person).join(Team, Person.team_id == Team.id).where(Team.name == team),
                  select(Person).join(Department, Person.department_id == Department.id)
                  .where(Department.name == department), select(Person)):
        found = [p for p in session.scalars(where.order_by(Person.id)) if p.id not in besides]
        if found:
            return found[0]
    raise RuntimeError(f"the world has nobody in {team}")


def items(session, workbook_id: int) -> list[dict]:
    """A report's item rows: under a header row (date, category, description, amount, in any order;
    A to D in the policy's order when there is none), the rows whose category is one of the policy's
    and whose amount is not empty (a line noting what is not claimed claims nothing)."""
    found = []
    for sheet_id in session.scalars(select(Sheet.id).where(Sheet.workbook_id == workbook_id)):
        cells = values(session, sheet_id)
        cols = {"day": 0, "category": 1, "what": 2, "amount": 3}
        for row in sorted({r for r, _ in cells}):
            heads = {c: str(v).strip().casefold() for (r, c), v in cells.items() if r == row and isinstance(v, str)}
            named = {key: next((c for c, h in heads.items() if h.startswith(word)), None)
                     for key, word in HEADERS.items()}
            if named["category"] is not None and named["amount"] is not None:
                cols.update({k: c for k, c in named.items() if c is not None})
                continue
            category = str(cells.get((row, cols["category"])) or "").strip()
            amount = cells.get((row, cols["amount"]))
            if category.casefold() not in {c.casefold() for c in CATEGORIES} or amount in (0, None, ""):
                continue
            found.append({"day": _day(cells.get((row, cols["day"]))), "category": category.title(),
                          "what": " ".join(str(v) for (r, _), v in cells.items() if r == row and isinstance(v, str)),
                          "amount": amount if isinstance(amount, (int, float)) else None})
    return found


def _day(value) -> date | None:
    """A cell's date (a serial number or an ISO text), or None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return EXCEL_EPOCH + timedelta(days=int(value))
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        return None
