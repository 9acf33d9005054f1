"""The purchase-request procedure of the handbook's "Team purchase requests": Procurement buys a request in PUR
that holds an approval that counts (the requester's manager up to the limit, the department's head above it;
Approvals when the approver is away while they are away) and that the team's budget for the quarter covers once
the quarter's purchases are added up: its row added to the Purchases tab, resolved as Fixed. One over the budget
stays open with a comment giving the budget left, one without an approval that counts stays open, a withdrawn one
is cancelled. `BudgetBook` plants the project, the purchases bought before and the workbook (a tab per quarter,
Purchases); `PurchaseRequest` is one request worked (drawn by procedures.purchases_draws)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.models import Cell, Sheet
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.workflow import SERVICE_OPEN
from officegym.graders.checks import Allow, guard
from officegym.graders.sheets import allow_workbook_cells, cells_guard, value_of
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_purchases import PROJECT, PROJECT_NAME, PURCHASES, PURCHASES_TAB

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..crm import money
from ..sheets import workbook_titled
from ..tickets_common import new_comments, ticket_by_key
from ..w_people_replies import people_claim
from .core import NO_OUTCOME, Graded, Procedure

HEADER = ["Request", "Team", "Vendor", "Item", "Amount", "Quarter", "Approved by"]
BUDGET_HEADER = ["Team", "Owner", "Budget"]
ROOM = 40  # rows below the purchases bought before where new purchases may go


@dataclass(frozen=True)
class Bought:
    """One row of the Purchases tab: a request bought (`reporter` filed it, `days_ago` before today)."""

    key: str
    team: str
    vendor: str
    item: str
    amount: int
    quarter: str
    approver_name: str
    reporter: int = 0
    days_ago: int = 0

    def values(self) -> list:
        """The row's cells."""
        return [self.key, self.team, self.vendor, self.item, self.amount, self.quarter, self.approver_name]


def summary_of(item: str, vendor: str, team: str) -> str:
    """A purchase request's summary, as the article writes it."""
    return f"{item} from {vendor} for {team}"


def purchase_rows(session, book_id: int) -> dict[int, list]:
    """The Purchases tab's rows (1-based row number -> values of columns A to G)."""
    sheet = session.scalar(select(Sheet.id).where(Sheet.workbook_id == book_id, Sheet.name == PURCHASES_TAB))
    rows: dict[int, list] = {}
    for cell in session.scalars(select(Cell).where(Cell.sheet_id == sheet, Cell.col < len(HEADER))):
        rows.setdefault(cell.row + 1, [None] * len(HEADER))[cell.col] = value_of(cell)
    return rows


def request_changes(ctx, was, left_open: bool) -> list[Allow]:
    """One comment of the actor on the request (the resolving one, or the reason it stays open) and the
    request's own move: resolved when bought or cancelled, any open status when it stays open."""
    statuses = SERVICE_OPEN if left_open else ("Resolved", "Closed")
    return [Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] == was.id and r["author_id"] == ctx.actor_id,
                  limit=1),
            Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id and r["status"] in statuses,
                  ("status", "resolution", "resolved_at", "updated_at", "first_response_at", "paused_since",
                   "paused_minutes"))]


