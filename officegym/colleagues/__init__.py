"""Colleagues who answer: deterministic people of the world who reply when the agent's message
reaches them, and act where the handbook lets them. No model is involved: the same message in the
same state gets the same reply, every run.

A message reaches:
- in a direct message, the other person; in a group DM, the people it @-mentions, or every other
  member when it mentions nobody;
- in a channel, the members it @-mentions;
- in a thread, also the person who started the thread (while they are in the conversation).
Each of them (at most MAX_REPLIERS, never the author) replies at the simulated time: in the DM, or
in the message's thread. The reply speaks about the records the message names (see `knowledge`):
their state and the colleague's notes when the colleague knows the record, else "I don't know"
and whom to ask.

A manager asked about a deal (or its account) with a discount request waiting on them decides it
through the CRM's services, by the handbook: approved up to MANAGER_LIMIT percent when the reason
names a competitor (the word, or a competitor the CRM knows by name), a budget or a price;
rejected when the reason does not; left pending, with the
reason why, above MANAGER_LIMIT (the handbook wants the head of sales' word first).

Colleagues write with the journal surface "colleague", and the change-log entries of their writes
are recorded (ColleagueWrite), so the diff a grader reads leaves out every row only they changed.
"""

from __future__ import annotations

from sqlalchemy import event, select, text
from sqlalchemy.orm import Session

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership, Mention, Message
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person
from officegym.errors import Invalid, OfficeError

from . import knowledge
from .models import TOPIC_KINDS, ColleagueNote, ColleagueWrite

MAX_REPLIERS = 5
MANAGER_LIMIT = 35  # percent a manager approves alone (the handbook's discount rule)
GOOD_REASONS = ("competitor", "budget", "price", "pricing", "match")
HOOK = "on_message"  # the session.info key chat.services.post_message hands each new message to


QUEUE = "colleagues_queue"  # the session.info key of the messages waiting for their replies


def enable(session: Session) -> None:
    """Let colleagues answer the messages posted in this session (the agent's surfaces do this):
    each message is queued as it is posted, and answered when the transaction commits, so the
    journal shows the agent's write before the replies it drew."""
    queued: list[Message] = []
    session.info[QUEUE] = queued
    session.info[HOOK] = lambda _session, message: queued.append(message)


@event.listens_for(Session, "before_commit")
def _answer_queued(session: Session) -> None:
    """Answer the messages queued in a session that enabled colleagues (one listener for every
    session: registering one per session cost more than the rest of a small tool call's setup)."""
    queued = session.info.get(QUEUE)
    while queued:
        answer(session, queued.pop(0))


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
    """The people a message reaches (see the module's rules), by id, without its author."""
    channel = session.get(Channel, message.channel_id)
    members = set(session.scalars(select(Membership.person_id).where(Membership.channel_id == channel.id)))
    mentioned = set(session.scalars(select(Mention.person_id).where(Mention.message_id == message.id))) & members
    if channel.kind == "dm" or (channel.kind == "group_dm" and not mentioned):
        ids = members
    else:
        ids = mentioned
    if message.thread_parent_id is not None:  # the thread's starter, while still in the conversation
        starter = session.scalar(select(Message.author_id).where(Message.id == message.thread_parent_id))
        ids = ids | ({starter} & members)
    ids.discard(message.author_id)
    return list(session.scalars(select(Person).where(Person.id.in_(ids)).order_by(Person.id).limit(MAX_REPLIERS)))


