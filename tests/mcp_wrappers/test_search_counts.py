"""Searches over tables that grow with the company count their matches only up to a bound: the
page says when its total is a lower bound, paging still reaches every match exactly once, and the
last page counts exactly. A short last page needs no count at all. The bound is lowered here
(COUNT_STEP is read at each call) so that a tiny world has more matches than it."""

from __future__ import annotations

from sqlalchemy import event, func, or_, select

from officegym import pagination
from officegym.apps.chat import services as chat
from officegym.apps.crm.models import Account, Contact


def every_page(agent, tool: str, args: dict, limit: int) -> list[dict]:
    """Each page of a search, following next_offset to the end."""
    pages, offset = [], 0
    while offset is not None:
        pages.append(agent.ok(tool, {**args, "offset": offset, "limit": limit}))
        offset = pages[-1]["next_offset"]
    return pages


def test_chat_search_counts_to_the_bound_and_pages_reach_every_match(agent, monkeypatch):
    posted = agent.scene(lambda s, o, m, x: [chat.post_message(s, o, chat.create_channel(s, o, "zz-bulk").id
                                                               if i == 0 else "zz-bulk", f"wombat report {i}")
                                             for i in range(12)])
    monkeypatch.setattr(pagination, "COUNT_STEP", 5)
    pages = every_page(agent, "chat_search_messages", {"query": "wombat"}, 2)
    assert [(p["total"], p["total_is_exact"]) for p in pages[:2]] == [(5, False), (5, False)]
    assert (pages[2]["total"], pages[2]["total_is_exact"]) == (10, False)  # the next step once past the first
    assert (pages[-1]["total"], pages[-1]["total_is_exact"], pages[-1]["next_offset"]) == (12, True, None)
    found = [m["id"] for p in pages for m in p["items"]]
    assert found == [m.id for m in reversed(posted)]  # every match once, newest first
    monkeypatch.setattr(pagination, "COUNT_STEP", 1000)
    whole = agent.ok("chat_search_messages", {"query": "wombat", "limit": 20})
    assert (whole["total"], whole["total_is_exact"], whole["next_offset"]) == (12, True, None)


def test_a_short_last_page_is_counted_without_a_count_query(agent):
    agent.scene(lambda s, o, m, x: [chat.post_message(s, o, chat.create_channel(s, o, "zz-few").id
                                                      if i == 0 else "zz-few", f"numbat {i}") for i in range(3)])
    statements: list[str] = []
    listen = lambda conn, cursor, statement, *rest: statements.append(statement.lower())  # noqa: E731
    event.listen(agent.episode.engine, "before_cursor_execute", listen)
    try:
        got = agent.ok("chat_search_messages", {"query": "numbat", "limit": 20})
        deeper = agent.ok("chat_search_messages", {"query": "numbat", "offset": 2, "limit": 20})
        beyond = agent.ok("chat_search_messages", {"query": "numbat", "offset": 9, "limit": 20})
    finally:
        event.remove(agent.episode.engine, "before_cursor_execute", listen)
    assert (got["total"], len(got["items"]), deeper["total"], len(deeper["items"])) == (3, 3, 3, 1)
    assert (beyond["total"], beyond["items"], beyond["next_offset"]) == (3, [], None)  # past the end: counted
    assert sum(s.startswith("select count(*)") for s in statements) == 1  # only for the page past the end


def test_crm_search_shares_one_bound_across_record_types(agent, monkeypatch):
    with agent.episode.session() as s:
        term = "a"
        expected = sum(s.scalar(select(func.count()).select_from(model).where(where)) for model, where in (
            (Account, or_(Account.name.ilike(f"%{term}%"), Account.website.ilike(f"%{term}%"))),
            (Contact, or_((Contact.first_name + " " + Contact.last_name).ilike(f"%{term}%"),
                          Contact.email.ilike(f"%{term}%")))))
    monkeypatch.setattr(pagination, "COUNT_STEP", 4)
    args = {"query": term, "record_types": ["account", "contact"]}
    pages = every_page(agent, "crm_search_records", args, 3)
    assert expected > 8 and (pages[0]["total"], pages[0]["total_is_exact"]) == (4, False)
    assert (pages[-1]["total"], pages[-1]["total_is_exact"]) == (expected, True)
    hits = [(h["record_type"], h["id"]) for p in pages for h in p["items"]]
    assert len(hits) == len(set(hits)) == expected  # every record once
    assert [kind for kind, _ in hits] == sorted(kind for kind, _ in hits)  # accounts first, then contacts
