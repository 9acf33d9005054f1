"""The directory's pages: `directory_views.py` (people, profiles, departments, teams), registered on
the blueprint of `blueprint.py`."""

from __future__ import annotations

from . import directory_views  # noqa: F401  (its routes register on bp)
from .blueprint import bp

__all__ = ["bp"]
