"""The org part of a world: company, departments, teams and people (with managers, titles,
offices and workspace roles). Returns an `Org` that the other generators build on."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random

from faker import Faker
from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from officegym.apps.org.models import Department, Person, Team

from . import scale_vocab, vocab
from .bulk import bulk_insert


@dataclass
class PersonRec:
    """A generated person, before and after insertion (ids are final)."""

    id: int
    name: str
    first: str
    last: str
    handle: str
    email: str
    title: str
    dept: str  # department name
    team: str | None  # team name
    rank: str  # ceo, head, lead or member
    location: str
    timezone: str
    since: datetime  # when they joined the company
    manager_id: int | None = None
    role: str = "member"


@dataclass
class TeamRec:
    """A generated team with its members (lead included)."""

    id: int
    name: str
    slug: str
    dept: str
    focus: str
    titles: list[str]
    lead_id: int = 0
    member_ids: list[int] = field(default_factory=list)
    area: str = ""  # the vocabulary team it belongs to: its own name, or the area a squad was split from
    region: str | None = None  # the sales region its people cover (na, emea, apac), if any
    parent: "TeamRec | None" = None  # a squad's lead reports to the lead of this team (else to the head)

    def __post_init__(self) -> None:
        self.area = self.area or self.name


@dataclass
class Org:
    """Everything later generators need to know about the company."""

    company: str
    domain: str
    product: str
    hq: str
    now: datetime
    founded: datetime
    window_start: datetime  # start of the recent history that chat (and others) fill
    people: list[PersonRec]
    heads: dict[str, int]  # department name -> head id
    teams: list[TeamRec]
    customers: list[str]
    candidates: list[str]
    new_hires: list[int]
    # project key -> (filed at, ticket key) of the seeded tickets, for chat to mention real ones
    ticket_keys: dict[str, list[tuple[datetime, str]]] = field(default_factory=dict)
    _areas: dict[str, str] | None = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    def cached(self, key, compute):
        """A value computed once per world (the generators ask for some lists again and again)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def ceo(self) -> PersonRec:
        """The chief executive (workspace owner)."""
        return self.people[self.heads["Executive"] - 1]

    def person(self, pid: int) -> PersonRec:
        """A person by id (ids are 1..N)."""
        return self.people[pid - 1]

    def in_dept(self, dept: str) -> list[PersonRec]:
        """Everyone in a department, head included."""
        return [p for p in self.people if p.dept == dept]

    def team(self, name: str) -> TeamRec:
        """A team by name."""
        return next(t for t in self.teams if t.name == name)

    def area_of(self, person: PersonRec) -> str | None:
        """The vocabulary team (area) a person works in: their team's name, or the area their squad
        was split from in a company big enough for squads."""
        if person.team is None:
            return None
        if self._areas is None:
            self._areas = {t.name: t.area for t in self.teams}
        return self._areas[person.team]


