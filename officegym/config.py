"""Process configuration, read from the environment once."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import tempfile
from dataclasses import dataclass, field, fields
from pathlib import Path

from officegym.setting_checks import (SettingError, admin_token, bind_address, database_address, fleet_name,
                                      from_environment, host_names, port_number, seconds, web_address,
                                      whole_number)

__all__ = ["Settings", "SettingError", "default_fleet", "load_settings"]


COPIES = whole_number(0, meaning="ready copies; 0: no warm pool")
STATES = whole_number(1, meaning="start states")
OPEN_EPISODES = whole_number(1, meaning="episodes")
START_FILES = whole_number(0, meaning="files")


def _default_home() -> Path:
    return Path(os.environ.get("OFFICEGYM_HOME") or Path.home() / ".cache" / "officegym")


def default_fleet() -> str:
    """The fleet a process belongs to when none is named: `OFFICEGYM_FLEET`, else one derived from
    the admin token the servers of a fleet share (`OFFICEGYM_ADMIN_TOKEN`, never the token itself),
    else this machine's name."""
    named = from_environment("OFFICEGYM_FLEET", "", fleet_name)
    if named:
        return named
    token = from_environment("OFFICEGYM_ADMIN_TOKEN", "", admin_token)
    if token:
        return "token-" + hashlib.sha256(f"officegym fleet {token}".encode()).hexdigest()[:12]
    return "host-" + (re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:58] or "local")


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
    database_url: str = field(
        default_factory=lambda: from_environment("OFFICEGYM_DATABASE_URL", "sqlite", database_address))
    host: str = field(default_factory=lambda: from_environment("OFFICEGYM_HOST", "127.0.0.1", bind_address))
    port: int = field(default_factory=lambda: from_environment("OFFICEGYM_PORT", 8765, port_number))
    # The address clients reach the server at, printed in links ("": http://host:port).
    public_url: str = field(default_factory=lambda: from_environment("OFFICEGYM_PUBLIC_URL", "", web_address))
    # Names the server answers to besides the loopback names and its public URL's host ("*": any).
    allowed_hosts: list[str] = field(
        default_factory=lambda: from_environment("OFFICEGYM_ALLOWED_HOSTS", [], host_names))
    # Warm pool: ready copies kept of each start state (0: none), for this many start states.
    pool_size: int = field(default_factory=lambda: from_environment("OFFICEGYM_POOL_SIZE", 2, COPIES))
    pool_starts: int = field(default_factory=lambda: from_environment("OFFICEGYM_POOL_STARTS", 8, STATES))
    # Live episodes of one process that keep their database connections (open files) open, the most
    # recently used; the others' are closed while idle and opened again on their next use.
    open_episodes: int = field(
        default_factory=lambda: from_environment("OFFICEGYM_OPEN_EPISODES", 256, OPEN_EPISODES))
    # Full start files kept per world (each instance keeps its setup's delta for good), and how long
    # one stays after its last use even beyond that number.
    start_files: int = field(default_factory=lambda: from_environment("OFFICEGYM_START_FILES", 16, START_FILES))
    start_idle: float = field(default_factory=lambda: from_environment("OFFICEGYM_START_IDLE", 600.0, seconds))
    admin_token: str = field(
        default_factory=lambda: from_environment("OFFICEGYM_ADMIN_TOKEN", "", admin_token) or secrets.token_urlsafe(24)
    )
    # The fleet whose episodes this process lists, serves, expires and sweeps (servers of other
    # fleets may share the database and never see these).
    fleet: str = field(default_factory=default_fleet)

    @property
    def worlds_dir(self) -> Path:
        """Folder of the on-disk world cache."""
        return self.home / "worlds"


def load_settings(**overrides) -> Settings:
    """Settings from the environment, with explicit overrides (None: not given) taking precedence.
    A value a setting may not hold, from either, raises SettingError naming it."""
    known = {item.name for item in fields(Settings)}
    given = {}
    for key, value in overrides.items():
        if key not in known:
            raise TypeError(f"load_settings() got an unexpected setting {key!r}")
        if value is not None:
            check = OVERRIDE_CHECKS.get(key)
            given[key] = Path(value) if key in ("home", "episodes_dir") else check(key, value) if check else value
    return Settings(**given)  # reads from the environment only the settings not given


# How each setting given to load_settings is checked (those read from the environment are checked
# where they are read, above).
OVERRIDE_CHECKS = {
    "database_url": database_address, "host": bind_address, "port": port_number, "public_url": web_address,
    "allowed_hosts": host_names, "pool_size": COPIES, "pool_starts": STATES, "open_episodes": OPEN_EPISODES,
    "start_files": START_FILES, "start_idle": seconds, "admin_token": admin_token, "fleet": fleet_name}
