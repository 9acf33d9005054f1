"""The handbook's articles on approvals while the approver is away and on on-call cover (seed_data.
tickets_handbook writes them). Like seed_data.tickets_handbook_text, each function returns an
article's versions, oldest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx


def approvals_away(c: Ctx) -> list[V]:
    """Whose approval counts when the approver is away, and which of their words counts."""
    return [V(40, "Approvals when the approver is away", "IT", doc(
        "Some requests wait for an approver's word: an access request for the requester's manager's \"Approved\" "
        "(see Requesting access), a purchase or an expense for a manager's OK. This article says whose word counts "
        "when the approver is away, and which of their words counts.", [
            "When the approver is away (they said so on the ticket, in a message or in a channel), their own "
            "manager, as the directory shows, approves in their place, in the same way and in the same place.",
            "Nobody else does: a teammate or a report the approver names to cover for them, or anyone who says "
            "they are covering, cannot approve. Their \"Approved\" counts for nothing, however it is worded.",
            "The latest word wins: an approval the approver (or whoever approved in their place) withdraws later "
            "on the same ticket (\"Approval withdrawn\", \"Hold this\") no longer counts, and the request waits "
            "for a new one. Read every comment on the ticket, up to the newest, before acting on an approval.",
            "Acting on an approval that does not count is undone: the access is removed and the ticket reopened."],
        f"{c.R('it_lead')} owns this article."))]


def on_call_cover(c: Ctx) -> list[V]:
    """Who takes the handover when the incoming engineer is away."""
    groups = ", ".join(c.on_call) or "the on-call groups"
    return [V(35, "On-call cover", "Engineering", doc(
        f"The On-call Rota says who is on call in each group ({groups}). When the engineer it puts on call this "
        "week is away on the handover day (ill, on leave), the week is not swapped for it:", [
            "The incoming engineer tells the outgoing one by direct message and names a cover: a member of the same "
            "on-call group (the tickets app lists each group's members).",
            "The outgoing engineer hands every open incident over to the cover instead, as On-call handover says: "
            "a handover work note, the cover as the new assignee, and \"Handing over to @cover.\" in the "
            "incident's #incidents thread.",
            "A cover who is not a member of the group does not count: hand over to the incoming engineer's team "
            "lead instead, as the directory shows.",
            "The rota stays as it is; the incoming engineer takes the incidents back when they return."],
        f"{c.R('rota')} owns this article."))]
