"""The task registry: every template, by id. Task modules register on import: this package's
(`TASK_MODULES`), then those of installed packages through the entry point group `officegym.tasks`
(ENTRY_POINTS). An entry point names a module (imported: its `@register` decorators run) or a
callable (called with `register`). One that fails to load is logged and skipped; an id registered
twice is an error, whoever registers it."""

from __future__ import annotations

import fnmatch
import importlib
import logging
from importlib.metadata import entry_points
from types import ModuleType

from officegym.errors import NotFound

from .base import TaskTemplate

log = logging.getLogger(__name__)
ENTRY_POINTS = "officegym.tasks"
_TASKS: dict[str, TaskTemplate] = {}
_PLUGINS: dict[str, str] = {}  # entry point name -> "loaded" or why it was skipped


class DuplicateTask(ValueError):
    """Two templates registered with the same id."""


TASK_MODULES = ("chat", "chat_messages", "chat_channels", "chat_questions", "crm", "crm_closing", "crm_sales",
                "crm_answers", "x_crm", "x_crm_questions", "tickets", "tickets_more", "tickets_answers", "x_tickets",
                "x_tickets_crm", "sheets", "sheets_formulas", "sheets_tables", "sheets_answers", "x_sheets",
                "x_sheets_people", "w_deals", "w_deals_close", "w_deals_cleanup", "w_deals_credit", "w_deals_prep",
                "w_deals_refusals", "w_incidents", "w_incidents_declare", "w_incidents_more", "w_incidents_rota",
                "w_incidents_swap", "w_incidents_desk", "w_incidents_refusals", "w_people", "w_people_access",
                "w_people_headcount", "w_people_leaks", "w_people_onboard", "w_people_refusals", "w_people_grant",
                "w_people_vendor", "w_revenue", "w_revenue_drift", "w_revenue_more", "w_revenue_commit",
                "w_revenue_requests", "w_revenue_refusals", "w_support", "w_support_more", "w_support_review",
                "w_support_workaround", "w_support_queue", "w_support_refusals", "w_lib_sharing", "w_lib_marathon",
                "w_lib_marathon_won", "w_lib_revenue", "w_lib_revenue_credits", "e_deals", "e_tickets", "e_sheets",
                "e_cases", "e_tickets_more", "e_discounts", "e_chat", "w_lib_people", "w_lib_people_queue",
                "w_lib_people_more", "w_lib_people_events", "w_lib_ops", "w_lib_compose", "w_lib_marathon_more",
                "w_lib_deals", "w_lib_support", "w_lib_it", "w_lib_long", "w_lib_fin", "w_lib_change",
                "w_lib_org", "w_lib_accounts", "w_lib_week", "w_lib_day", "w_lib_mgr",
                "w_lib_comm", "w_lib_comm_more", "w_lib_buy")


def register(template_class: type[TaskTemplate]) -> type[TaskTemplate]:
    """Class decorator: add a template to the registry."""
    template = template_class()
    if template.id in _TASKS:
        raise DuplicateTask(f"task id {template.id} registered twice")
    _TASKS[template.id] = template
    return template_class


def _load() -> None:
    for module in TASK_MODULES:
        importlib.import_module(f"officegym.tasks.{module}")
    if not _PLUGINS.get(""):  # the installed packages are looked up once per process
        _PLUGINS[""] = "scanned"
        for point in entry_points(group=ENTRY_POINTS):
            _PLUGINS[point.name] = _plug(point)


def _plug(point) -> str:
    """Load one entry point of `officegym.tasks`: "loaded", or why it was skipped."""
    try:
        loaded = point.load()
        if not isinstance(loaded, ModuleType):
            loaded(register)
    except DuplicateTask:  # as loud as for this package's own templates
        raise
    except Exception as error:  # a lab's broken package must not take the others down
        log.warning("officegym.tasks entry point %s (%s) skipped: %s", point.name, point.value, error)
        return f"skipped: {error}"
    return "loaded"


def plugins() -> dict[str, str]:
    """The entry points of `officegym.tasks` seen so far, each "loaded" or why it was skipped."""
    _load()
    return {name: state for name, state in _PLUGINS.items() if name}


def all_tasks() -> list[TaskTemplate]:
    """Every registered template, by id."""
    _load()
    return [_TASKS[key] for key in sorted(_TASKS)]


def get_task(task_id: str) -> TaskTemplate:
    """One template by id."""
    _load()
    if task_id not in _TASKS:
        raise NotFound(f"No task {task_id!r}. Known tasks: {', '.join(sorted(_TASKS))}.")
    return _TASKS[task_id]


def match_tasks(pattern: str) -> list[TaskTemplate]:
    """Templates whose id matches a glob such as `chat.*` (comma-separated globs allowed)."""
    patterns = [p.strip() for p in pattern.split(",") if p.strip()]
    return [t for t in all_tasks() if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]
