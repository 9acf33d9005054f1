"""The access requests of w.access_requests_queue: what each one asks, who commented "Approved" on
it, who must approve it by the handbook's Requesting access article, and whether IT grants it,
holds it for that approval, or cancels it. `draw_requests` draws a queue of a given shape and
`queue_setup` files it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services as tickets
from officegym.graders.statements import Candidate

from .base import Claim
from .common import pick
from .handbook import article, other_rules, rule
from .tickets_common import next_key
from .w_people import SYSTEMS, access_summary

ACCESS = "Requesting access"
SHARING = "Data sharing: salaries and customer data"
ADMIN, CRM = "workspace admin rights", "CRM deals"
GRANTED = ("granted", "resolved", "have access", "has access")  # what a reply says of a request carried out
GRANTS = ("plain", "admin", "own")  # approved by: the manager; the Head of IT (admin rights); a manager's manager
HELD = ("covering", "admin", "own")  # "Approved" by: a teammate covering; the manager (admin rights); a report
WHY = {("grant", "plain"): "approved by the requester's manager",
       ("grant", "admin"): "admin rights approved by the Head of IT",
       ("grant", "own"): "a manager's own, approved by their manager",
       ("wait", "covering"): "approved only by a teammate covering for the manager",
       ("wait", "admin"): "admin rights approved only by the manager",
       ("wait", "own"): "a manager's own, approved only by their report",
       ("cancel", "crm"): "CRM deals"}


@dataclass
class Request:
    """One access request of the queue: its key, what IT does with it (`role`: grant, wait or
    cancel) and why (`kind`), who filed it, who commented on it (`comment`) and who must approve it."""

    key: str
    role: str
    kind: str
    requester: int
    commenter: int
    approver: int
    summary: str
    comment: str

    @property
    def why(self) -> str:
        """What makes the request granted, held or cancelled, in a few words."""
        return WHY[(self.role, self.kind)]

    def to_dict(self) -> dict:
        """For an instance's params."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Request":
        """Back from an instance's params."""
        return cls(**data)


def _reports(session, person: Person) -> list[Person]:
    return list(session.scalars(select(Person).where(Person.manager_id == person.id).order_by(Person.id)))


def _peers(session, person: Person) -> list[Person]:
    if person.team_id is None:
        return []
    return list(session.scalars(select(Person).where(Person.team_id == person.team_id, Person.id != person.id,
                                                     Person.id != person.manager_id).order_by(Person.id)))


def draw_requests(session, rng, first: Person, pool: list[Person], head: Person,
                  shape: tuple[int, int, int]) -> list[Request]:
    """A queue of `shape` (granted, held, cancelled) requests, in key order: the first granted one is
    `first`'s, the others' requesters are drawn from `pool`, each a different person."""
    granted, held, cancelled = shape
    kinds = [("grant", "plain")] + [("grant", pick(rng, GRANTS)) for _ in range(granted - 1)]
    kinds += [("wait", k) for k in rng.sample(HELD, held)] + [("cancel", "crm")] * cancelled
    sales = session.scalar(select(Department.id).where(Department.name == "Sales"))
    fits = {"own": lambda p: bool(_reports(session, p)), "covering": lambda p: bool(_peers(session, p)),
            "crm": lambda p: p.department_id != sales}
    systems, taken, drawn = rng.sample(SYSTEMS, len(kinds)), set(), []
    for index, (role, kind) in enumerate(kinds):
        fit = fits.get(kind, lambda p: True)
        requester = first if index == 0 else pick(rng, [p for p in pool if p.id not in taken and fit(p)])
        taken.add(requester.id)
        manager = session.get(Person, requester.manager_id)
        what, commenter, approver, said = systems[index], manager, manager, "Approved."
        if kind == "admin":
            what, commenter, approver = ADMIN, (head if role == "grant" else manager), head
        elif (role, kind) == ("wait", "covering"):
            commenter, said = pick(rng, _peers(session, requester)), f"Approved, I'm covering for @{manager.handle} " \
                                                                        "this week."
        elif (role, kind) == ("wait", "own"):
            commenter = pick(rng, _reports(session, requester))
        elif kind == "crm":
            what = CRM
        drawn.append((role, kind, requester.id, commenter.id, approver.id, access_summary(what, requester.name), said))
    order = rng.sample(range(len(drawn)), len(drawn))
    base = int(next_key(session, "IT").split("-")[1])
    return sorted((Request(f"IT-{base + order[i]}", *d) for i, d in enumerate(drawn)),
                  key=lambda r: int(r.key.split("-")[1]))


def either_rule(session, field: str) -> Claim:
    """A claim that a comment names Requesting access or the data-sharing article (both say who
    may see CRM deals), among the other articles."""
    right, sharing = article(session, ACCESS), article(session, SHARING)
    return Claim(Candidate.text(*rule(right).spellings, *rule(sharing).spellings), other_rules(session, right, sharing),
                 field, "handbook rule")


def queue_setup(lead_id: int, actor_id: int, requests: list[Request], text: str):
    """A setup step: the requests are filed yesterday afternoon; this morning the lead assigns them
    to the actor and adds as a watcher whoever was named to approve each, who comments; the lead
    tells the actor by DM."""
    def run(session) -> None:
        lead, actor = session.get(Person, lead_id), session.get(Person, actor_id)
        now = clock.company_now(session)
        clock.set_time(session, now - timedelta(hours=19))
        for r in requests:  # filed in key order
            tickets.create_ticket(session, session.get(Person, r.requester), "IT", "Service Request", r.summary,
                                  "I need this for my work on the team, read and write, until the end of the quarter.",
                                  components=["Accounts & Access"])
        clock.set_time(session, now - timedelta(hours=2))
        for r in requests:
            tickets.assign_ticket(session, lead, r.key, actor.id, "IT Support")
            tickets.watch_ticket(session, lead, r.key, r.commenter)
        for r in requests:
            tickets.add_comment(session, session.get(Person, r.commenter), r.key, r.comment)
        channel = chat.open_conversation(session, lead, [actor.id])
        chat.post_message(session, lead, channel.id, text)
    return run
