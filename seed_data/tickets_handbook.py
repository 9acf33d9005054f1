"""The company handbook: the knowledge base of the tickets app, seeded into every world.

Each article is a policy or a runbook written for this company: it names the world's own
channels, workbooks, projects and groups, the job titles of the people who hold each role, and
quotes the rules the apps enforce from the code's own constants (the CRM's discount limit, the
loss reasons, the SLA targets, how an incident's priority follows from impact and urgency), so
the text cannot drift from what the services do. Everything else is the handbook's (human) rule.

Owners are found in the directory by role, with a fallback chain that ends at the CEO, so even
the tiny world has an owner for every article. Several articles have earlier versions (an older
threshold or wording, and a note saying why it changed), written days to months before the end of
the seeded history by the owner, or by an admin when the owner had not joined yet. Numbers follow
the order in which the articles were first written; every version, the newest included, is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from random import Random

from sqlalchemy.orm import Session

from officegym.apps.tickets.knowledge import article_number
from officegym.apps.tickets.models import Article, ArticleVersion

from . import tickets_handbook_accounts as accounts
from . import tickets_handbook_changes as changes
from . import tickets_handbook_commissions as commissions
from . import tickets_handbook_deals as deals
from . import tickets_handbook_finance as finance
from . import tickets_handbook_it as it
from . import tickets_handbook_long as long
from . import tickets_handbook_ops as ops
from . import tickets_handbook_org as org_rules
from . import tickets_handbook_purchases as purchases
from . import tickets_handbook_revenue as revenue
from . import tickets_handbook_rules as rules
from . import tickets_handbook_support as support
from . import tickets_handbook_text as texts
from .bulk import bulk_insert
from .chat_text import history_end
from .org import Org
from .sheets_vocab import EXPENSE_ITEMS
from .tickets_model import Tickets

# Who holds each role: the first link of the chain that exists in the world. A link is "ceo",
# "head:<department>", "team:<area>" (the area's lead), "first:<department>" (the lead of the
# department's first team), "project:<key>" (the project's lead) or "rota" (the On-call Rota's owner).
ROLES: dict[str, tuple[str, ...]] = {
    "ceo": ("ceo",),
    "sales_head": ("head:Sales", "ceo"),
    "sales_ops": ("team:Sales Operations", "head:Sales", "ceo"),
    "sales_lead": ("first:Sales", "head:Sales", "ceo"),
    "eng_head": ("head:Engineering", "ceo"),
    "eng_lead": ("project:ENG", "head:Engineering", "ceo"),
    "rota": ("rota", "head:Engineering", "ceo"),
    "incident_lead": ("team:Infrastructure", "rota", "head:Engineering", "ceo"),
    "it_head": ("head:IT", "ceo"),
    "it_lead": ("team:IT Support", "head:IT", "ceo"),
    "security": ("team:Security", "head:IT", "ceo"),
    "people_head": ("head:People", "ceo"),
    "finance_head": ("head:Finance", "ceo"),
    "controller": ("team:Accounting", "head:Finance", "team:Office of the CEO", "ceo"),
    "cs_head": ("head:Customer Success", "head:Sales", "ceo"),
    "legal": ("head:Legal", "ceo"),
    "staff": ("team:Office of the CEO", "head:IT", "ceo"),
}

# (the text module's function, the role that owns the article), in no particular order: numbers
# follow the time each article was first written.
ARTICLES = [
    (texts.discounts, "sales_head"), (texts.deal_desk, "sales_ops"), (texts.loss_reasons, "sales_lead"),
    (texts.severity, "eng_head"), (texts.incident_communication, "incident_lead"), (texts.sla_targets, "it_lead"),
    (texts.on_call_handover, "rota"), (texts.sprint_rules, "eng_lead"), (texts.customer_escalation, "cs_head"),
    (rules.data_sharing, "security"), (rules.access_requests, "it_lead"), (rules.naming, "staff"),
    (rules.refunds, "finance_head"), (rules.leaked_secrets, "security"), (rules.onboarding, "people_head"),
    (rules.expenses, "controller"), (rules.passwords, "it_head"),
    (revenue.month_end, "sales_ops"),
    (ops.approvals_away, "it_lead"), (ops.on_call_cover, "rota"), (ops.desk_statuses, "it_lead"),
    (ops.rota_workbook, "rota"), (ops.chat_channels, "staff"), (ops.customer_history, "cs_head"),
    *deals.ARTICLES, *support.ARTICLES, *it.ARTICLES, *long.ARTICLES,
    *finance.ARTICLES, *changes.ARTICLES, *org_rules.ARTICLES, *accounts.ARTICLES,
    *commissions.ARTICLES, *purchases.ARTICLES,
]


@dataclass
class Ctx:
    """What the articles' texts say about this world: roles, projects, groups, the year."""

    company: str
    year: int
    roles: dict[str, str]  # role -> "the VP of Sales" (the holder's job title)
    desks: list[str]  # service desk project keys
    software: list[str]  # software project keys
    on_call: list[str]  # on-call group names
    has_legal: bool
    budget_editors: bool  # whether a Financial Planning team edits the budgets workbook
    expense_categories: list[str] = field(default_factory=list)

    def r(self, role: str) -> str:
        """The holder of a role, in a sentence: "the VP of Sales"."""
        return self.roles[role]

    def R(self, role: str) -> str:  # noqa: N802 (the capitalised form of r)
        """The holder of a role at the start of a sentence: "The VP of Sales"."""
        return self.roles[role][:1].upper() + self.roles[role][1:]


