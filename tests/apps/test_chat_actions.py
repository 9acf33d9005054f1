"""Chat forms that write: each POST goes through the services and changes the database."""

from __future__ import annotations

from sqlalchemy import select
from ui_helpers import channel, count, message_ids, person, text_of, top_message

from officegym.apps.chat import services
from officegym.apps.chat.models import Channel, Membership, Mention, Message, Pin, Reaction
from officegym.apps.org.models import Person
from officegym.journal import JournalEntry


def test_post_a_message_with_a_mention(browser, owner):
    response = browser.post("/chat/c/general/messages", {"text": "Hello @ryan.carr, lunch?"})
    assert response.status_code == 303
    with browser.db() as db:
        posted = db.scalars(select(Message).where(Message.author_id == owner.id).order_by(Message.id.desc())).first()
        assert (posted.text, posted.author_id, posted.channel.name) == ("Hello @ryan.carr, lunch?", owner.id, "general")
        assert count(db, Mention, Mention.message_id == posted.id) == 1
        journal = db.scalars(select(JournalEntry).order_by(JournalEntry.seq.desc()).limit(1)).all()
        assert [(e.action, e.surface) for e in journal] == [("chat.post_message", "ui")]  # no answer yet: none is due
    assert browser.post("/chat/c/general/wait", {"minutes": "480"}).status_code == 303
    with browser.db() as db:
        journal = db.scalars(select(JournalEntry).order_by(JournalEntry.seq.desc()).limit(2)).all()
        assert [(e.action, e.surface) for e in journal] == [("chat.wait", "ui"), ("chat.post_message", "colleague")]
        # @ryan.carr answered in the message's thread once their answer fell due (a colleague: officegym.colleagues)
        answer = db.scalars(select(Message).order_by(Message.id.desc())).first()
        assert answer.thread_parent_id == posted.id and answer.text.startswith(f"@{owner.handle} ")
    assert response.headers["Location"].endswith(f"/chat/m/{posted.id}")
    landing = browser.get(f"/chat/m/{posted.id}", follow_redirects=True)
    assert f'data-message-id="{posted.id}"' in text_of(landing)


def test_reply_in_a_thread(browser, owner):
    with browser.db() as db:
        parent = top_message(db, "general")
    response = browser.post("/chat/c/general/messages", {"text": "On it.", "thread_parent_id": str(parent.id)})
    assert response.status_code == 303
    with browser.db() as db:
        reply = db.scalars(select(Message).order_by(Message.id.desc())).first()
        assert (reply.text, reply.thread_parent_id) == ("On it.", parent.id)
    thread = browser.get(f"/chat/c/general/t/{parent.id}")
    assert f'data-message-id="{reply.id}"' in text_of(thread)


def test_edit_own_message_through_the_edit_form(browser, owner):
    with browser.db() as db:
        mine = services.post_message(db, owner, "general", "Teh plan")
    form = text_of(browser.get(f"/chat/m/{mine.id}/edit"))
    assert 'data-testid="edit-form"' in form and ">Teh plan</textarea>" in form
    assert browser.post(f"/chat/m/{mine.id}/edit", {"text": "The plan"}).status_code == 303
    with browser.db() as db:
        edited = db.get(Message, mine.id)
        assert edited.text == "The plan" and edited.edited_at is not None
    assert 'data-testid="message-edited"' in text_of(browser.get(f"/chat/m/{mine.id}", follow_redirects=True))


def test_delete_own_message(browser, owner):
    with browser.db() as db:
        mine = services.post_message(db, owner, "general", "oops, wrong channel")
    assert browser.post(f"/chat/m/{mine.id}/delete").status_code == 303
    with browser.db() as db:
        gone = db.get(Message, mine.id)
        assert gone.deleted_at is not None and gone.text == ""


def test_reaction_chip_toggles_and_picker_adds(browser, owner):
    with browser.db() as db:
        target = top_message(db, "general", not_author_id=owner.id)
    picker = text_of(browser.get(f"/chat/m/{target.id}/react"))
    assert 'data-testid="pick-tada"' in picker and 'data-testid="react-form"' in picker
    assert browser.post(f"/chat/m/{target.id}/reactions", {"emoji": ":tada:"}).status_code == 303
    with browser.db() as db:
        assert count(db, Reaction, Reaction.message_id == target.id, Reaction.person_id == owner.id,
                     Reaction.emoji == "tada") == 1
    page = text_of(browser.get(f"/chat/m/{target.id}", follow_redirects=True))
    assert 'aria-pressed="true"' in page and 'data-emoji="tada"' in page
    assert browser.post(f"/chat/m/{target.id}/reactions/remove", {"emoji": "tada"}).status_code == 303
    with browser.db() as db:
        assert count(db, Reaction, Reaction.message_id == target.id, Reaction.person_id == owner.id,
                     Reaction.emoji == "tada") == 0


