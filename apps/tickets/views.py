"""The tickets pages, registered on one blueprint. Each area keeps its routes in its own module:

- search_views.py  the home page (projects, my tickets) and search with quick filters
- ticket_views.py  the create form, the ticket page and every form on it
- board_views.py   a project's board and backlog, and the lead's sprint forms
- kb_views.py      the knowledge base: search, articles and their forms

The blueprint and the helpers those modules share are in blueprint.py. Views parse, call a service,
render; every rule is in the services."""

from .blueprint import bp
from . import board_views, kb_views, search_views, ticket_views  # noqa: F401  (their routes register on bp)

__all__ = ["bp"]
