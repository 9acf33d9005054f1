"""Every scripted agent by name, for `officegym run --agent NAME` and the soundness tests: the
reference player, doing nothing and spam (officegym.agents), the adversarial, near-miss and wrecking
agents (officegym.adversaries, officegym.adversaries_time) and the agents of judgement (officegym.judgement)."""

from __future__ import annotations

from typing import Callable

from officegym.adversaries import ADVERSARIES, NEAR_MISSES, WRECKERS
from officegym.adversaries_time import TIME_ADVERSARIES
from officegym.agents import null_agent, oracle_agent, spam_agent
from officegym.episodes import Episode
from officegym.judgement import JUDGEMENT


def agents() -> dict[str, Callable[[Episode], None]]:
    """Every scripted agent by name: oracle, null, spam, then the adversarial, judgement, near-miss
    and wrecking ones."""
    return {"oracle": oracle_agent, "null": null_agent, "spam": spam_agent, **ADVERSARIES, **TIME_ADVERSARIES,
            **JUDGEMENT, **NEAR_MISSES, **WRECKERS}
