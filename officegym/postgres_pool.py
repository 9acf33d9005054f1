"""The warm pool on PostgreSQL: ready databases `og_p_<template digest>_<token>`, each a copy of a
start template, handed over to an episode by `ALTER DATABASE ... RENAME` (a catalogue update of a
few milliseconds, where `CREATE DATABASE ... TEMPLATE` copies the whole database)."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from officegym.warm_pool import WarmPool


def pool_prefix(template: str) -> str:
    """The name prefix of a template's ready copies."""
    return f"og_p_{hashlib.sha256(template.encode()).hexdigest()[:10]}_"


class PostgresPool(WarmPool):
    """Ready copies of template databases on the backend's server."""

    def __init__(self, backend, size: int, starts: int):
        super().__init__(size, starts)
        self.backend = backend

    def ready(self, key: str) -> list[str]:
        """Ready copies of template `key`."""
        return self.backend.databases(pool_prefix(key))

    def make(self, key: str, source) -> None:
        """CREATE DATABASE og_p_... TEMPLATE key (visible to others only once complete)."""
        self.backend.copy_database(key, pool_prefix(key) + secrets.token_hex(8))

    def claim(self, copy: str, target: str) -> bool:
        """Rename the copy to the episode's database; False when another claimer renamed it first."""
        try:
            with self.backend.admin.connect() as conn:
                conn.execute(text(f"ALTER DATABASE {self.backend.quoted(copy)} RENAME TO "
                                  f"{self.backend.quoted(target)}"))
        except DBAPIError as error:
            if "does not exist" in str(error):
                return False
            raise
        return True

    def remove(self, copy: str) -> None:
        """Drop a ready copy."""
        with self.backend.admin.connect() as conn:
            self.backend.drop(copy, conn)
