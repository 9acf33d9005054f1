"""The fields of the ticket query language (query.py): what each one means in SQL, which operators
it takes and how its values are read."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import and_, false, func, not_, or_, select, true

from officegym import clock
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains, resolve_person
from officegym.errors import Invalid

from . import workflow
from .models import (LEVELS, PRIORITIES, PRIORITY_RANK, TYPES, Component, Group, GroupMember, Project, Sprint,
                     Ticket, TicketComponent, TicketLabel, Watcher)

EQUALITY = ("=", "!=", "in", "not in")
EMPTY = ("is empty", "is not empty")
ORDERING = ("<", "<=", ">", ">=")
TEXT = ("~", "!~")
_RELATIVE = re.compile(r"^([+-]?\d{1,5})([dwhm])$", re.IGNORECASE)
CATEGORIES = {"done": workflow.DONE_STATUSES, "to do": ("To Do", "New"),
              "in progress": tuple(s for s in workflow.ALL_STATUSES
                                   if s not in workflow.DONE_STATUSES + ("To Do", "New"))}


@dataclass
class Value:
    """A value as written: its text, position, and the function it calls, if any."""

    text: str
    at: int
    quoted: bool = False
    function: str | None = None
    args: list["Value"] = field(default_factory=list)


def _refuse(token, name: str, op: str, allowed: tuple[str, ...]):
    shown = ", ".join(a.upper() for a in allowed)
    raise Invalid(f"{name} at position {token.at} does not take {op.upper()}; it takes {shown}.")


def _plain(value: Value, name: str) -> str:
    if value.function is not None:
        raise Invalid(f"{value.text}() at position {value.at} is not a value of {name}.")
    return value.text


def _enum(value: Value, allowed: tuple[str, ...], name: str) -> str:
    text = _plain(value, name)
    for option in allowed:
        if option.lower() == text.lower():
            return option
    raise Invalid(f"{text!r} at position {value.at} is not a {name}; allowed: {', '.join(allowed)}.")


def _names(session, column, where=None) -> str:
    stmt = select(column).order_by(column)
    names = [str(n) for n in session.scalars(stmt.where(where) if where is not None else stmt)]
    return ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")


def _project(parser, value: Value) -> int:
    text = _plain(value, "project")
    found = parser.session.scalar(select(Project.id).where(or_(func.upper(Project.key) == text.upper(),
                                                               func.lower(Project.name) == text.lower())))
    if found is None:
        raise Invalid(f"No project {text!r} (position {value.at}). Projects: {_names(parser.session, Project.key)}.")
    return found


def _people(parser, value: Value) -> list[int]:
    if value.function == "currentuser":
        return [parser.actor.id]
    if value.function == "membersof":
        if len(value.args) != 1:
            raise Invalid(f"membersOf() at position {value.at} takes one group name, "
                          "such as membersOf(\"IT Support\").")
        return sorted(parser.session.scalars(select(GroupMember.person_id).where(
            GroupMember.group_id == _group(parser, value.args[0]))))
    return [resolve_person(parser.session, _plain(value, "person")).id]


def _person_ids(parser, values: list[Value]) -> list[int]:
    return [pid for value in values for pid in _people(parser, value)]


def _group(parser, value: Value) -> int:
    text = _plain(value, "group")
    found = parser.session.scalar(select(Group.id).where(func.lower(Group.name) == text.lower()))
    if found is None:
        raise Invalid(f"No assignment group {text!r} (position {value.at}). "
                      f"Groups: {_names(parser.session, Group.name)}.")
    return found


def _sprints(parser, value: Value) -> list[int]:
    if value.function == "opensprints":
        return list(parser.session.scalars(select(Sprint.id).where(Sprint.state == "active")))
    text = _plain(value, "sprint")
    stmt = select(Sprint.id).where(func.lower(Sprint.name) == text.lower())
    if text.isdecimal():
        stmt = select(Sprint.id).where(Sprint.id == int(text))
    found = list(parser.session.scalars(stmt))
    if not found:
        raise Invalid(f"No sprint {text!r} (position {value.at}). Sprints: {_names(parser.session, Sprint.name)}.")
    return found


def _moment(parser, value: Value, name: str) -> tuple[datetime, bool]:
    """(when, whole_day) for a date value: a date, a date and time, -7d, now(), startOfDay(-1d)."""
    now = clock.now(parser.session)
    if value.function in ("now", "startofday", "endofday"):
        shift = _shift(value.args[0]) if value.args else timedelta(0)
        base = now + shift
        if value.function == "now":
            return base, False
        day = base.replace(hour=0, minute=0, second=0, microsecond=0)
        return (day if value.function == "startofday" else day + timedelta(days=1, microseconds=-1)), False
    text = _plain(value, name)
    if _RELATIVE.match(text):
        return now + _shift(value), False
    for pattern, whole_day in (("%Y-%m-%d", True), ("%Y-%m-%d %H:%M", False), ("%Y/%m/%d", True)):
        try:
            return datetime.strptime(text, pattern), whole_day
        except ValueError:
            continue
    raise Invalid(f"{text!r} at position {value.at} is not a date: write 2026-03-01, \"2026-03-01 14:00\", -7d, "
                  "now() or startOfDay().")


def _shift(value: Value) -> timedelta:
    match = _RELATIVE.match(value.text.strip())
    if match is None:
        raise Invalid(f"{value.text!r} at position {value.at} is not an offset such as -7d, -2w, -4h or 30m.")
    amount, unit = int(match.group(1)), match.group(2).lower()
    return {"d": timedelta(days=amount), "w": timedelta(weeks=amount), "h": timedelta(hours=amount),
            "m": timedelta(minutes=amount)}[unit]


def _compare(column, op: str, bound):
    return {"=": column == bound, "!=": column != bound, "<": column < bound, "<=": column <= bound,
            ">": column > bound, ">=": column >= bound}[op]


def _date_condition(parser, column, op: str, value: Value, name: str, is_day: bool):
    when, whole_day = _moment(parser, value, name)
    start = when.date() if is_day else when
    if whole_day and not is_day:  # `created = 2026-03-01` means that whole day
        end = when + timedelta(days=1)
        return {"=": and_(column >= when, column < end), "!=": or_(column < when, column >= end),
                "<": column < when, "<=": column < end, ">": column >= end, ">=": column >= when}[op]
    return _compare(column, op, start if is_day else when)


def _number(value: Value, name: str) -> int:
    text = _plain(value, name)
    if not re.fullmatch(r"\d{1,6}", text):
        raise Invalid(f"{name} takes a whole number; {text!r} at position {value.at} is not one.")
    return int(text)


def _membership(op: str, matching):
    """`=`/`in` keep tickets in `matching` (a select of ticket ids), `!=`/`not in` the others."""
    return Ticket.id.in_(matching) if op in ("=", "in") else Ticket.id.not_in(matching)


def condition(parser, name: str, token, op: str, values):
    """The SQL condition of one clause; `values` is a Value, a list of Values (IN) or None (IS EMPTY)."""
    spec = FIELDS[name]
    if op not in spec["ops"]:
        _refuse(token, token.text, op, spec["ops"])
    many = values if isinstance(values, list) else [values] if values is not None else []
    return spec["build"](parser, op, many, token)


def _equality(column, resolve, empty=None):
    """A builder for a column compared by equality with resolved values; `empty` is its empty value."""
    def build(parser, op, values, token):
        if op in EMPTY:
            blank = column.is_(None) if empty is None else or_(column.is_(None), column == empty)
            return blank if op == "is empty" else not_(blank)
        resolved = []
        for value in values:
            found = resolve(parser, value)
            resolved += found if isinstance(found, list) else [found]
        if op in ("=", "in"):
            return column.in_(resolved) if resolved else false()
        return or_(column.not_in(resolved), column.is_(None)) if resolved else true()
    return build


def _enum_of(allowed, name):
    return lambda parser, value: _enum(value, allowed, name)


def _status_category(parser, op, values, token):
    statuses = []
    for value in values:
        category = _plain(value, "status category").lower()
        if category not in CATEGORIES:
            raise Invalid(f"{value.text!r} at position {value.at} is not a status category: Done, \"To Do\" or "
                          "\"In Progress\".")
        statuses += CATEGORIES[category]
    if op not in ("=", "in"):
        # Every ticket has one of the workflows' statuses, so "not these" is "one of the others": an
        # IN list lets the (project, status, ...) index seek, where NOT IN reads the whole project.
        statuses = [s for s in workflow.ALL_STATUSES if s not in statuses]
    return Ticket.status.in_(statuses)


def _priority(parser, op, values, token):
    if op in ORDERING:
        return _compare(Ticket.priority_rank, op, PRIORITY_RANK[_enum(values[0], PRIORITIES, "priority")])
    return _equality(Ticket.priority, _enum_of(PRIORITIES, "priority"))(parser, op, values, token)


def _key(parser, op, values, token):
    keys = []
    for value in values:
        text = _plain(value, "key").upper()
        if not re.fullmatch(r"[A-Z][A-Z0-9]{1,9}-\d{1,9}", text):
            raise Invalid(f"{value.text!r} at position {value.at} is not a ticket key such as IT-142.")
        keys.append(text)
    if op in ORDERING:
        prefix, number = keys[0].split("-")
        project = parser.session.scalar(select(Project.id).where(Project.key == prefix))
        return and_(Ticket.project_id == project, _compare(Ticket.number, op, int(number)))
    return Ticket.key.in_(keys) if op in ("=", "in") else Ticket.key.not_in(keys)


def _text(*columns):
    def build(parser, op, values, token):
        term = _plain(values[0], token.text)
        if op in ("=", "!="):
            matched = or_(*[func.lower(c) == term.lower() for c in columns])
        else:
            matched = or_(*[contains(c, term) for c in columns])
        return matched if op in ("=", "~") else not_(matched)
    return build


def _related(link_column, name_column_or_resolver, table_ticket_column, empty_ok=True):
    """A builder for fields kept in a side table (labels, components, watchers)."""
    def build(parser, op, values, token):
        any_row = select(table_ticket_column)
        if op in EMPTY:
            return Ticket.id.not_in(any_row) if op == "is empty" else Ticket.id.in_(any_row)
        wanted = []
        for value in values:
            found = name_column_or_resolver(parser, value)
            wanted += found if isinstance(found, list) else [found]
        return _membership(op, select(table_ticket_column).where(link_column.in_(wanted)))
    return build


def _label(parser, value):
    return _plain(value, "label").lower()


def _component_ids(parser, value):
    text = _plain(value, "component")
    found = list(parser.session.scalars(select(Component.id).where(func.lower(Component.name) == text.lower())))
    if not found:
        raise Invalid(f"No component {text!r} (position {value.at}). "
                      f"Components: {_names(parser.session, Component.name)}.")
    return found


def _parent(parser, value):
    text = _plain(value, "parent").upper()
    found = parser.session.scalar(select(Ticket.id).where(Ticket.key == text))
    return found if found is not None else -1


def _account(parser, op, values, token):
    if op in TEXT:
        matched = Ticket.account_id.in_(select(Account.id).where(contains(Account.name, _plain(values[0], "account"))))
        return matched if op == "~" else not_(matched)
    def resolve(parser, value):
        text = _plain(value, "account")
        found = parser.session.scalar(select(Account.id).where(func.lower(Account.name) == text.lower()))
        if found is None:
            raise Invalid(f"No CRM account named {text!r} (position {value.at}); use account ~ \"part of the name\".")
        return found
    return _equality(Ticket.account_id, resolve)(parser, op, values, token)


def _dates(column, is_day=False):
    def build(parser, op, values, token):
        if op in EMPTY:
            return column.is_(None) if op == "is empty" else column.is_not(None)
        return _date_condition(parser, column, op, values[0], token.text, is_day)
    return build


def _points(parser, op, values, token):
    if op in EMPTY:
        return Ticket.story_points.is_(None) if op == "is empty" else Ticket.story_points.is_not(None)
    if op in ("in", "not in"):
        numbers = [_number(v, "points") for v in values]
        return Ticket.story_points.in_(numbers) if op == "in" else Ticket.story_points.not_in(numbers)
    return _compare(Ticket.story_points, op, _number(values[0], "points"))


_STATUS = {"ops": EQUALITY, "build": _equality(Ticket.status, _enum_of(workflow.ALL_STATUSES, "status"))}
_TYPE = {"ops": EQUALITY, "build": _equality(Ticket.type, _enum_of(TYPES, "type"))}
_ASSIGNEE = {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.assignee_id, _people)}
_GROUP = {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.group_id, _group)}
_LABELS = {"ops": EQUALITY + EMPTY, "build": _related(TicketLabel.name, _label, TicketLabel.ticket_id)}
_KEY = {"ops": EQUALITY + ORDERING, "build": _key}
_DUE = {"ops": ("=", "!=") + ORDERING + EMPTY, "build": _dates(Ticket.due_date, is_day=True)}
_POINTS = {"ops": ("=", "!=", "in", "not in") + ORDERING + EMPTY, "build": _points}
FIELDS = {
    "project": {"ops": EQUALITY, "build": _equality(Ticket.project_id, _project)},
    "key": _KEY, "issuekey": _KEY, "type": _TYPE, "issuetype": _TYPE, "status": _STATUS,
    "statuscategory": {"ops": EQUALITY, "build": _status_category},
    "resolution": {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.resolution,
                                                               _enum_of(workflow.RESOLUTIONS, "resolution"), "")},
    "priority": {"ops": EQUALITY + ORDERING, "build": _priority},
    "impact": {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.impact, _enum_of(LEVELS, "impact"), "")},
    "urgency": {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.urgency, _enum_of(LEVELS, "urgency"), "")},
    "assignee": _ASSIGNEE, "reporter": {"ops": EQUALITY, "build": _equality(Ticket.reporter_id, _people)},
    "group": _GROUP, "assignmentgroup": _GROUP, "labels": _LABELS, "label": _LABELS,
    "component": {"ops": EQUALITY + EMPTY, "build": _related(TicketComponent.component_id, _component_ids,
                                                             TicketComponent.ticket_id)},
    "sprint": {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.sprint_id, _sprints)},
    "parent": {"ops": EQUALITY + EMPTY, "build": _equality(Ticket.parent_id, _parent)},
    "watcher": {"ops": EQUALITY, "build": lambda parser, op, values, token: _membership(
        op, select(Watcher.ticket_id).where(Watcher.person_id.in_(_person_ids(parser, values))))},
    "summary": {"ops": TEXT + ("=", "!="), "build": _text(Ticket.summary)},
    "description": {"ops": TEXT, "build": _text(Ticket.description)},
    "text": {"ops": TEXT, "build": _text(Ticket.summary, Ticket.description)},
    "created": {"ops": ("=", "!=") + ORDERING, "build": _dates(Ticket.created_at)},
    "updated": {"ops": ("=", "!=") + ORDERING, "build": _dates(Ticket.updated_at)},
    "resolved": {"ops": ("=", "!=") + ORDERING + EMPTY, "build": _dates(Ticket.resolved_at)},
    "due": _DUE, "duedate": _DUE,
    "account": {"ops": EQUALITY + EMPTY + TEXT, "build": _account},
    "points": _POINTS, "storypoints": _POINTS,
}


def _person_name(column):
    return select(Person.name).where(Person.id == column).scalar_subquery()


ORDERS = {
    "key": [select(Project.key).where(Project.id == Ticket.project_id).scalar_subquery(), Ticket.number],
    "created": [Ticket.created_at], "updated": [Ticket.updated_at], "priority": [Ticket.priority_rank],
    "status": [Ticket.status], "type": [Ticket.type], "assignee": [_person_name(Ticket.assignee_id)],
    "reporter": [_person_name(Ticket.reporter_id)], "due": [Ticket.due_date], "duedate": [Ticket.due_date],
    "resolved": [Ticket.resolved_at], "summary": [func.lower(Ticket.summary)], "points": [Ticket.story_points],
}
