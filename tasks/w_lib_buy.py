"""Purchase templates composed from the procedure library (tasks.procedures.purchases): Procurement works the
purchase requests in PUR as Team purchase requests says, against each team's budget for the quarter in the
workbook Team Purchase Budgets <year>.

`w.lib_buy_queue`: Procurement's lead hands one of their people six requests: one the team's budget covers (last
quarter's rows would not), one of another team for the same item that the quarter's purchases added up leave
no room for, one over the manager's limit that the department's head approved and one only the manager approved
(as the older article allowed), one whose manager is away, and one withdrawn; the report says what waits and why.

`w.lib_buy_team_quarter`: a team's manager asks Procurement to buy their team's requests: worked oldest first,
the first ones bought take the budget left below the last; a withdrawn one is cancelled, another team's request
for the same item is left alone.

`r.lib_buy_budget_left` and `r.lib_buy_approver`: the same queue, and a requester asks Procurement by direct
message to buy their request. In one twin the team's budget covers it (or the department's head approved it),
in the other the quarter's purchases leave too little (or only the manager approved an amount over their limit).
The request's words are the same."""

from __future__ import annotations

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named
from .crm import money
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.access import AWAY
from .procedures.purchases_draws import Queue, draw_queue
from .registry import register
from .w_people_replies import people_claim
from officegym.seed_data.tickets_handbook_purchases import BUDGETS_BOOK, MANAGER_LIMIT, PROJECT, PURCHASES

TOOLSETS = ("chat", "sheets.cells", "tickets.work")
APPS = ("chat", "sheets", "tickets", "org")
BOUGHT = ("bought", "resolved", "purchased")
MY_QUEUE = Reads((ToolCall("tickets_search_tickets", {"query": f"project = {PROJECT} AND assignee = currentUser() AND "
                                                               "statusCategory != Done ORDER BY key"}),))


def reads(session, queue: Queue) -> list:
    """The articles the reference reads (Approvals when the approver is away where a manager is away)."""
    found = [ReadRule.of(session, PURCHASES, "team purchase requests budget")]
    if any(s in ("cover", "skip") for s in queue.states):
        found.append(ReadRule.of(session, AWAY, "approver away approval"))
    return found


def key_pool(queue: Queue, right: str) -> list[Candidate]:
    """The PUR keys a message could name instead of `right`: the history's last few and the next ones."""
    live = {r.key for r in queue.requests}
    numbers = [int(r.key.split("-")[1]) for r in queue.requests]
    near = [n for n in range(max(1, min(numbers) - 3), max(numbers) + 3) if f"{PROJECT}-{n}" not in live]
    return [Candidate.text(f"{PROJECT}-{n}") for n in near if f"{PROJECT}-{n}" != right]


def left_claim(request) -> Claim:
    """The budget left that a word on a request over the budget states."""
    return Claim(Candidate.money(request.left * 100), [Candidate.money(w * 100) for w in request.wrong_left], "text",
                 "budget left")


def report(session, queue: Queue, to: Person) -> Reply:
    """The report on the queue: what was bought and cancelled, what stays open and why."""
    done = [r for r in queue.requests if r.decision != "leave"]
    bought = [r.key for r in done if r.decision == "buy"]
    cancelled = [r.key for r in done if r.decision == "cancel"]
    still = [(f"{r.key} would take {r.team} over its {r.quarter} budget ({money(r.left * 100)} of it left)"
              if r.decision == "over" else f"{r.key} waits on {r.approver_name}'s approval")
             for r in done if r.decision in ("over", "wait")]
    text = (f"Bought {', '.join(bought)} ({'each has its' if len(bought) > 1 else 'with its'} row in "
            f"{queue.book.title})." +
            (f" Cancelled {', '.join(cancelled)}: withdrawn by the requester." if cancelled else "") +
            (f" Still open: {'; '.join(still)}." if still else ""))
    # what the report names is read as naming ("Left open: PUR-26 ..." names PUR-26 and denies nothing)
    named_facts = [Claim(Candidate.text(r.key), key_pool(queue, r.key), "text", "request still open")
                   for r in done if r.decision in ("over", "wait")]
    named_facts += [left_claim(r) for r in done if r.decision == "over"]
    involved = {p.id for c in queue.casts for p in (c.requester, c.manager, c.skip, c.cover, c.head)}
    pool = list({p.id: p for c in queue.casts for p in c.bystanders if p.id not in involved}.values())
    named_facts += [people_claim([session.get(Person, r.approver)], pool, f"approver {r.key} waits on")
                    for r in done if r.decision == "wait"]
    # the cover an away manager named approves nothing: a report may say so ("Jacqueline Leach could not approve")
    covers = tuple(c.cover.name for r, c in zip(queue.requests, queue.casts) if "away" in r.holds)
    return Reply(to.id, to.name, queue.actor.id, text, False, BOUGHT, fact_weight=2, named=tuple(named_facts),
                 asides=covers)


