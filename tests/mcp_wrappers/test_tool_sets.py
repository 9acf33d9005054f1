"""Tool sets: the areas split the catalogue, a task episode serves its task's tools by default, and an
episode serves exactly the set it was created with: tools/list shows it, a call outside it is refused."""

from __future__ import annotations

import re

import anyio
import pytest
from mcp.client import Client

from officegym.errors import Invalid
from officegym.mcp_wrappers.server import catalog
from officegym.mcp_wrappers.toolsets import ALWAYS, APPS, AREAS, TASK_LIMIT, app_of, areas, resolve
from officegym.tasks.registry import all_tasks, get_task

NAMES = [t.name for t in catalog()]


def served(episode) -> list[str]:
    """The tool names tools/list returns for an episode."""

    async def run():
        async with Client(episode.mcp_server()) as client:
            return [t.name for t in (await client.list_tools()).tools]

    return anyio.run(run)


def call(episode, name: str, args: dict):
    """One tool call through the SDK client."""

    async def run():
        async with Client(episode.mcp_server()) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def test_areas_split_the_catalogue_each_within_one_app():
    by_area = areas(NAMES)
    assert sorted(n for tools in by_area.values() for n in tools) == sorted(NAMES)
    assert all(n in NAMES for tools in AREAS.values() for n in tools)
    for area, tools in by_area.items():
        assert len({app_of(n) for n in tools}) == 1 or area == "handbook", area
        assert area.split(".")[0] in (*APPS, *ALWAYS), area


def test_every_template_has_a_default_set_within_the_limit():
    for template in all_tasks():
        names = resolve("task", NAMES, template)
        assert len(names) <= TASK_LIMIT, (template.id, len(names))
        assert {"submit_answer", "org_get_me", "org_search_people", "tickets_search_articles"} <= set(names)
        apps = {app_of(n) for n in names} - {"answer", "org"}
        assert set(template.apps) - {"org"} <= apps, template.id
        whole = resolve([*ALWAYS, *template.apps], NAMES)
        if template.toolsets:  # only where its apps hold too many tools
            assert len(whole) > TASK_LIMIT, f"{template.id} names areas though its apps fit"
        else:
            assert names == whole, template.id


def test_a_task_episode_serves_its_task_tools_by_default(store):
    template = get_task("chat.set_topic")
    episode = store.create(template.id, 0, "small", 0)
    try:
        names = served(episode)
        assert names == list(resolve("task", NAMES, template)) == list(episode.tools)
        assert not any(n.startswith(("crm_", "sheets_")) for n in names)
        refused = call(episode, "crm_list_accounts", {})
        assert refused.is_error and "not among this episode's tools" in refused.content[0].text
        unknown = call(episode, "crm_list_everything", {})
        assert unknown.is_error and "Unknown tool" in unknown.content[0].text
    finally:
        store.delete(episode.id)


def test_an_episode_serves_exactly_the_set_asked_for(store):
    asked = ["chat", "crm.sales", "org_get_me"]
    episode = store.create("chat.set_topic", 0, "small", 0, tools=asked)
    everything = store.create("chat.set_topic", 0, "small", 0, tools="all")
    free = store.create(scale="tiny")
    try:
        expected = [n for n in NAMES if n.startswith("chat_") or n in AREAS["crm.sales"] or n == "org_get_me"]
        assert served(episode) == expected
        assert served(everything) == served(free) == NAMES
        assert not call(episode, "org_get_me", {}).is_error
        assert call(episode, "submit_answer", {"answer": "x"}).is_error
    finally:
        for made in (episode, everything, free):
            store.delete(made.id)


@pytest.mark.parametrize("tools, says", [
    ("some", "must be"), ([], "must be"), (["chat", 3], "must be"), (["payroll"], "'payroll' is not an app"),
    (["crm_fly_to_moon"], "is not an app"), ({"chat": True}, "must be"), (["chat"] * 500, "at most"),
])
def test_a_bad_tool_set_is_refused_before_any_episode_is_made(store, tools, says):
    live = len(store.live())
    with pytest.raises(Invalid, match=says):
        store.create("chat.set_topic", 0, "small", 0, tools=tools)
    assert len(store.live()) == live


def test_the_free_episode_has_no_task_set(store):
    with pytest.raises(Invalid, match='"task" needs a task episode'):
        store.create(scale="tiny", tools="task")


def test_the_harness_guide_names_every_area():
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "harness.md").read_text()
    table = guide.split("| area |", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"^\| `([a-z.]+)` \|", table, re.MULTILINE))
    assert listed == set(areas(NAMES)) and f"all {len(NAMES)} tools" in guide
