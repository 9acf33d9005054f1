"""The handbook's articles on approvals while the approver is away and on on-call cover, and the ones that
say how the company's tools are used: service desk statuses, the On-call Rota workbook, the chat channels
and where a customer's history lives (seed_data.tickets_handbook writes them). Like
seed_data.tickets_handbook_text, each function returns an article's versions, oldest first."""

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


def desk_statuses(c: Ctx) -> list[V]:
    """What the statuses and resolutions of a ticket mean."""
    return [V(65, "Service desk statuses and resolutions", "IT", doc(
        "Service desk projects and software projects move tickets through statuses of their own. This article says "
        "what each means; the article on each kind of request says when to use them.", [
            "A service desk ticket is New when filed, Assigned once the desk has given it to someone, In Progress "
            "while they work on it, and Waiting on customer while the requester owes an answer (the SLA clock "
            "pauses while it waits: see Service desk SLA targets).",
            "Resolving a ticket records how it ended: Fixed when what was asked was done (access granted, equipment "
            "delivered, a fault repaired), Workaround when the need was met another way, Duplicate when another "
            "ticket tracks it, Cannot Reproduce when the fault could not be found, and Cancelled when the request "
            "was withdrawn or is no longer needed. A New ticket nobody has taken may be cancelled straight away.",
            "A request that waits for an approval is not resolved: it stays open until an approval that counts "
            "comes (see Requesting access and Equipment requests).",
            "A Resolved ticket may be reopened while the requester still needs it; a Closed one is final.",
            "Software projects use To Do, In Progress, In Review and Done (see Sprint rules)."],
        f"{c.R('it_lead')} owns this article."))]


def rota_workbook(c: Ctx) -> list[V]:
    """Where on-call weeks are planned."""
    return [V(75, "The On-call Rota workbook", "Engineering", doc(
        "The On-call Rota workbook, in the sheets app, is where on-call weeks are planned.", [
            "Its Rota tab has one row per week, the week's Monday under Week of, and one column per group, naming "
            "who is on call in that group that week. Below the weeks, On call this week and On call next week "
            "read the names for today.",
            "Its Members tab lists each group's members, with their email and how many weeks each is on call.",
            "The groups' members may edit it; everyone in Engineering and IT may read it. Who hands over to whom, "
            "swaps and cover: see On-call handover and On-call cover."],
        f"{c.R('rota')} owns this article."))]


def chat_channels(c: Ctx) -> list[V]:
    """Which chat channel is for what."""
    return [V(90, "Chat channels", "Operations", doc(
        f"Where to talk about what at {c.company}:", [
            "#general is the whole company's conversation and #announcements its news; #random is for anything "
            "else.",
            "#it-help is where anyone asks IT for help; IT files a ticket for whatever needs work (see Service desk "
            "statuses and resolutions).",
            "#incidents holds one thread per production incident (see Incident communication and On-call "
            "handover).",
            "#deals is for deal news and questions about deals (see the Sales articles).",
            "A customer's kickoff channel gathers the people who onboard that customer; whether it is private or "
            "public, its details say (see Data sharing: salaries and customer data).",
            "Ask one person in a direct message. Colleagues keep working hours of their own and answer when they "
            "are in."],
        f"{c.R('staff')} owns this article."))]


def customer_history(c: Ctx) -> list[V]:
    """Where a customer's history is kept in the CRM."""
    return [V(85, "A customer's history in the CRM", "Customer Support", doc(
        "Everything the company knows about a customer is on its account in the CRM:", [
            "its notes: credits logged for approval (see Refunds and credits), handovers and other decisions, "
            "newest first;",
            "its cases: problems the customer reported, open or closed (see Duplicate customer cases and Reopening "
            "a customer case; Customer escalation path for urgent ones);",
            "its contacts, and its deals with their stages and amounts (see the Sales articles).",
            "An account may have a parent account, for a group of companies; each keeps its own notes, cases, "
            "contacts and deals."],
        f"{c.R('cs_head')} owns this article."))]
