"""Which agents the task suites play on which template.

Playing every adversarial agent on every template costs more than `make test`'s budget, so by
default each template meets a few of them, taken in turn: template i meets the agents that follow
those template i-1 met, so that consecutive templates meet different agents and every agent meets
every app and kind of template. `make soundness` sets OFFICEGYM_TEST_EVERY_PAIR=1 and plays every
pair: run it after changing a grader, an agent or the way a template declares its work."""

from __future__ import annotations

import os
from typing import Sequence

EVERY_PAIR = os.environ.get("OFFICEGYM_TEST_EVERY_PAIR") == "1"


def in_turn(index: int, agents: Sequence[str], share: int) -> list[str]:
    """The agents the template at `index` (of the suite's list) meets: `share` of them in turn, or
    all of them with OFFICEGYM_TEST_EVERY_PAIR=1."""
    if EVERY_PAIR or share >= len(agents):
        return list(agents)
    return [agents[(index * share + k) % len(agents)] for k in range(share)]
