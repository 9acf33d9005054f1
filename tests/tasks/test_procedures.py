"""The procedure library as public API: a lab's package, outside this repository, registers a template
composed of the library's procedures through the `officegym.tasks` entry point group, and
`officegym check-tasks` proves it as the suite proves its own; a broken entry point is skipped. And
for every composed template: each difficulty it declares is held by an instance, whose near miss
fails; a procedure's references are shifted to where it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from officegym.tasks.base import Ref, ToolCall
from officegym.tasks.procedures import HARDS, Composed, shifted
from officegym.tasks.registry import all_tasks
from officegym.adversaries import NotApplicable
from officegym.cli_check_tasks import near_miss_agent
from pairs import in_turn

COMPOSED = [t for t in all_tasks() if isinstance(t, Composed)]
LOOKED_AT = 6
PLAYED = 2  # difficulties of a template whose near miss make test plays, in turn

# A lab's template, written on the library alone: the kickoff-contacts decision, carried out only.
LAB = textwrap.dedent('''
    from sqlalchemy import select

    from officegym.apps.crm.models import Contact
    from officegym.apps.org.models import Person
    from officegym.tasks.procedures import Composed, DirectRequest, Plan, ReadRule, Reply, ShareContacts
    from officegym.tasks.procedures.sharing import DATA, POSTED, contact_listing, kickoff_channel
    from officegym.tasks.registry import register
    from officegym.tasks.split import person_in
    from officegym.tasks.w_lib_sharing import sibling_accounts


    @register
    class PrivateKickoff(Composed):
        id, apps, kind, difficulty, scale, split = "lab.private_kickoff", ("chat", "crm", "tickets"), "workflow", 3, "medium", "train"
        toolsets, rules, hard = ("chat", "crm", "tickets.work"), (DATA,), ("lookalike",)
        summary = "Post a customer's contacts in its private kickoff channel, not its look-alike's."

        def plan(self, session, rng, instance):
            account, lookalike = [p for p in sibling_accounts(session) if person_in(self.split, p[0].owner_id)][instance]
            contact = session.scalars(select(Contact).where(Contact.account_id == account.id, Contact.email != "")
                                      .order_by(Contact.id)).first()
            owner = session.get(Person, account.owner_id)
            asker = session.scalars(select(Person).where(Person.id != owner.id, Person.manager_id == owner.manager_id)
                                    .order_by(Person.id)).first() or session.get(Person, owner.manager_id)
            channel = kickoff_channel(account)
            share = ShareContacts(owner.id, asker.id, account.id, account.name, contact.id, channel, True, (),
                                  contact_listing(session, account), lookalike.id, lookalike.name,
                                  contact_listing(session, lookalike))
            return Plan(owner.id, f"{asker.name} asked you by DM for {account.name}'s contacts in #{channel}. "
                        "Go by the handbook and tell them.",
                        [DirectRequest(asker.id, owner.id, f"Hi @{owner.handle}, please post {account.name}'s "
                                       f"contacts in #{channel}."),
                         ReadRule.of(session, DATA, "customer data sharing"), share,
                         Reply(asker.id, asker.name, owner.id, f"@{asker.handle} done: I posted {account.name}'s "
                               f"contacts in #{channel}.", False, POSTED)])
''')


def _lab(tmp_path):
    """The lab's package and its distribution's metadata, with one good and one broken entry point."""
    (tmp_path / "labtasks.py").write_text(LAB)
    info = tmp_path / "labtasks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: labtasks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[officegym.tasks]\nlab = labtasks\nbroken = labtasks_missing\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path)}


def test_a_labs_package_registers_its_template_and_check_tasks_proves_it(tmp_path):
    env = _lab(tmp_path)
    listed = subprocess.run([sys.executable, "-m", "officegym.cli", "tasks", "--tasks", "lab.*"], env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0 and "lab.private_kickoff" in listed.stdout, listed.stderr
    assert "broken" in listed.stderr and "skipped" in listed.stderr
    proved = subprocess.run([sys.executable, "-m", "officegym.cli", "check-tasks", "--tasks", "lab.*",
                             "--instances", "1", "--only", "draws,difficulties"], env=env, capture_output=True,
                            text=True, timeout=600)
    assert proved.returncode == 0, proved.stdout[-3000:] + proved.stderr[-3000:]
    assert "PASS lab.private_kickoff: draws: every actor is of the split" in proved.stdout
    assert "PASS lab.private_kickoff: falls_for_lookalike fails #0" in proved.stdout
    assert "FAIL" not in proved.stdout


def test_check_tasks_names_what_it_cannot_find(tmp_path):
    env = _lab(tmp_path)
    proved = subprocess.run([sys.executable, "-m", "officegym.cli", "check-tasks", "--tasks", "nolab.*"], env=env,
                            capture_output=True, text=True, timeout=300)
    assert proved.returncode == 2 and "no task matches 'nolab.*'" in proved.stderr and "broken" in proved.stderr


def test_a_procedures_references_are_shifted_to_where_it_starts():
    calls = [ToolCall("chat_open_conversation", {"people": ["@a"]}),
             ToolCall("chat_post_message", {"channel": Ref(0, "id"), "text": "hi"}, role="refusal",
                      instead=[ToolCall("chat_list_messages", {"channel": Ref(0, "id")})])]
    moved = shifted(calls, 5)
    assert moved[1].args["channel"] == Ref(5, "id") and moved[1].instead[0].args["channel"] == Ref(5, "id")
    assert calls[1].args["channel"] == Ref(0, "id")  # the procedure's own steps are left as they were


@pytest.mark.parametrize("template", COMPOSED, ids=[t.id for t in COMPOSED])
def test_every_declared_difficulty_has_a_near_miss_that_fails(store, template):
    """Every declared difficulty is held by one of the first instances; its near miss is played and fails
    (two difficulties of a template in turn, all of them with OFFICEGYM_TEST_EVERY_PAIR=1)."""
    assert template.hard and set(template.hard) <= set(HARDS), template.hard
    world = store.world(template.scale, 0)
    holding = {}
    for kind in template.hard:
        holding[kind] = next((k for k in range(LOOKED_AT)
                              if template.near_miss(store.task_instance(world, template.id, k), kind) is not None), None)
        assert holding[kind] is not None, f"no instance of the first {LOOKED_AT} holds {kind}"
    for kind in in_turn(COMPOSED.index(template), list(template.hard), PLAYED):
        episode = store.create(template.id, holding[kind], scale=template.scale, seed=0)
        try:
            near_miss_agent(kind)(episode)
            result = episode.grade()
        except NotApplicable:
            result = None
        finally:
            store.delete(episode.id)
        assert result is not None and result.status == "failed" and result.score < 0.5, (kind, result.to_dict())


@pytest.mark.parametrize("template", COMPOSED, ids=[t.id for t in COMPOSED])
def test_a_composed_templates_rules_cover_its_procedures(store, template):
    inst = store.task_instance(store.world(template.scale, 0), template.id, 0)
    needed = {rule for procedure in template.procedures(inst) for rule in procedure.rules}
    assert needed <= set(template.rules), needed - set(template.rules)
