"""Draws for the expense-claims procedure (procedures.finance): a manager of the split with three reports
or more, the month's queue of their reports' items (each a case the handbook settles one way: a meal
within the limit per person, a customer dinner, a hotel over the nightly limit, an item filed late, a
home-office item over the twelve months' limit once the earlier ones are added up, a duplicate), the
rows of another manager's reports beside them (look-alikes), and the History tab."""

from __future__ import annotations

import random
from dataclasses import replace

from sqlalchemy import select

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.seed_data.sheets_vocab import CITIES
from officegym.seed_data.tickets_handbook_finance import OFFICE_YEARLY

from ..common import world_scan
from ..handbook import article
from ..split import person_in
from .finance import EXPENSES, LATE, OFFICE, PER_NIGHT, PER_PERSON, TWICE, ClaimRow

OK_CASES = ("ok_travel", "ok_software", "ok_meal", "office_old")
QUEUE = ("meal_stale", "dinner_exception", "office_summed", "meal_over", "hotel_over", "late", "duplicate",
         "ok_travel", "ok_software", "office_old", "ok_meal", "ok_travel")


def managers(session, split: str) -> list[tuple[Person, list[Person]]]:
    """Managers of the split (not the controller) with three reports of the split or more, by id, each with
    their reports (by id)."""
    def scan() -> tuple:
        controller = article(session, EXPENSES).owner_id
        found = []
        for person in session.scalars(select(Person).order_by(Person.id)):
            reports = list(session.scalars(select(Person).where(Person.manager_id == person.id).order_by(Person.id)))
            reports = [r for r in reports if person_in(split, r.id)]
            if person.id != controller and person_in(split, person.id) and len(reports) >= 3:
                found.append((person.id, tuple(r.id for r in reports)))
        return tuple(found)
    return [(session.get(Person, m), [session.get(Person, r) for r in rs])
            for m, rs in world_scan(session, ("expense managers", split), scan)]


