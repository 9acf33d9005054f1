"""Deal talk: the owners of real opportunities post about them in #deals and their team channel,
and the CEO celebrates the biggest recent win in #general.

Every statement is true at the company's "now": a deal is announced as won only if it is Closed
Won (posted just after it closed), "moved to Negotiation" only if it is still there, and so on.
Accounts are named exactly as stored and amounts written exactly as in the CRM ("$120,000")."""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from . import crm_vocab as cv
from .chat_text import Line, Scene, Where, _day, render_scene
from .crm_model import Crm, DealRec
from .crm_deals import quarter_end
from .org import Org


def dollars(cents: int) -> str:
    """Money as people write it: "$120,000", or "$120,000.50" when there are cents."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}" + (f".{rest:02d}" if rest else "")


class DealTalk:
    """Renders deal scenes into the channel plans of chat (`plans` by channel name)."""

    def __init__(self, org: Org, crm: Crm, plans: dict, rng: Random, projects, end: datetime):
        self.org, self.crm, self.plans, self.rng, self.projects, self.end = org, crm, plans, rng, projects, end
        self.head = org.heads.get("Sales")
        self._by_team: dict | None = None

    def facts(self, deal: DealRec) -> dict[str, str]:
        """The placeholder values of one deal (see crm_vocab.DEAL_TALK)."""
        owner = self.org.person(deal.owner_id)
        manager = self.org.person(owner.manager_id) if owner.manager_id else owner
        return {"account": deal.account.name, "deal_amount": dollars(deal.amount_cents), "stage": deal.stage,
                "competitor": deal.competitor, "loss_reason": deal.loss_reason, "close_date": _day(deal.close_date),
                "manager": manager.handle}

    def team_channel(self, deal: DealRec):
        """The owner's team channel if they are in one, else #deals."""
        owner = self.org.person(deal.owner_id)
        if self._by_team is None:  # the first team channel of each team
            self._by_team = {}
            for plan in self.plans.values():
                if plan.where.team:
                    self._by_team.setdefault(plan.where.team, []).append(plan)
        for plan in self._by_team.get(owner.team, []):
            if owner.id in plan.where.member_ids:
                return plan
        return self.plans["deals"]

    def post(self, plan, deal: DealRec, kind: str, when: datetime, replies: str | None, extra: dict | None = None,
             celebrate: bool = False) -> list[Line]:
        """One scene by the deal owner; nothing if it would fall outside the channel's history."""
        owner = self.org.person(deal.owner_id)
        start = max(plan.created_at, self.org.window_start, owner.since)
        if not start <= when <= self.end - timedelta(hours=3):
            return []
        scene = Scene(self.org, plan.where, self.rng, when, self.projects)
        scene.people["asker"] = owner
        scene.values.update(self.facts(deal), **(extra or {}))
        pool = list(cv.DEAL_REPLIES[replies]) if replies else []
        if replies in ("won", "lost") and self.head and owner.id != self.head and self.head in plan.where.member_ids:
            pool.append("head: Great work, @{asker}." if replies == "won" else "head: Thanks for the notes, @{asker}.")
        spec = {"top": cv.DEAL_TALK[kind], "replies": pool, "pool": True,
                "react": "many" if celebrate else "some", "emoji": "celebrate" if celebrate else "ack"}
        lines = render_scene(scene, spec, "asker")
        plan.lines += lines
        return lines

    def later(self, at: datetime, low: int = 5, high: int = 35) -> datetime:
        """A few minutes after `at`."""
        return at + timedelta(minutes=self.rng.randint(low, high), seconds=self.rng.randint(0, 59))

    def run(self) -> None:
        """Post every deal event of the history window, in deal order."""
        deals_channel = self.plans["deals"]
        for deal in self.crm.deals:
            if deal.stage == "Closed Won":
                self.post(deals_channel, deal, "won", self.later(deal.closed_at), "won", celebrate=True)
                verbal = deal.closed_at - timedelta(days=self.rng.randint(1, 3), hours=self.rng.randint(0, 2))
                in_negotiation = deal.changes[-2][2] if len(deal.changes) > 1 else deal.created_at
                if verbal.weekday() < 5 and verbal > in_negotiation and self.rng.random() < 0.5:
                    self.post(self.team_channel(deal), deal, "verbal", verbal, "verbal")
            elif deal.stage == "Closed Lost":
                kind = "lost" if deal.competitor else "lost_plain"
                self.post(self.team_channel(deal), deal, kind, self.later(deal.closed_at), "lost")
            else:
                self._open_deal(deal)
            self._approvals(deal)
        self._ceo_shout_out()

    def _open_deal(self, deal: DealRec) -> None:
        moved_at = deal.changes[-1][2] if deal.changes else deal.created_at
        late = deal.stage in ("Proposal", "Negotiation")  # late-stage news is for everyone, early for the team
        plan = self.plans["deals"] if late else self.team_channel(deal)
        posted = self.post(plan, deal, deal.stage, self.later(moved_at), "move")
        soon = self.org.now.date() <= deal.close_date <= quarter_end(self.org.now)
        if not posted and soon and self.rng.random() < 0.5:
            when = moved_at + timedelta(days=self.rng.randint(1, 10), hours=self.rng.randint(0, 3))
            if when.weekday() < 5:
                self.post(self.plans["deals"], deal, "help", when, "ask")

    def _approvals(self, deal: DealRec) -> None:
        for approval in deal.approvals:
            extra = {"discount": f"{approval.discount_bp // 100}%"}
            if approval.status == "Approved":
                self.post(self.team_channel(deal), deal, "approved", self.later(approval.decided_at), None, extra)
            elif approval.status == "Pending":
                self.post(self.team_channel(deal), deal, "pending", self.later(approval.requested_at), None, extra)

    def _ceo_shout_out(self) -> None:
        """The CEO thanks the owner of the biggest win of the history window in #general, the same week."""
        general = self.plans["general"]
        wins = [d for d in self.crm.deals if d.stage == "Closed Won" and self.org.window_start <= d.closed_at]
        if not wins:
            return
        deal = max(wins, key=lambda d: d.amount_cents)
        when = deal.closed_at + timedelta(hours=self.rng.randint(1, 3))
        if when > self.end - timedelta(hours=3):
            return
        scene = Scene(self.org, general.where, self.rng, when, self.projects)
        scene.values.update(self.facts(deal), deal_owner=self.org.person(deal.owner_id).handle)
        spec = {"top": cv.CEO_WIN, "by": "ceo", "replies": ["Congrats @{deal_owner}!", "Huge win!", "So proud of this team."],
                "pool": True, "react": "many", "emoji": "celebrate"}
        general.lines += render_scene(scene, spec, "ceo")


def deals_where(org: Org) -> Where:
    """Members of #deals: all of Sales, the CEO, the heads who care about revenue, and a few others."""
    sales = [p.id for p in org.in_dept("Sales")]
    heads = [org.heads[d] for d in ("Executive", "Finance", "Customer Success", "Marketing", "Legal") if d in org.heads]
    cs = [p.id for p in org.in_dept("Customer Success") if p.rank == "lead"][:3]
    head = org.heads.get("Sales", org.ceo.id)
    return Where(sorted(set(sales) | set(heads) | set(cs)), "Sales", head, head)
