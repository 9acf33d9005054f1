"""Which apps exist, in dependency order. Importing their models fills Base.metadata."""

from __future__ import annotations

import importlib

APPS = ("org", "chat", "crm", "tickets", "sheets")


def import_models() -> None:
    """Import every app's models module so that all tables are known to the metadata."""
    for app in APPS:
        importlib.import_module(f"officegym.apps.{app}.models")
    importlib.import_module("officegym.journal")
    importlib.import_module("officegym.colleagues.models")
