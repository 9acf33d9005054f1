"""Renewal templates composed from the procedure library (tasks.procedures.deals_renewals), imported by
tasks.w_lib_deals:

- `w.lib_deal_renewals`: a Sales Operations analyst asks a rep, by DM, to open the renewals of the deals
  they closed last week, as "Renewals" says: a renewal a year ahead for each New Business
  win, the Upsell's amount added to its account's open renewal, nothing for the deals lost; the reply
  gives what the Upsell's renewal now comes to."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Person, Team

from .base import ToolCall
from .common import named, pick, spread
from .crm import money
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.deals_renewal_draws import closed_weeks, renewal_week
from .procedures.deals_renewals import RENEWALS, AddUpsell, OpenRenewal
from .registry import register

DONE = ("opened", "added", "done", "updated")
RENEWAL_TOOLS = ("chat", "crm.records", "crm.sales", "tickets.work")


def sales_ops_analyst(session, rng) -> Person:
    """Someone of the Sales Operations team."""
    team = session.scalar(select(Team.id).where(Team.name == "Sales Operations"))
    return pick(rng, list(session.scalars(select(Person).where(Person.team_id == team).order_by(Person.id))))


@register
class RenewalWeek(Composed):
    """Open the renewals of a rep's deals closed last week, the Upsell added to its account's open renewal."""

    id, kind, difficulty, split, scale = "w.lib_deal_renewals", "workflow", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), RENEWAL_TOOLS
    rules, hard = (RENEWALS,), ("summed", "exception", "lookalike")
    wins, upsells = 3, 1
    summary = ("A Sales Operations analyst asks you to open the renewals of the deals you closed last week: a "
               "Renewal a year ahead at the won amount for each New Business win, each Upsell's amount added to its "
               "account's open renewal instead, nothing for the deal lost; reply with what each Upsell's renewal now "
               "comes to.")

    def plan(self, session, rng, instance):
        f = spread(closed_weeks(session, self.split, self.wins, self.upsells), instance)
        asker, rep = sales_ops_analyst(session, rng), f.rep
        work = renewal_week(session, rng, f, self.split, self.wins, self.upsells)
        ups = [p for p in work if isinstance(p, AddUpsell)]
        opened = [p for p in work if isinstance(p, OpenRenewal)]
        text = (f"Hi @{rep.handle}, the pipeline shows no renewals yet for the deals you closed last week. "
                "Could you sort them out as the handbook's Renewals article says, and tell me what each renewal that "
                "took an Upsell now comes to?")
        facts = tuple(u.total_claim() for u in ups)
        said = "; ".join(f"{u.renewal_name} now comes to {money(u.before + u.cents)}" for u in ups)
        reply = Reply(asker.id, asker.name, rep.id, (
            f"@{asker.handle} done: I opened the renewals of {', '.join(o.deal_name for o in opened)}, and added the "
            f"Upsell to its account's open renewal: {said}."), False, DONE, facts=facts, weight=20, fact_weight=10)
        reads = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "closed",
                                                           "sort": "close_date", "descending": True}),))
        check = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "open",
                                                            "sort": "created", "descending": True}),))
        return Plan(rep.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, rep.id, text), ReadRule.of(session, RENEWALS, "renewal upsell"), reads,
                     *work, check, reply])
