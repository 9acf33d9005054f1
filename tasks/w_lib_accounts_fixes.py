"""Customer data-correction templates composed from the procedure library (tasks.procedures.accounts_corrections):
Sales Operations files each customer email asking to correct contact records as a SOPS task assigned to the
contacts' owner, and "Customer data corrections" says whose emails count (an address of a contact of that same
account).

- `r.lib_accounts_correction_sender` (a decision): three tickets this week from one sender about one account:
  all corrected when the sender is a contact of the account, all closed Won't Do when the address is at the
  customer's domain but on no contact; a contact of the same name at another customer, and a later email that
  changes a value;
- `r.lib_accounts_correction_outsider` (a decision): three tickets whose sender is a colleague listed at the
  account, or a contact of another of the owner's customers;
- `w.lib_accounts_correction_queue`: four tickets on four of the owner's accounts, whose senders count or not;
- `w.lib_accounts_duplicate_contacts`: three pairs of contacts of one name from Sales Operations' duplicate check,
  merged as "Duplicate contacts" says (the record created first survives, which is sometimes the one added
  last) or, at two different customers, left alone;
- `w.lib_accounts_sops_queue`: a queue of two corrections and two duplicate pairs, each by its own article."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.crm.models import Activity, Contact
from officegym.apps.org.models import Person

from .base import ToolCall
from .common import named, spread
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads
from .procedures.accounts_corrections import CORRECTIONS
from .procedures.accounts_duplicates import DUPLICATES
from .procedures.accounts_fixes_draws import (COUNTING, NOT_COUNTING, correction, correction_accounts,
                                              correction_owners, duplicate_pair, next_contact_id, next_ids,
                                              sales_ops_people, sender_of)
from .procedures.accounts_tickets import MayTell
from .registry import register
from .tickets_common import next_key

NOTES = ("Hi @{actor}, I've put {count} tickets in your SOPS queue ({keys}). Could you work them today as the "
         "handbook says?",
         "Morning @{actor}! There are {count} tickets for you in SOPS: {keys}. Please handle them the handbook's way.",
         "Hi @{actor}, {keys} landed in your SOPS queue this morning ({count} tickets). Can you take care of them?")
MY_SOPS = ToolCall("tickets_search_tickets",
                   {"query": 'project = SOPS AND assignee = currentUser() AND status = "To Do"'})
CORRECTION_TOOLS = ("chat", "crm.records", "crm.service", "tickets.work")
COUNTS = {2: "two", 3: "three", 4: "four"}


def keys_from(session, count: int) -> list[str]:
    """The keys the next `count` SOPS tickets will get."""
    first = int(next_key(session, "SOPS").split("-")[1])
    return [f"SOPS-{first + k}" for k in range(count)]


def queued(session, rng, filer: Person, owner: Person, work: list, rules: tuple[tuple[str, str], ...]) -> Plan:
    """The plan of tickets `work` that the Sales Operations `filer` tells `owner` about by DM: the DM, the reads
    of the articles (title, query) and of the actor's SOPS queue, then the tickets."""
    keys = ", ".join(w.key for w in work)
    text = rng.choice(NOTES).format(actor=owner.handle, count=COUNTS[len(work)], keys=keys)
    return Plan(owner.id, request_instruction(rng, named(session, filer), tell=False),
                [DirectRequest(filer.id, owner.id, text, minutes=15),
                 *(ReadRule.of(session, title, query) for title, query in rules), Reads((MY_SOPS,)), *work,
                 MayTell(filer.id)])


class Corrections(Composed):
    """Correction tickets worked by the contacts' owner (not registered itself)."""

    scale, difficulty = "medium", 5
    apps, toolsets = ("chat", "crm", "tickets"), CORRECTION_TOOLS
    rules, hard = (CORRECTIONS,), ("lookalike", "stale")
    reading = ((CORRECTIONS, "customer data corrections"),)


