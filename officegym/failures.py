"""Database and disk failures in the product's words: every surface's transaction (an episode's
session, the control API) raises the OfficeError that `translated` gives in place of the driver's
exception, so an agent, a page or the control API reads "try again" or "the server is out of disk
space", never SQL text or a 500."""

from __future__ import annotations

import errno

from sqlalchemy import exc

from officegym.errors import Conflict, OfficeError, OutOfSpace, Unavailable

OUT_OF_SPACE = ("The server is out of disk space, so nothing was saved. Try again once whoever runs the "
                "server has freed some space.")
RACED = ("Someone else made a clashing change at the same moment (the record this would create already "
         "exists now), so nothing was saved. Look again, then try again if it is still needed.")
GONE = ("Someone else removed a record this change refers to at the same moment, so nothing was saved. "
        "Look again, then try again if it is still needed.")
BUSY = "The database was busy and nothing was saved; try again in a moment."
CUT = "The connection to the database was lost and nothing was saved; try again in a moment."
FULL_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
# SQLSTATE codes (PostgreSQL) and words of driver messages (SQLite, psycopg) of each kind of failure.
FULL_DISK = ("53100", ("disk is full", "no space left", "could not extend file"))
RETRYABLE = (("40001", "40P01", "55P03"), ("database is locked", "database table is locked"))
CONNECTION_CODES = ("08", "57P01", "57P02", "57P03")
CONNECTION_WORDS = ("closed the connection", "connection is closed", "connection refused", "connection failed",
                    "terminating connection", "could not connect", "connection is lost", "consuming input failed")


def translated(error: BaseException) -> OfficeError | None:
    """The product's words for a database or filesystem failure (a unique race is a Conflict, a full
    disk OutOfSpace, a busy or lost database Unavailable), so no surface shows SQL text or answers
    500; None for any other exception, which stays a fault to report."""
    if isinstance(error, OfficeError):
        return error
    if isinstance(error, OSError):
        return OutOfSpace(OUT_OF_SPACE) if error.errno in FULL_DISK_ERRNOS else None
    if isinstance(error, (exc.DisconnectionError, exc.TimeoutError)):
        return Unavailable(CUT)
    if not isinstance(error, exc.DBAPIError):
        return None
    code = str(getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None) or "")
    text = str(error.orig).lower()
    if isinstance(error, exc.IntegrityError):
        if code == "23505" or "unique constraint failed" in text:
            return Conflict(RACED)
        return Conflict(GONE) if code == "23503" or "foreign key constraint failed" in text else None
    if code == FULL_DISK[0] or any(words in text for words in FULL_DISK[1]):
        return OutOfSpace(OUT_OF_SPACE)
    if code in RETRYABLE[0] or any(words in text for words in RETRYABLE[1]):
        return Unavailable(BUSY)
    if (error.connection_invalidated or isinstance(error, exc.InterfaceError) or code.startswith(CONNECTION_CODES)
            or any(words in text for words in CONNECTION_WORDS)):
        return Unavailable(CUT)
    return None
