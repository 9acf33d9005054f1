"""officegym tasks as BrowserGym tasks (`pip install 'officegym[browsergym]'`).

    import gymnasium as gym
    import officegym.adapters.browsergym_tasks as office  # registers browsergym/officegym.<task id>

    office.use_chromium("/usr/bin/chromium")  # optional: a Chromium of your own for every browser
    env = gym.make("browsergym/officegym.crm.update_next_step")
    obs, info = env.reset(seed=3)               # instance 3: a fresh episode, its home page open
    obs, reward, terminated, truncated, info = env.step('click("a12")')
    ...
    env.step('send_msg_to_user("Done: I updated the next step.")')  # ends the episode; reward 1.0 or 0.0

BrowserGym and AgentLab agents then play officegym in the browser, graded by the same graders as
over MCP. Each reset creates an episode of the instance `seed` names (seed k plays instance k) on a
local officegym server that this process starts on 127.0.0.1 on first use. The goal is the standard
prompt for the browser (who the agent is, the company's date, where the handbook is, how to answer)
followed by the task. The episode ends when the agent sends a message to the user (or reports the
task infeasible): it is then graded, and the reward is 1.0 when the grade is a success, else 0.0 —
never earlier, so a state that passes on the way does not end the episode before the agent stops.
Actions wait up to ACTION_TIMEOUT_MS for the page they cause (see `with_action_timeout`).
"""

from __future__ import annotations

import atexit
import threading
import time
from typing import Any, Callable

import playwright.sync_api
from browsergym.core.action.highlevel import HighLevelActionSet
from browsergym.core.registration import register_task
from browsergym.core.task import AbstractBrowserTask

from officegym.catalogue import episode_prompt
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound
from officegym.tasks.registry import all_tasks, get_task

START_TIMEOUT = 30.0  # seconds for the local server to come up
# What one action may take, in ms: a click that submits a form waits for the POST, its redirect and the
# next page, which a busy machine serves in over a second. BrowserGym's own 500 ms reported such clicks
# as failed though they worked, and an agent that retried "Send" posted twice.
ACTION_TIMEOUT_MS = 5_000


class LocalServer:
    """officegym's whole server (UI, MCP, control API) on a free port of 127.0.0.1, in a thread."""

    def __init__(self, store: EpisodeStore | None = None):
        import socket

        import uvicorn

        from officegym.config import load_settings
        from officegym.server import build_app

        self.store = store or EpisodeStore()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        settings = load_settings(host="127.0.0.1", port=port)
        self.base_url = f"http://127.0.0.1:{port}"
        app = build_app(self.store, settings, self.base_url)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, name="officegym-server", daemon=True)

    def start(self) -> "LocalServer":
        """Start serving; returns once the server accepts connections."""
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"the officegym server did not start on {self.base_url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving and delete every episode of the store."""
        self.server.should_exit = True
        self.thread.join(10)
        self.store.close()


_server: LocalServer | None = None
_server_lock = threading.Lock()


def local_server() -> LocalServer:
    """This process's officegym server, started on first use and stopped at exit."""
    global _server
    with _server_lock:
        if _server is None:
            _server = LocalServer().start()
            atexit.register(_server.stop)
        return _server


def use_chromium(executable_path: str) -> None:
    """Make every browser BrowserGym launches in this process (the task page and the chat window)
    use the Chromium at `executable_path`, e.g. Debian's `/usr/bin/chromium`, instead of
    Playwright's own download. BrowserGym launches both through one global Playwright."""
    import browsergym.core as core

    playwright_ = core._get_global_playwright()
    launch = playwright_.chromium.launch
    if getattr(launch, "officegym_chromium", None) == executable_path:
        return
    original = getattr(launch, "officegym_original", launch)

    def launch_chromium(*args, **kwargs):
        kwargs.setdefault("executable_path", executable_path)
        return original(*args, **kwargs)

    launch_chromium.officegym_chromium = executable_path
    launch_chromium.officegym_original = original
    playwright_.chromium.launch = launch_chromium


