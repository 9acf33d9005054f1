"""The procedure of the handbook's "Customer data corrections" (`CorrectionTicket`): a customer's email asking
to correct contact records, filed by Sales Operations as a SOPS task assigned to the contacts' owner. It counts
only when the address it came from is the email of a contact of that same account: then the fields asked are
corrected on the contacts named at that account (not on a contact of the same name at another customer; the
latest email on the ticket wins), and the ticket is answered and moved to In Review; otherwise nothing changes
in the CRM and the ticket is closed as Won't Do, the answer naming the sender's address and the article."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import timedelta

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Contact
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, CheckResult, check, guard
from officegym.graders.statements import Candidate, normalise, says
from officegym.seed_data.crm_vocab import CONTACT_TITLES
from officegym.seed_data.tickets_handbook_accounts import CORRECTIONS

from ..base import CARRY_OUT, REFUSE, Claim, Declaration, Target, ToolCall
from ..handbook import rule_claim
from ..tickets_common import project_id, tickets_where
from .accounts_tickets import CORRECTION_SUMMARY, PLANTED, answered, comments_on
from .core import Graded, Procedure

CORRECTED = ("corrected", "updated", "changed")
FIELD_WORDS = {"title": "title", "phone": "phone number"}


@dataclass(frozen=True)
class Change:
    """One field the customer asks to correct on one contact: `value` is what the latest email asks, `asked_first`
    what the first email asked (another value where the customer corrected themself), `old` what the CRM holds."""

    contact: int
    contact_name: str
    field: str
    value: str
    old: str
    asked_first: str = ""

    @property
    def stale(self) -> bool:
        """Whether a later email on the ticket changed what was asked."""
        return bool(self.asked_first) and self.asked_first != self.value

    def line(self, first: bool) -> str:
        """How the email asks for it."""
        value = self.asked_first if first and self.stale else self.value
        return f"{self.contact_name}'s {FIELD_WORDS[self.field]} is now {value}"


def same_value(field: str, value: str | None) -> str:
    """A value as compared: a phone number's digits, a title folded (case and spaces)."""
    if field == "phone":
        return "".join(ch for ch in value or "" if ch.isdigit())
    return " ".join((value or "").casefold().split())


def wrong_values(change: Change, said: set[str]) -> list[str]:
    """What a reply might wrongly state as the change's new value: other titles (for a title) or the number one
    digit group off (for a phone); never a value of `said` (the ticket's old and new values, which a fair report
    may name), nor the first email's value where a later one changed it ("not ..., as first asked" is fair: the
    record is checked instead)."""
    if change.field == "title":
        wrong = [t for t in CONTACT_TITLES if t not in said]
    else:
        head, _, tail = change.value.rpartition(" ")
        wrong = [f"{head} {(int(tail[-4:]) + 1111) % 10000:04d}"] if tail[-4:].isdigit() else []
    return [w for w in dict.fromkeys(wrong) if w not in said and w != change.asked_first]


_PART_END = re.compile(r"[.!?](?=\s|$)|[;\n]")  # a sentence or a ';' part (not the dot of an email)


def _names(part: str, name: str) -> bool:
    return re.search(rf"(?<![\w@.-]){re.escape(name.casefold())}(?![\w-])", part.casefold()) is not None


def contact_says(comments: list[str], change: Change, changes: tuple[Change, ...], others: list[Candidate],
                 requirement: str, kind: str) -> list[CheckResult]:
    """`says` of a change's new value, read part by part (sentences and ';' parts) for whom each part is about. A
    part about other contacts of the ticket only (naming one of them, not this one) states nothing of this
    contact: "Andrew Walter: Procurement Specialist (his correction replaces the Finance Director of the first
    email)" says nothing in place of Stephanie Thomas's title. A part about this contact only may state none of
    `others` nor what the ticket asks for the other contacts in this field ("Stephanie Thomas is now Procurement
    Specialist" states Andrew Walter's value for her); a part about several or none of them, none of `others`."""
    theirs = {c.contact_name for c in changes if c.contact != change.contact} - {change.contact_name}
    own = {v for c in changes if c.contact == change.contact for v in (c.old, c.value, c.asked_first)}
    given = [v for c in changes if c.contact != change.contact and c.field == change.field
             for v in (c.old, c.value, c.asked_first) if v and v not in own]
    strict, lenient = [], []
    for text in comments:
        for part in _PART_END.split(normalise(text)):
            mine, other = _names(part, change.contact_name), any(_names(part, n) for n in theirs)
            if other and not mine:
                continue
            (strict if mine and not other else lenient).append(part)
    pool = others + [Candidate.text(v) for v in dict.fromkeys(given) if Candidate.text(v) not in others]
    alone, mixed = says(strict, Candidate.text(change.value), pool, requirement, kind, weight=3), \
        says(lenient, Candidate.text(change.value), others, requirement, kind, weight=3)
    wrong = next((r for r in (alone[1], mixed[1]) if not r.passed), alone[1])
    return [replace(alone[0], passed=alone[0].passed or mixed[0].passed, detail="" if alone[0].passed or
                    mixed[0].passed else f"texts found: {[t[:120] for t in comments[:3]]}"), wrong]


