"""The Monday handover over the On-call Rota workbook: a teammate asks, by DM, the engineer whose on-call
week ended to hand the group's open incidents to the one whose week starts (found in the rota): a
handover note on each (its state, what was tried, the next step), the new assignee, a reply in each
incident's thread, and a word back to the teammate. Its stories' services and symptoms serve the
other operations templates too."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.sla import incident_priority
from officegym.apps.tickets.workflow import is_open
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Declaration, Claim, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, named, spread
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import person_in
from .tickets_common import (LOOKALIKES, allow_comment, allow_ticket, ending, group_named, group_people, new_comments,
                             next_key, tickets_where)
from .w_incidents import (HANDOVER, asked_by_dm, incident_thread, on_call_groups, production_incidents, read_rota,
                          report_step, request_reads, requester_replies, rota_name, rota_ref, rota_sheet, this_monday)

SERVICES = ["billing-api", "auth-service", "search-indexer", "notifications", "export-worker", "scheduler",
            "ledger", "webhooks", "mobile-gateway", "reporting-service", "data-pipeline", "web-app"]
SYMPTOMS = ["returning 502 errors", "p95 latency above 2 seconds", "dropping events", "failing health checks",
            "queue backing up", "out of memory in production"]
TRIED = ["restarted the pods", "rolled back the last deploy", "scaled the workers out", "failed over to the replica",
         "flushed the cache"]
NEXT = ["compare heap dumps from before and after the deploy", "ask the vendor about their rate limit change",
        "add a canary for the retry path", "watch the error rate for a full business day"]
# How a handover note may say what was tried and what comes next (its facts, each among the others).
TRIED_WORDS = {"restarted the pods": ("restarted", "restart", "restarting"),
               "rolled back the last deploy": ("rolled back", "rollback", "roll back", "rolling back"),
               "scaled the workers out": ("scaled", "scale out", "scaling out", "scaled out"),
               "failed over to the replica": ("failed over", "failover", "fail over", "failing over"),
               "flushed the cache": ("flushed", "flush", "flushing", "cache flush")}
NEXT_WORDS = {NEXT[0]: ("heap dump", "heap dumps"), NEXT[1]: ("vendor", "rate limit"), NEXT[2]: ("canary",),
              NEXT[3]: ("error rate",)}
HANDED = ("handing over", "handed over", "handing it over", "handing", "handed", "assigned", "reassigned",
          "passing", "passed", "taking over", "takes over", "took over")


def _future(session: Session, group: str, weeks: range) -> dict[str, datetime]:
    """Who the rota puts on call for `group` in the given weeks from now (name -> Monday)."""
    monday = this_monday(session)
    found = {}
    for k in weeks:
        name = rota_name(session, group, monday + timedelta(weeks=k))
        if name:
            found.setdefault(name, monday + timedelta(weeks=k))
    return found


def _open_incidents(session: Session, group_id: int) -> list[Ticket]:
    """A group's open incidents, by key number."""
    return [t for t in tickets_where(session, Ticket.group_id == group_id, Ticket.type == "Incident")
            if is_open(t.status)]


# ---------------------------------------------------------------- the Monday handover

