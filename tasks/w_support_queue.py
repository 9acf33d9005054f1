"""Customer-support workflow on a service desk: an account owner asks the legal desk to pick up a
customer's waiting requests; the agent takes the two the handbook's SLA rules put first (the oldest
of the highest priority, twice), works them and answers the account owner (helpers in w_support)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import PRIORITIES, Ticket
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import dm_allowances, named, spread
from .handbook import read_rule
from .registry import register
from .phrasing import request_instruction
from .split import of_split
from .tickets_common import key_pool, next_key, project_id, ticket_by_key
from .w_people_replies import decision_reply_checks
from .w_support_more import dm_texts

SLA = "Service desk SLA targets"
REQUESTS = ["Order form review: {}", "DPA questions from {}", "NDA for {}", "Contract review: {} MSA",
            "Data retention terms for {}", "Security addendum for {}"]
# How a first response may say which request it answers, by request.
KINDS = {"Order form review: {}": ("order form",), "DPA questions from {}": ("DPA", "data processing"),
         "NDA for {}": ("NDA", "non-disclosure"), "Contract review: {} MSA": ("MSA", "contract review"),
         "Data retention terms for {}": ("data retention", "retention"),
         "Security addendum for {}": ("security addendum", "addendum")}
STARTED = ("started", "assigned", "taken", "picked up", "begun", "taken on")
# The customer's five waiting requests, the two to take first ahead: (hours ago filed, priority level),
# where level 0 is the top priority, 1 the next one down and 2 any lower. The oldest request overall is
# of the lowest level, and the second of level 1 is newer than the first: neither age nor priority alone
# picks the right two.
PLAN = ((30, 0), (52, 1), (7, 1), (80, 2), (41, 2))


def _file(owner_id: int, actor_id: int, account: str, requests: list[dict], text: str):
    """The setup: the account owner filed the customer's requests over the past days (in a shuffled
    order, so keys do not tell their age), then wrote to the agent."""
    def run(session) -> None:
        now = clock.company_now(session)
        owner = session.get(Person, owner_id)
        for item in requests:
            clock.set_time(session, now - timedelta(hours=item["age"]))
            made = tickets.create_ticket(session, owner, "LEGAL", "Service Request", item["summary"],
                                         "The customer is waiting on us.", item["priority"], account=account)
            if made.key != item["key"]:
                raise RuntimeError(f"the setup filed {made.key}, not {item['key']}")
        clock.set_time(session, now - timedelta(minutes=40))
        channel = chat.open_conversation(session, owner, [actor_id])
        chat.post_message(session, owner, channel.id, text)
    return run


@register
class SupportLegalQueue(TaskTemplate):
    """Take the two customer requests the SLA rules put first (oldest of the highest priority) and answer."""

    id, apps, difficulty, kind = "w.support_legal_queue", ("chat", "tickets", "crm"), 4, "workflow"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules = "medium", (SLA,)
    summary = ("An account owner asks the legal desk about a customer's waiting requests: take the two the SLA "
               "rules put first, assign them to yourself, start and answer them, and tell the owner their keys.")

    def sample(self, session, rng, instance):
        legal = session.scalar(select(Department.id).where(Department.name == "Legal"))
        people = list(session.scalars(select(Person).where(Person.department_id == legal).order_by(Person.id)))
        actor = spread(of_split(self.split, "person", people) or people, instance)
        busy = set(session.scalars(select(Ticket.account_id).where(Ticket.project_id == project_id(session, "LEGAL"),
                                                                   Ticket.status != "Closed")))
        accounts = [a for a in session.scalars(select(Account).order_by(Account.id)) if a.id not in busy]
        account = spread(of_split(self.split, "account", accounts, lambda a: a.name) or accounts, instance * 3 + 1)
        owner = session.get(Person, account.owner_id)
        top = PRIORITIES.index(rng.choice(PRIORITIES[:3]))
        priorities = [PRIORITIES[top + level] if level < 2 else rng.choice(PRIORITIES[top + 2:])
                      for _, level in PLAN]
        summaries = rng.sample(REQUESTS, len(PLAN))
        order = list(range(len(PLAN)))
        rng.shuffle(order)
        if order[-1] == 0:  # the first request to take is never the newest key
            order[-1], order[0] = order[0], order[-1]
        first = int(next_key(session, "LEGAL").split("-")[1])
        keys = {index: f"LEGAL-{first + position}" for position, index in enumerate(order)}
        requests = [{"summary": summaries[i].format(account.name), "priority": priorities[i], "age": PLAN[i][0],
                     "key": keys[i]} for i in order]
        taken = [keys[0], keys[1]]
        text = (f"Hi @{actor.handle}, {account.name} has several requests waiting in LEGAL and they're asking "
                "me what's going on. Could you pick up the two that the service desk rules say to take first? Each "
                "assigned to you, started and given its first response (a public comment saying which request it "
                "answers). Then tell me those two keys, no other.")
        steps = [ToolCall("chat_open_conversation", {"people": [f"@{owner.handle}"]}),
                 ToolCall("chat_list_messages", {"channel": Ref(0, "id"), "limit": 5}),
                 *read_rule(session, SLA, "service desk SLA"),
                 ToolCall("crm_get_account", {"account": account.name}),
                 ToolCall("tickets_search_tickets", {"query": f'project = LEGAL AND account ~ "{account.name}" AND '
                                                              'status != Closed ORDER BY created'})]
        steps += [ToolCall("tickets_get_ticket", {"key": keys[i]}) for i in sorted(keys, key=lambda i: -PLAN[i][0])]
        for key in taken:
            kind = KINDS[summaries[[i for i in keys if keys[i] == key][0]]][0]
            steps += [ToolCall("tickets_list_comments", {"key": key}),
                      ToolCall("tickets_assign_ticket", {"key": key, "assignee": f"@{actor.handle}"}),
                      ToolCall("tickets_transition_ticket", {"key": key, "transition": "Start work"}),
                      ToolCall("tickets_add_comment", {"key": key, "body": f"I'm on your {kind} request and will "
                                                                           "come back to you today."}, role="note")]
        steps += [ToolCall("chat_post_message", {"channel": Ref(0, "id"), "text": (
                      f"@{owner.handle} I've started on {taken[0]} and {taken[1]}, the two the SLA rules put first; "
                      "the others follow.")}, role="report"),
                  ToolCall("tickets_search_tickets", {"query": f'project = LEGAL AND account ~ "{account.name}" AND '
                                                               'assignee = currentUser()'})]
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, owner), whom=named(session, owner)),
            steps, {"account": account.name, "keys": [keys[i] for i in range(len(PLAN))], "owner": owner.id,
                    "kinds": [summaries[i] for i in range(len(PLAN))]},
            setup=_file(owner.id, actor.id, account.name, requests, text))

    def declare(self, start, inst):
        keys = inst.params["keys"]
        rest = keys[2:]
        claims = [Claim(Candidate.text(key), [Candidate.text(k) for k in rest]
                        + key_pool(start, "LEGAL", key, allowed=(other,)), "text", "ticket key")
                  for key, other in ((keys[0], keys[1]), (keys[1], keys[0]))]
        return Declaration([Target("account", inst.params["account"]), Target("ticket", keys[0], rest),
                            Target("ticket", keys[1], rest)], claims)

    def check(self, ctx, inst):
        p = inst.params
        owner = ctx.start.get(Person, p["owner"])
        texts, results, allowed = dm_texts(ctx, owner.id), [], dm_allowances(ctx, owner.id)
        claims = self.declare(ctx.start, inst).claims
        for key, kind in zip(p["keys"][:2], self._kinds(p)):
            right = ticket_by_key(ctx.start, key)
            now = ctx.final.get(Ticket, right.id) if right else None
            answered = [r for r in ctx.diff.table("tickets_comment").added if right and r["ticket_id"] == right.id
                        and r["author_id"] == ctx.actor_id and not r["internal"]]
            results += [check(f"{key} is assigned to you and In Progress",
                              now is not None and now.assignee_id == ctx.actor_id and now.status == "In Progress",
                              f"it is {getattr(now, 'status', None)}, assigned to {getattr(now, 'assignee_id', None)}",
                              2),
                        *says([r["body"] for r in answered], kind.right, kind.others, f"{key} got its first "
                              f"response: a public comment of yours saying it answers the {kind.right.label}",
                              "request", weight=5)]
            allowed += [Allow("tickets_ticket", ("updated",), lambda row, tid=getattr(right, "id", None):
                              row["id"] == tid, ("assignee_id", "status", "first_response_at", "updated_at")),
                        Allow("tickets_comment", ("added",), lambda row, tid=getattr(right, "id", None):
                              row["ticket_id"] == tid and row["author_id"] == ctx.actor_id and not row["internal"])]
        results += decision_reply_checks(texts, False, owner.name, facts=claims, actions=STARTED, weight=6)
        return results + [nothing_else_changed(ctx.diff, allowed)]

    @staticmethod
    def _kinds(p: dict) -> list[Claim]:
        """What each of the two requests to take is about, among what the customer's others are about."""
        kinds = [Candidate.text(*KINDS[k]) for k in p["kinds"]]
        return [Claim(kinds[i], [k for j, k in enumerate(kinds) if j != i], "body", "request") for i in (0, 1)]
