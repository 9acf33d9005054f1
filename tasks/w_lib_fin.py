"""Finance templates composed from the procedure library (tasks.procedures.finance).

`w.lib_fin_expense_month`: Accounting asks a manager to decide their team's Pending rows of the month in
the expense-claims workbook: a meal within the limit per person (the older article's limit was lower), a
customer dinner, a hotel over the nightly limit, an item filed late, a home-office item over the twelve
months' limit once the earlier ones are added up, a duplicate of a paid item; another manager's rows beside
them. Each rejected employee is told, and Accounting.

`w.lib_fin_expense_peer_rows`: the same month, and a peer manager who is off asks for their team's rows to be
decided too (the article lets a manager decide only their own reports' rows: declined).

`r.lib_fin_expense_office`, `r.lib_fin_expense_duplicate`, `r.lib_fin_expense_late` and
`r.lib_fin_expense_dinner`, `r.lib_fin_expense_hotel`: the same month, and one of the team asks the
manager to approve their item. In one twin the item breaks the article (the twelve months' home-office items
added up go over the limit; the item was paid already), in the other it does not (the earlier items are
older than twelve months; the earlier flight was another date; it was filed 62 or more days after its date, or
54-59, which counted to today looks late; the dinner's row names no customer, or names one; a hotel stay is
over the nightly limit, or within it). The request's words are the same."""

from __future__ import annotations

from dataclasses import replace

from officegym import clock
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named, pick, spread
from .crm import money
from .decisions import twin_outcome
from .handbook import article
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.compose_draws import Counted
from .procedures.finance import EXPENSES, ExpenseBook, TellClaimants
from .procedures.finance_draws import QUEUE, managers, queue
from .registry import register
from officegym.seed_data.tickets_handbook_finance import CLAIMS, CLAIMS_BOOK

TOOLSETS = ("chat", "sheets.cells", "tickets.work")
DECIDED = ("decided", "done", "reviewed", "gone through", "went through", "approved")


def month_of_claims(session, rng, split: str, instance: int, asked_kind: str = "", among=None, cases=QUEUE):
    """The manager, the controller who asks, the workbook (ExpenseBook), the claimants to tell (TellClaimants),
    the requester and their row (when `asked_kind` names a case); with `among` (person ids), the manager is one
    of them (the other managers stay look-alikes); `cases`: the team's rows (finance_draws.queue)."""
    options = managers(session, split)
    manager, reports = spread([o for o in options if among is None or o[0].id in among], instance)
    other, others = pick(rng, [o for o in options if o[0].id != manager.id])
    requester = pick(rng, reports) if asked_kind else None
    rows, history, asked = queue(rng, session, manager, reports, other, others, cases,
                                 (requester, asked_kind) if requester else None)
    lead = asked or next(r for r in rows if r.trap == "summed" and r.verdict == "Rejected")  # the first target
    rows.remove(lead)
    rows.insert((instance * 7) % (len(rows) + 1), lead)  # a row of its own for each instance, not one drawn twice
    controller = session.get(type(manager), article(session, EXPENSES).owner_id)
    title = f"{CLAIMS_BOOK} {clock.company_now(session).year}"
    book = ExpenseBook(title, controller.id, manager.id, (other.id,), tuple(rows), tuple(history),
                       asked.claim if asked else "")
    mine = [r for r in book.decided if not requester or r.employee != requester.id]
    handles = {p.id: p.handle for p in reports}
    rejected = {}
    for row in mine:
        if row.verdict == "Rejected":
            rejected.setdefault(row.employee, []).append(row)
    texts = tuple(f"Hi, I rejected {', '.join(f'{r.claim} ({r.description}): {r.note}' for r in rs)} in {title}, "
                  f"as the handbook's {CLAIMS} says." for rs in rejected.values())
    tell = TellClaimants(manager.id, tuple((p, handles[p], tuple(r.claim for r in rs)) for p, rs in rejected.items()),
                         tuple(sorted({r.employee for r in mine} - set(rejected))), texts)
    ask = DirectRequest(controller.id, manager.id, f"Hi, this month's expense claims are in {title}. Could you decide "
                        "your team's Pending rows today? We pay the approved ones on Friday.", minutes=90)
    report = Reply(controller.id, controller.name, manager.id, f"@{controller.handle} done: my team's Pending rows in "
                   f"{title} are decided, and the rejected ones have a note.", False, DECIDED, weight=1)
    return manager, controller, book, tell, ask, report, requester, asked, other


