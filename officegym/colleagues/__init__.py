"""Colleagues who answer: deterministic people of the world who reply when the agent's message
reaches them, and act where the handbook lets them. No model is involved: the same message in the
same state gets the same reply, every run.

A message reaches the people it addresses (see `reach`) and, in a thread, its starter; each of
them (at most MAX_REPLIERS, never the author) owes it a reply, due when their working hours and
their delay say (see `availability`): the reply is delivered when the simulated clock gets there
(a write moves it a tick, chat's wait moves it further; see `delivery`), in the DM or in the
message's thread, when they have something to say (see `replies`). Someone out of office sends
their auto-reply at once, naming their cover. They speak only of what the asker may see, by the
asker's own tools and the handbook's data-sharing rules (see `visibility`), in their own voice
(see `wording`), and a manager decides discount requests the asker may ask about (see `answering`,
`asking`). A task's events (see `events`) are delivered with the replies, in time order.

Colleagues write with the journal surface "colleague"; what they do for a message is journaled as
caused by it and stays in the diff graders read (see `attribution`), while their replies are
recorded (ColleagueWrite) and left out of it.
"""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Message
from officegym.apps.chat.waiting import WAKE
from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.facts import remembered

from . import delivery
from .answering import HOOK, MANAGER_LIMIT
from .delivery import MAX_REPLIERS
from .models import TOPIC_KINDS, ColleagueNote
from .reach import reach_of


QUEUE = "colleagues_queue"  # the session.info key of the messages waiting for their replies
DUE = "colleagues_due"  # the remembered fact: whether a reply or an event is due by the clock's time


def enable(session: Session) -> None:
    """Let colleagues answer the messages posted in this session (the agent's surfaces do this):
    each message is queued as it is posted, owed its replies when the transaction commits (so the
    journal shows the agent's write before anything it drew), and whatever is due by then is
    delivered. Waiting (chat's `wait`) delivers through `session.info[WAKE]`."""
    queued: list[Message] = []
    session.info[QUEUE] = queued
    session.info[HOOK] = lambda _session, message: queued.append(message)
    session.info[WAKE] = (delivery.next_due, _settle)


@event.listens_for(Session, "before_commit")
def _answer_queued(session: Session) -> None:
    """Owe replies to the messages queued in a session that enabled colleagues, and deliver what is
    due (one listener for every session: registering one per session cost more than the rest of a
    small tool call's setup). Whether anything is due is remembered until the database changes
    (facts.py): a read that queued nothing, while nothing wrote since, finds nothing new due."""
    queued = session.info.get(QUEUE)
    if queued is None:
        return
    if queued or remembered(session, DUE, delivery.anything_due):
        _settle(session)


def _settle(session: Session) -> None:
    """Owe replies to the queued messages, then deliver every reply and event due by now."""
    queued = session.info[QUEUE]
    while queued:
        delivery.schedule(session, queued.pop(0))
    delivery.deliver_due(session)


def plant_note(session: Session, person: Person, kind: str, ref, text_: str) -> ColleagueNote:
    """Give a colleague something to say about a record (a task's setup does this): `kind` is one of
    TOPIC_KINDS, `ref` a ticket key or a record id."""
    if kind not in TOPIC_KINDS:
        raise Invalid(f"A note is about one of {', '.join(TOPIC_KINDS)}, not {kind!r}.")
    note = ColleagueNote(person_id=person.id, topic=f"{kind}:{ref}", text=text_.strip())
    session.add(note)
    session.flush()
    return note


def reached(session: Session, message: Message) -> list[Person]:
    """The people a message reaches (see `reach`), by id, without its author."""
    return reach_of(session, message, MAX_REPLIERS).people


__all__ = ["enable", "plant_note", "reached", "HOOK", "MAX_REPLIERS", "MANAGER_LIMIT"]
