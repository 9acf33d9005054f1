"""Helpers shared by task templates: picking records from a world, finding them again at grading
time, pools of look-alike candidates, and the allowances of common writes for "nothing else
changed"."""

from __future__ import annotations

import math
import os
import random
from typing import Callable, Iterable, Sequence, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.chat import services as chat_services
from officegym.apps.chat.models import Channel, Membership, Mention, Message
from officegym.apps.org.models import Person, Team
from officegym.graders.checks import Allow, GradeContext
from officegym.graders.statements import Candidate

T = TypeVar("T")
_WORLD_SCANS: dict[tuple, object] = {}  # (world file, its size and time, what was scanned) -> the result


def world_scan(session: Session, what: tuple, scan: Callable[[], T]) -> T:
    """`scan()` once per read-only world file and `what` (a function's name and arguments): a scan of the
    world that a template's draw repeats for every instance. Its result must be plain values (ids, never
    ORM objects, which belong to one session) that no caller changes. On any other database (a start
    state, a copy being written) it scans every time."""
    url = session.get_bind().url
    if url.get_backend_name() != "sqlite" or url.query.get("mode") != "ro" or not url.database:
        return scan()
    path = url.database.removeprefix("file:")
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size, what)
    if key not in _WORLD_SCANS:
        _WORLD_SCANS[key] = scan()
    return _WORLD_SCANS[key]  # type: ignore[return-value]
ANY = object()


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """One item, chosen by the task's RNG (never from an empty world)."""
    if not items:
        raise RuntimeError("the world has nothing to pick from for this task")
    return items[rng.randrange(len(items))]


def nth(items: Sequence[T], instance: int) -> T:
    """The instance-th item (cycling): consecutive instances draw different items, for templates whose
    choices are few but each one matters."""
    if not items:
        raise RuntimeError("the world has nothing to pick from for this task")
    return items[instance % len(items)]


def spread(items: Sequence[T], instance: int) -> T:
    """The instance's item, stepping through the items by a stride prime to their number, so that
    neighbouring instances draw different items and the first len(items) instances are all distinct."""
    if not items:
        raise RuntimeError("the world has nothing to pick from for this task")
    step = next(k for k in (7, 11, 13, 17, 19, 23, 29, 31, 37) if math.gcd(k, len(items)) == 1)
    return items[(instance * step) % len(items)]


def evenly(rng: random.Random, instance: int, options: Sequence[T], answer: Callable[[T], object]) -> T:
    """One of `options`, drawn so that instances spread over the answers they give: the instance
    picks an answer (spread over them), the RNG an option giving it. No answer comes up much more
    often than another, so none is worth guessing."""
    by_answer: dict[object, list[T]] = {}
    for option in options:
        by_answer.setdefault(answer(option), []).append(option)
    return pick(rng, by_answer[spread(sorted(by_answer, key=repr), instance)])


def other_counts(expected: int, spread: int = 12) -> list[Candidate]:
    """The counts a counting question could be answered with instead of `expected`."""
    return [Candidate.text(str(n)) for n in range(max(0, expected - spread), expected + spread + 1) if n != expected]


def named(session: Session, person: Person) -> str:
    """A person as an instruction or a message names them: their full name, followed by their
    @handle when someone else has the same name."""
    namesakes = session.scalar(select(func.count()).select_from(Person).where(Person.name == person.name))
    return f"{person.name} (@{person.handle})" if namesakes > 1 else person.name


def everyone(session: Session) -> list[Person]:
    """All people, by id."""
    return list(session.scalars(select(Person).order_by(Person.id)))


def members(session: Session, person_role: str | None = None) -> list[Person]:
    """People with a given workspace role (default: everyone but the owner)."""
    stmt = select(Person).order_by(Person.id)
    stmt = stmt.where(Person.role == person_role) if person_role else stmt.where(Person.role != "owner")
    return list(session.scalars(stmt))


def owner(session: Session) -> Person:
    """The company's owner (the CEO)."""
    return session.scalars(select(Person).where(Person.role == "owner").order_by(Person.id)).first()


def channel_named(session: Session, name: str) -> Channel:
    """A channel by exact name."""
    return session.scalar(select(Channel).where(Channel.name == name))


def member_ids(session: Session, channel_id: int) -> set[int]:
    """Ids of a channel's members."""
    return set(session.scalars(select(Membership.person_id).where(Membership.channel_id == channel_id)))


def channels_of(session: Session, person_id: int, kinds: Iterable[str] = ("public", "private"),
                open_only: bool = True) -> list[Channel]:
    """Channels a person is in, by id."""
    stmt = (select(Channel).join(Membership, Membership.channel_id == Channel.id)
            .where(Membership.person_id == person_id, Channel.kind.in_(tuple(kinds))).order_by(Channel.id))
    if open_only:
        stmt = stmt.where(Channel.is_archived.is_(False))
    return list(session.scalars(stmt))