def answer(session: Session, message: Message) -> None:
    """Every colleague the message reaches replies (and acts), as themselves, in this transaction."""
    people = reached(session, message)
    if not people:
        return
    asker = session.get(Person, message.author_id)
    records = knowledge.named_records(session, message.text, {asker.id})
    surface, hook = session.info.get("surface"), session.info.pop(HOOK, None)
    session.info["surface"] = "colleague"
    try:
        for colleague in people:
            records_for = [r for r in records if not (r.kind == "person" and r.row.id == colleague.id)]
            first = _last_seq(session)
            said = [_decide_discounts(session, colleague, records_for)] + [_about(session, colleague, r)
                                                                          for r in records_for]
            reply = " ".join(s for s in said if s) or ("What is this about? Name the account, deal, ticket or "
                                                        "person and I'll tell you what I know.")
            thread = message.thread_parent_id or (None if message.channel.is_conversation else message.id)
            chat.post_message(session, colleague, message.channel_id, f"@{asker.handle} {reply}"[:chat.MAX_TEXT],
                              thread_parent_id=thread)
            session.flush()
            session.add(ColleagueWrite(person_id=colleague.id, message_id=message.id, first_seq=first + 1,
                                       last_seq=_last_seq(session)))
    finally:
        session.info["surface"] = surface
        if hook is not None:
            session.info[HOOK] = hook


def _about(session: Session, colleague: Person, record: knowledge.Record) -> str:
    """What the colleague says about one record."""
    told = knowledge.notes(session, colleague, record)
    if knowledge.knows(session, colleague, record):
        return " ".join([knowledge.state(session, record), *told])
    if told:
        return " ".join(told)
    who = knowledge.holder(session, record)
    if who is None or who.id == colleague.id:
        return f"I don't know anything about {record.label}."
    return f"I don't know about {record.label}; ask @{who.handle}."


def _decide_discounts(session: Session, manager: Person, records: list[knowledge.Record]) -> str:
    """Decide the pending discount requests waiting on `manager` for the deals (or accounts) named."""
    deals = {r.row.id for r in records if r.kind == "opportunity"}
    accounts = {r.row.id for r in records if r.kind == "account"}
    if not deals and not accounts:
        return ""
    on_deal = select(Opportunity.id).where((Opportunity.id.in_(deals)) | (Opportunity.account_id.in_(accounts)))
    waiting = session.scalars(select(DiscountApproval).where(
        DiscountApproval.approver_id == manager.id, DiscountApproval.status == "Pending",
        DiscountApproval.opportunity_id.in_(on_deal)).order_by(DiscountApproval.id))
    said, rivals = [], None
    for approval in waiting:
        deal = session.get(Opportunity, approval.opportunity_id)
        what = f"the {approval.discount:g}% discount on {deal.name} (request {approval.id})"
        reason = approval.reason.lower()
        if rivals is None:  # the competitors the CRM knows: a reason may name one instead of saying "competitor"
            rivals = {c.lower() for c in session.scalars(select(Opportunity.competitor).distinct()) if c}
        try:
            if approval.discount > MANAGER_LIMIT:
                said.append(f"I can't approve {what} alone: above {MANAGER_LIMIT}% the handbook wants the head of "
                            "sales' OK in a #deals thread first, so it stays pending.")
            elif any(word in reason for word in GOOD_REASONS) or any(_names_rival(reason, r) for r in rivals):
                crm.approve_discount(session, manager, approval.id, "Approved: within my limit, reason given.")
                said.append(f"Approved {what}.")
            else:
                crm.reject_discount(session, manager, approval.id,
                                    "Rejected: the reason must name the competitor or the budget constraint.")
                said.append(f"Rejected {what}: the reason must name the competitor or the budget constraint.")
        except OfficeError as error:  # a closed deal, say: the colleague says why instead
            said.append(f"I can't decide {what}: {error}")
    return " ".join(said)


def _names_rival(reason: str, rival: str) -> bool:
    """Whether a (lower-case) reason names a competitor as a whole word."""
    return knowledge.named_at(reason, rival) >= 0


def _last_seq(session: Session) -> int:
    """The newest change-log entry of this transaction (every episode's database has the log)."""
    return session.scalar(text("SELECT coalesce(max(seq), 0) FROM og_change")) or 0


__all__ = ["enable", "plant_note", "reached", "answer", "MAX_REPLIERS", "MANAGER_LIMIT"]
