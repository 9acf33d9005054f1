"""The task registry: every template, by id. Task modules register on import."""

from __future__ import annotations

import fnmatch
import importlib

from officegym.errors import NotFound

from .base import TaskTemplate

_TASKS: dict[str, TaskTemplate] = {}
TASK_MODULES = ("chat", "chat_messages", "chat_channels", "chat_questions", "crm", "crm_closing", "crm_sales",
                "crm_answers", "x_crm", "x_crm_questions", "tickets", "tickets_more", "tickets_answers", "x_tickets",
                "x_tickets_crm", "sheets", "sheets_formulas", "sheets_tables", "sheets_answers", "x_sheets",
                "x_sheets_people", "w_deals", "w_deals_close", "w_deals_cleanup", "w_deals_credit", "w_deals_prep", "w_deals_refusals", "w_incidents", "w_incidents_declare", "w_incidents_more", "w_incidents_rota", "w_incidents_swap", "w_incidents_desk", "w_incidents_refusals", "w_people", "w_people_access", "w_people_headcount", "w_people_leaks", "w_people_onboard", "w_people_refusals", "w_people_vendor", "w_revenue", "w_revenue_drift", "w_revenue_more", "w_revenue_commit", "w_revenue_requests", "w_revenue_refusals", "w_support", "w_support_more", "w_support_review", "w_support_workaround", "w_support_queue", "w_support_refusals")


def register(template_class: type[TaskTemplate]) -> type[TaskTemplate]:
    """Class decorator: add a template to the registry."""
    template = template_class()
    if template.id in _TASKS:
        raise ValueError(f"task id {template.id} registered twice")
    _TASKS[template.id] = template
    return template_class


def _load() -> None:
    for module in TASK_MODULES:
        importlib.import_module(f"officegym.tasks.{module}")


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
