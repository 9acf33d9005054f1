"""What every app's views share with the UI's app factory (web.py): the request's transaction and
acting person, where to go after a POST, and parsers of form and query values. Every rule stays in
the services."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Iterator
from urllib.parse import urlsplit

from flask import g, redirect, request, url_for
from flask import session as browser
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import whoami
from officegym.episodes import Episode
from officegym.errors import Invalid
from officegym.pagination import MAX_OFFSET


@dataclass(frozen=True)
class Me:
    """The acting person as plain values, safe to render after the transaction has closed."""

    id: int
    name: str
    handle: str
    role: str
    now: datetime  # the company's current time when the request began


def acting_id(episode: Episode) -> int:
    """Who the browser acts as: the task's actor, or in the free episode the person picked."""
    if episode.is_task:
        return episode.task.actor_id
    return browser.get("act_as", {}).get(episode.id, episode.actor_id)


@contextmanager
def ui() -> Iterator[tuple[Session, Person]]:
    """One transaction for this request on the episode's database, and the acting person in it."""
    with g.episode.session("ui") as db:
        actor, now = whoami(db, g.episode.actor(db, acting_id(g.episode)))
        g.me = Me(actor.id, actor.name, actor.handle, actor.role, now)
        yield db, actor


def safe_target(target: str) -> bool:
    """Only paths inside this episode: no open redirects, no other episodes."""
    return (target.startswith(f"/e/{g.episode.id}/") and "//" not in target and "\\" not in target
            and not any(ord(c) < 32 for c in target))


def back_url(default: str | None = None) -> str:
    """Where to go after a POST: the form's `next`, else the referring page of this episode."""
    target = request.form.get("next", "")
    if safe_target(target):
        return target
    if request.referrer:
        parts = urlsplit(request.referrer)
        local = parts.path + (f"?{parts.query}" if parts.query else "")
        if parts.netloc == request.host and safe_target(local):
            return local
    return default or url_for("home")


def see_other(target: str):
    """The 303 redirect every POST ends with."""
    return redirect(target, 303)


def form_int(name: str, label: str) -> int | None:
    """An optional whole number from the form (None when blank)."""
    raw = request.form.get(name, "").strip()
    return _whole_number(raw, label) if raw else None


def arg_int(name: str, default: int | None = None) -> int | None:
    """A whole number from the query string, e.g. `offset` or `before`."""
    raw = request.args.get(name, "").strip()
    return _whole_number(raw, f"'{name}'") if raw else default


def _whole_number(raw: str, label: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19 or int(raw) > MAX_OFFSET:
        raise Invalid(f"{label} must be a whole number from 0 to {MAX_OFFSET}, got {raw[:40]!r}.")
    return int(raw)


def form_people(name: str) -> list[str]:
    """People picked (checkboxes) or typed (commas or new lines; '@a @b' splits too) under `name`."""
    people: list[str] = []
    for part in re.split(r"[,;\n]", "\n".join(request.form.getlist(name))):
        part = part.strip()
        if part and all(word.startswith("@") for word in part.split()):
            people.extend(part.split())
        elif part:
            people.append(part)
    return people
