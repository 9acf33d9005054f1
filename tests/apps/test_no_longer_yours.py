"""What happens once a record is no longer yours, through the services: the person who hands a
service-desk ticket over to a group they are not in keeps sight of it and may still write on it
(comments and work notes) but not change it; and a record you worked on and can no longer see (a
ticket you no longer watch, a private channel you left, a workbook no longer shared with you) is
refused with that reason, where one you never had stays "not found" (its existence does not leak).
Every refusal leaves the database as it was."""

from __future__ import annotations

from sqlalchemy import select
from test_tickets_services import CREW, DESK, NIGHTS, act, build_scene, refused

from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.access import read_filter
from officegym.apps.tickets.models import Ticket
from officegym.errors import Forbidden, NotFound


def visible(episode, who: int) -> set[str]:
    """The keys of the desk's tickets that `who` finds by search and by the read filter (the same set)."""
    with episode.session() as s:
        actor = s.get(Person, who)
        searched = {t.key for t in tickets.search_tickets(s, actor, f"project = {DESK}", 0, 200).items}
        filtered = set(s.scalars(select(Ticket.key).where(read_filter(s, actor), Ticket.key.like(f"{DESK}-%"))))
    assert searched == filtered
    return searched


def test_whoever_hands_a_ticket_over_keeps_sight_of_it_and_may_still_write_on_it(episode):
    ep, c = build_scene(episode)
    key = act(ep, c.outsider, tickets.create_ticket, DESK, "Incident", "Payroll app down")
    act(ep, c.desk_lead, tickets.assign_ticket, key, group=CREW)
    assert key in visible(ep, c.crew)  # the engineer works it through the group, not as an HD agent
    act(ep, c.crew, tickets.assign_ticket, key, group=NIGHTS)  # handed to a group the engineer is not in
    assert key in visible(ep, c.crew)
    assert act(ep, c.crew, tickets.get_ticket, key) == key
    act(ep, c.crew, tickets.add_work_note, key, "Handed over to Nights: the payroll vendor answers at 22:00")
    act(ep, c.crew, tickets.add_comment, key, "The night shift has it now")
    notes = [(m.body, m.internal) for m in act(ep, c.crew, tickets.list_comments, key).items]
    assert notes == [("Handed over to Nights: the payroll vendor answers at 22:00", True),
                     ("The night shift has it now", False)]
    message = refused(ep, Forbidden, c.crew, tickets.update_ticket, key, summary="Payroll fixed")
    assert message.endswith("You handed it over: you still see it and may comment and add work notes.")
    assert "You cannot assign" in refused(ep, Forbidden, c.crew, tickets.assign_ticket, key, group=CREW)
    assert key not in visible(ep, c.watcher)  # nobody else gains sight


def test_a_ticket_you_worked_on_and_no_longer_see_is_refused_with_that_reason(episode):
    ep, c = build_scene(episode)
    key = act(ep, c.outsider, tickets.create_ticket, DESK, "Service Request", "New badge")
    act(ep, c.desk_lead, tickets.watch_ticket, key, c.watcher)
    act(ep, c.watcher, tickets.add_comment, key, "I need one too")
    act(ep, c.watcher, tickets.unwatch_ticket, key)
    message = refused(ep, NotFound, c.watcher, tickets.get_ticket, key)
    assert message.startswith(f"You no longer see {key}: service desk tickets are private")
    assert "Ask its assignment group" in message
    never = refused(ep, NotFound, c.reporter, tickets.get_ticket, key)  # never theirs: no word of it
    assert never == f"No ticket {key} that you can see. Use tickets_search_tickets to find tickets."


def test_a_private_channel_you_left_is_refused_with_that_reason(episode):
    with episode.session() as s:
        first, second, third = s.scalars(select(Person.id).where(Person.role != "owner").order_by(Person.id).limit(3))
    channel = act(episode, first, chat.create_channel, "war-room", True, members=[second]).id
    posted = act(episode, second, chat.post_message, "war-room", "I'm on it").id
    act(episode, second, chat.leave_channel, "war-room")
    for fn, args in ((chat.get_channel, ("war-room",)), (chat.get_channel, (channel,)), (chat.get_message, (posted,)),
                     (chat.post_message, ("war-room", "back?"))):
        message = refused(episode, NotFound, second, fn, *args)
        assert message == ("You are no longer a member of #war-room, a private channel, so you cannot see it; "
                           "a member must add you back.")
    assert "Channel 'war-room' not found" in refused(episode, NotFound, third, chat.get_channel, "war-room")
    assert "not found in any conversation you can see" in refused(episode, NotFound, third, chat.get_message, posted)


def test_a_workbook_no_longer_shared_with_you_is_refused_with_that_reason(episode):
    with episode.session() as s:
        owner = s.scalar(select(Person).where(Person.role == "owner"))
        owner_id, owner_name, handle = owner.id, owner.name, owner.handle
        editor, stranger = s.scalars(select(Person.id).where(Person.id != owner_id).order_by(Person.id).limit(2))
    book = act(episode, owner_id, sheets.create_workbook, "Launch Budget").id
    act(episode, owner_id, sheets.share_workbook, book, editor, "editor")
    act(episode, editor, sheets.write_cells, book, [{"cell": "A1", "value": "Venue"}])
    act(episode, owner_id, sheets.unshare_workbook, book, editor)
    for ref in (book, str(book), "launch budget"):
        message = refused(episode, NotFound, editor, sheets.get_workbook, ref)
        assert message == (f"'Launch Budget' is no longer shared with you: ask its owner, {owner_name} (@{handle}), "
                           "to share it again.")
    assert "No workbook 'Launch Budget' that you can see" in refused(episode, NotFound, stranger, sheets.get_workbook,
                                                                     "Launch Budget")
