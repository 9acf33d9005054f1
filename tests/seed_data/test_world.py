"""The world builder: deterministic to the byte, different per seed, and a coherent company."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from sqlalchemy import func, select

from officegym.apps.chat.models import Channel, Membership, Mention, Message, Pin, Reaction
from officegym.apps.chat.services import mentioned_handles
from officegym.apps.org.models import Person, Team
from officegym.config import load_settings
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.errors import Invalid
from officegym.seed_data import vocab
from officegym.seed_data.chat import PLACEHOLDERS
from officegym.seed_data.world import SCALES, build_world
from officegym.worlds import ensure_world


def _fresh(tmp_path, name, scale="tiny", seed=0):
    return ensure_world(scale, seed, load_settings(home=tmp_path / name))


def test_same_seed_gives_the_same_world_to_the_byte(tmp_path):
    first, second = _fresh(tmp_path, "a"), _fresh(tmp_path, "b")
    assert first.content_hash == second.content_hash
    assert first.path.read_bytes() == second.path.read_bytes()


def test_another_seed_gives_another_company(tmp_path):
    first, other = _fresh(tmp_path, "a"), _fresh(tmp_path, "b", seed=1)
    assert first.content_hash != other.content_hash
    names = []
    for world in (first, other):
        with make_sessionmaker(sqlite_engine(str(world.path), readonly=True))() as session:
            names.append(set(session.scalars(select(Person.name))))
    assert len(names[0] & names[1]) < len(names[0]) // 2


def test_unknown_scale_is_a_clear_error(tmp_path):
    with pytest.raises(Invalid, match="Unknown scale 'huge'. Scales: tiny, small"):
        build_world(None, "huge")


def test_every_vocab_placeholder_is_known():
    text = repr({k: getattr(vocab, k) for k in dir(vocab) if k.isupper()})
    used = set(re.findall(r"\{(\w+)\}", text))
    assert used <= PLACEHOLDERS, used - PLACEHOLDERS


@pytest.fixture(scope="module", params=["tiny", "small"])
def world(request):
    built = ensure_world(request.param, 0)
    with make_sessionmaker(sqlite_engine(str(built.path), readonly=True))() as session:
        yield request.param, session


def test_directory_is_a_company(world):
    scale, session = world
    people = list(session.scalars(select(Person)))
    assert len(people) == SCALES[scale].people
    roles = Counter(p.role for p in people)
    assert roles["owner"] == 1 and 1 <= roles["admin"] <= 3
    owner = next(p for p in people if p.role == "owner")
    assert owner.manager_id is None and all(p.manager_id for p in people if p is not owner)
    assert len({p.email for p in people}) == len(people)
    it_support = session.scalar(select(Team).where(Team.slug == "it-support"))
    assert it_support is not None and session.get(Person, it_support.lead_id).team_id == it_support.id


def test_channels_are_realistic(world):
    _scale, session = world
    channels = list(session.scalars(select(Channel)))
    names = {c.name for c in channels}
    assert {"general", "random", "it-help", "security", "leadership"} <= names
    assert any(n.startswith("team-") for n in names) and any(n.startswith("proj-") for n in names)
    kinds = Counter(c.kind for c in channels)
    assert kinds["private"] >= 1 and kinds["dm"] >= 3 and kinds["group_dm"] >= 1
    assert sum(c.is_archived for c in channels) == 1
    general = next(c for c in channels if c.name == "general")
    members = session.scalar(select(func.count()).where(Membership.channel_id == general.id))
    assert members == session.scalar(select(func.count()).select_from(Person))


def test_conversations_have_threads_reactions_mentions_and_pins(world):
    _scale, session = world
    messages = list(session.scalars(select(Message)))
    assert len(messages) >= 150
    assert sum(m.thread_parent_id is not None for m in messages) >= 40
    assert session.scalar(select(func.count()).select_from(Reaction)) >= 40
    assert session.scalar(select(func.count()).select_from(Pin)) >= 5
    assert not any("{" in m.text or "}" in m.text for m in messages)
    handles = {p.handle: p.id for p in session.scalars(select(Person))}
    mentions = {(m.message_id, m.person_id) for m in session.scalars(select(Mention))}
    expected = {(m.id, handles[h]) for m in messages for h in mentioned_handles(m.text) if h in handles}
    assert mentions == expected and len(mentions) >= 10


def test_authors_belong_to_their_channels_and_history_ends_before_today(world):
    _scale, session = world
    members = set(session.execute(select(Membership.channel_id, Membership.person_id)).all())
    joined = {(c, p): at for c, p, at in session.execute(
        select(Membership.channel_id, Membership.person_id, Membership.joined_at))}
    for m in session.scalars(select(Message)):
        assert (m.channel_id, m.author_id) in members, m
        assert joined[(m.channel_id, m.author_id)] <= m.created_at
        if m.thread_parent_id:
            parent = session.get(Message, m.thread_parent_id)
            assert parent.channel_id == m.channel_id and parent.id < m.id
    from officegym.clock import today
    newest = session.scalar(select(func.max(Message.created_at)))
    assert newest < today(session)


def test_another_process_with_another_hash_seed_builds_the_same_world(tmp_path):
    import os
    import subprocess
    import sys

    here = _fresh(tmp_path, "here")
    env = dict(os.environ, OFFICEGYM_HOME=str(tmp_path / "there"), PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-m", "officegym.cli", "build", "--scale", "tiny", "--seed", "0"],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == here.content_hash
    assert open(out[2], "rb").read() == here.path.read_bytes()
