"""Helpers of the MCP tool tests that build a scene of records for several roles."""

from __future__ import annotations


def scene_worlds(store, agent, roles, build):
    """Body of a `world` fixture: a factory `make(who)` of fresh tiny episodes acting as `roles(s)[who]`
    with `build(s)` run in setup, returning (Agent, scene); the episodes are deleted afterwards."""
    made = []

    def make(who: str):
        with agent.episode.session() as s:
            handle = roles(s)[who].handle
        made.append(store.create(scale="tiny", seed=0, actor=handle))
        with made[-1].session("setup") as s:
            scene = build(s)
        return type(agent)(made[-1]), scene

    yield make
    for episode in made:
        store.delete(episode.id)