@register
class OnCallHandover(TaskTemplate):
    """Monday morning, the engineer whose on-call week ended hands every open incident of the group to the
    engineer the rota puts on call this week: a work note, the new assignee and a reply in each thread."""

    id, apps, kind, difficulty, scale = ("w.oncall_handover", ("tickets", "sheets", "chat"), "workflow", 5, "medium")
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    rules = (HANDOVER,)
    summary = ("Hand over the group's open incidents on Monday: who is next comes from the On-call Rota; a work note, "
               "the new assignee and a reply in each incident's #incidents thread.")

    def sample(self, session, rng, instance):
        monday = this_monday(session)
        inside = member_ids(session, channel_named(session, "incidents").id)
        choices = []
        for group in on_call_groups(session):
            ahead = _future(session, group.name, range(1, 9))
            people = [p for p in group_people(session, group.id) if p.name in ahead and p.id in inside]
            keep = {rota_name(session, group.name, monday), rota_name(session, group.name, monday - timedelta(weeks=1))}
            people = [p for p in people if p.name not in keep]
            choices += [(group, p) for p in people if person_in(self.split, p.id)]
        group, actor = spread(choices, instance)
        members = group_people(session, group.id)
        ahead = _future(session, group.name, range(1, 9))
        incoming = rng.choice([p for p in members if p.name in ahead and p.id != actor.id and p.id in inside
                               and p.name not in {rota_name(session, group.name, monday + timedelta(weeks=k))
                                                  for k in (-1, 0)}])
        other = rng.choice([p for p in members if p.id not in (actor.id, incoming.id)])
        decoy_group = rng.choice([g for g in on_call_groups(session) if g.id != group.id])
        decoy_engineer = rng.choice(group_people(session, decoy_group.id))
        busy = " ".join(t.summary for t in tickets_where(session, Ticket.type == "Incident") if is_open(t.status))
        services = rng.sample([s for s in SERVICES if s not in busy], 5)
        specs = []  # (assignee, summary, impact, urgency, tried, next step, days into last week)
        for k, assignee in enumerate((actor, actor, other)):
            specs.append((assignee.id, f"{services[k]} {rng.choice(SYMPTOMS)}", rng.choice(("High", "Medium")),
                          rng.choice(("High", "Medium", "Low")), rng.choice(TRIED), rng.choice(NEXT), 2 + k))
        swaps = [(actor.id, group.name, monday - timedelta(weeks=1), ahead[actor.name]),
                 (incoming.id, group.name, monday, ahead[incoming.name])]
        first = int(next_key(session, "IT").split("-")[1])
        planted = [f"IT-{first + k}" for k in range(3)]
        existing = [t.key for t in _open_incidents(session, group.id)]
        keys = sorted(existing + planted, key=lambda key: int(key.split("-")[1]))
        by_key = {t.key: t for t in _open_incidents(session, group.id)}
        steps = [*request_reads(actor.id, other.id), *read_rule(session, HANDOVER, "on-call handover"), *read_rota(),
                 ToolCall("tickets_get_group", {"group": group.name}),
                 ToolCall("tickets_search_tickets", {"query": f"project = IT AND type = Incident AND group = "
                                                              f"\"{group.name}\" AND statusCategory != Done "
                                                              "ORDER BY key"})]
        for key in keys:
            spec = specs[planted.index(key)] if key in planted else None
            summary = spec[1] if spec else by_key[key].summary
            note = (f"Handover: still In Progress. Tried: {spec[4]}. Next step: {spec[5]}. Waiting: support and "
                    "the customers who reported it." if spec else
                    f"Handover: still {by_key[key].status}. Next step: carry on the investigation in the thread. "
                    "Waiting: support and the customers who reported it.")
            state = "In Progress" if spec else by_key[key].status
            handing = f"Handing over to @{incoming.handle}: {key} is still {state}."
            at = len(steps)
            steps += [ToolCall("tickets_get_ticket", {"key": key}),
                      ToolCall("tickets_list_comments", {"key": key}),
                      ToolCall("chat_search_messages", {"query": f"{key} {summary}", "channel": "incidents"}),
                      ToolCall("chat_get_thread", {"message_id": Ref(at + 2, "items.0.id")}),
                      ToolCall("tickets_add_work_note", {"key": key, "body": note}, role="note"),
                      ToolCall("tickets_assign_ticket", {"key": key, "assignee": incoming.id}),
                      ToolCall("chat_post_message", {"channel": "incidents",
                                                     "thread_parent_id": Ref(at + 3, "parent.id"),
                                                     "text": handing}, role="report")]
        steps.append(report_step(actor.id, other.id, f"Done: I handed {', '.join(keys)} over to @{incoming.handle}, "
                                                     "with a handover note on each."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, other), about="the on-call handover"),
            steps,
            {"group": group.name, "incoming": incoming.id, "channel": channel_named(session, "incidents").id,
             "requester": other.id,
             "worked": {key: [specs[planted.index(key)][4], specs[planted.index(key)][5]] for key in planted}},
            setup=asked_by_dm(other.id, actor.id, (
                "Morning! Your on-call week has just ended: could you do the handover of our open incidents the way "
                "the handbook says?"), _handover(group.name, specs, swaps, decoy_group.name, decoy_engineer.id,
                                                 services[3:])))

    def _handed(self, start, inst) -> list[Ticket]:
        return _open_incidents(start, group_named(start, inst.params["group"]).id)

    def declare(self, start, inst):
        p = inst.params
        group = group_named(start, p["group"])
        others = [m.id for m in group_people(start, group.id) if m.id not in (p["incoming"], inst.actor_id)]
        handed = self._handed(start, inst)
        keys = {t.key for t in handed}
        near = [t.key for t in production_incidents(start) if t.key not in keys
                and (is_open(t.status) or t.group_id == group.id)][-LOOKALIKES:]
        incoming = start.get(Person, p["incoming"])
        pool = [Candidate.person(start.get(Person, i)) for i in others]
        return Declaration([Target("person", incoming.id, others)]
                           + [Target("ticket", t.key, near) for t in handed],
                           [Claim(Candidate.person(incoming), pool, "text", "incoming engineer")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        incoming = ctx.start.get(Person, p["incoming"])
        claim = declared.claims[0]
        requester = ctx.start.get(Person, p["requester"])
        texts, allowed = requester_replies(ctx, requester.id)
        told = Claim(claim.right, [c for c in claim.others if c.label != requester.name], "text", claim.kind)
        results = reply_checks(texts, False, requester.name, [told], actions=HANDED, weight=2)
        for ticket in self._handed(ctx.start, inst):
            now = ctx.final.get(Ticket, ticket.id)
            top = incident_thread(ctx.start, ticket.key)
            replies = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                       if top is not None and r["thread_parent_id"] == top.id]
            notes = [r["body"] for r in new_comments(ctx, ticket.id, internal=True)]
            results += [check(f"{ticket.key} is assigned to {incoming.name}", now.assignee_id == incoming.id,
                              f"assigned to {now.assignee_id}"),
                        *says(notes, Candidate.text(ticket.status), [], f"{ticket.key}'s handover work note states "
                              f"its state ({ticket.status})", "state", weight=2),
                        *_worked(notes, ticket.key, p["worked"].get(ticket.key)),
                        *report_reply(replies, "Its #incidents thread says you hand it over", HANDED, weight=1),
                        *says(replies, claim.right, claim.others,
                              f"Its #incidents thread says you hand over to @{incoming.handle}", claim.kind, weight=2)]
            allowed += [allow_ticket(ticket.id, values=ending(ticket, assignee_id=incoming.id,
                                                              status="Assigned" if ticket.status == "New" else
                                                              ticket.status)),
                        allow_comment(ctx, ticket.id, None, internal=True),
                        *(allow_posts(ctx, p["channel"], top.id) if top is not None else [])]
        return results + [nothing_else_changed(ctx.diff, allowed)]


def _worked(notes: list[str], key: str, worked: list[str] | None) -> list:
    """The checks that a handover note states what was tried and the next step, each among the others
    (an incident of last week whose story the setup wrote; older ones state their state only)."""
    if not worked:
        return []
    tried, step = worked
    return [*says(notes, Candidate.text(*TRIED_WORDS[tried]), [Candidate.text(*TRIED_WORDS[t]) for t in TRIED
                                                                 if t != tried],
                  f"{key}'s handover work note says what was tried ({tried})", "attempt", weight=2, deniable=False),
            *says(notes, Candidate.text(*NEXT_WORDS[step]), [Candidate.text(*NEXT_WORDS[n]) for n in NEXT if n != step],
                  f"{key}'s handover work note gives the next step ({step})", "next step", weight=2, deniable=False)]


def _handover(group: str, specs: list, swaps: list, decoy_group: str, decoy_engineer: int, spare: list[str]):
    """Setup: last week's incidents of the group (two worked by the outgoing engineer, one by a
    teammate), announced and updated in #incidents; a resolved one of the group and an open one of
    another group beside them; then the two rota swaps that make the outgoing and incoming names."""
    def run(session: Session) -> None:
        incidents = channel_named(session, "incidents").id
        monday = this_monday(session)
        last = monday - timedelta(weeks=1)
        for assignee, summary, impact, urgency, tried, step, day in specs:
            _incident(session, session.get(Person, assignee), group, summary, impact, urgency,
                      datetime.combine(last + timedelta(days=day), time(10, 20)), incidents,
                      f"Tried: {tried}; no change yet.", f"Still on it: {tried} did not help. Next: {step}.")
        mate = session.get(Person, specs[2][0])
        resolved = _incident(session, mate, group, f"{spare[0]} {SYMPTOMS[0]}", "High", "Medium",
                             datetime.combine(last + timedelta(days=1), time(14, 5)), incidents,
                             "Tried: restarted the pods; that fixed it.", "Restart fixed it, watching it.")
        tickets.transition_ticket(session, mate, resolved.key, "Resolve", "Fixed")
        _incident(session, session.get(Person, decoy_engineer), decoy_group, f"{spare[1]} {SYMPTOMS[1]}", "High",
                  "High", datetime.combine(last + timedelta(days=4), time(11, 40)), incidents,
                  "Tried: scaled the workers out.", "Still on it, next update in an hour.")
        book, _ = rota_sheet(session)
        # The last swap is written this morning: the rota's "On call this week" rows read TODAY(), and
        # a write recomputes them, so the last write must happen today.
        times = [datetime.combine(swaps[0][2] - timedelta(days=3), time(16, 30)),
                 datetime.combine(monday, time(7, 45))]
        for (person_id, name_group, week, theirs), when in zip(swaps, times):
            person = session.get(Person, person_id)
            clock.set_time(session, when)
            was = rota_name(session, name_group, week)
            sheets.write_cells(session, person, book.id, [
                {"cell": rota_ref(session, name_group, week), "value": person.name},
                {"cell": rota_ref(session, name_group, theirs), "value": was}])
    return run


def _incident(session: Session, engineer: Person, group: str, summary: str, impact: str, urgency: str,
              when: datetime, channel_id: int, note: str, update: str) -> Ticket:
    """Setup: an on-call engineer files and works a production incident, announces it in #incidents,
    notes what was tried and posts an update in the thread."""
    clock.set_time(session, when)
    ticket = tickets.create_ticket(session, engineer, "IT", "Incident", summary, "Alert from monitoring.",
                                   impact=impact, urgency=urgency, group=group, assignee=engineer.id,
                                   components=["Production"])
    tickets.transition_ticket(session, engineer, ticket.key, "Start work")
    top = chat.post_message(session, engineer, channel_id,
                            f":rotating_light: {ticket.key} · {summary}. Impact {impact}, urgency {urgency}, so "
                            f"priority {incident_priority(impact, urgency)}. {group} is on it.")
    tickets.add_work_note(session, engineer, ticket.key, note)
    clock.set_time(session, when + timedelta(minutes=55))
    chat.post_message(session, engineer, channel_id, update, thread_parent_id=top.id)
    return ticket

