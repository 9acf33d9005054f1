"""A revenue-operations workflow over chat, the CRM, sheets and the handbook: the team's lead asks a
rep, in the team channel, to pull together the team's commit for a month. Only each deal's owner
knows whether they commit it (their answer, when asked; one owner is away, and the teammate who
covers for them knows instead); the committed deals go on a new tab of the team's pipeline workbook
with a total, the total goes where the handbook lets deal amounts be discussed (#deals), and the
reply in the team channel states no amount. The owners decide: a deal listed as committed without a
question to whoever decides it fails, however right the list; the #deals post and the thread reply are
read for what they state (the total; that the tab is done, naming it). Grading helpers are in
w_revenue_commit_checks."""

from __future__ import annotations

import calendar
from datetime import date

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person, Team
from officegym.apps.sheets.models import Sheet
from officegym.colleagues import plant_note
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says, stated

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, channel_named, find_message, member_ids
from .chat import _steps
from .common import spread
from .crm import open_deals
from .handbook import read_rule
from .registry import register
from .sheets import values
from .sheets_formulas import EXCEL_EPOCH
from .split import in_split, person_in
from .w_revenue_commit_checks import asked_about, known_by, total_pool
from .w_revenue_common import agrees, at, editor_ids, repeated, team_pipelines

MONTHS = (4, 5, 6, 7, 8, 9)
DONE = ("ready", "done", "added", "listed", "posted", "pulled together", "in place")  # the months of the next two quarters a commit is asked for
COMMITS = ["Commit: {deal} signs by {day}; procurement has the order form.",
           "Commit: the customer's CFO approved {deal}, signature on {day}."]
MISSES = ["Not in my commit: {deal} is waiting on their budget sign-off.",
          "Not in my commit: legal review of {deal} is still open on their side."]


def team_channel(session, team: Team) -> Channel | None:
    """The team's channel: team-<team name, lowercase, words joined by hyphens>."""
    return channel_named(session, "team-" + "-".join(team.name.lower().split()))


def in_month(session, team: Team, month: int, deals: list[Opportunity]) -> list[Opportunity]:
    """The team's deals in Negotiation closing in `month` of this year, by id, among the open `deals`."""
    year = clock.company_now(session).year
    members = set(session.scalars(select(Person.id).where(Person.team_id == team.id)))
    return [d for d in deals if d.owner_id in members and d.stage == "Negotiation"
            and d.close_date.year == year and d.close_date.month == month]


def _options(session, split: str) -> list[tuple]:
    """(workbook, team, month, rep, deals) where the rep edits the team's pipeline, owns none of the
    month's deals in Negotiation, three to six teammates own them, and a teammate who owns none of
    them can cover for one of them."""
    deals_members = member_ids(session, channel_named(session, "deals").id)
    every = open_deals(session)
    found = []
    for book, team in team_pipelines(session):
        channel = team_channel(session, team)
        if channel is None:
            continue
        inside = member_ids(session, channel.id) & deals_members
        for month in MONTHS:
            deals = in_month(session, team, month, every)
            owners = {d.owner_id for d in deals}
            if not 3 <= len(owners) <= 6 or team.lead_id not in inside or not any(
                    in_split(split, "opportunity", d.id) for d in deals):
                continue
            for person_id in sorted(editor_ids(session, book) & inside - owners - {team.lead_id}):
                if person_in(split, person_id) and _covers(session, team, person_id, owners):
                    found.append((book, team, month, person_id, deals))
    return found


def _covers(session, team: Team, actor_id: int, owners: set[int]) -> list[int]:
    """The teammates who could cover for an owner who is away: neither the rep, nor the lead, nor an owner."""
    return [i for i in session.scalars(select(Person.id).where(Person.team_id == team.id).order_by(Person.id))
            if i not in owners and i not in (actor_id, team.lead_id)]


def _committed(rng, deals: list[Opportunity], split: str) -> list[int]:
    """The deals their owners commit: at least one of the split's, at least one left out."""
    ours = [d for d in deals if in_split(split, "opportunity", d.id)]
    first = ours[rng.randrange(len(ours))]
    rest = [d for d in deals if d.id != first.id]
    kept = [d.id for d in rest if rng.random() < 0.5]
    if len(kept) == len(rest):
        kept = kept[:-1]
    return [first.id] + kept


