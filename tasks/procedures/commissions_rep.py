"""The rep's side of the handbook's "Sales commissions": a rep reads the quarter's commissions workbook (a viewer
of it) and their deals won in the quarter, and asks their manager, in one direct message, to add each deal of
theirs that is missing and to raise each row of theirs listed below the article's rate; nothing for a deal
closed won after the quarter nor for a teammate's row (`RepRows`, drawn by `rep_rows`)."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.apps.org.models import Person
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_commissions import COMMISSIONS, RATES

from ..base import Claim, Declaration, ToolCall
from ..common import allow_posts
from ..crm import today
from ..w_people_replies import dm_name, dm_replies
from .commissions import TAB, CommissionBook
from .commissions_draws import LIMIT_BP, Rows, Team, book_title, deals_by_id, quarter, top_discount
from .core import Graded, Procedure

@dataclass(frozen=True)
class RepRows(Procedure):
    """Plant `book` (the rep a viewer of it), read it and the rep's deals won in the quarter (`first`, `last`),
    open each of `opened`, and ask the manager in one direct message to add `to_add` and raise `to_raise`,
    naming none of `not_asked` (the rep's deal won after the quarter, a teammate's row listed low, their own row
    rightly at half the rate for a line discounted above the limit). Difficulty
    `lookalike`: the near miss asks to raise the teammate's row too (`fallen_text`)."""

    rules = (COMMISSIONS,)
    hard = ("lookalike",)

    book: CommissionBook
    manager: int
    manager_name: str
    rep_handle: str
    first: str
    last: str
    opened: tuple[int, ...]
    to_add: tuple[str, ...]
    to_raise: tuple[str, ...]
    not_asked: tuple[str, ...]
    text: str
    fallen_text: str

    def setup(self, session):
        self.book.setup(session)

    def steps(self, text: str | None = None):
        area = f"{TAB}!A1:H{len(self.book.rows) + 1}"
        return [ToolCall("sheets_read_range", {"workbook": self.book.title, "range": area}),
                ToolCall("crm_list_opportunities", {"stage": "Closed Won", "owner": f"@{self.rep_handle}",
                                                    "close_from": self.first, "close_to": self.last}),
                *[ToolCall("crm_get_opportunity", {"opportunity": deal}) for deal in self.opened],
                ToolCall("chat_post_message", {"channel": dm_name(self.book.actor, self.manager),
                                               "text": text or self.text}, role="report")]

    def fallen(self, kind):
        return self.steps(self.fallen_text) if kind == "lookalike" else None

    def claims(self) -> list[Claim]:
        """What the message must ask for, each among what it must not."""
        others = [Candidate.text(n) for n in self.not_asked]
        return ([Claim(Candidate.text(n), others, "text", "deal to add") for n in self.to_add]
                + [Claim(Candidate.text(n), others, "text", "row to raise") for n in self.to_raise])

    def declare(self, start):
        return Declaration([], self.claims())

    def check(self, ctx):
        dm, texts = dm_replies(ctx, self.manager)
        results = [check(f"You wrote to {self.manager_name} about your rows", bool(texts), "no message", weight=1)]
        for claim in self.claims():
            results += says(texts, claim.right, claim.others, f"Your message to {self.manager_name} names the "
                            f"{claim.kind}, {claim.right.label}", claim.kind, weight=3)
        return Graded(results, allow_posts(ctx, dm, limit=1, mentions=2) if dm else [])


def rep_rows(session, rng, team: Team, rep: Person, ops: int) -> RepRows:
    """The rep's rows of the quarter (all their deals won in it but one, which is missing; one listed at half
    the rate though no line is discounted above the limit; one discounted above it listed at half, rightly),
    two or three teammates' rows (one listed at half the rate too), and the rep's deal won after the quarter."""
    deals = deals_by_id(session, team.won + team.after)
    mine = sorted((deals[i] for i in team.won if deals[i].owner_id == rep.id), key=lambda d: d.id)
    rng.shuffle(mine)
    plain = [d for d in mine if top_discount(session, d.id) <= LIMIT_BP]
    missing, low = plain[0], plain[1]
    built = Rows(session, rng, team)
    rows = [built.row(d, rate=RATES[d.type] / 2 if d is low or top_discount(session, d.id) > LIMIT_BP else
                      RATES[d.type]) for d in mine if d is not missing]
    theirs = rng.sample([deals[i] for i in team.won if deals[i].owner_id != rep.id
                         and top_discount(session, i) <= LIMIT_BP], 3)
    rows += [built.row(d, rate=RATES[d.type] / 2 if k == 0 else RATES[d.type]) for k, d in enumerate(theirs)]
    rng.shuffle(rows)
    later = [deals[i] for i in team.after if deals[i].owner_id == rep.id]
    manager = session.get(Person, team.manager)
    title, (first, last, _) = book_title(session), quarter(today(session))
    book = CommissionBook(title, ops, rep.id, tuple(rows), access="viewer")
    full = RATES[low.type]
    text = (f"@{manager.handle} I checked my rows in {title}. Please add {missing.name} (mine, closed won "
            f"{missing.close_date.isoformat()}, not in the workbook) and raise {low.name} to the full {low.type} rate, "
            f"{full:g}% (no line of it is discounted above the limit). My other rows are right.")
    return RepRows(book, manager.id, manager.name, rep.handle, first.isoformat(), last.isoformat(),
                   tuple(d.id for d in mine), (missing.name,), (low.name,),
                   tuple([theirs[0].name] + [d.name for d in later[:1]]
                         + [d.name for d in mine if top_discount(session, d.id) > LIMIT_BP]), text,
                   text.replace(" My other rows", f" Also raise {theirs[0].name} to the full rate. My other rows"))


def rep_options(session, teams: list[Team]) -> list[tuple[Team, Person]]:
    """(team, rep) for each rep with three deals won in the quarter or more, two of them discounted within the
    limit."""
    found = []
    for team in teams:
        deals = deals_by_id(session, team.won)
        for rep in team.reports:
            mine = [d for d in deals.values() if d.owner_id == rep]
            if len(mine) >= 3 and sum(top_discount(session, d.id) <= LIMIT_BP for d in mine) >= 2:
                found.append((team, session.get(Person, rep)))
    return found
