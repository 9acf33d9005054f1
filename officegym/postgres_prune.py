"""`officegym prune` on PostgreSQL: drop the databases nothing needs any more."""

from __future__ import annotations

from sqlalchemy import text

from officegym.postgres import NAME
from officegym.postgres_pool import pool_prefix


def prune(backend, keep: set[str], stale_worlds_of: str | None = None) -> list[str]:
    """Drop episode databases whose ids are not in `keep`, half-built templates, warm-pool
    copies of templates that are gone and, when `stale_worlds_of` is a code fingerprint, the
    templates of worlds built by other code (with their copies)."""
    dropped = []
    with backend.admin.connect() as conn:
        rows = conn.execute(text("SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database "
                                 "WHERE starts_with(datname, 'og_') ORDER BY datname")).all()

        def stale(name: str, world_key: str | None) -> bool:
            kind = name[:5]
            return (kind == "og_e_" and name[5:] not in keep) or kind == "og_b_" or (
                stale_worlds_of is not None and kind in ("og_w_", "og_s_")
                and not (world_key or "").endswith(f"-{stale_worlds_of}"))

        templates = {pool_prefix(n) for n, key in rows if n[:5] in ("og_w_", "og_s_") and not stale(n, key)}
        for name, world_key in rows:
            gone = stale(name, world_key) or (name[:5] == "og_p_" and name[:16] not in templates)
            if gone and NAME.match(name):
                backend.drop(name, conn)
                dropped.append(name)
    backend.forget_templates()
    return dropped
