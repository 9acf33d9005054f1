"""The CRM pages, gathered on one blueprint: `bp` comes from blueprint.py and the routes from

- list_views.py    home, the lists of each record kind, the Kanban board, search, the pipeline report
- record_views.py  the record pages and the create and edit forms
- action_views.py  the stage path, products and discounts, activities and tasks, escalation, conversion

officegym.web registers `bp` from here."""

from __future__ import annotations

from .blueprint import bp
from . import list_views, record_views, action_views  # noqa: F401  (their routes register on bp)

__all__ = ["bp"]