def amount_of(value) -> float | None:
    """A cell's amount in dollars, typed as a number or as text ("$1,800")."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value).replace("$", "").replace(",", "").strip()
    return float(text) if text.replace(".", "", 1).isdigit() else None


@dataclass(frozen=True)
class BudgetBook(Procedure):
    """The PUR project (made by `admin`, led by Procurement's `lead`), the requests bought before (`history`, filed
    and resolved) and the workbook `title` owned by `owner` (tabs: `quarter`, `last`, Purchases; `budgets` holds
    (team, owner's name, this quarter's budget, last quarter's)); the reads of the quarter's tab and Purchases, and
    the guard that every row added there is one of `bought`."""

    rules = (PURCHASES,)

    title: str
    owner: int
    admin: int
    lead: int
    actor: int
    quarter: str
    last: str
    budgets: tuple[tuple[str, str, int, int], ...]
    history: tuple[Bought, ...]
    bought: tuple[str, ...] = ()  # the keys of the requests bought during the episode

    def setup(self, session):
        now = clock.company_now(session)
        lead = session.get(Person, self.lead)
        clock.set_time(session, now - timedelta(days=200))
        tickets.create_project(session, session.get(Person, self.admin), PROJECT, PROJECT_NAME, "service_desk",
                               self.lead, "Team purchases: software seats, hardware and services (Procurement)")
        for row in self.history:
            clock.set_time(session, (now - timedelta(days=row.days_ago)).replace(hour=10))
            made = tickets.create_ticket(session, session.get(Person, row.reporter), PROJECT, "Service Request",
                                         summary_of(row.item, row.vendor, row.team), f"Amount: ${row.amount:,}.")
            assert made.key == row.key, (made.key, row.key)
            clock.set_time(session, (now - timedelta(days=row.days_ago - 1)).replace(hour=15))
            tickets.assign_ticket(session, lead, row.key, self.lead)
            tickets.transition_ticket(session, lead, row.key, "Resolve", "Fixed",
                                      f"Bought: approved by {row.approver_name}.")
        clock.set_time(session, now - timedelta(days=2, hours=3))
        book = sheets.create_workbook(session, session.get(Person, self.owner), self.title,
                                      [self.quarter, self.last, PURCHASES_TAB],
                                      "Each team's purchase budget a quarter, and what was bought")
        owner = session.get(Person, self.owner)
        for tab, column in ((self.quarter, 2), (self.last, 3)):
            sheets.write_range(session, owner, book.id, f"'{tab}'!A1",
                               [BUDGET_HEADER] + [[b[0], b[1], b[column]] for b in self.budgets])
        sheets.write_range(session, owner, book.id, f"{PURCHASES_TAB}!A1",
                           [HEADER] + [r.values() for r in self.history])
        for person in (self.actor, self.lead):
            sheets.share_workbook(session, owner, book.id, person, "editor")
        clock.set_time(session, now)

    def steps(self):
        return [ToolCall("sheets_read_range", {"workbook": self.title, "range": f"'{self.quarter}'!A1:C"
                                                                                f"{len(self.budgets) + 1}"}),
                ToolCall("sheets_read_range", {"workbook": self.title, "range": f"{PURCHASES_TAB}!A1:G"
                                                                                f"{len(self.history) + 1}"})]

    def check(self, ctx):
        book = workbook_titled(ctx.start, self.title)
        first = len(self.history) + 2
        added = [v for r, v in purchase_rows(ctx.final, book.id).items() if r >= first and any(v)]
        strays = [v for v in added if str(v[0] or "").strip().upper() not in self.bought]
        return Graded([cells_guard(ctx, book.id, [f"{PURCHASES_TAB}!A{first}:G{first + ROOM}"]),
                       guard(f"Every row added to {PURCHASES_TAB} is a request bought", not strays,
                             f"{len(strays)} rows are not: {strays[:3]}")],
                      allow_workbook_cells(ctx, book.id))


@dataclass(frozen=True)
class PurchaseRequest(Procedure):
    """The purchase request `key` of `requester` (team `team`) for `item` from `vendor` at `amount`, filed `hours`
    ago and assigned to the actor by Procurement's `lead`, with `comments` ((author, text), oldest first).
    `decision`: "buy" (its row at `row` of Purchases, resolved as Fixed naming `approver`), "over" (left open with
    a comment giving `left`, the budget left), "wait" (left open: `approver` has not approved), "cancel" (withdrawn:
    resolved as Cancelled) or "leave" (another team's, not asked about and not approved yet: left open). `holds`:
    the difficulties it holds; `looks`: the people read for it (the manager when away, the department for its
    head); `pool`: the people a comment naming the approver is read against; `counted`: its decision makes the
    outcome; `near`: the keys of the queue's requests decided otherwise (its look-alikes)."""

    rules = (PURCHASES,)
    hard = ("lookalike", "summed", "stale", "away", "changed")

    key: str
    book: str
    actor: int
    lead: int
    requester: int
    team: str
    vendor: str
    item: str
    amount: int
    hours: int
    comments: tuple[tuple[int, str], ...]
    decision: str
    approver: int
    approver_name: str
    row: int
    quarter: str
    left: int = 0
    holds: tuple[str, ...] = ()
    looks: tuple[ToolCall, ...] = ()
    pool: tuple[int, ...] = ()
    watchers: tuple[int, ...] = ()
    counted: bool = True
    near: tuple[str, ...] = ()  # the queue's other requests, which the one bought or cancelled is not
    wrong_left: tuple[int, ...] = ()  # what the budget left comes to from last quarter's tab or rows

    def setup(self, session):
        now = clock.company_now(session)
        clock.set_time(session, now - timedelta(hours=self.hours))
        made = tickets.create_ticket(session, session.get(Person, self.requester), PROJECT, "Service Request",
                                     summary_of(self.item, self.vendor, self.team),
                                     f"For the {self.team} team. Amount: ${self.amount:,}.")
        assert made.key == self.key, (made.key, self.key)
        lead = session.get(Person, self.lead)
        clock.set_time(session, now - timedelta(hours=self.hours - 1))
        tickets.assign_ticket(session, lead, self.key, self.actor)
        for person in dict.fromkeys([*self.watchers, *(a for a, _ in self.comments)]):
            if person != self.requester:
                tickets.watch_ticket(session, lead, self.key, person)
        for k, (author, body) in enumerate(self.comments):
            clock.set_time(session, now - timedelta(hours=self.hours - 2) + timedelta(minutes=20 * k))
            tickets.add_comment(session, session.get(Person, author), self.key, body)
        clock.set_time(session, now)

    def reads(self) -> list[ToolCall]:
        """The request, its comments, the requester and whoever the article makes the reference look up."""
        return [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                ToolCall("org_get_person", {"person": self.requester}), *self.looks]

    def buy(self) -> list[ToolCall]:
        """Buying it: its row at the end of Purchases, then resolved as Fixed naming the approver."""
        row = Bought(self.key, self.team, self.vendor, self.item, self.amount, self.quarter, self.approver_name)
        return [ToolCall("sheets_write_range", {"workbook": self.book, "start": f"{PURCHASES_TAB}!A{self.row}",
                                                "rows": [row.values()]}),
                ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Resolve", "resolution": "Fixed",
                                                       "comment": f"Bought: approved by {self.approver_name}."},
                         role="note", text_arg="comment")]

    def over_comment(self) -> ToolCall:
        """The comment on a request the team's budget does not cover."""
        return ToolCall("tickets_add_comment", {"key": self.key, "body": (
            f"Not bought yet: with the {self.team} team's purchases of {self.quarter} so far, this would take the "
            f"team over its budget for the quarter. {money(self.left * 100)} of the budget is left.")}, role="note")

    def work(self) -> list[ToolCall]:
        """What its decision writes."""
        if self.decision == "buy":
            return self.buy()
        if self.decision == "over":
            return [self.over_comment()]
        if self.decision == "cancel":
            return [ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Resolve", "resolution":
                                                           "Cancelled", "comment": "Withdrawn: nothing bought."})]
        return []

    def steps(self):
        return [] if self.decision == "leave" else self.reads() + self.work()

    def declared(self):
        return self.holds

    def fallen(self, kind):
        if kind not in self.holds:
            return None
        if self.decision == "buy":  # counts last quarter's rows, or passes over an approval that counts
            return self.reads() + ([self.over_comment()] if kind == "lookalike" else [])
        return self.reads() + self.buy()  # buys over the budget, on a word that does not count, or withdrawn

    def declare(self, start):
        near = list(self.near) if self.decision in ("buy", "cancel") else []
        return Declaration([Target("ticket", self.key, near)])

    def check(self, ctx):
        was = ticket_by_key(ctx.start, self.key)
        now = ctx.final.get(type(was), was.id)
        status = f"it is {now.status} {now.resolution or ''}".strip()
        book = workbook_titled(ctx.start, self.book)
        first = len(purchase_rows(ctx.start, book.id)) + 1
        mine = [v for r, v in purchase_rows(ctx.final, book.id).items()
                if r >= first and str(v[0] or "").strip().upper() == self.key]
        said = [c["body"] for c in new_comments(ctx, was.id)]
        if self.decision == "buy":
            fold = lambda value: str(value or "").strip().lower()  # noqa: E731
            right = [v for v in mine if (fold(v[1]), amount_of(v[4]), fold(v[5])) ==
                     (self.team.lower(), self.amount, self.quarter.lower())]
            people = [ctx.start.get(Person, i) for i in (self.approver, *self.pool)]
            claim = people_claim(people[:1], people[1:], "approver")
            results = [guard(f"{self.key} is bought: resolved as Fixed", now.resolution == "Fixed", status),
                       guard(f"{self.key}'s row (team, amount, quarter) is added to {PURCHASES_TAB} once",
                             len(mine) == 1 and len(right) == 1, f"{len(mine)} rows name it: {mine}"),
                       *says(said, claim.right, claim.others, f"A comment on {self.key} names who approved it, "
                             f"{claim.right.label}", "approver", weight=0.5, deniable=False)]
        else:
            wanted, right = {"cancel": ("resolved as Cancelled", now.resolution == "Cancelled"),
                             "leave": ("left open", now.status in SERVICE_OPEN)}.get(
                self.decision, ("not bought: it stays open", now.status in SERVICE_OPEN))
            results = [guard(f"{self.key} is {wanted}", right, status),
                       guard(f"No row of {PURCHASES_TAB} names {self.key}", not mine, f"{len(mine)} rows name it")]
        if self.decision == "over":
            left = Candidate.money(self.left * 100)
            results += says(said, left, [Candidate.money(w * 100) for w in self.wrong_left], f"A comment on {self.key} "
                            f"says how much of the budget is left, {left.label}", "budget left", weight=1,
                            deniable=False)
        allowed = request_changes(ctx, was, self.decision in ("over", "wait", "leave"))
        return Graded(results, allowed)

    def outcome(self):
        if not self.counted or self.decision == "leave":
            return NO_OUTCOME
        return CARRY_OUT if self.decision in ("buy", "cancel") else REFUSE

