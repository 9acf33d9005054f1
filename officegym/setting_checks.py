"""What each setting may hold. A check takes where the value came from (an environment variable's
name, or the keyword it was given as) and the value, and returns it parsed, or raises SettingError
whose message names the setting, what it holds and what is allowed, in one line."""

from __future__ import annotations

import ipaddress
import math
import os
import re
from typing import Callable, TypeVar
from urllib.parse import urlsplit

from officegym.host_names import allowed_names

Parsed = TypeVar("Parsed")
FLEET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]+$")
POSTGRES_SCHEMES = ("postgresql://", "postgresql+psycopg://", "postgres://")


class SettingError(ValueError):
    """A setting holds a value it may not hold."""

    def __init__(self, source: str, shown: str, allowed: str):
        super().__init__(f"{source} holds {shown}; {allowed}")


def from_environment(name: str, default: Parsed, check: Callable[[str, str], Parsed]) -> Parsed:
    """The setting in environment variable `name` as `check` parses it; `default` when it is unset
    or blank."""
    raw = os.environ.get(name, "").strip()
    return check(name, raw) if raw else default


def whole_number(low: int, high: int | None = None, meaning: str = "") -> Callable[[str, object], int]:
    """A check of whole numbers from `low` (to `high`); `meaning` says what the number counts."""
    bounds = f"from {low} to {high}" if high is not None else f"of {low} or more"
    allowed = f"give a whole number {bounds}" + (f" ({meaning})" if meaning else "")

    def check(source: str, value: object) -> int:
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?\d+", text) or int(text) < low or (high is not None and int(text) > high):
            raise SettingError(source, repr(value), allowed)
        return int(text)
    return check


def seconds(source: str, value: object) -> float:
    """A number of seconds, 0 or more."""
    try:
        number = float(str(value).strip())
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise SettingError(source, repr(value), "give a number of seconds, 0 or more, such as 600 or 0.5")
    return number


port_number = whole_number(1, 65535, "a TCP port")


def fleet_name(source: str, value: str) -> str:
    """A fleet's name."""
    if not isinstance(value, str) or not FLEET_NAME.match(value):
        raise SettingError(source, repr(str(value)[:80]), "a fleet name is 1-64 letters, digits, '.', '_' or '-', "
                                                          "starting with a letter or digit")
    return value


def bind_address(source: str, value: str) -> str:
    """The address a server binds: an IP address or a host name."""
    text = value.strip()
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        if text and len(text) <= 253 and all(HOST_LABEL.match(label) for label in text.rstrip(".").split(".")):
            return text
    raise SettingError(source, repr(value), "give an IP address such as 127.0.0.1, 0.0.0.0 or ::, or a host name")


def host_names(source: str, value: str | list[str]) -> list[str]:
    """Names a server answers to besides its own: comma-separated host names, or '*' for any."""
    names = [name.strip() for name in (value.split(",") if isinstance(value, str) else value) if name.strip()]
    try:
        allowed_names("", names)
    except ValueError:
        raise SettingError(source, repr(value), "give host names separated by commas, such as "
                                                "officegym,10.0.0.5, or '*' for any") from None
    return names


def web_address(source: str, value: str) -> str:
    """An http(s) address a client reaches a server at, without a trailing slash."""
    parts = urlsplit(value.strip())
    try:
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and not (parts.query or parts.fragment)
        parts.port  # a port that is not a number raises here  # noqa: B018
    except ValueError:
        valid = False
    if not valid:
        raise SettingError(source, repr(value), "give an http(s) address such as https://gym.example.com or "
                                                "http://10.0.0.5:8765")
    return value.strip().rstrip("/")


def database_address(source: str, value: str) -> str:
    """Where episodes live: 'sqlite' or a PostgreSQL URL."""
    text = value.strip()
    if text != "sqlite" and not text.startswith(POSTGRES_SCHEMES):
        # never the password a URL may hold
        shown = repr(f"{text.partition(':')[0]}:...@{text.rpartition('@')[2]}" if "@" in text else text)
        raise SettingError(source, shown, "use 'sqlite' or 'postgresql://user@host:port/database'")
    return text


def admin_token(source: str, value: str) -> str:
    """The control API's admin token: visible ASCII characters, no spaces (it travels in a header)."""
    if not VISIBLE_ASCII.match(value):
        # never the token itself: what is printed ends up in logs
        raise SettingError(source, f"a value of {len(value)} characters with a space, control or non-ASCII one",
                           "an admin token is visible ASCII characters without spaces (unset: a random one)")
    return value
