"""People and access workflows: an IT Support agent works this morning's four access requests by
the handbook's Requesting access article. A request is granted only on the right approver's
"Approved" on the ticket: the requester's manager (a manager's own request: their manager), and for
workspace admin rights the Head of IT; CRM deals are never IT's to grant. Which requests carry the
right approval varies from instance to instance (`PATTERNS`): a request is granted (resolved as
Fixed) and its requester told; held, when the "Approved" on it is not the approver's (a teammate
covering, a report, the manager for admin rights), with the approver added as a watcher and asked
on the ticket; or cancelled (CRM deals), naming the rule."""

from __future__ import annotations

import re

from sqlalchemy import select

from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Comment, Ticket, Watcher
from officegym.graders.checks import Allow, check, guard, nothing_else_changed

from .base import Declaration, Outcome, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_new_conversation, allow_posts, named, spread
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import person_in
from .tickets_common import group_named, group_people, project_id, ticket_by_key, tickets_where
from .w_people_queue import ACCESS, GRANTED, Request, draw_requests, either_rule, queue_setup
from .w_people_replies import decision_reply_checks, people_claim

# (granted, held, cancelled) requests, cycled over instances: two of four granted on average.
PATTERNS = ((2, 1, 1), (1, 2, 1), (3, 1, 0), (2, 2, 0), (3, 0, 1), (1, 2, 1))


def _head_of_it(session) -> Person:
    """The IT department's head (who alone approves workspace admin rights)."""
    return session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "IT")))


def _people(session, split: str, avoid: set[int]) -> list[Person]:
    """People of the split outside IT, with a manager who is not in `avoid`, by id."""
    it = session.scalar(select(Department.id).where(Department.name == "IT"))
    stmt = select(Person).where(Person.manager_id.is_not(None), Person.department_id != it,
                                Person.role == "member").order_by(Person.id)
    return [p for p in session.scalars(stmt) if person_in(split, p.id) and p.manager_id not in avoid]


