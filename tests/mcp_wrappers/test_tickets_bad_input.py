"""Bad input for every tickets tool, as an agent of the test desk meets it (and, where it matters, the
project lead, an admin or a reporter outside the desk's department): unknown and malformed keys, bad
choices and dates, wrong types, out-of-range windows, unknown arguments, malformed queries, refused
permissions and moves the workflow does not allow. Each call must be an is_error result that says
what was wrong, and change no row at all."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.tickets.models import Project, Sprint
from officegym.mcp_wrappers.server import catalog
from test_tickets_tools import DESK, GROUP, SOFT, ticket_row, world  # noqa: F401  (world is a fixture)


def case(tool: str, why: str, args: dict, says: str, who: str = "agent"):
    """One row of the table; `who` is one of the roles of test_tickets_tools (admin, lead, agent, outsider)."""
    return pytest.param(tool, args, says, who, id=f"{tool}-{why}")


REQ, INC, STORY = f"{DESK}-1", f"{DESK}-2", f"{SOFT}-1"  # the scene's request, incident and story
NEW_INCIDENT = {"project": DESK, "type": "Incident", "summary": "Printer on fire"}
NEW_BUG = {"project": SOFT, "type": "Bug", "summary": "Crash on save"}
CASES = [
    case("tickets_list_projects", "unknown-argument", {"kind": "software"}, "has no argument 'kind'"),
    case("tickets_list_projects", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("tickets_get_project", "unknown", {"project": "NOPE"}, "No project 'NOPE'"),
    case("tickets_get_project", "bool", {"project": True}, "not true/false"),
    case("tickets_get_project", "missing", {}, "project: field required"),
    case("tickets_create_project", "not-admin", {"key": "ZX", "name": "Zz X", "kind": "software", "lead": 1},
         "Only workspace admins", "lead"),
    case("tickets_create_project", "bad-key", {"key": "Z-1", "name": "Zz X", "kind": "software", "lead": 1},
         "A project key is 2-10", "admin"),
    case("tickets_create_project", "bad-kind", {"key": "ZX", "name": "Zz X", "kind": "kanban", "lead": 1},
         "kind must be one of", "admin"),
    case("tickets_create_project", "key-taken", {"key": DESK, "name": "Zz X", "kind": "software", "lead": 1},
         "is taken", "admin"),
    case("tickets_create_project", "unknown-lead", {"key": "ZX", "name": "Zz X", "kind": "software",
                                                    "lead": "@nobody.here"}, "No person matches", "admin"),
    case("tickets_update_project", "nothing", {"project": DESK}, "Nothing to change", "lead"),
    case("tickets_update_project", "not-lead", {"project": DESK, "description": "x"}, "Only the lead of ZQ"),
    case("tickets_update_project", "name-taken", {"project": DESK, "name": "zz product"}, "already called", "lead"),
    case("tickets_create_component", "duplicate", {"project": DESK, "name": "laptops"}, "already has a component",
         "lead"),
    case("tickets_create_component", "not-lead", {"project": DESK, "name": "Phones"}, "Only the lead of ZQ"),
    case("tickets_create_component", "name-too-long", {"project": DESK, "name": "n" * 61}, "at most 60 characters",
         "lead"),
    case("tickets_list_groups", "limit-too-big", {"limit": 201}, "less than or equal to 200"),
    case("tickets_list_groups", "negative-offset", {"offset": -1}, "greater than or equal to 0"),
    case("tickets_get_group", "unknown", {"group": "Zz Nobody"}, "No assignment group 'Zz Nobody'"),
    case("tickets_get_group", "empty", {"group": " "}, "Name an assignment group"),
    case("tickets_search_tickets", "unknown-field", {"query": "colour = red"}, "Unknown field 'colour'"),
    case("tickets_search_tickets", "unbalanced", {"query": f"(project = {DESK}"}, "expected ')'"),
    case("tickets_search_tickets", "bad-status", {"query": "status = Flying"}, "is not a status"),
    case("tickets_search_tickets", "bad-date", {"query": "created > yesterday"}, "is not a date"),
    case("tickets_search_tickets", "unterminated", {"query": 'summary ~ "vpn'}, "Unterminated quoted text"),
    case("tickets_search_tickets", "unknown-project", {"query": "project = NOPE"}, "No project 'NOPE'"),
    case("tickets_search_tickets", "limit-zero", {"query": "", "limit": 0}, "greater than or equal to 1"),
    case("tickets_search_tickets", "wrong-type", {"query": 7}, "valid string"),
    case("tickets_list_sprints", "unknown-project", {"project": "NOPE"}, "No project 'NOPE'"),
    case("tickets_list_sprints", "limit-text", {"project": SOFT, "limit": "all"}, "valid integer"),
    case("tickets_create_sprint", "service-desk", {"project": DESK, "name": "S1"}, "is a service desk", "lead"),
    case("tickets_create_sprint", "duplicate", {"project": SOFT, "name": "zs sprint 1"}, "already has a sprint",
         "lead"),
    case("tickets_create_sprint", "not-lead", {"project": SOFT, "name": "S9"}, "Only the lead of ZS"),
    case("tickets_start_sprint", "bad-date", {"project": SOFT, "sprint": "ZS Sprint 1", "end_date": "next friday"},
         "YYYY-MM-DD", "lead"),
    case("tickets_start_sprint", "ends-first", {"project": SOFT, "sprint": "ZS Sprint 1", "start_date": "2030-02-01",
                                                "end_date": "2030-01-01"}, "A sprint ends after it starts", "lead"),
    case("tickets_start_sprint", "unknown-sprint", {"project": SOFT, "sprint": "Zz Never", "end_date": "2030-01-01"},
         "has no sprint", "lead"),
    case("tickets_complete_sprint", "not-active", {"project": SOFT, "sprint": "ZS Sprint 1"},
         "only the active sprint", "lead"),
    case("tickets_complete_sprint", "not-lead", {"project": SOFT, "sprint": "ZS Sprint 1"}, "Only the lead of ZS"),
    case("tickets_get_board", "unknown-sprint", {"project": SOFT, "sprint": "Zz Never"}, "has no sprint"),
    case("tickets_get_board", "unknown-project", {"project": 10**9}, "No project"),
    case("tickets_get_ticket", "malformed-key", {"key": "ZQ142"}, "Name a ticket by its key"),
    case("tickets_get_ticket", "unknown-key", {"key": "ZQ-999"}, "No ticket ZQ-999"),
    case("tickets_get_ticket", "wrong-type", {"key": 5}, "valid string"),
    case("tickets_get_ticket", "private-request", {"key": INC}, "that you can see", "outsider"),
    case("tickets_create_ticket", "wrong-type-for-project", {**NEW_INCIDENT, "type": "Bug"},
         "type of a ZQ ticket must be one of"),
    case("tickets_create_ticket", "incident-priority", {**NEW_INCIDENT, "priority": "High"}, "derives from its impact"),
    case("tickets_create_ticket", "bad-priority", {**NEW_BUG, "priority": "Urgent"}, "priority must be one of"),
    case("tickets_create_ticket", "bad-impact", {**NEW_INCIDENT, "impact": "Huge"}, "impact must be one of"),
    case("tickets_create_ticket", "sub-task-orphan", {**NEW_BUG, "type": "Sub-task"}, "needs a parent"),
    case("tickets_create_ticket", "unknown-component", {**NEW_BUG, "components": ["Nope"]}, "has no component"),
    case("tickets_create_ticket", "bad-label", {**NEW_BUG, "labels": ["two words"]}, "may hold only"),
    case("tickets_create_ticket", "labels-not-list", {**NEW_BUG, "labels": "a,b"}, "valid list"),
    case("tickets_create_ticket", "bad-date", {**NEW_BUG, "due_date": "2030-13-01"}, "YYYY-MM-DD"),
    case("tickets_create_ticket", "points-on-service", {**NEW_INCIDENT, "story_points": 3}, "software work"),
    case("tickets_create_ticket", "points-text", {**NEW_BUG, "story_points": "many"}, "valid integer"),
    case("tickets_create_ticket", "unknown-account", {**NEW_BUG, "account": "Zz No Such Co"}, "No CRM account"),
    case("tickets_create_ticket", "outsider-assigns", {**NEW_INCIDENT, "group": GROUP}, "cannot assign", "outsider"),
    case("tickets_create_ticket", "empty-summary", {**NEW_BUG, "summary": "  "}, "Summary is required"),
    case("tickets_update_ticket", "nothing", {"key": STORY}, "Nothing to change"),
    case("tickets_update_ticket", "impact-on-story", {"key": STORY, "impact": "High"}, "incidents only"),
    case("tickets_update_ticket", "points-out-of-range", {"key": STORY, "story_points": 101}, "from 0 to 100"),
    case("tickets_update_ticket", "unknown-field", {"key": STORY, "status": "Done"}, "has no argument 'status'"),
    case("tickets_update_ticket", "not-worker", {"key": STORY, "summary": "x"}, "cannot edit", "outsider"),
    case("tickets_assign_ticket", "nothing", {"key": REQ}, "Give an assignee"),
    case("tickets_assign_ticket", "not-in-group", {"key": REQ, "group": GROUP, "assignee": 1},
         "is not in the assignment group"),
    case("tickets_assign_ticket", "not-an-agent", {"key": REQ, "assignee": "@{outsider}"}, "does not work ZQ"),
    case("tickets_assign_ticket", "unknown-group", {"key": REQ, "group": "Zz Nobody"}, "No assignment group"),
    case("tickets_transition_ticket", "unknown", {"key": REQ, "transition": "Teleport"}, "not a transition"),
    case("tickets_transition_ticket", "not-from-here", {"key": REQ, "transition": "Start work"},
         "not available from there"),
    case("tickets_transition_ticket", "needs-resolution", {"key": REQ, "transition": "Cancel"},
         "needs a resolution"),
    case("tickets_transition_ticket", "bad-resolution", {"key": REQ, "transition": "Cancel", "resolution": "Fixed"},
         "takes the resolution"),
    case("tickets_transition_ticket", "needs-assignee", {"key": STORY, "transition": "Start progress"},
         "Assign ZS-1 to someone"),
    case("tickets_transition_ticket", "duplicate-unlinked", {"key": STORY, "transition": "Close",
                                                             "resolution": "Duplicate"}, "Link ZS-1"),
    case("tickets_transition_ticket", "not-worker", {"key": STORY, "transition": "Close", "resolution": "Won't Do"},
         "cannot move", "outsider"),
    case("tickets_list_comments", "negative-offset", {"key": REQ, "offset": -1}, "greater than or equal to 0"),
    case("tickets_list_comments", "malformed-key", {"key": "#1"}, "Name a ticket by its key"),
    case("tickets_add_comment", "empty", {"key": REQ, "body": " "}, "Comment is required"),
    case("tickets_add_comment", "too-long", {"key": REQ, "body": "b" * 10001}, "at most 10000 characters"),
    case("tickets_add_comment", "hidden", {"key": INC, "body": "hi"}, "that you can see", "outsider"),
    case("tickets_add_work_note", "not-worker", {"key": REQ, "body": "x"}, "cannot add work notes", "outsider"),
    case("tickets_add_work_note", "missing-body", {"key": REQ}, "body: field required"),
    case("tickets_watch_ticket", "someone-else", {"key": STORY, "person": 1}, "cannot change the watchers",
         "outsider"),
    case("tickets_watch_ticket", "unknown-person", {"key": REQ, "person": "@nobody.here"}, "No person matches"),
    case("tickets_unwatch_ticket", "not-watching", {"key": REQ}, "does not watch"),
    case("tickets_unwatch_ticket", "person-list", {"key": REQ, "person": ["@x"]}, "valid string"),
    case("tickets_link_tickets", "itself", {"key": STORY, "kind": "relates to", "other": "zs-1"},
         "cannot be linked to itself"),
    case("tickets_link_tickets", "bad-kind", {"key": REQ, "kind": "fixes", "other": INC}, "Link kind must be one of"),
    case("tickets_link_tickets", "caused-by-request", {"key": REQ, "kind": "is caused by", "other": INC},
         "links an incident to the problem"),
    case("tickets_link_tickets", "not-worker", {"key": STORY, "kind": "relates to", "other": REQ}, "cannot link",
         "outsider"),
    case("tickets_unlink_tickets", "no-link", {"key": REQ, "kind": "blocks", "other": INC}, "There is no link"),
    case("tickets_unlink_tickets", "unknown-other", {"key": REQ, "kind": "blocks", "other": "ZQ-404"},
         "No ticket ZQ-404"),
    case("tickets_set_sprint", "service-desk", {"key": REQ, "sprint": "ZS Sprint 1"}, "is a service desk"),
    case("tickets_set_sprint", "already-backlog", {"key": STORY, "sprint": ""}, "already in the backlog"),
    case("tickets_set_sprint", "unknown-sprint", {"key": STORY, "sprint": "Zz Never"}, "has no sprint"),
    case("tickets_set_sprint", "missing-sprint", {"key": STORY}, "sprint: field required"),
    case("tickets_get_history", "unknown-key", {"key": "ZZZ-1"}, "No ticket ZZZ-1"),
    case("tickets_get_history", "limit-too-big", {"key": REQ, "limit": 1000}, "less than or equal to 200"),
    case("tickets_search_articles", "too-many-words", {"query": "a b c d e f g h i"}, "at most 8 words"),
    case("tickets_search_articles", "bad-category", {"category": "Gossip"}, "Category must be one of"),
    case("tickets_get_article", "unknown", {"article": "KB9999999"}, "No article 'KB9999999'"),
    case("tickets_get_article", "bool", {"article": True}, "not true/false"),
    case("tickets_create_article", "bad-category", {"title": "Zz Rule", "category": "Gossip", "body": "x"},
         "Category must be one of"),
    case("tickets_create_article", "empty-title", {"title": " ", "category": "IT", "body": "x"}, "Title is required"),
    case("tickets_create_article", "body-too-long", {"title": "Zz Rule", "category": "IT", "body": "b" * 20001},
         "at most 20000 characters"),
    case("tickets_update_article", "unknown", {"article": "KB9999999", "body": "x"}, "No article 'KB9999999'"),
]


@pytest.mark.parametrize("tool, args, says, who", CASES)
def test_bad_input_is_refused_and_changes_nothing(world, tool, args, says, who):
    actor, scene = world(who)
    given = {k: v.format(**scene) if isinstance(v, str) else v for k, v in args.items()}
    actor.fails(tool, given, says)


def test_every_tickets_tool_has_bad_input_cases():
    covered = {c.values[0] for c in CASES}
    tools = {t.name for t in catalog() if t.name.startswith("tickets_")}
    assert len(tools) >= 27 and tools <= covered, tools - covered


# ---------------------------------------------------------------- refusals among allowed calls

def test_non_worker_comments_but_cannot_move_or_edit(world):
    outsider, scene = world("outsider")
    outsider.write("tickets_add_comment", {"key": scene["story"], "body": "+1 from us"}, "tickets.add_comment")
    outsider.fails("tickets_transition_ticket", {"key": scene["story"], "transition": "Close",
                                                 "resolution": "Won't Do"}, "cannot move")
    outsider.fails("tickets_update_ticket", {"key": scene["story"], "summary": "Mine now"}, "cannot edit")
    assert ticket_row(outsider, scene["story"]).status == "To Do"


def test_only_the_lead_plans_sprints(world):
    agent, scene = world("agent")
    agent.fails("tickets_create_sprint", {"project": SOFT, "name": "ZS Sprint 9"}, "Only the lead of ZS")
    agent.fails("tickets_start_sprint", {"project": SOFT, "sprint": "ZS Sprint 1", "end_date": "2030-02-01"},
                "Only the lead of ZS")
    with agent.episode.session() as s:
        assert list(s.scalars(select(Sprint.name).join(Project).where(Project.key == SOFT))) == ["ZS Sprint 1"]
