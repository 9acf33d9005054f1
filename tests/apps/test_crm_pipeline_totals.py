"""The per-owner-and-stage deal totals the database keeps with triggers (crm_pipeline_total): after
any write to a deal, by a service or by plain SQL, they equal the deals summed by owner and stage,
and the pipeline report read from them matches the report summed from the deals. Runs on SQLite
and on PostgreSQL."""

from __future__ import annotations

from sqlalchemy import BigInteger, cast, delete, func, select, update

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import LineItem, Opportunity, PipelineTotal, Product
from officegym.apps.org.models import Department, Person


def totals(session) -> dict[tuple[int, str], tuple[int, int, int]]:
    """What the totals table holds."""
    rows = session.execute(select(PipelineTotal.owner_id, PipelineTotal.stage, PipelineTotal.deals,
                                  PipelineTotal.amount_cents, PipelineTotal.weighted))
    return {(owner, stage): (int(n), int(cents), int(weighted)) for owner, stage, n, cents, weighted in rows}


def summed_from_deals(session) -> dict[tuple[int, str], tuple[int, int, int]]:
    """The deals summed by owner and stage, here and now."""
    rows = session.execute(select(Opportunity.owner_id, Opportunity.stage, func.count(),
                                  func.sum(Opportunity.amount_cents),
                                  func.sum(cast(Opportunity.amount_cents, BigInteger) * Opportunity.probability))
                           .group_by(Opportunity.owner_id, Opportunity.stage))
    return {(owner, stage): (int(n), int(cents), int(weighted)) for owner, stage, n, cents, weighted in rows}


def assert_in_step(episode) -> None:
    with episode.session() as session:
        found, expected = totals(session), summed_from_deals(session)
    assert found == expected
    assert all(n > 0 for n, _, _ in found.values())  # a group whose last deal left is gone


def sales_people(session) -> tuple[Person, Person]:
    """Two members of the Sales department who own deals."""
    sales = session.scalar(select(Department.id).where(Department.name == "Sales"))
    owners = session.scalars(select(Person).join(Opportunity, Opportunity.owner_id == Person.id)
                             .where(Person.department_id == sales, Person.role == "member")
                             .group_by(Person.id).order_by(Person.id)).all()
    return owners[0], owners[1]


def test_a_new_world_starts_in_step(small_episode):
    assert_in_step(small_episode)
    with small_episode.session() as session:
        assert len(totals(session)) > 5


def test_every_kind_of_deal_write_keeps_the_totals_in_step(small_episode):
    episode = small_episode
    with episode.session() as session:
        rep, other = sales_people(session)
        rep_id, other_id = rep.id, other.id
        account = crm.create_account(session, rep, "Totals Test Account", industry="Retail", size="51-200",
                                     region="EMEA")
        deal_id = crm.create_opportunity(session, rep, account.id, "Totals deal", "2026-03-31", amount=12345.67,
                                         stage="Prospecting").id
    assert_in_step(episode)
    steps = [
        lambda s: crm.move_stage(s, s.get(Person, rep_id), deal_id, "Qualification"),
        lambda s: crm.update_opportunity(s, s.get(Person, rep_id), deal_id, amount=99000),
        lambda s: crm.update_opportunity(s, s.get(Person, rep_id), deal_id, owner=other_id),
        lambda s: crm.add_line_item(s, s.get(Person, other_id), deal_id, s.scalar(select(Product.id)), quantity=3),
        lambda s: crm.move_stage(s, s.get(Person, other_id), deal_id, "Proposal"),
        lambda s: crm.move_stage(s, s.get(Person, other_id), deal_id, "Closed Lost", loss_reason="No Budget"),
        lambda s: crm.reopen(s, s.get(Person, other_id), deal_id, "Negotiation"),
    ]
    for step in steps:
        with episode.session() as session:
            step(session)
        assert_in_step(episode)
    with episode.session() as session:
        assert totals(session)[(other_id, "Negotiation")][0] >= 1
    # Writes that bypass the services (a bulk update, a delete) are kept in step as well.
    with episode.session() as session:
        session.execute(update(Opportunity).where(Opportunity.owner_id == rep_id)
                        .values(probability=Opportunity.probability + 1))
    assert_in_step(episode)
    with episode.session() as session:
        session.execute(delete(LineItem).where(LineItem.opportunity_id == deal_id))
        session.execute(delete(Opportunity).where(Opportunity.id == deal_id))
    assert_in_step(episode)


def test_a_failed_write_leaves_the_totals_as_they_were(small_episode):
    with small_episode.session() as session:
        before = totals(session)
        rep, _ = sales_people(session)
        deal_id = session.scalar(select(Opportunity.id).where(Opportunity.owner_id == rep.id,
                                                              Opportunity.stage == "Prospecting"))
    try:
        with small_episode.session() as session:
            crm.update_opportunity(session, session.get(Person, rep.id), deal_id, amount=1)
            raise RuntimeError("the caller fails after the write")
    except RuntimeError:
        pass
    with small_episode.session() as session:
        assert totals(session) == before


def test_the_report_from_the_totals_matches_the_report_summed_from_the_deals(small_episode):
    with small_episode.session() as session:
        admin = session.scalar(select(Person).where(Person.role == "admin"))
        for group_by in ("stage", "owner"):
            for stages in ("open", "closed", "all"):
                kept = crm.pipeline_report(session, admin, group_by=group_by, stages=stages, limit=200)
                # A quarter wide enough for every deal makes the report sum the deals themselves.
                summed = [crm.pipeline_report(session, admin, group_by=group_by, stages=stages, limit=200,
                                              quarter=f"{year}-Q{q}") for year in (2024, 2025, 2026, 2027)
                          for q in (1, 2, 3, 4)]
                by_key: dict[str, list[int]] = {}
                for report in summed:
                    for row in report.page.items:
                        acc = by_key.setdefault(row.key, [0, 0])
                        acc[0], acc[1] = acc[0] + row.count, acc[1] + row.amount_cents
                assert {r.key: [r.count, r.amount_cents] for r in kept.page.items} == by_key
                assert kept.count == sum(n for n, _ in by_key.values()) > 0
