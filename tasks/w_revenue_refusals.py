"""A revenue-operations decision: a rep asks an editor of the sales forecast to type a Closed Won deal
into its Closed Won tab by hand. The deal desk checklist says the Friday refresh picks won deals up
and nobody types them in, with one exception: a deal won before the last Friday refresh that the
refresh missed is typed in by an editor, one row as the tab has them. In one twin the deal was won
this morning (after the refresh): the editor changes nothing and replies naming the checklist and
that it was won today; in the other it was won days before the last refresh and is missing from the
tab: the editor adds its row and tells the rep. The rep's message is the same in both.

And someone asks a rep to share their team's pipeline workbook: the data-sharing article lets its
owner or an editor share it, as a viewer, with anyone in Sales, and with nobody outside. In one twin
the requester works in Sales: the rep shares it as a viewer and tells them; in the other they work
elsewhere: the rep shares nothing and replies naming the article and the requester's department."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Department, Person
from officegym.apps.sheets.models import Share, Workbook
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, channel_named, member_ids, named, pick, spread
from .crm import open_deals
from .decisions import twin_outcome
from .handbook import read_rule, rule_claim
from .phrasing import request_instruction
from .registry import register
from .sheets import a1, sheet_named, values
from .sheets_formulas import EXCEL_EPOCH
from .split import in_split, person_in
from .w_people_replies import decided, decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step, near_people
from .w_revenue_common import agrees, at, editor_ids, team_pipelines

DESK = "Deal desk checklist before Closed Won"
SHARING = "Data sharing: salaries and customer data"
TAB = "Closed Won"
ADDED = ("added", "typed in", "entered", "put in", "listed")
SHARED = ("shared", "given access", "granted", "added")


def stated_fact(replies: list[str], claim: Claim, to: str, weight: float) -> list:
    """That a reply states `claim` and denies it nowhere: what only the state tells weighs most, so a
    reply that declines and cites the right article without it (a blind refusal) earns less than half."""
    return says(replies, claim.right, claim.others, f"Your reply to {to} states the {claim.kind}, {claim.right.label}",
                claim.kind, weight=weight)


def last_refresh(today: date) -> date:
    """The last Friday before today (the forecast's weekly refresh)."""
    return today - timedelta(days=(today.weekday() - 4) % 7 or 7)


def total_row(cells: dict) -> int | None:
    """The 0-based row of the Closed Won tab's Total line."""
    return next((r for (r, c), v in cells.items() if c == 0 and isinstance(v, str) and v.strip() == "Total"), None)


def row_of(cells: dict, name: str) -> int | None:
    """The 0-based row of the tab that lists deal `name` (its Deal column, B)."""
    return next((r for (r, c), v in cells.items() if c == 1 and v == name), None)


def won_step(rep_id: int, deal_id: int, day: date | None, channel_id: int):
    """A setup step: the rep moves the deal to Closed Won, closing it on `day` in the afternoon (None:
    this morning, today), and posts the win in #deals as the checklist says."""
    def run(session) -> None:
        rep, deal = session.get(Person, rep_id), session.get(Opportunity, deal_id)
        if day is None:
            at(session, 0, 8, 5)
        else:
            at(session, (clock.company_now(session).date() - day).days, 15, 10)
            crm.update_opportunity(session, rep, deal_id, close_date=day.isoformat())
        crm.move_stage(session, rep, deal_id, "Closed Won")
        chat.post_message(session, rep, channel_id, f"Closed Won: {deal.account.name} signed {deal.name} for "
                          f"{Candidate.money(deal.amount_cents).label}. What won it: the rollout plan.")
    return run


@register
class ForecastHandEntry(TaskTemplate):
    """A rep asks to have their won deal typed into the forecast's Closed Won tab: refused when it was
    won after the last Friday refresh (the refresh picks it up); typed in when the refresh missed it."""

    id, apps, difficulty = "r.forecast_hand_entry", ("chat", "crm", "sheets", "tickets"), 3
    # its apps hold over 100 tools
    toolsets = ("chat.messages", "chat_join_channel", "crm.sales", "crm.records", "sheets.cells", "sheets.files")
    kind, scale, split = "decision", "medium", "train"
    rules = (DESK,)
    summary = ("A rep asks you to type their won deal into the sales forecast's Closed Won tab by hand: refuse, naming "
               "the deal desk checklist and that it was won today, when the Friday refresh will pick it up; type its "
               "row in and tell them when it was won before the last refresh and the refresh missed it.")

    def sample(self, session, rng, instance):
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        book = session.scalars(select(Workbook).where(Workbook.title.like("FY% Sales Forecast"))).first()
        deals_channel = channel_named(session, "deals")
        inside = member_ids(session, deals_channel.id)
        editors = [p for p in sorted(editor_ids(session, book)) if person_in(self.split, p) and p in inside]
        actor = session.get(Person, spread(editors, instance))
        deals = [d for d in open_deals(session) if d.stage == "Negotiation" and d.owner_id != actor.id
                 and d.owner_id in inside and in_split(self.split, "opportunity", d.id)
                 and person_in(self.split, d.owner_id)]
        deal = pick(rng, deals)
        rep = session.get(Person, deal.owner_id)
        today = clock.company_now(session).date()
        day = None if refused else last_refresh(today) - timedelta(days=pick(rng, [1, 2, 3]))
        won_on = (day or today).isoformat()
        text = pick(rng, [f"Hi @{actor.handle}, {deal.name} is Closed Won, but I can't find it on the {TAB} tab of "
                          f"{book.title}. Could you add it there, so it shows in Friday's forecast call? Thanks!",
                          f"Hey @{actor.handle}, could you put {deal.name} on the {TAB} tab of {book.title}? It's "
                          "won and I want it counted on Friday's forecast call."])
        dm = dm_name(actor.id, rep.id)
        cells = values(session, sheet_named(session, book.id, TAB).id)
        blank = total_row(cells) - 1  # the blank line above the Total, inside its sums
        owner = session.get(Person, deal.owner_id)
        row = [deal.account.name, deal.name, owner.name, deal.amount_cents / 100, won_on]
        money = Candidate.money(deal.amount_cents).label
        typing = [ToolCall("sheets_write_range", {"workbook": book.id, "start": a1(TAB, blank, 0), "rows": [row]})]
        reads = [*dm_reads(dm), *read_rule(session, DESK, "forecast Closed Won tab by hand"),
                 ToolCall("chat_search_messages", {"query": deal.name, "channel": "deals"}),
                 ToolCall("sheets_read_range", {"workbook": book.id, "range": f"'{TAB}'!A1:E{blank + 2}"})]
        writes = decided(refused, typing, dm, (
            f"@{rep.handle} congratulations, but I can't type it in by hand: you won it today, after Friday's "
            f"refresh, and the {DESK} says the Friday refresh picks it up. Post the win in #deals as the checklist "
            "says."), (
            f"@{rep.handle} done: it was won on {won_on}, before Friday's refresh, which missed it, so I added "
            f"{deal.name} to the {TAB} tab at {money}."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, rep)),
            reads + writes,
            {"deal": deal.id, "requester": rep.id, "workbook": book.id, "won_on": won_on, "refused": refused},
            setup=dm_step(rep.id, actor.id, text, won_step(rep.id, deal.id, day, deals_channel.id), minutes=40),
            outcome=outcome)

    def declare(self, start, inst):
        """The won deal (the other deals in Negotiation are look-alikes) and the Closed Won tab; a
        refusal names the checklist and that the deal was won today, a report the deal's amount."""
        p = inst.params
        deal = start.get(Opportunity, p["deal"])
        others = [d for d in open_deals(start) if d.stage == "Negotiation" and d.id != deal.id]
        near = sorted((d.id for d in others), key=lambda i: (abs(i - deal.id), i))[:8]
        targets = [Target("opportunity", deal.id, sorted(near))]
        tab = sheet_named(start, p["workbook"], TAB)
        if tab is not None:
            targets.append(Target("cell", f"'{TAB}'!A2", [f"'{TAB}'!A3"], {"workbook": p["workbook"]}))
        if p["refused"]:
            won = date.fromisoformat(p["won_on"])
            when = Candidate.text(p["won_on"], "today", "this morning", f"{won:%B} {won.day}", f"{won.day} {won:%B}")
            refresh = last_refresh(won)  # a reply may name the refresh it came after
            earlier = [Candidate.text((won - timedelta(days=k)).isoformat()) for k in range(1, 8)
                       if won - timedelta(days=k) != refresh]
            return Declaration(targets, [rule_claim(start, DESK), Claim(when, earlier, "text", "day it was won")])
        mine = [Candidate.money(d.amount_cents) for d in open_deals(start)
                if d.owner_id == deal.owner_id and d.amount_cents != deal.amount_cents]
        return Declaration(targets, [Claim(Candidate.money(deal.amount_cents), mine, "text", "amount")])

    def check(self, ctx, inst):
        p = inst.params
        claims = self.declare(ctx.start, inst).claims
        rep, deal = ctx.start.get(Person, p["requester"]), ctx.start.get(Opportunity, p["deal"])
        dm, replies = dm_replies(ctx, rep.id)
        allowed = allow_posts(ctx, dm, limit=1, mentions=2) if dm else []
        if p["refused"]:
            return [*decision_reply_checks(replies, True, rep.name, rule=claims[0], actions=ADDED),
                    *stated_fact(replies, claims[1], rep.name, 4),
                    nothing_else_changed(ctx.diff, allowed)]
        tab = sheet_named(ctx.final, p["workbook"], TAB)
        cells = values(ctx.final, tab.id) if tab is not None else {}
        r = row_of(cells, deal.name)
        owner = ctx.start.get(Person, deal.owner_id)
        serial = (date.fromisoformat(p["won_on"]) - EXCEL_EPOCH).days
        wanted = [deal.account.name, deal.name, owner.name, deal.amount_cents / 100]
        shown = [cells.get((r, c)) for c in range(5)] if r is not None else None
        typed = r is not None and all(agrees(cells.get((r, c)), w) for c, w in enumerate(wanted)) \
            and (agrees(cells.get((r, 4)), serial) or str(cells.get((r, 4))).strip() == p["won_on"])
        return [check(f"{deal.name} has its row on the {TAB} tab (account, deal, owner, amount, closed on "
                      f"{p['won_on']})", typed, f"its row reads {shown}", weight=2),
                *decision_reply_checks(replies, False, rep.name, actions=ADDED, weight=5),
                *stated_fact(replies, claims[0], rep.name, 5),
                cells_guard(ctx, p["workbook"], [f"'{TAB}'!A2:E{(total_row(cells) or 400) + 1}"]),
                nothing_else_changed(ctx.diff, allowed + allow_workbook_cells(ctx, p["workbook"]))]