def slugify(text: str) -> str:
    """Lowercase ASCII words joined by dashes ("Brand and Content" -> "brand-and-content")."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def _allocate(spec, depts: list[dict], rng: Random) -> dict[str, int]:
    """Headcount per department: the minimums, then the rest by weight (largest remainder)."""
    counts = {d["name"]: d["minimum"] for d in depts}
    counts["Executive"] = max(2, spec.people // 15) if spec.people < 200 else 2 + spec.people // 250
    rest = spec.people - sum(counts.values())
    weighted = [d for d in depts if d["weight"]]
    total = sum(d["weight"] for d in weighted)
    shares = [(rest * d["weight"] / total, d["name"]) for d in weighted]
    for share, name in shares:
        counts[name] += int(share)
    leftovers = sorted(shares, key=lambda s: (-(s[0] - int(s[0])), s[1]))
    for _share, name in leftovers[: spec.people - sum(counts.values())]:
        counts[name] += 1
    return counts


def _slots(spec, rng: Random) -> tuple[list[dict], list[TeamRec]]:
    """One slot (rank, department, team, title) per person, CEO first, and the teams."""
    depts = [d for d in vocab.DEPARTMENTS if spec.departments is None or d["name"] in spec.departments]
    counts = _allocate(spec, depts, rng)
    slots: list[dict] = []
    teams: list[TeamRec] = []
    for dept in depts:
        name = dept["name"]
        slots.append({"rank": "ceo" if name == "Executive" else "head", "dept": name, "team": None, "title": dept["head"]})
        staff = counts[name] - 1
        if spec.squads:
            _squad_slots(spec, dept, staff, rng, slots, teams)
            continue
        n_teams = max(1, min(len(dept["teams"]), spec.max_teams, round(staff / spec.team_size)))
        for i, info in enumerate(dept["teams"][:n_teams]):
            size = staff // n_teams + (1 if i < staff % n_teams else 0)
            team = TeamRec(0, info["name"], slugify(info["name"]), name, info["focus"], info["titles"])
            teams.append(team)
            slots.append({"rank": "lead", "dept": name, "team": team, "title": info["lead"], "region": info.get("region")})
            for _ in range(size - 1):
                level = min(len(info["titles"]) - 1, int(rng.random() ** 1.6 * len(info["titles"])))
                slots.append({"rank": "member", "dept": name, "team": team, "title": info["titles"][level],
                              "region": info.get("region")})
    return slots, teams


def _squad_name(area: dict, dept: str, k: int, taken: set[str]) -> str:
    """The k-th squad of an area: the area's own name first, then "<area> <qualifier>"."""
    if k == 0:
        return area["name"]
    qualifiers = scale_vocab.SQUADS_BY_AREA.get(area["name"]) or scale_vocab.SQUADS_BY_DEPARTMENT.get(dept, [])
    for qualifier in qualifiers[k - 1:]:
        name = f"{area['name']} {qualifier}"
        if name not in taken:
            return name
    n = k
    while f"{area['name']} Pod {n}" in taken:
        n += 1
    return f"{area['name']} Pod {n}"


