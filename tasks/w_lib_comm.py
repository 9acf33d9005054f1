"""Commissions templates composed from the procedure library (tasks.procedures.commissions):

- `w.lib_comm_quarter`: Sales Operations asks a manager to check their direct reports' rows of the quarter's
  commissions workbook before payroll: a stale amount, a rate of the older article, a wrong type, a deal
  discounted above the limit (half the rate), one discounted at the limit (the full rate), a deal reopened
  since, one closed the quarter before, another rep's deal; another manager's rows beside them. The manager
  tells Sales Operations the deals corrected and rejected and the approved total.
- `r.lib_comm_add_row` (a decision): the same check, and a rep asks for their deal missing from the workbook to
  be added. In one twin the deal is theirs and closed won in the quarter (added), in the other it closed after
  the quarter or is a teammate's (declined). The rep's words are the same.
- `r.lib_comm_raise_rate` (a decision): the same check, and a rep asks for their row listed at half the rate to
  be raised. In one twin the deal's discounts are within the limit (raised), in the other a line is discounted
  above it (declined, naming the discount).

The sales manager's day (`w.lib_comm_day`) and the rep's Friday (`w.lib_comm_rep_friday`) are in
tasks.w_lib_comm_more."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_commissions import COMMISSIONS, RATES

from .base import Claim
from .common import named, pick, spread
from .crm import today
from .decisions import twin_outcome
from .handbook import article
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.commissions import AddedRow, CommissionBook
from .procedures.commissions_draws import (LIMIT_BP, Rows, Team, book_title, day_spellings, deals_by_id, draw_rows,
                                           other_teams, quarter, quarter_report, reports_read, teams, top_discount)
from .procedures.deals import DISCOUNTS
from .registry import register

APPS, TOOLSETS = ("chat", "crm", "sheets", "tickets"), ("chat", "crm.sales", "sheets.cells")
QUARTER = ("amount", "old_rate", "type", "discount", "at_limit", "reopened", "last_quarter", "teammate",
           "ok", "ok", "ok", "ok")
ASKED = ("amount", "old_rate", "discount", "reopened", "last_quarter", "teammate", "ok", "ok")


def commissions_check(session, rng, team: Team, cases, extra=(), asked: str = "", added=None, avoid=()):
    """The manager, Sales Operations' owner of the article, the workbook (CommissionBook: `extra` rows among the
    drawn, none of the deals `avoid`), Sales Operations' request and the report to them (counting the row
    `added` at a rep's request)."""
    manager, ops = session.get(Person, team.manager), session.get(Person, article(session, COMMISSIONS).owner_id)
    title = book_title(session)
    rows, reopened, _ = draw_rows(session, rng, team, cases, pick(rng, other_teams(session, team)), list(extra),
                                  avoid)
    book = CommissionBook(title, ops.id, manager.id, tuple(rows), tuple(reopened), reports_read(manager), asked,
                          added is not None)
    ask = DirectRequest(ops.id, manager.id, f"Hi, the {quarter(today(session))[2]} commissions are in {title}. "
                        "Could you check your reports' rows before payroll on Friday, as the handbook says, and tell "
                        "me what you changed?", minutes=80)
    return manager, ops, book, ask, quarter_report(ops, manager, title, rows, added)


def reads(session) -> list:
    """The article the reference reads."""
    return [ReadRule.of(session, COMMISSIONS, "sales commissions rates")]


@register
class CommissionsQuarter(Composed):
    """Check a team's rows of the quarter's commissions workbook against the CRM, and tell Sales Operations."""

    id, apps, difficulty, kind = "w.lib_comm_quarter", APPS, 5, "workflow"
    toolsets, scale, split, rules = TOOLSETS, "medium", "train", (COMMISSIONS, DISCOUNTS)
    hard = ("lookalike", "stale", "exception", "changed")
    summary = ("Sales Operations asks you to check your direct reports' rows of the quarter's commissions workbook: "
               "Type and Amount from the CRM, the rate by type (half for a line discounted above the limit), the "
               "commission recomputed and Approved; a deal reopened, closed in another quarter or another rep's "
               "Rejected with a note; other managers' rows left; tell Sales Operations what changed and the total.")

    def plan(self, session, rng, instance):
        team = spread(teams(session, self.split), instance)
        manager, ops, book, ask, report = commissions_check(session, rng, team, QUARTER)
        return Plan(manager.id, request_instruction(rng, named(session, ops)), [ask, *reads(session), book, report])


def _missing(session, rng, team: Team, refused: bool) -> tuple[Person, Opportunity, str]:
    """The rep who asks, their deal missing from the workbook and why it is declined ("" when it qualifies)."""
    reps, deals = [session.get(Person, r) for r in team.reports], deals_by_id(session, team.won + team.after)
    if not refused:
        rep = pick(rng, reps)
        return rep, deals[pick(rng, [d for d in team.won if deals[d].owner_id == rep.id])], ""
    after = list(team.after)
    why = "after" if after and rng.random() < 0.5 else "teammate"
    deal = deals[pick(rng, after if why == "after" else team.won)]
    rep = deal.owner_id if why == "after" else pick(rng, [r for r in team.reports if r != deal.owner_id])
    return session.get(Person, rep), deal, why


