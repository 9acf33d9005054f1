"""The handbook's articles on change and problem management (seed_data.tickets_handbook writes them): production
change requests with their approver, the quarter-end freeze and emergency changes, and Problem records for a
service's recurring incidents. Like seed_data.tickets_handbook_text, each function returns an article's versions,
oldest first; ARTICLES lists (function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

# The quarter-end change freeze: from the Monday after the company's "now" (seed_data.world.COMPANY_NOW, Monday 16
# March 2026, which this module cannot import: the world builder imports the handbook) to the Friday of the week after.
FREEZE_START: date = date(2026, 3, 23)
FREEZE_END: date = FREEZE_START + timedelta(days=11)
# The freeze an older version of the article named (last year's year-end freeze): stale.
OLD_FREEZE = (date(2025, 12, 15), date(2026, 1, 2))
RECURRING, WINDOW_DAYS = 3, 30  # a service with RECURRING incidents or more in WINDOW_DAYS days gets a Problem
RETRO_LABEL = "retro-review"
BREACH_LABEL = "sla-breach"


def day(when: date) -> str:
    """A day as the articles write it: "Monday 23 March 2026"."""
    return f"{when:%A} {when.day} {when:%B %Y}"


def production_changes(c: Ctx) -> list[V]:
    """Production change requests: who files and who approves them, the freeze, emergencies and scheduling."""
    intro = ("A change to a production service (a configuration change, a schema migration, a failover test, a deploy "
             "outside the pipeline) goes through a change request. The tickets app enforces none of this: IT Support's "
             "change coordinators do.")
    filing = ("The engineer who makes the change files it as a Service Request in IT (IT Help Desk), component "
              "Production: summary \"Change: <service>: <what changes>\", the planned day as the ticket's due date, "
              "assigned to themselves in the on-call group that runs the service.")
    old = doc(intro, [
        filing,
        "A senior engineer of that on-call group approves it by commenting \"Approved\" on the change.",
        f"No change goes ahead during the year-end freeze, from {day(OLD_FREEZE[0])} to {day(OLD_FREEZE[1])}.",
        "IT Support schedules an approved change by moving it to In Progress."])
    new = doc(intro, [
        filing,
        "The change is approved by the Engineering Manager who leads the team of that on-call group (the directory "
        "shows each team's lead; tickets_get_group names the group's team), by commenting \"Approved\" on the change. "
        "Nobody else's approval counts: not the requester's own, not a teammate's or another member of the group's, "
        "not another team's manager's, however it is worded. While the manager is away, see Approvals when the "
        "approver is away.",
        "An approval is for the planned day it was given for: when the due date moves after the approval (the "
        "ticket's history shows when), the change waits for a new \"Approved\" from the manager.",
        f"The quarter-end change freeze runs from {day(FREEZE_START)} to {day(FREEZE_END)}, both days included. No "
        "change whose planned day falls inside it goes ahead: it waits, and its requester plans it again for a day "
        "after the freeze.",
        f"The one exception is an emergency change: a change that fixes a Highest-priority incident (its description "
        f"names the incident's key). It may go ahead inside the freeze, but only with the approval of "
        f"{c.r('eng_head')} on the change; the team manager's approval alone does not count for it. It also gets the "
        f"label {RETRO_LABEL}, so that the change board reviews it afterwards.",
        "The change coordinator schedules a change that may go ahead: the Start work transition (it moves to In "
        "Progress) with a comment \"Scheduled for <planned day>, approved by @<approver>.\" A change that may not go "
        "ahead is not scheduled: it stays as it is, and its requester is told why, naming this article."],
        f"{c.R('incident_lead')} owns this article; questions go to #incidents.")
    return [V(160, "Production change requests", "Operations", old),
            V(20, "Production change requests", "Operations", new,
              "Only the team's Engineering Manager approves; approvals hold for their planned day; the quarter-end "
              "freeze and emergency changes")]


def problem_records(c: Ctx) -> list[V]:
    """When a service's repeated incidents get a Problem record, which incidents it links, and who owns it."""
    return [V(30, "Problem records for recurring incidents", "Operations", doc(
        "A service that keeps failing gets a Problem record, so that its root cause is worked once instead of "
        "incident by incident. (A single incident whose root cause needs more work: see Incident communication.)", [
            f"A production service needs a Problem when it has had {RECURRING} or more incidents in the last "
            f"{WINDOW_DAYS} days: Incidents in IT, component Production, whose summary begins with the service's name "
            "(\"ledger failing health checks\"), resolved ones included. Incidents of other services, office IT "
            f"incidents and incidents filed more than {WINDOW_DAYS} days ago do not count, and are not linked.",
            "One open Problem per service: when the service has one already (\"Recurring failures of <service>\", "
            "not yet resolved), link the incidents to it and file no other. A resolved Problem is history: file a "
            "new one.",
            "Otherwise file it: a Problem in IT, summary \"Recurring failures of <service>\", component Production, "
            "priority High, assigned to the on-call group of the service's most recent incident.",
            "Link every incident that counts to the Problem: the incident is caused by the Problem "
            "(tickets_link_tickets from the incident, kind caused_by). An incident already linked to it stays as it is.",
            "Tell whoever asked for it the Problem's key."],
        f"{c.R('incident_lead')} owns this article; questions go to #incidents."))]


def breached_requests(c: Ctx) -> list[V]:
    """Which service requests are escalated for a breached SLA, and how."""
    return [V(25, "Escalating breached service requests", "IT", doc(
        "Service requests whose SLA has run out are escalated so that they get looked at first, when IT Support's "
        "lead asks for it (each morning, for the requests handed over that day); working a queue for any other "
        "reason escalates nothing. (The clocks and their targets: see Service desk SLA targets.)", [
            "Go through the open Service Requests you were given (tickets_search_tickets finds them). For each, "
            "tickets_get_ticket shows its SLA clocks: a request is breached when its time-to-resolution clock is "
            "overdue. Time spent Waiting on customer does not count, so a request's age alone says nothing: an old "
            "request whose clock was paused long enough is not breached.",
            f"Escalate a breached request: raise its priority one step (Low to Medium, Medium to High, High to "
            f"Highest), add the label {BREACH_LABEL}, and add a work note saying \"SLA breached: escalated from <old "
            f"priority> to <new priority>.\"",
            f"A request that carries the label {BREACH_LABEL} was escalated once already: leave it as it is.",
            "A request whose clock is running or paused is left as it is, however old.",
            f"Then tell whoever handed you the requests which ones you escalated. {c.R('it_lead')} reviews the "
            "escalations every Monday."],
        f"{c.R('it_lead')} owns this article."))]


ARTICLES: list = [(production_changes, "incident_lead"), (problem_records, "incident_lead"),
                  (breached_requests, "it_lead")]
