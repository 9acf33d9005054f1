"""Shared fixtures: one world cache for the whole run, a fresh episode per test."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Worlds are cached between runs in the checkout (ignored by git); episodes live in a temp dir.
os.environ.setdefault("OFFICEGYM_HOME", str(ROOT / ".officegym" / "test-home"))
# No warm pool unless a test asks for one: its background copies would only slow the others.
os.environ.setdefault("OFFICEGYM_POOL_SIZE", "0")
# Episodes, pytest's temporary folders and the servers' default episodes folder in memory where the
# machine has room (as a tmpfs /tmp is): the run copies tens of gigabytes of episode files, whose
# writeback to disk would hold up PostgreSQL's checkpoints and the other test processes.
SHARED_MEMORY = Path("/dev/shm")
if "TMPDIR" not in os.environ and SHARED_MEMORY.is_dir() and os.access(SHARED_MEMORY, os.W_OK) \
        and shutil.disk_usage(SHARED_MEMORY).free > 8 * 1024**3:
    os.environ["TMPDIR"] = str(SHARED_MEMORY)
    tempfile.tempdir = None  # read TMPDIR again
# A run started in the background by a non-interactive shell inherits SIGINT ignored, and so would
# every server and build it starts: the tests that press Ctrl-C need it delivered (a handler, unlike
# an ignored signal, is reset to the default in a child).
signal.signal(signal.SIGINT, signal.default_int_handler)

import threading  # noqa: E402
import time  # noqa: E402

import uvicorn  # noqa: E402
from serving import free_port  # noqa: E402

from officegym.config import load_settings  # noqa: E402
from officegym.episodes import EpisodeStore  # noqa: E402
from officegym.server import build_app, server_config  # noqa: E402


@pytest.fixture(scope="session")
def settings(tmp_path_factory):
    """Settings with the shared world cache and a private episodes folder."""
    return load_settings(episodes_dir=tmp_path_factory.mktemp("episodes"))


# PostgreSQL for the backend tests: the machine's server (`make test` starts it when it is down).
POSTGRES_URL = os.environ.get("OFFICEGYM_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
# Test modules that run twice, on SQLite and on PostgreSQL: the services, the MCP tools over them,
# the graders' diff and a sample of tasks (tests/postgres has the backend's own tests).
ALSO_ON_POSTGRES = {
    "test_chat_actions.py", "test_crm_services.py", "test_crm_pipeline_totals.py", "test_tickets_services.py", "test_tickets_access.py",
    "test_sheets_services.py", "test_crm_tools.py", "test_tickets_tools.py", "test_sheets_tools.py",
    "test_chat_messages.py", "test_bad_input.py", "test_diff_and_checks.py",
    "test_crm_tasks.py", "test_sheets_tasks.py", "test_parallel.py", "test_colleagues.py", "test_served_cost.py",
    "test_races.py",
}


# `make check` sets OFFICEGYM_TEST_BACKENDS=sqlite: the quick suite needs no PostgreSQL.
BACKENDS = [b.strip() for b in os.environ.get("OFFICEGYM_TEST_BACKENDS", "sqlite,postgresql").split(",") if b.strip()]


def pytest_generate_tests(metafunc):
    """Run the modules of ALSO_ON_POSTGRES on every backend of BACKENDS (both by default)."""
    if "backend" in metafunc.fixturenames and Path(str(metafunc.definition.path)).name in ALSO_ON_POSTGRES:
        metafunc.parametrize("backend", BACKENDS, indirect=True, scope="session")


@pytest.fixture(scope="session")
def backend(request) -> str:
    """The database backend of the test's store: sqlite, or postgresql for ALSO_ON_POSTGRES."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def stores(settings):
    """One episode store per backend, made on first use; every episode is deleted at the end."""
    made: dict[str, EpisodeStore] = {}
    yield made
    for episodes in made.values():
        episodes.close()


