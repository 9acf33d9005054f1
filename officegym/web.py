"""The browser UI: the app factory, episode routing, one transaction per request, CSRF, and the
one place where service errors become error pages with their HTTP codes.

Views in `apps/<app>/views.py` use `ui()` for their transaction, `back_url()` to go back after a
POST, and the small form parsers of web_request.py; every rule stays in the services.
"""

from __future__ import annotations

import secrets
from hmac import compare_digest

from flask import Flask, abort, flash, g, render_template, request, url_for
from flask import session as browser
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.exceptions import HTTPException

from officegym import web_trajectory
from officegym.answers import last_answer, submit_answer
from officegym.apps.chat.views import bp as chat_bp
from officegym.apps.crm.views import bp as crm_bp
from officegym.apps.org.services import get_person, search_people
from officegym.apps.org.views import bp as org_bp
from officegym.apps.sheets.services import MAX_CSV_CHARS, MAX_XLSX_BYTES
from officegym.apps.sheets.views import bp as sheets_bp
from officegym.apps.tickets.views import bp as tickets_bp
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound, OfficeError
from officegym.failures import translated
from officegym.web_filters import COMMON_EMOJI, emoji_glyph, format_when, linkify_mentions, url_with
from officegym.web_lookups import bp as lookup_bp
from officegym.web_request import arg_int, back_url, see_other, ui
from officegym.web_wording import ui_message

UI_BODY_LIMIT = max(MAX_XLSX_BYTES, 4 * MAX_CSV_CHARS) + 65_536  # an XLSX or a CSV file within the import limits
TOO_LARGE = (f"The form is larger than this server reads ({UI_BODY_LIMIT:,} bytes). CSV imports take at most "
             f"{MAX_CSV_CHARS:,} characters, XLSX files at most {MAX_XLSX_BYTES:,} bytes.")

NOTICE_EPISODES = 8  # episodes of one browser whose notices wait for their next page
ERROR_TITLES = {"NotFound": "Not found", "Forbidden": "Not allowed", "Invalid": "Invalid input", "Conflict": "Conflict"}


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

    @app.before_request
    def episode_notices():
        # Notices ("Message deleted.", "You are now acting as ...") belong to the episode whose page
        # raised them: only its own pages show them, never another episode's open in the same browser.
        browser.pop("_flashes", None)
        if "episode" in g and g.episode.id in browser.get("notices", {}):
            notices = dict(browser["notices"])
            browser["_flashes"] = notices.pop(g.episode.id)
            browser["notices"] = notices

    @app.after_request
    def keep_notices(response):
        left = browser.pop("_flashes", None)
        if left and "episode" in g:
            notices = {key: value for key, value in browser.get("notices", {}).items() if key != g.episode.id}
            browser["notices"] = {**dict(list(notices.items())[-(NOTICE_EPISODES - 1):]), g.episode.id: left}
        return response

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
        g.step_error = message = ui_message(err.message)
        return render_template("error.html", title=ERROR_TITLES.get(type(err).__name__, "Error"),
                               message=message, back=back), err.http_status

    @app.errorhandler(SQLAlchemyError)
    @app.errorhandler(OSError)
    def failure(err: Exception):
        # A database or disk failure outside a page's transaction (finding the episode, say): in words.
        said = translated(err)
        if said is None:
            raise err
        return office_error(said)

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
