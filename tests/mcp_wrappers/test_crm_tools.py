"""CRM tools through the real MCP client, as the tiny company's sales people meet them: accounts,
contacts, leads and conversion, the sales path, products and discounts, activities, cases, the
pipeline, search and history; each result, and the tables after it. Records are found by query in
the seeded world or made with the services, never by hard-coded ids."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import (Account, Activity, Case, Contact, DiscountApproval, Lead, LineItem,
                                       Opportunity)
from officegym.apps.org.models import Department, Person


def sales_roles(session) -> dict[str, Person]:
    """The head of Sales, a team lead, one of the lead's reps and a member outside Sales."""
    sales = session.scalar(select(Department).where(Department.name == "Sales"))
    lead = session.scalar(select(Person).where(Person.department_id == sales.id, Person.manager_id == sales.head_id)
                          .order_by(Person.id))
    rep = session.scalar(select(Person).where(Person.manager_id == lead.id).order_by(Person.id))
    outsider = session.scalar(select(Person).where(Person.department_id != sales.id, Person.role == "member")
                              .order_by(Person.id))
    return {"head": session.get(Person, sales.head_id), "lead": lead, "rep": rep, "outsider": outsider}


@pytest.fixture
def as_role(store, agent):
    """A factory of fresh tiny-world episodes acting as one of sales_roles (deleted afterwards)."""
    made = []

    def make(role: str):
        with agent.episode.session() as s:
            handle = sales_roles(s)[role].handle
        made.append(store.create(scale="tiny", seed=0, actor=handle))
        return type(agent)(made[-1])

    yield make
    for episode in made:
        store.delete(episode.id)


def setup(agent, build):
    """Run `build(session, roles)` with the services, before the calls under test."""
    with agent.episode.session("setup") as s:
        return build(s, sales_roles(s))


def test_accounts_create_get_update_and_list(as_role):
    rep = as_role("rep")
    made = rep.write("crm_create_account", {"name": " Zz Quokka Labs ", "industry": "software", "size": "51-200",
                                            "region": "EMEA", "website": "quokka.example"}, "crm.create_account")
    assert (made["name"], made["industry"], made["owner"]["handle"], made["parent"]) == (
        "Zz Quokka Labs", "Software", setup(rep, lambda s, r: r["rep"].handle), None)
    parent = setup(rep, lambda s, r: s.scalar(select(Account).where(Account.parent_id.is_(None))
                                              .order_by(Account.id)))
    got = rep.write("crm_update_account", {"account": "zz quokka labs", "parent": parent.name, "size": "201-1000"},
                    "crm.update_account")
    assert got["parent"] == {"id": parent.id, "name": parent.name} and got["size"] == "201-1000"
    with rep.episode.session() as s:
        row = s.get(Account, made["id"])
        assert (row.parent_id, row.size, row.region) == (parent.id, "201-1000", "EMEA")
    detail = rep.ok("crm_get_account", {"account": parent.id})
    assert {"id": made["id"], "name": "Zz Quokka Labs"} in detail["children"]
    listed = rep.ok("crm_list_accounts", {"query": "quokka", "region": "emea"})
    assert [a["id"] for a in listed["items"]] == [made["id"]] and listed["total"] == 1
    assert listed["next_offset"] is None


def test_get_account_shows_contacts_deals_and_cases_by_reach(as_role):
    head, outsider = as_role("head"), as_role("outsider")
    with head.episode.session() as s:
        account = s.scalar(select(Account).join(Opportunity, Opportunity.account_id == Account.id)
                           .group_by(Account.id).order_by(func.count().desc(), Account.id))
        deals = set(s.scalars(select(Opportunity.id).where(Opportunity.account_id == account.id)))
        contacts = set(s.scalars(select(Contact.id).where(Contact.account_id == account.id)))
        cases = s.scalar(select(func.count()).where(Case.account_id == account.id, Case.status != "Closed"))
    got = head.ok("crm_get_account", {"account": account.name})
    assert {d["id"] for d in got["opportunities"]} == deals and got["opportunity_count"] == len(deals)
    assert {c["id"] for c in got["contacts"]} == contacts and got["open_case_count"] == cases
    assert all(isinstance(d["amount"], float) and d["account"]["id"] == account.id for d in got["opportunities"])
    seen = outsider.ok("crm_get_account", {"account": account.id})
    assert seen["opportunities"] == [] and seen["open_case_count"] == 0 and len(seen["contacts"]) == len(contacts)


