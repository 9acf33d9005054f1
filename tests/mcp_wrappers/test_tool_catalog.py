"""The tool catalogue as an agent lists it: names, descriptions, typed and described inputs,
structured outputs, truthful annotations, paginated lists, and one tool per service operation."""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client import Client
from sqlalchemy import select

from officegym.apps.chat import services as chat_services
from officegym.apps.chat.models import Message
from officegym.apps.crm import services as crm_services
from officegym.apps.crm.models import Account, Case, Lead, Opportunity
from officegym.apps.org import services as org_services
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets import services as sheets_services
from officegym.apps.tickets import services as tickets_services
from officegym.apps.tickets.models import Group as TicketGroup
from officegym.db import Base
from officegym.mcp_wrappers.server import catalog
from officegym.worlds import content_hash

NAME = re.compile(r"^(chat|org|crm|tickets|sheets)_[a-z]+_[a-z_]+$")
# Sheets adds reads (read a range, export a copy, apply a saved filter to see its rows) and edits that
# overwrite or drop data (clear a range, import over a sheet, unshare).
READ_VERBS = {"list", "get", "search", "read", "export", "apply"}
DESTRUCTIVE_VERBS = {"delete", "archive", "remove", "leave", "unpin", "unlink", "unwatch", "unshare", "clear",
                     "import"}
# Public service functions with an operation's signature that are lookups other code builds on.
HELPERS = {
    # per-channel counts, shown through chat_list_unreads and unread_count; the invite picker's choices (the
    # people search of org_search_people, less the channel's members, whom chat_invite_to_channel names)
    chat_services: {"resolve_channel", "resolve_message", "unread_counts", "people_to_invite"},
    org_services: set(),
    # Helpers other code builds on (crm_tools.md): child_accounts and line_items feed crm_get_account and
    # crm_get_opportunity, approver_for its approver, scope_of every "what may I see" decision.
    crm_services: {"child_accounts", "line_items", "has_line_items", "approver_for", "line_total", "quarter_of",
                   "quarter_bounds", "scope_of"},
    # Reads that tickets_get_project (components), tickets_get_group (members) and tickets_get_ticket
    # (transitions, watchers, SLA clocks) show as parts of one record.
    # ... and tickets_get_article an article's versions and, given a version, that version.
    tickets_services: {"list_components", "group_members", "available_transitions", "list_watchers", "get_sla",
                       "list_article_versions", "get_article_version"},
    # sheets_get_workbook shows a workbook's role, sheets, shares and named ranges as parts of one record;
    # sheets_export_xlsx returns the file as base64 (export_xlsx gives the raw bytes to the UI's download).
    sheets_services: {"my_role", "list_sheets", "list_shares", "list_named_ranges", "export_xlsx"},
}
MODELS = {mapper.class_.__name__ for mapper in Base.registry.mappers}


def listed(agent) -> list:
    """The tools as `tools/list` returns them to a client."""

    async def run():
        async with Client(agent.episode.mcp_server()) as client:
            return (await client.list_tools()).tools

    return anyio.run(run)


def verb(name: str) -> str:
    """The verb of `<app>_<verb>_<noun>`."""
    return name.split("_")[1]


def test_every_tool_is_described_typed_and_structured(agent):
    tools = listed(agent)
    assert len({t.name for t in tools}) == len(tools) == len(catalog())
    for t in tools:
        assert NAME.match(t.name) or t.name in ("submit_answer", "chat_wait"), t.name  # a verb with no object
        assert t.description and len(t.description) >= 30, t.name
        assert "\n" not in t.description and "  " not in t.description, f"{t.name}: one paragraph, unwrapped"
        schema = t.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False, t.name
        for field, spec in schema.get("properties", {}).items():
            assert len(spec.get("description", "")) >= 10, f"{t.name}.{field} has no description"
        assert t.output_schema and t.output_schema["type"] == "object" and t.output_schema["properties"], t.name
        assert t.annotations is not None and t.annotations.open_world_hint is False, t.name


# The keywords of JSON Schema draft 2020-12: core, applicator, validation, meta-data, format and content.
KEYWORDS = {"$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
            "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
            "contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
            "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const", "multipleOf", "maximum",
            "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
            "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
            "dependentRequired", "title", "description", "default", "deprecated", "readOnly", "writeOnly",
            "examples", "format", "contentEncoding", "contentMediaType", "contentSchema"}