def test_pin_and_unpin(browser, owner):
    with browser.db() as db:
        target = db.scalars(select(Message).join(Channel).where(
            Channel.name == "general", Message.thread_parent_id.is_(None), Message.deleted_at.is_(None),
            Message.id.not_in(select(Pin.message_id)))).first()
    assert browser.post(f"/chat/m/{target.id}/pin").status_code == 303
    with browser.db() as db:
        assert count(db, Pin, Pin.message_id == target.id, Pin.pinned_by_id == owner.id) == 1
    assert target.id in message_ids(browser.get("/chat/c/general/pins"))
    assert browser.post(f"/chat/m/{target.id}/unpin").status_code == 303
    with browser.db() as db:
        assert count(db, Pin, Pin.message_id == target.id) == 0


def test_create_private_channel_with_members(browser, owner):
    with browser.db() as db:
        invitee = person(db, "member")
    response = browser.post("/chat/channels/new", {"name": "Launch-Plan", "is_private": "1", "topic": "Launch",
                                                    "purpose": "Plan the launch", "members": f"@{invitee.handle}"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/chat/c/launch-plan#latest")
    with browser.db() as db:
        created = channel(db, "launch-plan")
        assert (created.kind, created.topic, created.purpose) == ("private", "Launch", "Plan the launch")
        members = set(db.scalars(select(Membership.person_id).where(Membership.channel_id == created.id)))
        assert members == {owner.id, invitee.id}


def test_channel_details_update_topic_purpose_and_rename(browser):
    assert browser.post("/chat/c/random/update", {"topic": "Cats only"}).status_code == 303
    assert browser.post("/chat/c/random/update", {"purpose": "Off-topic chatter"}).status_code == 303
    renamed = browser.post("/chat/c/random/update", {"name": "water-cooler"})
    assert renamed.headers["Location"].endswith("/chat/c/water-cooler/details")
    with browser.db() as db:
        found = channel(db, "water-cooler")
        assert (found.topic, found.purpose) == ("Cats only", "Off-topic chatter")
    details = text_of(browser.get("/chat/c/water-cooler/details"))
    assert 'data-testid="details-topic">Cats only<' in details


def test_archive_and_unarchive_as_admin(browser):
    assert browser.post("/chat/c/security/archive").status_code == 303
    with browser.db() as db:
        assert channel(db, "security").is_archived
    assert browser.post("/chat/c/security/unarchive").status_code == 303
    with browser.db() as db:
        assert not channel(db, "security").is_archived


def test_join_leave_invite_and_remove(browser, owner):
    with browser.db() as db:
        public = db.scalars(select(Channel).where(Channel.kind == "public", Channel.is_archived.is_(False),
                                                  Channel.id.not_in(select(Membership.channel_id).where(
                                                      Membership.person_id == owner.id)))).first()
        name = public.name
        outsider = person(db, "member", not_in=public)
    assert browser.post(f"/chat/c/{name}/join").status_code == 303
    with browser.db() as db:
        assert services.is_member(db, channel(db, name), owner)
    members_page = text_of(browser.get(f"/chat/c/{name}/members"))
    assert 'data-testid="invite-form"' in members_page and 'data-testid="people-picker"' in members_page
    assert browser.post(f"/chat/c/{name}/invite", {"people": f"@{outsider.handle}"}).status_code == 303
    with browser.db() as db:
        assert services.is_member(db, channel(db, name), outsider)
    assert browser.post(f"/chat/c/{name}/remove", {"person": outsider.handle}).status_code == 303
    assert browser.post(f"/chat/c/{name}/leave").status_code == 303
    with browser.db() as db:
        found = channel(db, name)
        assert not services.is_member(db, found, outsider) and not services.is_member(db, found, owner)


def test_open_dm_and_group_dm_from_picked_people(browser, owner):
    with browser.db() as db:
        a, b = db.scalars(select(Person).where(Person.id != owner.id).order_by(Person.id.desc())).all()[:2]
    # Two ticked checkboxes (the picker) open a group DM...
    group = browser.post("/chat/dms/open", {"people": [f"@{a.handle}", f"@{b.handle}"]})
    # ...and a typed name opens a DM.
    single = browser.post("/chat/dms/open", {"people": a.name})
    with browser.db() as db:
        group_dm = channel(db, services.conversation_name([owner, a, b]))
        dm = channel(db, services.conversation_name([owner, a]))
        assert (group_dm.kind, dm.kind) == ("group_dm", "dm")
    assert group.headers["Location"].endswith(f"/chat/c/{group_dm.name}#latest")
    assert single.headers["Location"].endswith(f"/chat/c/{dm.name}#latest")
    page = text_of(browser.get(f"/chat/c/{dm.name}"))
    assert f'data-testid="channel-name">{a.name}<' in page and 'data-testid="composer"' in page


def test_mark_read_button(browser, owner):
    with browser.db() as db:
        unread = services.list_unreads(db, owner)[0]
    assert browser.post(f"/chat/c/{unread.name}/read").status_code == 303
    with browser.db() as db:
        assert services.unread_counts(db, owner).get(unread.id, 0) == 0
