"""A PostgreSQL cluster of a test's own (initdb in a temporary folder, on a free port), for tests
that restart or stop the server: the machine's shared server stays up for every other test."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from serving import free_port

BIN = Path("/usr/lib/postgresql")


def server_bin() -> Path | None:
    """The folder of the newest installed PostgreSQL's programs (initdb, pg_ctl), or None."""
    found = sorted(BIN.glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class OwnPostgres:
    """initdb, start, restart and stop of a private cluster; `url` reaches it as its superuser
    `postgres` without a password (trust on 127.0.0.1 only)."""

    def __init__(self):
        self.bin = server_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL's server programs are not installed (make test installs them)")
        # a folder of its own under the system's temporary folder, which the cluster's user can reach
        self.folder = Path(tempfile.mkdtemp(prefix="officegym-test-pg-"))
        self.data, self.log, self.port = self.folder / "data", self.folder / "server.log", free_port()
        # initdb refuses root: as root the cluster belongs to the system's postgres user
        self.user = "postgres" if os.getuid() == 0 else None
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{program} failed: {done.stderr or done.stdout}")

    def _ctl(self, action: str, *args: str) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", action, *args)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._ctl("start")

    def running(self) -> bool:
        """Whether the server runs."""
        command = [str(self.bin / "pg_ctl"), "-D", str(self.data), "status"]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, timeout=60).returncode == 0

    def restart(self) -> None:
        """Stop the server (every connection is cut) and start it again, as a restart of the cluster does."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        """Stop the server (fast: sessions are ended)."""
        self._ctl("stop", "-m", "fast")

    def remove(self) -> None:
        """Stop the server if it runs and delete the cluster's folder."""
        try:
            self.stop()
        except RuntimeError:
            pass  # not running
        shutil.rmtree(self.folder, ignore_errors=True)
