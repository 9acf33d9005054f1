"""Turning vocab scenes into messages: who says what, with every `{placeholder}` filled by a real
person, team, project or customer of the generated company."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random

from . import vocab
from .chat_voice import first_name, voice_of
from .org import Org, PersonRec, slugify
from .roster import Roster

# A line may start with the speaker's role, e.g. "it: ...". Everything else is said by someone
# plausible in the channel.
ROLES = ("asker", "ceo", "head", "it", "lead", "new", "owner", "partner", "sec")
ROLE_PREFIX = re.compile(r"^(%s): " % "|".join(ROLES))
PLACEHOLDER = re.compile(r"\{(\w+)\}")
OFFSITE_CITIES = ["Lisbon", "Lake Tahoe", "Napa", "Barcelona", "Banff", "Austin"]


@dataclass
class Where:
    """The channel a scene happens in, as the text generator needs it."""

    member_ids: list[int]
    dept: str | None = None  # department the channel belongs to (team channels)
    lead_id: int | None = None  # the team lead or project owner
    owner_id: int | None = None  # who runs the channel (project owner, creator)
    project: tuple[str, str] | None = None  # (codename, description) of a project channel
    team: str | None = None  # the team of a team channel
    # Who is in the channel, for quick checks (member_ids never change once a scene has used them)
    _ids: frozenset[int] | None = field(default=None, init=False, repr=False, compare=False)
    _roster: Roster | None = field(default=None, init=False, repr=False, compare=False)

    def joined(self, org: Org) -> tuple[frozenset[int], Roster]:
        """The member ids as a set, and who of them had joined the company by a given time."""
        if self._ids is None:
            self._ids = frozenset(self.member_ids)
            self._roster = Roster(self.member_ids, lambda i: org.person(i).since)
        return self._ids, self._roster


@dataclass
class Line:
    """One generated message: its author, text and time; replies point at their thread's top."""

    author_id: int
    text: str
    at: datetime
    reply_to: "Line | None" = None
    reactions: list[tuple[int, str]] = field(default_factory=list)
    pinned: bool = False