def queue_ask(queue: Queue) -> DirectRequest:
    """Procurement's lead hands the queue over."""
    return DirectRequest(queue.lead.id, queue.actor.id, (
        f"Morning @{queue.actor.handle}, I've assigned you {len(queue.requests)} purchase requests in {PROJECT}. "
        "Could you work them as the handbook says, against the teams' budgets in "
        f"{BUDGETS_BOOK} {queue.today.year}, and tell me what you bought and what is still open, and why?"), minutes=40)


@register
class PurchaseQueue(Composed):
    """Six purchase requests: buy those with an approval that counts that the team's budget covers, leave the
    others open (saying so on the one over budget), cancel the withdrawn one, and report to Procurement's lead."""

    id, kind, difficulty, split, scale = "w.lib_buy_queue", "workflow", 5, "train", "medium"
    apps, toolsets, rules = APPS, TOOLSETS, (PURCHASES, AWAY)
    hard = ("lookalike", "summed", "stale", "away", "changed")
    summary = ("Work six purchase requests: who approves by the amount (the manager up to $2,500, the department's "
               "head above; the manager's manager while they are away), the team's purchases of the quarter added "
               "up against its budget (not last quarter's), buy (row in Purchases, resolved as Fixed) or leave open "
               "with a reason, cancel the withdrawn one, and report to Procurement's lead.")

    def plan(self, session, rng, instance):
        states = ["fits", "over", "head", "head_missing", rng.choice(["cover", "skip"]), "withdrawn"]
        rng.shuffle(states)
        queue = draw_queue(session, rng, self.split, instance, states,
                           same_vendor=(states.index("fits"), states.index("over")))
        return Plan(queue.actor.id, request_instruction(rng, named(session, queue.lead)),
                    [queue_ask(queue), *reads(session, queue), MY_QUEUE, queue.book, *queue.requests,
                     report(session, queue, queue.lead)])


@register
class TeamQuarter(Composed):
    """A team's requests bought oldest first until the quarter's budget runs short; the withdrawn one cancelled,
    another team's request for the same item left alone; the team's manager told what was bought and what waits."""

    id, kind, difficulty, split, scale = "w.lib_buy_team_quarter", "workflow", 5, "test", "medium"
    apps, toolsets, rules = APPS, TOOLSETS, (PURCHASES,)
    hard = ("lookalike", "summed", "changed")
    summary = ("A team's manager asks Procurement to buy their team's purchase requests: work them oldest first, "
               "adding each one bought to the quarter's purchases, leave the one the budget no longer covers open "
               "with the budget left, cancel the withdrawn one, leave another team's request alone, and tell the "
               "manager.")

    def plan(self, session, rng, instance):
        order = rng.choice([("fits", "head", "withdrawn", "over"), ("fits", "withdrawn", "fits", "over"),
                            ("withdrawn", "fits", "head", "over")])
        states, slots = [*order[:2], "other_team", *order[2:]], [0, 0, 1, 0, 0]
        queue = draw_queue(session, rng, self.split, instance, states, slots, same_vendor=(0, 2))
        manager = queue.casts[0].manager
        keys = [r.key for r, s in zip(queue.requests, slots) if s == 0]
        ask = DirectRequest(manager.id, queue.actor.id, (
            f"Hi @{queue.actor.handle}, {queue.casts[0].requester.name} filed our team's purchase requests in "
            f"{PROJECT} this week ({', '.join(keys)}). Could you buy them today? We need them before the end of the "
            "month."), minutes=50)
        reading = [ToolCall("org_get_person", {"person": manager.id})]
        return Plan(queue.actor.id, request_instruction(rng, named(session, manager)),
                    [ask, ReadRule.of(session, PURCHASES, "team purchase requests budget"), Reads(tuple(reading)),
                     queue.book, *queue.requests, report(session, queue, manager)])


