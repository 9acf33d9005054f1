"""People and access workflows: an IT Support agent works this morning's four access requests by
the handbook's Requesting access article. A request is granted only on its requester's manager's
"Approved" on the ticket; workspace admin rights need the Head of IT's; a manager's own request
their manager's; CRM deals are never IT's to grant. Two requests carry the right approval (one of
them admin rights or a manager's own, approved as the article says), one lacks it (the approver is
added as a watcher and asked) and one is for CRM deals (cancelled)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services as tickets, workflow
from officegym.apps.tickets.models import Article, Comment, Ticket, Watcher
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_new_conversation, allow_posts, named, pick, spread
from .handbook import article, read_rule, rule
from .registry import register
from .split import person_in
from .tickets_common import group_named, group_people, next_key, project_id, ticket_by_key, tickets_where
from .w_people import SYSTEMS, access_summary

ACCESS = "Requesting access"
SHARING = "Data sharing: salaries and customer data"
ADMIN, CRM = "workspace admin rights", "CRM deals"
ASKS = ("peer", "admin", "own")  # why one request waits: a peer's "Approved", admin rights, a manager's own
OKS = ("admin", "own")  # the second granted request: admin rights the Head of IT approved, a manager's own
OK_WHY = {"admin": "admin rights approved by the Head of IT", "own": "a manager's own, approved by their manager"}


def _head_of_it(session) -> Person:
    """The IT department's head (who alone approves workspace admin rights)."""
    return session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "IT")))


def _people(session, split: str, **where) -> list[Person]:
    """People of the split outside IT (and the Executive team), with a manager, by id."""
    it = session.scalar(select(Department.id).where(Department.name == "IT"))
    stmt = select(Person).where(Person.manager_id.is_not(None), Person.department_id != it,
                                Person.role == "member").order_by(Person.id)
    return [p for p in session.scalars(stmt) if person_in(split, p.id)]


def _reports(session, person: Person) -> list[Person]:
    """A person's direct reports, by id."""
    return list(session.scalars(select(Person).where(Person.manager_id == person.id).order_by(Person.id)))


def _peers(session, person: Person) -> list[Person]:
    """A person's teammates other than their manager, by id."""
    if person.team_id is None:
        return []
    return list(session.scalars(select(Person).where(Person.team_id == person.team_id, Person.id != person.id,
                                                     Person.id != person.manager_id).order_by(Person.id)))