@dataclass(frozen=True)
class LookalikeContact:
    """A contact of the same name at another of the owner's accounts, added by them some weeks ago."""

    owner: int
    account: int
    first_name: str
    last_name: str
    title: str
    email: str
    phone: str
    days_ago: int


@dataclass(frozen=True)
class CorrectionTicket(Procedure):
    """The SOPS task `key` filed by `filer` (Sales Operations) on `account_name`, assigned to the contacts' owner
    `actor`, quoting the email of `sender_email` (signed `sender_name`) asking for `changes`. `counts`: whether
    the sender is a contact of the account. `lookalike`: a contact of the same name as the first change's, at
    another account (`lookalike_id`, the id it will get). Difficulties: `lookalike` (the near miss corrects the
    look-alike) and `stale` (a later email changed a value: the near miss sets the first one)."""

    rules = (CORRECTIONS,)
    hard = ("lookalike", "stale")

    key: str
    actor: int
    filer: int
    filer_name: str
    account: int
    account_name: str
    sender_email: str
    sender_name: str
    counts: bool
    changes: tuple[Change, ...]
    colleagues: tuple[str, ...] = ()  # the emails of the account's contacts (a refusal's candidates)
    lookalike: LookalikeContact | None = None
    lookalike_id: int = 0
    hours_ago: int = 3

    def email(self, first: bool) -> str:
        """The customer's email as Sales Operations quotes it (the first, or the later correction)."""
        if first:
            asks = "; ".join(c.line(True) for c in self.changes)
            return (f"Email from {self.sender_email} ({self.sender_name}, {self.account_name}):\n\n\"Hello, could you "
                    f"please correct your records: {asks}. Kind regards, {self.sender_name}\"")
        fixed = "; ".join(c.line(False) for c in self.changes if c.stale)
        return (f"{self.sender_name} wrote again from {self.sender_email}: \"Sorry, a correction to my last email: "
                f"{fixed}.\"")

    def setup(self, session):
        now = clock.company_now(session)
        if self.lookalike is not None:
            twin = self.lookalike
            clock.set_time(session, now - timedelta(days=twin.days_ago, hours=2))
            made = crm.create_contact(session, session.get(Person, twin.owner), twin.account, twin.first_name,
                                      twin.last_name, twin.title, twin.email, twin.phone)
            assert made.id == self.lookalike_id, (made.id, self.lookalike_id)
        clock.set_time(session, now - timedelta(hours=self.hours_ago))
        filer = session.get(Person, self.filer)
        tickets.create_ticket(session, filer, "SOPS", "Task", f"{CORRECTION_SUMMARY}{self.account_name}",
                              self.email(True), assignee=self.actor)
        if any(c.stale for c in self.changes):
            clock.set_time(session, now - timedelta(hours=self.hours_ago - 1, minutes=20))
            tickets.add_comment(session, filer, self.key, self.email(False))

    def reads(self) -> list[ToolCall]:
        """The reads that find the request, the sender and the account's contacts."""
        return [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                ToolCall("crm_list_contacts", {"query": self.sender_email}),
                ToolCall("crm_get_account", {"account": self.account}),
                *(ToolCall("crm_get_contact", {"contact": c}) for c in dict.fromkeys(c.contact for c in self.changes))]

    def updates(self, stale: bool = False, lookalike: bool = False) -> list[ToolCall]:
        """The corrections, one call per contact (with the first email's values when `stale`; on the look-alike
        instead of the first contact when `lookalike`)."""
        fields: dict[int, dict[str, str]] = {}
        for n, change in enumerate(self.changes):
            target = self.lookalike_id if lookalike and n == 0 and self.lookalike_id else change.contact
            fields.setdefault(target, {})[change.field] = change.asked_first if stale and change.stale else change.value
        return [ToolCall("crm_update_contact", {"contact": contact, **values}) for contact, values in fields.items()]

    def answer(self, stale: bool = False, lookalike: bool = False) -> list[ToolCall]:
        """The corrections and the answer on the ticket, or the refusal (see the module's docstring)."""
        if not self.counts:
            text = (f"Sorry, we can't make these changes: the request came from {self.sender_email}, and no contact of "
                    f"{self.account_name} in the CRM has that address. Per {CORRECTIONS} only the account's own "
                    "contacts may ask, so I'm closing this as Won't Do.")
            return [ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Close",
                                                           "resolution": "Won't Do", "comment": text},
                             role="refusal", text_arg="comment", instead=self.updates())]
        done = "; ".join(f"{c.contact_name}'s {FIELD_WORDS[c.field]} is now "
                         f"{c.asked_first if stale and c.stale else c.value}" for c in self.changes)
        return [*self.updates(stale, lookalike),
                ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Start progress"}),
                ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Submit for review",
                                                       "comment": f"Corrected in the CRM: {done}."},
                         role="report", text_arg="comment")]

    def steps(self):
        return self.reads() + self.answer()

    def declared(self):
        holds = ("lookalike",) if self.lookalike is not None and self.counts else ()
        return holds + (("stale",) if self.counts and any(c.stale for c in self.changes) else ())

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        return self.reads() + self.answer(stale=kind == "stale", lookalike=kind == "lookalike")

    def _facts(self) -> list[Claim]:
        if not self.counts:
            return [Claim(Candidate.text(self.sender_email), [Candidate.text(e) for e in self.colleagues], "comment",
                          "sender's address")]
        # what the ticket names is no candidate: "changed from <old> to <new>" is a fair report, and so is a first
        # email's value named as replaced (see `contact_says` for the values the ticket gives other contacts)
        said = {v for c in self.changes for v in (c.old, c.value, c.asked_first) if v}
        return [Claim(Candidate.text(c.value), [Candidate.text(v) for v in wrong_values(c, said)],
                      "comment", f"new {FIELD_WORDS[c.field]} of {c.contact_name}") for c in self.changes]

    def declare(self, start):
        twin = [self.lookalike_id] if self.lookalike_id else []
        targets = [Target("contact", c.contact, twin) for c in self.changes[:1]]
        targets += [Target("contact", c, []) for c in dict.fromkeys(c.contact for c in self.changes[1:])
                    if c != self.changes[0].contact]
        queue = tickets_where(start, Ticket.project_id == project_id(start, "SOPS"), Ticket.status == "To Do")
        mine = next((t.id for t in queue if t.key == self.key), 0)
        older = [t.key for t in queue if not t.summary.startswith(PLANTED)][::-1][:5]  # the world's, newest first
        targets.append(Target("ticket", self.key, older + [t.key for t in queue if t.id > mine]))
        rule = [replace(rule_claim(start, CORRECTIONS), field="comment")] if not self.counts else []
        return Declaration(targets, rule + self._facts())

    def check(self, ctx):
        results, allowed = [], []
        if self.counts:
            for contact in dict.fromkeys(c.contact for c in self.changes):
                row = ctx.final.get(Contact, contact)
                wanted = {c.field: same_value(c.field, c.value) for c in self.changes if c.contact == contact}
                held = {f: same_value(f, getattr(row, f)) if row is not None else None for f in wanted}
                name = next(c.contact_name for c in self.changes if c.contact == contact)
                results.append(check(f"{name}'s record is corrected as the latest email asks", held == wanted,
                                     f"{held}", weight=2))
                for change in (c for c in self.changes if c.contact == contact and c.stale):
                    first = same_value(change.field, change.asked_first)
                    results.append(guard(f"{name}'s {FIELD_WORDS[change.field]} is not the first email's "
                                         f"{change.asked_first}", held.get(change.field) != first, "it is"))
                allowed.append(Allow("crm_contact", ("updated",), lambda r, i=contact: r["id"] == i, tuple(wanted)))
        facts = self._facts()
        answer = answered(ctx, self.key, self.counts, CORRECTIONS, CORRECTED, [] if self.counts else facts)
        results += answer.results
        for change, fact in zip(self.changes, facts if self.counts else []):  # each read for whom it is about
            results += contact_says(comments_on(ctx, self.key), change, self.changes, fact.others,
                                    f"The answer on {self.key} states the {fact.kind}, {fact.right.label}", fact.kind)
        return Graded(results, allowed + answer.allowed)

    def outcome(self):
        return CARRY_OUT if self.counts else REFUSE
