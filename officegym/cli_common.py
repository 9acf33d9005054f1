"""What the `officegym` commands share: stopping on SIGTERM, sweeping leftovers, world-building
progress, configuration errors in one line and the `--tools` option."""

from __future__ import annotations

import errno
import signal
import socket
import sys


def stop_on_sigterm() -> None:
    """End on SIGTERM (Docker's and systemd's stop) as on Ctrl-C, through the `finally` that deletes
    the live episodes (uvicorn restores this handler and raises the signal again after shutting down)."""
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))


def sweep(store) -> None:
    """Delete what stopped processes left behind, and say so."""
    from officegym.leftovers import sweep as sweep_leftovers

    removed = sweep_leftovers(store)
    if removed:
        print(f"officegym: deleted {len(removed)} episode(s) left by processes that no longer run", file=sys.stderr)


_progress_shown = [False]  # whether a progress line is open on standard error


def build_progress(stage: str, fraction: float) -> None:
    """Show a world build's progress on one line of standard error."""
    _progress_shown[0] = True
    print(f"\rbuilding world: {stage:<24} {fraction:6.1%}", end="", file=sys.stderr, flush=True)
    if fraction >= 1:
        end_progress_line()


def end_progress_line() -> None:
    """End an open progress line, so that what follows starts a line of its own."""
    if _progress_shown[0]:
        print(file=sys.stderr)
        _progress_shown[0] = False


def configuration_error(error: OSError) -> str | None:
    """One line saying what in the configuration failed: a folder that cannot be written (such as
    OFFICEGYM_HOME) or a full disk; None for other errors, which stay faults with their traceback."""
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST):
        return (f"cannot write {error.filename or 'a file'}: {error.strerror} (set OFFICEGYM_HOME and "
                "OFFICEGYM_EPISODES_DIR to folders you can write)")
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"out of disk space writing {error.filename or 'a file'}"
    return None


def listening_socket(host: str, port: int) -> socket.socket:
    """A server's socket, bound now, before anything is printed (a port in use is an error to report
    first), and marked TCP (see server.TcpConfig)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    bound = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        bound.bind((host, port))
    except OSError:
        bound.close()
        raise
    bound.set_inheritable(True)
    return bound


def tools_arg(text: str | None) -> str | list[str] | None:
    """`--tools`: task, all, or apps, areas and tool names separated by commas."""
    if text in (None, "", "task", "all"):
        return text or None
    return [word.strip() for word in text.split(",") if word.strip()]
