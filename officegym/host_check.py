"""Host and Origin checks in front of every surface of a served officegym: the UI, each episode's
MCP endpoint and the control API.

A page on another site can make a browser talk to a server on the user's own machine: by
resolving its own name to 127.0.0.1 (DNS rebinding: the request then carries that site's name
as its Host) or by posting to it (the request carries the site as its Origin). Both are refused
before any work is done:

- Host must name this server: a loopback name (127.0.0.1, localhost, ::1), the host of the public
  URL the server hands out, or a name added with `serve --allowed-host` or
  $OFFICEGYM_ALLOWED_HOSTS (comma-separated). Any port. `*` turns the Host check off (for a
  server behind a proxy that checks it).
- Origin, when a browser sends one, must be http(s) on one of those names; `null` (a sandboxed
  frame or a local file) is refused.
- `/healthz` answers whatever the Host: container probes address a server by its IP.

Refused requests get 421 (wrong Host) or 403 (wrong Origin) with a plain-text reason, as the MCP
SDK answers its own transport's checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.responses import PlainTextResponse

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
OPEN_PATHS = ("/healthz",)


def host_name(value: str) -> str | None:
    """The name part of a Host header or netloc ("[::1]:8765" -> "::1"), lower case; None when it is
    not one."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/@?# \t"):
        return None
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1:]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return value[1:end]
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def allowed_names(public_url: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a server answers to: the loopback names, the public URL's host and `extra` ("*"
    kept as is)."""
    names = set(LOOPBACK_NAMES)
    public = urlsplit(public_url).hostname
    if public:
        names.add(public.lower())
    for item in extra:
        item = item.strip()
        if item == "*":
            names.add("*")
        elif item:
            name = host_name(item)
            if name is None:
                raise ValueError(f"{item!r} is not a host name (give a name such as officegym or 10.0.0.5)")
            names.add(name)
    return frozenset(names)


def origin_allowed(origin: str, names: frozenset[str]) -> bool:
    """Whether a browser's Origin header names a page of this server."""
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and parts.hostname is not None and (
        "*" in names or parts.hostname.lower() in names)


class HostCheck:
    """ASGI middleware refusing requests whose Host or Origin is not one of `names`."""

    def __init__(self, app, names: frozenset[str]):
        self.app = app
        self.names = names

    def refusal(self, scope) -> PlainTextResponse | None:
        """The response refusing this request, or None when it may go on."""
        if scope.get("path", "") in OPEN_PATHS:
            return None
        headers = {}
        for key, value in scope.get("headers", []):
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        if "*" not in self.names:
            name = host_name(headers.get("host", ""))
            if name is None or name not in self.names:
                return PlainTextResponse("Invalid Host header: this server answers to "
                                         + ", ".join(sorted(self.names)) + ".", status_code=421)
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin, self.names):
            return PlainTextResponse("Invalid Origin header: requests from other sites are refused.", status_code=403)
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            refused = self.refusal(scope)
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)