@register
class AccessRequestsQueue(TaskTemplate):
    id, apps, difficulty = "w.access_requests_queue", ("tickets", "org", "chat"), 4
    kind, scale, split = "workflow", "medium", "train"
    rules = (ACCESS,)
    summary = ("Work the four access requests assigned to you by the handbook: grant the two with the approval it "
               "requires, ask the right approver on the one that lacks it, cancel the one IT never grants.")

    def sample(self, session, rng, instance):
        head, lead = _head_of_it(session), session.get(Person, session.scalar(
            select(Person.id).where(Person.title == "IT Support Lead")))
        agents = [p for p in group_people(session, group_named(session, "IT Support").id)
                  if p.id not in (head.id, lead.id) and p.role == "member" and person_in(self.split, p.id)]
        actor = spread(agents, instance)
        pool = [p for p in _people(session, self.split) if p.manager_id not in (actor.id, head.id)]
        granted = spread(pool, instance)
        sales = session.scalar(select(Department.id).where(Department.name == "Sales"))
        ask = ASKS[instance % len(ASKS)]
        taken = {granted.id}
        crm_asker = pick(rng, [p for p in pool if p.department_id != sales and p.id not in taken])
        taken.add(crm_asker.id)
        if ask == "own":
            waiting = pick(rng, [p for p in pool if _reports(session, p) and p.id not in taken])
            wrong = pick(rng, _reports(session, waiting))
            approver = session.get(Person, waiting.manager_id)
        elif ask == "peer":
            waiting = pick(rng, [p for p in pool if _peers(session, p) and p.id not in taken])
            wrong, approver = pick(rng, _peers(session, waiting)), session.get(Person, waiting.manager_id)
        else:
            waiting = pick(rng, [p for p in pool if p.id not in taken])
            wrong, approver = session.get(Person, waiting.manager_id), head
        taken.add(waiting.id)
        ok = OKS[(instance // len(ASKS)) % len(OKS)]
        if ok == "own":  # a manager's own request, approved by their manager
            also = pick(rng, [p for p in pool if _reports(session, p) and p.id not in taken])
            also_approver = session.get(Person, also.manager_id)
        else:  # workspace admin rights, approved by the Head of IT
            also, also_approver = pick(rng, [p for p in pool if p.id not in taken]), head
        system, other, third = rng.sample(SYSTEMS, 3)
        requests = {"grant": (granted, access_summary(system, granted.name), session.get(Person, granted.manager_id),
                              "Approved."),
                    "cancel": (crm_asker, access_summary(CRM, crm_asker.name),
                               session.get(Person, crm_asker.manager_id), "Approved."),
                    "ask": (waiting, access_summary(ADMIN if ask == "admin" else other, waiting.name), wrong,
                            f"Approved, I'm covering for @{approver.handle} this week." if ask == "peer" else
                            "Approved."),
                    "also": (also, access_summary(ADMIN if ok == "admin" else third, also.name), also_approver,
                             "Approved.")}
        order = rng.sample(list(requests), len(requests))
        base = int(next_key(session, "IT").split("-")[1])
        keys = {role: f"IT-{base + order.index(role)}" for role in requests}
        listed = ", ".join(keys[r] for r in order)
        reads = []
        for role in order:
            requester, _, commenter, _ = requests[role]
            reads += [ToolCall("tickets_get_ticket", {"key": keys[role]}),
                      ToolCall("tickets_list_comments", {"key": keys[role]}),
                      ToolCall("org_get_person", {"person": f"@{requester.handle}"})]
            if commenter.id != requester.manager_id:
                reads.append(ToolCall("org_get_person", {"person": f"@{commenter.handle}"}))
        writes = [ToolCall("tickets_transition_ticket", {
                      "key": keys["grant"], "transition": "Resolve", "resolution": "Fixed",
                      "comment": f"Approved by your manager on the ticket: access to {system} is granted."}),
                  ToolCall("tickets_transition_ticket", {
                      "key": keys["also"], "transition": "Resolve", "resolution": "Fixed",
                      "comment": f"Approved on the ticket by @{also_approver.handle}, as {ACCESS} requires: "
                                 "access granted."}),
                  ToolCall("tickets_watch_ticket", {"key": keys["ask"], "person": f"@{approver.handle}"}),
                  ToolCall("tickets_add_comment", {"key": keys["ask"], "body": (
                      f"@{approver.handle} this request needs your approval before IT can grant it: please comment "
                      "\"Approved\" here if you agree.")}),
                  ToolCall("tickets_transition_ticket", {
                      "key": keys["cancel"], "transition": "Resolve", "resolution": "Cancelled",
                      "comment": f"IT cannot grant this: per {ACCESS}, CRM deals are for the Sales department and "
                                 "workspace admins only (the CRM enforces it), and IT does not grant exceptions."})]
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, lead)} assigned you this morning's access requests in IT (see their direct message). "
            "Work them as the handbook says: grant (resolve as Fixed, with a comment) each request that carries the "
            "approval the handbook requires; on a request that does not carry it yet, add whoever must approve it "
            "as a watcher and ask them in a public comment that @mentions them, leaving it open; and resolve as "
            "Cancelled, with a comment naming the rule, any request the handbook says IT never grants. Change "
            "nothing else.",
            [ToolCall("chat_list_conversations", {"limit": 10}),
             ToolCall("chat_list_messages", {"channel": Ref(0, "items.0.id"), "limit": 5}),
             *read_rule(session, ACCESS, "requesting access approval"), *reads, *writes],
            {"keys": keys, "approver": approver.id, "granted": granted.id, "lead": lead.id, "ok": ok,
             "commenters": {r: requests[r][2].id for r in requests}},
            setup=_queue(lead.id, actor.id, [(requests[r][0].id, requests[r][1], requests[r][2].id, requests[r][3])
                                             for r in order],
                         f"Hi @{actor.handle}, I've assigned you this morning's access requests: {listed}. Please "
                         "work them per the handbook."))

    def declare(self, start, inst):
        p = inst.params
        keys = p["keys"]
        people = [i for i in start.scalars(select(Person.id).order_by(Person.id)) if i != p["granted"]][:40:2]
        others = [keys["ask"], keys["cancel"], keys["also"]] + [t.key for t in tickets_where(
            start, Ticket.project_id == project_id(start, "IT"), Ticket.assignee_id == inst.actor_id)
            if workflow.is_open(t.status) and t.key not in keys.values()]
        right, sharing = article(start, ACCESS), article(start, SHARING)
        pool = [rule(a) for a in [article(start, t) for t in _titles(start)] if a.id not in (right.id, sharing.id)]
        return Declaration([Target("person", p["granted"], people + [p["granted"] + 1 + k for k in range(3)]),
                            Target("ticket", keys["grant"], others)],
                           [Claim(Candidate.text(right.title, right.number, sharing.title, sharing.number), pool,
                                  "comment", "handbook rule")])

    def check(self, ctx, inst):
        p = inst.params
        keys, claim = p["keys"], self.declare(ctx.start, inst).claims[0]
        was = {r: ticket_by_key(ctx.start, k) for r, k in keys.items()}
        now = {r: ctx.final.get(Ticket, t.id) if t else None for r, t in was.items()}
        if any(t is None for t in was.values()):
            return [check("The requests exist", False, "the setup's requests are missing")]
        approver = ctx.start.get(Person, p["approver"])
        public = {r: [c.body for c in ctx.final.scalars(select(Comment).where(
            Comment.ticket_id == t.id, Comment.author_id == ctx.actor_id, Comment.internal.is_(False)))]
            for r, t in was.items()}
        watching = ctx.final.get(Watcher, (was["ask"].id, approver.id)) is not None
        results = [check(f"{keys['grant']} (approved by the requester's manager) is resolved as Fixed",
                         now["grant"].status == "Resolved" and now["grant"].resolution == "Fixed",
                         f"it is {now['grant'].status} {now['grant'].resolution}", weight=3),
                   check(f"You commented on {keys['grant']}", public["grant"], "no public comment of yours"),
                   check(f"{keys['also']} ({OK_WHY[p['ok']]}) is resolved as Fixed",
                         now["also"].status == "Resolved" and now["also"].resolution == "Fixed",
                         f"it is {now['also'].status} {now['also'].resolution}", weight=3),
                   check(f"You commented on {keys['also']}", public["also"], "no public comment of yours"),
                   check(f"{keys['cancel']} (CRM deals) is resolved as Cancelled",
                         now["cancel"].status == "Resolved" and now["cancel"].resolution == "Cancelled",
                         f"it is {now['cancel'].status} {now['cancel'].resolution}", weight=2),
                   *says(public["cancel"], claim.right, claim.others, f"Your comment on {keys['cancel']} names the "
                         "rule", claim.kind, weight=1),
                   check(f"{approver.name}, who must approve {keys['ask']}, watches it", watching,
                         "they are not a watcher", weight=2),
                   check(f"A public comment of yours on {keys['ask']} asks @{approver.handle}",
                         any(f"@{approver.handle}".lower() in b.lower() for b in public["ask"]),
                         "no public comment of yours @mentions them", weight=2),
                   guard(f"{keys['ask']} stays open", workflow.is_open(now["ask"].status) and now["ask"].status
                         != "Waiting on customer", f"it is {now['ask'].status}")]
        return results + [nothing_else_changed(ctx.diff, self._allowed(ctx, p, was))]

    def _allowed(self, ctx, p, was) -> list[Allow]:
        """The moves, comments and watcher the task asks for, and a word back to the lead."""
        grant, cancel, ask, also = was["grant"], was["cancel"], was["ask"], was["also"]
        first = lambda t: ("first_response_at",) if t.first_response_at is None else ()  # noqa: E731
        lead, me = ctx.start.get(Person, p["lead"]), ctx.start.get(Person, ctx.actor_id)
        dm, opened = allow_new_conversation(ctx, [lead, me])
        return [Allow("tickets_ticket", ("updated",), lambda r: r["id"] == grant.id and r["status"] == "Resolved",
                      ("status", "resolution", "resolved_at", "updated_at", *first(grant))),
                Allow("tickets_ticket", ("updated",), lambda r: r["id"] == cancel.id and r["status"] == "Resolved",
                      ("status", "resolution", "resolved_at", "updated_at", *first(cancel))),
                Allow("tickets_ticket", ("updated",), lambda r: r["id"] == also.id and r["status"] == "Resolved",
                      ("status", "resolution", "resolved_at", "updated_at", *first(also))),
                Allow("tickets_ticket", ("updated",), lambda r: r["id"] == ask.id
                      and r["status"] in ("Assigned", "In Progress"), ("status", "updated_at", *first(ask))),
                *[Allow("tickets_comment", ("added",), lambda r, t=t: r["ticket_id"] == t.id
                        and r["author_id"] == ctx.actor_id) for t in (grant, cancel, ask, also)],
                Allow("tickets_watcher", ("added",), lambda r: r["ticket_id"] == ask.id
                      and r["person_id"] == p["approver"]),
                *opened, *(allow_posts(ctx, dm.id, limit=1) if dm else [])]