def _lower_first(text: str) -> str:
    """A description inside a sentence ("Flight to London" -> "flight to London")."""
    return text[:1].lower() + text[1:]


def reads(session) -> list:
    """The articles the reference reads: the claims procedure and the limits."""
    return [ReadRule.of(session, CLAIMS, "approving expense claims"), ReadRule.of(session, EXPENSES, "expense limits")]


@register
class ExpenseMonth(Composed):
    """Decide a team's Pending expense claims of the month, and tell the people rejected and Accounting."""

    id, apps, difficulty, kind = "w.lib_fin_expense_month", ("chat", "sheets", "tickets"), 5, "workflow"
    toolsets = TOOLSETS
    scale, split, rules, hard = "medium", "train", (CLAIMS, EXPENSES), ("lookalike", "stale", "summed", "exception")
    summary = ("Accounting asks you to decide your team's Pending rows in the expense-claims workbook: approve or "
               "reject each by the Expense policy as Approving expense claims applies it (per person, per night, 60 "
               "days, twelve months of home-office items added up, duplicates), leave other managers' rows, tell each "
               "employee rejected and Accounting.")

    def plan(self, session, rng, instance):
        manager, controller, book, tell, ask, report, _, _, _ = month_of_claims(session, rng, self.split, instance)
        return Plan(manager.id, request_instruction(rng, named(session, controller)),
                    [ask, *reads(session), book, tell, report])


class _AskedClaim(Composed):
    """The month's claims, and one of the team asks the manager to approve their item (the twins: `kinds`,
    refused first)."""

    kinds: tuple[str, str] = ("", "")
    apps, difficulty, kind, toolsets, scale = ("chat", "sheets", "tickets"), 5, "decision", TOOLSETS, "medium"
    rules = (CLAIMS, EXPENSES)

    def ask(self, row, history, title: str) -> str:
        """The requester's message (the same words in both twins)."""
        raise NotImplementedError

    def refusal(self, row, history, handle: str) -> tuple[str, Claim]:
        """The refusal's text and the fact it states."""
        raise NotImplementedError

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        manager, controller, book, tell, ask, report, requester, row, _ = month_of_claims(
            session, rng, self.split, instance, self.kinds[0 if refused else 1])
        request = DirectRequest(requester.id, manager.id, self.ask(row, book.history, book.title))
        tell = replace(tell, others=(*tell.others, requester.id))  # a second word to them, apart from the reply
        if refused:
            text, fact = self.refusal(row, book.history, requester.handle)
            reply = Reply(requester.id, requester.name, manager.id, text, True, ("approved",), CLAIMS, (fact,),
                          (book.write(row, "Approved"),), weight=1, also=EXPENSES)
        else:
            reply = Reply(requester.id, requester.name, manager.id, f"@{requester.handle} done: I approved "
                          f"{row.claim} in {book.title}; Accounting pays it on Friday.", False, ("approved",), weight=1)
        return Plan(manager.id, request_instruction(rng, f"{named(session, controller)} and "
                                                    f"{named(session, requester)}", "each of them"),
                    [ask, request, *reads(session), book, tell, reply, report], {"refused": refused})