def teams_with_members(session: Session, minimum: int = 2) -> list[Team]:
    """Teams with at least `minimum` people, by id."""
    counts = dict(session.execute(select(Person.team_id, func.count()).group_by(Person.team_id)).all())
    return [t for t in session.scalars(select(Team).order_by(Team.id)) if counts.get(t.id, 0) >= minimum]


def team_member_ids(session: Session, team_id: int) -> set[int]:
    """Ids of a team's people."""
    return set(session.scalars(select(Person.id).where(Person.team_id == team_id)))


def find_message(session: Session, author_id: int, channel_id: int, text: str) -> Message | None:
    """The newest message with exactly this author, channel and text."""
    return session.scalars(select(Message).where(Message.author_id == author_id, Message.channel_id == channel_id,
                                                 Message.text == text).order_by(Message.id.desc())).first()


def added_messages(ctx: GradeContext, author_id: int | None = None) -> list[dict]:
    """Message rows the episode added, optionally only those by one author."""
    rows = ctx.diff.table("chat_message").added
    return [r for r in rows if author_id is None or r["author_id"] == author_id]


def allow_posts(ctx: GradeContext, channel_id: int, thread_parent_id=ANY, limit: int = 1,
                mentions: int = 2) -> list[Allow]:
    """Allow at most `limit` new messages of the actor in one channel (in one thread, when given;
    None: top level), mentioning at most `mentions` people each."""
    def ok(row: dict) -> bool:
        return (row["author_id"] == ctx.actor_id and row["channel_id"] == channel_id
                and (thread_parent_id is ANY or row["thread_parent_id"] == thread_parent_id))

    posted = {r["id"] for r in ctx.diff.table("chat_message").added if ok(r)}
    return [Allow("chat_message", ("added",), ok, limit=limit),
            Allow("chat_mention", ("added",), lambda row: row["message_id"] in posted, limit=limit * mentions)]


def allow_new_conversation(ctx: GradeContext, people: list[Person]) -> tuple[Channel | None, list[Allow]]:
    """The DM or group DM of exactly these people in the final state (None if it does not exist),
    and the allowances of opening it when it did not exist at the start (its row, its members)."""
    name = chat_services.conversation_name(people)
    channel = ctx.final.scalar(select(Channel).where(Channel.name == name))
    if channel is None or ctx.start.get(Channel, channel.id) is not None:
        return channel, []
    return channel, [Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                     Allow("chat_membership", ("added",), lambda row: row["channel_id"] == channel.id,
                           limit=len(people))]


def dm_allowances(ctx, other_id: int, limit: int = 1) -> list[Allow]:
    """The actor's DM with one colleague: opening it, and up to `limit` messages in it."""
    people = [ctx.final.get(Person, ctx.actor_id), ctx.final.get(Person, other_id)]
    channel, allowed = allow_new_conversation(ctx, people)
    return allowed + (allow_posts(ctx, channel.id, limit=limit) if channel is not None else [])


def top_level_messages(session: Session, channel_id: int, exclude: Iterable[int] = (), limit: int = 20) -> list[int]:
    """Ids of a channel's newest top-level messages (look-alikes of a message a task is about)."""
    stmt = (select(Message.id).where(Message.channel_id == channel_id, Message.thread_parent_id.is_(None),
                                     Message.deleted_at.is_(None), Message.id.not_in(list(exclude)))
            .order_by(Message.id.desc()).limit(limit))
    return list(session.scalars(stmt))


def people_except(session: Session, *people: Person | int | None, limit: int | None = None) -> list[Candidate]:
    """Candidates for every person but these (a pool of look-alike people)."""
    skip = {p if isinstance(p, int) else p.id for p in people if p is not None}
    stmt = select(Person.name, Person.handle, Person.email).where(Person.id.not_in(skip)).order_by(Person.id)
    return [Candidate.person(p) for p in session.execute(stmt.limit(limit) if limit else stmt)]


def distinct_values(session: Session, column, exclude: Iterable = ()) -> list[Candidate]:
    """Every distinct non-empty value of a column but `exclude`, as candidates."""
    skip = set(exclude)
    return [Candidate.text(v) for v in session.scalars(select(column).distinct().order_by(column)) if v and v not in skip]


def mentions_of(session: Session, message_id: int) -> set[int]:
    """Ids of the people a message mentions."""
    return set(session.scalars(select(Mention.person_id).where(Mention.message_id == message_id)))
