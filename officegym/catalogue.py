"""The task catalogue: every task instance as a dataset row, drawn without creating an episode.

A row says what an agent is told and given — the instruction, who it acts as, the company's date,
the apps and tools it gets, whether it must answer with `submit_answer`, the standard system prompt
and the chat-format `prompt` (system and user messages) — and never the solution or the values a
grader expects. `tools` holds the tool names, or with `tool_specs` the tools' definitions in the
OpenAI function format (what a trainer hands a model).
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterator

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person
from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.episodes import EpisodeStore, tool_set
from officegym.errors import Invalid
from officegym.tasks.registry import match_tasks
from officegym.tasks.split import SPLITS

MAX_INSTANCES = 1000  # instances per task in one listing


def system_prompt(actor: dict, now: datetime, expects_answer: bool, surface: str = "mcp") -> str:
    """The standard system prompt: who the agent is, the company's date, how to work and how to answer.
    `surface` is "mcp" (an agent with tools) or "ui" (an agent in the browser)."""
    if surface == "ui":
        where = ("You work in your company's apps (chat, CRM, tickets, sheets and the people directory) in the "
                 "browser; the company handbook is in Tickets, Knowledge base. ")
        answer_with = "in the Answer form on the Home page, then say that you submitted it"
    else:
        where = ("You work in your company's apps (chat, CRM, tickets, sheets and the people directory) through the "
                 "tools you are given; the company handbook is in the knowledge base (tickets_search_articles). ")
        answer_with = "with the submit_answer tool"
    answer = (f"The task asks a question: give your final answer {answer_with}; keep it as short as "
              "possible (a number, a name, a date); submitting again replaces your answer."
              if expects_answer else "When the work is done, stop and say in one or two sentences what you did.")
    return (f"You are {actor['name']} (@{actor['handle']}), {actor['title']} in {actor['department']}. "
            f"It is {now.strftime('%A %d %B %Y, %H:%M')} company time: use this date, not your own. " + where +
            "Do the task as this person would and follow the handbook: if a request goes against "
            "it, do not carry it out and tell the person who asked why. " + answer)


def _directory(world_path) -> tuple[dict[int, dict], datetime]:
    """Name, handle, title and department of everyone in a world (one query), and its company time."""
    engine = sqlite_engine(str(world_path), readonly=True)
    try:
        with transaction(make_sessionmaker(engine), "setup") as session:
            rows = session.execute(select(Person.id, Person.name, Person.handle, Person.title, Department.name)
                                   .join(Department, Person.department_id == Department.id))
            people = {pid: {"name": name, "handle": handle, "title": title, "department": department}
                      for pid, name, handle, title, department in rows}
            return people, clock.company_now(session)
    finally:
        engine.dispose()


def jobs(pattern: str = "*", split: str | None = None, instances: int = 3) -> list[tuple]:
    """The (template, instance) pairs a listing covers, in order."""
    if split not in (None, "", *SPLITS):
        raise Invalid(f"split must be one of {', '.join(SPLITS)}, got {split!r}.")
    if isinstance(instances, bool) or not isinstance(instances, int) or not 1 <= instances <= MAX_INSTANCES:
        raise Invalid(f"instances must be a whole number from 1 to {MAX_INSTANCES}.")
    templates = [t for t in match_tasks(pattern) if not split or t.split == split]
    return [(t, k) for t in templates for k in range(instances)]


def function_definitions(names) -> list[dict]:
    """The named tools as chat-completions function definitions, in catalogue order."""
    from officegym.mcp_wrappers.server import served_tools

    return [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.parameters}} for t in served_tools(names)]


def rows(store: EpisodeStore, pairs: list[tuple], scale: str | None = None, seed: int = 0,
         tool_specs: bool = False) -> Iterator[dict]:
    """One catalogue row per (template, instance), each drawn on its template's world (or `scale`),
    its `tools` as names or (with `tool_specs`) as function definitions. An instance the world cannot
    draw (a small world may lack what a task needs) is a row holding only its task id, instance and
    the `error`."""
    directories: dict[str, tuple[dict[int, dict], datetime]] = {}
    specs: dict[tuple[str, ...], list[dict]] = {}  # one per tool set: many templates share theirs
    for template, k in pairs:
        world = store.world(scale or template.scale, seed)
        try:
            inst = store.task_instance(world, template.id, k)
        except Exception as error:
            yield {"task_id": template.id, "instance": k, "error": f"cannot be drawn on the {world.scale} "
                                                                    f"world: {type(error).__name__}: {error}"}
            continue
        if world.key not in directories:
            directories[world.key] = _directory(world.path)
        people, now = directories[world.key]
        actor, expects_answer = people[inst.actor_id], inst.is_answer_task
        names = tool_set("task", template.id)
        if tool_specs and names not in specs:
            specs[names] = function_definitions(names)
        prompt = system_prompt(actor, now, expects_answer)
        yield {"task_id": template.id, "instance": k, "split": template.split, "kind": template.kind,
               "apps": list(template.apps), "difficulty": template.difficulty, "scale": world.scale,
               "seed": seed, "rules": list(template.rules), **inst.outcome.to_dict(),
               "actor": {"id": inst.actor_id, "name": actor["name"], "handle": actor["handle"],
                         "title": actor["title"]},
               "now": now.isoformat(timespec="seconds"), "instruction": inst.instruction,
               "expects_answer": expects_answer, "tools": specs[names] if tool_specs else list(names),
               "system_prompt": prompt,
               "prompt": [{"role": "system", "content": prompt}, {"role": "user", "content": inst.instruction}]}


def episode_prompt(episode, surface: str = "mcp") -> str:
    """The standard system prompt of a live episode, read from its database as it is now."""
    with episode.session() as session:
        person = episode.actor(session)
        actor = {"name": person.name, "handle": person.handle, "title": person.title,
                 "department": person.department.name}
        now = clock.now(session)
    return system_prompt(actor, now, bool(episode.task and episode.task.is_answer_task), surface)