class Scene:
    """Fills one scene's placeholders; values stay the same across the scene's lines."""

    def __init__(self, org: Org, where: Where, rng: Random, at: datetime, projects: list[tuple[str, str]],
                 new_hire: PersonRec | None = None):
        self.org, self.where, self.rng, self.at, self.projects = org, where, rng, at, projects
        self.new = new_hire
        self.values: dict[str, str] = {}
        self.people: dict[str, PersonRec] = {}
        self.prev: PersonRec | None = None
        self._here: list[int] | None = None

    # ---- people in roles
    def present(self, exclude: set[int] = frozenset()) -> list[int]:
        """Channel members who had joined by the scene's time, minus `exclude`."""
        if self._here is None:  # the scene's time never changes: compute who is there once
            _ids, roster = self.where.joined(self.org)
            self._here = roster.at(self.at)
        return [i for i in self._here if i not in exclude]

    def is_present(self, pid: int) -> bool:
        """Whether one person is a member who had joined by the scene's time."""
        ids, _roster = self.where.joined(self.org)
        return pid in ids and self.org.person(pid).since <= self.at

    def someone(self, exclude: set[int] = frozenset()) -> PersonRec:
        """A random present member (falling back to anyone present)."""
        options = self.present(exclude) or self.present()
        return self.org.person(self.rng.choice(options))

    def role(self, name: str) -> PersonRec:
        """The person playing `name` in this scene (asker and partner are set by the scene)."""
        if name not in self.people:
            pid = self._role_id(name)
            if pid is None or not self.is_present(pid):
                exclude = {p.id for p in self.people.values()}
                self.people[name] = self.someone(exclude)
            else:
                self.people[name] = self.org.person(pid)
        return self.people[name]

    def _role_id(self, name: str) -> int | None:
        org, where, asker = self.org, self.where, self.people.get("asker")
        if name == "ceo":
            return org.ceo.id
        if name == "head":
            dept = where.dept or (asker.dept if asker else None)
            return org.heads.get(dept) if dept else None
        if name == "lead":
            if where.lead_id:
                return where.lead_id
            team = org.team(asker.team) if asker and asker.team else None
            return team.lead_id if team else None
        if name == "owner":
            return where.owner_id
        if name == "new":
            return self.new.id if self.new else None
        if name in ("it", "sec"):
            return self.rng.choice(self._specialists(name)) if self._specialists(name) else None
        return None  # asker and partner are random members

    def _specialists(self, name: str) -> list[int]:
        """IT support people (or security people) in the scene; a team split into squads counts whole."""
        area = "IT Support" if name == "it" else "Security"
        ids = [i for t in self.org.teams if t.area == area for i in t.member_ids]
        if not ids and name == "sec":
            ids = [i for t in self.org.teams if t.area == "IT Support" for i in t.member_ids]
        return [i for i in ids if self.is_present(i)]

    def partner(self) -> PersonRec:
        """The colleague a scene talks to (`@{m1}`)."""
        if "partner" not in self.people:
            self.people["partner"] = self.someone({p.id for p in self.people.values()})
        return self.people["partner"]

    # ---- text
    def fill(self, template: str) -> str:
        """The template with every placeholder replaced (nested ones too)."""
        for _ in range(3):
            if "{" not in template:
                break
            template = PLACEHOLDER.sub(lambda m: self.value(m.group(1)), template)
        return template

    def value(self, key: str) -> str:
        """The text for one placeholder."""
        if key == "prev":
            return (self.prev or self.role("asker")).handle
        if key not in self.values:
            self.values[key] = self._compute(key)
        return self.values[key]

    def _compute(self, key: str) -> str:
        rng, org, at = self.rng, self.org, self.at
        people = {"asker": lambda: self.role("asker").handle, "m1": lambda: self.partner().handle,
                  "m1_first": lambda: self.partner().first,
                  "m2": lambda: self.someone({p.id for p in self.people.values()}).handle,
                  "lead": lambda: self._approver().handle, "head": lambda: self.role("head").handle,
                  "it_person": lambda: self._it_person().handle}
        if key in people:
            return people[key]()
        if key.startswith("new"):
            new = self.new or self.role("asker")
            return {"new": new.handle, "new_first": new.first, "new_title": new.title,
                    "new_team": new.team or new.dept, "new_city": new.location}[key]
        project = self.where.project or rng.choice(self.projects)
        quarter = (at.month - 1) // 3 + 1
        simple = {
            "customer": lambda: rng.choice(org.customers), "customer2": lambda: rng.choice(org.customers),
            "date": lambda: _day(at + timedelta(days=rng.randint(3, 30))),
            "past_date": lambda: _day(at - timedelta(days=rng.randint(3, 20))),
            "project": lambda: project[0].title(), "project_desc": lambda: project[1],
            "weekday": lambda: rng.choice(vocab.WEEKDAYS), "time": lambda: rng.choice(vocab.TIMES),
            "num": lambda: str(rng.randint(2, 12)), "big": lambda: str(rng.randint(120, 900)),
            "pct": lambda: str(rng.randint(5, 40)), "csat": lambda: str(rng.randint(88, 99)),
            "amount": lambda: f"${rng.randint(20, 400)}k", "pr": lambda: str(rng.randint(1200, 4800)),
            "jira": lambda: self._ticket("ENG"), "ticket": lambda: self._ticket("IT"),
            "version": lambda: f"v{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}",
            "quarter": lambda: f"Q{(quarter - 2) % 4 + 1}", "next_quarter": lambda: f"Q{quarter % 4 + 1}",
            "service": lambda: rng.choice(vocab.SERVICES), "service2": lambda: rng.choice(vocab.SERVICES),
            "tool": lambda: rng.choice(vocab.TOOLS), "metric": lambda: rng.choice(vocab.METRICS),
            "room": lambda: rng.choice(vocab.ROOMS), "lunch": lambda: rng.choice(vocab.LUNCH),
            "snack": lambda: rng.choice(vocab.SNACKS), "show": lambda: rng.choice(vocab.SHOWS),
            "sport": lambda: rng.choice(vocab.SPORTS), "weekend": lambda: rng.choice(vocab.WEEKENDS),
            "book": lambda: rng.choice(vocab.BOOKS), "pet": lambda: rng.choice(vocab.PETS),
            "device": lambda: rng.choice(vocab.DEVICES), "city": lambda: rng.choice(sorted(vocab.LOCATIONS)),
            "offsite_city": lambda: rng.choice(OFFSITE_CITIES), "hq": lambda: org.hq,
            "team": lambda: self.where.team or rng.choice(org.teams).name, "candidate": lambda: rng.choice(org.candidates),
            "role": lambda: rng.choice(org.cached("member titles", lambda: [p.title for p in org.people
                                                                             if p.rank == "member"]) or ["Analyst"]),
            "work": lambda: self._work(), "work2": lambda: self._work(),
            "blocker": lambda: rng.choice(vocab.BLOCKERS),
        }
        if key not in simple:
            raise KeyError(f"unknown placeholder {{{key}}} in seed_data.vocab")
        return simple[key]()

    def _ticket(self, project: str) -> str:
        """A real ticket of the project filed before the scene (a made-up key in a world without one)."""
        filed = self.org.ticket_keys.get(project, [])
        times = self.org.cached(("ticket times", project), lambda: [at for at, _key in filed])
        keys = self.org.cached(("ticket keys", project), lambda: [key for _at, key in filed])
        earlier = keys[:bisect_right(times, self.at)] or keys[:1]  # filed in time order
        return self.rng.choice(earlier) if earlier else f"{project}-{self.rng.randint(100, 999)}"

    def _approver(self) -> PersonRec:
        """The lead who signs off on the asker's request: their lead, or their head if they lead."""
        lead = self.role("lead")
        return self.role("head") if lead is self.people.get("asker") else lead

    def _work(self) -> str:
        speaker = self.people.get("asker")
        dept = slugify(speaker.dept if speaker else (self.where.dept or "Engineering"))
        return self.rng.choice(vocab.WORK.get(dept, vocab.WORK["engineering"]))

    def _it_person(self) -> PersonRec:
        team = next((t for t in self.org.teams if t.name == "IT Support"), None)
        return self.org.person(team.lead_id if team else self.org.heads.get("IT", self.org.ceo.id))


