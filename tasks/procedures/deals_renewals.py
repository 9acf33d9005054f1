"""The renewal procedures of the handbook's "Renewals": a New Business or Renewal win opens its renewal a
year ahead (`OpenRenewal`); an Upsell win adds its amount to the account's open Renewal opportunity
(`AddUpsell`); a deal lost opens nothing (`LostNoRenewal`). The wins and losses are planted as the rep
made them last week (the close date set to the signing day, then the deal moved along the path and
closed); an open renewal an Upsell adds to, where the account had none, as the rep opened it months ago."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import OPEN_STAGES, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_deals import RENEWAL_NAME

from ..base import Claim, Declaration, Ref, Target, ToolCall
from ..crm import allow_deal, money, same_text
from ..w_revenue_common import at
from .core import Graded, Procedure

RENEWALS = "Renewals"


def a_year_after(day: date) -> date:
    """The same day a year later (28 February for a 29 February)."""
    return day.replace(year=day.year + 1, day=min(day.day, 28) if day.month == 2 else day.day)


def close_deal(session, owner: Person, deal: Opportunity, day: date, won: bool, reason: str = "") -> None:
    """The rep closes `deal` on `day` (days ago), won or lost: the close date set to the day, then along
    the path to Negotiation and closed."""
    at(session, (clock.company_now(session).date() - day).days, 16, deal.id % 50)
    crm.update_opportunity(session, owner, deal.id, close_date=day.isoformat())
    if won:
        for stage in OPEN_STAGES[OPEN_STAGES.index(deal.stage) + 1:]:
            crm.move_stage(session, owner, deal.id, stage)
        crm.move_stage(session, owner, deal.id, "Closed Won")
    else:
        crm.move_stage(session, owner, deal.id, "Closed Lost", loss_reason=reason)


def new_deals(ctx, account: int) -> list[dict]:
    """Opportunities the episode added on one account."""
    return [r for r in ctx.diff.table("crm_opportunity").added if r["account_id"] == account]


@dataclass(frozen=True)
class OpenRenewal(Procedure):
    """The renewal of the won deal `deal` (won on `won_on` for `cents`), opened on its account by its owner."""

    rules = (RENEWALS,)

    deal: int
    deal_name: str
    account: int
    account_name: str
    owner: int
    won_on: date
    cents: int
    near: tuple[int, ...] = ()  # the owner's other accounts (look-alikes)

    @property
    def name(self) -> str:
        """The renewal's name, by the handbook."""
        return RENEWAL_NAME.format(account=self.account_name, year=a_year_after(self.won_on).year)

    def setup(self, session):
        close_deal(session, session.get(Person, self.owner), session.get(Opportunity, self.deal), self.won_on, True)

    def create(self, name: str, day: date, cents: int) -> ToolCall:
        """The call that opens a renewal."""
        return ToolCall("crm_create_opportunity", {"account": self.account, "name": name, "close_date": day.isoformat(),
                                                   "amount": cents / 100, "stage": "Prospecting", "type": "Renewal"})

    def steps(self):
        return [ToolCall("crm_get_opportunity", {"opportunity": self.deal}),
                ToolCall("crm_list_opportunities", {"account": self.account, "stage": "open"}),
                self.create(self.name, a_year_after(self.won_on), self.cents),
                ToolCall("crm_get_opportunity", {"opportunity": Ref(2, "id")})]

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, []), Target("account", self.account, list(self.near))])

    def check(self, ctx):
        made = new_deals(ctx, self.account)
        row = made[0] if len(made) == 1 else {}
        due = a_year_after(self.won_on)
        return Graded([
            check(f"One renewal opened on {self.account_name}", len(made) == 1, f"{len(made)} new deals", weight=1),
            check(f"It is named \"{self.name}\"", same_text(row.get("name"), self.name), f"{row.get('name')!r}"),
            check("It is a Renewal in Prospecting", row.get("type") == "Renewal" and row.get("stage") == "Prospecting",
                  f"{row.get('type')}, {row.get('stage')}"),
            check(f"It closes on {due.isoformat()}", str(row.get("close_date")) == due.isoformat(),
                  f"{row.get('close_date')}"),
            check(f"Its amount is {money(self.cents)}", row.get("amount_cents") == self.cents,
                  f"{row.get('amount_cents')} cents", weight=2)],
            [Allow("crm_opportunity", ("added",), lambda r: r["account_id"] == self.account, limit=1)])


