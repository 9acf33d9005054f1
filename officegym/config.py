"""Process configuration, read from the environment once."""

from __future__ import annotations

import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def _default_home() -> Path:
    return Path(os.environ.get("OFFICEGYM_HOME") or Path.home() / ".cache" / "officegym")


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
    # Full start files kept per world (each instance keeps its setup's delta for good), and how long
    # one stays after its last use even beyond that number.
    start_files: int = field(default_factory=lambda: int(os.environ.get("OFFICEGYM_START_FILES", "16")))
    start_idle: float = field(default_factory=lambda: float(os.environ.get("OFFICEGYM_START_IDLE", "600")))
    admin_token: str = field(
        default_factory=lambda: os.environ.get("OFFICEGYM_ADMIN_TOKEN") or secrets.token_urlsafe(24)
    )

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
    return settings
