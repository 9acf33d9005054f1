"""Every rule of the tickets app, behind one import: `from officegym.apps.tickets import services`.

The rules live in small modules by subject; this module is the surface views, MCP tools, seeders,
reference solutions and tests call. Each function takes `(session, actor, plain values)` and
raises an OfficeError on refusal:

- access.py        who sees and works which ticket; service-desk privacy; project leads
- workflow.py      statuses and transitions of each ticket type
- sla.py           SLA targets by priority, pauses and breaches on the simulated clock
- projects.py      projects, components, assignment groups
- tickets.py       filing, editing and assigning tickets, labels, components, sub-tasks
- flow.py          transitions with resolutions, blockers and duplicates
- conversation.py  comments, work notes, watchers, links
- sprints.py       sprints and boards
- query.py         the query language; search.py runs it, with history and SLA reads
- knowledge.py     the knowledge base: the handbook's articles and their versions
"""

from __future__ import annotations

from .access import can_see_notes, is_agent, is_worker
from .conversation import (add_comment, add_work_note, link_tickets, links_of, list_comments, list_watchers,
                           unlink_tickets, unwatch_ticket, watch_ticket)
from .flow import available_transitions, blocked_work, blockers, transition_ticket
from .knowledge import (create_article, get_article, get_article_version, list_article_versions, search_articles,
                        update_article)
from .projects import (create_component, create_project, get_group, get_project, group_members, list_components,
                       list_groups, list_projects, open_counts, update_project)
from .search import get_history, get_sla, search_tickets
from .sprints import (BOARD_CARDS, Board, active_sprint, complete_sprint, create_sprint, get_board, list_sprints,
                      set_sprint, start_sprint)
from .tickets import (assign_ticket, components_of, create_ticket, get_ticket, labels_of, sub_tasks,
                      update_ticket)

__all__ = [
    "is_agent", "is_worker", "can_see_notes",
    "list_projects", "get_project", "open_counts", "create_project", "update_project",
    "list_components", "create_component", "list_groups", "get_group", "group_members",
    "create_ticket", "get_ticket", "update_ticket", "assign_ticket", "labels_of", "components_of", "sub_tasks",
    "available_transitions", "transition_ticket", "blockers", "blocked_work",
    "list_comments", "add_comment", "add_work_note", "list_watchers", "watch_ticket", "unwatch_ticket",
    "links_of", "link_tickets", "unlink_tickets",
    "list_sprints", "active_sprint", "create_sprint", "start_sprint", "complete_sprint", "set_sprint",
    "BOARD_CARDS", "Board", "get_board",
    "search_tickets", "get_history", "get_sla",
    "search_articles", "get_article", "list_article_versions", "get_article_version", "create_article",
    "update_article",
]