class OneSender(Corrections):
    """Several tickets from one sender about one account (not registered itself): `counting` and `refused` are
    the kinds of sender of the twins, `tickets` how many, `asks` the corrections each asks for."""

    kind = "decision"
    counting, refused_kind, tickets, asks = "colleague", "stranger", 3, 1

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        owner = spread(correction_owners(session, self.split, 4), instance)
        account = rng.choice(correction_accounts(session, owner, self.split, 4))
        kind = self.refused_kind if refused else self.counting
        sender = sender_of(session, rng, account, kind)
        filer, stale_at = rng.choice(sales_ops_people(session, owner.id)), rng.randrange(self.tickets)
        work, taken = [], frozenset()
        for n, key in enumerate(keys_from(session, self.tickets)):
            work.append(correction(session, rng, account, self.split, key, kind, self.asks + (n == 0), n == stale_at,
                                   next_contact_id(session) if n == 0 else 0, sender, filer, taken))
            taken |= {c.contact for c in work[-1].changes}
        work = [replace(w, hours_ago=2 + 3 * (self.tickets - n)) for n, w in enumerate(work)]
        return queued(session, rng, filer, owner, work, self.reading)


@register
class CorrectionSender(OneSender):
    """Three tickets from one sender: all corrected when a contact of the account wrote them, all refused when the
    address is at the customer's domain but on no contact."""

    id, split = "r.lib_accounts_correction_sender", "train"
    summary = ("Three correction tickets from one sender about one customer: correct the contacts (on the right "
               "customer, with the latest value asked) and move each to In Review when the sender is a contact of the "
               "account; when the address is on no contact, change nothing and close each as Won't Do naming the "
               "address and the article.")


@register
class CorrectionOutsider(OneSender):
    """Three tickets from one sender: a colleague listed at the account (corrected) or a contact of another of the
    owner's customers (refused)."""

    id, split = "r.lib_accounts_correction_outsider", "test"
    refused_kind = "outsider"
    summary = ("Three correction tickets from one sender asking for contacts' new titles or phones: carried out "
               "when the sender is listed at that account, refused (Won't Do, naming the address and the article) "
               "when they are a contact of another of your customers.")


@register
class CorrectionQueue(Corrections):
    """Four tickets on four of the owner's accounts, from senders who count or not."""

    id, kind, split = "w.lib_accounts_correction_queue", "workflow", "train"
    summary = ("Four correction tickets on four of your customers: each corrected and moved to In Review when its "
               "sender is a contact of that account (the latest email wins; a same-name contact elsewhere left alone), "
               "else closed as Won't Do naming the sender's address and the article.")

    def plan(self, session, rng, instance):
        owners = [o for o in correction_owners(session, self.split)
                  if len(correction_accounts(session, o, self.split)) >= 4]
        owner = spread(owners, instance)
        accounts = rng.sample(correction_accounts(session, owner, self.split), 4)
        kinds = [rng.choice(COUNTING), rng.choice(COUNTING), "stranger", rng.choice(("outsider", "colleague"))]
        filer = rng.choice(sales_ops_people(session, owner.id))
        rng.shuffle(kinds)
        stale_at = rng.choice([n for n, k in enumerate(kinds) if k in COUNTING])
        lookalike_at = rng.choice([n for n, k in enumerate(kinds) if k in COUNTING])
        work = [correction(session, rng, account, self.split, key, kind, rng.choice((1, 2)), n == stale_at,
                           next_contact_id(session) if n == lookalike_at else 0, filer=filer)
                for n, (account, kind, key) in enumerate(zip(accounts, kinds, keys_from(session, 4)))]
        work = [replace(w, hours_ago=2 + 3 * (4 - n)) for n, w in enumerate(work)]
        return queued(session, rng, filer, owner, work, self.reading)