def test_contacts_create_get_update_and_list(as_role):
    rep = as_role("rep")
    account = setup(rep, lambda s, r: crm.create_account(s, r["rep"], "Zz Contact Co"))
    made = rep.write("crm_create_contact", {"account": "Zz Contact Co", "first_name": "Ada", "last_name": "Byron",
                                            "email": "Ada@Zz.example", "title": "CTO"}, "crm.create_contact")
    assert (made["name"], made["email"], made["account"]) == ("Ada Byron", "ada@zz.example",
                                                              {"id": account.id, "name": "Zz Contact Co"})
    assert rep.ok("crm_get_contact", {"contact": "ada@zz.example"})["id"] == made["id"]
    got = rep.write("crm_update_contact", {"contact": made["id"], "title": "CEO", "phone": "+1 555 0100"},
                    "crm.update_contact")
    assert (got["title"], got["phone"]) == ("CEO", "+1 555 0100")
    with rep.episode.session() as s:
        assert s.get(Contact, made["id"]).title == "CEO"
    listed = rep.ok("crm_list_contacts", {"account": account.id})
    assert [c["id"] for c in listed["items"]] == [made["id"]]


def test_lead_lifecycle_and_conversion(as_role):
    rep = as_role("rep")
    made = rep.write("crm_create_lead", {"first_name": "Lin", "last_name": "Zhou", "company": "Zz Wombat Inc",
                                         "source": "event", "email": "lin@wombat.example"}, "crm.create_lead")
    assert (made["status"], made["source"], made["converted_account"]) == ("New", "Event", None)
    assert rep.write("crm_update_lead", {"lead": "lin@wombat.example", "status": "working"},
                     "crm.update_lead")["status"] == "Working"
    assert made["id"] in [x["id"] for x in rep.ok("crm_list_leads", {"status": "Working", "limit": 200})["items"]]
    out = rep.write("crm_convert_lead", {"lead": made["id"], "amount": "$12,500", "close_date": "2030-01-31",
                                         "industry": "Retail"}, "crm.convert_lead")
    assert out["lead"]["status"] == "Converted" and out["account"]["name"] == "Zz Wombat Inc"
    assert out["contact"]["email"] == "lin@wombat.example" and out["opportunity"]["amount"] == 12500.0
    assert out["opportunity"]["stage"] == "Qualification" and out["opportunity"]["close_date"] == "2030-01-31"
    assert out["lead"]["converted_opportunity"]["id"] == out["opportunity"]["id"]
    with rep.episode.session() as s:
        lead = s.get(Lead, made["id"])
        assert (lead.status, lead.converted_account_id) == ("Converted", out["account"]["id"])
        assert s.get(Opportunity, out["opportunity"]["id"]).amount_cents == 1_250_000
        assert s.get(Account, out["account"]["id"]).industry == "Retail"
    assert rep.ok("crm_get_lead", {"lead": made["id"]})["converted_contact"]["id"] == out["contact"]["id"]


