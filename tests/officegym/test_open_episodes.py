"""Live episodes are bounded by memory, not open files: only the most recently used keep their
database connections open, an idle one's closed connection is opened again by its next use (same
state, same trajectory, same grade), and a store raises the soft limit of open files to the hard one."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client import Client

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.open_episodes import OpenEpisodes

ROOT = Path(__file__).resolve().parents[2]
TASK = "chat.set_topic"


def _open_files() -> list[str]:
    """What this process's file descriptors point at."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            found.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:  # the listing's own descriptor, closed meanwhile
            pass
    return found


def _call(episode, name: str, args: dict):
    async def run():
        async with Client(episode.mcp_server()) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def test_only_the_most_recently_used_episodes_keep_a_connection_open(tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path, open_episodes=3))
    try:
        made = [store.create(scale="tiny") for _ in range(8)]
        for episode in made:
            with episode.session() as session:
                episode.actor(session)
        open_now = [path for path in _open_files() if path.startswith(str(tmp_path))]
        assert sorted(open_now) == sorted(str(e.path) for e in made[-3:])
        assert len(store.open_episodes) == 3 and store.open_episodes.closed == 5
        before = _call(made[0], "org_get_me", {})  # the oldest, closed: opened again
        assert not before.is_error and before.structured_content["id"] == made[0].actor_id
        assert len(made[0].trajectory) == 1
        assert str(made[0].path) in _open_files() and str(made[1].path) not in _open_files()
    finally:
        store.close()


def test_an_episode_in_a_session_keeps_its_connection_however_many_others_are_used(tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path, open_episodes=1))
    try:
        busy, other = store.create(scale="tiny"), store.create(scale="tiny")
        with busy.session() as session:
            busy.actor(session)
            with other.session() as second:
                other.actor(second)
            assert busy.actor(session).id == busy.actor_id  # still connected
            assert str(busy.path) in _open_files()
        with busy.session() as session:  # now `other`, idle, is closed
            busy.actor(session)
        assert str(other.path) not in _open_files()
    finally:
        store.close()


def test_the_list_skips_a_busy_episode_and_closes_the_next_idle_one():
    class Probe:
        def __init__(self, name: str, busy: bool):
            self.id, self.busy, self.closed = name, busy, False

        def close_if_idle(self) -> bool:
            self.closed = not self.busy
            return self.closed

    episodes = OpenEpisodes(2)
    busy, idle, newer, newest = Probe("a", True), Probe("b", False), Probe("c", False), Probe("d", False)
    for probe in (busy, idle, newer, newest):
        episodes.used(probe)
    assert (busy.closed, idle.closed, newer.closed, newest.closed) == (False, True, True, False)
    assert len(episodes) == 2 and episodes.closed == 2
    episodes.forget(Probe("a", False))  # another object with the same id: not the one listed
    assert len(episodes) == 2


# Run in a process of its own whose limit of open files is 1024, soft and hard (the store cannot
# raise it): 1,200 episodes that each opened their database, as the control API's create does.
MANY_EPISODES = """
import json, resource, sys
import anyio
from officegym.episodes import EpisodeStore

LIMIT, TASK = int(sys.argv[1]), sys.argv[2]
resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
store = EpisodeStore()

def call(episode, name, args):  # through the episode's MCP server, as a served call reaches it
    result = anyio.run(episode.mcp_server().call_tool, name, args)
    assert not result.is_error, (episode.id, name, result.content)
    return result.structured_content

task = store.create(TASK, 0, scale="tiny")
made = [task]
while len(made) < 1200:
    episode = store.create(scale="tiny")
    with episode.session() as session:
        session.connection()  # opened and kept, as a create through the control API leaves it
    made.append(episode)
for call_ in store.task_instance(store.world("tiny"), TASK, 0).solution:
    call(task, call_.tool, call_.args)
spread = [*range(1, 1200, 25), 1199]  # with the oldest (the task's), 50 episodes
me = [call(made[k], "org_get_me", {})["id"] for k in spread]
assert me == [made[k].actor_id for k in spread], me
first = task.grade()
assert task.close_if_idle()  # closed again: the next grade opens the file again
second = task.grade()
print(json.dumps({"success": first.success, "same": first.to_dict() == second.to_dict(),
                  "steps": [len(task.trajectory), len(made[1].trajectory), len(made[1199].trajectory)],
                  "open": len(store.open_episodes), "closed": store.open_episodes.closed,
                  "soft": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}))
"""  # no store.close(): the test's folder goes with its episodes


def test_twelve_hundred_live_episodes_under_a_limit_of_1024_open_files(tmp_path, sqlite_store):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    limit = 1024 if hard == resource.RLIM_INFINITY else min(1024, hard)
    env = {**os.environ, "OFFICEGYM_EPISODES_DIR": str(tmp_path), "OFFICEGYM_POOL_SIZE": "0"}
    env.pop("OFFICEGYM_OPEN_EPISODES", None)  # the default
    probe = subprocess.run([sys.executable, "-c", MANY_EPISODES, str(limit), TASK], capture_output=True, text=True,
                           env=env, cwd=ROOT, timeout=600)
    assert probe.returncode == 0, probe.stderr[-3000:]
    measured = json.loads(probe.stdout.strip().splitlines()[-1])
    solution_steps = len(sqlite_store.task_instance(sqlite_store.world("tiny"), TASK, 0).solution)
    assert measured["success"] is True and measured["same"] is True, measured
    assert measured["steps"] == [solution_steps, 1, 1] and measured["soft"] == limit, measured
    kept_open = load_settings().open_episodes
    assert measured["open"] <= kept_open and measured["closed"] >= 1200 - kept_open, measured


RAISE = """
import resource
from officegym.episodes import EpisodeStore
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
EpisodeStore()
print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard)
"""


def test_a_store_raises_the_soft_limit_of_open_files_to_the_hard_one(tmp_path):
    env = {**os.environ, "OFFICEGYM_EPISODES_DIR": str(tmp_path)}
    probe = subprocess.run([sys.executable, "-c", RAISE], capture_output=True, text=True, env=env, cwd=ROOT,
                           timeout=120)
    assert probe.returncode == 0, probe.stderr[-3000:]
    assert probe.stdout.strip() == "True"