@register
class AccessRequestsQueue(TaskTemplate):
    id, apps, difficulty = "w.access_requests_queue", ("tickets", "org", "chat"), 4
    kind, scale, split = "workflow", "medium", "train"
    rules = (ACCESS,)
    summary = ("Work the four access requests assigned to you by the handbook: grant those with the approval it "
               "requires, hold the others and ask their approver on the ticket, cancel what IT never grants; tell "
               "each requester on their ticket.")

    def sample(self, session, rng, instance):
        head, lead = _head_of_it(session), session.get(Person, session.scalar(
            select(Person.id).where(Person.title == "IT Support Lead")))
        agents = [p for p in group_people(session, group_named(session, "IT Support").id)
                  if p.id not in (head.id, lead.id) and p.role == "member" and person_in(self.split, p.id)]
        actor = spread(agents, instance)
        pool = _people(session, self.split, {actor.id, head.id})
        granted, held, cancelled = PATTERNS[instance % len(PATTERNS)]
        requests = draw_requests(session, rng, spread(pool, instance), pool, head, (granted, held, cancelled))
        keys = ", ".join(r.key for r in requests)
        reads, writes = [], []
        for r in requests:
            requester, commenter = session.get(Person, r.requester), session.get(Person, r.commenter)
            reads += [ToolCall("tickets_get_ticket", {"key": r.key}), ToolCall("tickets_list_comments", {"key": r.key}),
                      ToolCall("org_get_person", {"person": f"@{requester.handle}"})]
            if commenter.id != requester.manager_id:
                reads.append(ToolCall("org_get_person", {"person": f"@{commenter.handle}"}))
            # The first granted request is worked first (its look-alikes are then still open).
            writes = _handling(session, r) + writes if r is first_granted(requests) else writes + _handling(session, r)
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, lead), whom="each requester on their ticket"),
            [ToolCall("chat_list_conversations", {"limit": 10}),
             ToolCall("chat_list_messages", {"channel": Ref(0, "items.0.id"), "limit": 5}),
             *read_rule(session, ACCESS, "requesting access approval"), *reads, *writes],
            {"requests": [r.to_dict() for r in requests], "lead": lead.id},
            setup=queue_setup(lead.id, actor.id, requests, f"Hi @{actor.handle}, I've assigned you this morning's "
                              f"access requests in IT: {keys}. Please work each one per the handbook; where an "
                              "approval is missing, ask whoever must give it, on the ticket."),
            outcome=Outcome(granted, held + cancelled))

    def declare(self, start, inst):
        p = inst.params
        requests = [Request.from_dict(r) for r in p["requests"]]
        first = first_granted(requests)
        people = [i for i in start.scalars(select(Person.id).order_by(Person.id)) if i != first.requester][:40:2]
        # Look-alikes: first the requests that must not be granted (the near miss grants one of them).
        others = [r.key for r in sorted(requests, key=lambda r: r.role == "grant") if r.key != first.key] + [
            t.key for t in tickets_where(
            start, Ticket.project_id == project_id(start, "IT"), Ticket.assignee_id == inst.actor_id)
            if workflow.is_open(t.status) and t.key not in {r.key for r in requests}]
        field = "comment" if any(r.role == "cancel" for r in requests) else "body"
        return Declaration([Target("ticket", first.key, others),
                            Target("person", first.requester, people + [first.requester + 1 + k for k in range(3)])],
                           [either_rule(start, field)])

    def check(self, ctx, inst):
        p = inst.params
        rule = self.declare(ctx.start, inst).claims[0]
        requests = [Request.from_dict(r) for r in p["requests"]]
        was = {r.key: ticket_by_key(ctx.start, r.key) for r in requests}
        if any(t is None for t in was.values()):
            return [check("The requests exist", False, "the setup's requests are missing")]
        results, allowed, repeated = [], [], []
        for r in requests:
            ticket, now = was[r.key], ctx.final.get(Ticket, was[r.key].id)
            comments = [c.body for c in ctx.final.scalars(select(Comment).where(
                Comment.ticket_id == ticket.id, Comment.author_id == ctx.actor_id, Comment.internal.is_(False))
                .order_by(Comment.id)) if ctx.start.get(Comment, c.id) is None]
            requester = ctx.start.get(Person, r.requester)
            state = f"it is {now.status} {now.resolution}".strip() if now else "it is gone"
            fixed = now is not None and now.status in ("Resolved", "Closed") and now.resolution == "Fixed"
            if r.role == "grant":
                results += [check(f"{r.key} ({r.why}) is granted: resolved as Fixed", fixed, state, weight=2),
                            *decision_reply_checks(comments, False, requester.name, actions=GRANTED, weight=8)]
            elif r.role == "wait":
                results += self._held(ctx, r, ticket, now, comments, requester, rule, state)
            else:
                results += [guard(f"{r.key} (CRM deals) is not granted", not fixed, state),
                            check(f"{r.key} (CRM deals) is resolved as Cancelled", now is not None and now.status in
                                  ("Resolved", "Closed") and now.resolution == "Cancelled", state, weight=2),
                            *decision_reply_checks(comments, True, requester.name, rule=rule, actions=GRANTED,
                                                   weight=4)]
            allowed += _allowed(ctx, r, ticket)
            letters = [re.sub(r"[^a-z]", "", c.casefold()) for c in comments]
            repeated += [r.key] if len(set(letters)) < len(letters) else []
        lead, me = ctx.start.get(Person, p["lead"]), ctx.start.get(Person, ctx.actor_id)
        dm, opened = allow_new_conversation(ctx, [lead, me])
        allowed += opened + (allow_posts(ctx, dm.id, limit=1) if dm else [])
        return results + [guard("No comment is written twice on a request", not repeated, f"repeated on {repeated}"),
                          nothing_else_changed(ctx.diff, allowed)]

    def _held(self, ctx, r: Request, ticket, now, comments, requester, rule, state) -> list:
        """A held request: open, its approver watching and asked, its requester told why."""
        approver = ctx.start.get(Person, r.approver)
        watching = ctx.final.get(Watcher, (ticket.id, approver.id)) is not None
        asked = any(f"@{approver.handle}".casefold() in (c or "").casefold() for c in comments)
        pool = [ctx.start.get(Person, i) for i in _wrong_approvers(ctx.start, r)]
        return [guard(f"{r.key} stays open", now is not None and workflow.is_open(now.status), state),
                check(f"{approver.name}, who must approve {r.key} ({r.why}), watches it", watching,
                      "they are not a watcher", weight=2),
                guard(f"{approver.name}, whom your comment on {r.key} asks, can see it", watching or not asked,
                      "they are @mentioned but do not watch the request, which is private"),
                *decision_reply_checks(comments, True, requester.name, rule=rule, actions=GRANTED,
                                       named=[people_claim([approver], pool, "approver")], weight=2,
                                       named_weight=6)]


