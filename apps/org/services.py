"""Every directory operation, in one place for the views and tools: people (`people.py`: resolve,
search, profiles, reports), the company's structure (`structure.py`: departments and teams) and the
lookups every app shares (`lookups.py`: ids, rows by id, a case-insensitive contains)."""

from __future__ import annotations

from .lookups import MAX_ID, contains, get_by_id, numeric_id
from .people import direct_reports, get_person, resolve_people, resolve_person, search_people, whoami
from .structure import get_department, get_team, list_departments, list_teams

__all__ = [
    "MAX_ID", "contains", "get_by_id", "numeric_id",
    "direct_reports", "get_person", "resolve_people", "resolve_person", "search_people", "whoami",
    "get_department", "get_team", "list_departments", "list_teams",
]
