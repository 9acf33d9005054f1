"""Connections handed from a `serve --workers N` supervisor to its workers.

A listening socket shared by every worker lets whichever worker wakes first accept every waiting
connection: a rollout harness's keep-alive connections, opened together, then all land on one
worker while the others idle. Here only the supervisor accepts. It hands each connection (its
file descriptor, over a Unix socket in a folder only this user can enter) to the worker with the
fewest open connections; each worker says when one of its connections closes.

- `Dispatcher` (in the supervisor): accepts, chooses, hands over.
- `HandedServer` (in a worker): a uvicorn server that listens on nothing and serves the
  connections it is handed.
"""

from __future__ import annotations

import asyncio
import selectors
import socket
import threading

import uvicorn

ACCEPTED_PER_WAKE = 64  # connections accepted at once before the worker channel is read again
HANDOFF_TIMEOUT = 5.0  # seconds a hand-over may wait on a worker that does not read


class Dispatcher:
    """Accepts on `listener` and hands each connection to the worker with the fewest open ones.
    Workers connect to the Unix socket at `path`; none connected, connections wait in the
    listener's backlog."""

    def __init__(self, listener: socket.socket, path: str):
        self.listener = listener
        self.listener.setblocking(False)
        self.channel = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.channel.bind(path)
        self.channel.listen()
        self.open: dict[socket.socket, int] = {}  # worker channel -> connections it holds
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.channel, selectors.EVENT_READ)
        self._wake, self._waker = socket.socketpair()
        self.selector.register(self._wake, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._run, name="officegym-dispatcher", daemon=True)

    def start(self) -> None:
        """Dispatch in a thread of its own."""
        self._thread.start()

    def stop(self) -> None:
        """Stop dispatching and close every socket but the listener."""
        self._waker.send(b"x")
        self._thread.join(10)
        for worker in list(self.open):
            worker.close()
        for sock in (self.channel, self._wake, self._waker):
            sock.close()
        self.selector.close()

    def _run(self) -> None:
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self._wake:
                    return
                if key.fileobj is self.channel:
                    self._add_worker()
                elif key.fileobj is self.listener:
                    self._accept()
                else:
                    self._read_worker(key.fileobj)

    def _add_worker(self) -> None:
        worker, _ = self.channel.accept()
        worker.settimeout(HANDOFF_TIMEOUT)
        self.open[worker] = 0
        self.selector.register(worker, selectors.EVENT_READ)
        if len(self.open) == 1:
            self.selector.register(self.listener, selectors.EVENT_READ)

    def _drop_worker(self, worker: socket.socket) -> None:
        self.selector.unregister(worker)
        del self.open[worker]
        worker.close()
        if not self.open:
            self.selector.unregister(self.listener)

    def _read_worker(self, worker: socket.socket) -> None:
        """A worker's notes: one message per closed connection; none at all when it has gone."""
        if worker not in self.open:  # dropped earlier in this round
            return
        try:
            note = worker.recv(16)
        except OSError:
            note = b""
        if not note:
            self._drop_worker(worker)
        else:
            self.open[worker] = max(0, self.open[worker] - 1)

    def _accept(self) -> None:
        if not self.open:  # the last worker went earlier in this round: connections wait in the backlog
            return
        for _ in range(ACCEPTED_PER_WAKE):
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # the connection was reset before it was accepted, or no descriptor is free
                return
            with connection:
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._hand(connection)
            if not self.open:
                return

    def _hand(self, connection: socket.socket) -> None:
        """Give `connection` to the least busy worker (the next least busy when that one has gone)."""
        while self.open:
            worker = min(self.open, key=self.open.__getitem__)
            try:
                socket.send_fds(worker, [b"+"], [connection.fileno()])
            except OSError:
                self._drop_worker(worker)
                continue
            self.open[worker] += 1
            return


class HandedServer(uvicorn.Server):
    """A worker's uvicorn server: no listening socket of its own; it serves each connection the
    supervisor hands it over the Unix socket at `path`, and stops when the supervisor is gone."""

    def __init__(self, config: uvicorn.Config, path: str):
        super().__init__(config)
        self.path = path
        self.handoff: socket.socket | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start the app, then ask the supervisor for connections."""
        await super().startup(sockets=[])
        self.handoff = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.handoff.connect(self.path)
        self.handoff.setblocking(False)
        asyncio.get_running_loop().add_reader(self.handoff.fileno(), self._receive)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Take no more connections (the supervisor hands them to the others), then finish these."""
        self._close_handoff()
        await super().shutdown(sockets)

    def _close_handoff(self) -> None:
        if self.handoff is not None:
            asyncio.get_running_loop().remove_reader(self.handoff.fileno())
            self.handoff.close()
            self.handoff = None

    def _receive(self) -> None:
        loop = asyncio.get_running_loop()
        while self.handoff is not None:
            try:
                message, descriptors, _, _ = socket.recv_fds(self.handoff, 16, 4)
            except (BlockingIOError, InterruptedError):
                return
            if not message:  # the supervisor has gone: stop like on a signal
                self._close_handoff()
                self.should_exit = True
                return
            for descriptor in descriptors:
                connection = socket.socket(fileno=descriptor)
                connection.setblocking(False)
                loop.create_task(loop.connect_accepted_socket(self._protocol, connection))

    def _protocol(self) -> asyncio.Protocol:
        """uvicorn's HTTP protocol for one connection, which tells the supervisor when it closes."""
        protocol = self.config.http_protocol_class(config=self.config, server_state=self.server_state,
                                                   app_state=self.lifespan.state)
        lost = protocol.connection_lost

        def connection_lost(error: Exception | None) -> None:
            lost(error)
            if self.handoff is not None:
                try:
                    self.handoff.send(b"-")
                except OSError:
                    pass  # the supervisor has gone; the next read says so

        protocol.connection_lost = connection_lost
        return protocol