class Claims:
    """Numbers claims in order and builds the rows of each case for one employee."""

    def __init__(self, rng: random.Random, session, manager: Person, numbers: list[int] | None = None):
        self.rng, self.manager = rng, manager
        self.numbers = numbers if numbers is not None else [rng.randrange(4_100, 7_900)]  # shared: claims unique
        self.accounts = [a.name for a in session.scalars(select(Account).order_by(Account.id).limit(40))]
        self.history: list[ClaimRow] = []

    def next_claim(self) -> str:
        """A new claim id."""
        self.numbers[0] += self.rng.randrange(3, 19)
        return f"EXP-{self.numbers[0]}"

    def row(self, who: Person, days_ago: int, category: str, description: str, amount: float, verdict: str = "",
            note: str = "", trap: str = "", filed: int | None = None, decision: str = "Pending",
            why: tuple[str, ...] = ()) -> ClaimRow:
        """One row of `who`, filed a few days after its date unless `filed` says."""
        filed = filed if filed is not None else max(1, days_ago - self.rng.randrange(2, 9))
        return ClaimRow(self.next_claim(), who.id, who.name, self.manager.name, days_ago, category, description,
                        amount, filed, decision, verdict, note, trap, why)

    def case(self, who: Person, kind: str) -> ClaimRow:
        """The Claims row of one case (planting its History rows first, where it has any)."""
        rng, city = self.rng, self.rng.choice(CITIES)
        day = rng.randrange(6, 24)
        if kind == "ok_travel":
            return self.row(who, day, "Travel", f"Train to {city}", rng.randrange(6_000, 19_000) / 100, "Approved")
        if kind == "ok_software":
            return self.row(who, day, "Software", "Diagramming tool subscription, one month",
                            rng.randrange(1_200, 3_000) / 100, "Approved")
        if kind == "ok_meal":
            return self.row(who, day, "Meals", "Breakfast meeting, 2 people", 2 * rng.randrange(25, 35), "Approved")
        if kind in ("meal_stale", "meal_over"):
            people, each = rng.randrange(3, 6), rng.randrange(62, 74) if kind == "meal_stale" else rng.randrange(82, 96)
            verdict, note = (("Approved", "") if kind == "meal_stale" else
                             ("Rejected", f"${each} a person is over the Expense policy's meal limit"))
            return self.row(who, day, "Meals", f"Team lunch, {people} people", people * each, verdict, note,
                            "stale" if kind == "meal_stale" else "", why=PER_PERSON)
        if kind == "dinner_exception":
            people = rng.randrange(2, 5)
            return self.row(who, day, "Meals", f"Customer dinner in {city} with {rng.choice(self.accounts)}, "
                            f"{people} people", people * rng.randrange(110, 146), "Approved", trap="exception")
        if kind in ("dinner_unnamed", "dinner_named"):  # over the meal limit, within the dinner's: named or not
            people, each = rng.randrange(2, 5), rng.randrange(95, 146)
            named = f" with {rng.choice(self.accounts)}" if kind == "dinner_named" else ""
            verdict, note = (("Approved", "") if named else
                             ("Rejected", f"${each} a person, and no customer named: the meal limit applies"))
            return self.row(who, day, "Meals", f"Customer dinner in {city}{named}, {people} people", people * each,
                            verdict, note, "exception", why=PER_PERSON + ("customer", "named"))
        if kind in ("hotel_nights_over", "hotel_nights_ok"):  # the total alone says nothing: divide by the nights
            nights = rng.randrange(2, 5)
            each = rng.randrange(262, 300) if kind == "hotel_nights_over" else rng.randrange(205, 246)
            verdict, note = (("Rejected", f"${each} a night is over the Expense policy's hotel limit")
                             if kind == "hotel_nights_over" else ("Approved", ""))
            return self.row(who, day, "Travel", f"Hotel in {city}, {nights} nights", nights * each, verdict, note,
                            "stale", why=PER_NIGHT)
        if kind == "hotel_over":
            return self.row(who, day, "Travel", f"Hotel in {city}, 2 nights", 2 * rng.randrange(270, 321), "Rejected",
                            "Over the Expense policy's hotel limit a night", why=PER_NIGHT)
        if kind == "late":
            return self.row(who, rng.randrange(75, 86), "Travel", "Taxi from the airport",
                            rng.randrange(3_500, 9_500) / 100, "Rejected", "Submitted more than 60 days after its date",
                            filed=rng.randrange(2, 6), why=LATE)
        if kind in ("late_asked", "not_late"):  # a night's hotel filed 62-77 days after it, or 54-59
            filed = rng.randrange(3, 7) if kind == "late_asked" else rng.randrange(5, 9)
            back = filed + (rng.randrange(62, 78) if kind == "late_asked" else rng.randrange(54, 60))
            verdict, note = (("Rejected", "Submitted more than 60 days after its date") if kind == "late_asked"
                             else ("Approved", ""))
            return self.row(who, back, "Travel", f"Hotel in {city}, 1 night", rng.randrange(15_000, 24_000) / 100,
                            verdict, note, "stale", filed=filed, why=LATE)
        if kind in ("office_summed", "office_old"):
            return self.office(who, day, kind == "office_old")
        if kind in ("duplicate", "not_duplicate"):  # not: the earlier flight was a week before
            earlier = self.row(who, rng.randrange(28, 45), "Travel", f"Flight to {city}",
                               rng.randrange(28_000, 94_000) / 100, decision="Paid")
            self.history.append(earlier)
            if kind == "not_duplicate":
                return self.row(who, earlier.days_ago - 7, "Travel", earlier.description, earlier.amount, "Approved",
                                trap="lookalike", filed=rng.randrange(2, 8))
            return self.row(who, earlier.days_ago, "Travel", earlier.description, earlier.amount, "Rejected",
                            f"A duplicate of {earlier.claim}", "exception", filed=rng.randrange(2, 8),
                            why=TWICE + (earlier.claim.split("-")[-1],))
        raise ValueError(kind)

    def office(self, who: Person, day: int, old: bool, trap: str = "summed") -> ClaimRow:
        """A home-office item under the limit alone, whose earlier Office rows (History) put the twelve months
        over it; `old`: those rows are older than twelve months before the item, and the item is approved."""
        rng = self.rng
        first, second = rng.randrange(220, 301), rng.randrange(60, 161)
        back = (day + rng.randrange(390, 430), day + rng.randrange(372, 388)) if old else (
            day + rng.randrange(100, 200), day + rng.randrange(30, 90))
        for (days_ago, description), amount in zip(((back[0], "Monitor for home office"),
                                                   (back[1], "Keyboard and mouse")), (first, second)):
            self.history.append(self.row(who, days_ago, "Office", description, amount, decision="Paid"))
        amount = OFFICE_YEARLY - first - second + rng.randrange(25, 90)
        if old:
            return self.row(who, day, "Office", "Standing desk converter", amount, "Approved", trap="summed")
        return self.row(who, day, "Office", "Standing desk converter", amount, "Rejected",
                        f"Over the Expense policy's home-office limit with {who.name}'s Office items of the twelve "
                        "months before it", trap, why=OFFICE)

    def noise(self, people: list[Person], count: int) -> None:
        """Paid rows in History of no case (ordinary items of earlier months)."""
        for _ in range(count):
            who = self.rng.choice(people)
            self.history.append(self.row(who, self.rng.randrange(40, 300), "Travel", "Taxi from the airport",
                                         self.rng.randrange(3_500, 9_500) / 100, decision="Paid"))


