"""Lead conversion as a task: what to convert and into what (drawn from a world), the reference
conversion, the instruction's words, and the grader shared by crm.convert_lead and
x.convert_dm_lead (which asks for the same conversion by direct message)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from sqlalchemy import select

from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm.models import Account, Contact, Lead, Opportunity
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate

from .base import Claim, Declaration, Target, ToolCall
from .common import evenly, pick
from .crm import money, reads_exactly, today
from .split import in_split, person_in

PURPOSES = ["Platform Rollout", "Analytics Add-on", "Pilot", "Enterprise Upgrade", "Team Expansion", "First Order"]
OPEN_LEAD_STATUSES = ("New", "Working", "Qualified")
# What converting a lead writes on it (crm.leads.convert_lead).
CONVERSION_FIELDS = ("status", "converted_at", "converted_account_id", "converted_contact_id",
                     "converted_opportunity_id")


def conversion_sample(session, rng, instance: int, split: str | None = None):
    """A convertible lead, its owner, and what the conversion must create (a lead of `split` owned by
    someone of the split, when given: its owner converts it). Instances spread over the lead's place
    among its owner's open leads, newest first, so that the newest is drawn no more than another."""
    every = list(session.scalars(select(Lead).where(Lead.status.in_(OPEN_LEAD_STATUSES)).order_by(Lead.id)))
    place, held = {}, Counter()
    for lead in reversed(every):
        place[lead.id], held[lead.owner_id] = held[lead.owner_id], held[lead.owner_id] + 1
    leads = every
    if split is not None:
        leads = [lead for lead in leads if in_split(split, "lead", lead.id) and person_in(split, lead.owner_id)]
    lead = evenly(rng, instance, leads, lambda lead: place[lead.id])
    into = None
    if rng.random() < 0.3:
        accounts = [a for a in session.scalars(select(Account).order_by(Account.id)) if a.name != lead.company]
        into = pick(rng, accounts)
    company = into.name if into else lead.company
    params = {"lead": lead.id, "into": into.id if into else None, "amount": rng.randint(8, 240) * 2500 * 100,
              "close": (today(session) + timedelta(days=rng.randint(14, 150))).isoformat(),
              "name": f"{company} - {pick(rng, PURPOSES)}"}
    return lead, into, params


def conversion_steps(p: dict) -> list[ToolCall]:
    """The reference conversion."""
    args = {"lead": p["lead"], "opportunity_name": p["name"], "amount": p["amount"] / 100, "close_date": p["close"]}
    return [ToolCall("crm_convert_lead", {**args, "account": p["into"]} if p["into"] else args)]


def conversion_text(lead, into, p: dict) -> str:
    """What to do, in words."""
    where = (f"into the existing account {into.name} (they were acquired by it)" if into
             else "into a new account for their company")
    return (f"convert the lead {lead.name} of {lead.company} {where}, with an opportunity named \"{p['name']}\" "
            f"of {money(p['amount'])} closing on {p['close']}")


def conversion_declaration(start, p: dict) -> Declaration:
    """The lead (its look-alikes: the owner's other open leads), after the message
    that asked for the conversion if a colleague sent one, and the opportunity's name (its pool:
    the same company's names with the other purposes)."""
    lead = start.get(Lead, p["lead"])
    lookalikes = start.scalars(select(Lead.id).where(Lead.status.in_(OPEN_LEAD_STATUSES), Lead.id != lead.id,
                                                     Lead.owner_id == lead.owner_id).order_by(Lead.id).limit(25))
    company = p["name"].rsplit(" - ", 1)[0]
    names = [Candidate.text(f"{company} - {purpose}") for purpose in PURPOSES]
    targets = [Target("lead", lead.id, list(lookalikes))]
    if p.get("colleague"):
        request = start.scalars(select(Message).where(Message.author_id == p["colleague"], Message.text == p["text"])
                                .order_by(Message.id.desc())).first()
        targets.insert(0, Target("message", request.id, [], {"channel": start.get(Channel, request.channel_id).name}))
    return Declaration(targets,
                       [Claim(Candidate.text(p["name"]), [n for n in names if n.label != p["name"]],
                              "opportunity_name", "opportunity name")])


def conversion_checks(ctx, p: dict) -> list:
    """The lead is converted into the right account with the right contact and opportunity, and
    the conversion wrote nothing else."""
    declared = conversion_declaration(ctx.start, p)
    lead_id = next(t.ref for t in declared.targets if t.kind == "lead")
    lead, start_lead = ctx.final.get(Lead, lead_id), ctx.start.get(Lead, lead_id)
    account = ctx.final.get(Account, lead.converted_account_id) if lead.converted_account_id else None
    right_account = account is not None and (account.id == p["into"] if p["into"] else
                                             account.name == start_lead.company
                                             and ctx.start.get(Account, account.id) is None)
    contact = ctx.final.get(Contact, lead.converted_contact_id) if lead.converted_contact_id else None
    deal = ctx.final.get(Opportunity, lead.converted_opportunity_id) if lead.converted_opportunity_id else None
    good_deal = (deal is not None and deal.amount_cents == p["amount"] and deal.close_date.isoformat() == p["close"]
                 and deal.owner_id == start_lead.owner_id)
    into = account.id if account is not None else -1
    person = {k: getattr(start_lead, k) for k in ("first_name", "last_name", "title", "email", "phone", "owner_id")}
    # The rows a conversion adds, as it writes them: the contact is the lead's person, the deal and
    # the new account carry nothing the conversion does not set.
    allowed = [Allow("crm_lead", ("updated",), lambda row: row["id"] == lead_id and row["status"] == "Converted",
                     CONVERSION_FIELDS),
               Allow("crm_contact", ("added",), lambda row: row["account_id"] == into
                     and all(row[k] == v for k, v in person.items())),
               Allow("crm_opportunity", ("added",), lambda row: row["account_id"] == into
                     and row["next_step"] == row["competitor"] == row["description"] == ""
                     and row["type"] == "New Business")]
    if not p["into"]:
        allowed.append(Allow("crm_account", ("added",), lambda row: row["name"] == start_lead.company
                             and row["website"] == row["phone"] == "" and row["parent_id"] is None))
    where = ctx.start.get(Account, p["into"]).name if p["into"] else f"a new account named {start_lead.company}"
    return [check("The lead is converted", lead.status == "Converted", f"its status is {lead.status}", weight=2),
            check(f"It was converted into {where}", right_account,
                  f"converted into {account.name if account else 'nothing'}"),
            check("Its contact has the lead's name and email", contact is not None
                  and contact.email == start_lead.email and contact.last_name == start_lead.last_name,
                  "no such contact"),
            check(f"The new opportunity is {money(p['amount'])}, closing {p['close']}", good_deal,
                  f"found {(deal.amount, str(deal.close_date)) if deal else 'no opportunity'}", weight=2),
            *reads_exactly([deal.name] if deal else [], declared.claims[0],
                           f"The new opportunity is named \"{p['name']}\""),
            nothing_else_changed(ctx.diff, allowed)]


