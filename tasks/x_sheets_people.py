"""Cross-app tasks with sheets about people: share the budget with the new Finance hire welcomed in
#general and tell them by direct message, assign a ticket to whoever the on-call rota names for
its group this week."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Share, Workbook
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Group, Ticket
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _post, _steps
from .common import added_messages, allow_new_conversation, allow_posts, channel_named, pick, spread
from .registry import register
from .split import in_split, person_in
from .sheets import row_labelled, sheet_named, values, workbook_titled
from .tickets import allow_ticket, group_people, tickets_where

NEW_HIRES = ["Priya Raman", "Jonas Weber", "Amara Okafor", "Lucas Ferreira", "Mei Tanaka", "Olivia Brandt",
             "Samuel Osei", "Chloe Martin", "Diego Alvarez", "Hannah Kowalski", "Ravi Menon", "Ingrid Lund"]
HIRE_TITLES = ["Financial Analyst", "Senior Financial Analyst", "FP&A Manager", "Budget Analyst"]
DECOY_TITLES = [("Marketing", "Content Marketing Manager"), ("Engineering", "Software Engineer"),
                ("Sales", "Account Executive"), ("Customer Success", "Customer Success Manager")]


def hire_handle(name: str) -> str:
    """The handle a new hire gets: their name, lower-cased, with dots."""
    return name.lower().replace(" ", ".")


def _hire(name: str, title: str, dept_name: str):
    """A setup step: a person joins a department (the directory has no hiring service: seeded data)."""
    def run(session) -> None:
        dept = session.scalar(select(Department).where(Department.name == dept_name))
        team = session.scalars(select(Team).where(Team.department_id == dept.id).order_by(Team.id)).first()
        domain = session.scalar(select(Person.email).order_by(Person.id)).split("@")[1]
        handle = hire_handle(name)
        session.add(Person(name=name, handle=handle, email=f"{handle}@{domain}", title=title,
                           department_id=dept.id, team_id=team.id if team else None, manager_id=dept.head_id,
                           location="Remote", timezone="UTC", role="member"))
        session.flush()
    return run


@register
class ShareBudgetNewHire(TaskTemplate):
    id, apps, difficulty = "x.share_budget_new_hire", ("chat", "sheets", "org"), 3
    split = "test"  # the Department Budgets workbook is of the test split; its owner or an editor of the split acts
    summary = "Share the budget with the new Finance hire welcomed in #general and tell them by direct message."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        editors = session.scalars(select(Share.person_id).where(Share.workbook_id == book.id, Share.role == "editor")
                                  .order_by(Share.person_id))
        # whoever may share it (the owner or an editor) and is of the split acts
        owner = session.get(Person, pick(rng, [p for p in [book.owner_id, *editors] if person_in(self.split, p)]))
        general = channel_named(session, "general")
        taken = set(session.scalars(select(Person.name))) | set(session.scalars(select(Person.handle)))
        hire, decoy = rng.sample([n for n in NEW_HIRES if n not in taken and hire_handle(n) not in taken], 2)
        title, (decoy_dept, decoy_title) = pick(rng, HIRE_TITLES), pick(rng, DECOY_TITLES)
        role = pick(rng, ["editor", "viewer"])
        handle = hire_handle(hire)
        return TaskInstance(
            self.id, instance, owner.id,
            f"Share the workbook \"{book.title}\" with the new Finance hire welcomed in #general today, as "
            f"{'an editor' if role == 'editor' else 'a viewer'}, and send them one direct message telling them that "
            f"the \"{book.title}\" workbook is shared with them. Share nothing else and change nothing else.",
            [ToolCall("chat_list_messages", {"channel": "general", "limit": 20}),
             ToolCall("org_search_people", {"query": hire}),
             ToolCall("sheets_share_workbook", {"workbook": book.id, "person": f"@{handle}", "role": role}),
             ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
             ToolCall("chat_post_message", {"channel": Ref(3, "id"),
                                            "text": f"Welcome! I have shared \"{book.title}\" with you."})],
            {"workbook": book.id, "hire": hire, "decoy": decoy, "role": role},
            setup=_steps(_hire(hire, title, "Finance"), _hire(decoy, decoy_title, decoy_dept),
                         _post(owner.id, general.id, f"Please welcome {hire}, who joins Finance as {title} today!"),
                         _post(owner.id, general.id, f"And a warm welcome to {decoy}, our new {decoy_title} "
                                                     f"in {decoy_dept}.")))

    def declare(self, start, inst):
        """The hire (the other new hire first among the look-alikes); the message names the workbook
        among the other workbooks' titles."""
        p = inst.params
        hire, decoy = (start.scalar(select(Person).where(Person.handle == hire_handle(p[k])))
                       for k in ("hire", "decoy"))
        shared = set(start.scalars(select(Share.person_id).where(Share.workbook_id == p["workbook"])))
        others = [f"@{q.handle}" for q in start.scalars(select(Person).order_by(Person.id))
                  if q.id not in shared | {hire.id, decoy.id, inst.actor_id}]
        titles = [Candidate.text(t) for t in start.scalars(select(Workbook.title).where(
            Workbook.id != p["workbook"]).order_by(Workbook.id))]
        title = Candidate.text(start.get(Workbook, p["workbook"]).title)
        return Declaration([Target("person", f"@{hire.handle}", [f"@{decoy.handle}"] + others)],
                           [Claim(title, titles, "text", "workbook")])

    def check(self, ctx, inst):
        p = inst.params
        claim = self.declare(ctx.start, inst).claims[0]
        hire = ctx.start.scalar(select(Person).where(Person.handle == hire_handle(p["hire"])))
        share = ctx.final.get(Share, (p["workbook"], hire.id))
        dm, allowed = allow_new_conversation(ctx, [hire, ctx.start.get(Person, ctx.actor_id)])
        sent = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
        return [check(f"{hire.name} has the workbook as {p['role']}", share is not None and share.role == p["role"],
                      f"their role is {share.role if share else 'none'}", weight=2),
                check(f"You sent {hire.name} a direct message", sent, "no new message of yours in a DM with them"),
                *says(sent, claim.right, claim.others, f"The message names the workbook {claim.right.label}",
                      claim.kind),
                nothing_else_changed(ctx.diff, allowed + (allow_posts(ctx, dm.id) if dm else []) + [
                    Allow("sheets_share", ("added",), lambda r: (r["workbook_id"], r["person_id"])
                          == (p["workbook"], hire.id))])]


