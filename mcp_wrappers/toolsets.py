"""Tool sets: which of the catalogue's tools an episode's MCP endpoint serves.

The catalogue is split into areas, one per subject of an app (`crm.sales`: opportunities, products,
quotes and discounts, to read and to change), so that a task spanning several apps can carry the
subjects it is about without listing all 146 tools: OpenAI's function calling takes at most 128,
several clients fewer, and every definition costs tokens on every turn.

An episode's `tools` is one of:
- "task" (the default of a task episode): the directory (`org`), the handbook, `submit_answer`, and
  the task's own: every area of each of its apps, or, where those hold over 100 tools, the apps
  and areas its template names (`toolsets`);
- "all" (the default of the free episode): every tool;
- a list of app names (`chat`), area names (`crm.sales`) and tool names, served exactly.
"""

from __future__ import annotations

from typing import Sequence

from officegym.errors import Invalid

# Each app's tools by subject, reads with the writes they serve; the directory (`org`) is one area.
AREAS: dict[str, tuple[str, ...]] = {
    "chat.messages": ("chat_list_channels", "chat_get_channel", "chat_list_members", "chat_open_conversation",
                      "chat_list_conversations", "chat_post_message", "chat_edit_message", "chat_delete_message",
                      "chat_get_message", "chat_list_messages", "chat_get_thread", "chat_search_messages",
                      "chat_list_mentions", "chat_add_reaction", "chat_remove_reaction", "chat_pin_message",
                      "chat_unpin_message", "chat_list_pins", "chat_list_unreads", "chat_mark_read", "chat_wait"),
    "chat.channels": ("chat_create_channel", "chat_update_channel", "chat_archive_channel", "chat_unarchive_channel",
                      "chat_join_channel", "chat_leave_channel", "chat_invite_to_channel",
                      "chat_remove_from_channel"),
    "crm.records": ("crm_list_accounts", "crm_get_account", "crm_create_account", "crm_update_account",
                    "crm_list_contacts", "crm_get_contact", "crm_create_contact", "crm_update_contact",
                    "crm_list_leads", "crm_get_lead", "crm_create_lead", "crm_update_lead", "crm_convert_lead",
                    "crm_search_records", "crm_get_record_history"),
    "crm.sales": ("crm_list_opportunities", "crm_get_opportunity", "crm_create_opportunity",
                  "crm_update_opportunity", "crm_move_opportunity_stage", "crm_reopen_opportunity",
                  "crm_list_products", "crm_list_price_books", "crm_list_price_book_entries", "crm_add_line_item",
                  "crm_update_line_item", "crm_remove_line_item", "crm_list_discount_approvals",
                  "crm_request_discount", "crm_approve_discount", "crm_reject_discount", "crm_get_pipeline_report"),
    "crm.service": ("crm_list_activities", "crm_list_my_tasks", "crm_log_activity", "crm_complete_task",
                    "crm_list_cases", "crm_get_case", "crm_create_case", "crm_update_case", "crm_escalate_case"),
    "tickets.work": ("tickets_list_projects", "tickets_get_project", "tickets_list_groups", "tickets_get_group",
                     "tickets_search_tickets", "tickets_get_ticket", "tickets_create_ticket", "tickets_update_ticket",
                     "tickets_assign_ticket", "tickets_transition_ticket", "tickets_list_comments",
                     "tickets_add_comment", "tickets_add_work_note", "tickets_watch_ticket", "tickets_unwatch_ticket",
                     "tickets_link_tickets", "tickets_unlink_tickets", "tickets_set_sprint", "tickets_get_history"),
    "tickets.admin": ("tickets_create_project", "tickets_update_project", "tickets_create_component",
                      "tickets_list_sprints", "tickets_create_sprint", "tickets_start_sprint",
                      "tickets_complete_sprint", "tickets_get_board"),
    "tickets.knowledge": ("tickets_create_article", "tickets_update_article"),
    "sheets.cells": ("sheets_list_workbooks", "sheets_get_workbook", "sheets_list_revisions", "sheets_read_range",
                     "sheets_write_cells", "sheets_write_range", "sheets_clear_range", "sheets_set_number_format",
                     "sheets_insert_rows", "sheets_delete_rows", "sheets_insert_columns", "sheets_delete_columns",
                     "sheets_sort_range", "sheets_copy_paste", "sheets_fill_down", "sheets_find_replace"),
    "sheets.files": ("sheets_create_workbook", "sheets_update_workbook", "sheets_delete_workbook",
                     "sheets_share_workbook", "sheets_unshare_workbook",
                     "sheets_create_sheet", "sheets_rename_sheet", "sheets_move_sheet", "sheets_delete_sheet",
                     "sheets_import_csv", "sheets_export_csv", "sheets_import_xlsx", "sheets_export_xlsx"),
    "sheets.views": ("sheets_freeze_rows", "sheets_define_named_range", "sheets_delete_named_range",
                     "sheets_create_filter_view", "sheets_list_filter_views", "sheets_apply_filter_view",
                     "sheets_delete_filter_view", "sheets_create_summary_table"),
}
# Company knowledge every task may need: the handbook's articles live in the tickets app's knowledge base.
HANDBOOK = ("tickets_search_articles", "tickets_get_article")
ALWAYS = ("org", "handbook", "answer")
APPS = ("org", "chat", "crm", "tickets", "sheets")
_AREA_OF = {tool: area for area, tools in AREAS.items() for tool in tools}
# The most tools a task's default set may hold; a template whose apps hold more names its areas.
TASK_LIMIT = 100


def app_of(tool: str) -> str:
    """The app a tool belongs to (`submit_answer`'s is `answer`)."""
    return tool.split("_")[0] if tool != "submit_answer" else "answer"


def area_of(tool: str) -> str:
    """The area of one tool."""
    if tool in HANDBOOK:
        return "handbook"
    return _AREA_OF.get(tool) or app_of(tool)


def areas(names: Sequence[str]) -> dict[str, list[str]]:
    """Every area and its tools, in catalogue order."""
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(area_of(name), []).append(name)
    return found


def _expand(word: str, by_area: dict[str, list[str]], names: Sequence[str]) -> list[str]:
    if word in APPS:
        return [n for n in names if app_of(n) == word]
    if word in by_area:
        return by_area[word]
    if word in names:
        return [word]
    raise Invalid(f"tools: {word!r} is not an app ({', '.join(APPS)}), an area ({', '.join(sorted(by_area))}) "
                  "or a tool name.")


def resolve(spec, names: Sequence[str], task=None) -> tuple[str, ...]:
    """The tool names an episode serves, in catalogue order. `spec` is "task", "all", None (the
    default: "task" for a task episode, "all" for the free one) or a list of apps, areas and tool
    names; `names` is the whole catalogue; `task` the template of a task episode."""
    if spec is None:
        spec = "task" if task is not None else "all"
    by_area = areas(names)
    if spec == "all":
        return tuple(names)
    if spec == "task":
        if task is None:
            raise Invalid('tools: "task" needs a task episode; the free episode takes "all" or a list.')
        words = [*ALWAYS, *(task.toolsets or task.apps)]
    elif isinstance(spec, (list, tuple)) and spec and all(isinstance(w, str) for w in spec):
        if len(spec) > len(names):
            raise Invalid(f"tools: at most {len(names)} names.")
        words = list(spec)
    else:
        raise Invalid('tools must be "task", "all" or a non-empty list of app, area or tool names.')
    chosen = {tool for word in words for tool in _expand(word, by_area, names)}
    return tuple(n for n in names if n in chosen)
