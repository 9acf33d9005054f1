"""The handbook's sales, incident, service-desk and engineering articles (seed_data.tickets_handbook
writes them). Each function returns an article's versions, oldest first; the rules an app enforces
are quoted from the code's own constants, and said to be enforced only where a service does it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from officegym.apps.crm.models import DISCOUNT_LIMIT, LOSS_REASONS
from officegym.apps.crm.products import MAX_DISCOUNT
from officegym.apps.tickets.models import LEVELS, PRIORITIES
from officegym.apps.tickets.sla import FIRST_RESPONSE_MINUTES, RESOLUTION_MINUTES, WAITING, incident_priority

if TYPE_CHECKING:
    from .tickets_handbook import Ctx


@dataclass(frozen=True)
class V:
    """One version of an article: written `days` before the end of the seeded history."""

    days: int
    title: str
    category: str
    body: str
    note: str = "First version"
    by_admin: bool = False  # written by an admin rather than the owner


def doc(*parts) -> str:
    """Paragraphs (str) and numbered rules (lists of str, numbered on through the article)."""
    out, n = [], 0
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            continue
        out.append("\n".join(f"{n + k}. {rule}" for k, rule in enumerate(part, start=1)))
        n += len(part)
    return "\n\n".join(out)


def duration(minutes: int) -> str:
    """"15 minutes", "1 hour", "24 hours (1 day)"."""
    if minutes < 60 or minutes % 60:
        return f"{minutes} minutes"
    hours = minutes // 60
    said = f"{hours} hour{'s' if hours != 1 else ''}"
    if hours >= 24 and hours % 24 == 0:
        said += f" ({hours // 24} day{'s' if hours != 24 else ''})"
    return said


def discounts(c: Ctx) -> list[V]:
    """Discount and approval thresholds: the CRM's limit, the approver, the ceiling."""
    old = max(1, DISCOUNT_LIMIT - 5)
    first = doc("How much a rep may discount a deal, and who says yes to more.", [
        f"Reps may discount a line up to {old}% of the list price on their own.",
        "Anything deeper needs your manager's written OK before the quote goes out: send your manager the deal, "
        "the discount and the reason, and note the answer on the opportunity.",
        "Never promise a discount to a customer before it is approved."])

    def body(ceiling: bool) -> str:
        crm = [f"A discount of up to {DISCOUNT_LIMIT}% on a line item is set directly by the deal's owner. The CRM "
               f"enforces this: it refuses any discount above {DISCOUNT_LIMIT}% set directly on a line.",
               f"Above {DISCOUNT_LIMIT}%, request the discount on the line item, with a one-sentence reason. The "
               "request goes to the deal owner's manager, and only that manager can approve or reject it; approving "
               "applies the discount to the line. The CRM enforces this too.",
               "One request per line item may be pending at a time, and requests are decided only while the deal is "
               "open (the CRM enforces both)."]
        if ceiling:
            crm.append(f"No discount above {MAX_DISCOUNT}% is approved: the CRM refuses such a request outright.")
        rules = [f"Above 35%, the manager checks with {c.r('sales_head')} in a #deals thread before approving.",
                 "The reason names a competitor the CRM knows (as a deal's Competitor field spells it) or the "
                 "customer's budget constraint with its figure (an amount or a percentage); any other reason is "
                 "rejected. \"Matching <competitor>'s three-year price\" or \"Their budget is capped at $40,000 this "
                 "year\" stand; \"Customer asked\", \"They think it is overpriced\" or \"No competitor involved\" "
                 "do not, nor does a reason that denies the competitor or the figure it names.",
                 "Never promise a discount to a customer before it is approved.",
                 "A credit or a free month is a discount too: price it on the line, never on the side."]
        return doc("How much a rep may discount a deal, and who says yes to more.", "What the CRM enforces:", crm,
                   "The handbook's rules:", rules, f"Questions: ask in #deals or {c.r('sales_head')}.")
    return [V(420, "Discount approvals", "Sales", first),
            V(190, "Discount and approval thresholds", "Sales", body(False),
              f"Raised the limit from {old}% to {DISCOUNT_LIMIT}% after the Q2 review; approvals now go through "
              "the CRM"),
            V(40, "Discount and approval thresholds", "Sales", body(True),
              f"Added the {MAX_DISCOUNT}% ceiling and the #deals check above 35%")]


