"""Process configuration, read from the environment once."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

FLEET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _default_home() -> Path:
    return Path(os.environ.get("OFFICEGYM_HOME") or Path.home() / ".cache" / "officegym")


def default_fleet() -> str:
    """The fleet a process belongs to when none is named: `OFFICEGYM_FLEET`, else one derived from
    the admin token the servers of a fleet share (`OFFICEGYM_ADMIN_TOKEN`, never the token itself),
    else this machine's name."""
    named = os.environ.get("OFFICEGYM_FLEET", "").strip()
    if named:
        return named
    token = os.environ.get("OFFICEGYM_ADMIN_TOKEN")
    if token:
        return "token-" + hashlib.sha256(f"officegym fleet {token}".encode()).hexdigest()[:12]
    return "host-" + (re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:58] or "local")


def check_fleet(name: str) -> str:
    """A fleet name as given, or ValueError saying what a fleet name may hold."""
    if not isinstance(name, str) or not FLEET_NAME.match(name):
        raise ValueError(f"a fleet name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or "
                         f"digit; got {str(name)[:80]!r}")
    return name


@dataclass
class Settings:
    """Where worlds are cached, where episodes live, and how the server binds."""

    home: Path = field(default_factory=_default_home)
    episodes_dir: Path = field(
        default_factory=lambda: Path(
            os.environ.get("OFFICEGYM_EPISODES_DIR")
            or Path(tempfile.gettempdir()) / f"officegym-episodes-{os.getuid()}"
        )
    )
    database_url: str = field(default_factory=lambda: os.environ.get("OFFICEGYM_DATABASE_URL", "sqlite"))
    host: str = field(default_factory=lambda: os.environ.get("OFFICEGYM_HOST", "127.0.0.1"))
    port: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_PORT", "8765")))
    # Names the server answers to besides the loopback names and its public URL's host ("*": any).
    allowed_hosts: list[str] = field(default_factory=lambda: [
        name for name in os.environ.get("OFFICEGYM_ALLOWED_HOSTS", "").split(",") if name.strip()])
    # Warm pool: ready copies kept of each start state (0: none), for this many start states.
    pool_size: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_POOL_SIZE", "2")))
    pool_starts: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_POOL_STARTS", "8")))
    # Live episodes of one process that keep their database connections (open files) open, the most
    # recently used; the others' are closed while idle and opened again on their next use.
    open_episodes: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_OPEN_EPISODES", "256")))
    # Full start files kept per world (each instance keeps its setup's delta for good), and how long
    # one stays after its last use even beyond that number.
    start_files: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_START_FILES", "16")))
    start_idle: float = field(default_factory=lambda: float(os.environ.get("OFFICEGYM_START_IDLE", "600")))
    admin_token: str = field(
        default_factory=lambda: os.environ.get("OFFICEGYM_ADMIN_TOKEN") or secrets.token_urlsafe(24)
    )
    # The fleet whose episodes this process lists, serves, expires and sweeps (servers of other
    # fleets may share the database and never see these).
    fleet: str = field(default_factory=default_fleet)

    @property
    def worlds_dir(self) -> Path:
        """Folder of the on-disk world cache."""
        return self.home / "worlds"


def load_settings(**overrides) -> Settings:
    """Settings from the environment, with explicit overrides taking precedence."""
    settings = Settings()
    for key, value in overrides.items():
        if value is not None:
            setattr(settings, key, Path(value) if key in ("home", "episodes_dir") else value)
    check_fleet(settings.fleet)
    return settings
