"""Limits on what a request's head may hold, on every surface `officegym serve` answers (UI, MCP,
control API): at most MAX_HEAD_BYTES of request line and headers, and MAX_HEADERS headers.

uvicorn's C parser (httptools) takes a head of any size, copying it again for each piece that
arrives, so a 64 MB header cost 18 s of CPU and 48 MB of memory before the app ever saw it. This
protocol counts the bytes a head has taken so far and answers 431 (Request Header Fields Too
Large) as soon as either limit is passed, then reads and drops what the client still sends for a
moment before closing, so that the client reads the answer instead of a reset connection.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

MAX_HEAD_BYTES = 64 * 1024  # request line and headers together (nginx takes 32 KB, Node.js 16 KB)
MAX_HEADERS = 100  # header lines (Apache's LimitRequestFields)
LINGER_SECONDS = 2.0  # how long a refused connection's remaining input is read and dropped
REFUSAL = (f"Request headers too large: this server takes at most {MAX_HEADERS} headers and "
           f"{MAX_HEAD_BYTES:,} bytes of request line and headers.\n")


class HeadRefused(Exception):
    """Raised from a parser callback to stop parsing a head beyond the limits."""


class BoundedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with limits on the size of a request's head and its number of
    headers, refused with 431."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._in_head = True  # between two requests, or in a head not yet complete
        self._head_bytes = 0  # bytes received since the current head began (an upper bound)
        self._header_count = 0
        self._chunk = 0  # the size of the chunk being parsed
        self._too_large = False  # set by the callback that stops the parser
        self._refused = False

    def data_received(self, data: bytes) -> None:
        """Parse `data` as uvicorn does, unless this connection's head was refused (its input is
        then dropped); refuse a head that grows beyond MAX_HEAD_BYTES."""
        if self._refused:
            return
        self._chunk = len(data)
        super().data_received(data)
        if self._in_head and not self._refused:
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse()

    def on_message_begin(self) -> None:
        """A new request: its headers are counted from zero."""
        super().on_message_begin()
        self._header_count = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        """Take one header, unless the head already holds MAX_HEADERS."""
        self._header_count += 1
        if self._header_count > MAX_HEADERS:
            self._too_large = True
            raise HeadRefused()
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is complete (its body is not counted): refused if it arrived whole in one
        chunk but exceeds MAX_HEAD_BYTES, else served."""
        self._in_head = False
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > MAX_HEAD_BYTES:
            self._too_large = True
            raise HeadRefused()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The request is complete: what follows in this chunk is the next head, which is counted
        from the next chunk on (never more than one chunk short)."""
        super().on_message_complete()
        self._in_head = True
        self._head_bytes = -self._chunk

    def send_400_response(self, msg: str) -> None:
        """A head the parser stopped for its size gets 431; other bad requests 400."""
        if self._too_large:
            self._refuse()
        else:
            super().send_400_response(msg)

    def _refuse(self) -> None:
        self._refused = True
        body = REFUSAL.encode()
        self.transport.write(b"".join([
            STATUS_LINE[431], b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n", b"connection: close\r\n\r\n", body]))
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the answer is complete; the client's input is still read
        self.loop.call_later(LINGER_SECONDS, self.transport.close)
