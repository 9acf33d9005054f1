"""What a colleague does because of the agent's message is the agent's doing: while a colleague
acts for a message, every journal entry they write carries the message and its author
(`officegym.journal.CAUSE`), and their writes stay in the diff graders read, so the guard
"nothing else changed" sees a change the agent caused (only their reply itself is theirs, see
`models.ColleagueWrite`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy.orm import Session

from officegym.apps.chat.models import Message
from officegym.journal import CAUSE


@contextmanager
def caused_by(session: Session, message: Message) -> Iterator[None]:
    """Journal the writes made inside the block as caused by `message` (and its author)."""
    before = session.info.get(CAUSE)
    session.info[CAUSE] = {"message_id": message.id, "asked_by": message.author_id}
    try:
        yield
    finally:
        if before is None:
            session.info.pop(CAUSE, None)
        else:
            session.info[CAUSE] = before
