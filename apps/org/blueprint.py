"""The directory's blueprint, on which its view modules register their pages, and what they share."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("org", __name__, template_folder="templates")
PAGE = 50  # people a page
