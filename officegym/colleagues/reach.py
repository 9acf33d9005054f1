"""Whom a message reaches, and whom it addresses.

A message addresses, in a direct message, the other person; in a group DM, the people it
@-mentions, or every other member when it mentions nobody; in a channel, the members it
@-mentions. A mention of someone outside the conversation reaches nobody (the chat service warns
the author). A reply in a thread also reaches the person who started the thread (while they are in
the conversation), without addressing them: they speak only when they know something.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel, Membership, Mention, Message
from officegym.apps.org.models import Person


@dataclass
class Reach:
    """The people a message reaches (by id order, at most a limit) and the ids of those it addresses."""

    people: list[Person]
    addressed: set[int]


def reach_of(session: Session, message: Message, limit: int) -> Reach:
    """Who the message reaches and addresses, without its author."""
    channel = session.get(Channel, message.channel_id)
    members = set(session.scalars(select(Membership.person_id).where(Membership.channel_id == channel.id)))
    mentioned = set(session.scalars(select(Mention.person_id).where(Mention.message_id == message.id))) & members
    if channel.kind == "dm" or (channel.kind == "group_dm" and not mentioned):
        addressed = set(members)
    else:
        addressed = set(mentioned)
    ids = set(addressed)
    if message.thread_parent_id is not None:
        starter = session.scalar(select(Message.author_id).where(Message.id == message.thread_parent_id))
        ids |= {starter} & members
    ids.discard(message.author_id)
    addressed.discard(message.author_id)
    people = list(session.scalars(select(Person).where(Person.id.in_(ids)).order_by(Person.id).limit(limit)))
    return Reach(people, addressed)
