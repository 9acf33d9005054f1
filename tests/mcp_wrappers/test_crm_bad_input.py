"""Bad input for every CRM tool, as a sales rep meets it (and, where it matters, a member outside
Sales): unknown arguments, wrong types, huge ids, empty and oversized text, bad choices, deals of
other people, closed deals, refused permissions. Each call must be an is_error result that says
what was wrong, and change no row at all."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import select

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Contact
from officegym.apps.org.models import Person
from officegym.mcp_wrappers.server import catalog
from test_crm_tools import sales_roles


@dataclass
class Scene:
    """What the rep (R) meets; R, their lead (L) and the head of Sales (H) built it with the services."""

    mine: int  # R's Negotiation deal "Zz Mine" on account "Zz Scene Co", with line item `item`
    item: int  # has a pending discount request `approval` (approver L)
    approval: int
    teammates: int  # L's open deal: R reads it but may not edit it
    hidden: int  # H's deal: outside R's team
    won: int  # R's Closed Won deal
    lead: int  # R's New lead
    unqualified: int
    converted: int
    case: int  # R's New case on Zz Scene Co
    closed_case: int
    hidden_case: int  # H's case
    note: int  # a call logged on `mine`
    done: int  # R's completed task
    elsewhere: int  # a contact at another account, not R's
    head: str  # H's handle
    outsider: str  # handle of someone outside Sales


def build(s, rep: Person, lead: Person, head: Person, outsider: Person) -> Scene:
    """The scene, built with the services."""
    account = crm.create_account(s, rep, "Zz Scene Co")
    crm.create_account(s, head, "Zz Head Co")
    mine = crm.create_opportunity(s, rep, account.id, "Zz Mine", "2030-01-31", stage="Negotiation")
    item = crm.add_line_item(s, rep, mine.id, "PLT-PRO", 2)
    approval = crm.request_discount(s, rep, item.id, 30, "Big logo")
    teammates = crm.create_opportunity(s, lead, account.id, "Zz Lead's", "2030-01-31")
    hidden = crm.create_opportunity(s, head, account.id, "Zz Head's", "2030-01-31")
    won = crm.create_opportunity(s, rep, account.id, "Zz Won", "2030-01-31", amount=900, stage="Negotiation")
    crm.move_stage(s, rep, won.id, "Closed Won")
    new_lead = crm.create_lead(s, rep, "Al", "New", "Zz Newco", email="al@newco.example")
    unqualified = crm.create_lead(s, rep, "Bo", "Nope", "Zz Nope")
    crm.update_lead(s, rep, unqualified.id, status="Unqualified")
    converted = crm.create_lead(s, rep, "Cy", "Done", "Zz Doneco", email="cy@doneco.example")
    crm.convert_lead(s, rep, converted.id)
    case = crm.create_case(s, rep, account.id, "Broken export")
    closed_case = crm.create_case(s, rep, account.id, "Old issue")
    crm.update_case(s, rep, closed_case.id, status="Closed")
    hidden_case = crm.create_case(s, head, account.id, "Head's case")
    note = crm.log_activity(s, rep, "opportunity", mine.id, "call", "Intro")
    done = crm.log_activity(s, rep, "opportunity", mine.id, "task", "Follow up")
    crm.complete_task(s, rep, done.id)
    elsewhere = s.scalar(select(Contact.id).where(Contact.account_id != account.id, Contact.owner_id != rep.id)
                          .order_by(Contact.id))
    return Scene(mine.id, item.id, approval.id, teammates.id, hidden.id, won.id, new_lead.id, unqualified.id,
                 converted.id, case.id, closed_case.id, hidden_case.id, note.id, done.id, elsewhere, head.handle,
                 outsider.handle)


def cast(session) -> tuple[Person, Person, Person, Person]:
    """A rep, their team lead, the head of Sales and a member outside Sales."""
    roles = sales_roles(session)
    return roles["rep"], roles["lead"], roles["head"], roles["outsider"]


@pytest.fixture
def world(store, agent):
    """A factory of fresh tiny episodes acting as the rep or the outsider, with the scene in place."""
    with agent.episode.session() as s:
        rep, _, _, outsider = cast(s)
        handles = {"rep": rep.handle, "outsider": outsider.handle}
    made = []

    def make(who: str):
        made.append(store.create(scale="tiny", seed=0, actor=handles[who]))
        with made[-1].session("setup") as s:
            scene = build(s, *cast(s))
        return type(agent)(made[-1]), scene

    yield make
    for episode in made:
        store.delete(episode.id)


def case(tool: str, why: str, args, says: str, who: str = "rep"):
    """One row of the table: `args` is a dict or a function of the Scene; `who` is rep or outsider."""
    return pytest.param(tool, args, says, who, id=f"{tool}-{why}")


BIG = 10**30
NOT_SALES = "Only the Sales department"
CASES = [
    case("crm_list_accounts", "unknown-argument", {"name": "x"}, "has no argument 'name'"),
    case("crm_list_accounts", "bad-industry", {"industry": "Mining"}, "industry must be one of"),
    case("crm_list_accounts", "bad-sort", {"sort": "owner"}, "sort must be one of"),
    case("crm_list_accounts", "query-too-long", {"query": "q" * 101}, "at most 100 characters"),
    case("crm_list_accounts", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("crm_list_accounts", "unknown-owner", {"owner": "@nobody.here"}, "No person matches"),
    case("crm_get_account", "huge-id", {"account": BIG}, "No account has id"),
    case("crm_get_account", "unknown-name", {"account": "No Such Co"}, "No account is named"),
    case("crm_get_account", "empty", {"account": " "}, "Name an account"),
    case("crm_get_account", "bool", {"account": True}, "not true/false"),
    case("crm_get_account", "missing", {}, "account: field required"),
    case("crm_create_account", "taken", {"name": "zz scene co"}, "already exists"),
    case("crm_create_account", "empty-name", {"name": "  "}, "Account name is required"),
    case("crm_create_account", "name-too-long", {"name": "n" * 161}, "at most 160 characters"),
    case("crm_create_account", "bad-size", {"name": "Zz New", "size": "huge"}, "size must be one of"),
    case("crm_create_account", "bad-phone", {"name": "Zz New", "phone": "call me"}, "may hold only digits"),
    case("crm_create_account", "owner-outside-sales", lambda s: {"name": "Zz New", "owner": s.outsider},
         "is not in Sales"),
    case("crm_create_account", "owner-not-mine", lambda s: {"name": "Zz New", "owner": s.head}, "cannot give records"),
    case("crm_create_account", "outsider", {"name": "Zz New"}, NOT_SALES, "outsider"),
    case("crm_update_account", "nothing", {"account": "Zz Scene Co"}, "Nothing to change"),
    case("crm_update_account", "own-parent", {"account": "Zz Scene Co", "parent": "Zz Scene Co"}, "loop"),
    case("crm_update_account", "not-owner", {"account": "Zz Head Co", "phone": "12345"}, "is owned by"),
    case("crm_update_account", "bad-phone", {"account": "Zz Scene Co", "phone": "call me"}, "may hold only"),
    case("crm_update_account", "outsider", {"account": "Zz Scene Co", "phone": "12345"}, NOT_SALES, "outsider"),
    case("crm_list_contacts", "unknown-account", {"account": BIG}, "No account has id"),
    case("crm_list_contacts", "bad-sort", {"sort": "email"}, "sort must be one of"),
    case("crm_get_contact", "unknown-email", {"contact": "x@nowhere.example"}, "No contact with that email"),
    case("crm_get_contact", "list", {"contact": [1]}, "valid string"),
    case("crm_create_contact", "bad-email", {"account": "Zz Scene Co", "first_name": "A", "last_name": "B",
                                             "email": "nope"}, "is not an email address"),
    case("crm_create_contact", "no-last-name", {"account": "Zz Scene Co", "first_name": "A", "last_name": ""},
         "Last name is required"),
    case("crm_create_contact", "outsider", {"account": "Zz Scene Co", "first_name": "A", "last_name": "B"},
         NOT_SALES, "outsider"),
    case("crm_update_contact", "nothing", {"contact": "cy@doneco.example"}, "Nothing to change"),
    case("crm_update_contact", "title-too-long", {"contact": "cy@doneco.example", "title": "t" * 121}, "at most 120"),
    case("crm_update_contact", "not-owner", lambda s: {"contact": s.elsewhere, "title": "x"}, "is owned by"),
    case("crm_list_leads", "bad-status", {"status": "Hot"}, "status must be one of"),
    case("crm_list_leads", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_get_lead", "huge-id", {"lead": BIG}, "No lead has id"),
    case("crm_get_lead", "outsider", lambda s: {"lead": s.lead}, NOT_SALES, "outsider"),
    case("crm_create_lead", "bad-source", {"first_name": "A", "last_name": "B", "company": "C", "source": "TV"},
         "source must be one of"),
    case("crm_create_lead", "no-company", {"first_name": "A", "last_name": "B"}, "company: field required"),
    case("crm_update_lead", "to-converted", lambda s: {"lead": s.lead, "status": "Converted"}, "only by converting"),
    case("crm_update_lead", "converted", lambda s: {"lead": s.converted, "title": "x"}, "was converted"),
    case("crm_convert_lead", "twice", lambda s: {"lead": s.converted}, "already converted"),
    case("crm_convert_lead", "unqualified", lambda s: {"lead": s.unqualified}, "is Unqualified"),
    case("crm_convert_lead", "bad-amount", lambda s: {"lead": s.lead, "amount": "lots"}, "not an amount of dollars"),
    case("crm_convert_lead", "negative", lambda s: {"lead": s.lead, "amount": -5}, "zero or more"),
    case("crm_convert_lead", "closed-stage", lambda s: {"lead": s.lead, "stage": "Closed Won"}, "stage must be one"),
    case("crm_convert_lead", "bad-date", lambda s: {"lead": s.lead, "close_date": "soon"}, "YYYY-MM-DD"),
    case("crm_convert_lead", "flag-text", lambda s: {"lead": s.lead, "create_opportunity": "maybe"}, "valid boolean"),
    case("crm_list_opportunities", "bad-stage", {"stage": "Won"}, "stage must be one of"),
    case("crm_list_opportunities", "bad-date", {"close_from": "2030-13-01"}, "YYYY-MM-DD"),
    case("crm_list_opportunities", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_get_opportunity", "other-team", lambda s: {"opportunity": s.hidden}, "belongs to another sales team"),
    case("crm_get_opportunity", "huge-id", {"opportunity": BIG}, "No opportunity has id"),
    case("crm_get_opportunity", "outsider", lambda s: {"opportunity": s.mine}, NOT_SALES, "outsider"),
    case("crm_create_opportunity", "no-close-date", {"account": "Zz Scene Co", "name": "x"}, "close_date: field"),
    case("crm_create_opportunity", "closed-stage", {"account": "Zz Scene Co", "name": "x", "close_date": "2030-01-01",
                                                    "stage": "Closed Won"}, "starts in an open stage"),
    case("crm_create_opportunity", "bool-amount", {"account": "Zz Scene Co", "name": "x", "close_date": "2030-01-01",
                                                   "amount": True}, "not true/false"),
    case("crm_create_opportunity", "three-decimals", {"account": "Zz Scene Co", "name": "x",
                                                      "close_date": "2030-01-01", "amount": 1.005}, "two decimals"),
    case("crm_create_opportunity", "bad-type", {"account": "Zz Scene Co", "name": "x", "close_date": "2030-01-01",
                                                "type": "Gift"}, "type must be one of"),
    case("crm_update_opportunity", "teammates", lambda s: {"opportunity": s.teammates, "next_step": "x"}, "is owned by"),
    case("crm_update_opportunity", "closed", lambda s: {"opportunity": s.won, "next_step": "x"}, "reopen it"),
    case("crm_update_opportunity", "amount-with-items", lambda s: {"opportunity": s.mine, "amount": 5},
         "sum of its line items"),
    case("crm_update_opportunity", "nothing", lambda s: {"opportunity": s.mine}, "Nothing to change"),
    case("crm_update_opportunity", "stage", lambda s: {"opportunity": s.mine, "stage": "Proposal"},
         "has no argument 'stage'"),
    case("crm_move_opportunity_stage", "teammates", lambda s: {"opportunity": s.teammates, "stage": "Qualification"},
         "is owned by"),
    case("crm_move_opportunity_stage", "skip", {"opportunity": "Zz Doneco - New Business", "stage": "Negotiation"},
         "one stage at a time"),
    case("crm_move_opportunity_stage", "same", lambda s: {"opportunity": s.mine, "stage": "negotiation"},
         "already in Negotiation"),
    case("crm_move_opportunity_stage", "lost-no-reason", lambda s: {"opportunity": s.mine, "stage": "Closed Lost"},
         "needs a loss_reason"),
    case("crm_move_opportunity_stage", "competitor-unnamed",
         lambda s: {"opportunity": s.mine, "stage": "Closed Lost", "loss_reason": "Competitor"}, "name the competitor"),
    case("crm_move_opportunity_stage", "closed", lambda s: {"opportunity": s.won, "stage": "Negotiation"},
         "reopen it"),
    case("crm_move_opportunity_stage", "bad-stage", lambda s: {"opportunity": s.mine, "stage": "Won"},
         "stage must be one of"),
    case("crm_reopen_opportunity", "open", lambda s: {"opportunity": s.mine}, "only closed deals are reopened"),
    case("crm_reopen_opportunity", "into-closed", lambda s: {"opportunity": s.won, "stage": "Closed Lost"},
         "Reopen into an open stage"),
    case("crm_list_products", "negative-offset", {"offset": -1}, "greater than or equal to 0"),
    case("crm_list_products", "bool-text", {"include_inactive": "sometimes"}, "valid boolean"),
    case("crm_list_price_books", "unknown-argument", {"price_book": 1}, "has no argument 'price_book'"),
    case("crm_list_price_books", "limit-too-big", {"limit": 201}, "less than or equal to 200"),
    case("crm_list_price_book_entries", "unknown", {"price_book": "Gold Book"}, "No price book is named"),
    case("crm_list_price_book_entries", "huge-id", {"price_book": BIG}, "No price book has id"),
    case("crm_add_line_item", "unknown-product", lambda s: {"opportunity": s.mine, "product": "NOPE-1"},
         "No product is named"),
    case("crm_add_line_item", "inactive", lambda s: {"opportunity": s.mine, "product": "PLT-CLS"}, "no longer sold"),
    case("crm_add_line_item", "quantity-zero", lambda s: {"opportunity": s.mine, "product": "PLT-PRO",
                                                          "quantity": 0}, "greater than or equal to 1"),
    case("crm_add_line_item", "discount-over-limit", lambda s: {"opportunity": s.mine, "product": "PLT-PRO",
                                                                "discount": 25}, "crm_request_discount"),
    case("crm_add_line_item", "other-book", lambda s: {"opportunity": s.mine, "product": "PLT-PRO",
                                                       "price_book": "Partner Price Book"}, "same price book"),
    case("crm_add_line_item", "closed", lambda s: {"opportunity": s.won, "product": "PLT-PRO"}, "reopen it"),
    case("crm_add_line_item", "teammates", lambda s: {"opportunity": s.teammates, "product": "PLT-PRO"},
         "is owned by"),
    case("crm_update_line_item", "nothing", lambda s: {"line_item": s.item}, "Nothing to change"),
    case("crm_update_line_item", "percent-text", lambda s: {"line_item": s.item, "discount": "a lot"},
         "percentage between 0 and 100"),
    case("crm_update_line_item", "huge-id", {"line_item": BIG, "quantity": 2}, "less than or equal to"),
    case("crm_update_line_item", "unknown", {"line_item": 10**9, "quantity": 2}, "No line item has id"),
    case("crm_remove_line_item", "pending-request", lambda s: {"line_item": s.item}, "pending discount request"),
    case("crm_remove_line_item", "zero", {"line_item": 0}, "greater than or equal to 1"),
    case("crm_list_discount_approvals", "bad-status", {"status": "Maybe"}, "status must be one of"),
    case("crm_list_discount_approvals", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_request_discount", "pending", lambda s: {"line_item": s.item, "discount": 40, "reason": "x"},
         "already has a pending request"),
    case("crm_request_discount", "small", lambda s: {"line_item": s.item, "discount": 10, "reason": "x"},
         "need no approval"),
    case("crm_request_discount", "too-big", lambda s: {"line_item": s.item, "discount": 75, "reason": "x"},
         "No discount above 60%"),
    case("crm_request_discount", "no-reason", lambda s: {"line_item": s.item, "discount": 40, "reason": " "},
         "Reason is required"),
    case("crm_approve_discount", "not-manager", lambda s: {"approval": s.approval}, "the deal owner's manager"),
    case("crm_approve_discount", "unknown", {"approval": 10**9}, "No approval has id"),
    case("crm_approve_discount", "note-too-long", lambda s: {"approval": s.approval, "note": "n" * 501},
         "at most 500"),
    case("crm_reject_discount", "not-manager", lambda s: {"approval": s.approval}, "the deal owner's manager"),
    case("crm_reject_discount", "text-id", {"approval": "first"}, "valid integer"),
    case("crm_list_activities", "bad-type", {"record_type": "deal", "record_id": 1}, "record_type must be one of"),
    case("crm_list_activities", "other-team", lambda s: {"record_type": "opportunity", "record_id": s.hidden},
         "another sales team"),
    case("crm_list_activities", "outsider", {"record_type": "account", "record_id": "Zz Scene Co"}, NOT_SALES,
         "outsider"),
    case("crm_list_my_tasks", "bad-status", {"status": "Done"}, "status must be one of"),
    case("crm_list_my_tasks", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_log_activity", "bad-kind", lambda s: {"record_type": "opportunity", "record_id": s.mine, "kind": "sms",
                                                    "subject": "x"}, "kind must be one of"),
    case("crm_log_activity", "due-on-call", lambda s: {"record_type": "opportunity", "record_id": s.mine,
                                                       "kind": "call", "subject": "x", "due_date": "2030-01-01"},
         "Only tasks have a due date"),
    case("crm_log_activity", "empty-subject", lambda s: {"record_type": "opportunity", "record_id": s.mine,
                                                         "kind": "note", "subject": ""}, "Subject is required"),
    case("crm_log_activity", "huge-record", {"record_type": "case", "record_id": BIG, "kind": "note",
                                             "subject": "x"}, "No case has id"),
    case("crm_complete_task", "not-a-task", lambda s: {"activity": s.note}, "not a task"),
    case("crm_complete_task", "done", lambda s: {"activity": s.done}, "already completed"),
    case("crm_list_cases", "bad-priority", {"priority": "Critical"}, "priority must be one of"),
    case("crm_list_cases", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_get_case", "other-team", lambda s: {"case": s.hidden_case}, "another sales team"),
    case("crm_get_case", "name", {"case": "Broken export"}, "valid integer"),
    case("crm_create_case", "contact-elsewhere", lambda s: {"account": "Zz Scene Co", "subject": "x",
                                                            "contact": s.elsewhere}, "works at another account"),
    case("crm_create_case", "bad-origin", {"account": "Zz Scene Co", "subject": "x", "origin": "Fax"},
         "origin must be one of"),
    case("crm_create_case", "outsider", {"account": "Zz Scene Co", "subject": "x"}, NOT_SALES, "outsider"),
    case("crm_update_case", "to-escalated", lambda s: {"case": s.case, "status": "Escalated"}, "crm_escalate_case"),
    case("crm_update_case", "description-too-long", lambda s: {"case": s.case, "description": "d" * 4001},
         "at most 4000"),
    case("crm_escalate_case", "closed", lambda s: {"case": s.closed_case, "reason": "x"}, "only a New or Working"),
    case("crm_escalate_case", "no-reason", lambda s: {"case": s.case, "reason": ""}, "Reason is required"),
    case("crm_escalate_case", "unknown-ticket", lambda s: {"case": s.case, "reason": "x", "ticket": "ENG-99999"},
         "No ticket ENG-99999"),
    case("crm_escalate_case", "malformed-ticket", lambda s: {"case": s.case, "reason": "x", "ticket": "eng 4"},
         "such as IT-142"),
    case("crm_get_pipeline_report", "bad-group", {"group_by": "region"}, "group_by must be one of"),
    case("crm_get_pipeline_report", "bad-quarter", {"quarter": "Q5-2026"}, "written like 2026-Q1"),
    case("crm_get_pipeline_report", "outsider", {}, NOT_SALES, "outsider"),
    case("crm_search_records", "empty", {"query": " "}, "query is empty"),
    case("crm_search_records", "bad-type", {"query": "zz", "record_types": ["deal"]}, "record type must be one of"),
    case("crm_search_records", "types-not-list", {"query": "zz", "record_types": "account"}, "valid list"),
    case("crm_get_record_history", "other-team", lambda s: {"record_type": "opportunity", "record_id": s.hidden},
         "another sales team"),
    case("crm_get_record_history", "outsider-lead", lambda s: {"record_type": "lead", "record_id": s.lead},
         NOT_SALES, "outsider"),
]


@pytest.mark.parametrize("tool, args, says, who", CASES)
def test_bad_input_is_refused_and_changes_nothing(world, tool, args, says, who):
    actor, scene = world(who)
    actor.fails(tool, args(scene) if callable(args) else args, says)


def test_every_crm_tool_has_bad_input_cases():
    covered = {c.values[0] for c in CASES}
    assert {t.name for t in catalog() if t.name.startswith("crm_")} <= covered