def _titles(session) -> list[str]:
    """Every handbook article's title, by id."""
    return list(session.scalars(select(Article.title).order_by(Article.id)))


def _queue(lead_id: int, actor_id: int, requests: list[tuple[int, str, int, str]], text: str):
    """A setup step: the requests are filed yesterday afternoon; this morning the lead assigns them
    to the actor, adds as a watcher who was named to approve each, who comments; the lead tells the
    actor by DM."""
    def run(session) -> None:
        lead, actor = session.get(Person, lead_id), session.get(Person, actor_id)
        now = clock.company_now(session)
        clock.set_time(session, now - timedelta(hours=19))
        filed = []
        for requester_id, summary, _, _ in requests:
            filed.append(tickets.create_ticket(session, session.get(Person, requester_id), "IT", "Service Request",
                                               summary, "I need this for my work on the team, read and write, until "
                                               "the end of the quarter.", components=["Accounts & Access"]))
        clock.set_time(session, now - timedelta(hours=2))
        for ticket, (_, _, commenter_id, _) in zip(filed, requests):  # IT adds the approver it was told of
            tickets.assign_ticket(session, lead, ticket.key, actor.id, "IT Support")
            tickets.watch_ticket(session, lead, ticket.key, commenter_id)
        for ticket, (_, _, commenter_id, comment) in zip(filed, requests):
            tickets.add_comment(session, session.get(Person, commenter_id), ticket.key, comment)
        channel = chat.open_conversation(session, lead, [actor.id])
        chat.post_message(session, lead, channel.id, text)
    return run
