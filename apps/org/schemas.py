"""Output models of the directory, shared by the MCP tools and the UI's JSON (the converters that
build them from records are in presenters.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field, create_model


class PageFields(BaseModel):
    """Where an offset-paginated list stands (the same fields in every app)."""

    total: int = Field(description="How many items match in all (at least this many when total_is_exact is false)")
    total_is_exact: bool = Field(True, description=(
        "False when a search stopped counting: more than `total` items may match; narrow the search to count them"))
    offset: int = Field(description="Offset of the first item returned")
    next_offset: int | None = Field(description="Pass as `offset` for the next page; null on the last page")


def page_model(name: str, item, noun: str, module: str) -> type[PageFields]:
    """A page model `name` holding `items` of the model `item` (one per list an app returns)."""
    return create_model(name, __base__=PageFields, __module__=module, __doc__=f"One page of {noun}.",
                        items=(list[item], ...))


class PersonBrief(BaseModel):
    """A person named on a record (owner, assignee, reporter, approver, author of a change)."""

    id: int
    name: str
    handle: str = Field(description="Usable wherever a person is asked for, as @handle")


class Ref(BaseModel):
    """Another record, by id and name."""

    id: int
    name: str


class PersonOut(BaseModel):
    """A person's directory profile."""

    id: int
    name: str
    handle: str = Field(description="Unique handle, written @handle in messages")
    email: str
    title: str
    department: str = Field(description="Department name")
    team: str | None = Field(description="Team name, null when the person is in no team")
    manager: str | None = Field(description="The manager's handle, null for the top of the company")
    location: str
    timezone: str
    role: str = Field(description="Workspace role: owner, admin or member")


class MeOut(PersonOut):
    """Who you are in this episode, and the company's current date and time."""

    now: str = Field(description=(
        "The company's current date and time, ISO 8601 (simulated: use it, not your own clock)"))
    weekday: str = Field(description="The day of the week of `now`, e.g. Monday")


class PersonPage(PageFields):
    """One page of people."""

    items: list[PersonOut]


class TeamOut(BaseModel):
    """A team and its lead."""

    id: int
    name: str
    slug: str
    department: str = Field(description="Department name")
    lead: str | None = Field(description="The lead's handle")
    lead_name: str | None
    member_count: int


class TeamDetailOut(TeamOut):
    """A team with its members."""

    members: list[PersonOut]


class TeamPage(PageFields):
    """One page of teams."""

    items: list[TeamOut]


class DepartmentOut(BaseModel):
    """A department, its head, size and teams."""

    id: int
    name: str
    slug: str
    head: str | None = Field(description="The head's handle")
    head_name: str | None
    headcount: int
    teams: list[str] = Field(description="Team names, alphabetical")


class DepartmentPage(PageFields):
    """One page of departments."""

    items: list[DepartmentOut]
