"""The handbook's articles (being written): each function returns an article's versions, oldest first,
like seed_data.tickets_handbook_text; ARTICLES lists (function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

ARTICLES: list = []