def deal_desk(c: Ctx) -> list[V]:
    """The deal-desk checklist before Closed Won."""
    legal = ("The contract went through legal review: a Service Request in LEGAL (Legal Requests), component "
             "Contracts, naming the account, resolved before signature." if c.has_legal else
             f"{c.R('ceo')} has read and signed the contract (the company has no legal team of its own yet).")
    crm = ["A deal is won only from Negotiation. The sales path goes Prospecting, Qualification, Proposal, "
           "Negotiation, one stage at a time, and then Closed Won.",
           "The deal has an amount above zero. Once it has line items, its amount is the sum of their totals.",
           "All of a deal's line items come from one price book.",
           f"Discounts above {DISCOUNT_LIMIT}% carry the approval of the deal owner's manager.",
           "A won deal is read-only until it is reopened into an open stage."]
    desk = ["The amount matches the signed order form to the cent, and the close date is the day it was signed.",
            legal, "The primary contact of the customer is a contact on the account, with a working email.",
            f"Post the win in #deals: the account, the amount and what won it. The FY{c.year} Sales Forecast "
            "picks it up at the Friday refresh; do not type it into the workbook by hand. The one exception: a deal won "
            "before the last Friday refresh that the refresh missed (Closed Won in the CRM, yet not on the workbook's "
            "Closed Won tab) is typed in there by an editor of the workbook, one row as the tab has them: account, "
            "deal, owner, amount and closed on."]
    pending = ("Every discount request on the deal is decided. A request still pending when the deal closes can no "
               "longer be decided, because the CRM decides requests on open deals only.")
    intro = (f"Before you move an opportunity to Closed Won, go through this list. {c.R('sales_ops')} runs the deal "
             "desk; questions go to the SOPS project (Sales Operations).")
    return [V(300, "Deal desk checklist before Closed Won", "Sales",
              doc(intro, "What the CRM enforces:", crm[:2] + crm[4:], "The deal desk's checklist:", desk)),
            V(75, "Deal desk checklist before Closed Won", "Sales",
              doc(intro, "What the CRM enforces:", crm, "The deal desk's checklist:", [pending] + desk),
              "Added the price-book and pending-discount checks")]


LOSS_MEANINGS = {
    "Price": "the customer could not accept our price, even with the discounts we could approve.",
    "Competitor": "a competitor won the deal. The CRM also requires the competitor's name: write it as the "
                  "company calls itself.",
    "No Budget": "the customer has no money for it this year. Not a price objection: they would buy at our price.",
    "No Decision": "the customer stayed with what they have, or the deal went silent for 60 days.",
    "Timing": "they want it, but not in the next two quarters. Log a follow-up task on the account for the date.",
    "Product Fit": "we lack something they need. Name the gap in the deal's description so Product can read it.",
}


def loss_reasons(c: Ctx) -> list[V]:
    """Which loss reason to pick."""
    otherwise = "use it when it is the main reason."
    reasons = [f"{reason}: {LOSS_MEANINGS.get(reason, otherwise)}" for reason in LOSS_REASONS]
    return [V(250, "Loss reasons for Closed Lost deals", "Sales", doc(
        "A deal closes as Closed Lost from any open stage, and only with a loss reason: one of "
        f"{', '.join(LOSS_REASONS)}. The CRM enforces this, and with Competitor it also needs the competitor's name.",
        "Pick the one reason that decided it:", reasons,
        "Reopening a lost deal into an open stage clears its loss reason and close date (the CRM does this).",
        f"{c.R('sales_head')} reviews the week's losses every Monday; post each loss in #deals with its reason.",
        "Never pick No Decision to avoid naming a competitor or a price problem: the forecast depends on it."))]


def severity(c: Ctx) -> list[V]:
    """Impact, urgency and the priority the tickets app derives from them."""
    table = [f"Impact {i}, urgency {u}: {incident_priority(i, u)}" for i in LEVELS for u in LEVELS]
    scale = ("Impact is how many people it affects: one person is Low; a team is Medium; a whole office, every "
             "customer or the company is High. Urgency is how much it hurts now: a workaround exists is Low; work "
             "is slowed is Medium; work is stopped is High.")
    routing = ("Office IT (laptops, accounts, network, email) goes to the IT Support group. A problem with a "
               "customer-facing or engineering service goes to the on-call group of the engineering team that owns "
               f"it ({', '.join(c.on_call) or 'the on-call group'}); the ENG project's components say which team "
               "owns what.")
    old = doc("Every incident gets an impact and an urgency. " + scale,
              "Set the incident's priority from this table:", table, routing)
    new = doc("Every incident gets an impact and an urgency, each High, Medium or Low. " + scale,
              "The tickets app computes the incident's priority from the two; you cannot set an incident's "
              "priority yourself (the service refuses it). High and High is Highest, Low and Low is Lowest, one "
              f"step down ({', '.join(PRIORITIES)}) for each step down of either:", table,
              "An incident filed without an impact or an urgency gets Medium for each, so Medium priority. Changing "
              "either later recomputes the priority. Other tickets (bugs, requests, tasks) take a priority directly.",
              "Whoever works an incident keeps its impact and urgency true to what the ticket shows: when its "
              "comments say more people are affected or their work is stopped, update them (that raises the "
              "priority); a request for a higher priority with nothing on the ticket behind it is declined, naming "
              "this article.",
              routing, "The SLA targets follow the priority: see the article Service desk SLA targets.")
    return [V(500, "Incident priority", "Operations", old),
            V(120, "Incident severity: impact, urgency and priority", "Operations", new,
              "The tickets app now derives the priority from impact and urgency; rewrote to match")]


