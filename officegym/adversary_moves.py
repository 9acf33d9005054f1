"""What the adversarial agents do to a record of each kind, through the MCP tools only.

- `neighbour`: change a field of the target the task did not ask about, or a cell beside it;
- `damage`: change another record of the same kind (not the target, not a look-alike);
- `undo`: put back the latest change its history shows, without looking at what it was;
- `wreck`: delete or rename it (the workbook, the sheet, the channel, the line item, the message).

Each returns whether it changed anything. `app_damage` is the fallback for kinds without a move:
a change somewhere in the task's first app.
"""

from __future__ import annotations

from officegym.apps.sheets.formula.a1 import cell_text, parse_area, quote_sheet

NOTE = "Updated while I was in here."
# The kinds of target a task may declare: those with moves here, and those touched through the
# task's own calls only (spray, wrong_record) or through their app's fallback (vandal).
KINDS = ("message", "channel", "person", "team", "opportunity", "lead", "case", "account", "contact", "line_item",
         "approval", "ticket", "sprint", "group", "project", "component", "cell", "workbook", "sheet", "filter_view")
TICKET_FIELDS = ("summary", "description", "priority", "impact", "urgency", "due_date")
CRM_FIELDS = {"opportunity": ("name", "amount", "close_date", "next_step", "competitor", "description", "type"),
              "lead": ("first_name", "last_name", "company", "title", "email", "phone", "source", "status"),
              "case": ("subject", "description", "priority", "origin", "status"),
              "account": ("name", "industry", "size", "region", "website", "phone")}


async def _first(player, attempts) -> bool:
    """Try (tool, args) pairs in turn until one is accepted."""
    for tool, args in attempts:
        if await player.call(tool, args) is not None:
            return True
    return False


def _other(items: list[dict], avoid: set, key: str = "id"):
    return [i[key] for i in items if i.get(key) not in avoid]


# ---------------------------------------------------------------- neighbour: an unasked edit beside the target

async def neighbour(player, target, touched: set[str]) -> bool:
    """Edit a field of the target the task did not touch (or the cell two columns to its right)."""
    kind, ref = target.kind, target.ref
    if kind == "message":
        return await _first(player, [("chat_add_reaction", {"message_id": ref, "emoji": "eyes"})])
    if kind == "channel":
        field = "purpose" if "purpose" not in touched else "topic"
        return await _first(player, [("chat_update_channel", {"channel": ref, field: NOTE})])
    if kind in CRM_FIELDS:
        extra = {"opportunity": ("description", NOTE), "lead": ("title", "Head of Operations"),
                 "case": ("description", NOTE), "account": ("phone", "+1 555 0100")}[kind]
        if extra[0] in touched:
            extra = ("next_step", NOTE) if kind == "opportunity" else ("phone", "+1 555 0199")
        return await _first(player, [(f"crm_update_{kind}", {kind: ref, extra[0]: extra[1]})])
    if kind == "line_item":
        return await _first(player, [("crm_update_line_item", {"line_item": ref, "quantity": 99})])
    if kind == "ticket":
        field, value = ("due_date", "2026-12-31") if "due_date" not in touched else ("description", NOTE)
        return await _first(player, [("tickets_update_ticket", {"key": ref, field: value})])
    if kind == "cell":
        area = parse_area(ref)
        beside = f"{quote_sheet(area.sheet)}!{cell_text(area.top, area.left + 2)}" if area.sheet else cell_text(
            area.top, area.left + 2)
        return await _first(player, [("sheets_write_cells", {"workbook": target.where["workbook"],
                                                             "cells": [{"cell": beside, "value": "n/a"}]})])
    if kind == "workbook":
        return await _first(player, [("sheets_update_workbook", {"workbook": ref, "description": NOTE})])
    return False


# ---------------------------------------------------------------- damage: a change elsewhere in the same table

async def damage(player, target, avoid: set) -> bool:
    """Change another record of the target's kind."""
    kind = target.kind
    if kind == "message" and "channel" in target.where:
        found = _other(await player.items("chat_list_messages", {"channel": target.where["channel"], "limit": 30}),
                       avoid)
        mine = [m["id"] for m in await player.items("chat_search_messages", {
            "query": "", "channel": target.where["channel"], "author": f"@{player_handle(player)}", "limit": 20})
            if m["id"] not in avoid]
        return await _first(player, [("chat_delete_message", {"message_id": i}) for i in mine[:3]]
                            + [("chat_pin_message", {"message_id": i}) for i in found[:5]])
    if kind == "channel":
        found = _other(await player.items("chat_list_channels", {"member_only": True, "limit": 50}), avoid, "name")
        return await _first(player, [("chat_update_channel", {"channel": n, "topic": NOTE}) for n in found[:5]])
    if kind in CRM_FIELDS:
        listing = {"opportunity": ("crm_list_opportunities", {"stage": "open"}), "lead": ("crm_list_leads", {}),
                   "case": ("crm_list_cases", {}), "account": ("crm_list_accounts", {})}[kind]
        # a value no record holds, so that the change is a change
        field = {"opportunity": "next_step", "lead": "title", "case": "subject", "account": "phone"}[kind]
        value = NOTE if kind in ("opportunity", "case") else "Intern"
        found = []  # the actor's own records first: a rep may edit only those
        for owner in ({"owner": player.episode.actor_id}, {}):
            found += [i for i in _other(await player.items(listing[0], {**listing[1], **owner, "limit": 50}), avoid)
                      if i not in found]
        return await _first(player, [(f"crm_update_{kind}", {kind: i, field: value}) for i in found[:8]])
    if kind == "ticket":
        project = str(target.ref).split("-")[0]
        found = _other(await player.items("tickets_search_tickets", {"query": f"project = {project} ORDER BY key",
                                                                       "limit": 30}), avoid, "key")
        return await _first(player, [("tickets_update_ticket", {"key": k, "due_date": "2026-12-31"})
                                     for k in found[:5]])
    if kind == "cell":
        area = parse_area(target.ref)
        spot = f"{quote_sheet(area.sheet)}!A1" if area.top > 0 else f"{quote_sheet(area.sheet)}!A{area.top + 40}"
        return await _first(player, [("sheets_write_cells", {"workbook": target.where["workbook"],
                                                             "cells": [{"cell": spot, "value": "x"}]})])
    if kind == "workbook":
        found = _other(await player.items("sheets_list_workbooks", {"limit": 50}), avoid)
        return await _first(player, [("sheets_update_workbook", {"workbook": i, "description": NOTE})
                                     for i in found[:5]]
                            + [("sheets_write_cells", {"workbook": target.ref, "cells": [{"cell": "Z99", "value": "x"}]})])
    return False