def queue(rng: random.Random, session, manager: Person, reports: list[Person], other: Person,
          others: list[Person], cases=QUEUE, asked: tuple[Person, str] | None = None
          ) -> tuple[list[ClaimRow], list[ClaimRow], ClaimRow | None]:
    """The Claims rows (the manager's queue of `cases` over three of `reports`, two rows of the team approved
    already, four Pending rows of `other`'s reports `others`) in the order the reports came in, the History
    rows (oldest first), and the row `asked` = (requester, case) makes (the requester has no other case to reject)."""
    claims = Claims(rng, session, manager)
    team = ([asked[0]] if asked else []) + [r for r in reports if not asked or r.id != asked[0].id]
    team = team[:3]
    takers = team[1:] if asked else team
    bad = [c for c in cases if c not in OK_CASES]
    office = {asked[0].id} if asked else set()  # one home-office case a person: their twelve months stay apart

    def who(people: list[Person], k: int, kind: str) -> Person:
        person = people[k % len(people)]
        if kind.startswith("office"):
            person = next(p for p in people[k % len(people):] + people if p.id not in office)
            office.add(person.id)
        return person
    rows = [claims.case(who(takers, k, kind), kind) for k, kind in enumerate(bad)]
    rows += [claims.case(who(team, k, kind), kind) for k, kind in enumerate(c for c in cases if c in OK_CASES)]
    wanted = claims.case(asked[0], asked[1]) if asked else None
    rows += [wanted] if wanted else []
    for who in team[:2]:
        rows.append(claims.row(who, rng.randrange(8, 20), "Travel", "Train to the office", 45, decision="Approved"))
    theirs = Claims(rng, session, other, claims.numbers)
    look = [theirs.office(others[0], rng.randrange(6, 20), False), theirs.case(others[1 % len(others)], "meal_over"),
            theirs.case(others[0], "ok_travel"), theirs.case(others[1 % len(others)], "ok_software")]
    rows += [replace(r, verdict="", note="", trap="lookalike" if k == 0 else "") for k, r in enumerate(look)]
    claims.noise(team + others[:2], 4)
    rng.shuffle(rows)  # as the reports came in
    oldest = lambda r: (-r.days_ago, r.claim)  # noqa: E731
    return rows, sorted(claims.history + theirs.history, key=oldest), wanted