@dataclass(frozen=True)
class AddUpsell(Procedure):
    """The Upsell `deal` won on `won_on` for `cents` adds its amount to the account's open renewal `renewal`
    (of `before` cents; with `planted`, the rep opened it months ago). Difficulties: `summed` (the near miss
    sets the renewal to the Upsell's amount alone), `exception` (it opens a renewal of the Upsell's own)."""

    rules = (RENEWALS,)
    hard = ("summed", "exception")

    deal: int
    deal_name: str
    account: int
    account_name: str
    owner: int
    won_on: date
    cents: int
    renewal: int
    renewal_name: str
    before: int
    renews_on: date
    planted: bool = False

    def setup(self, session):
        owner = session.get(Person, self.owner)
        if self.planted:
            at(session, 150, 11, self.deal % 50)
            crm.create_opportunity(session, owner, self.account, self.renewal_name, self.renews_on.isoformat(),
                                   self.before / 100, "Qualification", "Renewal")
        close_deal(session, owner, session.get(Opportunity, self.deal), self.won_on, True)

    @property
    def total(self) -> int:
        """What the renewal comes to with the Upsell added, in cents."""
        return self.before + self.cents

    def total_claim(self) -> Claim:
        """What a reply says the renewal now comes to: the total, among the wrong totals (the Upsell added
        twice). The parts of the sum (the renewal's amount before, the Upsell's) are not in the pool: a reply
        may name them beside the total ("its $165,000 added to the renewal, which now comes to $200,000"); one
        that states only a part as the total never states the total."""
        return Claim(Candidate.money(self.total), [Candidate.money(self.total + self.cents)], "text",
                     f"amount {self.renewal_name} now comes to")

    def update(self, cents: int) -> ToolCall:
        """The call that sets the renewal's amount."""
        return ToolCall("crm_update_opportunity", {"opportunity": self.renewal, "amount": cents / 100})

    def steps(self):
        return [ToolCall("crm_get_opportunity", {"opportunity": self.deal}),
                ToolCall("crm_list_opportunities", {"account": self.account, "stage": "open"}),
                ToolCall("crm_get_opportunity", {"opportunity": self.renewal}), self.update(self.before + self.cents)]

    def fallen(self, kind):
        if kind == "summed":
            return self.steps()[:3] + [self.update(self.cents)]
        if kind == "exception":
            won = OpenRenewal(self.deal, self.deal_name, self.account, self.account_name, self.owner, self.won_on,
                              self.cents)
            return self.steps()[:3] + [won.create(won.name, a_year_after(self.won_on), self.cents)]
        return None

    def declare(self, start):
        return Declaration([Target("opportunity", self.renewal, [self.deal])])

    def check(self, ctx):
        amount = ctx.final.get(Opportunity, self.renewal).amount_cents
        total = self.before + self.cents
        return Graded([check(f"{self.renewal_name} comes to {money(total)}, the Upsell added", amount == total,
                             f"it is {money(amount)}", weight=4),
                       guard(f"No renewal of its own for the Upsell {self.deal_name}",
                             not new_deals(ctx, self.account), f"{len(new_deals(ctx, self.account))} new deals")],
                      [allow_deal(self.renewal, "amount_cents", where=lambda r: r["amount_cents"] == total)])


@dataclass(frozen=True)
class LostNoRenewal(Procedure):
    """A deal the rep lost last week (`reason`): no renewal. Difficulty `lookalike` (the near miss opens one)."""

    rules = (RENEWALS,)
    hard = ("lookalike",)

    deal: int
    deal_name: str
    account: int
    account_name: str
    owner: int
    lost_on: date
    cents: int
    reason: str

    def setup(self, session):
        close_deal(session, session.get(Person, self.owner), session.get(Opportunity, self.deal), self.lost_on, False,
                   self.reason)

    def steps(self):
        return [ToolCall("crm_get_opportunity", {"opportunity": self.deal})]

    def fallen(self, kind):
        if kind != "lookalike":
            return None
        won = OpenRenewal(self.deal, self.deal_name, self.account, self.account_name, self.owner, self.lost_on,
                          self.cents)
        return self.steps() + [won.create(won.name, a_year_after(self.lost_on), self.cents)]

