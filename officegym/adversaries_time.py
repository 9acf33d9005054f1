"""Adversarial agents of time and events (see officegym.colleagues.events): a task whose right
outcome changes mid-episode must fail an agent that never notices, and one that only lets time
pass.

- `ignore_events`: plays the reference as an agent that never read or waited for what happened
  during the episode would (the instance's `unaware` solution); it does not apply where the events
  change nothing the reference does (a twin whose follow-up only confirms the request).
- `wait_forever`: only waits, a working day at a time, and does nothing else: time passes, every
  reply and event arrives, and nothing is done.
"""

from __future__ import annotations

from officegym.adversaries import adversary
from officegym.agents import Player, replay
from officegym.apps.chat.services import MAX_WAIT_MINUTES

WAITS = 3  # waits of a working day each: every reply and event a task schedules has come by then


@adversary()
async def ignore_events(player: Player, declared) -> str | None:
    """Play the reference as if nothing had happened during the episode."""
    unaware = player.episode.task.unaware
    if unaware is None:
        return "no event of this task changes what its reference does"
    await replay(player, unaware)
    return None


@adversary()
async def wait_forever(player: Player, declared) -> str | None:
    """Let time pass, and do nothing else (where the episode serves no wait, there is nothing to play)."""
    for turn in range(WAITS):
        if await player.call("chat_wait", {"minutes": MAX_WAIT_MINUTES}) is None and turn == 0:
            return "the task's tools hold no wait"
    return None


TIME_ADVERSARIES = {"ignore_events": ignore_events, "wait_forever": wait_forever}
