"""Every rule of the CRM, behind one import: `from officegym.apps.crm import services`.

The rules live in small modules by subject; this module is the surface views, MCP tools, seeders,
reference solutions and tests call. Each function takes `(session, actor, plain values)` and
raises an OfficeError on refusal:

- access.py         who reads and edits which record (owners, teams, managers, admins)
- accounts.py       accounts and contacts
- leads.py          leads and all-or-nothing conversion
- opportunities.py  opportunities and the sales path (stage moves, reopening)
- products.py       products, price books, line items, discount approvals
- activities.py     activities on any record, and cases
- reports.py        pipeline report, search across records, field history
"""

from __future__ import annotations

from .access import Scope, scope_of
from .accounts import (child_accounts, create_account, create_contact, get_account, get_contact, list_accounts,
                       list_contacts, update_account, update_contact)
from .activities import (complete_task, create_case, escalate_case, get_case, list_activities, list_cases,
                         list_my_tasks, log_activity, update_case)
from .leads import convert_lead, create_lead, get_lead, list_leads, update_lead
from .opportunities import (create_opportunity, get_opportunity, has_line_items, line_items, list_opportunities,
                            move_stage, reopen, update_opportunity)
from .products import (add_line_item, approve_discount, approver_for, line_total, list_approvals, list_price_books,
                       list_products, price_book_entries, reject_discount, remove_line_item, request_discount,
                       update_line_item)
from .reports import (PipelineReport, PipelineRow, SearchHit, pipeline_report, quarter_bounds, quarter_of,
                      record_history, search_records)

__all__ = [
    "Scope", "scope_of",
    "list_accounts", "get_account", "child_accounts", "create_account", "update_account",
    "list_contacts", "get_contact", "create_contact", "update_contact",
    "list_leads", "get_lead", "create_lead", "update_lead", "convert_lead",
    "list_opportunities", "get_opportunity", "line_items", "has_line_items", "create_opportunity",
    "update_opportunity", "move_stage", "reopen",
    "list_products", "list_price_books", "price_book_entries", "add_line_item", "update_line_item",
    "remove_line_item", "line_total", "list_approvals", "request_discount", "approve_discount", "reject_discount",
    "approver_for",
    "list_activities", "list_my_tasks", "log_activity", "complete_task",
    "list_cases", "get_case", "create_case", "update_case", "escalate_case",
    "PipelineReport", "PipelineRow", "SearchHit", "pipeline_report", "quarter_of", "quarter_bounds", "search_records",
    "record_history",
]