def on_call_this_week(session, group_name: str) -> Person | None:
    """The person the On-call Rota names for a group this week (its 'On call this week' row)."""
    book = workbook_titled(session, "On-call Rota")
    if book is None:
        return None
    cells = values(session, sheet_named(session, book.id, "Rota").id)
    row = row_labelled(cells, "On call this week")
    col = next((c for (r, c), v in cells.items() if r == 0 and v == group_name), None)
    if row is None or col is None:
        return None
    name = cells.get((row, col))
    group = session.scalar(select(Group).where(Group.name == group_name))
    return next((p for p in group_people(session, group.id) if p.name == name), None)


@register
class AssignOnCall(TaskTemplate):
    id, apps, difficulty = "x.assign_on_call", ("sheets", "tickets"), 2
    summary = "Assign an open ticket to whoever the on-call rota names for its group this week."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "On-call Rota")
        header = values(session, sheet_named(session, book.id, "Rota").id)
        groups = [v for (r, c), v in sorted(header.items()) if r == 0 and c > 0]
        ours = lambda group: [p for p in group_people(session, group.id) if person_in(self.split, p.id)]  # noqa: E731
        options = []
        for name in groups:
            group, person = session.scalar(select(Group).where(Group.name == name)), on_call_this_week(session, name)
            if person is None:
                continue
            for ticket in tickets_where(session, Ticket.group_id == group.id):
                if workflow.is_open(ticket.status) and ticket.assignee_id != person.id and ticket.type != "Problem" \
                        and in_split(self.split, "ticket", ticket.key) and ours(group):
                    options.append((ticket, group, person))
        # Instances step through the tickets and who assigns them: a split has few of both.
        (ticket, group, person), actor = spread([(o, p) for o in options
                                                 for p in [q for q in ours(o[1]) if q.id != o[2].id] or ours(o[1])],
                                                instance)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{ticket.key} (\"{ticket.summary}\") needs an owner: assign it to whoever the On-call Rota workbook "
            f"says is on call for the {group.name} group this week. Change nothing else.",
            [ToolCall("sheets_list_workbooks", {"query": "On-call Rota"}),
             ToolCall("sheets_read_range", {"workbook": book.id, "range": "Rota!A1:Z40"}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{person.handle}"})],
            {"ticket": ticket.id, "group": group.name})

    def declare(self, start, inst):
        """The ticket (the group's other open tickets are look-alikes) and the person on call (the
        group's other people are)."""
        p = inst.params
        ticket = start.get(Ticket, p["ticket"])
        person = on_call_this_week(start, p["group"])
        others = [t.key for t in tickets_where(start, Ticket.group_id == ticket.group_id, Ticket.id != ticket.id)
                  if workflow.is_open(t.status)]
        people = [f"@{q.handle}" for q in group_people(start, ticket.group_id) if q.id != person.id]
        return Declaration([Target("ticket", ticket.key, others), Target("person", f"@{person.handle}", people)])

    def check(self, ctx, inst):
        p = inst.params
        person = on_call_this_week(ctx.start, p["group"])
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        status = "Assigned" if was.status == "New" else was.status  # what assigning does to the status
        return [check(f"{now.key} is assigned to {person.name}, on call for {p['group']}",
                      now.assignee_id == person.id, f"its assignee is {now.assignee_id}", weight=2),
                guard(f"{now.key}'s status moved only as assigning moves it", now.status == status,
                      f"it is {now.status}, not {status}"),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "assignee_id", "status")])]
