"""Resets by reflink where the filesystem shares blocks (XFS here, on a loop-mounted image), and by
a full copy elsewhere (ext4, tmpfs): the same bytes either way, and a clone's changes stay its own."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from officegym.clone import can_clone, clone_file
from officegym.config import load_settings
from officegym.episodes import EpisodeStore

XFS_SIZE = 320 * 1024 * 1024


@pytest.fixture
def xfs_folder(tmp_path):
    """A folder on a fresh 320 MB XFS filesystem (its smallest size) (a loop-mounted image), or a skip where the machine
    cannot make one (it needs root, mkfs.xfs from xfsprogs and loop devices)."""
    if os.geteuid() != 0 or not shutil.which("mkfs.xfs"):
        pytest.skip("an XFS test filesystem needs root and mkfs.xfs (Debian's xfsprogs)")
    image, mount = tmp_path / "xfs.img", tmp_path / "xfs"
    mount.mkdir()
    with open(image, "wb") as out:
        out.truncate(XFS_SIZE)
    subprocess.run(["mkfs.xfs", "-q", "-f", str(image)], check=True)
    if subprocess.run(["mount", "-o", "loop", str(image), str(mount)], capture_output=True).returncode != 0:
        pytest.skip("this machine cannot mount a loop device")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_copy_on_ext4_or_tmpfs_is_a_full_copy_with_the_same_bytes(tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(300_000))
    shared = clone_file(source, tmp_path / "copy.bin")
    assert shared is can_clone(tmp_path)
    assert (tmp_path / "copy.bin").read_bytes() == source.read_bytes()


def test_on_xfs_a_clone_shares_blocks_and_changes_stay_its_own(xfs_folder):
    source = xfs_folder / "source.bin"
    data = os.urandom(1 << 20)
    source.write_bytes(data)
    assert can_clone(xfs_folder) and clone_file(source, xfs_folder / "clone.bin") is True
    with open(xfs_folder / "clone.bin", "r+b") as clone:
        clone.write(b"changed")
    assert source.read_bytes() == data
    assert (xfs_folder / "clone.bin").read_bytes() == b"changed" + data[7:]


def test_on_xfs_thirty_medium_episodes_fit_where_their_copies_would_not(xfs_folder, settings):
    """Thirty episodes of the medium world hold more bytes than the whole filesystem: they fit only
    because they share the world's blocks."""
    home = xfs_folder / "home"
    (home / "worlds").mkdir(parents=True)
    store = EpisodeStore(load_settings(home=home, episodes_dir=xfs_folder / "episodes"))
    world = EpisodeStore(settings).world("medium")
    for name in os.listdir(world.path.parent):
        if name.startswith(world.key):
            shutil.copyfile(world.path.parent / name, home / "worlds" / name)
    try:
        episodes = [store.create(scale="medium") for _ in range(30)]
        assert 30 * world.path.stat().st_size > XFS_SIZE
        free = shutil.disk_usage(xfs_folder).free
        with episodes[0].session() as session:
            assert episodes[0].actor(session).id == episodes[0].actor_id
        assert shutil.disk_usage(xfs_folder).free > free - 64 * 1024 * 1024
    finally:
        store.close()
