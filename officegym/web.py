"""The browser UI: the app factory, episode routing, one transaction per request, CSRF, and the
one place where service errors become error pages with their HTTP codes.

Views in `apps/<app>/views.py` use `ui()` for their transaction, `back_url()` to go back after a
POST, and the small form parsers below; every rule stays in the services.
"""

from __future__ import annotations

import re
import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from hmac import compare_digest
from typing import Iterator
from urllib.parse import urlsplit

from flask import Flask, abort, flash, g, redirect, render_template, request, url_for
from flask import session as browser
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from officegym.answers import last_answer, submit_answer
from officegym.apps.org.models import Person
from officegym.apps.org.services import get_person, search_people, whoami
from officegym.apps.sheets.services import MAX_CSV_CHARS, MAX_XLSX_BYTES
from officegym.episodes import Episode, EpisodeStore
from officegym import web_trajectory
from officegym.web_filters import COMMON_EMOJI, emoji_glyph, format_when, linkify_mentions, url_with
from officegym.errors import Invalid, NotFound, OfficeError
from officegym.pagination import MAX_OFFSET

UI_BODY_LIMIT = max(MAX_XLSX_BYTES, 4 * MAX_CSV_CHARS) + 65_536  # an XLSX or a CSV file within the import limits
TOO_LARGE = (f"The form is larger than this server reads ({UI_BODY_LIMIT:,} bytes). CSV imports take at most "
             f"{MAX_CSV_CHARS:,} characters, XLSX files at most {MAX_XLSX_BYTES:,} bytes.")

ERROR_TITLES = {"NotFound": "Not found", "Forbidden": "Not allowed", "Invalid": "Invalid input", "Conflict": "Conflict"}


@dataclass(frozen=True)
class Me:
    """The acting person as plain values, safe to render after the transaction has closed."""

    id: int
    name: str
    handle: str
    role: str
    now: datetime  # the company's current time when the request began


# ---------------------------------------------------------------- helpers for views

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


def refuse_switch_in_task() -> None:
    """In a task episode the browser is the task's person: switching user is refused (403)."""
    if g.episode.is_task:
        abort(403, "This is a task episode: you act as the task's person and cannot switch user.")


# ---------------------------------------------------------------- template helpers

def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = browser.get("csrf")
    if not token:
        token = browser["csrf"] = secrets.token_urlsafe(32)
    return token


# ---------------------------------------------------------------- the app

def create_app(store: EpisodeStore, secret_key: str | None = None) -> Flask:
    """The UI app serving every episode of `store` under /e/<episode_id>/."""
    from officegym.apps.chat.views import bp as chat_bp
    from officegym.apps.crm.views import bp as crm_bp
    from officegym.apps.org.views import bp as org_bp
    from officegym.apps.sheets.views import bp as sheets_bp
    from officegym.apps.tickets.views import bp as tickets_bp
    from officegym.web_lookups import bp as lookup_bp

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_hex(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="officegym_session",
        MAX_CONTENT_LENGTH=UI_BODY_LIMIT,
    )
    app.extensions["officegym.store"] = store
    app.jinja_env.globals.update(csrf_token=csrf_token, url_with=url_with, common_emoji=COMMON_EMOJI)
    app.jinja_env.filters.update(mentions=linkify_mentions, when=format_when, emoji=emoji_glyph)

    @app.url_value_preprocessor
    def load_episode(endpoint, values):
        if values and "episode_id" in values:
            try:
                g.episode = store.get(values.pop("episode_id"))
            except NotFound:
                abort(404, "No such episode (it may have been deleted). Open the link you were given.")

    @app.url_defaults
    def add_episode(endpoint, values):
        if ("episode_id" not in values and "episode" in g
                and app.url_map.is_endpoint_expecting(endpoint, "episode_id")):
            values["episode_id"] = g.episode.id

    @app.before_request
    def check_csrf():
        if request.method == "POST":
            expected, given = browser.get("csrf", ""), request.form.get("csrf_token", "")
            if not expected or not compare_digest(expected.encode(), given.encode()):
                abort(400, "This form's security token is missing or out of date. Reload the page and submit again.")

    web_trajectory.install(app)

    @app.context_processor
    def common():
        return {"episode": g.get("episode"), "me": g.get("me")}

    @app.after_request
    def headers(response):
        # Episode ids in URLs are capabilities: never send them to another site.
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; frame-ancestors 'none'; form-action 'self'")
        return response

    @app.errorhandler(OfficeError)
    def office_error(err: OfficeError):
        # The transaction has rolled back. Say why, with the error's status, and link back to the
        # page a refused form came from.
        back = back_url() if request.method == "POST" and "episode" in g else None
        g.step_error = err.message
        return render_template("error.html", title=ERROR_TITLES.get(type(err).__name__, "Error"),
                               message=err.message, back=back), err.http_status

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        response = err.get_response()
        if err.code == 413:
            err.description = TOO_LARGE
        g.step_error = err.description
        response.set_data(render_template("error.html", title=err.name, message=err.description))
        response.content_type = "text/html; charset=utf-8"
        return response

    @app.get("/")
    def index():
        return render_template("index.html")

    @app.get("/e/<episode_id>/")
    def home():
        with ui() as (db, actor):
            return render_template("home.html", answer=last_answer(db))

    @app.post("/e/<episode_id>/answer")
    def answer():
        with ui() as (db, actor):
            submit_answer(db, actor, request.form.get("answer", ""))
        flash("Your answer was submitted. You can submit again; the newest answer counts.", "info")
        return see_other(back_url(url_for("home")))

    @app.get("/e/<episode_id>/act-as")
    def act_as_picker():
        refuse_switch_in_task()
        with ui() as (db, actor):
            page = search_people(db, actor, request.args.get("q", ""), None, arg_int("offset", 0), 50)
            return render_template("act_as.html", page=page, q=request.args.get("q", ""))

    @app.post("/e/<episode_id>/act-as")
    def act_as():
        refuse_switch_in_task()
        with ui() as (db, actor):
            person = get_person(db, actor, request.form.get("person", ""))
            chosen, name, handle = person.id, person.name, person.handle
        browser["act_as"] = {**browser.get("act_as", {}), g.episode.id: chosen}
        flash(f"You are now acting as {name} (@{handle}).", "info")
        return see_other(back_url())

    app.register_blueprint(org_bp, url_prefix="/e/<episode_id>/org")
    app.register_blueprint(chat_bp, url_prefix="/e/<episode_id>/chat")
    app.register_blueprint(crm_bp, url_prefix="/e/<episode_id>/crm")
    app.register_blueprint(tickets_bp, url_prefix="/e/<episode_id>/tickets")
    app.register_blueprint(sheets_bp, url_prefix="/e/<episode_id>/sheets")
    app.register_blueprint(lookup_bp, url_prefix="/e/<episode_id>/lookup")
    return app
