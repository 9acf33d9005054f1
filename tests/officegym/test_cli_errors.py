"""The command line's first minute going wrong: a bad port, a port in use, an unwritable home, a
database that refuses connections or does not exist each end in one line on standard error and
exit code 2, before any link is printed; Ctrl-C during a world build ends without a traceback and
leaves nothing that blocks the next build."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys

import pytest
from serving import free_port
from sqlalchemy.engine import make_url


def run(*args: str, home, **env: str) -> subprocess.CompletedProcess:
    """`officegym ARGS` with its own home (and episodes folder beside it), as a user runs it."""
    environment = {**os.environ, "OFFICEGYM_HOME": str(home), "OFFICEGYM_EPISODES_DIR": f"{home}-episodes", **env}
    return subprocess.run([sys.executable, "-m", "officegym.cli", *args], capture_output=True, text=True,
                          env=environment, timeout=120)


def one_line(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit code 2, nothing on standard output, and one line on standard error holding `words`."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert all(word in done.stderr for word in words), done.stderr


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_a_port_out_of_range_is_refused_in_one_line(tmp_path, port):
    one_line(run("serve", "--port", port, home=tmp_path / "home"), f"port holds {port};", "from 1 to 65535")
    assert not (tmp_path / "home").exists()  # refused before anything was made


# One setting of each kind, set to a value it may not hold: (variable, value, what the line says is allowed).
BAD_SETTINGS = [
    ("OFFICEGYM_PORT", "abc", "a whole number from 1 to 65535"),
    ("OFFICEGYM_POOL_SIZE", "-1", "a whole number of 0 or more"),
    ("OFFICEGYM_START_IDLE", "nan", "a number of seconds, 0 or more"),
    ("OFFICEGYM_FLEET", "a b", "a fleet name is 1-64 letters"),
    ("OFFICEGYM_HOST", "a b", "an IP address such as 127.0.0.1"),
    ("OFFICEGYM_ALLOWED_HOSTS", "officegym,a b", "host names separated by commas"),
    ("OFFICEGYM_PUBLIC_URL", "gym.example.com", "an http(s) address"),
    ("OFFICEGYM_DATABASE_URL", "mysql://localhost/gym", "use 'sqlite' or 'postgresql://"),
]


@pytest.mark.parametrize("variable, value, allowed", BAD_SETTINGS, ids=[bad[0] for bad in BAD_SETTINGS])
def test_a_setting_the_environment_gives_a_bad_value_is_one_line_naming_it(tmp_path, variable, value, allowed):
    one_line(run("serve", "--scale", "tiny", home=tmp_path / "home", **{variable: value}),
             f"officegym serve: {variable} holds {value!r};", allowed)
    assert not (tmp_path / "home").exists()  # refused before anything was made


def test_a_bad_admin_token_is_refused_without_printing_it(tmp_path):
    done = run("build", "--scale", "tiny", home=tmp_path / "home", OFFICEGYM_ADMIN_TOKEN="s3cret token")
    one_line(done, "OFFICEGYM_ADMIN_TOKEN holds a value of 12 characters", "visible ASCII characters")
    assert "s3cret" not in done.stderr


def test_a_port_in_use_is_refused_before_any_link_is_printed(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line(run("serve", "--scale", "tiny", "--port", str(port), home=tmp_path / "home"),
                 f"cannot listen on 127.0.0.1:{port}", "in use")


def test_a_home_that_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    home = tmp_path / "a-file" / "home"
    for command in (("serve", "--scale", "tiny", "--port", str(free_port())), ("build", "--scale", "tiny")):
        one_line(run(*command, home=home), f"cannot write {home}", "OFFICEGYM_HOME")


def test_a_database_that_refuses_connections_or_is_missing_is_one_line(tmp_path, postgres_url):
    refusing = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    missing = make_url(postgres_url).set(database="officegym_no_such_database").render_as_string(hide_password=True)
    for url, words, command in (
            (refusing, "Connection refused", ("serve", "--scale", "tiny", "--port", str(free_port()))),
            (missing, 'database "officegym_no_such_database" does not exist', ("build", "--scale", "tiny"))):
        one_line(run(*command, home=tmp_path / "home", OFFICEGYM_DATABASE_URL=url),
                 f"cannot use the database {url}", words)


def test_ctrl_c_during_a_world_build_ends_without_a_traceback_and_blocks_no_later_build(tmp_path):
    home = tmp_path / "home"
    environment = {**os.environ, "OFFICEGYM_HOME": str(home), "OFFICEGYM_EPISODES_DIR": str(tmp_path / "episodes")}
    # seed 41 of the small world: a world no test builds, which takes seconds
    build = subprocess.Popen([sys.executable, "-m", "officegym.cli", "build", "--scale", "small", "--seed", "41"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    shown = b""
    while b"building world" not in shown:
        chunk = os.read(build.stderr.fileno(), 200)
        assert chunk, shown
        shown += chunk
    build.send_signal(signal.SIGINT)
    _, rest = build.communicate(timeout=60)
    said = (shown + rest).decode()
    assert build.returncode == 130 and "Traceback" not in said, said
    assert said.splitlines()[-1] == "officegym build: interrupted"
    worlds = home / "worlds"
    assert sorted(path.suffix for path in worlds.iterdir()) == [".lock"]  # no half-built world, no record
    with open(next(worlds.iterdir()), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody holds it: the next build starts at once