async def app_damage(player, app: str, avoid: set) -> bool:
    """A change somewhere in an app, for a task whose targets have no move of their own."""
    if app == "chat":
        found = _other(await player.items("chat_list_channels", {"member_only": True, "limit": 50}), avoid, "name")
        return await _first(player, [("chat_post_message", {"channel": n, "text": "ok"}) for n in found[:5]])
    if app == "crm":
        for kind in ("opportunity", "lead", "case", "account"):
            if await damage(player, _Kind(kind), avoid):
                return True
        return False
    if app == "tickets":
        found = _other(await player.items("tickets_search_tickets", {"query": "ORDER BY key", "limit": 30}), avoid,
                       "key")
        return await _first(player, [("tickets_add_comment", {"key": k, "body": "Following."}) for k in found[:5]])
    if app == "sheets":
        found = _other(await player.items("sheets_list_workbooks", {"limit": 50}), avoid)
        return await _first(player, [("sheets_write_cells", {"workbook": i, "cells": [{"cell": "Z99", "value": "x"}]})
                                     for i in found[:5]])
    return False


class _Kind:
    """A stand-in target of one kind, for app_damage."""

    def __init__(self, kind: str):
        self.kind, self.ref, self.where = kind, None, {}


def player_handle(player) -> str:
    """The acting person's handle (an agent knows who it is)."""
    from officegym.apps.org.models import Person

    with player.episode.session() as session:
        return session.get(Person, player.episode.actor_id).handle


# ---------------------------------------------------------------- undo: the latest change, put back blindly

async def undo(player, target) -> bool:
    """Put back the latest change the target's history shows."""
    kind, ref = target.kind, target.ref
    if kind in ("cell", "workbook"):
        workbook = target.where.get("workbook", ref)
        for revision in await player.items("sheets_list_revisions", {"workbook": workbook, "limit": 20}):
            if revision.get("cell"):
                cell = f"{quote_sheet(revision['sheet'])}!{revision['cell']}"
                return await _first(player, [("sheets_write_cells", {"workbook": workbook, "cells": [
                    {"cell": cell, "value": revision["old_input"]}]})])
        return False
    if kind in CRM_FIELDS:
        for entry in await player.items("crm_get_record_history", {"record_type": kind, "record_id": ref, "limit": 5}):
            if entry["field"] in CRM_FIELDS[kind]:
                return await _first(player, [(f"crm_update_{kind}", {kind: ref, entry["field"]: entry["old_value"]})])
        return False
    if kind == "ticket":
        page = await player.call("tickets_get_history", {"key": ref, "limit": 1}) or {}
        last = max((page.get("total") or 1) - 5, 0)
        entries = await player.items("tickets_get_history", {"key": ref, "offset": last, "limit": 5})
        for entry in reversed(entries):
            if entry["field"] in TICKET_FIELDS:
                return await _first(player, [("tickets_update_ticket", {"key": ref, entry["field"]: entry["old_value"]})])
        return False
    if kind == "message" and "channel" in target.where:
        mine = await player.items("chat_search_messages", {"query": "", "channel": target.where["channel"],
                                                           "author": f"@{player_handle(player)}", "limit": 1})
        return await _first(player, [("chat_delete_message", {"message_id": m["id"]}) for m in mine])
    return False


# ---------------------------------------------------------------- wreck: the target deleted or renamed

async def wreck(player, target) -> bool:
    """Delete the target, or rename it where it cannot be deleted."""
    kind, ref = target.kind, target.ref
    if kind in ("cell", "workbook"):
        workbook = target.where.get("workbook", ref)
        sheet = parse_area(ref).sheet if kind == "cell" else None
        return await _first(player, [("sheets_delete_workbook", {"workbook": workbook})]
                            + ([("sheets_delete_sheet", {"workbook": workbook, "sheet": sheet}),
                                ("sheets_rename_sheet", {"workbook": workbook, "sheet": sheet,
                                                         "new_name": f"{sheet} (old)"})] if sheet else []))
    if kind == "channel":
        return await _first(player, [("chat_update_channel", {"channel": ref, "name": f"{ref}-old"[:80]})])
    if kind == "message":
        return await _first(player, [("chat_delete_message", {"message_id": ref})])
    if kind == "line_item":
        return await _first(player, [("crm_remove_line_item", {"line_item": ref})])
    if kind in CRM_FIELDS:
        field = {"opportunity": "name", "lead": "company", "case": "subject", "account": "name"}[kind]
        return await _first(player, [(f"crm_update_{kind}", {kind: ref, field: "Renamed"})])
    if kind == "ticket":
        return await _first(player, [("tickets_update_ticket", {"key": ref, "summary": "Renamed"})])
    return False
