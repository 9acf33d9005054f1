"""A sales manager's day and a rep's Friday, composed from the commissions, discount and overdue-review
procedures:

- `w.lib_comm_day`: Sales Operations asks a Sales manager to check their direct reports' rows of the quarter's
commissions workbook (tasks.w_lib_comm's check: a stale amount, a rate of the older article, a deal discounted
above the limit, a deal reopened since, another rep's deal, another manager's rows beside them), and the head
of Sales asks them to clear the discount requests waiting on them (tasks.procedures.deals_queue: reasons that
stand, one naming a competitor no deal in the CRM names, the rest naming nothing). Sales Operations hears the
deals corrected and rejected and the approved total; the head of Sales the customers whose discounts were
approved.
- `w.lib_comm_rep_friday`: a rep's manager asks them to check their own rows of the quarter's workbook and send
what to add (their deal won in the quarter that is missing) or raise (their row listed at half the rate though
no line is discounted above the limit), not a teammate's row listed low nor their deal won after the quarter,
and to do the review of their overdue deals (tasks.procedures.accounts_pipeline), naming the deals closed."""

from __future__ import annotations

from datetime import timedelta

from officegym.apps.org.models import Person
from officegym.seed_data.tickets_handbook_commissions import COMMISSIONS

from .base import ToolCall
from .common import named, spread
from .crm import today
from .handbook import article
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads
from .procedures.accounts_draws import overdue_deals, review_owners, reviewable
from .procedures.accounts_pipeline import LOSSES, OVERDUE
from .procedures.commissions_draws import all_teams, teams
from .procedures.commissions_rep import rep_options, rep_rows
from .procedures.deals import DISCOUNTS
from .procedures.deals_queue import queue, queue_managers, waiting_on
from .registry import register
from .split import in_split
from .w_lib_accounts import first_of_split, review_reply
from .w_lib_comm import APPS, TOOLSETS, commissions_check, reads
from .w_lib_deals_common import head_of_sales
from .w_lib_mgr import discount_reply

DAY = ("amount", "old_rate", "discount", "reopened", "teammate", "ok", "ok")
PLANTED = 4  # discount requests the reports made yesterday: two that stand, one tricky, one weak
WAITING = 5  # at most so many requests of the world waiting on the manager
_MANAGERS: dict = {}


def queue_owners(session, split: str) -> set[int]:
    """The Sales managers of the split with a discount queue to plant and few requests waiting (ids, once per
    world)."""
    key = (session.get_bind().url.database, split)
    if key not in _MANAGERS:
        _MANAGERS[key] = {m.id for m in queue_managers(session, split, PLANTED)
                          if len(waiting_on(session, m)) <= WAITING}
    return _MANAGERS[key]


@register
class CommissionsDay(Composed):
    """Check the team's commission rows of the quarter and clear the discount queue, in one day."""

    id, kind, difficulty, split, scale = "w.lib_comm_day", "workflow", 5, "train", "medium"
    apps, toolsets = APPS, TOOLSETS
    rules, hard = (COMMISSIONS, DISCOUNTS), ("lookalike", "stale", "exception", "changed")
    summary = ("Sales Operations asks you to check your reports' rows of the quarter's commissions workbook (CRM "
               "figures, the rate by type, half for a line discounted above the limit, rows of deals reopened or "
               "another rep's rejected; tell them what changed and the total), and the head of Sales to clear your "
               "discount queue by the reason rule, naming the customers approved.")

    def plan(self, session, rng, instance):
        among = queue_owners(session, self.split)
        team = spread([t for t in teams(session, self.split) if t.manager in among], instance)
        manager, ops, book, ask, report = commissions_check(session, rng, team, DAY)
        head = head_of_sales(session)
        work = queue(session, rng, manager, self.split, PLANTED)
        request = DirectRequest(head.id, manager.id, f"Hi @{manager.handle}, your discount queue has piled up. Could "
                                "you decide the requests waiting on you as the handbook says, and tell me which "
                                "customers' discounts you approved?", minutes=45)
        listing = Reads((ToolCall("crm_list_discount_approvals", {"status": "Pending", "mine": True}),))
        return Plan(manager.id, request_instruction(rng, f"{named(session, ops)} and {named(session, head)}",
                                                    "each of them"),
                    [request, ask, ReadRule.of(session, DISCOUNTS, "discount approval reason"), listing, *work,
                     discount_reply(session, head, manager, work), *reads(session), book, report])


def split_reviews(session, rng, rep: Person, split: str) -> list:
    """The rep's overdue review (accounts_draws.overdue_deals), drawn again until a deal of the split with
    look-alikes leads it (the draws' proofs read the first target as the instance's record)."""
    for _ in range(8):
        reviews = first_of_split(overdue_deals(session, rng, [rep], (rng.choice((1, 2)), 2, 2)), split)
        if in_split(split, "opportunity", reviews[0].deal) and reviews[0].near:
            break
    return reviews


@register
class RepFriday(Composed):
    """A rep's Friday: their own commission rows of the quarter (what to ask their manager to add or raise) and the
    review of their overdue deals, both asked by their manager."""

    id, kind, difficulty, split, scale = "w.lib_comm_rep_friday", "workflow", 5, "test", "medium"
    apps, toolsets = APPS, TOOLSETS
    rules, hard = (COMMISSIONS, OVERDUE, LOSSES), ("lookalike", "exception")
    summary = ("Your manager asks you to check your rows of the quarter's commissions workbook and send them what to "
               "add (your deal won in the quarter that is missing) or raise (your row below the article's rate; not "
               "a teammate's row, not a deal won after the quarter), and to do your overdue review (stale deals "
               "pushed or closed lost by stage, a Renewal pushed), naming the deals closed.")

    def plan(self, session, rng, instance):
        owners = {p.id for p in review_owners(session, self.split)
                  if any(in_split(self.split, "opportunity", d.id) for d in reviewable(session).get(p.id, []))}
        team, rep = spread([(t, r) for t, r in rep_options(session, all_teams(session)) if r.id in owners], instance)
        manager = session.get(Person, team.manager)
        rows = rep_rows(session, rng, team, rep, article(session, COMMISSIONS).owner_id)
        reviews = split_reviews(session, rng, rep, self.split)
        text = (f"Hi @{rep.handle}, two things before Friday's payroll: check your rows in {rows.book.title} and send "
                "me which of your deals to add or rows to raise, as the handbook allows; and do the review of your "
                "overdue deals as the handbook says, telling me which ones you closed.")
        listing = ToolCall("crm_list_opportunities", {"stage": "open", "owner": f"@{rep.handle}", "close_to": (
            today(session) - timedelta(days=1)).isoformat()})
        return Plan(rep.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, rep.id, text, minutes=50), *reads(session), rows,
                     ReadRule.of(session, OVERDUE, "overdue pipeline review"),
                     ReadRule.of(session, LOSSES, "loss reasons closed lost"), Reads((listing,)), *reviews,
                     review_reply(manager, rep, reviews)])


__all__ = ["CommissionsDay", "RepFriday"]