def incident_communication(c: Ctx) -> list[V]:
    """Announcing, updating and closing a production incident."""
    start = [f"File the incident in IT (IT Help Desk) with component Production and assign it to the owning "
             f"team's on-call group ({', '.join(c.on_call) or 'the on-call group'}).",
             "Whoever owns it posts one top-level message in #incidents: the ticket key, the summary, the impact, the "
             "urgency and the priority the ticket shows, and which group is on it. Example: \":rotating_light: "
             f"IT-123 · Checkout API returning 502 errors. Impact High, urgency High, so priority "
             f"{incident_priority('High', 'High')}. {(c.on_call or ['Platform On-Call'])[0]} is on it.\"",
             "Every update is a reply in that thread, never a new top-level message: at least every 30 minutes "
             "for Highest, every hour for High, and whenever something changes for the others.",
             "The account owner, not the engineer, tells the customer; name the customer who reported it, nothing "
             "more about them."]
    old_end = ["When it is fixed, resolve the ticket and write the root cause in the #incidents thread."]
    end = ["When it is fixed, resolve the ticket (Fixed, or Workaround if the cause is still there), then add the "
           "root cause as a work note on the ticket. Work notes are internal: only the ticket's workers read them "
           "(the tickets app enforces this).",
           "Reply in the thread: \"IT-123 is resolved (Fixed).\"",
           "If the root cause needs more work, file a Problem in IT, link the incident to it (is caused by) and "
           "name the Problem's key in the thread.",
           "No incident talk in DMs or team channels, and no passwords or keys in #incidents."]
    intro = "How we talk about a production incident, from the first message to the root cause."
    return [V(260, "Incident communication", "Operations", doc(intro, start + old_end)),
            V(60, "Incident communication", "Operations", doc(intro, start + end),
              "Root cause now goes in a work note; updates stay in the incident's thread")]


def sla_targets(c: Ctx) -> list[V]:
    """The service desks' SLA targets, from the tickets app's constants."""
    def body(response: dict[str, int]) -> str:
        targets = [f"{p}: first response within {duration(response[p])}, resolution within "
                   f"{duration(RESOLUTION_MINUTES[p])}" for p in PRIORITIES]
        return doc(f"The service desks ({', '.join(c.desks)}) run two SLA clocks on every ticket from the moment it is "
                   f"filed; software projects ({', '.join(c.software)}) have none. The tickets app computes the "
                   "clocks, and these are its targets, by priority:", targets,
                   "How the clocks run (the tickets app enforces this):", [
                       "Both clocks count calendar time from the ticket's creation: nights and weekends count.",
                       "The first-response clock stops at the first public comment by one of the ticket's workers "
                       "other than the reporter. A work note does not stop it.",
                       f"The resolution clock stops when the ticket is resolved. It pauses while the ticket is "
                       f"{WAITING}, and runs again when the reporter replies (the ticket goes back to In Progress); "
                       "paused time stays paused if the ticket is reopened.",
                       "A clock is breached when its elapsed time goes over its target."],
                   "The handbook's rules:", [
                       "Agents take the oldest ticket of the highest priority first.",
                       f"Use {WAITING} only after asking the reporter a question in a public comment.",
                       f"{c.R('it_lead')} reviews the week's breaches every Monday."])
    old = dict(FIRST_RESPONSE_MINUTES, Highest=FIRST_RESPONSE_MINUTES["Highest"] * 2)
    return [V(330, "Service desk SLA targets", "IT", body(old)),
            V(100, "Service desk SLA targets", "IT", body(FIRST_RESPONSE_MINUTES),
              f"Tightened the Highest first-response target from {duration(old['Highest'])} to "
              f"{duration(FIRST_RESPONSE_MINUTES['Highest'])} after the Q3 outage review")]


