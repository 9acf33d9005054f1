"""The old team lead's part of an internal transfer (Internal transfers): the mover, whom People moved to another
team in the directory this morning, still holds open ENG tickets. Every open ticket assigned to them with the old
team's component goes to the old team's lead (the actor), with a work note saying they moved; an open ticket
with the new team's component stays with them, and so do their done tickets and the tickets they only reported
or are mentioned in. The lead removes them from the old team's channel; the report to the new lead (a `Reply`)
names the tickets that stay. `move_in_directory` is the People team's move, which the access decision uses too."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat.models import Channel, Membership
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import says
from officegym.seed_data.tickets_handbook_org import HANDED_NOTE, TRANSFERS

from ..base import Claim, Declaration, Target, ToolCall
from ..common import allow_new_conversation, allow_posts
from ..w_people_replies import dm_name, dm_replies
from ..tickets_common import new_comments, ticket_by_key
from .core import Graded, Procedure
from .it import workday_at

# status -> the transitions that bring a To Do ticket there
TO_STATUS = {"To Do": (), "In Progress": ("Start progress",), "In Review": ("Start progress", "Submit for review"),
             "Done": ("Start progress", "Submit for review", "Done")}
# the kinds of look-alike filed beside the mover's tickets: (who reports, who is assigned, component, status)
LOOKALIKES = (("mate", "mover", "old", "Done"), ("mover", "mate", "old", "To Do"),
              ("mate", "mate", "old", "In Progress"))


def move_in_directory(person_id: int, team_id: int, minutes: int = 90):
    """A setup step: People moves the person to the team (its department and lead as their manager), this
    morning (the directory has no service for it: seeded data)."""
    def run(session) -> None:
        person, team = session.get(Person, person_id), session.get(Team, team_id)
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=minutes))
        person.team_id, person.department_id, person.manager_id = team.id, team.department_id, team.lead_id
        session.flush()
    return run


@dataclass(frozen=True)
class HandOverOnTransfer(Procedure):
    """The mover's ENG tickets, numbered from `first`: `handed` ((summary, status) of open tickets of the old
    component, assigned to them), then `kept` (an open one of the new component, assigned to them), then the
    look-alikes (`LOOKALIKES`: a done ticket of theirs, one they reported for `mate`, one of `mate`'s whose
    description mentions them), each with its summary in `lookalike_summaries`. The setup files them over the
    past days and moves the mover to `new_team` this morning. The actor, the old team's lead, takes the handed
    tickets with a work note and removes the mover from `channel` (the old team's)."""

    rules = (TRANSFERS,)
    hard = ("lookalike", "exception")

    first: int
    actor: int
    actor_handle: str
    mover: int
    name: str
    handle: str
    mate: int
    old_component: str
    new_team: int
    new_team_name: str
    new_component: str
    channel: str
    handed: tuple[tuple[str, str], ...]
    kept: tuple[str, str]
    lookalike_summaries: tuple[str, ...]

    def key(self, k: int) -> str:
        """The k-th ticket the setup files."""
        return f"ENG-{self.first + k}"

    @property
    def handed_keys(self) -> list[str]:
        """The tickets handed over to the actor."""
        return [self.key(k) for k in range(len(self.handed))]

    @property
    def kept_key(self) -> str:
        """The open ticket of the new team's component, which stays with the mover."""
        return self.key(len(self.handed))

    @property
    def lookalike_keys(self) -> list[str]:
        """The done, reported and mentioning tickets, left as they are."""
        return [self.key(len(self.handed) + 1 + k) for k in range(len(LOOKALIKES))]

    def _filings(self) -> list[tuple[int, int, str, str, str, str]]:
        """(reporter, assignee, component, status, summary, description) of each ticket, in key order."""
        who = {"mover": self.mover, "mate": self.mate, "lead": self.actor}
        comp = {"old": self.old_component, "new": self.new_component}
        plain = "Details and acceptance criteria in the linked design doc."
        rows = [(self.actor, self.mover, self.old_component, status, summary, plain) for summary, status in self.handed]
        rows.append((self.actor, self.mover, self.new_component, self.kept[1], self.kept[0], plain))
        for (reporter, assignee, component, status), summary in zip(LOOKALIKES, self.lookalike_summaries):
            text = f"{self.name} (@{self.handle}) found this; ask them for the logs." if assignee == "mate" and \
                reporter == "mate" else plain
            rows.append((who[reporter], who[assignee], comp[component], status, summary, text))
        return rows

    def setup(self, session):
        now = clock.company_now(session)
        for k, (reporter, assignee, component, status, summary, text) in enumerate(self._filings()):
            clock.set_time(session, workday_at(now, 12 - k, 9 + k % 7))
            made = tickets.create_ticket(session, session.get(Person, reporter), "ENG", "Task", summary, text,
                                         components=[component])
            assert made.key == self.key(k), (made.key, self.key(k))
            tickets.assign_ticket(session, session.get(Person, self.actor), made.key, assignee)
            for transition in TO_STATUS[status]:
                tickets.transition_ticket(session, session.get(Person, assignee), made.key, transition,
                                          resolution="Done" if transition == "Done" else None)
        move_in_directory(self.mover, self.new_team)(session)

    def note(self) -> str:
        """The work note on a handed-over ticket."""
        return f"{HANDED_NOTE}: {self.name} moved to {self.new_team_name}; I'm taking this over."

    def reads(self) -> list[ToolCall]:
        """The mover's profile, their open ENG tickets (each one opened), and the open tickets they reported or
        that name them, which a careful lead also looks at."""
        return [ToolCall("org_get_person", {"person": f"@{self.handle}"}),
                ToolCall("tickets_search_tickets", {"query": f'project = ENG AND assignee = "@{self.handle}" AND '
                                                             "statusCategory != Done ORDER BY key"}),
                *(ToolCall("tickets_get_ticket", {"key": key}) for key in (*self.handed_keys, self.kept_key)),
                ToolCall("tickets_search_tickets", {"query": f'project = ENG AND (reporter = "@{self.handle}" OR text '
                                                             f'~ "{self.name}") AND statusCategory != Done'}),
                *(ToolCall("tickets_get_ticket", {"key": key}) for key in self.lookalike_keys[1:])]

    def take(self, key: str) -> list[ToolCall]:
        """Handing one ticket over to the actor."""
        return [ToolCall("tickets_assign_ticket", {"key": key, "assignee": f"@{self.actor_handle}"}),
                ToolCall("tickets_add_work_note", {"key": key, "body": self.note()}, role="note")]

    def remove(self) -> list[ToolCall]:
        """The mover taken out of the old team's channel."""
        return [ToolCall("chat_remove_from_channel", {"channel": self.channel, "person": f"@{self.handle}"})]

    def steps(self):
        return self.reads() + [c for key in self.handed_keys for c in self.take(key)] + self.remove()

    def fallen(self, kind):
        if kind == "exception":  # takes the new team's ticket too
            return self.steps()[:-1] + self.take(self.kept_key) + self.remove()
        if kind == "lookalike":  # takes every open ticket that names them
            return self.steps() + [c for key in self.lookalike_keys[1:] for c in self.take(key)]
        return None

    def declare(self, start):
        near = [self.kept_key, *self.lookalike_keys]
        return Declaration([Target("ticket", key, near) for key in self.handed_keys])

    def check(self, ctx):
        results, allowed = [], []
        for key in self.handed_keys:
            was = ticket_by_key(ctx.start, key)
            now = ctx.final.get(Ticket, was.id)
            results.append(check(f"{key} is handed over to you (its assignee)", now.assignee_id == ctx.actor_id,
                                 f"assignee id {now.assignee_id}", weight=1))
            notes = [r["body"] for r in new_comments(ctx, was.id)]
            results.append(check(f"A note on {key} says it was handed over because {self.name} moved to "
                                 f"{self.new_team_name}", any(HANDED_NOTE.lower() in n.lower() and
                                                               self.new_team_name.lower() in n.lower() for n in notes),
                                 f"notes: {notes[:2]}", weight=1))
            allowed += [Allow("tickets_ticket", ("updated",), lambda r, i=was.id: r["id"] == i,
                              ("assignee_id", "updated_at")),
                        Allow("tickets_comment", ("added",), lambda r, i=was.id: r["ticket_id"] == i and
                              r["author_id"] == ctx.actor_id, limit=1)]
        for key in (self.kept_key, *self.lookalike_keys):
            was = ticket_by_key(ctx.start, key)
            now = ctx.final.get(Ticket, was.id)
            results.append(guard(f"{key} keeps its assignee: it is not the mover's to hand over",
                                 now.assignee_id == was.assignee_id, f"assignee id {now.assignee_id}"))
        channel = ctx.final.scalar(select(Channel).where(Channel.name == self.channel))
        new_channel = ctx.final.scalar(select(Channel.id).where(Channel.name == self.new_channel))
        still = channel is not None and ctx.final.scalar(select(Membership.id).where(
            Membership.channel_id == channel.id, Membership.person_id == self.mover)) is not None
        results.append(check(f"{self.name} is no longer in #{self.channel}", channel is not None and not still,
                             "still a member" if still else "", weight=1))
        allowed += [Allow("chat_membership", ("removed",), lambda r: r["person_id"] == self.mover and channel is not
                          None and r["channel_id"] == channel.id),
                    Allow("chat_membership", ("added",), lambda r: r["person_id"] == self.mover and r["channel_id"] ==
                          new_channel)]
        return Graded(results, allowed)

    @property
    def new_channel(self) -> str:
        """The new team's channel (its lead invites the mover; the actor may, where they can)."""
        return "team-" + self.new_team_name.lower().replace(" ", "-")


@dataclass(frozen=True)
class TellNewLead(Procedure):
    """The direct message to the new team's lead (`lead`, who has not written to the actor) naming the ticket that
    stays with the mover among the look-alikes (`stays`); the reference opens the DM first, and opening it is
    allowed. It may name the tickets handed over too, and say anything else."""

    lead: int
    lead_name: str
    handle: str
    actor: int
    text: str
    stays: Claim
    weight: float = 6

    def steps(self):
        return [ToolCall("chat_open_conversation", {"people": [f"@{self.handle}"]}),
                ToolCall("chat_post_message", {"channel": dm_name(self.actor, self.lead), "text": self.text},
                         role="report")]

    def declare(self, start):
        return Declaration([], [self.stays])

    def check(self, ctx):
        dm, texts = dm_replies(ctx, self.lead)
        results = says(texts, self.stays.right, self.stays.others, f"Your message to {self.lead_name} names the "
                       f"ticket that stays with the mover, {self.stays.right.label}", self.stays.kind,
                       weight=self.weight)
        people = [ctx.final.get(Person, self.actor), ctx.final.get(Person, self.lead)]
        return Graded(results, (allow_posts(ctx, dm, limit=1, mentions=2) if dm else []) +
                      allow_new_conversation(ctx, people)[1])
