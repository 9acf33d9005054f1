"""Drawing helpers of the long marathons (tasks.w_lib_long*): a batch of credit requests from Customer Success
on a salesperson's team accounts, answered by one reply (the requests and reply of a credits backlog, sized
for a marathon that does other work too), and the editors of a pipeline workbook whose team has accounts
enough for such a batch."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from ..base import Claim, ToolCall
from ..common import pick
from ..crm import money, today
from ..w_lib_revenue_credits import credit_on
from ..w_revenue_credits import BANDS, approver_of
from ..w_support_refusals import customer_success_askers
from .core import Procedure, Reads
from .credits import CREDITS, TIERS, NotedCredit
from .marathon_draws import team_accounts
from .messages import DirectRequest, Reply
from .revenue_draws import pipeline_options


@dataclass
class CreditBatch:
    """A Customer Success colleague's DM listing credit requests, the steps that log them (reads of each
    account's cases and owner, then the credit) and the one reply naming those not logged."""

    asker: Person
    request: DirectRequest
    steps: list[Procedure]
    reply: Reply
    credits: list[NotedCredit]


def editors_with_accounts(session, split: str, least: int) -> list[tuple]:
    """(pipeline workbook, editor id, its deals, the editor's team accounts) for each editor of a team pipeline
    of `split` (revenue_draws.pipeline_options) whose team holds `least` accounts of marathon_draws.team_accounts."""
    teams = {person.id: accounts for person, accounts in team_accounts(session, split, least)}
    return [(book, editor, deals, teams[editor]) for book, editor, deals in pipeline_options(session, split)
            if editor in teams]


def credit_batch(session, rng, actor: Person, accounts: list, count: int, refused: int, avoid: set[int]) -> CreditBatch:
    """`count` credit requests on `accounts` (drawn from them), `refused` of them on an invoice credited already,
    each approver tier several times over, asked by a Customer Success colleague who approves none of them and
    is none of `avoid`; the reply names the invoices that could not be logged."""
    accounts, day = rng.sample(accounts, count), today(session)
    done = set(rng.sample(range(count), refused))
    numbers = [f"INV-{day.year}-{n:04d}" for n in rng.sample(range(100, 900), count)]
    bands = [TIERS[k % len(TIERS)] for k in range(count)]
    rng.shuffle(bands)
    credits, steps, seen, approvers = [], [], set(), set()
    for k, account in enumerate(accounts):
        owner = session.get(Person, account.owner_id)
        approvers |= {approver_of(session, band, owner).id for band in BANDS}
        credits.append(credit_on(session, rng, owner, account, k in done, numbers[k], NotedCredit, bands[k]))
        whose = () if owner.id in seen else (ToolCall("org_get_person", {"person": owner.id}),)
        steps += [Reads((ToolCall("crm_list_cases", {"account": account.id}), *whose)), credits[-1]]
        seen.add(owner.id)
    asker = pick(rng, [p for p in customer_success_askers(session) if p.id not in approvers | avoid | {actor.id}])
    listed = "\n".join(f"- {c.account_name}: {money(c.dollars * 100)} on {c.invoice} for {c.why}" for c in credits)
    request = DirectRequest(asker.id, actor.id, (
        f"Hi @{actor.handle}, these customers of your team asked for goodwill credits this week:\n{listed}\nCould you "
        "log each one for approval as the handbook says, naming in its note who approves it, and tell me which ones "
        "you couldn't log and why?"), minutes=35)
    held = [c for c in credits if c.refused]
    reply = Reply(asker.id, asker.name, actor.id, (
        f"@{asker.handle} I can't log " + ", ".join(f"{c.account_name}'s ({c.invoice})" for c in held) +
        f": the accounts' notes show those invoices credited already, and the handbook's {CREDITS} credits an "
        f"invoice once. The other {len(credits) - len(held)} are noted on their accounts, each with who approves "
        "it."), True, (), CREDITS, tuple(Claim(Candidate.text(c.invoice), [], "text", "invoice credited already")
                                          for c in held),
        tuple(c.note() for c in held), weight=3 * count, fact_weight=2 * count)
    lookups = Reads(tuple(ToolCall("org_get_department", {"department": band}) for band in BANDS[1:]))
    return CreditBatch(asker, request, [lookups, *steps], reply, credits)
