"""Errors raised by services. Each message is written for an agent: what was wrong and how to
do it right. Views turn them into flash messages and HTTP codes, MCP tools into is_error results.
failures.py says a database or disk failure (a race lost, a full disk, a lost connection) as one of
them."""


class OfficeError(Exception):
    """Base of every error a service raises on purpose."""

    http_status = 400
    kind = "error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFound(OfficeError):
    """The thing named does not exist, or the actor may not know it exists."""

    http_status = 404
    kind = "not_found"


class Forbidden(OfficeError):
    """The actor may not do this."""

    http_status = 403
    kind = "forbidden"


class Invalid(OfficeError):
    """The input is malformed: empty, too long, of the wrong type or out of range."""

    http_status = 400
    kind = "invalid"


class Conflict(OfficeError):
    """The action clashes with the current state (a name taken, already archived, ...)."""

    http_status = 409
    kind = "conflict"


class Unavailable(OfficeError):
    """The database could not do the action just now (busy, or its connection was cut): nothing
    was saved, and the same action may succeed when tried again."""

    http_status = 503
    kind = "unavailable"


class OutOfSpace(Unavailable):
    """The server's disk is full: nothing was saved."""

    http_status = 507
    kind = "out_of_space"
