"""officegym tasks as BrowserGym tasks, played by a scripted BrowserGym policy in Debian's Chromium.

The policy works as a BrowserGym agent does: it reads the goal and the accessibility tree of each
observation (BrowserGym's own flattening, with its element ids) and answers with BrowserGym's
high-level actions (`click`, `fill`, `select_option`, `send_msg_to_user`). Nothing touches the
database: the reward is the grade of the episode when the agent reports back.
"""

from __future__ import annotations

import re
import shutil
import time

import pytest

pytest.importorskip("browsergym.core")
import gymnasium  # noqa: E402
from browsergym.utils.obs import flatten_axtree_to_str  # noqa: E402
import sqlalchemy  # noqa: E402

import officegym.adapters.browsergym_tasks as office  # noqa: E402
from officegym.apps.chat.models import Message  # noqa: E402
from officegym.tasks.registry import all_tasks  # noqa: E402

# One worker runs the module: its browser and server start once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browsergym")]


@pytest.fixture(scope="module", autouse=True)
def system_chromium():
    """Every BrowserGym browser is Debian's Chromium; Playwright is stopped for the next modules."""
    office.use_chromium(shutil.which("chromium") or "/usr/bin/chromium")
    yield
    office.stop_playwright()


def element(obs: dict, role: str, name: str) -> str:
    """The BrowserGym id of the first element of `role` whose accessible name is `name`."""
    tree = flatten_axtree_to_str(obs["axtree_object"])
    found = re.search(rf"^\s*\[(\w+)\] {role} {re.escape(repr(name))}(?:[ ,]|$)", tree, re.M)
    assert found, f"no {role} {name!r} on {obs['url']}"
    return found.group(1)


def act(env, obs: dict, step) -> tuple[dict, float, bool, dict]:
    """Take one step of a plan: every action must succeed the first time (no retries, so an action
    that worked but was reported failed would fail the test)."""
    action = step(obs)
    obs, reward, terminated, _truncated, info = env.step(action)
    assert not obs["last_action_error"], (action, obs["last_action_error"])
    return obs, reward, terminated, info


def play(task_id: str, instance: int, plan) -> tuple[float, bool, dict]:
    """Reset the task's env on `instance`, then take the plan's steps: each reads the observation
    and returns one BrowserGym action. The last step's reward, termination and info."""
    env = gymnasium.make(f"browsergym/officegym.{task_id}", pre_observation_delay=0.1)
    try:
        obs, info = env.reset(seed=instance)
        assert obs["url"].endswith(f"/e/{info['task_info']['episode']}/")
        goal = obs["goal"]
        assert goal.startswith("You are ") and "company time" in goal
        for step in plan(goal.split("Your task: ", 1)[1]):
            obs, reward, terminated, info = act(env, obs, step)
            if terminated:
                break
        return reward, terminated, info
    finally:
        env.close()


def click(role: str, name: str):
    return lambda obs: f"click({element(obs, role, name)!r})"


def fill(role: str, name: str, value: str):
    return lambda obs: f"fill({element(obs, role, name)!r}, {value!r})"


def select(name: str, option: str):
    return lambda obs: f"select_option({element(obs, 'combobox', name)!r}, {option!r})"


def say(text: str):
    return lambda obs: f"send_msg_to_user({text!r})"


def open_opportunity(name: str) -> list:
    return [click("link", "CRM"), click("link", "Opportunities"), fill("searchbox", "Search opportunities", name),
            click("button", "Filter"), click("link", name)]


def open_ticket(key: str, summary: str) -> list:
    return [click("link", "Tickets"), fill("searchbox", "Search tickets", f"key = {key}"),
            click("button", "Search"), click("link", f"{key} {summary}")]


def update_next_step(task: str) -> list:
    name, step = re.search(r'opportunity "(.+?)" to "(.+?)"\.', task).groups()
    return [*open_opportunity(name), click("link", "Edit"), fill("textbox", "Next step", step),
            click("button", "Save"), say(f"The next step of {name} is now: {step}.")]


def raise_incident_impact(task: str) -> list:
    key, summary, impact, urgency = re.search(r'on ([A-Z]+-\d+) \("(.+?)"\): .*impact to (\w+) and its urgency to '
                                              r'(\w+)\.', task).groups()
    return [*open_ticket(key, summary), click("link", "Edit"), select("Impact", impact), select("Urgency", urgency),
            click("button", "Save"), say(f"{key}: impact {impact}, urgency {urgency}.")]


def set_topic(task: str) -> list:
    channel, topic = re.search(r"topic of #(\S+): set it to exactly this text: (.+)$", task).groups()
    return [click("link", "Chat"), click("link", channel), click("link", "Details"),
            fill("textbox", "Topic", topic), click("button", "Save topic"), say(f"#{channel} has the new topic.")]


# The CRM plan plays below, all but its save, in the test of when an episode ends; the chat plan's
# steps are those of the test of slow pages (set_topic stays as a plan for a policy of one's own).
PLANS = [("tickets.raise_incident_impact", 0, raise_incident_impact)]


def test_actions_wait_for_the_page_they_cause_and_a_slow_send_posts_once():
    env = gymnasium.make("browsergym/officegym.chat.set_topic", pre_observation_delay=0.1)
    try:
        obs, info = env.reset(seed=1)
        code = env.unwrapped.action_mapping('click("a1")')
        assert f"timeout={office.ACTION_TIMEOUT_MS})" in code and "timeout=500)" not in code
        page = env.unwrapped.page

        def slow(route):  # the server answers a form 1.5 s late, as a busy machine does
            time.sleep(1.5)
            route.continue_()
        page.route("**/messages", slow)
        for step in (click("link", "Chat"), click("link", "general"), fill("textbox", "Message #general", "Slow hello"),
                     click("button", "Send")):
            obs, _reward, _terminated, _info = act(env, obs, step)  # no action is reported failed
        episode = office.local_server().store.get(info["task_info"]["episode"])
        with episode.session() as db:
            assert db.scalar(sqlalchemy.select(sqlalchemy.func.count()).where(Message.text == "Slow hello")) == 1
    finally:
        env.close()


def test_every_task_is_registered_with_browsergym():
    registered = {env_id for env_id in gymnasium.registry if env_id.startswith("browsergym/officegym.")}
    assert registered == {f"browsergym/officegym.{t.id}" for t in all_tasks()}


@pytest.mark.parametrize("task_id, instance, plan", PLANS, ids=[p[0] for p in PLANS])
def test_a_scripted_browsergym_policy_solves_the_task_in_the_browser(task_id, instance, plan):
    reward, terminated, info = play(task_id, instance, plan)
    assert terminated and reward == 1.0, info["task_info"]
    assert info["task_info"]["grade"]["success"] is True


def test_the_episode_ends_only_when_the_agent_reports_and_then_grades_the_work_done():
    # Everything but the save: the agent reports, the episode ends, and the grade is a failure.
    def unsaved(task: str) -> list:
        return update_next_step(task)[:-2] + [say("Done.")]

    reward, terminated, info = play("crm.update_next_step", 1, unsaved)
    assert terminated and reward == 0.0
    assert info["task_info"]["grade"]["success"] is False
    assert office.local_server().store.live() == []  # every episode is deleted when its env resets or closes
