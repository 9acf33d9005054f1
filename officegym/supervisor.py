"""`officegym serve --workers N`: N worker processes behind one listening socket.

The supervisor binds the socket, accepts every connection and hands it to the worker with the
fewest open connections (handoff.py), so that a harness's long-lived connections spread over every
core. It starts a worker again when one dies, and on SIGINT or SIGTERM stops them all (each
finishes the requests it has) and returns, so that its caller can delete the server's episodes.
"""

from __future__ import annotations

import logging
import multiprocessing
import shutil
import signal
import socket
import tempfile
import threading
from pathlib import Path

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from officegym.handoff import Dispatcher, HandedServer

logger = logging.getLogger("uvicorn.error")
STOP_SECONDS = 30  # a stopping worker's time to finish its requests before it is killed


def run_worker(config: uvicorn.Config, path: str) -> None:
    """A worker process: a uvicorn server fed by the supervisor's hand-off socket at `path`."""
    config.configure_logging()
    HandedServer(config, path).run()


class Supervisor:
    """Runs `workers` processes of the app `config` names, on `listener` (a bound socket) or else
    the socket `config` binds."""

    def __init__(self, config: uvicorn.Config, workers: int, listener: socket.socket | None = None):
        self.config = config
        self.workers = workers
        self.listener = listener
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.should_exit = threading.Event()
        self.context = multiprocessing.get_context("spawn")

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM (or a worker that cannot start), then stop every worker."""
        listener = self.listener or self.config.bind_socket()
        listener.listen(self.config.backlog)
        folder = tempfile.mkdtemp(prefix="officegym-handoff-")  # mode 0700: this user's processes only
        path = str(Path(folder) / "handoff.sock")
        dispatcher = Dispatcher(listener, path)
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            dispatcher.start()
            self.processes = [self._start(path) for _ in range(self.workers)]
            while not self.should_exit.wait(0.5):
                self._replace_dead(path)
        finally:
            self._stop_all()
            dispatcher.stop()
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum, frame) -> None:
        logger.info("Received %s, stopping the workers.", signal.Signals(signum).name)
        self.should_exit.set()

    def _start(self, path: str):
        process = self.context.Process(target=run_worker, args=(self.config, path), daemon=False)
        process.start()
        return process

    def _replace_dead(self, path: str) -> None:
        for index, process in enumerate(self.processes):
            if process.is_alive():
                continue
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                logger.error("Worker [%s] could not start; stopping the server.", process.pid)
                self.should_exit.set()
                return
            logger.info("Worker [%s] died (exit code %s); starting another.", process.pid, process.exitcode)
            self.processes[index] = self._start(path)

    def _stop_all(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes the requests under way
        for process in self.processes:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
