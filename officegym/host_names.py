"""The names a served officegym answers to (see host_check.py): what a host name is and the set made
of the loopback names, the public URL's host and the names an operator adds. Plain Python, so that
settings can be checked before the web stack is imported."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def host_name(value: str) -> str | None:
    """The name part of a Host header or netloc ("[::1]:8765" -> "::1"), lower case; None when it is
    not one."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/@?# \t"):
        return None
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1:]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return value[1:end]
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def allowed_names(public_url: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a server answers to: the loopback names, the public URL's host and `extra` ("*"
    kept as is)."""
    names = set(LOOPBACK_NAMES)
    public = urlsplit(public_url).hostname
    if public:
        names.add(public.lower())
    for item in extra:
        item = item.strip()
        if item == "*":
            names.add("*")
        elif item:
            name = host_name(item)
            if name is None:
                raise ValueError(f"{item!r} is not a host name (give a name such as officegym or 10.0.0.5)")
            names.add(name)
    return frozenset(names)
