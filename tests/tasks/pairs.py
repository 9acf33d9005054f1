"""Which agents the task suites play on which template.

Playing every adversarial agent on every template costs more than `make test`'s budget, so by
default each template meets a few of them, taken in turn: template i meets the agents that follow
those template i-1 met, so that consecutive templates meet different agents and every agent meets
every app and kind of template. `make soundness` sets OFFICEGYM_TEST_EVERY_PAIR=1 and plays every
pair: run it after changing a grader, an agent or the way a template declares its work. And which
worker draws a template's instances (`by_template`)."""

from __future__ import annotations

import os
from typing import Sequence

import pytest

EVERY_PAIR = os.environ.get("OFFICEGYM_TEST_EVERY_PAIR") == "1"


def in_turn(index: int, agents: Sequence[str], share: int) -> list[str]:
    """The agents the template at `index` (of the suite's list) meets: `share` of them in turn, or
    all of them with OFFICEGYM_TEST_EVERY_PAIR=1."""
    if EVERY_PAIR or share >= len(agents):
        return list(agents)
    return [agents[(index * share + k) % len(agents)] for k in range(share)]


def by_template(templates: Sequence) -> list:
    """`templates` as pytest parameters (ids are the task ids) that keep each template's tests on
    one xdist worker, so that the instances one suite draws are the ones the next reads from the
    episode store's cache (a draw of a long task costs up to a second)."""
    return [pytest.param(t, id=t.id, marks=pytest.mark.xdist_group(f"draws-{t.id}")) for t in templates]