# Keywords whose value maps names (of properties, definitions) to schemas.
NAMED = {"properties", "$defs", "patternProperties", "dependentSchemas"}


def keywords_of(schema) -> set[str]:
    """Every keyword a schema and its subschemas use."""
    if isinstance(schema, list):
        return set().union(*map(keywords_of, schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key in NAMED and isinstance(value, dict):
            found |= keywords_of(list(value.values()))
        elif key not in ("default", "examples", "enum", "const") and isinstance(value, (dict, list)):
            found |= keywords_of(value)
    return found


def test_the_server_tells_its_name_and_the_package_version(agent):
    async def run():
        async with Client(agent.episode.mcp_server()) as client:
            return client.server_info

    info = anyio.run(run)
    assert (info.name, info.version) == ("officegym", version("officegym")) and info.version


def test_input_schemas_are_json_schema_2020_12_with_no_unknown_keyword(agent):
    for t in listed(agent):
        Draft202012Validator.check_schema(t.input_schema)
        unknown = keywords_of(t.input_schema) - KEYWORDS
        assert not unknown, f"{t.name}: {sorted(unknown)} are not JSON Schema keywords"


def test_annotations_follow_what_the_tool_does(agent):
    for t in listed(agent):
        if t.name == "submit_answer":
            assert not t.annotations.read_only_hint and not t.annotations.destructive_hint
            continue
        assert t.annotations.read_only_hint == (verb(t.name) in READ_VERBS), t.name
        assert t.annotations.destructive_hint == (verb(t.name) in DESTRUCTIVE_VERBS), t.name


def test_lists_are_paginated(agent):
    for t in listed(agent):
        if verb(t.name) not in ("list", "search"):
            continue
        inputs, outputs = set(t.input_schema["properties"]), set(t.output_schema["properties"])
        assert "items" in outputs and "limit" in inputs, t.name
        if t.name == "chat_list_messages":  # history pages back in time with a cursor
            assert "before_id" in inputs and "next_before_id" in outputs
        else:
            assert {"offset"} <= inputs and {"total", "next_offset"} <= outputs, t.name


def operations(module) -> set[str]:
    """Public functions of a services module that take (session, actor, plain values): its operations.
    A function taking an ORM object after the actor is a helper for code that already holds one.
    A services module that gathers its app's rules from submodules names its surface in __all__."""
    found = set()
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        params = list(inspect.signature(fn).parameters.values())
        plain = not any(set(re.findall(r"\w+", str(p.annotation))) & MODELS for p in params[2:])
        own = fn.__module__ == module.__name__ or name in getattr(module, "__all__", ())
        if (own and not name.startswith("_") and plain
                and [p.name for p in params[:2]] == ["session", "actor"]):
            found.add(name)
    return found - HELPERS[module]


@pytest.mark.parametrize("app, module", [("chat", chat_services), ("org", org_services), ("crm", crm_services),
                                         ("tickets", tickets_services), ("sheets", sheets_services)],
                         ids=["chat", "org", "crm", "tickets", "sheets"])
def test_one_tool_per_service_operation(app, module):
    ops = operations(module)
    called = {}
    for t in catalog():
        if t.name.startswith(f"{app}_"):
            uses = set(re.findall(r"services\.(\w+)\(", inspect.getsource(t.fn))) & ops
            assert len(uses) == 1, f"{t.name} calls {uses or 'no operation'}"
            called[t.name] = uses.pop()
    assert sorted(called.values()) == sorted(ops), f"operations without a tool: {ops - set(called.values())}"


def crm_reads(agent) -> dict:
    """Arguments for every read-only CRM tool, on records of the seeded world."""
    with agent.episode.session() as s:
        account = s.scalar(select(Account.name).where(Account.parent_id.is_not(None)).order_by(Account.id))
        deal = s.scalar(select(Opportunity.id).order_by(Opportunity.id))
        lead, case = s.scalar(select(Lead.id).order_by(Lead.id)), s.scalar(select(Case.id).order_by(Case.id))
    return {
        "crm_list_accounts": {"query": "a"}, "crm_get_account": {"account": account},
        "crm_list_contacts": {"account": account}, "crm_get_contact": {"contact": 1}, "crm_list_leads": {},
        "crm_get_lead": {"lead": lead}, "crm_list_opportunities": {"stage": "open"},
        "crm_get_opportunity": {"opportunity": deal}, "crm_list_products": {}, "crm_list_price_books": {},
        "crm_list_price_book_entries": {}, "crm_list_discount_approvals": {},
        "crm_list_activities": {"record_type": "opportunity", "record_id": deal}, "crm_list_my_tasks": {},
        "crm_list_cases": {"status": "open"}, "crm_get_case": {"case": case},
        "crm_get_pipeline_report": {"group_by": "owner"}, "crm_search_records": {"query": "a"},
        "crm_get_record_history": {"record_type": "opportunity", "record_id": deal},
    }


def tickets_reads(agent) -> dict:
    """Arguments for every read-only tickets tool, on a project, group, sprint and ticket made for the test."""
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.role == "owner"))
        tickets_services.create_project(s, owner, "ZR", "Zz Reads", "software", owner.id)
        key = tickets_services.create_ticket(s, owner, "ZR", "Task", "Read me").key
        tickets_services.create_sprint(s, owner, "ZR", "ZR Sprint 1")
        s.add(TicketGroup(name="Zz Reads Crew"))  # groups are seeded data: no service makes them
    return {
        "tickets_list_projects": {}, "tickets_get_project": {"project": "ZR"}, "tickets_list_groups": {},
        "tickets_search_tickets": {"query": "project = ZR"}, "tickets_list_sprints": {"project": "ZR"},
        "tickets_get_board": {"project": "ZR", "sprint": "ZR Sprint 1"}, "tickets_get_ticket": {"key": key},
        "tickets_list_comments": {"key": key}, "tickets_get_history": {"key": key},
        "tickets_get_group": {"group": "zz reads crew"}, "tickets_search_articles": {"query": "incident"},
        "tickets_get_article": {"article": "KB0010001", "version": 1},
    }


