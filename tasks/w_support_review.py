"""Customer-support workflow: review your customer escalations where their bugs stand, as the
handbook's escalation path says: a bug Done means telling the customer and closing the case; a bug
nobody started by its due date goes to the VP of Customer Success (helpers in w_support)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from officegym import clock, colleagues
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, Case, Contact
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, dm_allowances, named, pick, spread
from .crm import today
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .tickets_common import key_pool, next_key
from .w_deals import setup_of
from .w_people_replies import decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step, people_claim
from .w_support_common import (AREAS, ESCALATION, LABEL, area_team, boss_of, bug_exists, case_lookalikes, customer_bugs,
                        of_pool, open_cases, told_customer)
from .w_support_more import dm_texts

# The planted escalations: (role, days ago the case was opened, days ago the bug was filed). A bug is
# due 7 days after it is filed. Two bugs are Done: (days ago sent for review, days ago Done) for each.
PLAN = {"done": (16, 15), "overdue": (13, 12), "started": (11, 10), "fixed": (9, 8), "ontrack": (4, 3)}
FINISHED = {"done": (4, 3), "fixed": (2, 1)}


def vp_of_customer_success(session) -> Person:
    """The VP of Customer Success (the head of the department when no one has the title)."""
    found = session.scalar(select(Person).where(Person.title == "VP of Customer Success").order_by(Person.id))
    if found is None:
        head = session.scalar(select(Department.head_id).where(Department.name == "Customer Success"))
        found = session.get(Person, head) if head else None
    if found is None:
        raise RuntimeError("the company has no VP of Customer Success")
    return found


def escalations(session, owner_id: int) -> dict[str, list[tuple[Case, Ticket]]]:
    """The owner's escalated cases with their bugs, by where the bug stands: done, overdue (still To Do
    after its due date), or fine."""
    day, found = today(session), {"done": [], "overdue": [], "fine": []}
    for case in session.scalars(select(Case).where(Case.owner_id == owner_id, Case.status == "Escalated")
                                .order_by(Case.id)):
        bug = session.scalar(select(Ticket).where(Ticket.key == case.ticket_key))
        if bug is None:
            continue
        late = bug.status == "To Do" and bug.due_date is not None and bug.due_date < day
        found["done" if bug.status == "Done" else "overdue" if late else "fine"].append((case, bug))
    return found


def _plant(actor_id: int, target_id: int, planted: list[dict], engineer_id: int, vp_id: int):
    """The setup: the actor escalated cases over the past weeks (opening the planted ones first), and
    an engineer worked some of the bugs."""
    def run(session) -> None:
        now = clock.company_now(session)
        actor, engineer = session.get(Person, actor_id), session.get(Person, engineer_id)
        at = lambda days: clock.set_time(session, now - timedelta(days=days, hours=3))  # noqa: E731
        for item in sorted(planted, key=lambda i: -PLAN[i["role"]][1]):
            opened, filed = PLAN[item["role"]]
            if item["role"] == "overdue":
                case = session.get(Case, target_id)
            else:
                at(opened)
                case = crm.create_case(session, actor, item["account"], item["subject"],
                                       "The customer's admins reported it.", "Medium", "Email", item["contact"])
            account = session.get(Account, case.account_id)
            at(filed)
            bug = tickets.create_ticket(
                session, actor, "ENG", "Bug", f"{account.name}: {case.subject}", "Reported through the CRM case.",
                "High", labels=[LABEL], components=[item["team"]],
                due_date=(now - timedelta(days=filed - 7)).date().isoformat(), account=account.name)
            crm.escalate_case(session, actor, case.id, "Engineering must fix it.", bug.key)
            tickets.watch_ticket(session, actor, bug.key)
            if item["role"] in ("started", *FINISHED):
                at(filed - 2)
                tickets.assign_ticket(session, engineer, bug.key, engineer.id)
                tickets.transition_ticket(session, engineer, bug.key, "Start progress")
            if item["role"] in FINISHED:
                at(FINISHED[item["role"]][0])
                tickets.transition_ticket(session, engineer, bug.key, "Submit for review")
                at(FINISHED[item["role"]][1])
                tickets.transition_ticket(session, engineer, bug.key, "Done", "Done")
            if item["role"] == "overdue":
                colleagues.plant_note(session, session.get(Person, vp_id), "ticket", bug.key,
                                      "Thanks, I'll take it to the owning team's lead today.")
    return run


@register
class SupportEscalationReview(TaskTemplate):
    """Act on each of your escalations by where its bug stands (Done, not started past due, fine)."""

    id, apps, difficulty, kind = "w.support_escalation_review", ("crm", "tickets", "chat", "org"), 4, "workflow"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules = "medium", (ESCALATION,)
    summary = ("A manager asks for a review of your escalated cases where their bugs stand: close and tell the "
               "customer the key when the bug is Done, take the bugs nobody started by their due date to the VP of "
               "Customer Success (noting it on their cases), and tell the manager which bugs went to the VP.")

    def sample(self, session, rng, instance):
        accounts, bugs = {a.id: a for a in session.scalars(select(Account))}, customer_bugs(session)

        def clean(owner_id):  # every escalation of theirs is on an account they own, with its bug
            return all(accounts[c.account_id].owner_id == owner_id and c.ticket_key for c in session.scalars(
                select(Case).where(Case.owner_id == owner_id, Case.status == "Escalated")))
        cases = [c for c in open_cases(session, Case.subject.in_(list(AREAS)))
                 if c.owner_id == accounts[c.account_id].owner_id and not bug_exists(session, accounts[c.account_id],
                                                                                     c.subject, bugs)]
        case = spread(of_pool([c for c in cases if clean(c.owner_id) and session.get(Person, c.owner_id).manager_id],
                              self.split, "case"), instance)
        actor = session.get(Person, case.owner_id)
        boss = boss_of(session, actor)
        dm = dm_name(actor.id, boss.id)
        theirs = [a for a in accounts.values() if a.owner_id == actor.id]
        roles = ["done", "fixed", "overdue", "ontrack"] + (["started"] if rng.random() < 0.6 else [])
        planted, taken = [], {(case.account_id, case.subject)}
        for role in roles:
            if role == "overdue":
                account, subject = accounts[case.account_id], case.subject
            else:
                account, subject = pick(rng, [(a, s) for a in theirs for s in sorted(AREAS) if (a.id, s) not in taken
                                              and not bug_exists(session, a, s, bugs)])
                taken.add((account.id, subject))
            contact = session.scalar(select(Contact.id).where(Contact.account_id == account.id).order_by(Contact.id))
            planted.append({"role": role, "account": account.id, "subject": subject, "contact": contact,
                            "team": area_team(session, rng, subject)[0]})
        engineer = area_team(session, rng, planted[0]["subject"])[1]
        vp = vp_of_customer_success(session)
        order = sorted(planted, key=lambda i: -PLAN[i["role"]][1])
        number = int(next_key(session, "ENG").split("-")[1])
        keys = {i["role"]: f"ENG-{number + k}" for k, i in enumerate(order)}
        first_case = session.scalar(select(func.max(Case.id))) + 1
        world = escalations(session, actor.id)
        late = [(c.id, bug.key) for c, bug in world["overdue"]] + [(case.id, keys["overdue"])]
        ids = {"overdue": case.id}  # the setup opens the other cases in the plan's order
        for role in [i["role"] for i in order if i["role"] != "overdue"]:
            ids[role] = first_case + len(ids) - 1
        done = [(c.id, bug.key) for c, bug in world["done"]] + [(ids[r], keys[r]) for r in FINISHED]
        steps = [*dm_reads(dm), *read_rule(session, ESCALATION, "customer escalation"),
                 ToolCall("crm_list_cases", {"owner": f"@{actor.handle}", "status": "Escalated"})]
        for cid, key in sorted([(c.id, b.key) for group in world.values() for c, b in group]
                               + [(ids[i["role"]], keys[i["role"]]) for i in order]):
            steps += [ToolCall("crm_get_case", {"case": cid}), ToolCall("tickets_get_ticket", {"key": key})]
        steps += [ToolCall("org_search_people", {"query": "VP of Customer Success"})]
        at = len(steps)
        steps += [ToolCall("chat_open_conversation", {"people": [f"@{vp.handle}"]}),
                  ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                      f"Hi @{vp.handle}, no progress by the due date on {', '.join(k for _, k in late)}: work has "
                      "not started. Per the escalation path I'm bringing it to you.")}, role="note"),
                  ToolCall("chat_list_messages", {"channel": Ref(at, "id"), "limit": 5})]
        steps += [ToolCall("crm_log_activity", {"record_type": "case", "record_id": cid, "kind": "note",
                                                "subject": "No progress by the due date",
                                                "body": f"{key} had no progress by its due date: sent to {vp.name}."},
                           role="note") for cid, key in late]
        for cid, key in done:
            steps += [ToolCall("crm_log_activity", {"record_type": "case", "record_id": cid, "kind": "email",
                                                    "subject": "The fix is live",
                                                    "body": f"Told the customer {key} is fixed."}, role="note"),
                      ToolCall("crm_update_case", {"case": cid, "status": "Closed"})]
        steps += [ToolCall("crm_list_cases", {"owner": f"@{actor.handle}", "status": "Escalated"}),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{boss.handle} done: I took {', '.join(k for _, k in late)} to @{vp.handle} (no progress by "
                      f"the due date) and closed the cases whose bugs are Done, {', '.join(k for _, k in done)}, "
                      "after telling the customers.")}, role="report")]
        text = (f"Hi @{actor.handle}, could you review your customer escalations today? For each escalated case, do "
                "what the customer escalation path says for where its bug stands today (a bug still To Do counts as "
                "no progress). If something has to go to someone, send them one direct message naming exactly the "
                "bugs concerned by their keys, and put a note on the case of each bug you take to them saying to whom. "
                "Please log what you tell a customer (the bug's key) in the CRM as an email or a call. Then tell me "
                "which bugs had to go further.")
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, boss), whom=named(session, boss)),
            steps, {"case": case.id, "keys": keys, "done": [cid for cid, _ in done], "vp": vp.id, "roles": roles,
                    "boss": boss.id},
            setup=setup_of(_plant(actor.id, case.id, planted, engineer.id, vp.id), dm_step(boss.id, actor.id, text)))

    def declare(self, start, inst):
        case = start.get(Case, inst.params["case"])
        found = escalations(start, inst.actor_id)
        late = [bug.key for _, bug in found["overdue"]]
        claims = [Claim(Candidate.text(k), self._others(start, found, k, late), "text", "ticket key") for k in late]
        return Declaration([Target("case", case.id, case_lookalikes(start, case, inst.actor_id))], claims)

    @staticmethod
    def _vp(start, vp: Person) -> tuple[Candidate, list[Candidate]]:
        """The VP of Customer Success among the other department heads."""
        heads = [start.get(Person, i) for i in start.scalars(select(Department.head_id).where(
            Department.head_id.is_not(None), Department.head_id != vp.id))]
        claim = people_claim([vp], heads, "person")
        return Candidate.text(*claim.right.spellings, "VP of Customer Success", vp.title or ""), claim.others

    @staticmethod
    def _others(start, found, key: str, late: list[str]) -> list[Candidate]:
        """The keys a message to the VP could name instead: the other escalations' bugs, then ENG's."""
        fine = [Candidate.text(bug.key) for group in ("done", "fine") for _, bug in found[group]]
        return fine + key_pool(start, "ENG", key, allowed=tuple(k for k in late if k != key))

    def check(self, ctx, inst):
        vp = ctx.start.get(Person, inst.params["vp"])
        found = escalations(ctx.start, ctx.actor_id)
        late = [bug.key for _, bug in found["overdue"]]
        texts = dm_texts(ctx, vp.id)
        results, allowed = [], dm_allowances(ctx, vp.id)
        for key in late:
            results += says(texts, Candidate.text(key), self._others(ctx.start, found, key, late),
                            f"Your DM to {vp.name} names {key}", "ticket key", weight=2)
        for case, bug in found["overdue"]:
            notes = [r for r in ctx.diff.table("crm_activity").added if r["record_type"] == "case"
                     and r["record_id"] == case.id and r["kind"] == "note" and r["owner_id"] == ctx.actor_id]
            results += says([r["body"] + " " + r["subject"] for r in notes], *self._vp(ctx.start, vp),
                            f"A note on case {case.id} says {bug.key} went to {vp.name}", "person", weight=2,
                            deniable=False)
            allowed.append(Allow("crm_activity", ("added",), lambda row, cid=case.id: row["record_type"] == "case"
                                 and row["record_id"] == cid and row["kind"] == "note"
                                 and row["owner_id"] == ctx.actor_id))
        for case, bug in found["done"]:
            now, told = ctx.final.get(Case, case.id), told_customer(ctx, case)
            emails = [r["body"] + " " + r["subject"] for r in ctx.diff.table("crm_activity").added if told(r)]
            results += [check(f"Case {case.id} ({bug.key} is Done) is closed", now and now.status == "Closed",
                              f"it is {getattr(now, 'status', None)}", 2),
                        *says(emails, Candidate.text(bug.key), key_pool(ctx.start, "ENG", bug.key),
                              f"You told the customer {bug.key} is fixed (an email or call logged)", "ticket key")]
            allowed += [Allow("crm_case", ("updated",), lambda row, cid=case.id: row["id"] == cid
                              and row["status"] == "Closed", ("status", "closed_at")),
                        Allow("crm_activity", ("added",), told)]
        boss = ctx.start.get(Person, inst.params["boss"])
        dm, replies = dm_replies(ctx, boss.id)
        mine = [bug.key for group in found.values() for _, bug in group]
        facts = [Claim(Candidate.text(k), [Candidate.text(b.key) for _, b in found["fine"]]
                       + key_pool(ctx.start, "ENG", k, allowed=tuple(mine)), "text", "bug taken further") for k in late]
        results += decision_reply_checks(replies, False, boss.name, facts=facts, actions=("taken", "sent", "closed",
                                                                                           "escalated"), weight=6)
        allowed += allow_posts(ctx, dm, limit=1, mentions=3) if dm else []
        if not late and not found["done"]:
            results.append(check("The setup planted escalations to review", False, "none found"))  # a grader fault
        return results + [nothing_else_changed(ctx.diff, allowed)]
