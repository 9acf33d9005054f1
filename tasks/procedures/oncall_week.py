"""The on-call week being handed over on a Monday, as the on-call family's stories tell it: the draw
(`draw_handover`: the group, the outgoing and incoming engineers, last week's incidents and the rota
swaps) and its setup (`handover_setup`: the incidents worked and announced in #incidents, look-alikes
beside them, and the rota swaps), with the stories' vocabulary of services, symptoms, attempts and next
steps. The procedures over it are in tasks.procedures.oncall; the Monday handover template
(tasks.w_incidents_rota) draws from it too."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.sla import incident_priority
from officegym.apps.tickets.workflow import is_open

from ..common import channel_named, member_ids, spread
from ..split import person_in
from ..tickets_common import group_people, next_key, tickets_where
from ..w_incidents import on_call_groups, rota_name, rota_ref, rota_sheet, this_monday

SERVICES = ["billing-api", "auth-service", "search-indexer", "notifications", "export-worker", "scheduler",
            "ledger", "webhooks", "mobile-gateway", "reporting-service", "data-pipeline", "web-app"]
SYMPTOMS = ["returning 502 errors", "p95 latency above 2 seconds", "dropping events", "failing health checks",
            "queue backing up", "out of memory in production"]
TRIED = ["restarted the pods", "rolled back the last deploy", "scaled the workers out", "failed over to the replica",
         "flushed the cache"]
NEXT = ["compare heap dumps from before and after the deploy", "ask the vendor about their rate limit change",
        "add a canary for the retry path", "watch the error rate for a full business day"]


def rota_ahead(session: Session, group: str, weeks: range) -> dict[str, datetime]:
    """Who the rota puts on call for `group` in the given weeks from now (name -> Monday)."""
    monday = this_monday(session)
    found = {}
    for k in weeks:
        name = rota_name(session, group, monday + timedelta(weeks=k))
        if name:
            found.setdefault(name, monday + timedelta(weeks=k))
    return found


def open_incidents(session: Session, group_id: int) -> list[Ticket]:
    """A group's open incidents, by key number."""
    return [t for t in tickets_where(session, Ticket.group_id == group_id, Ticket.type == "Incident")
            if is_open(t.status)]


@dataclass(frozen=True)
class Handover:
    """A drawn Monday handover: the group, the outgoing engineer (`actor`), the incoming one, a teammate
    who worked one of the incidents, a decoy group and engineer, spare service names, the planted
    incidents' specs (assignee, summary, impact, urgency, tried, next step, days into last week), the
    rota swaps (person, group, week, their own week) and every key to hand over, by number."""

    group: str
    actor: int
    incoming: int
    other: int
    decoy_group: str
    decoy_engineer: int
    spare: tuple[str, ...]
    specs: tuple
    swaps: tuple
    keys: tuple[str, ...]
    planted: tuple[str, ...]


def draw_handover(session, rng, split: str, instance: int) -> Handover:
    """Draw instance `instance` of a Monday handover in `split` (the incoming engineer is on the rota
    later and in #incidents; the rota swaps make them, and the actor, on call)."""
    monday = this_monday(session)
    inside = member_ids(session, channel_named(session, "incidents").id)
    choices = []
    for group in on_call_groups(session):
        ahead = rota_ahead(session, group.name, range(1, 9))
        people = [p for p in group_people(session, group.id) if p.name in ahead and p.id in inside]
        keep = {rota_name(session, group.name, monday), rota_name(session, group.name, monday - timedelta(weeks=1))}
        choices += [(group, p) for p in people if p.name not in keep and person_in(split, p.id)]
    group, actor = spread(choices, instance)
    members = group_people(session, group.id)
    ahead = rota_ahead(session, group.name, range(1, 9))
    incoming = rng.choice([p for p in members if p.name in ahead and p.id != actor.id and p.id in inside
                           and p.name not in {rota_name(session, group.name, monday + timedelta(weeks=k))
                                              for k in (-1, 0)}])
    other = rng.choice([p for p in members if p.id not in (actor.id, incoming.id)])
    decoy_group = rng.choice([g for g in on_call_groups(session) if g.id != group.id])
    decoy_engineer = rng.choice(group_people(session, decoy_group.id))
    busy = " ".join(t.summary for t in tickets_where(session, Ticket.type == "Incident") if is_open(t.status))
    services = rng.sample([s for s in SERVICES if s not in busy], 5)
    specs = []
    for k, assignee in enumerate((actor, actor, other)):
        specs.append((assignee.id, f"{services[k]} {rng.choice(SYMPTOMS)}", rng.choice(("High", "Medium")),
                      rng.choice(("High", "Medium", "Low")), rng.choice(TRIED), rng.choice(NEXT), 2 + k))
    swaps = ((actor.id, group.name, monday - timedelta(weeks=1), ahead[actor.name]),
             (incoming.id, group.name, monday, ahead[incoming.name]))
    first = int(next_key(session, "IT").split("-")[1])
    planted = tuple(f"IT-{first + k}" for k in range(3))
    existing = [t.key for t in open_incidents(session, group.id)]
    keys = tuple(sorted(existing + list(planted), key=lambda key: int(key.split("-")[1])))
    return Handover(group.name, actor.id, incoming.id, other.id, decoy_group.name, decoy_engineer.id,
                    tuple(services[3:]), tuple(specs), swaps, keys, planted)


