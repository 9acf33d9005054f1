"""The sheets pages, gathered on one blueprint. The routes live by area:

- home_views.py  the list of workbooks with search, the create form and the workbook settings forms
- grid_views.py  the grid page and the forms that write cells (formula bar, batch, paste, clear, formats)
- tool_views.py  the grid's toolbar forms (sort, rows and columns, find and replace, sheets, names, filters)
- book_views.py  the share, history, names and import/export pages

blueprint.py holds the blueprint and the helpers those modules share.
"""

from __future__ import annotations

from .blueprint import bp
from . import home_views, book_views, grid_views, tool_views  # noqa: F401  (their routes register on bp)

__all__ = ["bp"]