def with_action_timeout(to_python_code: Callable[[str], str],
                        timeout_ms: int = ACTION_TIMEOUT_MS) -> Callable[[str], str]:
    """A BrowserGym action mapping (an action set's `to_python_code`) whose actions wait up to
    `timeout_ms` instead of BrowserGym's fixed 500 ms. Every officegym env uses it with BrowserGym's
    default action set; an agent that brings its own action set wraps its mapping the same way:
    `gym.make(env_id, action_mapping=with_action_timeout(action_set.to_python_code))`."""
    def to_code(action: str) -> str:
        return to_python_code(action).replace("timeout=500)", f"timeout={timeout_ms})")
    return to_code


def stop_playwright() -> None:
    """Stop BrowserGym's global Playwright (after the last env is closed), e.g. before another
    part of the program starts Playwright's sync API in the same thread."""
    import browsergym.core as core

    if core._PLAYWRIGHT is not None:
        core._PLAYWRIGHT.stop()
        core._set_global_playwright(None)


class OfficeBrowserTask(AbstractBrowserTask):
    """One officegym task in the browser; `seed` picks the instance."""

    task_id = ""

    @classmethod
    def get_task_id(cls) -> str:
        """BrowserGym's name for the task: officegym.<task id>."""
        return f"officegym.{cls.task_id}"

    def __init__(self, seed: int | None, scale: str | None = None, world_seed: int = 0,
                 server: LocalServer | None = None) -> None:
        super().__init__(seed or 0)
        self.instance = int(seed or 0)
        self.scale = scale or get_task(self.task_id).scale
        self.world_seed = world_seed
        self.server = server
        self.episode = None
        self.viewport = {"width": 1280, "height": 900}
        self.slow_mo = 0  # BrowserGym's default of 1 s per action only slows training
        self.timeout = 10_000  # Playwright's default for what the actions do not time themselves

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        """Create the episode, open its home page; the goal is the browser prompt and the task."""
        server = self.server = self.server or local_server()
        self.episode = server.store.create(self.task_id, self.instance, self.scale, self.world_seed)
        page.goto(f"{server.base_url}/e/{self.episode.id}/")
        goal = f"{episode_prompt(self.episode, 'ui')}\n\nYour task: {self.episode.instruction}"
        return goal, {"task_id": self.task_id, "instance": self.instance, "episode": self.episode.id}

    def validate(self, page: playwright.sync_api.Page, chat_messages: list[dict]) -> tuple[float, bool, str, dict]:
        """Not done until the agent speaks to the user (or reports infeasible); then the grade decides."""
        if not any(m["role"] in ("assistant", "infeasible") for m in _agent_messages(chat_messages)):
            return 0.0, False, "", {}
        result = self.episode.grade()
        if result.success is None:
            raise RuntimeError(f"the grader of {self.task_id} failed: {result.error}")
        return (1.0 if result.success else 0.0), True, "", {"grade": result.to_dict()}

    def teardown(self) -> None:
        """Delete the episode."""
        if self.episode is not None:
            try:
                self.server.store.delete(self.episode.id)
            except NotFound:
                pass
            self.episode = None


def _agent_messages(chat_messages: list[dict]) -> list[dict]:
    """The messages after the goal (BrowserGym opens the chat with a greeting, then the goal)."""
    for i, message in enumerate(chat_messages):
        if message["role"] == "user":
            return chat_messages[i + 1:]
    return []


def register_all() -> list[str]:
    """Register every officegym task with BrowserGym (`browsergym/officegym.<task id>`); their ids."""
    import gymnasium

    ids = []
    for template in all_tasks():
        env_id = f"officegym.{template.id}"
        if f"browsergym/{env_id}" not in gymnasium.registry:
            task_class: Any = type(f"Office_{template.id.replace('.', '_')}", (OfficeBrowserTask,),
                                   {"task_id": template.id, "__doc__": f"officegym's {template.id} in the browser."})
            register_task(env_id, task_class,
                          kwargs={"action_mapping": with_action_timeout(HighLevelActionSet().to_python_code)})
        ids.append(f"browsergym/{env_id}")
    return ids


register_all()