# Facts of one real opportunity, set by seed_data.chat_deals on the scene before it is rendered
# (a template using them anywhere else fails loudly in Scene._compute).
DEAL_PLACEHOLDERS = frozenset({"account", "deal_amount", "stage", "competitor", "loss_reason", "close_date",
                               "discount", "manager", "deal_owner"})
PLACEHOLDERS = DEAL_PLACEHOLDERS | frozenset({
    "prev", "asker", "m1", "m1_first", "m2", "lead", "head", "it_person", "new", "new_first", "new_title",
    "new_team", "new_city", "customer", "customer2", "date", "past_date", "project", "project_desc", "weekday",
    "time", "num", "big", "pct", "csat", "amount", "pr", "jira", "ticket", "version", "quarter", "next_quarter",
    "service", "service2", "tool", "metric", "room", "lunch", "snack", "show", "sport", "weekend", "book", "pet",
    "device", "city", "offsite_city", "hq", "team", "candidate", "role", "work", "work2", "blocker"})


def history_end(now: datetime) -> datetime:
    """When seeded history stops: 18:00 on the Friday before the company's "now" (a Monday)."""
    return (now - timedelta(days=now.weekday() + 3)).replace(hour=18, minute=0, second=0, microsecond=0)


def _day(when: datetime) -> str:
    """A date as people write it: "March 24"."""
    return f"{when.strftime('%B')} {when.day}"


def speaker_and_text(scene: Scene, raw: str, default: PersonRec) -> tuple[PersonRec, str]:
    """Split an optional "role: " prefix off a line and say who speaks it."""
    match = ROLE_PREFIX.match(raw)
    if not match:
        return default, raw
    role = match.group(1)
    person = scene.partner() if role == "partner" else scene.role(role)
    return person, raw[match.end():]


def render_scene(scene: Scene, spec: dict, default_by: str | None) -> list[Line]:
    """The lines of one channel scene: the top message, its thread replies, reactions and pin."""
    rng = scene.rng
    by = spec.get("by", default_by)
    top_text = spec["top"] if isinstance(spec["top"], str) else rng.choice(spec["top"])
    if by and by != "any":
        author = scene.role(by)
        scene.people.setdefault("asker", author)
    else:
        author = scene.role("asker")
    top = Line(author.id, scene.fill(top_text), scene.at, pinned=bool(spec.get("pin")))
    lines = [top]
    replies = list(spec.get("replies", []))
    if replies:
        count = max(rng.randint(1, len(replies)), rng.randint(1, len(replies)))
        chosen = rng.sample(replies, min(count, 4)) if spec.get("pool") else replies[:count]
        when, scene.prev = scene.at, author
        for raw in chosen:
            when += timedelta(minutes=rng.randint(1, 40), seconds=rng.randint(0, 59))
            busy = {scene.prev.id, author.id} if len(scene.present()) > 2 else {scene.prev.id}
            speaker, text = speaker_and_text(scene, raw, scene.someone(busy))
            said = voice_of(scene.org, speaker.id).reply(scene.fill(text), first_name(scene.org, author.id))
            lines.append(Line(speaker.id, said, when, reply_to=top))
            scene.prev = speaker
    _react(scene, top, spec.get("react"), vocab.EMOJI[spec.get("emoji", "default")])
    for reply in lines[1:]:
        if rng.random() < 0.15:
            _react(scene, reply, "one", vocab.EMOJI["ack"])
    return lines


def _react(scene: Scene, line: Line, how: str | None, emoji: list[str]) -> None:
    rng = scene.rng
    crowd = scene.present({line.author_id})
    if how == "many":
        count = rng.randint(4, 10)
    elif how == "some":
        count = rng.randint(1, 3)
    elif how == "one" or rng.random() < 0.3:
        count = 1
    else:
        return
    for pid in rng.sample(crowd, min(count, len(crowd))):
        picks = rng.sample(emoji, 2 if rng.random() < 0.15 else 1)
        line.reactions.extend((pid, e) for e in picks)
