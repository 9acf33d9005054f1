"""The knowledge base through the real MCP client: writing, finding, reading and changing articles,
versions kept and readable, who may change what, and bad input that changes nothing. The articles
under test are written in the test (their titles start with "Zq"), never taken from the seeded
handbook."""

from __future__ import annotations

import re

from sqlalchemy import select

from officegym.apps.tickets.models import Article, ArticleVersion

RUNBOOK = {"title": "Zq printer jam runbook", "category": "IT",
           "body": "1. Open tray two.\n2. Remove the zqjam paper.\n3. Log a ticket in IT if it jams again."}


def _write(agent, **changes) -> dict:
    return agent.write("tickets_create_article", {**RUNBOOK, **changes}, "tickets.create_article")


def test_a_new_article_is_numbered_owned_by_its_writer_and_kept_as_version_one(member_agent, member_handle):
    made = _write(member_agent, note="We kept losing this")
    assert re.fullmatch(r"KB\d{7}", made["number"])
    assert made["owner"]["handle"] == member_handle and made["version"] == made["shown_version"] == 1
    assert made["body"] == RUNBOOK["body"]
    assert [(v["version"], v["note"], v["author"]["handle"]) for v in made["versions"]] == [
        (1, "We kept losing this", member_handle)]
    with member_agent.episode.session() as s:
        row = s.scalar(select(Article).where(Article.number == made["number"]))
        kept = s.scalars(select(ArticleVersion).where(ArticleVersion.article_id == row.id)).all()
        assert (row.title, row.category, row.version) == (RUNBOOK["title"], "IT", 1)
        assert [(v.version, v.body) for v in kept] == [(1, RUNBOOK["body"])]


def test_search_needs_every_word_ranks_title_matches_first_and_filters_by_category(agent):
    in_body = _write(agent, title="Zq toner policy", body="Order toner before a zqjam happens.")["number"]
    in_title = _write(agent, title="Zq zqjam escalation", body="Call the vendor.", category="Operations")["number"]
    both = _write(agent)["number"]  # "zqjam" and "tray" in its body
    found = agent.ok("tickets_search_articles", {"query": "zqjam"})
    assert [a["number"] for a in found["items"]] == [in_title, in_body, both]
    assert found["total"] == 3
    assert [a["number"] for a in agent.ok("tickets_search_articles", {"query": "ZQJAM tray"})["items"]] == [both]
    narrowed = agent.ok("tickets_search_articles", {"query": "zqjam", "category": "operations"})
    assert [a["number"] for a in narrowed["items"]] == [in_title]
    window = agent.ok("tickets_search_articles", {"query": "zqjam", "offset": 1, "limit": 1})
    assert [a["number"] for a in window["items"]] == [in_body] and window["total"] == 3
    assert "body" not in found["items"][0]


def test_an_article_is_found_by_number_title_or_id(agent):
    made = _write(agent)
    with agent.episode.session() as s:
        ident = s.scalar(select(Article.id).where(Article.number == made["number"]))
    for ref in (made["number"], made["number"].lower(), "zq PRINTER jam runbook", ident):
        assert agent.ok("tickets_get_article", {"article": ref})["number"] == made["number"]
    agent.fails("tickets_get_article", {"article": "KB9999999"}, "No article")
    agent.fails("tickets_get_article", {"article": "Zq nothing by this name"}, "tickets_search_articles")


def test_a_change_is_a_new_version_and_every_earlier_one_stays_readable(agent):
    number = _write(agent)["number"]
    changed = agent.write("tickets_update_article", {"article": number, "body": "1. Call facilities.",
                                                     "note": "Facilities own the printers now"},
                          "tickets.update_article")
    assert changed["version"] == 2 and changed["body"] == "1. Call facilities."
    assert [(v["version"], v["note"]) for v in changed["versions"]] == [
        (2, "Facilities own the printers now"), (1, "First version")]
    renamed = agent.ok("tickets_update_article", {"article": number, "title": "Zq printer runbook",
                                                  "category": "Operations"})
    assert (renamed["version"], renamed["title"], renamed["category"]) == (3, "Zq printer runbook", "Operations")
    old = agent.ok("tickets_get_article", {"article": number, "version": 1})
    assert (old["shown_version"], old["version"], old["title"], old["category"], old["body"]) == (
        1, 3, RUNBOOK["title"], "IT", RUNBOOK["body"])
    agent.fails("tickets_get_article", {"article": number, "version": 4}, "versions 1 to 3")
    agent.fails("tickets_get_article", {"article": number, "version": 0}, "versions 1 to 3")


def test_only_the_owner_or_an_admin_changes_an_article_and_ownership_can_be_handed_over(agent, member_handle):
    number = _write(agent)["number"]  # the workspace owner writes it
    handed = agent.ok("tickets_update_article", {"article": number, "owner": f"@{member_handle}",
                                                 "note": "You run the printers"})
    assert handed["owner"]["handle"] == member_handle and handed["version"] == 2
    assert agent.ok("tickets_update_article", {"article": number, "body": "An admin may still fix a typo."})[
        "version"] == 3


def test_a_plain_member_cannot_change_someone_elses_article(member_agent):
    seeded_by_other = member_agent.scene(lambda s, owner, member, other: _by(s, owner))
    member_agent.fails("tickets_update_article", {"article": seeded_by_other, "body": "Mine now."},
                       "Only " + seeded_by_other)


def _by(session, person) -> str:
    from officegym.apps.tickets import services
    return services.create_article(session, person, "Zq owner's article", "People", "Written by the owner.").number


def test_bad_input_is_refused_with_a_reason_and_changes_nothing(agent):
    number = _write(agent)["number"]
    agent.fails("tickets_create_article", {**RUNBOOK, "title": "zq PRINTER JAM RUNBOOK"}, f"{number} already has")
    fresh = {**RUNBOOK, "title": "Zq another runbook"}
    agent.fails("tickets_create_article", {**fresh, "title": "   "}, "Title is required")
    agent.fails("tickets_create_article", {**fresh, "category": "Gossip"}, "Category must be one of")
    agent.fails("tickets_create_article", {**fresh, "body": ""}, "Body is required")
    agent.fails("tickets_create_article", {**fresh, "body": "x" * 20_001}, "20000")
    agent.fails("tickets_update_article", {"article": number}, "leaves")
    agent.fails("tickets_update_article", {"article": number, "body": RUNBOOK["body"]}, "leaves")
    agent.fails("tickets_update_article", {"article": number, "owner": "@nobody-by-this-handle"}, "nobody")
    agent.fails("tickets_search_articles", {"query": "a b c d e f g h i"}, "at most 8 words")
    agent.fails("tickets_search_articles", {"category": "Gossip"}, "Category must be one of")
    agent.fails("tickets_search_articles", {"query": "x" * 201}, "200")
