"""What one colleague says to one message, sentence by sentence, like a person would:

- about each record the asker may see: its state and the colleague's notes when their work
  touches it (with the handbook's place rules: no deal amount outside #deals, no private
  service-desk request outside a conversation whose members all see it);
- records they don't know, in one sentence, with who would know (never the asker, never
  themselves); people they don't work with, when nothing else is said, by what the directory
  shows everyone (their title, team and manager), not by whom to ask about them;
- ticket keys the asker cannot see, hidden or nonexistent alike, and deals asked about by someone
  outside Sales, declined in the handbook's words;
- a message that asks nothing (a report, an FYI): nothing at all, bar a discount decision and the
  acknowledgement of a handover addressed to them;
- a question that names nothing: a follow-up question about what is meant;
- never "I don't know about" a record they brought up themselves in the conversation.
People a message reaches only as a thread's starter speak only when they know something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person

from . import knowledge, visibility
from .knowledge import Record
from .wording import Speaker, thing_asked

_QUESTION_START = re.compile(r"^\s*(@\S+\s+)*(can|could|would|will|please|do|does|did|is|are|was|were|what|where|"
                             r"when|who|whom|which|how|why|any|have|has|should|status|update)\b", re.IGNORECASE)
_AMOUNT_WORDS = re.compile(r"\b(amount|worth|value|figure|how much|size|\$)", re.IGNORECASE)
SAID_HERE = 20  # a colleague's own recent messages in a conversation, read for what they brought up


@dataclass
class Asked:
    """One message as the colleagues read it: who asked, where, and what it names that the asker may see."""

    asker: Person
    channel: Channel
    text: str
    seen: list[Record]
    unseen_keys: list[str]
    used: set[str] = field(default_factory=set)  # sentences already said to this message


def is_question(text: str) -> bool:
    """Whether a message asks something (a question mark, or a question's or request's first word)."""
    return "?" in text or _QUESTION_START.match(text) is not None


def hands_over_to(text: str, person: Person) -> bool:
    """Whether a message hands work over to `person` ("Handing over to @name.")."""
    return re.search(r"\bhand(ing|s|ed)?\s+(it\s+)?over\s+to\s+@" + re.escape(person.handle.lower()) + r"\b",
                     text.lower()) is not None


def reply_lines(session: Session, colleague: Person, asked: Asked, direct: bool, decided: str,
                refused: list[Opportunity]) -> list[str]:
    """The sentences `colleague` says to the message (none when they have nothing to say).
    `direct`: the message was addressed to them (a DM, a mention), not only a reply in their thread."""
    speaker = Speaker(colleague.id)
    lines = [decided] if decided else []
    lines += [speaker.say("not_yours", asked.used, what=deal.name) for deal in refused]
    if not is_question(asked.text):  # a report or an FYI: nothing to answer, bar a handover to them
        if not lines and direct and hands_over_to(asked.text, colleague):
            lines.append(speaker.say("handover", asked.used))
        return lines
    unknown: list[Record] = []
    own = said_here(session, colleague, asked.channel)
    for record in asked.seen:
        told = knowledge.notes(session, colleague, record)
        knows = knowledge.knows(session, colleague, record)
        if not (knows or told):
            if knowledge.named_at(own, record.label) < 0:  # never "I don't know about" what they brought up
                unknown.append(record)
        elif visibility.private_ticket(record) and not visibility.everyone_here_sees(session, asked.channel, record):
            lines.append(speaker.say("private_ticket", asked.used, what=record.label))
        else:
            lines += _known(session, speaker, asked, record, knows) + told
    if not direct:
        return lines
    things = [r for r in unknown if r.kind != "person"]  # a person nobody asked about needs no "I don't know"
    lines += _unknown(session, speaker, colleague, asked, things)
    if not lines and unknown:  # asked about people they don't work with: what the directory shows everyone
        lines.append(speaker.say("directory", asked.used,
                                 state=" ".join(knowledge.state(session, record) for record in unknown)))
    if asked.unseen_keys:
        lines.append(speaker.say("unseen", asked.used, what=", ".join(asked.unseen_keys)))
    if visibility.asks_about_deals(asked.text) and not visibility.reads_deals(session, asked.asker):
        lines.append(speaker.say("sales_only", asked.used, article=visibility.SHARING_ARTICLE))
    if not lines and hands_over_to(asked.text, colleague):
        lines.append(speaker.say("handover", asked.used))
    elif not lines and not asked.seen:
        thing = thing_asked(asked.text)
        lines.append(speaker.say("which", asked.used, thing=thing[0], hint=thing[1]) if thing
                     else speaker.say("what_about", asked.used))
    return lines


def said_here(session: Session, colleague: Person, channel: Channel) -> str:
    """What the colleague wrote lately in this conversation (their last SAID_HERE messages), as one text."""
    return "\n".join(session.scalars(select(Message.text).where(Message.channel_id == channel.id,
                                                                Message.author_id == colleague.id)
                                     .order_by(Message.id.desc()).limit(SAID_HERE)))


def _known(session: Session, speaker: Speaker, asked: Asked, record: Record, knows: bool) -> list[str]:
    """What a colleague whose work touches the record says of its state, by the place's rules."""
    if not knows:
        return []
    amounts = visibility.amounts_allowed(asked.channel)
    deals = (lambda owner: visibility.open_deal_filter(session, asked.asker, owner)) \
        if visibility.reads_deals(session, asked.asker) else None
    said = [speaker.say("state", asked.used, state=knowledge.state(session, record, amounts, deals))]
    if record.kind == "opportunity" and not amounts and _AMOUNT_WORDS.search(asked.text):
        said.append(speaker.say("amounts_elsewhere", asked.used))
    return said


def _unknown(session: Session, speaker: Speaker, colleague: Person, asked: Asked, records: list[Record]) -> list[str]:
    """One sentence per person who would know the records the colleague does not (or none to name)."""
    by_holder: dict[str | None, list[str]] = {}
    for record in records:
        holder = knowledge.holder(session, record)
        handle = holder.handle if holder is not None and holder.id not in (colleague.id, asked.asker.id) else None
        by_holder.setdefault(handle, []).append(record.label)
    said = []
    for handle, labels in by_holder.items():
        what = " or ".join(labels)
        said.append(speaker.say("redirect", asked.used, what=what, who=f"@{handle}") if handle
                    else speaker.say("unknown", asked.used, what=what))
    return said