def _squad_slots(spec, dept: dict, staff: int, rng: Random, slots: list[dict], teams: list[TeamRec]) -> None:
    """A department of a big company: teams of about `team_size` people, spread over the department's
    areas (its vocabulary teams, first ones first). Within an area, the first squad keeps the area's
    name and its lead manages the leads of the next squads, who manage the next ones (a tree with
    SQUAD_FANOUT branches), so the org chart is deep rather than wide."""
    name = dept["name"]
    n_teams = max(1, round(staff / spec.team_size))
    areas = dept["teams"][:max(1, min(len(dept["teams"]), spec.max_teams, n_teams))]
    per_area = [n_teams // len(areas) + (1 if i < n_teams % len(areas) else 0) for i in range(len(areas))]
    taken = {t.name for t in teams}
    k_team = 0
    for info, count in zip(areas, per_area):
        squads: list[TeamRec] = []
        for k in range(count):
            squad = _squad_name(info, name, k, taken)
            taken.add(squad)
            parent = squads[(k - 1) // scale_vocab.SQUAD_FANOUT] if k else None
            focus = info["focus"] if k == 0 else f"{info['focus']} ({squad[len(info['name']) + 1:]})"
            team = TeamRec(0, squad, slugify(squad), name, focus, info["titles"], area=info["name"],
                           region=info.get("region"), parent=parent)
            squads.append(team)
            teams.append(team)
            size = max(1, staff // n_teams + (1 if k_team < staff % n_teams else 0))
            k_team += 1
            lead_title = info["lead"] if k == 0 else f"{scale_vocab.SQUAD_LEADS.get(name, 'Team Lead')}, {squad}"
            slots.append({"rank": "lead", "dept": name, "team": team, "title": lead_title, "region": info.get("region")})
            for _ in range(size - 1):
                level = min(len(info["titles"]) - 1, int(rng.random() ** 1.6 * len(info["titles"])))
                slots.append({"rank": "member", "dept": name, "team": team, "title": info["titles"][level],
                              "region": info.get("region")})


def _namesakes(slots: list[dict], rng: Random, count: int) -> None:
    """Near-duplicate names for a big directory: every other pair is an exact namesake in another
    department, the rest a spelling variant ("Jon Smith" and "John Smith"). The CEO keeps their name."""
    people = [i for i, s in enumerate(slots) if s["rank"] != "ceo"]
    for k in range(count):
        a = rng.choice(people)
        first, last = slots[a]["name"]
        if k % 2 == 0:
            twin = (first, last)
        elif first in scale_vocab.FIRST_VARIANTS:
            twin = (scale_vocab.FIRST_VARIANTS[first], last)
        elif last in scale_vocab.LAST_VARIANTS:
            twin = (first, scale_vocab.LAST_VARIANTS[last])
        else:
            variants = [i for i in people if slots[i]["name"][0] in scale_vocab.FIRST_VARIANTS]
            if not variants:
                continue
            a = rng.choice(variants)
            first, last = slots[a]["name"]
            twin = (scale_vocab.FIRST_VARIANTS[first], last)
        others = [i for i in people if slots[i]["dept"] != slots[a]["dept"]] or [i for i in people if i != a]
        slots[rng.choice(others)]["name"] = twin


def _names(fake: Faker, rng: Random, n: int) -> list[tuple[str, str]]:
    """`n` distinct (first, last) names, some sharing a first name or surname with another person,
    and (from 40 people on) one exact namesake, so that search by name needs care."""
    names: list[tuple[str, str]] = []
    while len(names) < n:
        pair = (fake.first_name(), fake.last_name())
        if pair not in names and all(c.isalpha() or c in "'- " for c in pair[0] + pair[1]):
            names.append(pair)
    shared = max(2, n // 12)
    for k in range(shared):
        a, b = rng.sample(range(1, n), 2)  # never rename the CEO (index 0)
        first, last = names[a]
        candidate = (names[b][0], last) if k % 2 == 0 else (first, names[b][1])
        if candidate not in names:
            names[a] = candidate
    if n >= 40:
        a, b = rng.sample(range(1, n), 2)
        names[b] = names[a]
    return names


def _handle(first: str, last: str, taken: set[str]) -> str:
    """`first.last` in lowercase ASCII, with a number appended on collision."""
    def clean(part: str) -> str:
        return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", part).encode("ascii", "ignore").decode().lower())

    base = f"{clean(first) or 'user'}.{clean(last) or 'person'}"
    handle, n = base, 1
    while handle in taken:
        n += 1
        handle = f"{base}{n}"
    taken.add(handle)
    return handle


def _place(slot: dict, hq: str, rng: Random) -> str:
    """Office of a person: their team's region, else mostly HQ."""
    if slot.get("region"):
        return rng.choice(vocab.REGIONS[slot["region"]])
    if slot["rank"] in ("ceo", "head") or rng.random() < 0.55:
        return hq
    return rng.choice(vocab.REGIONS["na"] if rng.random() < 0.7 else vocab.REGIONS["emea"])


def build_org(session: Session, spec, seed: int, now: datetime) -> Org:
    """Generate and insert departments, teams and people; return the `Org` description."""
    rng = Random(f"{seed}:org")
    fake = Faker("en_US")
    fake.seed_instance(seed)
    prefix, suffix = rng.choice(vocab.COMPANY_PREFIXES), rng.choice(vocab.COMPANY_SUFFIXES)
    company = f"{prefix}{suffix} {rng.choice(vocab.COMPANY_KINDS)}"
    domain = f"{prefix}{suffix}.{rng.choice(vocab.COMPANY_TLDS)}".lower()
    hq = rng.choice(vocab.HQ_CITIES)
    founded = (now - timedelta(days=rng.randint(5 * 365, 8 * 365))).replace(hour=10, minute=0)
    window_start = (now - timedelta(days=spec.days)).replace(hour=0, minute=0)

    slots, teams = _slots(spec, rng)
    names = _names(fake, rng, len(slots))
    history = (window_start - founded).days
    for i, slot in enumerate(slots):
        rank = slot["rank"]
        days = 0 if rank == "ceo" else rng.randint(20, history // 3 if rank == "head" else history - 10)
        slot["since"] = (founded + timedelta(days=days)).replace(hour=9)
        slot["name"] = names[i]
    if spec.namesakes:
        _namesakes(slots, rng, spec.namesakes)
    members = [i for i, s in enumerate(slots) if s["rank"] == "member" and s["dept"] != "Executive"]
    new_hire_slots = sorted(rng.sample(members, min(spec.new_hires, len(members))))
    for k, i in enumerate(new_hire_slots):
        day = window_start + timedelta(days=int((k + 1) * spec.days / (len(new_hire_slots) + 1)))
        day -= timedelta(days=day.weekday())  # new people start on a Monday
        slots[i]["since"] = max(day, window_start).replace(hour=9)

    # Ids follow hire order, like a real directory; ties keep the slot order.
    order = sorted(range(len(slots)), key=lambda i: (slots[i]["since"], i))
    taken: set[str] = set()
    people: list[PersonRec] = []
    for pid, i in enumerate(order, start=1):
        slot = slots[i]
        first, last = slot["name"]
        handle = _handle(first, last, taken)
        city = _place(slot, hq, rng)
        team = slot["team"]
        people.append(PersonRec(pid, f"{first} {last}", first, last, handle, f"{handle}@{domain}", slot["title"],
                                slot["dept"], team.name if team else None, slot["rank"], city, vocab.LOCATIONS[city],
                                slot["since"]))
        slot["id"] = pid
        if team is not None:
            team.member_ids.append(pid)
            if slot["rank"] == "lead":
                team.lead_id = pid
    heads = {s["dept"]: s["id"] for s in slots if s["rank"] in ("ceo", "head")}
    ceo_id = heads["Executive"]
    for team in teams:
        team.member_ids.sort()
    by_name = {t.name: t for t in teams}
    for p in people:
        if p.rank == "head":
            p.manager_id = ceo_id
        elif p.rank == "lead":
            parent = by_name[p.team].parent
            p.manager_id = parent.lead_id if parent else heads[p.dept]
        elif p.rank == "member":
            p.manager_id = by_name[p.team].lead_id
    people[ceo_id - 1].role = "owner"
    it_team = next((t for t in teams if t.name == "IT Support"), None)
    admins = [heads["IT"]] + ([it_team.lead_id] if it_team else [])
    admins += [t.lead_id for t in teams if t.name == "Security"] if spec.people >= 200 else []
    for pid in admins:
        people[pid - 1].role = "admin"

    customers: list[str] = []
    while len(customers) < spec.customers:
        name = fake.company()
        if name not in customers:
            customers.append(name)
    candidates = [fake.name() for _ in range(max(6, spec.people // 20))]
    org = Org(company, domain, rng.choice(vocab.PRODUCT_LINES), hq, now, founded, window_start, people, heads, teams,
              customers, candidates, [slots[i]["id"] for i in new_hire_slots])
    _insert(session, org)
    return org


def _insert(session: Session, org: Org) -> None:
    """Bulk-insert the directory; circular references (heads, leads, managers) are set after."""
    dept_ids = {name: i for i, name in enumerate(dict.fromkeys(p.dept for p in sorted(org.people, key=_dept_order)), 1)}
    session.execute(insert(Department), [{"id": i, "name": n, "slug": slugify(n), "head_id": None}
                                         for n, i in dept_ids.items()])
    for i, team in enumerate(org.teams, start=1):
        team.id = i
    session.execute(insert(Team), [{"id": t.id, "name": t.name, "slug": t.slug, "department_id": dept_ids[t.dept],
                                    "lead_id": None} for t in org.teams])
    team_ids = {t.name: t.id for t in org.teams}
    bulk_insert(session, Person, [
        {"id": p.id, "name": p.name, "handle": p.handle, "email": p.email, "title": p.title,
         "department_id": dept_ids[p.dept], "team_id": team_ids.get(p.team), "manager_id": None,
         "location": p.location, "timezone": p.timezone, "role": p.role} for p in org.people])
    session.execute(update(Person), [{"id": p.id, "manager_id": p.manager_id} for p in org.people if p.manager_id])
    session.execute(update(Department), [{"id": dept_ids[d], "head_id": pid} for d, pid in org.heads.items()])
    session.execute(update(Team), [{"id": t.id, "lead_id": t.lead_id} for t in org.teams])


def _dept_order(p: PersonRec) -> int:
    return [d["name"] for d in vocab.DEPARTMENTS].index(p.dept)
