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

from urllib.parse import urlsplit

from starlette.responses import PlainTextResponse

from officegym.host_names import allowed_names, host_name

__all__ = ["HostCheck", "allowed_names", "host_name", "origin_allowed"]

OPEN_PATHS = ("/healthz",)


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