def on_call_handover(c: Ctx) -> list[V]:
    """The On-call Rota and the Monday handover."""
    groups = ", ".join(c.on_call + ["IT Support"])
    rota = [f"The On-call Rota workbook names, for every week (weeks start on Monday), who is on call in each group: "
            f"{groups}. Its rows On call this week and On call next week say who it is today.",
            "Everyone in Engineering and IT can read the rota; the groups' members edit it.",
            "To swap a week, agree with a teammate of the same group, change both names in the rota before the week "
            "starts and say so in your team channel. The rota is the truth: nobody is on call because of a DM."]
    old = ["On Monday morning, the outgoing engineer sends the incoming one a DM with the open incidents."]
    new = ["On Monday by 10:00, for every open incident the group owns, the outgoing engineer adds a handover work "
           "note on the ticket: the state, what was tried, the next step and who is waiting. Work notes stay with "
           "the ticket's workers (the tickets app enforces this), so the reporter never sees them.",
           "Assign each open incident to the incoming engineer, and reply in its #incidents thread: \"Handing over "
           "to @name.\"",
           "The outgoing engineer stays reachable until the incoming one has confirmed in the thread."]
    escalate = (f"If nobody answers a Highest incident within 15 minutes, call the team's lead, then "
                f"{c.r('eng_head')}.")
    return [V(280, "On-call handover", "Engineering", doc("Who is on call:", rota, "Handover:", old, escalate)),
            V(45, "On-call handover", "Engineering", doc("Who is on call:", rota, "Handover:", new, escalate),
              "Handover notes now go on the tickets as work notes, not in DMs")]


def sprint_rules(c: Ctx) -> list[V]:
    """How ENG runs its sprints."""
    return [V(230, "Sprint rules", "Engineering", doc(
        "ENG plans its work in two-week sprints named ENG Sprint <n>.", "What the tickets app enforces:", [
            f"Only the project's lead ({c.r('eng_lead')} for ENG) and workspace admins plan, start and complete "
            "sprints.",
            "One sprint at a time is active: the next one starts only once the active one is completed.",
            "A sprint starts on its start date (today by default) and ends on an end date after it.",
            "Completing the active sprint moves every unfinished ticket (anything not Done) to the future sprint the "
            "lead picks, or back to the backlog when none is picked. Done tickets stay in the completed sprint.",
            "A closed sprint takes no tickets; put work in the active or a future sprint.",
            "Service desks have no sprints."],
        "The handbook's rules:", [
            "Sprints start on a Monday and end on the Friday of the following week: planning Monday at 10:00, "
            "review and retro that Friday.",
            "Unfinished work moves to the next sprint, not the backlog, unless the lead decides it no longer matters.",
            f"Adding work to the active sprint after planning needs the OK of the project's lead ({c.r('eng_lead')} "
            "for ENG), given in a comment on the ticket; anyone else's OK or +1 does not count. A customer "
            "escalation may go in directly.",
            "Every ticket in a sprint has an assignee and story points (1, 2, 3, 5, 8 or 13); split anything above "
            "8 into sub-tasks.",
            "The sprint goal is one sentence, set when the sprint is planned."]))]


def customer_escalation(c: Ctx) -> list[V]:
    """From a customer's case to an engineering bug, and back to the customer."""
    steps = ["Start from the customer's case in the CRM. Its owner (usually the account owner, in Sales) works it "
             "and tries the known fixes first.",
             "When engineering must fix something, file a Bug in the ENG project: summary \"<Account>: <what is "
             "wrong>\", the account set on the ticket, the component of the team that owns the area, priority High."]
    label = ("Give the bug the label customer-escalation, so engineering sees every customer escalation in one "
             "search.")
    escalate = ("Escalate the case in the CRM with the reason and the bug's key. The CRM enforces the rest: the case "
                "becomes Escalated, at least High priority, the reason is logged as a note, and the key must be a "
                "ticket you can see.")
    after = ["The account owner watches the bug and is the customer's one contact; engineers do not write to "
             "customers.",
             "The bug is due within 7 days. When it is Done, the account owner tells the customer and closes the case.",
             f"No progress by the due date: the account owner takes it to {c.r('cs_head')}, who takes it to the "
             f"owning team's lead, then to {c.r('eng_head')}.",
             "An outage for the customer is an incident, not a bug: see the article Incident communication."]
    intro = "When a customer's problem needs engineering, it goes case, then bug, then back to the account owner."
    return [V(310, "Customer escalation path", "Customer Support", doc(intro, steps + [escalate] + after)),
            V(70, "Customer escalation path", "Customer Support", doc(intro, steps + [label, escalate] + after),
              "Escalated bugs now carry the customer-escalation label and the account")]