def sheets_reads(agent) -> dict:
    """Arguments for every read-only sheets tool, on a workbook with a filter view made for the test."""
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.role == "owner"))
        book = sheets_services.create_workbook(s, owner, "Zz Reads", ["Data"]).id
        sheets_services.write_cells(s, owner, book, [{"cell": "A1", "value": "Name"}, {"cell": "A2", "value": "x"},
                                                     {"cell": "B1", "value": "=LEN(A2)"}])
        sheets_services.create_filter_view(s, owner, book, "All", "A1:B2", [])
    return {
        "sheets_list_workbooks": {}, "sheets_get_workbook": {"workbook": book},
        "sheets_list_revisions": {"workbook": book}, "sheets_read_range": {"workbook": book, "range": "A1:B2"},
        "sheets_list_filter_views": {"workbook": book}, "sheets_apply_filter_view": {"workbook": book, "name": "All"},
        "sheets_export_csv": {"workbook": book}, "sheets_export_xlsx": {"workbook": book},
    }


def test_read_only_tools_change_nothing(agent):
    with agent.episode.session() as s:
        message = s.scalars(select(Message.id).join(Message.channel).where(
            Message.thread_parent_id.is_(None), Message.deleted_at.is_(None))
            .where(Message.channel.has(name="general")).order_by(Message.id.desc())).first()
        person = s.scalar(select(Person.handle).where(Person.role == "owner"))
        department, team = s.scalar(select(Department.slug)), s.scalar(select(Team.slug))
    args = {
        "chat_list_channels": {}, "chat_get_channel": {"channel": "general"},
        "chat_list_members": {"channel": "general"}, "chat_list_conversations": {},
        "chat_get_message": {"message_id": message}, "chat_list_messages": {"channel": "#general"},
        "chat_get_thread": {"message_id": message}, "chat_search_messages": {"channel": "general"},
        "chat_list_mentions": {}, "chat_list_pins": {"channel": "general"}, "chat_list_unreads": {},
        "org_search_people": {}, "org_get_person": {"person": person}, "org_list_direct_reports": {"person": person},
        "org_list_departments": {}, "org_get_department": {"department": department}, "org_list_teams": {},
        "org_get_team": {"team": team}, "org_get_me": {},
        **crm_reads(agent), **tickets_reads(agent), **sheets_reads(agent),
    }
    assert set(args) == {t.name for t in catalog() if t.annotations.read_only_hint}
    before = content_hash(agent.episode.engine)
    for name, given in args.items():
        agent.ok(name, given)
    assert content_hash(agent.episode.engine) == before
