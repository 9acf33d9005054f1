"""What the SOPS tasks of the CRM-operations procedures share (tasks.procedures.accounts_corrections and
accounts_duplicates): how their summaries begin, and how a ticket is answered and graded: carried out, a
comment and the move to In Review; refused, closed as Won't Do with a comment that declines and names the
article; either way the facts the comment must state, and the ticket changes that are allowed."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check
from officegym.graders.statements import says

from ..base import Claim
from ..common import allow_posts
from ..decisions import reply_checks
from ..handbook import rule_claim
from ..tickets_common import ticket_by_key
from ..w_people_replies import dm_replies
from .core import Graded, Procedure

CORRECTION_SUMMARY = "Contact data correction: "  # a correction ticket's summary, before the account's name
PAIR_SUMMARY = "Possible duplicate contact: "  # a duplicate-check ticket's summary, before the name
PLANTED = (CORRECTION_SUMMARY, PAIR_SUMMARY)  # how the tickets a setup files begin


def comments_on(ctx, key: str) -> list[str]:
    """The comments the actor added to ticket `key`."""
    was = ticket_by_key(ctx.start, key)
    return [r["body"] for r in ctx.diff.table("tickets_comment").added
            if was is not None and r["ticket_id"] == was.id and r["author_id"] == ctx.actor_id]


def answered(ctx, key: str, carried: bool, rule: str, actions: tuple[str, ...], facts: list[Claim]) -> Graded:
    """The checks of the answer on ticket `key` (see the module's docstring) and the ticket changes it allows:
    up to three comments of the actor, and the ticket's own move."""
    was = ticket_by_key(ctx.start, key)
    now = ctx.final.get(Ticket, was.id) if was is not None else None
    state = f"{now.status} {now.resolution or ''}".strip() if now is not None else "gone"
    comments = comments_on(ctx, key)
    if carried:
        moved = now is not None and (now.status == "In Review" or (now.status, now.resolution) == ("Done", "Done"))
        results = [check(f"{key} is moved to In Review", moved, state)]
    else:
        closed = now is not None and (now.status, now.resolution) == ("Done", "Won't Do")
        results = [check(f"{key} is closed as Won't Do", closed, state)]
    results += reply_checks(comments, not carried, f"the answer on {key}", (),
                            None if carried else rule_claim(ctx.start, rule), actions, weight=2 if carried else 1)
    for fact in facts:  # a sender's address is named, not claimed (graders.statements.NAMING_KINDS)
        results += says(comments, fact.right, fact.others, f"The answer on {key} states the {fact.kind}, "
                        f"{fact.right.label}", fact.kind, weight=3)
    allowed = [] if was is None else [
        Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] == was.id and r["author_id"] == ctx.actor_id,
              limit=3),
        Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id,
              ("status", "resolution", "resolved_at", "updated_at", "first_response_at"))]
    return Graded(results, allowed)


@dataclass(frozen=True)
class MayTell(Procedure):
    """The answers go on the tickets; a word back in the DM with `filer`, who told the actor about them, is
    allowed too (up to two messages), and checked for nothing."""

    filer: int

    def check(self, ctx):
        dm, _ = dm_replies(ctx, self.filer)
        return Graded([], allow_posts(ctx, dm, limit=2, mentions=2) if dm else [])
