"""The knowledge base: the company handbook's policies and runbooks as numbered articles.

Everyone in the company reads every article. Anyone may write a new one and becomes its owner;
only the owner or a workspace admin changes it, and every change is kept as a new version (with
who wrote it, when and why), so the history of a rule can always be read back."""

from __future__ import annotations

import re

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains, get_by_id, numeric_id, resolve_person
from officegym.errors import Forbidden, Invalid, NotFound
from officegym.journal import journaled
from officegym.values import choice, text

from .models import KB_CATEGORIES, Article, ArticleVersion

FIRST_NUMBER = 10001  # KB0010001
MAX_QUERY = 200
MAX_TERMS = 8
TITLE, BODY, NOTE = 120, 20_000, 200
_NUMBER = re.compile(r"^KB\d{7}$", re.I)


def article_number(sequence: int) -> str:
    """The number of the `sequence`-th article (0-based): KB0010001, KB0010002, ..."""
    return f"KB{FIRST_NUMBER + sequence:07d}"


def search_articles(session: Session, actor: Person, query: str = "", category: str | None = None) -> list[Article]:
    """Articles whose title or body holds every word of `query` (case aside), optionally of one
    category: those with a word in the title first, then by number. No query lists them all."""
    words = text(query, "Query", MAX_QUERY).split()
    if len(words) > MAX_TERMS:
        raise Invalid(f"A search takes at most {MAX_TERMS} words; got {len(words)}. Keep the words that matter.")
    stmt = select(Article)
    if category:
        stmt = stmt.where(Article.category == choice(category, KB_CATEGORIES, "Category"))
    for word in words:
        stmt = stmt.where(or_(contains(Article.title, word), contains(Article.body, word)))
    found = list(session.scalars(stmt.order_by(Article.number)))
    if not words:
        return found
    in_title = lambda a: any(w.lower() in a.title.lower() for w in words)  # noqa: E731
    return sorted(found, key=lambda a: not in_title(a))


def get_article(session: Session, actor: Person, article: int | str) -> Article:
    """One article by number (KB0010001), exact title or id."""
    if isinstance(article, bool) or not isinstance(article, (int, str)) or (
            isinstance(article, str) and not article.strip()):
        raise Invalid(f"Name an article by its number (such as KB0010001) or exact title, got {article!r}.")
    ident = numeric_id(article)
    if ident is not None:
        found = get_by_id(session, Article, ident)
    elif _NUMBER.match(article.strip()):
        found = session.scalar(select(Article).where(Article.number == article.strip().upper()))
    else:
        found = session.scalar(select(Article).where(func.lower(Article.title) == article.strip().lower()))
    if found is None:
        raise NotFound(f"No article {article!r}. Search the knowledge base with tickets_search_articles.")
    return found


def list_article_versions(session: Session, actor: Person, article: int | str) -> list[ArticleVersion]:
    """Every version of an article, newest first."""
    found = get_article(session, actor, article)
    return list(session.scalars(select(ArticleVersion).where(ArticleVersion.article_id == found.id)
                                .order_by(ArticleVersion.version.desc())))


def get_article_version(session: Session, actor: Person, article: int | str, version: int) -> ArticleVersion:
    """One version of an article as it was written."""
    found = get_article(session, actor, article)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= found.version:
        raise Invalid(f"{found.number} has versions 1 to {found.version}; got {version!r}.")
    return session.scalar(select(ArticleVersion).where(ArticleVersion.article_id == found.id,
                                                       ArticleVersion.version == version))


def _free_title(session: Session, title: str, article_id: int | None = None) -> str:
    taken = session.scalar(select(Article.number).where(func.lower(Article.title) == title.lower(),
                                                        Article.id != (article_id or 0)))
    if taken:
        raise Invalid(f"{taken} already has the title {title!r}; choose another title or update {taken}.")
    return title


def _keep_version(session: Session, article: Article, author: Person, note: str) -> None:
    session.add(ArticleVersion(article_id=article.id, version=article.version, title=article.title,
                               category=article.category, body=article.body, author_id=author.id, note=note,
                               created_at=article.updated_at))


@journaled("tickets.create_article")
def create_article(session: Session, actor: Person, title: str, category: str, body: str,
                   note: str = "") -> Article:
    """A new article, owned by the actor, as version 1."""
    cleaned = _free_title(session, text(title, "Title", TITLE, required=True))
    kind = choice(category, KB_CATEGORIES, "Category")
    content = text(body, "Body", BODY, required=True)
    why = text(note, "Note", NOTE) or "First version"
    count = session.scalar(select(func.count()).select_from(Article))
    now = clock.advance(session)
    article = Article(number=article_number(count), title=cleaned, category=kind, owner_id=actor.id, body=content,
                      version=1, created_at=now, updated_at=now)
    session.add(article)
    session.flush()
    _keep_version(session, article, actor, why)
    session.flush()
    return article


@journaled("tickets.update_article")
def update_article(session: Session, actor: Person, article: int | str, title: str | None = None,
                   category: str | None = None, body: str | None = None, owner: int | str | None = None,
                   note: str = "") -> Article:
    """Change an article (its owner or a workspace admin): each change is a new version, with a
    note saying why. Handing it to a new owner is a change too."""
    found = get_article(session, actor, article)
    if actor.id != found.owner_id and not actor.is_admin:
        owner_name = session.get(Person, found.owner_id).name
        raise Forbidden(f"Only {found.number}'s owner, {owner_name}, or a workspace admin changes it; "
                        "ask them, or write a new article.")
    new = {"title": _free_title(session, text(title, "Title", TITLE, required=True), found.id)
           if title is not None else found.title,
           "category": choice(category, KB_CATEGORIES, "Category") if category is not None else found.category,
           "body": text(body, "Body", BODY, required=True) if body is not None else found.body,
           "owner_id": resolve_person(session, owner).id if owner is not None else found.owner_id}
    why = text(note, "Note", NOTE)
    if all(getattr(found, field) == value for field, value in new.items()):
        raise Invalid(f"That leaves {found.number} as it is: give a new title, category, body or owner.")
    for field, value in new.items():
        setattr(found, field, value)
    found.version += 1
    found.updated_at = clock.advance(session)
    _keep_version(session, found, actor, why or "Updated")
    session.flush()
    return found
