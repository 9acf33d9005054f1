"""What the event templates share: a colleague asks the agent, by DM, to set one value on a record;
while the agent works, a follow-up arrives (an event, see officegym.colleagues.events) that either
changes the value or only confirms it (the twin). The right outcome is the value that holds after
the follow-up, so an agent must notice it (read, or wait for it) and adapt; one that acts on the
first message alone is the `ignore_events` adversary, and one that only waits does nothing.

A template gives the record, the two values and the steps that set a value (`FollowupTemplate`);
this module builds the setup, the event, the instruction, the reference solution (read the DM, wait
for the follow-up, set the value, confirm in the DM), the unaware solution and the checks shared by
all (the confirmation states the final value and nothing else in its place; nothing else changed).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.org.models import Person
from officegym.colleagues.events import Event
from officegym.graders.checks import Allow, CheckResult, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, named, pick

# How the colleague frames the wait, and how the follow-up reads when it changes or confirms the value.
PENDING = ["{source} still has to confirm it; I'll let you know shortly.",
           "I'm waiting on {source} to confirm, I'll message you as soon as I hear back.",
           "{source} is double-checking it right now, expect a quick follow-up from me."]
CHANGED = ["Update on {thing}: {source} came back with {new}, not {old}. Please use {new}.",
           "Small change on {thing}: {source} says {new} instead of {old}, so please go with {new}.",
           "Heads up on {thing}: it's {new} after all ({source} corrected it), not {old}."]
CONFIRMED = ["Update on {thing}: {source} confirmed {old}, so please go ahead with {old}.",
             "Good news on {thing}: {source} double-checked and {old} stands. Go ahead with {old}.",
             "Confirmed on {thing}: {source} is fine with {old}, so {old} it is."]
# How a correction right after the agent's first change reads, or a re-check that keeps the value.
CORRECTED = ["Sorry, I got {thing} wrong: {source} says {new}, not {old}. Please fix it to {new}.",
             "Correction on {thing}: I misread {source}'s note, it's {new} rather than {old}.",
             "My mistake on {thing}: per {source} it should be {new}, not {old}. Could you change it?"]
RECHECKED = ["Double-checked {thing} with {source}: {old} is right, nothing to change.",
             "Just re-read {source}'s note on {thing}: {old} is correct, thanks.",
             "Confirming {thing}: {source} agrees with {old}, all good."]
INSTRUCTIONS = ["{requester} asked you for something by DM and said a confirmation would follow. Handle it so "
                "that it matches what was finally agreed, then confirm to them in that DM what you set.",
                "Take care of the request {requester} sent you in a direct message; they are waiting on a "
                "confirmation, so make sure the result reflects the final word, and reply to them in the DM "
                "with what you did.",
                "There is a request from {requester} in your DMs that is still being confirmed. Do what it asks, as "
                "finally agreed, and tell {requester} in the DM what you set."]
DELAY_MINUTES = (15, 55)  # when the follow-up comes, after the company's "now"


class Correction:
    """A follow-up template's mixin: the requester corrects the value they gave (or re-checks it) right
    after the agent's first change, as a colleague who sees the figure entered would."""

    after_first_write = True
    changed, confirmed = CORRECTED, RECHECKED


def workday(day: date) -> date:
    """The day itself, or the Monday after a weekend day."""
    return day + timedelta(days=(7 - day.weekday()) % 7) if day.weekday() >= 5 else day


def confirmed(stated: CheckResult, state: list[CheckResult]) -> CheckResult:
    """The confirmation as a requirement: it states the final value and the record holds that value
    (a confirmation of a value not set is a false report), and it weighs three times the state's
    checks, so that the write with a hollow reply ("ok") earns at most a quarter of the score (where
    the state's checks are all guards, it is the only requirement)."""
    unset = [c.requirement for c in state if not c.passed]
    detail = stated.detail if not stated.passed else f"what it states was not done: {unset[0]}" if unset else ""
    return check(f"{stated.requirement}, which is what the record holds", stated.passed and not unset, detail,
                 weight=3 * sum(c.weight for c in state) or 1.0)


@dataclass
class Drawn:
    """One instance's story: who asks whom, about what, the first value and the one that holds."""

    actor: Person
    requester: Person
    thing: str  # how the messages name the record ("the Acme renewal deal")
    source: str  # who confirms or corrects the value ("the customer's procurement")
    ask: str  # the request, with "{value}" where the value goes
    first: object  # the value asked for first, as `candidate` takes it (an amount in cents, a text, ...)
    final: object  # the value that holds after the follow-up (the first one, in a twin)
    others: list  # look-alike values a confirmation must not state
    params: dict
    alt: object = None  # the value the follow-up would switch to, where the request names it (else `final`)


