"""A full disk, made real with a small tmpfs as the episodes folder: a write through MCP or a page
says the server is out of disk space and saves nothing; creating an episode through the control API
answers 507 with a message and leaves no file behind, whether the copy or the record did not fit."""

from __future__ import annotations

import os
import shutil
import subprocess

import httpx
import pytest
from sqlalchemy import func, select

from officegym.apps.chat.models import Channel
from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.failures import OUT_OF_SPACE
from officegym.web import create_app
from test_races import call

PAGE = 4096


@pytest.fixture
def small_disk(tmp_path):
    """An empty folder on a tmpfs of 8 MB, unmounted afterwards."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    mount = [*sudo, "mount", "-t", "tmpfs", "-o", f"size=8m,uid={os.getuid()},gid={os.getgid()}", "tmpfs", str(folder)]
    if shutil.which(mount[0]) is None or subprocess.run(mount, capture_output=True).returncode != 0:
        pytest.skip("a full disk is a small tmpfs here, and mounting one needs root or passwordless sudo")
    try:
        yield folder
    finally:
        subprocess.run([*sudo, "umount", "-l", str(folder)], check=True)


@pytest.fixture
def disk_settings(small_disk, settings):
    """Settings whose episodes live on the small disk (no warm pool: its copies would take the room)."""
    return load_settings(home=settings.home, episodes_dir=small_disk, pool_size=0)


@pytest.fixture
def disk_store(disk_settings):
    """A store of episodes on the small disk."""
    store = EpisodeStore(disk_settings)
    yield store
    store.close()


def fill(folder, leave_pages: int = 0) -> None:
    """Take all the room of `folder`'s disk but `leave_pages` pages."""
    room = os.statvfs(folder)
    with open(folder / "filler", "wb") as out:
        out.write(bytes(max(room.f_bavail * room.f_frsize - leave_pages * PAGE, 0)))
    assert os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize // PAGE == leave_pages


def channels(episode) -> int:
    with episode.session() as session:
        return session.scalar(select(func.count()).select_from(Channel))


def test_a_write_on_a_full_disk_says_so_through_mcp_and_the_ui(disk_store, small_disk):
    episode = disk_store.create(scale="tiny")
    before = channels(episode)
    fill(small_disk)
    answer = call(episode, "chat_create_channel", {"name": "no-room", "topic": "x" * 250})
    said = " ".join(getattr(c, "text", "") for c in answer.content)
    assert answer.is_error and said == OUT_OF_SPACE
    app = create_app(disk_store, secret_key="test-secret")
    with app.test_client() as browser:
        with browser.session_transaction() as session:
            session["csrf"] = "token"
        page = browser.post(f"/e/{episode.id}/chat/channels/new",
                            data={"name": "no-room", "topic": "x" * 200, "csrf_token": "token"})
    assert page.status_code == 507 and "out of disk space" in page.get_data(as_text=True)
    (small_disk / "filler").unlink()
    assert channels(episode) == before
    assert not call(episode, "chat_create_channel", {"name": "room-again"}).is_error


def test_creating_an_episode_on_a_full_disk_answers_507_and_leaves_nothing_behind(disk_settings, small_disk, serve):
    with serve(disk_settings, "tiny") as server:
        def create() -> httpx.Response:
            return httpx.post(f"{server.base_url}/api/episodes", json={"task": "chat.set_topic"},
                              headers=server.admin, timeout=60)

        made = create()
        assert made.status_code == 201, made.text
        pages = -(-(small_disk / f"{made.json()['id']}.sqlite").stat().st_size // PAGE)
        assert httpx.delete(f"{server.base_url}/api/episodes/{made.json()['id']}", headers=server.admin).status_code == 200
        left = sorted(os.listdir(small_disk))
        for room, what in ((0, "no room for the copy"), (pages, "room for the copy, none for its record")):
            fill(small_disk, room)
            refused = create()
            assert refused.status_code == 507, (what, refused.text)
            assert refused.json() == {"error": OUT_OF_SPACE, "kind": "out_of_space"}
            (small_disk / "filler").unlink()
            assert sorted(os.listdir(small_disk)) == left, what  # no .json.partial, no half copy
        assert create().status_code == 201  # with room again, episodes are made as before