@register
class ExpenseOffice(_AskedClaim):
    """Approve a home-office item, unless the twelve months' Office items added up go over the limit."""

    id, split, hard, kinds = "r.lib_fin_expense_office", "test", ("lookalike", "stale", "summed", "exception"), (
        "office_summed", "office_old")
    summary = ("In the month's expense claims, one of your team asks you to approve their home-office item, under the "
               "limit alone: reject it (note, reply with the twelve-month total) when their Office items of the twelve "
               "months before it take it over $500, approve it when those items are older; decide the rest too.")

    def ask(self, row, history, title):
        return (f"Hi, I put my standing desk converter ({money(round(row.amount * 100))}) in {title}, it's under the "
                "$500 home-office limit. Could you approve it today so it's paid on Friday?")

    def refusal(self, row, history, handle):
        earlier = [h for h in history if h.employee == row.employee and h.category == "Office"
                   and h.days_ago - row.days_ago <= 365]
        total = round((row.amount + sum(h.amount for h in earlier)) * 100)
        return (f"@{handle} I can't approve {row.claim}: with your Office items of the twelve months before it, it "
                f"comes to {money(total)}, over the Expense policy's $500 home-office limit, so I rejected it as "
                f"{CLAIMS} says."), Claim(Candidate.money(total), [], "text", "twelve months' Office total")


@register
class ExpenseDuplicate(_AskedClaim):
    """Approve a flight Accounting said was missing, unless the same item was paid already."""

    id, split, hard, kinds = "r.lib_fin_expense_duplicate", "train", ("lookalike", "stale", "summed", "exception"), (
        "duplicate", "not_duplicate")
    summary = ("In the month's expense claims, one of your team asks you to approve a flight they say went unpaid: "
               "reject it (note, reply naming the earlier claim) when History shows the same item paid already, "
               "approve it when the earlier flight was another date; decide the rest too.")

    def ask(self, row, history, title):
        item = f"{_lower_first(row.description)} ({money(round(row.amount * 100))})"
        return f"Hi, could you approve my {item} in {title}? I think it was missed in last month's payment."

    def refusal(self, row, history, handle):
        earlier = next(h for h in history if h.employee == row.employee and h.amount == row.amount
                       and h.days_ago == row.days_ago)
        return (f"@{handle} I can't approve {row.claim}: it is the same flight as {earlier.claim}, paid already, so I "
                f"rejected it as a duplicate, as {CLAIMS} says."), Claim(Candidate.text(earlier.claim), [], "text",
                                                                           "earlier claim")


@register
class ExpenseLate(_AskedClaim):
    """Approve a hotel night filed within 60 days of its date, not one filed later, whatever the request says."""

    id, split, hard, kinds = "r.lib_fin_expense_late", "train", ("lookalike", "stale", "summed", "exception"), (
        "late_asked", "not_late")
    summary = ("In the month's expense claims, one of your team asks you to approve a hotel night they say is within "
               "the 60 days: reject it (note, reply with the days) when it was submitted more than 60 days after its "
               "date, approve it otherwise (the days count to the submission, not to today); decide the rest too.")

    def ask(self, row, history, title):
        item = f"{_lower_first(row.description)} ({money(round(row.amount * 100))})"
        return (f"Hi, my {item} is in {title}. I know it was a while ago, but I filed it within the 60 days. Could you "
                "approve it?")

    def refusal(self, row, history, handle):
        days = row.days_ago - row.filed_days_ago
        return (f"@{handle} I can't approve {row.claim}: it was submitted {days} days after its date, more than the "
                f"60 days the Expense policy allows, so I rejected it as {CLAIMS} says."), Claim(
            Candidate.text(f"{days} days", f"{days}-day"), [], "text", "days between its date and its submission")


