"""A load generator that costs the machine little: HTTP/1.1 keep-alive connections over asyncio
streams, speaking the control API and MCP's JSON-RPC (`tools/call` on the stateless streamable-HTTP
endpoint) with requests encoded once.

The official MCP client spends about as much CPU per episode as the server does to answer it (its
sessions, streams and validation), so on a machine whose cores the server and its agents share, it
caps what a second worker can show. This client measures the server's own capacity, the way a
load generator such as wrk measures a web server's; the official client's figures are reported
beside it."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

ACCEPT = b"Accept: application/json, text/event-stream\r\n"


class LeanConnection:
    """One keep-alive connection to a server; `request` sends one request and reads its answer."""

    def __init__(self, base: str, token: str):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port
        self.head = (f"Host: {parts.netloc}\r\nAuthorization: Bearer {token}\r\n"
                     "Content-Type: application/json\r\n").encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"", extra: bytes = b"") -> tuple[int, bytes]:
        """The status and body of one request, on this connection (opened on first use)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(b"%s %s HTTP/1.1\r\n%s%sContent-Length: %d\r\n\r\n%s"
                          % (method.encode(), path.encode(), self.head, extra, len(body), body))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        fields = {k.strip().lower(): v.strip() for k, _, v in
                  (line.partition(b":") for line in head.split(b"\r\n")[1:] if line)}
        if b"content-length" in fields:
            return status, await self.reader.readexactly(int(fields[b"content-length"]))
        return status, await self._chunks()

    async def _chunks(self) -> bytes:
        body = bytearray()
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return bytes(body)
            body += chunk[:-2]

    async def close(self) -> None:
        """Close the connection."""
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()
            self.writer = None


def tool_call_body(tool: str, args: dict) -> bytes:
    """A JSON-RPC `tools/call` request for `tool` with `args`."""
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": args}}).encode()


async def lean_episode(connection: LeanConnection, task: str, instance: int, calls: list[bytes]) -> tuple[bool, int]:
    """Create an episode of `task`, make the encoded tool `calls` on its MCP endpoint, grade and
    delete it: whether it succeeded and how many calls were answered without error."""
    status, made = await connection.request("POST", "/api/episodes",
                                            json.dumps({"task": task, "instance": instance}).encode())
    if status != 201 and status != 200:
        raise RuntimeError(f"creating an episode answered {status}: {made[:200]!r}")
    episode = json.loads(made)["id"]
    answered = 0
    for body in calls:
        status, answer = await connection.request("POST", f"/e/{episode}/mcp", body, ACCEPT)
        reply = json.loads(answer) if status == 200 else {}
        answered += "result" in reply and not reply["result"].get("isError")
    status, graded = await connection.request("POST", f"/api/episodes/{episode}/grade?delete=true")
    return status == 200 and bool(json.loads(graded).get("success")), answered
