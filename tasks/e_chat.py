"""An event template in chat, `e.notice_channel_followup`: a manager asks one of their people, by DM,
to post a notice in one of the person's channels, and follows up while they work: the notice belongs
in another channel (the place to post changes) or the first one is right (the twin). The notice must
be posted once, where it finally belongs, with the date it announces."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.graders.statements import says

from .base import Target, ToolCall
from .common import added_messages, allow_posts, channel_named, channels_of, pick
from .e_common import Drawn, FollowupTemplate, workday
from .registry import register
from .split import in_split, person_in
from .w_deals_common import date_said

NOTICES = ["Reminder: the quarterly access review closes on {day}; please check your team's list before then.",
           "Heads up: the office network maintenance is on {day}, expect short outages in the afternoon.",
           "Expense reports for this month are due on {day}; late ones roll to next month.",
           "The team offsite planning survey closes on {day}, please fill it in."]
PLACE_PENDING = ["I'm checking with {source} that it's the right channel; I'll let you know shortly.",
                 "{source} may want it somewhere else, I'll confirm in a few minutes.",
                 "Let me double-check the channel with {source}; expect a quick follow-up."]
PLACE_CHANGED = ["Update on {thing}: {source} wants it in {new}, not {old}. Please post it there.",
                 "Change of plan for {thing}: {new} rather than {old}, per {source}.",
                 "{source} says {thing} belongs in {new}, not {old}."]
PLACE_KEPT = ["Update on {thing}: {source} agrees, {old} is the right place.",
              "{source} confirmed {old} for {thing}, go ahead.",
              "Checked with {source}: {thing} goes in {old} as planned."]


@register
class NoticeChannelFollowup(FollowupTemplate):
    id, apps = "e.notice_channel_followup", ("chat",)
    pending, changed, confirmed = PLACE_PENDING, PLACE_CHANGED, PLACE_KEPT
    summary = "Post a notice in the channel a manager asked for, after their follow-up (which may move it)."

    def draw(self, session, rng, instance, changes):
        people = [p for p in session.scalars(select(Person).where(Person.manager_id.is_not(None)).order_by(Person.id))
                  if person_in(self.split, p.id) and len(self.places(session, p)) >= 3]
        actor = pick(rng, people)
        places = self.places(session, actor)
        first, moved = rng.sample(places, 2)
        final = moved if changes else first
        day = workday(clock.company_now(session).date() + timedelta(days=rng.randint(3, 14)))
        notice = pick(rng, NOTICES).format(day=day.isoformat())
        return Drawn(actor, session.get(Person, actor.manager_id), "the notice's channel", pick(rng, [
            "HR", "the office manager", "our director", "the comms team"]),
            f"post this notice in {{value}}: \"{notice}\"", first, final,
            [c for c in dict.fromkeys([first, moved, *places]) if c != final][:4],
            {"notice": notice, "day": day.isoformat()})

    def places(self, session, person: Person) -> list[str]:
        """The open channels of the split a person is in, as "#name"."""
        return [f"#{c.name}" for c in channels_of(session, person.id) if in_split(self.split, "channel", c.name)]

    def steps(self, inst, value):
        return [ToolCall("chat_post_message", {"channel": value.lstrip("#"), "text": inst.params["notice"]})]

    def record(self, start, inst):
        final = inst.params["final"].lstrip("#")
        return Target("channel", final, [c.lstrip("#") for c in inst.params["others"]])

    def state_checks(self, ctx, inst):
        channel = channel_named(ctx.final, inst.params["final"].lstrip("#"))
        texts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == channel.id]
        stated, _ = says(texts, date_said(date.fromisoformat(inst.params["day"])), [],
                         f"The notice is posted in {inst.params['final']} with its date", "date")
        return [stated]

    def allowances(self, ctx, inst):
        return allow_posts(ctx, channel_named(ctx.final, inst.params["final"].lstrip("#")).id)