def test_sales_path_close_and_reopen(as_role):
    rep = as_role("rep")
    setup(rep, lambda s, r: crm.create_account(s, r["rep"], "Zz Path Co"))
    deal = rep.write("crm_create_opportunity", {"account": "Zz Path Co", "name": "Zz Path deal",
                                                "close_date": "2030-06-30", "amount": 80000.5},
                     "crm.create_opportunity")
    assert (deal["stage"], deal["probability"], deal["amount"], deal["has_line_items"]) == (
        "Prospecting", 10, 80000.5, False)
    assert deal["approver"]["handle"] == setup(rep, lambda s, r: r["lead"].handle)
    for stage, probability in [("Qualification", 25), ("proposal", 50), ("Negotiation", 75), ("Closed Won", 100)]:
        got = rep.write("crm_move_opportunity_stage", {"opportunity": "Zz Path deal", "stage": stage},
                        "crm.move_opportunity_stage")
        assert (got["stage"].lower(), got["probability"]) == (stage.lower(), probability)
    assert got["closed_at"] is not None
    got = rep.write("crm_reopen_opportunity", {"opportunity": deal["id"]}, "crm.reopen_opportunity")
    assert (got["stage"], got["closed_at"]) == ("Negotiation", None)
    got = rep.write("crm_move_opportunity_stage", {"opportunity": deal["id"], "stage": "Closed Lost",
                                                   "loss_reason": "competitor", "competitor": "Acme"},
                    "crm.move_opportunity_stage")
    assert (got["loss_reason"], got["competitor"], got["probability"]) == ("Competitor", "Acme", 0)
    with rep.episode.session() as s:
        row = s.get(Opportunity, deal["id"])
        assert (row.stage, row.loss_reason, row.amount_cents) == ("Closed Lost", "Competitor", 8_000_050)
    listed = rep.ok("crm_list_opportunities", {"stage": "closed", "query": "zz path"})
    assert [d["id"] for d in listed["items"]] == [deal["id"]]


def test_update_opportunity_and_its_history(as_role):
    rep = as_role("rep")
    with rep.episode.session() as s:
        rep_id = sales_roles(s)["rep"].id
        deal = s.scalar(select(Opportunity).where(Opportunity.owner_id == rep_id, Opportunity.stage.in_(
            ("Prospecting", "Qualification", "Proposal", "Negotiation"))).order_by(Opportunity.id))
        priced = crm.has_line_items(s, deal)
    args = {"opportunity": deal.id, "next_step": "Send the MSA", "close_date": "2030-03-31"}
    got = rep.write("crm_update_opportunity", args if priced else {**args, "amount": 123456}, "crm.update_opportunity")
    assert (got["next_step"], got["close_date"]) == ("Send the MSA", "2030-03-31")
    history = rep.ok("crm_get_record_history", {"record_type": "opportunity", "record_id": deal.id})
    fields = {h["field"]: h for h in history["items"][:3]}
    assert fields["next_step"]["new_value"] == "Send the MSA" and fields["close_date"]["new_value"] == "2030-03-31"
    assert fields["close_date"]["old_value"] == deal.close_date.isoformat()
    assert history["items"][0]["changed_by"]["id"] == rep_id and history["total"] >= 3


