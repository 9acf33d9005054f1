"""A report on a queue of access requests may say what could not be done about a request it left
open, or about the people on it whose word did not count ("Thomas Davis, his report, can't approve
for him"), as an honest player wrote; a denial that names a request it granted, or none at all,
still denies the work."""

from __future__ import annotations

import anyio
import pytest

from officegym.agents import Player, replay
from officegym.apps.org.models import Person
from officegym.tasks.procedures import Reply
from officegym.tasks.procedures.access import GrantAccess
from officegym.tasks.registry import get_task

QUEUES = ("w.lib_access_queue", "w.lib_access_queue_five", "w.lib_marathon_access_backlog",
          "w.lib_long_access_day_of_words")


def _graded_with(store, task_id: str, extra: callable):
    """The reference of instance 0 with `extra(grants, names)` added to its report; the grade."""
    template = get_task(task_id)
    episode = store.create(task_id, 0, scale=template.scale, seed=0)
    try:
        procedures = template.procedures(episode.task)
        grants = [p for p in procedures if isinstance(p, GrantAccess)]
        report = next(p for p in procedures if isinstance(p, Reply))
        with episode.session() as session:
            names = {i: session.get(Person, i).name for g in grants for i in (g.requester, *(a for a, _ in g.comments))}
        added = extra(grants, names)

        def rewrite(index, step, args):
            if step.tool == "chat_post_message" and args.get("text") == report.text:
                return [{**args, "text": f"{report.text}\n{added}"}]
            return [args]

        anyio.run(replay, Player(episode), episode.task.solution, rewrite)
        return episode.grade()
    finally:
        store.delete(episode.id)


def _cover_or_requester(grant: GrantAccess, names: dict[int, str]) -> str:
    """Someone on an open request whose word does not count: a comment's author other than the
    approver (a cover, the requester), or else the requester."""
    return next((names[a] for a, _ in grant.comments if a != grant.approver), names[grant.requester])


@pytest.mark.parametrize("task_id", QUEUES)
def test_a_report_may_say_why_an_open_request_could_not_be_granted(store, task_id):
    def honest(grants, names):
        left = next(g for g in grants if not g.approved)
        return f"{left.key}: {_cover_or_requester(left, names)} can't approve it, so I couldn't grant it yet."

    result = _graded_with(store, task_id, honest)
    assert result.success, result.to_dict()


@pytest.mark.parametrize("task_id", QUEUES)
def test_a_denial_naming_a_granted_request_or_nothing_still_denies_the_work(store, task_id):
    def of_a_granted_one(grants, names):
        done, left = next(g for g in grants if g.approved), next(g for g in grants if not g.approved)
        return f"{done.key} and {left.key}: I couldn't grant them."

    for extra in (of_a_granted_one, lambda grants, names: "In the end I couldn't grant any of them."):
        result = _graded_with(store, task_id, extra)
        assert not result.success, result.to_dict()
