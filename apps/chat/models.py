"""Chat tables: channels (public, private, DM, group DM), members, messages, reactions, pins,
mentions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from officegym.db import Base

CHANNEL_KINDS = ("public", "private", "dm", "group_dm")


# The condition of the partial index of channels by name; queries spell it the same way
# (services.NAMED), so that both databases see that the index holds every row they can select.
NAMED_KINDS_SQL = "kind IN ('public', 'private')"


class Channel(Base):
    """A conversation. Public and private channels have a unique name; DMs are named by their
    members' handles."""

    __tablename__ = "chat_channel"
    # Channel lists (public and private ones by name) skip the world's many DMs: by kind, and by name
    # among named channels alone (PostgreSQL would otherwise walk every DM's name to fill a page).
    __table_args__ = (Index("ix_chat_channel_kind_name", "kind", "name"),
                      Index("ix_chat_channel_named", "name", sqlite_where=text(NAMED_KINDS_SQL),
                            postgresql_where=text(NAMED_KINDS_SQL)))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    kind: Mapped[str] = mapped_column(String(10), default="public")
    topic: Mapped[str] = mapped_column(String(250), default="")
    purpose: Mapped[str] = mapped_column(String(250), default="")
    is_archived: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime)

    memberships: Mapped[list[Membership]] = relationship(back_populates="channel", cascade="all, delete-orphan")

    @property
    def is_conversation(self) -> bool:
        """True for DMs and group DMs, which have no name of their own."""
        return self.kind in ("dm", "group_dm")

    @property
    def is_private(self) -> bool:
        """Everything but a public channel is visible to its members only."""
        return self.kind != "public"

    def __repr__(self) -> str:
        return f"<Channel {self.id} {self.kind} #{self.name}>"


class Membership(Base):
    """A person in a channel, with the last message they have read (their unread state)."""

    __tablename__ = "chat_membership"
    __table_args__ = (UniqueConstraint("channel_id", "person_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    # Reading is not a change a task asks for: graders ignore this column.
    last_read_message_id: Mapped[int] = mapped_column(Integer, default=0, info={"bookkeeping": True})

    channel: Mapped[Channel] = relationship(back_populates="memberships")


class Message(Base):
    """A message in a channel; `thread_parent_id` makes it a reply in a thread. A deleted message
    keeps its row (so thread replies keep their parent) with its text cleared."""

    __tablename__ = "chat_message"
    __table_args__ = (Index("ix_chat_message_channel_thread", "channel_id", "thread_parent_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    thread_parent_id: Mapped[int | None] = mapped_column(ForeignKey("chat_message.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    edited_at: Mapped[datetime | None] = mapped_column(DateTime)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime)

    channel: Mapped[Channel] = relationship()
    reactions: Mapped[list[Reaction]] = relationship(back_populates="message", order_by="Reaction.id")

    @property
    def is_deleted(self) -> bool:
        """Deleted messages show as a tombstone."""
        return self.deleted_at is not None

    def __repr__(self) -> str:
        return f"<Message {self.id} in {self.channel_id} by {self.author_id}>"


class Reaction(Base):
    """An emoji reaction by one person on one message."""

    __tablename__ = "chat_reaction"
    __table_args__ = (UniqueConstraint("message_id", "person_id", "emoji"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    emoji: Mapped[str] = mapped_column(String(40))

    message: Mapped[Message] = relationship(back_populates="reactions")


class Mention(Base):
    """A person @mentioned in a message (kept in step with the text by the services)."""

    __tablename__ = "chat_mention"
    __table_args__ = (UniqueConstraint("message_id", "person_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)


class Pin(Base):
    """A message pinned to its channel."""

    __tablename__ = "chat_pin"
    __table_args__ = (UniqueConstraint("message_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"), index=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"))
    pinned_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    pinned_at: Mapped[datetime] = mapped_column(DateTime)
