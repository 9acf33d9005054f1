"""Problem-management templates composed from the procedure library (tasks.procedures.changes_problems, drawn by
tasks.procedures.changes_problem_draws), on the handbook's Problem records for recurring incidents:

- `w.lib_problem_records`: the incident lead names three services that keep failing: one gets a new Problem with
  its incidents linked, one has an open Problem its new incidents go to, and one has too few incidents for one;
- `w.lib_problem_review`: the same for four services, two of them new Problems;
- `w.lib_incident_followup`: after a Highest incident, its emergency change (scheduled inside the freeze only with
  the CTO's approval) and the service's problem record, the Highest incident among those it links."""

from __future__ import annotations

from dataclasses import replace

from officegym.seed_data.tickets_handbook_changes import day

from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.changes import CHANGES, SCHEDULED
from .procedures.changes_draws import casts, change
from .procedures.changes_problem_draws import incident_lead, problem_story, services_for, summary_of
from .procedures.changes_problems import PROBLEMS
from .registry import register
from .tickets_common import next_key
from .w_lib_people import it_agent_and_lead
from .w_people_replies import people_claim

FILED = ("filed", "linked")


def review_plan(session, rng, template, kinds: list[str]) -> Plan:
    """The incident lead's DM naming the services, the article, each service's story and the report."""
    actor, desk = it_agent_and_lead(session, rng, template.split)
    asker = incident_lead(session)
    first, stories = int(next_key(session, "IT").split("-")[1]), []
    names = services_for(session, rng, kinds, template.split)
    for kind, service in zip(kinds, names):
        stories.append(problem_story(session, rng, kind, service, first, actor, desk, asker, names))
        first += stories[-1].filed
    ask = (f"Hi @{actor.handle}, {', '.join(names[:-1])} and {names[-1]} keep paging people. Could you sort out their "
           "problem records as the handbook says and send me the keys?")
    filing = [s for s in stories if s.needed and not s.existing]  # the reference files theirs in this order
    keys = {s.service: f"IT-{first + filing.index(s)}" for s in filing}
    report = f"@{asker.handle} done. " + "; ".join(summary_of(s, keys.get(s.service, "")) for s in stories) + "."
    few = tuple(s.service for s in stories if not s.needed)
    return Plan(actor.id, request_instruction(rng, named(session, asker)),
                [DirectRequest(asker.id, actor.id, ask, minutes=30),
                 ReadRule.of(session, PROBLEMS, "problem record recurring incidents"), *stories,
                 Reply(asker.id, asker.name, actor.id, report, False, FILED, asides=few)])


@register
class ProblemRecords(Composed):
    """Three services that keep failing: a new Problem for the one with enough incidents, its incidents linked to
    the open Problem for the one that has one, nothing for the one with too few; the keys sent to the lead."""

    id, kind, difficulty, split, scale = "w.lib_problem_records", "workflow", 5, "train", "medium"
    apps, rules, hard = ("chat", "tickets"), (PROBLEMS,), ("lookalike", "exception")
    summary = ("The incident lead names three services that keep failing: file a Problem for the one with three "
               "incidents or more in 30 days (group of the latest incident) and link them, link the new incidents "
               "of the one with an open Problem to it, file nothing for the one with too few, and send the keys.")

    def plan(self, session, rng, instance):
        return review_plan(session, rng, self, rng.sample(["new", "existing", "few"], 3))


@register
class ProblemReview(Composed):
    """Four services: two new Problems, one open Problem the incidents go to, and one with too few incidents."""

    id, kind, difficulty, split, scale = "w.lib_problem_review", "workflow", 5, "test", "medium"
    apps, rules, hard = ("chat", "tickets"), (PROBLEMS,), ("lookalike", "exception")
    summary = ("The monthly problem review of four services: file a Problem for each with three incidents or more "
               "in 30 days and link them, link the incidents of the one with an open Problem to it, file nothing for "
               "the one with too few, and send the keys.")

    def plan(self, session, rng, instance):
        return review_plan(session, rng, self, rng.sample(["new", "new", "existing", "few"], 4))


@register
class IncidentFollowUp(Composed):
    """After a Highest incident: the emergency change that fixes it scheduled inside the freeze when the CTO
    approved it (left waiting otherwise), and the service's problem record filed with its incidents, the
    Highest one included."""

    id, kind, difficulty, split, scale = "w.lib_incident_followup", "workflow", 5, "train", "medium"
    apps, rules, hard = ("chat", "tickets", "org"), (CHANGES, PROBLEMS), ("exception", "lookalike")
    summary = ("The incident lead asks for the follow-up of a Highest incident: schedule the emergency change that "
               "fixes it inside the freeze only with the CTO's approval (label retro-review), file the service's "
               "Problem and link its incidents of the last 30 days, the Highest one included, and report the keys.")

    def plan(self, session, rng, instance):
        actor, desk = it_agent_and_lead(session, rng, self.split)
        asker = incident_lead(session)
        service = services_for(session, rng, ["new"], self.split)[0]
        cast = casts(session, rng, self.split, instance, 1)[0]
        state = "emergency" if instance % 2 == 0 else "emergency_manager"
        first = int(next_key(session, "IT").split("-")[1])
        fix = change(session, rng, state, first, actor, desk, cast, service)
        story = problem_story(session, rng, "new", service, first + fix.filed, actor, desk, asker, [service])
        story = replace(story, world=(*story.world, fix.incident_key))  # the Highest incident counts too
        problem = f"IT-{first + fix.filed + story.filed}"
        ask = (f"Hi @{actor.handle}, follow-up on {fix.incident_key}, the {service} outage: the fix is change {fix.key}, "
               f"could you get it on the calendar? And {service} keeps failing, so please sort out its problem record "
               "as the handbook says and send me the keys.")
        done = (f"{fix.key} is scheduled for {day(fix.planned)}, approved by @{fix.approver_handle} as an emergency "
                "change" if fix.go else f"{fix.key} waits: an emergency change inside the freeze needs "
                f"{cast.head.name}'s approval")
        report = Reply(asker.id, asker.name, actor.id, f"@{asker.handle} {done}. {summary_of(story, problem)}.", False,
                       FILED + SCHEDULED, asides=() if fix.go else (fix.key,),
                       named=() if fix.go else (people_claim([cast.head], [cast.cover, cast.member, cast.requester],
                                                             "approver the change waits on"),))
        return Plan(actor.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, actor.id, ask, minutes=30),
                     ReadRule.of(session, CHANGES, "production change request freeze emergency"),
                     ReadRule.of(session, PROBLEMS, "problem record recurring incidents"), fix, story, report])