def store_for(stores: dict, settings, backend: str) -> EpisodeStore:
    """The run's episode store of `backend` (made on first use)."""
    if backend not in stores:
        url = POSTGRES_URL if backend == "postgresql" else "sqlite"
        stores[backend] = EpisodeStore(load_settings(episodes_dir=settings.episodes_dir, database_url=url))
    return stores[backend]


@pytest.fixture(scope="session")
def store(stores, settings, backend):
    """The episode store of the test's backend."""
    return store_for(stores, settings, backend)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The database URL of the PostgreSQL the tests use."""
    return POSTGRES_URL


@pytest.fixture(scope="session")
def pg_store(stores, settings):
    """The run's PostgreSQL store, for the backend's own tests."""
    return store_for(stores, settings, "postgresql")


@pytest.fixture(scope="session")
def sqlite_store(stores, settings):
    """The run's SQLite store, for comparisons with PostgreSQL."""
    return store_for(stores, settings, "sqlite")


@pytest.fixture
def episode(store):
    """A fresh free episode on the tiny world, acting as the owner; deleted after the test."""
    created = store.create(scale="tiny", seed=0)
    yield created
    store.delete(created.id)


@pytest.fixture
def small_episode(store):
    """A fresh free episode on the small world."""
    created = store.create(scale="small", seed=0)
    yield created
    store.delete(created.id)

class LiveServer:
    """uvicorn serving build_app() in a background thread."""

    def __init__(self, store: EpisodeStore, scale: str = "tiny", episode_ttl: float = 0):
        self.settings = load_settings(host="127.0.0.1", port=free_port(), admin_token="test-admin-token")
        self.store = store
        self.base_url = f"http://127.0.0.1:{self.settings.port}"
        app = build_app(store, self.settings, self.base_url, scale=scale, seed=0, episode_ttl=episode_ttl)
        self.server = uvicorn.Server(server_config(app, "127.0.0.1", self.settings.port, lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def admin(self) -> dict:
        """Headers of the control API's admin."""
        return {"Authorization": f"Bearer {self.settings.admin_token}"}


@contextlib.contextmanager
def served(settings, scale: str, episode_ttl: float = 0):
    """A store served on one world scale, closed afterwards."""
    store = EpisodeStore(settings)
    store.world(scale, 0)  # built before serving: a fresh machine builds the medium world in about a minute
    with LiveServer(store, scale=scale, episode_ttl=episode_ttl) as server:
        yield server
    store.close()


@pytest.fixture
def serve():
    """`served`, for a test that needs a server of its own (e.g. with idle expiry)."""
    return served


@pytest.fixture(scope="module")
def live_server(settings):
    """A served store on the tiny world."""
    with served(settings, "tiny") as server:
        yield server


@pytest.fixture(scope="module")
def small_server(settings):
    """A served store on the small world, for the tasks the tiny world cannot draw."""
    with served(settings, "small") as server:
        yield server


@pytest.fixture(scope="module")
def medium_server(settings):
    """A served store on the medium world, where the workflow and refusal suite is drawn."""
    with served(settings, "medium") as server:
        yield server


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-extensions", "--no-first-run"]


@pytest.fixture(scope="module")
def chromium():
    """One headless Debian Chromium per test module, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # BrowserGym sets the process's test id attribute to its own "bid": get_by_test_id reads ours.
        playwright.selectors.set_test_id_attribute("data-testid")
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


# Tests that create, count or prune PostgreSQL databases run on one xdist worker: a prune in one
# worker would otherwise drop another worker's episode databases.
POSTGRES_GROUP = "postgresql"


def _uses_postgres(item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    return ("postgres" in Path(str(item.path)).parts or params.get("backend") == "postgresql"
            or bool({"pg_store", "postgres_url"} & set(getattr(item, "fixturenames", ()))))


def pytest_itemcollected(item):
    """Put every PostgreSQL test in one xdist group (a no-op without xdist), as it is collected:
    before xdist reads the groups."""
    if _uses_postgres(item):
        item.add_marker(pytest.mark.xdist_group(POSTGRES_GROUP))
