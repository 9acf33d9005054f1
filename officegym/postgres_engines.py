"""Engines on the PostgreSQL server that outlive a restart of it.

A restart of the cluster cuts every connection a pool holds, and for a moment the server refuses
new ones ("the database system is starting up", or nothing listens on its port). So every engine
the backend and the registry make:
- checks a pooled connection before handing it out (`pool_pre_ping`): one cut by a restart is
  replaced by a new one, and the call that asked for it goes on;
- connects patiently: a connection refused because the server is stopping or starting is tried
  again, a little later each time, for up to CONNECT_PATIENCE seconds (a restart takes a second or
  two); any other refusal (a wrong password, a missing database) fails at once;
- gives up on a server that does not answer after CONNECT_TIMEOUT seconds, so that nothing (a
  request, the shutdown of a server) waits long on a connection that never comes.

`retrying` runs an idempotent read again when the connection it used was cut under it.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import DBAPIError

log = logging.getLogger(__name__)
T = TypeVar("T")

CONNECT_PATIENCE = 5.0  # seconds to keep trying while the server stops or starts
CONNECT_TIMEOUT = 5  # seconds for one connection attempt
# What the server or the system says while the server is stopping, starting or gone for a moment.
PASSING = ("connection refused", "starting up", "shutting down", "not yet accepting connections",
           "in recovery mode", "terminating connection", "server closed the connection", "connection reset",
           "no such file or directory")


def passing(error: BaseException) -> bool:
    """Whether an error is one a restart of the server causes (worth trying again)."""
    text = str(error).lower()
    return any(phrase in text for phrase in PASSING)


def _connect_patiently(engine: Engine) -> None:
    @event.listens_for(engine, "do_connect")
    def connect(dialect, record, cargs, cparams):  # noqa: ANN001 - SQLAlchemy's hook
        deadline, delay = time.monotonic() + CONNECT_PATIENCE, 0.05
        while True:
            try:
                return dialect.connect(*cargs, **cparams)
            except dialect.loaded_dbapi.OperationalError as error:
                if not passing(error) or time.monotonic() + delay > deadline:
                    raise
                log.info("PostgreSQL is not accepting connections yet (%s); trying again", str(error).strip())
                time.sleep(delay)
                delay = min(delay * 2, 1.0)


def postgres_engine(url: URL, options: str = "", **kwargs) -> Engine:
    """An engine on `url` that checks pooled connections and connects patiently (see above);
    `options` are the server settings of its sessions (`-c name=value ...`)."""
    connect_args = {"connect_timeout": CONNECT_TIMEOUT, **({"options": options} if options else {})}
    engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args, **kwargs)
    _connect_patiently(engine)
    return engine


def retrying(read: Callable[[], T], attempts: int = 3) -> T:
    """The result of `read`, an idempotent read, run again when the server cut its connection under
    it (the pool then opens a new one, patiently). A connection that cannot be opened at all is not
    tried again: connecting was patient already."""
    for attempt in range(attempts):
        try:
            return read()
        except DBAPIError as error:
            if attempt == attempts - 1 or not error.connection_invalidated:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")
