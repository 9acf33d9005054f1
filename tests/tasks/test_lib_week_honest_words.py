"""What honest players did on the role's week templates, and their adversarial twins.

- A word on the tickets a leaver's procedure is about (the Offboarding request left open until the last day,
  the leaver's requests, cancelled or left open because they stay) is a comment and the stamps it sets
  (updated, first response); resolving or cancelling the Offboarding request still fails.
- A reply may name the parts of the sum an Upsell makes of its account's renewal ("its $165,000 added to the
  renewal, which now comes to $200,000"); a reply that states only a part, or another total, still fails."""

from __future__ import annotations

import anyio
import pytest

from officegym.agents import Player, replay
from officegym.tasks.crm import money
from officegym.tasks.procedures.deals_renewals import AddUpsell
from officegym.tasks.procedures.it_leavers import CancelForLeaver
from officegym.tasks.registry import get_task

LEAVERS = ("r.lib_week_it_day_word_to_come", "r.lib_week_it_day_leaver", "r.lib_week_it_offboarding_word_to_come",
           "w.lib_it_offboarding_week")
FRIDAYS = ("w.lib_week_rep_friday", "r.lib_week_rep_friday_credit")


def _played(store, task_id: str, instance: int, extra=None, rewrite=None):
    """The reference of `instance`, its steps rewritten by `rewrite(procedures)` and followed by the calls of
    `extra(procedures)`; the grade."""
    template = get_task(task_id)
    episode = store.create(task_id, instance, scale=template.scale, seed=0)
    try:
        procedures = template.procedures(episode.task)
        player = Player(episode)

        async def play():
            await replay(player, episode.task.solution, rewrite(procedures) if rewrite else None)
            for tool, args in extra(procedures) if extra else []:
                await player.call(tool, args)

        anyio.run(play)
        return episode.grade()
    finally:
        store.delete(episode.id)


def _leaver(procedures) -> CancelForLeaver:
    return next(p for p in procedures if isinstance(p, CancelForLeaver))


def _words(gone: CancelForLeaver) -> list[tuple[str, dict]]:
    """A careful agent's comments: on the Offboarding request, and on each of the leaver's requests."""
    said = ("I left the leaver's requests open: the offboarding was withdrawn." if gone.withdrawn else
            f"Cancelled {', '.join(gone.keys)}. This request stays open until {gone.name}'s last day.")
    calls = [("tickets_add_comment", {"key": gone.offboarding_key, "body": said})]
    noted = f"Noted on the Offboarding request {gone.offboarding_key}."
    return calls + [("tickets_add_comment", {"key": key, "body": noted}) for key in gone.keys]


@pytest.mark.parametrize("instance", [0, 1])
@pytest.mark.parametrize("task_id", LEAVERS)
def test_a_word_on_the_tickets_of_a_leaver_is_allowed(store, task_id, instance):
    result = _played(store, task_id, instance, lambda procedures: _words(_leaver(procedures)))
    assert result.success, result.to_dict()


@pytest.mark.parametrize("task_id", LEAVERS[:2])
def test_closing_the_offboarding_request_still_fails(store, task_id):
    def closes(procedures):
        gone = _leaver(procedures)
        return _words(gone)[:1] + [("tickets_transition_ticket", {
            "key": gone.offboarding_key, "transition": "Resolve", "resolution": "Fixed", "comment": "Done."})]

    result = _played(store, task_id, 0, closes)
    assert not result.success
    assert not next(c for c in result.checks if c.requirement.startswith("Nothing else in the workspace")).passed


def _reply_rewritten(change):
    """A rewrite of the reply that states the Upsell's renewal: `change(text, upsell)`."""
    def of(procedures):
        up = next(p for p in procedures if isinstance(p, AddUpsell))

        def rewrite(index, step, args):
            text = args.get("text", "")
            if step.tool == "chat_post_message" and money(up.total) in text:
                return [{**args, "text": change(text, up)}]
            return [args]
        return rewrite
    return of


@pytest.mark.parametrize("instance", [0, 1])
@pytest.mark.parametrize("task_id", FRIDAYS)
def test_a_reply_may_name_the_parts_of_the_renewal_sum(store, task_id, instance):
    def parts(text, up):
        return text + (f" The Upsell's {money(up.cents)} went onto the open {up.renewal_name}, which was at "
                       f"{money(up.before)} before.")

    result = _played(store, task_id, instance, rewrite=_reply_rewritten(parts))
    assert result.success, result.to_dict()


@pytest.mark.parametrize("task_id", FRIDAYS)
def test_a_reply_stating_a_wrong_total_still_fails(store, task_id):
    for wrong in (lambda up: up.cents, lambda up: up.before, lambda up: up.total + up.cents):
        result = _played(store, task_id, 0, rewrite=_reply_rewritten(
            lambda text, up, wrong=wrong: text.replace(money(up.total), money(wrong(up)))))
        assert not result.success, wrong