def askers(session, split: str, sales: bool) -> list[Person]:
    """People of `split` who lead nothing (neither a department nor a team), inside Sales or outside it
    (Marketing first), by id: who might ask for a pipeline workbook."""
    sales_id = session.scalar(select(Department.id).where(Department.name == "Sales"))
    marketing = session.scalar(select(Department.id).where(Department.name == "Marketing"))
    leaders = set(session.scalars(select(Department.head_id))) | {t.lead_id for _b, t in team_pipelines(session)}
    where = Person.department_id == sales_id if sales else Person.department_id != sales_id
    people = session.scalars(select(Person).where(where, Person.role != "owner")
                             .order_by(Person.department_id != marketing, Person.id))
    return [p for p in people if p.id not in leaders and person_in(split, p.id)]


def department_named(name: str) -> Candidate:
    """A department as a text names it; "People" only with "team" or "department" after it when it is
    a look-alike (a reply says "people in Sales")."""
    return Candidate.text(f"{name} department", f"{name} team") if name == "People" else Candidate.text(name)


@register
class PipelineShare(TaskTemplate):
    """Someone asks a rep to share their team's pipeline workbook: shared as a viewer with someone in
    Sales, refused (naming the data-sharing article and their department) to anyone outside Sales."""

    id, apps, difficulty = "r.revenue_pipeline_share", ("chat", "sheets", "org", "tickets"), 3
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "decision", "medium", "test"
    rules = (SHARING,)
    summary = ("Someone asks you to share your team's pipeline workbook: share it as a viewer when they work in "
               "Sales; otherwise refuse, naming the data-sharing article and their department.")

    def sample(self, session, rng, instance):
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        options = [(book, pid) for book, _team in team_pipelines(session) for pid in sorted(editor_ids(session, book))
                   if person_in(self.split, pid)]
        book, actor_id = spread(options, instance)
        actor = session.get(Person, actor_id)
        shared = set(session.scalars(select(Share.person_id).where(Share.workbook_id == book.id))) | {book.owner_id}
        requester = pick(rng, [p for p in askers(session, self.split, not refused)[:60] if p.id not in shared])
        text = (f"Hi @{actor.handle}, could you share {book.title} with me? I'd like to line up my Q2 plans with the "
                "amounts and close dates of your team's biggest deals. Viewer is fine!")
        dm = dm_name(actor.id, requester.id)
        department = session.get(Department, requester.department_id).name
        share = ToolCall("sheets_share_workbook", {"workbook": book.id, "person": f"@{requester.handle}",
                                                   "role": "viewer"})
        reads = [*dm_reads(dm), ToolCall("org_get_person", {"person": f"@{requester.handle}"}),
                 *read_rule(session, SHARING, "share pipeline workbook deal data"),
                 ToolCall("sheets_get_workbook", {"workbook": book.id})]
        writes = decided(refused, [share], dm, (
            f"@{requester.handle} sorry, I can't share it: {book.title} holds our deals' amounts, and per {SHARING} "
            f"a team's pipeline goes to people in Sales only. You're in {department}."), (
            f"@{requester.handle} done: {book.title} is shared with you as a viewer, as the handbook allows for "
            "people in Sales."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, requester)),
            reads + writes, {"workbook": book.id, "requester": requester.id, "refused": refused},
            setup=dm_step(requester.id, actor.id, text, minutes=35), outcome=outcome)

    def declare(self, start, inst):
        """The requester the share would go to (the people next to them are look-alikes); a refusal
        names the article and the requester's department (Sales is no candidate: it says where the data
        stays), a report what was shared."""
        p = inst.params
        shared = set(start.scalars(select(Share.person_id).where(Share.workbook_id == p["workbook"])))
        targets = [Target("person", p["requester"], near_people(start, p["requester"], shared | {inst.actor_id}, 6))]
        if p["refused"]:
            mine = start.get(Department, start.get(Person, p["requester"]).department_id)
            others = [department_named(d) for d in start.scalars(select(Department.name).order_by(Department.id))
                      if d not in (mine.name, "Sales")]
            return Declaration(targets, [rule_claim(start, SHARING),
                                         Claim(Candidate.text(mine.name), others, "text", "requester's department")])
        book = start.get(Workbook, p["workbook"])
        what = Candidate.text(book.title, book.title.rsplit(" ", 1)[0], "viewer", "view access", "view-only",
                              "view only", "read-only", "read only")
        others = [Candidate.text(t) for t in start.scalars(select(Workbook.title).where(Workbook.id != book.id)
                                                           .order_by(Workbook.id)) if "Pipeline" not in t]
        return Declaration(targets, [Claim(what, others + [Candidate.text("editor", "edit access")], "text",
                                           "what was shared")])

    def check(self, ctx, inst):
        p = inst.params
        claims = self.declare(ctx.start, inst).claims
        requester = ctx.start.get(Person, p["requester"])
        dm, replies = dm_replies(ctx, requester.id)
        allowed = allow_posts(ctx, dm, limit=1, mentions=2) if dm else []
        if p["refused"]:
            return [*decision_reply_checks(replies, True, requester.name, rule=claims[0], actions=SHARED),
                    *stated_fact(replies, claims[1], requester.name, 4),
                    nothing_else_changed(ctx.diff, allowed)]
        now = ctx.final.get(Share, (p["workbook"], requester.id))
        allowed.append(Allow("sheets_share", ("added",), lambda r: r["workbook_id"] == p["workbook"]
                             and r["person_id"] == requester.id))
        return [check(f"The workbook is shared with {requester.name} as a viewer", now is not None
                      and now.role == "viewer", f"share: {getattr(now, 'role', 'none')}", weight=2),
                *decision_reply_checks(replies, False, requester.name, actions=SHARED, weight=5),
                *stated_fact(replies, claims[0], requester.name, 5),
                nothing_else_changed(ctx.diff, allowed)]