def test_products_line_items_and_discount_request(as_role):
    rep = as_role("rep")
    products = rep.ok("crm_list_products", {"limit": 200})
    assert products["items"] and all(p["is_active"] for p in products["items"])
    books = rep.ok("crm_list_price_books", {})
    assert books["items"][0]["is_standard"] and books["total"] == len(books["items"])
    entries = rep.ok("crm_list_price_book_entries", {"price_book": books["items"][0]["name"], "limit": 200})
    price = {e["product_code"]: e["unit_price"] for e in entries["items"]}
    code = products["items"][0]["code"]
    assert products["items"][0]["standard_price"] == price[code]
    deal = setup(rep, lambda s, r: crm.create_opportunity(s, r["rep"], crm.create_account(s, r["rep"], "Zz Li").id,
                                                           "Zz Li deal", "2030-01-01", amount=5))
    got = rep.write("crm_add_line_item", {"opportunity": deal.id, "product": code, "quantity": 3, "discount": "10%"},
                    "crm.add_line_item")
    item = got["line_item"]
    assert (item["quantity"], item["discount"], item["unit_price"]) == (3, 10.0, price[code])
    assert item["total"] == round(3 * price[code] * 0.9, 2) == got["opportunity"]["amount"]
    got = rep.write("crm_update_line_item", {"line_item": item["id"], "discount": 12.5}, "crm.update_line_item")
    assert got["line_item"]["discount"] == 12.5 and got["opportunity"]["has_line_items"]
    asked = rep.write("crm_request_discount", {"line_item": item["id"], "discount": 30, "reason": "Multi-year"},
                      "crm.request_discount")
    assert (asked["status"], asked["discount"], asked["approver"]["handle"]) == (
        "Pending", 30.0, setup(rep, lambda s, r: r["lead"].handle))
    detail = rep.ok("crm_get_opportunity", {"opportunity": "Zz Li deal"})
    assert [a["id"] for a in detail["pending_approvals"]] == [asked["id"]]
    mine = rep.ok("crm_list_discount_approvals", {"status": "pending"})
    assert asked["id"] in [a["id"] for a in mine["items"]]
    second = rep.ok("crm_add_line_item", {"opportunity": deal.id, "product": products["items"][1]["id"]})
    gone = rep.write("crm_remove_line_item", {"line_item": second["line_item"]["id"]}, "crm.remove_line_item")
    assert [i["id"] for i in gone["line_items"]] == [item["id"]] and gone["amount"] == got["line_item"]["total"]
    with rep.episode.session() as s:
        assert s.get(LineItem, second["line_item"]["id"]) is None
        assert s.get(Opportunity, deal.id).amount_cents == s.get(LineItem, item["id"]).total_cents


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_the_manager_decides_a_discount(as_role, decision):
    lead = as_role("lead")
    pending = lead.ok("crm_list_discount_approvals", {"mine": True, "status": "Pending"})
    assert pending["total"] >= 1 and all(a["approver"]["handle"] == pending["items"][0]["approver"]["handle"]
                                         for a in pending["items"])
    ask = pending["items"][0]
    got = lead.write(f"crm_{decision}_discount", {"approval": ask["id"], "note": "ok"}, f"crm.{decision}_discount")
    assert got["status"] == ("Approved" if decision == "approve" else "Rejected") and got["decision_note"] == "ok"
    with lead.episode.session() as s:
        item = s.get(LineItem, ask["line_item"]["id"])
        assert s.get(DiscountApproval, ask["id"]).status == got["status"]
        expected = ask["discount"] if decision == "approve" else ask["line_item"]["discount"]
        assert item.discount_bp == round(expected * 100)
        deal = s.get(Opportunity, ask["opportunity"]["id"])
        assert deal.amount_cents == s.scalar(select(func.sum(LineItem.total_cents))
                                             .where(LineItem.opportunity_id == deal.id))


def test_activities_and_tasks(as_role):
    rep = as_role("rep")
    deal = setup(rep, lambda s, r: crm.create_opportunity(s, r["rep"], crm.create_account(s, r["rep"], "Zz Act").id,
                                                           "Zz Act deal", "2030-01-01"))
    call = rep.write("crm_log_activity", {"record_type": "opportunity", "record_id": deal.id, "kind": "Call",
                                          "subject": "Discovery call", "body": "Went well"}, "crm.log_activity")
    assert (call["kind"], call["status"], call["record_name"]) == ("call", "Completed", "Zz Act deal")
    task = rep.write("crm_log_activity", {"record_type": "account", "record_id": "Zz Act", "kind": "task",
                                          "subject": "Send pricing", "due_date": "2030-01-05"}, "crm.log_activity")
    assert (task["status"], task["due_date"], task["record_name"]) == ("Open", "2030-01-05", "Zz Act")
    assert task["id"] in [t["id"] for t in rep.ok("crm_list_my_tasks", {"limit": 200})["items"]]
    listed = rep.ok("crm_list_activities", {"record_type": "opportunity", "record_id": deal.id})
    assert [a["id"] for a in listed["items"]] == [call["id"]]
    done = rep.write("crm_complete_task", {"activity": task["id"]}, "crm.complete_task")
    assert done["status"] == "Completed" and done["completed_at"]
    with rep.episode.session() as s:
        assert s.get(Activity, task["id"]).status == "Completed"
    assert task["id"] not in [t["id"] for t in rep.ok("crm_list_my_tasks", {"limit": 200})["items"]]


