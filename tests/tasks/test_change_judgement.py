"""The change and problem templates are fair to honest work: the reference trajectory replayed with its replies
written in other words (an article cited by its number with a space, a day written another way, the reasons in
another order), with a polite comment added where a careful agent would add one, still succeeds; and the words of
one twin fail in the other, whatever the wording."""

from __future__ import annotations

import re

from officegym.apps.org.models import Person
from officegym.seed_data.tickets_handbook_changes import FREEZE_END, FREEZE_START
from officegym.tasks.procedures.changes import CHANGES, ScheduleChange
from officegym.tasks.procedures.changes_problems import PROBLEMS, OpenProblem
from officegym.tasks.procedures.changes_sla import BREACHES, EscalateBreach

from test_people_judgement import assert_succeeds, instance_where, play_honestly, spaced, steps


def _of(inst, kind):
    return [p for p in inst.params["procedures"] if isinstance(p, kind)]


def _freeze_refusal(inst, start):
    why = []
    for change in _of(inst, ScheduleChange):
        if change.state == "emergency_manager":
            why.append(f"{change.key} is an emergency fix, but inside the freeze it needs "
                       f"{start.get(Person, change.approver).name}'s OK")
        else:
            why.append(f"{change.key} is planned for {change.planned:%B} {change.planned.day}, inside the freeze "
                       f"({FREEZE_START.day} {FREEZE_START:%B} to {FREEZE_END.day} {FREEZE_END:%B})")
    return f"Sorry, I can't put them on the calendar yet ({spaced(start, CHANGES)}): " + "; ".join(why) + "."


def _freeze_report(inst, start):
    return "All three are scheduled now: " + ", ".join(
        f"{c.key} for {c.planned.day} {c.planned:%B}" for c in _of(inst, ScheduleChange)) + "."


def test_changes_in_the_freeze_may_be_answered_in_other_words_and_the_state_decides(store):
    task = "r.lib_change_freeze"
    refused = instance_where(store, task, lambda i: i.params["refused"])
    allowed = instance_where(store, task, lambda i: not i.params["refused"])
    assert_succeeds(play_honestly(store, task, refused, lambda inst, start: {
        steps(inst, "refusal")[0]: _freeze_refusal(inst, start)}))
    assert_succeeds(play_honestly(store, task, allowed, lambda inst, start: {
        steps(inst, "report")[0]: _freeze_report(inst, start)}))
    assert not play_honestly(store, task, allowed, lambda inst, start: {
        steps(inst, "report")[0]: _freeze_refusal(inst, start)}).success


def _calendar_words(inst, start):
    changes = _of(inst, ScheduleChange)
    said = []
    for c in changes:
        if c.go:
            continue
        if c.state in ("freeze", "not_urgent"):
            said.append(f"{c.key} stays where it is: it falls in the quarter-end freeze")
        else:
            said.append(f"{c.key} isn't scheduled, as it still needs {start.get(Person, c.approver).name}'s approval")
    done = [c.key for c in changes if c.go]
    return {steps(inst, "report")[0]: f"Hi! Scheduled {' and '.join(done) or 'nothing'} per {spaced(start, CHANGES)}. "
            + ". ".join(said) + "."}


def _calendar_comments(inst, start):
    return [("tickets_add_comment", {"key": c.key, "body": "Not scheduled yet: see the change article."})
            for c in _of(inst, ScheduleChange) if not c.go]


def test_the_change_calendar_may_be_reported_in_other_words_with_a_comment_on_each_change_left(store):
    assert_succeeds(play_honestly(store, "w.lib_change_calendar", 0, _calendar_words, _calendar_comments))


def _problem_words(inst, start):
    report = inst.solution[steps(inst, "report")[0]].args["text"]
    parts = []
    for s in _of(inst, OpenProblem):
        if not s.needed:
            parts.append(f"nothing for {s.service}: not enough incidents in the last 30 days")
        elif s.existing:
            parts.append(f"{s.service} already had {s.problem_key} open, so I linked its incidents there")
        else:
            parts.append(f"{s.service} now has {re.search(rf'{s.service}: filed (IT-[0-9]+)', report).group(1)}")
    return {steps(inst, "report")[0]: f"Done per {spaced(start, PROBLEMS)}: " + "; ".join(parts) + "."}


def test_problem_records_may_be_reported_in_other_words(store):
    assert_succeeds(play_honestly(store, "w.lib_problem_records", 0, _problem_words))


def test_sla_escalations_may_be_reported_in_other_words_with_a_word_to_a_requester(store):
    def words(inst, start):
        up = [b.key for b in _of(inst, EscalateBreach) if b.go]
        return {steps(inst, "report")[0]: f"Escalated per {spaced(start, BREACHES)}: {' and '.join(up)}. The rest "
                "were paused long enough or already escalated, so I left them."}

    def extra(inst, start):
        first = next(b for b in _of(inst, EscalateBreach) if b.go)
        return [("tickets_add_comment", {"key": first.key, "body": "Sorry for the wait: this is now a "
                                                                             "priority for us."})]
    assert_succeeds(play_honestly(store, "w.lib_sla_escalations", 0, words, extra))
