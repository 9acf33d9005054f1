"""officegym tasks as BrowserGym tasks, played by a scripted BrowserGym policy in Debian's Chromium.

The policy works as a BrowserGym agent does: it reads the goal and the accessibility tree of each
observation (BrowserGym's own flattening, with its element ids) and answers with BrowserGym's
high-level actions (`click`, `fill`, `select_option`, `send_msg_to_user`). Nothing touches the
database: the reward is the grade of the episode when the agent reports back.
"""

from __future__ import annotations

import re
import shutil

import pytest

pytest.importorskip("browsergym.core")
import gymnasium  # noqa: E402
from browsergym.utils.obs import flatten_axtree_to_str  # noqa: E402

import officegym.adapters.browsergym_tasks as office  # noqa: E402
from officegym.tasks.registry import all_tasks  # noqa: E402

pytestmark = pytest.mark.e2e


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
    """Take one step of a plan as an agent does on a busy machine, where BrowserGym's 500 ms for an
    action can run out: an action that timed out is tried again while its element is still there, and
    counts as done once the element has gone (it took effect after all)."""
    reward, terminated, info = 0.0, False, {}
    for attempt in range(3):
        try:
            action = step(obs)
        except AssertionError:
            if attempt == 0:
                raise
            return obs, reward, terminated, info
        obs, reward, terminated, _truncated, info = env.step(action)
        error = obs["last_action_error"]
        if not error.startswith("TimeoutError"):
            assert not error, (action, error)
            return obs, reward, terminated, info
    raise AssertionError(f"{action} timed out three times: {error}")


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


PLANS = [("crm.update_next_step", 0, update_next_step), ("tickets.raise_incident_impact", 0, raise_incident_impact),
         ("chat.set_topic", 1, set_topic)]


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
