"""What the customer-support modules share: the problems engineering fixes and the areas they are in,
the cases and bugs of the escalation path (finding them, filing and checking the bug, escalating the
case, telling the customer), and the requester who asks for the work by direct message and hears
how it went."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel
from officegym.apps.crm.models import CASE_PRIORITIES, Account, Case
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets.models import Component, Ticket, TicketComponent, TicketLabel, Watcher
from officegym.graders.checks import Allow, check

from .base import Lookalikes, Ref, ToolCall
from .common import pick
from .crm import today
from .split import in_split, person_in
from .tickets_common import added_tickets, project_id

ESCALATION = "Customer escalation path"
LABEL = "customer-escalation"
OPEN = ("New", "Working")
TOLD = ("email", "call")  # how an account owner tells the customer, as the CRM logs it
# The case subjects engineering fixes, with the areas whose code may be at fault: each area is the work
# of two teams (and two ENG components), "<Area>" and "<Area> Core".
AREAS = {"Webhook deliveries delayed": ("Integrations", "Platform"),
         "API rate limit errors": ("Integrations", "Platform"),
         "Invoice shows the wrong tax rate": ("Payments", "Data"), "Dashboard not loading in Safari": ("Web", "Data"),
         "Slow report generation": ("Data", "Web"), "Export to CSV times out": ("Data", "Web"),
         "Data sync stuck": ("Data", "Integrations"), "Audit log export missing events": ("Data", "Platform"),
         "SSO login fails for some users": ("Platform", "Web"),
         "Password reset emails not arriving": ("Platform", "Infrastructure")}


def of_pool(items: list, split: str, kind: str, ident=lambda row: row.id, owner=lambda row: row.owner_id) -> list:
    """The items of a split whose owner (the task's actor) is in the split too; every item when the
    world has none (a small world, where only the declaration is exercised)."""
    kept = [i for i in items if in_split(split, kind, ident(i)) and person_in(split, owner(i))]
    return kept or list(items)


def open_cases(session: Session, *conditions) -> list[Case]:
    """New and Working cases matching the conditions, by id."""
    return list(session.scalars(select(Case).where(Case.status.in_(OPEN), *conditions).order_by(Case.id)))


def case_lookalikes(session: Session, case: Case, owner_id: int, limit: int = 20) -> Lookalikes:
    """Open cases an agent could confuse with `case`: the owner's others, then the newest open cases
    about the same problem (found when first asked for)."""
    def find() -> list[int]:
        mine = [c.id for c in open_cases(session, Case.owner_id == owner_id, Case.id != case.id)]
        same = [c.id for c in reversed(open_cases(session, Case.subject == case.subject, Case.id != case.id))
                if c.id not in mine]
        return (mine[:limit - 6] + same)[:limit]
    return Lookalikes(find)


def bug_exists(session: Session, account: Account, subject: str, bugs: set | None = None) -> bool:
    """Whether ENG already has a bug about this customer's problem (looked up in `bugs`, of
    `customer_bugs`, when given: a sample testing many accounts reads them once)."""
    if bugs is not None:
        return (account.id, f"{account.name}: {subject}") in bugs
    return session.scalar(select(Ticket.id).where(Ticket.account_id == account.id,
                                                  Ticket.summary == f"{account.name}: {subject}")) is not None


def customer_bugs(session: Session) -> set[tuple[int, str]]:
    """(account id, summary) of every ticket about a customer account."""
    return set(session.execute(select(Ticket.account_id, Ticket.summary).where(Ticket.account_id.is_not(None))))


def engineers(session: Session, team_name: str) -> list[Person]:
    """The people of an engineering team, by id."""
    team = session.scalar(select(Team).where(Team.name == team_name))
    return list(session.scalars(select(Person).where(Person.team_id == team.id).order_by(Person.id))) if team else []


def area_team(session: Session, rng, subject: str) -> tuple[str, Person]:
    """The engineering team whose area the problem is in (one of the two its area may be: the world
    decides which exist), with one of its engineers."""
    names = [name for area in AREAS[subject] for name in (area, f"{area} Core")]
    usable = [n for n in names if engineers(session, n) and component_id(session, n)]
    if not usable:  # a small company: any team with an ENG component of its name
        usable = [c for c in session.scalars(select(Component.name).where(
            Component.project_id == project_id(session, "ENG")).order_by(Component.id)) if engineers(session, c)]
    team = pick(rng, usable)
    return team, pick(rng, engineers(session, team))


def component_id(session: Session, name: str) -> int | None:
    """The id of an ENG component by name."""
    return session.scalar(select(Component.id).where(Component.project_id == project_id(session, "ENG"),
                                                      Component.name == name))


def ask_steps(handle: str, text: str, first: int) -> list[ToolCall]:
    """Open the DM with a colleague, ask, and read the answer (steps `first` to `first + 2`)."""
    return [ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
            ToolCall("chat_post_message", {"channel": Ref(first, "id"), "text": text}),
            ToolCall("chat_list_messages", {"channel": Ref(first, "id"), "limit": 5})]


def dm_channel(session: Session, one: int, other: int) -> Channel | None:
    """The DM of two people, if it exists."""
    return session.scalar(select(Channel).where(Channel.name == f"dm-{min(one, other)}-{max(one, other)}"))


def told_customer(ctx, case: Case):
    """Whether an activity row is an email or a call the actor logged to the case's customer: on the
    case, its account or its contact."""
    targets = {("case", case.id), ("account", case.account_id)} | (
        {("contact", case.contact_id)} if case.contact_id else set())
    return lambda row: ((row["record_type"], row["record_id"]) in targets and row["kind"] in TOLD
                        and row["owner_id"] == ctx.actor_id)


def escalation_bug(ctx, account_id: int) -> dict:
    """The ENG bug the actor filed for an account in the episode ({} when none)."""
    bugs = [r for r in added_tickets(ctx, "ENG") if r["type"] == "Bug" and r["account_id"] == account_id]
    return bugs[0] if bugs else {}


def bug_checks(ctx, bug: dict, account: Account, component: int | None, weight: float = 1.0) -> list:
    """The handbook's bug, checked: summary "<Account>: ...", the team's component, priority High,
    the label, due within 7 days, watched by the actor (the account owner)."""
    tid = bug.get("id")
    labels = set(ctx.final.scalars(select(TicketLabel.name).where(TicketLabel.ticket_id == tid)))
    parts = set(ctx.final.scalars(select(TicketComponent.component_id).where(TicketComponent.ticket_id == tid)))
    day, due = today(ctx.start), str(bug.get("due_date") or "")[:10]
    summary = bug.get("summary") or ""
    return [check(f"An ENG bug was filed for {account.name}", bug, "no bug of yours names the account", 2 * weight),
            check(f"Its summary reads \"{account.name}: <what is wrong>\"",
                  summary.startswith(f"{account.name}: ") and len(summary) > len(account.name) + 3,
                  f"summary {summary!r}", weight),
            check("It is filed against the component of the team that owns the area", parts == {component},
                  f"components {sorted(parts)}", 2 * weight),
            check(f"Its priority is High and it has the label {LABEL}",
                  bug.get("priority") == "High" and LABEL in labels, f"{bug.get('priority')}, labels {sorted(labels)}",
                  weight),
            check("It is due within 7 days", day.isoformat() <= due <= (day + timedelta(days=7)).isoformat(),
                  f"due {due}", weight),
            check("You watch it", tid is not None and ctx.final.get(Watcher, (tid, ctx.actor_id)) is not None,
                  "you are not a watcher", weight)]


def bug_allowances(ctx, account_id: int, component: int | None) -> list[Allow]:
    """One ENG bug of the actor for the account (its label and component) and the actor watching it."""
    pid = project_id(ctx.final, "ENG")

    def asked(row: dict) -> bool:
        return (row["project_id"] == pid and row["reporter_id"] == ctx.actor_id and row["type"] == "Bug"
                and row["account_id"] == account_id)
    ids = {r["id"] for r in ctx.diff.table("tickets_ticket").added if asked(r)}
    return [Allow("tickets_ticket", ("added",), asked),
            Allow("tickets_project", ("updated",), lambda row: row["id"] == pid, ("next_number",)),
            Allow("tickets_label", ("added",), lambda row: row["ticket_id"] in ids and row["name"] == LABEL),
            Allow("tickets_ticket_component", ("added",),
                  lambda row: row["ticket_id"] in ids and row["component_id"] == component),
            Allow("tickets_watcher", ("added",), lambda row: row["ticket_id"] in ids
                  and row["person_id"] == ctx.actor_id)]


def escalated(ctx, case: Case, key: str | None) -> bool:
    """Whether the case is Escalated with the ticket key (a key is needed)."""
    now = ctx.final.get(Case, case.id)
    return key is not None and now is not None and now.status == "Escalated" and now.ticket_key == key


def allow_escalation(case: Case) -> list[Allow]:
    """The case's escalation: its status, ticket key and raised priority, and the note it logs."""
    raised = ("High",) if CASE_PRIORITIES.index(case.priority) < CASE_PRIORITIES.index("High") else ()
    return [Allow("crm_case", ("updated",), lambda row: row["id"] == case.id
                  and row["priority"] in (case.priority, *raised), ("status", "ticket_key", "priority")),
            Allow("crm_activity", ("added",), lambda row: row["record_type"] == "case"
                  and row["record_id"] == case.id and row["kind"] == "note" and row["subject"] == "Escalated")]


def bug_call(account: Account, subject: str, team: str, day) -> ToolCall:
    """The reference's bug, as the escalation path wants it."""
    return ToolCall("tickets_create_ticket", {
        "project": "ENG", "type": "Bug", "summary": f"{account.name}: {subject}", "account": account.name,
        "priority": "High", "components": [team], "labels": [LABEL],
        "due_date": (day + timedelta(days=7)).isoformat(),
        "description": f"Reported by {account.name} through the CRM case \"{subject}\"."})


def boss_of(session: Session, person: Person) -> Person | None:
    """Someone's manager (who asks them for the work in the support workflows), if any."""
    return session.get(Person, person.manager_id) if person.manager_id else None