class _AskedPurchase(Composed):
    """The queue, and a requester asks Procurement by direct message to buy their request (the twins: `kinds`,
    refused first, asked among `others`)."""

    kinds: tuple[str, str] = ("", "")
    others: tuple[str, ...] = ()
    kind, difficulty, scale, apps, toolsets, rules = "decision", 5, "medium", APPS, TOOLSETS, (PURCHASES,)

    def ask(self, request, cast) -> str:
        """The requester's message (the same words in both twins)."""
        raise NotImplementedError

    def refusal(self, request, cast, handle: str) -> tuple[str, tuple[Claim, ...], tuple[Claim, ...]]:
        """The refusal's text, the facts it states and the people it names."""
        raise NotImplementedError

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        at = instance // 2 % (len(self.others) + 1)
        states = [*self.others]
        states.insert(at, self.kinds[0 if refused else 1])
        queue = draw_queue(session, rng, self.split, instance, states, counted=(at,))
        asked, cast = queue.requests[at], queue.casts[at]
        requester = cast.requester
        request = DirectRequest(requester.id, queue.actor.id, self.ask(asked, cast), minutes=30)
        if refused:
            text, facts, people = self.refusal(asked, cast, requester.handle)
            reply = Reply(requester.id, requester.name, queue.actor.id, text, True, BOUGHT, PURCHASES, facts,
                          tuple(asked.buy()), named=people)
        else:
            reply = Reply(requester.id, requester.name, queue.actor.id, (
                f"@{requester.handle} done: {asked.key} is bought (approved by {asked.approver_name}) and has its "
                f"row in {queue.book.title}."), False, BOUGHT)
        who = f"{named(session, queue.lead)} and {named(session, requester)}"
        return Plan(queue.actor.id, request_instruction(rng, who, "each of them"),
                    [queue_ask(queue), request, *reads(session, queue), MY_QUEUE, queue.book, *queue.requests, reply,
                     report(session, queue, queue.lead)], {"refused": refused})


@register
class BudgetLeft(_AskedPurchase):
    """Buy the asked request when the team's budget for the quarter covers it; leave it open otherwise."""

    id, split, kinds, others = "r.lib_buy_budget_left", "train", ("over", "fits"), ("head", "withdrawn", "head_missing")
    hard = ("lookalike", "summed", "stale", "changed")
    summary = ("In the purchase queue, a requester asks you to buy their request, approved by their manager: buy it "
               "when the team's purchases of the quarter (not last quarter's) plus it stay within the budget; leave it "
               "open with a comment and decline, giving the budget left, when they do not; work the rest too.")

    def ask(self, request, cast):
        return (f"Hi, could you buy {request.key} ({request.item} from {request.vendor}, ${request.amount:,})? "
                f"{cast.manager.name} approved it, and we still have budget this quarter.")

    def refusal(self, request, cast, handle):
        return (f"@{handle} I can't buy {request.key} yet: with the {request.team} team's purchases of "
                f"{request.quarter} so far, it would take the team over its budget for the quarter; only "
                f"{money(request.left * 100)} of it is left. It stays open, as {PURCHASES} says."), (
            left_claim(request),), ()


@register
class ApproverByAmount(_AskedPurchase):
    """Buy the asked request over the manager's limit when the department's head approved it; not otherwise."""

    id, split, kinds, others = "r.lib_buy_approver", "test", ("head_missing", "head"), ("fits", "over", "withdrawn")
    hard = ("lookalike", "summed", "stale", "changed")
    summary = ("In the purchase queue, a requester asks you to buy their request over $2,500 that their manager "
               "approved: buy it when the head of their department approved it too; otherwise leave it open and "
               "decline, naming the head whose approval it needs (the older article's $5,000 is stale); work the "
               "rest too.")

    def ask(self, request, cast):
        return (f"Hi, could you buy {request.key} ({request.item} from {request.vendor}, ${request.amount:,})? "
                f"{cast.manager.name} approved it on the ticket, so it's good to go.")

    def refusal(self, request, cast, handle):
        head = cast.head
        return (f"@{handle} I can't buy {request.key} yet: at ${request.amount:,} it is over the ${MANAGER_LIMIT:,} "
                f"a manager approves, so {head.name}, head of {cast.department}, approves it, and there is no "
                f"approval from them on the ticket. It stays open, as {PURCHASES} says."), (), (
            people_claim([head], list(cast.bystanders), "approver it waits on"),)
