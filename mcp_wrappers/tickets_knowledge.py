"""Tickets tools, part 3: the knowledge base — the company handbook's policies and runbooks.

Each tool calls one function of officegym.apps.tickets.services and presents the result with
officegym.apps.tickets.presenters. Everyone reads every article; its owner (or an admin) changes it,
and each change is kept as a new version.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.tickets import presenters, schemas, services
from officegym.apps.tickets.knowledge import BODY, MAX_QUERY, NOTE, TITLE
from officegym.apps.tickets.models import KB_CATEGORIES

from .base import IdOrName, Int, Limit, Offset, episode_call, page_of, tool
from .tickets import Text

CATEGORY = f"One of: {', '.join(KB_CATEGORIES)}"
ArticleRef = Annotated[IdOrName, Field(description=(
    "The article: its number (such as KB0010001), exact title or id (tickets_search_articles finds them)"))]


@tool(read_only=True)
def tickets_search_articles(
    ctx: Context,
    query: Text(MAX_QUERY, "Words that must all appear in the title or the body (case aside); empty lists every "
                           "article") = "",
    category: Text(30, f"Only articles of this category. {CATEGORY}", True) = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ArticlePage:
    """Search the knowledge base (the company handbook: policies and runbooks). Articles with a word of the
    query in their title come first, then by number; get one with tickets_get_article to read its body."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.search_articles(session, actor, query, category), offset, limit)
        return presenters.page_out(schemas.ArticlePage, presenters.articles_out(session, page.items), page)


@tool(read_only=True)
def tickets_get_article(
    ctx: Context,
    article: ArticleRef,
    version: Annotated[Int | None, Field(description="An earlier version to read (the list of versions comes with "
                                                     "the article); omit for the current one")] = None,
) -> schemas.ArticleDetailOut:
    """Read a knowledge base article: its body as of its current version (or an earlier one), its owner and
    the history of its versions (who changed it, when and why)."""
    with episode_call(ctx) as (session, actor):
        found = services.get_article(session, actor, article)
        return presenters.article_detail_out(session, actor, found, version)


@tool()
def tickets_create_article(
    ctx: Context,
    title: Text(TITLE, "Title, unique in the knowledge base"),
    category: Text(30, CATEGORY),
    body: Text(BODY, "The article's text"),
    note: Text(NOTE, "Why it was written (kept with version 1)") = "",
) -> schemas.ArticleDetailOut:
    """Write a new knowledge base article (anyone may); you become its owner."""
    with episode_call(ctx) as (session, actor):
        made = services.create_article(session, actor, title, category, body, note)
        return presenters.article_detail_out(session, actor, made)


@tool()
def tickets_update_article(
    ctx: Context,
    article: ArticleRef,
    title: Text(TITLE, "New title; omit to keep it", True) = None,
    category: Text(30, f"New category; omit to keep it. {CATEGORY}", True) = None,
    body: Text(BODY, "New text (the whole body); omit to keep it", True) = None,
    owner: Annotated[IdOrName | None, Field(description=(
        "Hand the article to a new owner: @handle, email, exact full name or id; omit to keep them"))] = None,
    note: Text(NOTE, "Why it changed (kept with the new version)") = "",
) -> schemas.ArticleDetailOut:
    """Change a knowledge base article you own (admins may change any): the change becomes a new version,
    and the earlier ones stay readable."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_article(session, actor, article, title, category, body, owner, note)
        return presenters.article_detail_out(session, actor, changed)