def _holder(org: Org, made: Tickets, link: str) -> int | None:
    kind, _, name = link.partition(":")
    if kind == "ceo":
        return org.ceo.id
    if kind == "head":
        return org.heads.get(name)
    if kind == "team":  # the team named like the area first (a squad of it otherwise)
        teams = sorted((t for t in org.teams if t.area == name and t.lead_id), key=lambda t: (t.name != name, t.id))
        return teams[0].lead_id if teams else None
    if kind == "first":
        return next((t.lead_id for t in org.teams if t.dept == name and t.lead_id), None)
    if kind == "project":
        return made.projects[name].lead_id if name in made.projects else None
    group = next((g for g in made.groups.values() if g.on_call and g.member_ids), None)  # "rota", as sheets_rota
    return next((t.lead_id for t in org.teams if group and t.id == group.team_id and t.lead_id), None)


def holders(org: Org, made: Tickets) -> dict[str, int]:
    """The person id holding each role of ROLES in this world."""
    found = {}
    for role, chain in ROLES.items():
        found[role] = next(pid for pid in (_holder(org, made, link) for link in chain) if pid is not None)
    return found


def context(org: Org, made: Tickets, people: dict[str, int]) -> Ctx:
    """The world as the articles describe it."""
    projects = list(made.projects.values())
    return Ctx(org.company, org.now.year, {role: f"the {org.person(pid).title}" for role, pid in people.items()},
               [p.key for p in projects if p.kind == "service_desk"],
               [p.key for p in projects if p.kind == "software"],
               [g.name for g in made.groups.values() if g.on_call], "LEGAL" in made.projects,
               any(t.area == "Financial Planning" for t in org.teams), list(EXPENSE_ITEMS))


def _written(rng: Random, end: datetime, floor: datetime, days: int) -> datetime:
    """A working-day time `days` before the end of the history (never before `floor`)."""
    day = max((end - timedelta(days=days)).date(), floor.date() + timedelta(days=1))
    if day.weekday() >= 5:  # a weekend becomes the Monday after
        day += timedelta(days=7 - day.weekday())
    return min(datetime.combine(day, time(rng.randint(9, 16), rng.randint(0, 59))), end - timedelta(hours=1))


def _author(org: Org, owner_id: int, at: datetime, by_admin: bool) -> int:
    """The owner, unless the version was an admin's or the owner had not joined yet (then the
    first admin who had, else the CEO, who owns the workspace)."""
    owner = org.person(owner_id)
    if not by_admin and owner.since <= at:
        return owner_id
    admins = [p for p in org.people if p.role == "admin" and p.since <= at and p.id != owner_id]
    return admins[0].id if admins else org.ceo.id


def build_handbook(session: Session, seed: int, org: Org, made: Tickets) -> int:
    """Write the handbook's articles and every version of them; return how many articles."""
    rng = Random(f"{seed}:handbook")
    people = holders(org, made)
    ctx = context(org, made, people)
    end = history_end(org.now)
    drafts = []
    for k, (write, role) in enumerate(ARTICLES):
        versions = write(ctx)
        owner = people[role]
        times = [_written(rng, end, org.founded, v.days) for v in versions]
        for i in range(1, len(times)):  # each version after the one before (they are weeks apart anyway)
            times[i] = max(times[i], times[i - 1] + timedelta(hours=1))
        authors = [_author(org, owner, at, v.by_admin) for v, at in zip(versions, times)]
        drafts.append((times[0], k, owner, versions, times, authors))
    drafts.sort(key=lambda d: (d[0], d[1]))
    articles, kept = [], []
    for n, (_first, _k, owner, versions, times, authors) in enumerate(drafts):
        newest = versions[-1]
        articles.append({"id": n + 1, "number": article_number(n), "title": newest.title, "category": newest.category,
                         "owner_id": owner, "body": newest.body, "version": len(versions), "created_at": times[0],
                         "updated_at": times[-1]})
        kept += [{"article_id": n + 1, "version": i, "title": v.title, "category": v.category, "body": v.body,
                  "author_id": who, "note": v.note, "created_at": at}
                 for i, (v, at, who) in enumerate(zip(versions, times, authors), start=1)]
    kept.sort(key=lambda v: (v["created_at"], v["article_id"]))
    bulk_insert(session, Article, articles)
    bulk_insert(session, ArticleVersion, [dict(v, id=i) for i, v in enumerate(kept, start=1)])
    return len(articles)
