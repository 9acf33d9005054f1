"""Helpers of the browser UI tests: a `Browser` that drives one episode through the Flask test
client (with a CSRF token) and reads that episode's database, and small page/DB readers."""

from __future__ import annotations

import html
import re
from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel, Membership, Message
from officegym.apps.org.models import Person
from officegym.episodes import Episode
from officegym.worlds import content_hash

CSRF = "test-csrf-token"


class Browser:
    """A logged-in browser on one episode: relative paths, CSRF handled, DB helpers."""

    def __init__(self, client, episode: Episode):
        self.client = client
        self.episode = episode
        self.base = f"/e/{episode.id}"
        with client.session_transaction() as session:
            session["csrf"] = CSRF

    def get(self, path: str, **kwargs):
        """GET a page of this episode."""
        return self.client.get(self.base + path, **kwargs)

    def post(self, path: str, data: dict | None = None, csrf: str | None = CSRF, **kwargs):
        """POST a form of this episode (with the CSRF token unless `csrf` is None)."""
        form = dict(data or {})
        if csrf is not None:
            form["csrf_token"] = csrf
        return self.client.post(self.base + path, data=form, **kwargs)

    def act_as(self, handle: str) -> None:
        """Switch the acting person (free episode only)."""
        response = self.post("/act-as", {"person": handle})
        assert response.status_code == 303, error_message(response)

    @contextmanager
    def db(self) -> Iterator[Session]:
        """A transaction on the episode's database."""
        with self.episode.session() as session:
            yield session

    def state(self) -> str:
        """A hash of the whole database, to prove that a refused action changed nothing."""
        return content_hash(self.episode.engine)


def error_message(response) -> str:
    """The error shown on an error page ('' when there is none)."""
    found = re.search(r'data-testid="error-message">(.*?)</p>', response.get_data(as_text=True), re.S)
    return html.unescape(found.group(1)).strip() if found else ""


def text_of(response) -> str:
    """The page's HTML as text."""
    return response.get_data(as_text=True)


def message_ids(response) -> list[int]:
    """The ids of the message rows on a page, in page order."""
    return [int(i) for i in re.findall(r'data-testid="message"\s+data-message-id="(\d+)"', text_of(response))]


def person(db: Session, role: str = "member", not_in: Channel | None = None) -> Person:
    """Someone with this workspace role (optionally not a member of a channel)."""
    stmt = select(Person).where(Person.role == role).order_by(Person.id)
    if not_in is not None:
        stmt = stmt.where(Person.id.not_in(select(Membership.person_id).where(Membership.channel_id == not_in.id)))
    return db.scalars(stmt).first()


def channel(db: Session, name: str) -> Channel:
    """A channel by name."""
    return db.scalar(select(Channel).where(Channel.name == name))


def private_channel_hidden_from_a_member(db: Session) -> tuple[Channel, Person]:
    """A private channel and a plain member who is not in it."""
    for found in db.scalars(select(Channel).where(Channel.kind == "private").order_by(Channel.id)):
        outsider = person(db, "member", not_in=found)
        if outsider is not None:
            return found, outsider
    raise AssertionError("the world has no private channel hidden from a member")


def top_message(db: Session, channel_name: str, author_id: int | None = None,
                not_author_id: int | None = None) -> Message:
    """The newest live top-level message of a channel, optionally by / not by someone."""
    stmt = (select(Message).join(Channel).where(Channel.name == channel_name, Message.thread_parent_id.is_(None),
                                                Message.deleted_at.is_(None)).order_by(Message.id.desc()))
    if author_id is not None:
        stmt = stmt.where(Message.author_id == author_id)
    if not_author_id is not None:
        stmt = stmt.where(Message.author_id != not_author_id)
    return db.scalars(stmt).first()


def count(db: Session, model, *where) -> int:
    """How many rows of `model` match."""
    return db.scalar(select(func.count()).select_from(model).where(*where))


def db_changes(episode: Episode) -> dict:
    """Every change of an episode since its start, table by table, in a comparable form."""
    diff = episode.diff()
    return {name: (t.added, t.removed, [(u.key, u.before, u.after) for u in t.updated])
            for name, t in diff.tables.items()}


def call_tools(episode: Episode, actor_id: int, calls: list[tuple[str, dict]]) -> None:
    """Make MCP tool calls, in order, as one person through the SDK's in-process client; each must succeed."""
    import anyio
    from mcp.client import Client

    async def run():
        episode.actor_id = actor_id
        async with Client(episode.mcp_server()) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, args)
                assert not result.is_error, result.content[0].text

    anyio.run(run)


def assert_refused(browser: "Browser", names: dict, path: str, form: dict, status: int, message: str) -> None:
    """Post the form filled with the named records; it is refused with the message and nothing changes."""
    filled = {k: v.format(**names) for k, v in form.items()}
    before = browser.state()
    response = browser.post(path.format(**names), filled)
    assert response.status_code == status, error_message(response)
    assert message in error_message(response)
    assert browser.state() == before