@register
class CommissionsAddRow(Composed):
    """The quarter's check, and a rep asks for their missing deal to be added: added when it qualifies."""

    id, apps, difficulty, kind = "r.lib_comm_add_row", APPS, 5, "decision"
    toolsets, scale, split, rules = TOOLSETS, "medium", "train", (COMMISSIONS, DISCOUNTS)
    hard = ("lookalike", "stale", "changed")
    summary = ("The quarter's commission rows of your reports to check, and a rep asks you to add their deal missing "
               "from the workbook: add it (CRM figures, the article's rate, Approved) when it is theirs and closed "
               "won in the quarter; decline naming the close date or the deal's owner otherwise.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        team = spread(teams(session, self.split, 6), instance)
        rep, deal, why = _missing(session, rng, team, refused)
        built = Rows(session, rng, team)
        row = replace(built.row(deal, owner=rep.id), why=())
        cases = ASKED if not refused or why != "teammate" else tuple(c for c in ASKED if c != "teammate")
        manager, ops, book, ask, report = commissions_check(session, rng, team, cases, added=None if refused else row,
                                                            avoid=(deal.id,))
        added = AddedRow(book.title, len(book.rows) + 2, row, not refused)
        request = DirectRequest(rep.id, manager.id, f"Hi, {deal.name} is a deal of mine that closed won last quarter, "
                                f"and it's missing from {book.title}. Could you add it so it's paid with the "
                                "quarter's commissions?", minutes=40)
        if refused:
            owner = session.get(Person, deal.owner_id)
            fact = (Claim(Candidate.text(*day_spellings(deal.close_date)), [], "text", "close date") if why == "after"
                    else Claim(Candidate.person(owner), [], "text", "deal's owner"))
            because = (f"it closed won on {deal.close_date.isoformat()}, after the quarter" if why == "after" else
                       f"it is {owner.name}'s deal in the CRM")
            reply = Reply(rep.id, rep.name, manager.id, f"@{rep.handle} I can't add {deal.name} to {book.title}: "
                          f"{because}, and {COMMISSIONS} pays a row only for the owner's deal closed won in the "
                          "quarter.", True, ("added",), COMMISSIONS, (fact,), (added.call(),), weight=3,
                          fact_weight=4)
        else:
            reply = Reply(rep.id, rep.name, manager.id, f"@{rep.handle} done: I added {deal.name} to {book.title} "
                          "and approved it.", False, ("added",), weight=8)
        return Plan(manager.id, request_instruction(rng, f"{named(session, ops)} and {named(session, rep)}",
                                                    "each of them"),
                    [ask, request, *reads(session), book, added, reply, report], {"refused": refused})


@register
class CommissionsRaiseRate(Composed):
    """The quarter's check, and a rep asks for their row at half the rate to be raised: raised unless a line of
    the deal is discounted above the limit."""

    id, apps, difficulty, kind = "r.lib_comm_raise_rate", APPS, 5, "decision"
    toolsets, scale, split, rules = TOOLSETS, "medium", "train", (COMMISSIONS, DISCOUNTS)
    hard = ("lookalike", "stale", "exception", "changed")
    summary = ("The quarter's commission rows of your reports to check, and a rep asks you to raise their row listed "
               "at half the rate: raise it to the type's full rate when no line of the deal is discounted above the "
               "limit; keep half and decline, naming the discount, when one is.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        fits = ((lambda d: d > LIMIT_BP) if refused else (lambda d: LIMIT_BP - 500 <= d <= LIMIT_BP))
        team = spread([t for t in teams(session, self.split) if any(fits(top_discount(session, d)) for d in t.won)],
                      instance)
        deal = session.get(Opportunity, pick(rng, [d for d in team.won if fits(top_discount(session, d))]))
        rep, full = session.get(Person, deal.owner_id), RATES[deal.type]
        asked = replace(Rows(session, rng, team).row(deal, rate=full / 2), trap="" if refused else "stale")
        manager, ops, book, ask, report = commissions_check(session, rng, team, ASKED, [asked], deal.name)
        request = DirectRequest(rep.id, manager.id, f"Hi, my {deal.name} row in {book.title} is at {full / 2:g}%, "
                                f"half the {deal.type} rate. Could you raise it to the full {full:g}% before payroll? "
                                "I don't think the discount rule applies to it.", minutes=40)
        if refused:
            percent = f"{top_discount(session, deal.id) / 100:g}"
            raised = replace(asked, rate=full)
            reply = Reply(rep.id, rep.name, manager.id, f"@{rep.handle} I can't raise {deal.name}: a line of it is "
                          f"discounted {percent}%, above the limit, so {COMMISSIONS} pays half the {deal.type} rate, "
                          f"{full / 2:g}%, and the row stays at that.", True, ("raised",), COMMISSIONS, (Claim(
                              Candidate.text(f"{percent}%", f"{percent} %", f"{percent} percent"), [], "text",
                              "discount above the limit"),), (book.write(replace(raised, right_rate=full)),), weight=3,
                          fact_weight=4, carried=(f"{full / 2:g}%",))  # the row approved at half: it may say so
        else:
            reply = Reply(rep.id, rep.name, manager.id, f"@{rep.handle} done: I raised {deal.name} to {full:g}% and "
                          "approved it.", False, ("raised",), weight=8)
        return Plan(manager.id, request_instruction(rng, f"{named(session, ops)} and {named(session, rep)}",
                                                    "each of them"),
                    [ask, request, *reads(session), book, reply, report], {"refused": refused})
