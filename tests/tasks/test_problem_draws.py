"""The problem-record draws are fair to the article: a look-alike is never an incident of a service the request names
(its summary begins with another service and names the story's, or it is the story's own from days before the
window), so every incident of the window whose summary begins with a named service is one the reference links, or one
already linked, and a service with too few has no more than the story says."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from officegym import clock
from officegym.apps.tickets.models import Link, Ticket
from officegym.seed_data.tickets_handbook_changes import RECURRING, WINDOW_DAYS
from officegym.tasks.procedures.changes_problems import OpenProblem

from test_people_judgement import start_of

INSTANCES = 3


def _begins(summary: str, services) -> list[str]:
    return [s for s in services if summary.startswith(f"{s} ")]


@pytest.mark.parametrize("task_id", ["w.lib_problem_records", "w.lib_problem_review", "w.lib_incident_followup"])
@pytest.mark.parametrize("instance", range(INSTANCES))
def test_lib_problem_lookalikes_are_no_incidents_of_a_named_service(store, task_id, instance):
    episode = store.create(task_id, instance, scale="medium", seed=0)
    try:
        stories = [p for p in episode.task.params["procedures"] if isinstance(p, OpenProblem)]
        named = [s.service for s in stories]
        with start_of(episode) as start:
            edge = clock.company_now(start) - timedelta(days=WINDOW_DAYS)
            incidents = start.scalars(select(Ticket).where(Ticket.type == "Incident")).all()
            by_key = {t.key: t for t in incidents}
            linked = {source for source, in start.execute(select(Link.source_id).where(Link.kind == "caused_by"))}
            for story in stories:
                for key in story.lookalikes:
                    t = by_key[key]
                    if t.summary.startswith(f"{story.service} "):  # the service's own, from before the window
                        assert t.created_at < edge - timedelta(days=2), (key, t.summary, t.created_at, edge)
                    else:
                        assert not _begins(t.summary, named), (key, t.summary, named)
                        assert story.service in t.summary and t.created_at >= edge, (key, t.summary)
                inside = {t.key for t in incidents if t.created_at >= edge and _begins(t.summary, [story.service])}
                if story.needed:
                    assert inside - set(story.counted) <= {k for k in inside if by_key[k].id in linked}, (
                        story.service, sorted(inside), story.counted)
                    assert len(story.counted) >= RECURRING
                else:
                    assert inside == set(story.counted) and len(inside) < RECURRING, (story.service, sorted(inside))
    finally:
        store.delete(episode.id)
