"""A service's message worded for the browser: the services write for agents, naming the MCP tool
that does what is asked ("Use tickets_search_tickets to find tickets."); a browser user has pages,
buttons and forms instead. The rule and the message stay in the service; only the tool names are
put in the UI's words here ("Use ticket Search to find tickets.")."""

from __future__ import annotations

import re

# The UI control that does what each tool does, as it reads after "Use", "with" or in parentheses.
UI_CONTROLS = {
    "chat_search_messages": "chat's Search",
    "chat_list_messages": "the channel's history",
    "chat_join_channel": "the channel's Join channel button",
    "crm_list_accounts": "the Accounts list",
    "crm_list_contacts": "the Contacts list",
    "crm_list_leads": "the Leads list",
    "crm_list_opportunities": "the Opportunities list",
    "crm_list_cases": "the Cases list",
    "crm_list_products": "the Products list",
    "crm_list_price_books": "the Products page",
    "crm_list_discount_approvals": "the Approvals page",
    "crm_list_activities": "the record's Activity tab",
    "crm_search_records": "CRM search",
    "crm_get_opportunity": "the opportunity's page",
    "crm_escalate_case": "the case's Escalate case form",
    "crm_convert_lead": "the lead's Convert button",
    "crm_reopen_opportunity": "the opportunity's Reopen button",
    "crm_move_opportunity_stage": "the opportunity's stage path",
    "crm_update_line_item": "the line item's Edit form under Products",
    "crm_request_discount": "the line item's discount request form",
    "org_search_people": "the People directory",
    "sheets_list_workbooks": "the Sheets home page",
    "tickets_search_tickets": "ticket Search",
    "tickets_search_articles": "the knowledge base's search",
    "tickets_link_tickets": "the ticket's Links form",
    "tickets_assign_ticket": "the ticket's Assignee field",
}
VERBS = ("list get search create update delete post add remove assign transition join leave invite reopen convert "
         "link unlink move request approve reject escalate pin unpin write read share import export set log mark "
         "archive unarchive edit clear sort insert rename freeze find copy fill open close submit")
TOOL_NAME = re.compile(rf"\b(?:chat|crm|tickets|sheets|org)_(?:{'|'.join(VERBS.split())})(?:_[a-z]+)+\b")


def _control(tool: str) -> str:
    """The UI's words for one tool; a tool without its own words reads as its form ("the Add comment form")."""
    words = UI_CONTROLS.get(tool)
    if words is None:
        words = "the " + tool.split("_", 1)[1].replace("_", " ").capitalize() + " form"
    return words


def ui_message(message: str) -> str:
    """`message` with every MCP tool name replaced by the UI control that does the same; a sentence
    that now starts with a control starts with a capital letter."""
    def replace(found: re.Match) -> str:
        words = _control(found.group(0))
        before = message[:found.start()].rstrip()
        return words[0].upper() + words[1:] if not before or before.endswith((".", "!", "?")) else words
    return TOOL_NAME.sub(replace, message)