def handover_setup(h: Handover):
    """Setup: last week's incidents of the group (two worked by the outgoing engineer, one by a
    teammate), announced and updated in #incidents; a resolved one of the group and an open one of
    another group beside them; then the two rota swaps that make the outgoing and incoming names."""
    group, specs, swaps, decoy_group, decoy_engineer, spare = (h.group, h.specs, h.swaps, h.decoy_group,
                                                               h.decoy_engineer, h.spare)

    def run(session: Session) -> None:
        incidents = channel_named(session, "incidents").id
        monday = this_monday(session)
        last = monday - timedelta(weeks=1)
        for assignee, summary, impact, urgency, tried, step, day in specs:
            incident_story(session, session.get(Person, assignee), group, summary, impact, urgency,
                      datetime.combine(last + timedelta(days=day), time(10, 20)), incidents,
                      f"Tried: {tried}; no change yet.", f"Still on it: {tried} did not help. Next: {step}.")
        mate = session.get(Person, specs[2][0])
        resolved = incident_story(session, mate, group, f"{spare[0]} {SYMPTOMS[0]}", "High", "Medium",
                             datetime.combine(last + timedelta(days=1), time(14, 5)), incidents,
                             "Tried: restarted the pods; that fixed it.", "Restart fixed it, watching it.")
        tickets.transition_ticket(session, mate, resolved.key, "Resolve", "Fixed")
        incident_story(session, session.get(Person, decoy_engineer), decoy_group, f"{spare[1]} {SYMPTOMS[1]}", "High",
                  "High", datetime.combine(last + timedelta(days=4), time(11, 40)), incidents,
                  "Tried: scaled the workers out.", "Still on it, next update in an hour.")
        book, _ = rota_sheet(session)
        # The last swap is written this morning: the rota's "On call this week" rows read TODAY(), and
        # a write recomputes them, so the last write must happen today.
        times = [datetime.combine(swaps[0][2] - timedelta(days=3), time(16, 30)),
                 datetime.combine(monday, time(7, 45))]
        for (person_id, name_group, week, theirs), when in zip(swaps, times):
            person = session.get(Person, person_id)
            clock.set_time(session, when)
            was = rota_name(session, name_group, week)
            sheets.write_cells(session, person, book.id, [
                {"cell": rota_ref(session, name_group, week), "value": person.name},
                {"cell": rota_ref(session, name_group, theirs), "value": was}])
    return run


def incident_story(session: Session, engineer: Person, group: str, summary: str, impact: str, urgency: str,
              when: datetime, channel_id: int, note: str, update: str) -> Ticket:
    """Setup: an on-call engineer files and works a production incident, announces it in #incidents,
    notes what was tried and posts an update in the thread."""
    clock.set_time(session, when)
    ticket = tickets.create_ticket(session, engineer, "IT", "Incident", summary, "Alert from monitoring.",
                                   impact=impact, urgency=urgency, group=group, assignee=engineer.id,
                                   components=["Production"])
    tickets.transition_ticket(session, engineer, ticket.key, "Start work")
    top = chat.post_message(session, engineer, channel_id,
                            f":rotating_light: {ticket.key} · {summary}. Impact {impact}, urgency {urgency}, so "
                            f"priority {incident_priority(impact, urgency)}. {group} is on it.")
    tickets.add_work_note(session, engineer, ticket.key, note)
    clock.set_time(session, when + timedelta(minutes=55))
    chat.post_message(session, engineer, channel_id, update, thread_parent_id=top.id)
    return ticket
