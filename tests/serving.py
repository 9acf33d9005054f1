"""A server in a process of its own, as a user starts it, for the tests of the command line and of
several server processes sharing one episode registry."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Serving:
    """`officegym serve --scale tiny [options]` in a process of its own, on a free port, with its own
    home and episodes folder (the tests' world cache linked in: nothing to build)."""

    def __init__(self, tmp_path, settings, *options: str, database_url: str = "sqlite", admin_token: str = ""):
        self.home, self.episodes = tmp_path / "home", tmp_path / "episodes"
        if not self.home.exists():  # a second server of a test shares the first one's folders
            self.home.mkdir()
            settings.worlds_dir.mkdir(parents=True, exist_ok=True)  # a test run alone builds it
            (self.home / "worlds").symlink_to(settings.worlds_dir)
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "OFFICEGYM_ADMIN_TOKEN"}
        if admin_token:  # servers of one fleet share their admin token
            env["OFFICEGYM_ADMIN_TOKEN"] = self.admin_token = admin_token
        env.update(OFFICEGYM_HOME=str(self.home), OFFICEGYM_EPISODES_DIR=str(self.episodes),
                   OFFICEGYM_DATABASE_URL=database_url)
        self.process = subprocess.Popen([sys.executable, "-m", "officegym.cli", "serve", "--scale", "tiny", "--port",
                                         str(self.port), *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=env)
        self.printed: list[str] = []
        while not self.printed or "control API" not in self.printed[-1]:
            line = self.process.stdout.readline()
            assert line, "".join(self.printed)
            self.printed.append(line)
        self.api = f"http://127.0.0.1:{self.port}/api"

    def token(self) -> str:
        """The admin token given, or else the one from the file `serve` wrote."""
        return getattr(self, "admin_token", "") or (self.home / "admin-token").read_text().strip()

    def answering(self, seconds: float = 60) -> None:
        """Wait until the server answers (it prints its links just before it binds; workers take a
        few seconds more to start)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                assert httpx.get(f"{self.api}/episodes", headers=self.headers(), timeout=30).status_code == 200
                return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("the server did not answer")

    def headers(self) -> dict:
        """The control API's authorization."""
        return {"Authorization": f"Bearer {self.token()}"}

    def stop(self, how=signal.SIGINT) -> int:
        """Stop the server with a signal; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(how)
        return self.process.wait(30)
