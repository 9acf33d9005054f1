"""The command line with a PostgreSQL database URL: run in parallel, build, prune."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from officegym.postgres_prune import prune


def officegym(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "officegym.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=600)


def test_run_on_postgres_in_parallel_leaves_no_database_behind(pg_store, postgres_url):
    before = set(pg_store.backend.databases("og_e_"))
    done = officegym("run", "--agent", "oracle", "--tasks", "crm.close_won_deal,tickets.close_duplicates",
                     "--instances", "2", "--parallel", "3", "--json", "--database-url", postgres_url)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 4 and all(r["success"] is True and r["score"] == 1.0 for r in rows)
    assert set(pg_store.backend.databases("og_e_")) <= before  # every episode database was dropped


def test_build_loads_the_world_template(postgres_url):
    done = officegym("build", "--scale", "tiny", "--database-url", postgres_url)
    assert done.returncode == 0, done.stderr
    key, digest, _path, template = done.stdout.split()
    assert template == f"og_w_{key}" and len(digest) == 64


def test_prune_drops_only_what_nothing_keeps(pg_store):
    stray = "og_e_strayEpisodeLeftBehind01"
    pg_store.backend.copy_database(f"og_w_{pg_store.world('tiny').key}", stray)
    keep = {name[5:] for name in pg_store.backend.databases("og_e_")} - {stray[5:]}
    dropped = prune(pg_store.backend, keep)
    assert dropped == [stray]
    assert stray not in pg_store.backend.databases("og_e_")
    assert f"og_w_{pg_store.world('tiny').key}" in pg_store.backend.databases("og_w_")


def test_a_bad_database_url_is_a_clear_error():
    done = officegym("run", "--agent", "null", "--tasks", "chat.set_topic", "--database-url", "mysql://x")
    assert done.returncode == 2 and "database_url holds 'mysql://x'; use 'sqlite' or 'postgresql://" in done.stderr
    assert "Traceback" not in done.stderr
