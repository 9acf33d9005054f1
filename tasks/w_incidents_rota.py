"""The Monday handover over the On-call Rota workbook: a teammate asks, by DM, the engineer whose on-call
week ended to hand the group's open incidents to the one whose week starts (found in the rota): a
handover note on each (its state, what was tried, the next step), the new assignee, a reply in each
incident's thread, and a word back to the teammate. The week it hands over is drawn and set up by the
procedure library (tasks.procedures.oncall_week)."""

from __future__ import annotations

from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Declaration, Claim, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import channel_named, named
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .procedures import shifted
from .procedures.oncall import (handover_allowed, handover_lookalikes, handover_reads, handovers,
                                thread_replies)
from .procedures.oncall_week import NEXT, TRIED, draw_handover, handover_setup, open_incidents
from .registry import register
from .tickets_common import group_named, group_people, new_comments
from .w_incidents import HANDOVER, asked_by_dm, report_step, request_reads, requester_replies

__all__ = ["HANDED", "NEXT_WORDS", "TRIED", "TRIED_WORDS", "OnCallHandover"]

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
        h = draw_handover(session, rng, self.split, instance)
        actor, incoming, other = (session.get(Person, i) for i in (h.actor, h.incoming, h.other))
        steps = [*request_reads(actor.id, other.id), *read_rule(session, HANDOVER, "on-call handover"),
                 *handover_reads(h.group)]
        open_now = {t.key: t for t in open_incidents(session, group_named(session, h.group).id)}
        for handing in handovers(session, h, incoming):
            state = "In Progress" if handing.key in h.planted else open_now[handing.key].status
            at = len(steps)
            steps += [*shifted(handing.reads(), at),
                      ToolCall("tickets_add_work_note", {"key": handing.key, "body": handing.note}, role="note"),
                      ToolCall("tickets_assign_ticket", {"key": handing.key, "assignee": incoming.id}),
                      ToolCall("chat_post_message", {"channel": "incidents", "thread_parent_id": Ref(at + 3, "parent.id"),
                                                     "text": f"Handing over to @{incoming.handle}: {handing.key} is "
                                                             f"still {state}."}, role="report")]
        steps.append(report_step(actor.id, other.id, f"Done: I handed {', '.join(h.keys)} over to @{incoming.handle}, "
                                                     "with a handover note on each."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, other)),
            steps,
            {"group": h.group, "incoming": incoming.id, "channel": channel_named(session, "incidents").id,
             "requester": other.id,
             "worked": {key: [h.specs[h.planted.index(key)][4], h.specs[h.planted.index(key)][5]] for key in h.planted}},
            setup=asked_by_dm(other.id, actor.id, (
                "Morning! Your on-call week has just ended: could you do the handover of our open incidents the way "
                "the handbook says?"), handover_setup(h)))

    def _handed(self, start, inst) -> list[Ticket]:
        return open_incidents(start, group_named(start, inst.params["group"]).id)

    def declare(self, start, inst):
        p = inst.params
        group = group_named(start, p["group"])
        others = [m.id for m in group_people(start, group.id) if m.id not in (p["incoming"], inst.actor_id)]
        handed = self._handed(start, inst)
        near = handover_lookalikes(start, {t.key for t in handed}, group.id)
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
            replies = thread_replies(ctx, ticket.key)
            notes = [r["body"] for r in new_comments(ctx, ticket.id, internal=True)]
            results += [check(f"{ticket.key} is assigned to {incoming.name}", now.assignee_id == incoming.id,
                              f"assigned to {now.assignee_id}"),
                        *says(notes, Candidate.text(ticket.status), [], f"{ticket.key}'s handover work note states "
                              f"its state ({ticket.status})", "state", weight=2),
                        *_worked(notes, ticket.key, p["worked"].get(ticket.key)),
                        *report_reply(replies, "Its #incidents thread says you hand it over", HANDED, weight=1),
                        *says(replies, claim.right, claim.others,
                              f"Its #incidents thread says you hand over to @{incoming.handle}", claim.kind, weight=2)]
            allowed += handover_allowed(ctx, ticket, incoming.id, p["channel"])
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