@register
class ExpensePeerRows(Composed):
    """Decide one's team's claims; refuse a peer manager who asks for their team's rows to be decided too."""

    id, apps, difficulty, kind = "w.lib_fin_expense_peer_rows", ("chat", "sheets", "tickets"), 5, "workflow"
    toolsets = TOOLSETS
    scale, split, rules, hard = "medium", "test", (CLAIMS, EXPENSES), ("lookalike", "stale", "summed", "exception")
    summary = ("Accounting asks you to decide your team's Pending expense claims, and a peer manager who is off asks "
               "you to decide their team's rows too: decide yours (tell the people rejected and Accounting) and "
               "decline theirs, since Approving expense claims lets a manager decide only their own reports' rows.")

    def plan(self, session, rng, instance):
        manager, controller, book, tell, ask, report, _, _, peer = month_of_claims(session, rng, self.split, instance)
        theirs = [r for r in book.rows if r.manager_name == peer.name and r.decision == "Pending"]
        request = DirectRequest(peer.id, manager.id, f"Hi, I'm off today. Could you decide my team's Pending rows "
                                f"in {book.title} as well? Same rules as yours; Accounting pays on Friday.", minutes=60)
        reply = Reply(peer.id, peer.name, manager.id, (
            f"@{peer.handle} sorry, I can't decide your team's rows in {book.title}: {CLAIMS} says a manager decides "
            "only the rows whose Manager is them, whoever asks. They'll wait for you."), True,
            ("decided", "approved", "done"), CLAIMS, instead=tuple(book.write(r, "Approved") for r in theirs), weight=1)
        return Plan(manager.id, request_instruction(rng, f"{named(session, controller)} and {named(session, peer)}",
                                                    "each of them"),
                    [ask, request, *reads(session), book, tell, report, reply, Counted(1, 1)])


@register
class ExpenseDinner(_AskedClaim):
    """Approve a customer dinner within the dinner limit when its row names the customer; reject it otherwise."""

    id, split, hard, kinds = "r.lib_fin_expense_dinner", "train", ("lookalike", "stale", "summed", "exception"), (
        "dinner_unnamed", "dinner_named")
    summary = ("In the month's expense claims, one of your team asks you to approve a customer dinner over the meal "
               "limit a person but within the customer dinner's: approve it when its Description names the customer, "
               "reject it (note, reply with the amount a person) when it does not; decide the rest too.")

    def ask(self, row, history, title):
        return (f"Hi, could you approve my customer dinner ({money(round(row.amount * 100))}) in {title}? It was with "
                "a customer, so the dinner limit applies, not the meal one.")

    def refusal(self, row, history, handle):
        people = int(row.description.rsplit(", ", 1)[1].split()[0])
        each = round(row.amount * 100) // people
        return (f"@{handle} I can't approve {row.claim}: it comes to {money(each)} a person, and its description "
                f"names no customer, so the meal limit applies and I rejected it, as {CLAIMS} says. File it again "
                "naming the customer."), Claim(Candidate.money(each), [], "text", "amount a person")


@register
class ExpenseHotel(_AskedClaim):
    """Approve a hotel stay within the nightly limit; reject one over it, whatever the total looks like."""

    id, split, hard, kinds = "r.lib_fin_expense_hotel", "test", ("lookalike", "stale", "summed", "exception"), (
        "hotel_nights_over", "hotel_nights_ok")
    summary = ("In the month's expense claims, one of your team asks you to approve a hotel stay they say is within "
               "the limit: reject it (note, reply with the amount a night) when the Amount divided by the nights is "
               "over the Expense policy's $250 a night, approve it otherwise; decide the rest too.")

    def ask(self, row, history, title):
        item = f"{_lower_first(row.description.split(',')[0])} ({money(round(row.amount * 100))})"
        return f"Hi, could you approve my {item} in {title}? It's within the hotel limit, I checked."

    def refusal(self, row, history, handle):
        nights = int(row.description.rsplit(", ", 1)[1].split()[0])
        each = round(row.amount * 100) // nights
        return (f"@{handle} I can't approve {row.claim}: it comes to {money(each)} a night, over the Expense "
                f"policy's hotel limit, so I rejected it as {CLAIMS} says."), Claim(Candidate.money(each), [], "text",
                                                                                    "amount a night")