def first_granted(requests: list[Request]) -> Request:
    """The queue's main target: its granted request, approved by the manager, with the lowest key."""
    return next(r for r in requests if r.role == "grant" and r.kind == "plain")


def _wrong_approvers(session, r: Request) -> list[int]:
    """People a held request's comment may wrongly send to approve it: the requester's peers other
    than whoever commented (saying whose approval does not count is right), and the IT leads."""
    requester = session.get(Person, r.requester)
    peers = [] if requester.team_id is None else list(session.scalars(select(Person.id).where(
        Person.team_id == requester.team_id, Person.id.not_in((requester.id, r.approver, r.commenter)))
        .order_by(Person.id)))
    heads = [_head_of_it(session).id, *session.scalars(select(Person.id).where(Person.title == "IT Support Lead"))]
    return [i for i in dict.fromkeys(peers[:8] + heads) if i not in (r.approver, r.commenter)]


def _allowed(ctx, r: Request, ticket: Ticket) -> list[Allow]:
    """A request's own move (resolved when granted or cancelled, any open status when held), the
    actor's comments on it and, when held, its approver as a watcher."""
    first = ("first_response_at",) if ticket.first_response_at is None else ()
    closing = r.role != "wait"
    fields = ("status", "resolution", "resolved_at", "updated_at", *first) if closing else \
        ("status", "updated_at", "paused_since", "paused_minutes", *first)  # waiting pauses its clock
    moves = Allow("tickets_ticket", ("updated",), lambda row: row["id"] == ticket.id and
                  (row["status"] in ("Resolved", "Closed") if closing else workflow.is_open(row["status"])), fields)
    found = [moves, Allow("tickets_comment", ("added",), lambda row: row["ticket_id"] == ticket.id
                          and row["author_id"] == ctx.actor_id, limit=2)]
    if r.role == "wait":
        found.append(Allow("tickets_watcher", ("added",), lambda row: row["ticket_id"] == ticket.id
                           and row["person_id"] == r.approver))
    return found


def _handling(session, r: Request) -> list[ToolCall]:
    """The reference writes for one request."""
    requester, approver = session.get(Person, r.requester), session.get(Person, r.approver)
    grant = ToolCall("tickets_transition_ticket", {
        "key": r.key, "transition": "Resolve", "resolution": "Fixed",
        "comment": f"@{requester.handle} access granted: approved on the ticket by @{approver.handle}, as {ACCESS} "
                   "requires."}, role="report", text_arg="comment")
    if r.role == "grant":
        return [grant]
    if r.role == "cancel":
        return [ToolCall("tickets_transition_ticket", {
            "key": r.key, "transition": "Resolve", "resolution": "Cancelled",
            "comment": f"@{requester.handle} IT cannot grant this: per {ACCESS}, CRM deals are for the Sales "
                       "department and workspace admins only (the CRM enforces it), and IT does not grant "
                       "exceptions."}, role="refusal", text_arg="comment", instead=[grant])]
    not_theirs = "" if r.commenter == r.approver else " An approval from anyone else does not count."
    return [ToolCall("tickets_watch_ticket", {"key": r.key, "person": f"@{approver.handle}"}, role="ask"),
            ToolCall("tickets_add_comment", {"key": r.key, "body": (
                f"@{approver.handle} this request needs your approval before IT can grant it: please comment "
                f"\"Approved\" here if you agree.{not_theirs} @{requester.handle} it stays open until then, as "
                f"{ACCESS} says.")}, role="refusal", instead=[grant])]
