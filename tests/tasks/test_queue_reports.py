"""A report on a queue of access requests may say what could not be done about a request it left
open, or about the people on it whose word did not count ("Thomas Davis, his report, can't approve
for him"), as an honest player wrote; a denial that names a request it granted, or none at all,
still denies the work. A report on equipment requests may name the Incident of a lost device, and
one on leavers may greet the lead by name: neither states another answer."""

from __future__ import annotations

import anyio
import pytest

from officegym.agents import Player, replay
from officegym.apps.org.models import Person
from officegym.tasks.procedures import Reply
from officegym.tasks.procedures.access import GrantAccess
from officegym.tasks.procedures.it import FulfilEquipment
from officegym.tasks.registry import get_task

QUEUES = ("w.lib_access_queue", "w.lib_access_queue_five", "w.lib_marathon_access_backlog",
          "w.lib_long_access_day_of_words")


def _graded_with(store, task_id: str, extra: callable, before: bool = False):
    """The reference of instance 0 with `extra(procedures, names)` added to its report (`before` it, or
    after); the grade."""
    template = get_task(task_id)
    episode = store.create(task_id, 0, scale=template.scale, seed=0)
    try:
        procedures = template.procedures(episode.task)
        report = next(p for p in procedures if isinstance(p, Reply))
        with episode.session() as session:
            names = {p.id: p.name for p in session.query(Person)}
        added = extra(procedures, names)

        def rewrite(index, step, args):
            if step.tool == "chat_post_message" and args.get("text") == report.text:
                return [{**args, "text": f"{added} {report.text}" if before else f"{report.text}\n{added}"}]
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
    def honest(procedures, names):
        left = next(g for g in procedures if isinstance(g, GrantAccess) and not g.approved)
        return f"{left.key}: {_cover_or_requester(left, names)} can't approve it, so I couldn't grant it yet."

    result = _graded_with(store, task_id, honest)
    assert result.success, result.to_dict()


@pytest.mark.parametrize("task_id", QUEUES)
def test_a_denial_naming_a_granted_request_or_nothing_still_denies_the_work(store, task_id):
    def of_a_granted_one(procedures, names):
        grants = [g for g in procedures if isinstance(g, GrantAccess)]
        done, left = next(g for g in grants if g.approved), next(g for g in grants if not g.approved)
        return f"{done.key} and {left.key}: I couldn't grant them."

    for extra in (of_a_granted_one, lambda procedures, names: "In the end I couldn't grant any of them."):
        result = _graded_with(store, task_id, extra)
        assert not result.success, result.to_dict()


def test_an_equipment_report_may_name_the_incident_of_a_lost_device(store):
    def why_it_does_not_count(procedures, names):
        asked = [p for p in procedures if isinstance(p, FulfilEquipment)]
        incident = next(k for p in asked for k in p.filed_keys if k not in (p.key, *p.earlier_keys, p.offboarding_key))
        return f"The laptop filed after {incident} (the lost one) replaced a lost device, so it does not count."

    result = _graded_with(store, "w.lib_it_equipment_queue", why_it_does_not_count)
    assert result.success, result.to_dict()


def test_a_report_on_leavers_may_greet_the_lead(store):
    result = _graded_with(store, "w.lib_it_offboarding_week",
                          lambda procedures, names: f"Hi {names[procedures[-1].requester]},", before=True)
    assert result.success, result.to_dict()
