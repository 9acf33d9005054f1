"""Direct answers to the plain stateless JSON-RPC requests of a served MCP endpoint.

In stateless JSON-response mode the SDK's streamable-HTTP session manager answers every POST by
building a transport, its memory streams and message router, a task group, a JSON-RPC dispatcher
loop and a connection, passing the one request through them and its one response back. A single
JSON-RPC request of the handshake era (no `MCP-Protocol-Version` header, or one the handshake
negotiates) needs none of that: `answer_directly` answers it in the request's own task with the
pieces that loop would use on it - the SDK's JSON-RPC message types, its `serve_one` driver (the
server's middleware, registered handler, argument validation and result serialization), the
dispatcher's mapping of a failure to a JSON-RPC error and the transport's serialization of the
answer. Anything else (another HTTP method, a header the transport refuses, a body that is not one
such message, another method, a 2026-era request) goes to the SDK's path, which answers it as
before.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner, aclose_shielded, serve_one
from mcp.server.streamable_http import CONTENT_TYPE_JSON, check_accept_headers
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import (DEFAULT_NEGOTIATED_VERSION, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest,
                       JSONRPCResponse, RequestId, jsonrpc_message_adapter)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

DIRECT_REQUESTS = frozenset({"tools/call", "tools/list", "initialize", "ping"})
DIRECT_NOTIFICATIONS = frozenset({"notifications/initialized"})
ASGIHandler = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class JsonBodyDispatchContext:
    """The request-scoped channel of a request answered with one JSON body, as the SDK's stateless
    JSON-response transport gives a handler: server-initiated requests have no way back
    (`NoBackChannelError`), and notifications tied to the request (log messages, progress) have no
    place in the body, so they are dropped."""

    transport: TransportContext
    request_id: RequestId | None
    message_metadata: ServerMessageMetadata
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    can_send_request: bool = field(default=False, init=False)

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts=None) -> dict[str, Any]:
        """Refused: the answer is the only message this request's HTTP response carries."""
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts=None) -> None:
        """Dropped, as the SDK's transport drops it in JSON-response mode."""
        logger.debug("dropped %s tied to request %r: a JSON response carries only the answer", method,
                     self.request_id)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Dropped, like every notification tied to the request."""


def _headers_taken(request: Request) -> bool:
    """Whether the SDK's stateless JSON-response transport would take the request's headers: the
    handshake era's protocol version or none, a JSON content type (both of the transport's checks)
    and an Accept that includes JSON."""
    headers = request.headers
    version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return False
    content_type = headers.get("content-type", "")
    if not content_type.lower().startswith(CONTENT_TYPE_JSON):
        return False
    if not any(part.strip() == CONTENT_TYPE_JSON for part in content_type.split(";")[0].split(",")):
        return False
    return check_accept_headers(request)[0]


async def _read_body(receive: Receive, limit: int) -> tuple[bytes | None, list[Message]]:
    """The whole body (None when it exceeds `limit` or the client left before its end) and the
    messages received, to be replayed to the SDK's path."""
    received: list[Message] = []
    body = bytearray()
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            return None, received
        body += message.get("body", b"")
        if len(body) > limit:
            return None, received
        if not message.get("more_body", False):
            return bytes(body), received


def _replaying(received: list[Message], receive: Receive) -> Receive:
    """A `receive` that gives the messages already received again, then the client's next ones."""
    pending = list(received)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def _direct_message(body: bytes) -> JSONRPCRequest | JSONRPCNotification | None:
    """The one JSON-RPC request or notification in `body` that is answered directly, or None."""
    try:
        raw = pydantic_core.from_json(body)
        message = jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except Exception:  # not JSON, too deep, not one JSON-RPC message: the SDK's path says which
        return None
    if isinstance(message, JSONRPCRequest):
        return message if message.method in DIRECT_REQUESTS else None
    if isinstance(message, JSONRPCNotification) and "id" not in raw:
        return message if message.method in DIRECT_NOTIFICATIONS else None
    return None


async def answer_directly(manager: StreamableHTTPSessionManager, scope: Scope, receive: Receive, send: Send,
                          sdk_path: ASGIHandler) -> None:
    """Answer an MCP request to `manager`'s server directly when it is a plain stateless JSON-RPC
    request (or the `initialized` notification); hand any other request to `sdk_path`."""
    if scope["method"] != "POST" or not (manager.stateless and manager.json_response):
        await sdk_path(scope, receive, send)
        return
    request = Request(scope)
    if not _headers_taken(request):
        await sdk_path(scope, receive, send)
        return
    body, received = await _read_body(receive, manager.max_request_body_size)
    message = None if body is None else _direct_message(body)
    if message is None:
        await sdk_path(scope, _replaying(received, receive), send)
        return
    version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
    connection = Connection.from_envelope(version, None, None)
    context = JsonBodyDispatchContext(  # the handler's request reads the body again, as the SDK's would
        transport=TransportContext(kind="streamable-http", can_send_request=False),
        request_id=message.id if isinstance(message, JSONRPCRequest) else None,
        message_metadata=ServerMessageMetadata(request_context=Request(scope, _replaying(received, receive)),
                                               can_send_request=False))
    lifespan_state = manager._lifespan_state  # the server's lifespan, entered once by the running manager
    if isinstance(message, JSONRPCNotification):
        accepted = Response(None, status_code=202, headers={"Content-Type": CONTENT_TYPE_JSON})
        await accepted(scope, receive, send)
        try:
            await ServerRunner(manager.app, connection, lifespan_state).on_notify(context, message.method,
                                                                                 message.params)
        finally:
            await aclose_shielded(connection)
        return
    answer = await _answer(manager, context, message, connection, lifespan_state)
    response = Response(answer.model_dump_json(by_alias=True, exclude_unset=True), status_code=200,
                        headers={"Content-Type": CONTENT_TYPE_JSON})
    await response(scope, receive, send)


async def _answer(manager: StreamableHTTPSessionManager, context: JsonBodyDispatchContext, message: JSONRPCRequest,
                  connection: Connection, lifespan_state: Any) -> JSONRPCResponse | JSONRPCError:
    """The server's answer to `message`, or the JSON-RPC error the SDK's dispatcher makes of its failure."""
    try:
        result = await serve_one(manager.app, context, message.method, message.params, connection=connection,
                                 lifespan_state=lifespan_state)
    except Exception as failure:
        error = handler_exception_to_error_data(failure)
        if error is None:
            logger.exception("handler for %r raised", message.method)
            error = ErrorData(code=0, message=str(failure))  # what the SDK's dispatcher answers
        return JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
    return JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