@register
class DuplicateContacts(Composed):
    """Three pairs from the duplicate check: two merged (the elder record survives, whichever was added last),
    one left alone (the same name at two of the owner's customers)."""

    id, kind, split, scale, difficulty = "w.lib_accounts_duplicate_contacts", "workflow", "test", "medium", 5
    apps, toolsets = ("chat", "crm", "tickets"), CORRECTION_TOOLS
    rules, hard = (DUPLICATES, CORRECTIONS), ("lookalike", "stale")
    summary = ("Three duplicate-check tickets in your SOPS queue: merge each pair of one person (the record created "
               "first survives; the duplicate's open task carried over and completed, the duplicate marked and its "
               "email and phone cleared; the answer names the survivor's email, in review); the same name at two "
               "customers is two people: closed as Won't Do naming both accounts.")

    def plan(self, session, rng, instance):
        owners = [o for o in correction_owners(session, self.split)
                  if len(correction_accounts(session, o, self.split)) >= 2]
        owner = spread(owners, instance)
        kinds = rng.sample(["newer", "elsewhere"], 2)
        kinds.insert(rng.choice((1, 2)), "older")  # the world's record survives in the first pair
        contact, task = next_ids(session, Contact), next_ids(session, Activity)
        filer = rng.choice(sales_ops_people(session, owner.id))
        work, taken = [], frozenset()
        for n, (kind, key) in enumerate(zip(kinds, keys_from(session, 3))):
            work.append(duplicate_pair(session, rng, owner, self.split, key, kind, (contact + n, task + n), filer,
                                       taken))
            work[-1] = replace(work[-1], hours_ago=2 + 2 * (3 - n))
            taken |= {work[-1].existing}
        return queued(session, rng, filer, owner, work, ((DUPLICATES, "duplicate contacts merge"),
                                                         (CORRECTIONS, "customer data corrections")))


@register
class MixedQueue(Composed):
    """A SOPS queue of two customer data corrections and two pairs from the duplicate check, each decided by its
    own article."""

    id, kind, split, scale, difficulty = "w.lib_accounts_sops_queue", "workflow", "train", "medium", 5
    apps, toolsets = ("chat", "crm", "tickets"), CORRECTION_TOOLS
    rules, hard = (CORRECTIONS, DUPLICATES), ("lookalike", "stale")
    summary = ("Your SOPS queue holds two customers' correction requests (carried out only when the sender is a "
               "contact of that account) and two pairs from the duplicate check (merged into the elder record, or "
               "left alone at two customers); work each by its article and answer on the ticket.")

    def plan(self, session, rng, instance):
        owners = [o for o in correction_owners(session, self.split)
                  if len(correction_accounts(session, o, self.split)) >= 3]
        owner = spread(owners, instance)
        keys, filer = keys_from(session, 4), rng.choice(sales_ops_people(session, owner.id))
        contact, task = next_ids(session, Contact), next_ids(session, Activity)
        senders = rng.sample([rng.choice(COUNTING), rng.choice(NOT_COUNTING)], 2)
        # popped from the end: in the first pair met, the world's record survives or has a namesake elsewhere
        pairs = [rng.choice(("newer", "older")), rng.choice(("newer", "elsewhere"))]
        order = rng.sample(["fix", "fix", "pair", "pair"], 4)
        work, taken = [], frozenset()
        for n, (what, key) in enumerate(zip(order, keys)):
            if what == "fix":
                account = rng.choice(correction_accounts(session, owner, self.split))
                made = correction(session, rng, account, self.split, key, senders.pop(), rng.choice((1, 2)),
                                  rng.random() < 0.5, filer=filer, taken=taken)
                taken |= {c.contact for c in made.changes}
            else:
                made = duplicate_pair(session, rng, owner, self.split, key, pairs.pop(), (contact, task), filer, taken)
                contact, task, taken = contact + 1, task + 1, taken | {made.existing}
            work.append(replace(made, hours_ago=2 + 2 * (4 - n)))
        return queued(session, rng, filer, owner, work, ((CORRECTIONS, "customer data corrections"),
                                                         (DUPLICATES, "duplicate contacts merge")))
