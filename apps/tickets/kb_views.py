"""The knowledge base pages: search the handbook, read an article (or an earlier version of it)
with its history, and the forms that write a new article or change one. Views parse, call a
service, render; who may change an article and what a valid one is are decided by knowledge.py.

A refused form is shown again with the service's message and the values as typed: the write runs
in its own transaction, which has rolled back before the form is rendered, so nothing changed."""

from __future__ import annotations

from flask import render_template, url_for

from officegym.errors import OfficeError
from officegym.pagination import window
from officegym.web_request import arg_int, see_other, ui
from officegym.web_wording import ui_message

from . import presenters, services
from .blueprint import PAGE, arg, bp, flash_info, form, render_or_refuse
from .kb_layout import article_blocks
from .knowledge import NOTE, TITLE
from .models import KB_CATEGORIES

FIELDS = ("title", "category", "body", "note", "owner")
LIMITS = {"title": TITLE, "note": NOTE}


def typed() -> dict[str, str]:
    """The article form's fields as typed. Browsers send a textarea's line breaks as CRLF: the body
    keeps plain newlines, as the MCP tools send it, so an untouched body stays equal."""
    values = {name: form(name) for name in FIELDS}
    values["body"] = values["body"].replace("\r\n", "\n")
    return values


@bp.get("/kb")
def kb_list():
    """The knowledge base: articles matching the words and category searched for, in pages."""
    words, category = arg("q"), arg("category")
    with ui() as (db, actor):
        try:
            page = window(services.search_articles(db, actor, words, category or None), arg_int("offset", 0), PAGE)
            rows, error = presenters.articles_out(db, page.items), None
        except OfficeError as refused:
            page, rows, error = None, [], ui_message(refused.message)
        return render_or_refuse("tickets/kb_list.html", error, page=page, rows=rows, words=words,
                                category=category, categories=KB_CATEGORIES)


@bp.get("/kb/<number>")
def kb_article(number: str):
    """One article: its fields and body (of the current version, or of ?version=N) and its history."""
    with ui() as (db, actor):
        found = services.get_article(db, actor, number)
        shown = presenters.article_detail_out(db, actor, found, arg_int("version"))
        others = [(a.number, a.title) for a in services.search_articles(db, actor) if a.id != found.id]
        return render_template("tickets/kb_article.html", article=shown, blocks=article_blocks(shown.body, others))


def _form(article, values: dict[str, str], error: str | None = None, status: int = 200):
    """The article form (new when `article` is None), filled with `values`, with an error to show."""
    return render_template("tickets/kb_form.html", article=article, values=values, error=error,
                           categories=KB_CATEGORIES, limits=LIMITS), status


def _refused(number: str | None, values: dict[str, str], refused: OfficeError):
    """The form again after a refused write (whose transaction has rolled back), as it was typed."""
    with ui() as (db, actor):
        article = services.get_article(db, actor, number) if number else None
        return _form(article, values, ui_message(refused.message), refused.http_status)


@bp.get("/kb/new")
def kb_new():
    """The form to write a new article (fields may be pre-filled from the query string)."""
    with ui():
        return _form(None, {name: arg(name) for name in FIELDS})


@bp.post("/kb/new")
def kb_create():
    """Write a new article from the form (the actor owns it) and open it."""
    values = typed()
    try:
        with ui() as (db, actor):
            made = services.create_article(db, actor, values["title"], values["category"], values["body"],
                                           values["note"])
            number = made.number
    except OfficeError as refused:
        return _refused(None, values, refused)
    flash_info(f"Created {number} (version 1).")
    return see_other(url_for("tickets.kb_article", number=number))


@bp.get("/kb/<number>/edit")
def kb_edit(number: str):
    """The edit form, filled with the article's current values (everyone sees it; only the owner
    or an admin may save it, and the service says so to anyone else)."""
    with ui() as (db, actor):
        found = services.get_article(db, actor, number)
        values = {"title": found.title, "category": found.category, "body": found.body, "note": "", "owner": ""}
        return _form(found, values)


@bp.post("/kb/<number>/edit")
def kb_update(number: str):
    """Save the edit form as a new version; a blank owner keeps the owner."""
    values = typed()
    try:
        with ui() as (db, actor):
            changed = services.update_article(db, actor, number, title=values["title"], category=values["category"],
                                              body=values["body"], owner=values["owner"].strip() or None,
                                              note=values["note"])
            done, version = changed.number, changed.version
    except OfficeError as refused:
        return _refused(number, values, refused)
    flash_info(f"Saved {done} as version {version}.")
    return see_other(url_for("tickets.kb_article", number=done))