def _notes(notes: dict[int, str], away: int, cover: int):
    """A setup step: each deal's owner knows whether they commit it, but one owner is away this week
    and the teammate who covers their deals knows instead."""
    def run(session) -> None:
        covering = session.get(Person, cover)
        for deal_id, text in notes.items():
            deal = session.get(Opportunity, deal_id)
            if deal.owner_id == away:
                plant_note(session, covering, "opportunity", deal_id, text)
                text = f"I'm away this week: @{covering.handle} covers my deals and knows where they stand, ask them."
            plant_note(session, session.get(Person, deal.owner_id), "opportunity", deal_id, text)
    return run


def _ask(lead_id: int, channel_id: int, text: str):
    """A setup step: this morning the lead asks in the team channel."""
    def run(session) -> None:
        at(session, 0, 8, 50)
        chat.post_message(session, session.get(Person, lead_id), channel_id, text)
    return run


@register
class MonthCommit(TaskTemplate):
    id, apps, difficulty = "w.revenue_month_commit", ("chat", "crm", "sheets", "tickets"), 5
    # its apps hold over 100 tools
    toolsets = ("chat.messages", "chat_join_channel", "crm.sales", "crm.records", "sheets.cells", "sheets.files")
    kind, scale, split = "workflow", "medium", "train"
    rules = ("Data sharing: salaries and customer data",)
    summary = ("Ask each owner (or who covers for one away) whether they commit their deals closing in a month, list "
               "the committed ones (only those their owner was asked about) on a new tab of the team's pipeline with "
               "a total, post the total in #deals only, and reply in the thread naming the tab.")

    def sample(self, session, rng, instance):
        book, team, month, actor_id, deals = spread(_options(session, self.split), instance)
        actor, lead = session.get(Person, actor_id), session.get(Person, team.lead_id)
        committed = _committed(rng, deals, self.split)
        notes = {d.id: rng.choice(COMMITS if d.id in committed else MISSES).format(
            deal=d.name, day=d.close_date.isoformat()) for d in deals}
        year = clock.company_now(session).year
        name, last = calendar.month_name[month], calendar.monthrange(year, month)[1]
        first_day, last_day = date(year, month, 1).isoformat(), date(year, month, last).isoformat()
        tab = f"{name} commit"
        text = (f"@{actor.handle} could you pull together our {name} commit before Friday's forecast call? Ask the owner "
                f"of each of our deals in Negotiation closing in {name} ({first_day} to {last_day}) whether they commit "
                f"it, list the committed deals on a new \"{tab}\" tab of {book.title} (account, deal, owner, amount, "
                f"expected close, then a Total row), and post our {name} commit total where we discuss deal amounts. "
                "Reply in this thread when it's done.")
        kept = [d for d in deals if d.id in committed]
        total = sum(d.amount_cents for d in kept)
        owners = sorted({d.owner_id for d in deals})
        away = rng.choice([i for i in owners if i != lead.id])
        cover = session.get(Person, rng.choice(_covers(session, team, actor_id, set(owners))))
        asks = []
        for owner_id in owners + [cover.id]:
            owner, first = session.get(Person, owner_id), session.get(Person, owner_id).name.split()[0]
            theirs = " and ".join(d.name for d in deals if d.owner_id == (away if owner_id == cover.id else owner_id))
            question = (f"Hi {first}, for our {name} commit: do you commit {theirs}?" if owner_id != cover.id else
                        f"Hi {first}, you cover for {session.get(Person, away).name.split()[0]}'s deals this week: do "
                        f"we commit {theirs} for {name}?")  # no @handle: a reply speaks of four records at most
            asks += [ToolCall("chat_open_conversation", {"people": [f"@{owner.handle}"]}),
                     ToolCall("chat_post_message", {"channel": Ref(4 + len(asks), "id"), "text": question},
                              role="ask"),
                     ToolCall("chat_wait", {"channel": Ref(4 + len(asks), "id"), "minutes": 480})]
        rows = [["Account", "Deal", "Owner", "Amount", "Expected close"]]
        rows += [[d.account.name, d.name, session.get(Person, d.owner_id).name, d.amount_cents / 100,
                  d.close_date.isoformat()] for d in kept]
        rows += [["Total", "", "", f"=SUM(D2:D{len(kept) + 1})", ""]]
        steps = [ToolCall("chat_list_mentions", {}),
                 *read_rule(session, "Data sharing: salaries and customer data", "where to discuss deal amounts"),
                 ToolCall("crm_list_opportunities", {"stage": "Negotiation", "close_from": first_day,
                                                     "close_to": last_day, "limit": 200}),
                 *asks,
                 ToolCall("sheets_list_workbooks", {"query": "Pipeline"}),
                 ToolCall("sheets_create_sheet", {"workbook": book.id, "name": tab}),
                 ToolCall("sheets_write_range", {"workbook": book.id, "start": f"'{tab}'!A1", "rows": rows}),
                 ToolCall("sheets_read_range", {"workbook": book.id, "range": f"'{tab}'!A1:E{len(rows)}"}),
                 ToolCall("chat_post_message", {"channel": "deals", "text": (
                     f"{team.name} {name} commit: {Candidate.money(total).label} over {len(kept)} "
                     f"deal{'s' if len(kept) > 1 else ''}.")}, role="note"),
                 ToolCall("chat_post_message", {"channel": team_channel(session, team).id, "thread_parent_id": Ref(
                     0, "items.0.id"), "text": f"Done: the {tab} tab of {book.title} is ready, and the total is in "
                                               "#deals."}, role="report")]
        return TaskInstance(
            self.id, instance, actor.id,
            f"{lead.name} asked you something in your team's channel. Do it, following the handbook, and change "
            "nothing else.",
            steps, {"workbook": book.id, "team": team.id, "month": month, "tab": tab, "lead": lead.id, "text": text,
                    "notes": {str(k): v for k, v in notes.items()}, "committed": committed, "total": total,
                    "cover": cover.id, "away": away},
            setup=_steps(_notes(notes, away, cover.id), _ask(lead.id, team_channel(session, team).id, text)))

    def declare(self, start, inst):
        """The first committed deal (the team's other deals in Negotiation are look-alikes); the total
        the #deals post states."""
        p = inst.params
        first = p["committed"][0]
        members = set(start.scalars(select(Person.id).where(Person.team_id == p["team"])))
        others = [d.id for d in open_deals(start) if d.stage == "Negotiation" and d.owner_id in members
                  and d.id != first]
        near = sorted(others, key=lambda i: (abs(i - first), i))[:8]
        return Declaration([Target("opportunity", first, sorted(near))],
                           [Claim(Candidate.money(p["total"]), total_pool(start, p, p["total"]), "text",
                                  "commit total")])

    def check(self, ctx, inst):
        p = inst.params
        actor = ctx.start.get(Person, ctx.actor_id)
        channel = team_channel(ctx.start, ctx.start.get(Team, p["team"]))
        asked = find_message(ctx.start, p["lead"], channel.id, p["text"])
        sheet = next((t for t in ctx.final.scalars(select(Sheet).where(Sheet.workbook_id == p["workbook"]))
                      if t.name.casefold() == p["tab"].casefold() and ctx.start.get(Sheet, t.id) is None), None)
        cells = values(ctx.final, sheet.id) if sheet is not None else {}
        rows = {v: r for (r, c), v in cells.items() if c == 1 and isinstance(v, str)}
        results = [check(f"You added a \"{p['tab']}\" tab to the team's pipeline workbook", sheet is not None,
                         "there is no such new tab")]
        asked_twice, allowed = False, allow_workbook_cells(ctx, p["workbook"]) + [
            Allow("sheets_sheet", ("added",), lambda r: r["workbook_id"] == p["workbook"])]
        reached = {}
        for owner_id in sorted({ctx.start.get(Opportunity, int(k)).owner_id for k in p["notes"]} | {p["cover"]}):
            dm, opened = allow_new_conversation(ctx, [actor, ctx.start.get(Person, owner_id)])  # a question each,
            allowed += opened + (allow_posts(ctx, dm.id, limit=2) if dm is not None else [])  # maybe a follow-up
            texts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
            asked_twice |= repeated(texts)
            reached[owner_id] = bool(texts)
        unasked = []
        for key in sorted(p["notes"], key=int):
            deal = ctx.start.get(Opportunity, int(key))
            owner = ctx.start.get(Person, deal.owner_id)
            if deal.name in {v for v in cells.values() if isinstance(v, str)} and not asked_about(ctx, p, reached, deal,
                                                                                                 channel, asked):
                unasked.append(deal.name)
            if deal.id not in p["committed"]:
                results.append(check(f"{deal.name} (not committed) is not listed", sheet is not None
                                     and deal.name not in {v for v in cells.values() if isinstance(v, str)},
                                     "it is listed, or there is no tab", weight=1))
                continue
            r = rows.get(deal.name)
            wanted = [deal.account.name, deal.name, owner.name, deal.amount_cents / 100,
                      (deal.close_date - EXCEL_EPOCH).days]
            results.append(check(f"{deal.name} is listed with its account, owner, amount and expected close",
                                 r is not None and all(agrees(cells.get((r, c)), w) for c, w in enumerate(wanted)),
                                 f"its row reads {[cells.get((r, c)) for c in range(5)] if r is not None else None}",
                                 weight=2))
        total_row = next((r for (r, c), v in cells.items() if c == 0 and str(v).strip().casefold() == "total"), None)
        results.append(check(f"The Total row adds up to {Candidate.money(p['total']).label}",
                             total_row is not None and agrees(cells.get((total_row, 3)), p["total"] / 100),
                             f"it reads {cells.get((total_row, 3)) if total_row is not None else 'nothing'}",
                             weight=2))
        deals_channel = channel_named(ctx.start, "deals").id
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == deals_channel
                 and r["thread_parent_id"] is None]
        said = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == channel.id]
        replied = [t for r, t in ((r, r["text"]) for r in added_messages(ctx, ctx.actor_id))
                   if asked is not None and r["channel_id"] == channel.id and r["thread_parent_id"] == asked.id]
        claim = self.declare(ctx.start, inst).claims[0]
        amounts = [Candidate.money(p["total"])] + [Candidate.money(ctx.start.get(Opportunity, int(k)).amount_cents)
                                                   for k in p["notes"]]
        lead = ctx.start.get(Person, p["lead"])
        lead_dm = allow_new_conversation(ctx, [actor, lead])[0]
        lead_asked = lead_dm is not None and any(r["channel_id"] == lead_dm.id for r in added_messages(ctx, ctx.actor_id))
        owns = any(ctx.start.get(Opportunity, int(k)).owner_id == lead.id for k in p["notes"])
        # the lead's own deals may be asked about in the thread instead of a DM: then two replies there
        allowed += allow_posts(ctx, deals_channel, None) + allow_posts(ctx, channel.id, asked.id if asked else -1,
                                                                        limit=2 if owns and not lead_asked else 1)
        knowers = sorted({ctx.start.get(Opportunity, int(k)).owner_id for k in p["notes"]} - {p.get("away")}
                         | {p["cover"]})
        results += [check(f"You asked {ctx.start.get(Person, i).name} whether they commit their deals",
                          any(asked_about(ctx, p, reached, d, channel, asked) for d in known_by(ctx, p, i)),
                          "no message of yours reached them", weight=1) for i in knowers]
        work = sum(r.weight for r in results if not r.guard)  # what is told weighs three times the work
        return results + [
            *says(posts, claim.right, claim.others, f"The #deals post gives the commit total {claim.right.label}",
                  claim.kind, weight=max(5, round(1.9 * work))),
            *report_reply(replied, f"You replied to {lead.name} in the thread that it is done", DONE,
                          weight=max(3, round(1.1 * work))),
            *says(replied, Candidate.text(p["tab"]), [Candidate.text(f"{calendar.month_name[m]} commit")
                                                       for m in MONTHS if m != p["month"]],
                  f"The reply names the \"{p['tab']}\" tab", "tab", weight=1, deniable=False),
            guard("Every deal listed as committed was asked about (its owner, or who covers for them, decides)",
                  not unasked, f"listed without asking: {unasked[:3]}"),
            guard("No deal amount was written in the team channel", not any(stated(t, amounts) for t in said),
                  f"it reads {said[:2]}"),
            guard("No question was sent twice", not asked_twice, "a direct message repeats another"),
            cells_guard(ctx, p["workbook"], [f"'{p['tab']}'!A1:Z1000"]),
            nothing_else_changed(ctx.diff, allowed)]

