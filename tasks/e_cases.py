"""Event templates on customer cases: a case owner's manager asks the owner, by DM, to set the case's
priority while the customer checks how badly the problem hits them; the customer's reply is logged
on the case mid-episode (an email activity): it calls for a higher priority (the value to set
changes) or confirms the one asked for (the twin). No message says which: the case's activity does,
so the agent must read the case after the reply came."""

from __future__ import annotations

from officegym.apps.crm.access import scope_of
from officegym.apps.crm.models import CASE_PRIORITIES, Case, Contact
from officegym.apps.org.models import Person
from officegym.colleagues.events import Event
from officegym.graders.checks import Allow, check

from .base import Lookalikes, Target, ToolCall
from .common import pick
from .e_common import Drawn, FollowupTemplate
from .registry import register
from .split import in_split, person_in
from .w_support_common import case_lookalikes, open_cases

LOOKALIKES = 20
REPLY_PENDING = ["{source} is checking how widely it hits them; I'll log their reply on the case as soon as it comes "
                 "in, and if it calls for another priority, go with the reply.",
                 "We're waiting on {source} to say how bad it is; their answer will be on the case (I log it when "
                 "it arrives), and it decides if we need to go higher.",
                 "I've asked {source} whether production is affected; read their reply on the case once I've logged "
                 "it, since it may change the priority."]
REPLY_CHANGED = ["{source} replied about {thing}: it now blocks all their users, so it needs {new}, not {old}.",
                 "Reply from {source} on {thing}: the issue has reached production; please treat it as {new} "
                 "rather than {old}.",
                 "{source} wrote back on {thing}: worse than first thought, {new} priority please; {old} undersells "
                 "it."]
REPLY_CONFIRMED = ["{source} replied about {thing}: only a test system is affected, so {old} is right.",
                   "Reply from {source} on {thing}: production is fine, {old} is the right call.",
                   "{source} wrote back on {thing}: it's contained to one team; {old} priority is fine."]


@register
class CasePriorityCustomerReply(FollowupTemplate):
    id, apps = "e.case_priority_customer_reply", ("chat", "crm")
    pending, changed, confirmed = REPLY_PENDING, REPLY_CHANGED, REPLY_CONFIRMED
    summary = "Set a customer case's priority as its owner's manager asked, or higher if the customer's reply says so."

    def candidates(self, session) -> list[tuple[Case, Person]]:
        """Open cases of the split, below Urgent, with a contact (never the newest open case), and the
        owner's manager, who may edit them."""
        found = []
        newest = max(c.id for c in open_cases(session))
        for case in open_cases(session, Case.contact_id.is_not(None), Case.priority != "Urgent", Case.id != newest):
            owner = session.get(Person, case.owner_id)
            if not (in_split(self.split, "case", case.id) and person_in(self.split, owner.id) and owner.manager_id):
                continue
            manager = session.get(Person, owner.manager_id)
            if scope_of(session, manager).can_edit(owner.id):
                found.append((case, manager))
        return found

    def draw(self, session, rng, instance, changes):
        case, manager = pick(rng, self.candidates(session))
        levels = list(CASE_PRIORITIES)
        firsts = [p for p in levels[:-1] if p != case.priority
                  and [q for q in levels[levels.index(p) + 1:] if q != case.priority]]
        first = pick(rng, firsts)
        higher = pick(rng, [q for q in levels[levels.index(first) + 1:] if q != case.priority])
        final = higher if changes else first
        contact = session.get(Contact, case.contact_id)
        return Drawn(session.get(Person, case.owner_id), manager, f"the priority of case {case.id}",
                     f"{contact.first_name} {contact.last_name} at {case.account.name}",
                     f"set the priority of case {case.id} ({case.subject}) to {{value}}", first, final,
                     [p for p in levels if p != final], {"case": case.id})

    def follow_up(self, session, rng, inst, drawn, text, when):
        return [Event("log_activity", drawn.requester.id, {
            "record_type": "case", "record_id": inst.params["case"], "kind": "email",
            "subject": f"Customer reply: {drawn.source}", "body": text}, **when)]

    def steps(self, inst, value):
        case = inst.params["case"]
        return [ToolCall("crm_get_case", {"case": case}),
                ToolCall("crm_list_activities", {"record_type": "case", "record_id": case}),
                ToolCall("crm_update_case", {"case": case, "priority": value})]

    def record(self, start, inst):
        case = start.get(Case, inst.params["case"])
        mine = case_lookalikes(start, case, inst.actor_id)

        def find() -> list[int]:  # the owner's others, then the newest open cases, so that one is newer
            newer = [c.id for c in reversed(open_cases(start, Case.id != case.id)) if c.id not in mine]
            return [*list(mine)[:LOOKALIKES - 4], *newer][:LOOKALIKES]
        return Target("case", case.id, Lookalikes(find))

    def state_checks(self, ctx, inst):
        case = ctx.final.get(Case, inst.params["case"])
        return [check(f"Case {case.id} has priority {inst.params['final']}, as the customer's reply calls for",
                      case.priority == inst.params["final"], f"it has {case.priority}")]

    def allowances(self, ctx, inst):
        case = inst.params["case"]
        return [Allow("crm_case", ("updated",), lambda row: row["id"] == case, ("priority",))]