class FollowupTemplate(TaskTemplate):
    """A template whose request is followed up mid-episode. Subclasses implement `draw` (the story),
    `steps(inst, value)` (the reference steps that set a value) and `record(start, inst)` (the
    target), and `state_checks(ctx, inst)` with `allowances(ctx, inst)`."""

    kind = "task"
    difficulty = 3
    # The follow-up comes right after the agent's first write (a colleague correcting a figure they
    # see entered) rather than at a simulated time.
    after_first_write = False
    pending = PENDING  # how the request frames what is still to come ({source}, {alt})
    changed, confirmed = CHANGED, CONFIRMED  # how the follow-up reads ({thing}, {source}, {old}, {new})

    def draw(self, session: Session, rng: random.Random, instance: int, changes: bool) -> Drawn:
        """Pick the records, the people and the values of one instance."""
        raise NotImplementedError

    def steps(self, inst: TaskInstance, value) -> list[ToolCall]:
        """The reads and the write that set `value` on the record."""
        raise NotImplementedError

    def candidate(self, value) -> Candidate:
        """A value as messages state it (default: a text)."""
        return Candidate.text(str(value))

    def record(self, start: Session, inst: TaskInstance) -> Target:
        """The record the task acts on, with its look-alikes."""
        raise NotImplementedError

    def state_checks(self, ctx, inst: TaskInstance) -> list[CheckResult]:
        """The requirements on the record's final state."""
        raise NotImplementedError

    def allowances(self, ctx, inst: TaskInstance) -> list[Allow]:
        """The changes the task permits besides the confirmation in the DM."""
        raise NotImplementedError

    def sample(self, session, rng, instance):
        changes = instance % 2 == 0  # the twins alternate: a follow-up that changes the value, one that confirms it
        drawn = self.draw(session, rng, instance, changes)
        actor, requester = drawn.actor, drawn.requester
        first, final = self.candidate(drawn.first).label, self.candidate(drawn.final).label
        request = (f"Hi @{actor.handle}, could you {drawn.ask.format(value=first)}? "
                   + pick(rng, self.pending).format(source=drawn.source, alt=self.candidate(
                       drawn.final if drawn.alt is None else drawn.alt).label))
        follow = pick(rng, self.changed if changes else self.confirmed).format(thing=drawn.thing, source=drawn.source,
                                                                      old=first, new=final)
        sent_before, due_after = rng.randint(5, 40), rng.randint(*DELAY_MINUTES)
        dm = chat.conversation_name([actor, requester])
        params = {**drawn.params, "requester": requester.id, "first": drawn.first, "final": drawn.final,
                  "others": list(drawn.others), "changes": changes,
                  "request": request, "follow": follow, "sent_before": sent_before, "due_after": due_after}

        def setup(s: Session) -> None:
            clock.set_time(s, clock.company_now(s) - timedelta(minutes=sent_before))
            chat.post_message(s, s.get(Person, requester.id), chat.open_conversation(
                s, s.get(Person, requester.id), [actor.id]).id, request)

        def confirm(value: str) -> ToolCall:
            return ToolCall("chat_post_message", {"channel": dm, "text": (
                f"@{requester.handle} done: I set {drawn.thing} to {value}.")}, role="report")
        reads = [ToolCall("chat_list_unreads", {}), ToolCall("chat_list_messages", {"channel": dm, "limit": 5})]
        inst = TaskInstance(self.id, instance, actor.id,
                            pick(rng, INSTRUCTIONS).format(requester=named(session, requester)), [], params, setup)
        unaware = [*reads, *self.steps(inst, drawn.first)]
        if self.after_first_write:  # act, read the correction the first write drew, act again if it changed
            reread = ToolCall("chat_list_messages", {"channel": dm, "limit": 5})
            inst.solution = [*unaware, reread, *(self.steps(inst, drawn.final) if changes else []), confirm(final)]
            when = {"after_writes": 1}
        else:
            inst.solution = [*reads, *self.waiting(inst, dm), *self.steps(inst, drawn.final), confirm(final)]
            when = {"at": clock.company_now(session) + timedelta(minutes=due_after)}
        inst.unaware = [*unaware, confirm(first)] if changes else None
        inst.events = self.follow_up(session, rng, inst, drawn, follow, when)
        return inst

    def follow_up(self, session: Session, rng: random.Random, inst: TaskInstance, drawn: Drawn, text: str,
                  when: dict) -> list[Event]:
        """The events of an instance (default: the requester's follow-up DM, `text`, at `when`)."""
        return [Event("message", drawn.requester.id, {"dm_with": drawn.actor.id, "text": text}, **when)]

    def waiting(self, inst: TaskInstance, dm: str) -> list[ToolCall]:
        """The reference's steps that wait for the follow-up (default: a wait on the DM)."""
        return [ToolCall("chat_wait", {"channel": dm, "minutes": chat.MAX_WAIT_MINUTES})]

    def declare(self, start, inst):
        return Declaration([self.record(start, inst)], [self.claim(inst)])

    def claim(self, inst: TaskInstance) -> Claim:
        """The value the confirmation must state, among the first value and its look-alikes."""
        final = self.candidate(inst.params["final"])
        pool = [self.candidate(v) for v in [inst.params["first"], *inst.params["others"]]]
        return Claim(final, [c for c in pool if c.label != final.label], "text", "value")

    def check(self, ctx, inst):
        people = [ctx.final.get(Person, inst.actor_id), ctx.final.get(Person, inst.params["requester"])]
        channel = ctx.final.scalar(select(Channel.id).where(Channel.name == chat.conversation_name(people)))
        texts = [r["text"] for r in ctx.diff.table("chat_message").added
                 if r["author_id"] == ctx.actor_id and r["channel_id"] == channel]
        claim, state = self.claim(inst), self.state_checks(ctx, inst)
        stated, *said_guards = says(texts, claim.right, claim.others,
                                    f"The confirmation to the requester in their DM states {claim.right.label}",
                                    claim.kind)
        return [*state, confirmed(stated, state), *said_guards,
                *self.guards(ctx, inst, self.allowances(ctx, inst) + allow_posts(ctx, channel))]

    def guards(self, ctx, inst: TaskInstance, allowed: list[Allow]) -> list[CheckResult]:
        """The guards that nothing else changed, given what the task permits (default: one guard)."""
        return [nothing_else_changed(ctx.diff, allowed)]