def test_cases_create_update_and_escalate(as_role):
    rep = as_role("rep")
    with rep.episode.session() as s:
        contact = s.scalar(select(Contact).order_by(Contact.id))
        account = contact.account.name
    made = rep.write("crm_create_case", {"account": account, "subject": "Login fails", "priority": "low",
                                         "contact": contact.email, "origin": "Phone"}, "crm.create_case")
    assert (made["status"], made["priority"], made["contact"]["id"]) == ("New", "Low", contact.id)
    got = rep.write("crm_update_case", {"case": made["id"], "status": "Working"}, "crm.update_case")
    assert got["status"] == "Working"
    bug = rep.write("tickets_create_ticket", {"project": "ENG", "type": "Bug", "summary": f"{account}: login fails",
                                              "account": account}, "tickets.create_ticket")
    got = rep.write("crm_escalate_case", {"case": made["id"], "reason": "Customer blocked", "ticket": bug["key"].lower()},
                    "crm.escalate_case")
    assert (got["status"], got["priority"], got["ticket_key"]) == ("Escalated", "High", bug["key"])
    with rep.episode.session() as s:
        assert s.get(Case, made["id"]).status == "Escalated"
        assert s.scalar(select(Activity.body).where(Activity.record_type == "case", Activity.record_id == made["id"])) \
            == f"Customer blocked (ticket {bug['key']})"
    assert rep.ok("crm_get_case", {"case": made["id"]})["subject"] == "Login fails"
    listed = rep.ok("crm_list_cases", {"status": "open", "query": "login fails"})
    assert [c["id"] for c in listed["items"]] == [made["id"]]


def test_pipeline_report_matches_the_deals(as_role):
    head = as_role("head")
    with head.episode.session() as s:
        rows = s.execute(select(Opportunity.stage, func.count(), func.sum(Opportunity.amount_cents))
                         .where(Opportunity.stage.in_(("Prospecting", "Qualification", "Proposal", "Negotiation")))
                         .group_by(Opportunity.stage)).all()
    got = head.ok("crm_get_pipeline_report", {})
    assert {r["key"]: (r["count"], r["amount"]) for r in got["rows"]} == {
        stage: (count, round(cents / 100, 2)) for stage, count, cents in rows}
    assert got["count"] == sum(r[1] for r in rows) and got["group_by"] == "stage"
    by_owner = head.ok("crm_get_pipeline_report", {"group_by": "owner", "stages": "all", "limit": 200})
    assert sum(r["count"] for r in by_owner["rows"]) == head.ok("crm_list_opportunities", {})["total"]
    first = head.ok("crm_get_pipeline_report", {"group_by": "owner", "stages": "all", "limit": 2})
    second = head.ok("crm_get_pipeline_report", {"group_by": "owner", "stages": "all", "offset": 2, "limit": 2})
    assert first["rows"] + second["rows"] == by_owner["rows"][:4] and first["next_offset"] == 2
    assert first["total"] == by_owner["total"] == len(by_owner["rows"])
    assert (first["count"], first["amount"]) == (by_owner["count"], by_owner["amount"])  # totals of every group
    by_quarter = head.ok("crm_get_pipeline_report", {"group_by": "quarter", "stages": "closed"})
    assert all(r["key"][4:6] == "-Q" for r in by_quarter["rows"])


def test_search_by_reach(as_role):
    rep, outsider = as_role("rep"), as_role("outsider")
    with rep.episode.session() as s:
        account = s.scalar(select(Account).order_by(Account.id))
        word = account.name.split()[0]
    hits = rep.ok("crm_search_records", {"query": word, "limit": 200})
    assert ("account", account.id) in [(h["record_type"], h["id"]) for h in hits["items"]]
    seen = outsider.ok("crm_search_records", {"query": word, "limit": 200})
    assert {h["record_type"] for h in seen["items"]} <= {"account", "contact"}
    only = rep.ok("crm_search_records", {"query": word, "record_types": ["account"]})
    assert {h["record_type"] for h in only["items"]} == {"account"}
