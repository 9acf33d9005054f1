"""One colleague answers one message, when their reply falls due (see `delivery`): they read the
world as it is then, reply when they have something to say (see `replies`), and act where the
handbook lets them. What they do for the asker (a decision) is the asker's doing: journaled with
the message that caused it and left in the diff graders read; only their reply itself is theirs
(ColleagueWrite). Someone out of office only sends their auto-reply.

A manager asked about a deal (or its account) with a discount request waiting on them decides it
through the CRM's services, by the handbook: approved up to MANAGER_LIMIT percent when the reason
names a competitor the CRM knows or the customer's budget constraint with its figure, and does not
deny it (see `reasons`); rejected otherwise, in the handbook's words; left pending, with the reason
why, above MANAGER_LIMIT (the handbook wants the head of sales' word first).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person
from officegym.errors import OfficeError

from . import asking, attribution, knowledge, reasons, replies, visibility
from .models import ColleagueWrite

MANAGER_LIMIT = 35  # percent a manager approves alone (the handbook's discount rule)
HOOK = "on_message"  # the session.info key chat.services.post_message hands each new message to


@contextmanager
def as_colleague(session: Session) -> Iterator[None]:
    """Writes made inside the block are a colleague's (journal surface "colleague"), at the company
    clock's time without moving it, and reach no other colleague."""
    surface, hook, at = session.info.get("surface"), session.info.pop(HOOK, None), clock.at_time(session)
    session.info["surface"] = "colleague"
    clock.set_time(session, clock.company_now(session) - clock.TICK)
    try:
        yield
    finally:
        clock.clear_time(session)
        if at is not None:
            clock.set_time(session, at)
        session.info["surface"] = surface
        if hook is not None:
            session.info[HOOK] = hook


def answer_as(session: Session, colleague: Person, message: Message, direct: bool, skip: set[int],
              away_text: str = "") -> None:
    """`colleague` answers `message` now (`direct`: it addressed them; `skip`: the people it reached,
    whom nobody is told about); `away_text` is their auto-reply when they are out of office, said
    instead of anything else."""
    asker = session.get(Person, message.author_id)
    if asker is None or message.is_deleted:
        return
    with as_colleague(session):
        if away_text:
            _post(session, colleague, message, asker, [away_text])
            return
        # nobody is told about themselves, nor to ask themselves
        records = knowledge.named_records(session, message.text, skip | {asker.id, colleague.id})
        seen = visibility.visible_records(session, asker, records)
        asked = replies.Asked(asker, session.get(Channel, message.channel_id), message.text, seen,
                              visibility.unseen_keys(session, asker, message.text))
        allowed, refused = asking.split_requests(session, colleague, asker, seen, message.text)
        with attribution.caused_by(session, message):
            decided = _decide_discounts(session, colleague, allowed)
        said = replies.reply_lines(session, colleague, asked, direct, decided, refused)
        if said:
            _post(session, colleague, message, asker, said)


def _post(session: Session, colleague: Person, message: Message, asker: Person, said: list[str]) -> None:
    """Post the reply (in the DM, or in the message's thread) and record it as the colleague's own."""
    first = _last_seq(session)
    thread = message.thread_parent_id or (None if message.channel.is_conversation else message.id)
    chat.post_message(session, colleague, message.channel_id,
                      f"@{asker.handle} {' '.join(said)}"[:chat.MAX_TEXT], thread_parent_id=thread)
    session.flush()
    session.add(ColleagueWrite(person_id=colleague.id, message_id=message.id, first_seq=first + 1,
                               last_seq=_last_seq(session)))


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
    said, rivals, rule = [], None, None
    for approval in waiting:
        deal = session.get(Opportunity, approval.opportunity_id)
        what = f"the {approval.discount:g}% discount on {deal.name} (request {approval.id})"
        if rivals is None:  # the competitors the CRM knows, and the handbook's words on reasons
            rivals, rule = reasons.known_competitors(session), reasons.rule_words(session)
        try:
            if approval.discount > MANAGER_LIMIT:
                said.append(f"I can't approve {what} alone: above {MANAGER_LIMIT}% the handbook wants the head of "
                            "sales' OK in a #deals thread first, so it stays pending.")
            elif reasons.reason_stands(session, approval.reason, rivals):
                crm.approve_discount(session, manager, approval.id, "Approved: within my limit, reason given.")
                said.append(f"Approved {what}.")
            else:
                crm.reject_discount(session, manager, approval.id, f"Rejected: {rule}")
                said.append(f"Rejected {what}. The handbook ({reasons.ARTICLE}): {rule}")
        except OfficeError as error:  # a closed deal, say: the colleague says why instead
            said.append(f"I can't decide {what}: {error}")
    return " ".join(said)


def _last_seq(session: Session) -> int:
    """The newest change-log entry of this transaction (every episode's database has the log)."""
    return session.scalar(text("SELECT coalesce(max(seq), 0) FROM og_change")) or 0
