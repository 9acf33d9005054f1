"""What an episode serves and whom a free episode acts as: the tool sets (one tuple per set,
shared by every episode that serves it) and the default actor of a free episode."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person


def tool_set(spec, task_id: str | None) -> tuple[str, ...]:
    """The names of the tools an episode of `task_id` (None: the free episode) serves for `spec`."""
    from officegym.mcp_wrappers.server import catalog
    from officegym.mcp_wrappers.toolsets import resolve
    from officegym.tasks.registry import get_task

    return resolve(spec, [t.name for t in catalog()], get_task(task_id) if task_id else None)


class ToolSets:
    """tool_set's answers, one tuple shared by the episodes of a set (thousands of live episodes
    would each hold a copy)."""

    def __init__(self) -> None:
        self._known: dict[tuple, tuple[str, ...]] = {}

    def named(self, tools: str | list[str] | None, task_id: str | None) -> tuple[str, ...]:
        """The tools `tools` names for an episode of `task_id` (a set's name, or a list)."""
        if not isinstance(tools, (str, type(None))):
            return tool_set(tools, task_id)
        key = (tools, task_id)
        if key not in self._known:
            self._known[key] = tool_set(tools, task_id)
        return self._known[key]

    def recorded(self, names: list[str] | None) -> tuple[str, ...]:
        """The tools a registry record names (all of them when it names none)."""
        served = tuple(names or ()) or self.named("all", None)
        return self._known.setdefault(("recorded", *served), served)


def default_actor(session: Session, handle: str | None) -> int:
    """Whom a free episode acts as: the person `handle` names, else the company's owner."""
    if handle:
        from officegym.apps.org.services import resolve_person

        return resolve_person(session, handle).id
    owner = session.scalar(select(Person.id).where(Person.role == "owner").order_by(Person.id))
    return owner or session.scalar(select(Person.id).order_by(Person.id))
