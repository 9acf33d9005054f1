"""Every page is usable from its accessibility tree: ids are unique, every POST form carries the
CSRF token, every field has a label, every button has a name, and landmarks are present."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from sqlalchemy import select

from officegym.apps.chat import services
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Team

PAGES = ["/", "/act-as", "/org/", "/org/departments", "/org/people/{handle}", "/org/teams/{team}",
         "/org/departments/{department}", "/chat/c/general", "/chat/c/{thread_channel}/t/{thread}", "/chat/unreads",
         "/chat/mentions", "/chat/search?q=the", "/chat/channels", "/chat/channels/new", "/chat/c/general/details",
         "/chat/c/general/members", "/chat/c/general/pins", "/chat/dms", "/chat/m/{mine}/edit", "/chat/m/{mine}/react",
         "/chat/m/{mine}/delete", "/chat/c/random/archive",
         "/crm/", "/crm/opportunities", "/crm/opportunities/1", "/crm/accounts/1", "/crm/leads/1/convert",
         "/crm/cases/1", "/crm/opportunity/1/edit", "/crm/reports/pipeline", "/crm/search?q=a",
         "/crm/opportunities/board", "/crm/opportunities/1/close", "/crm/leads/1", "/crm/contacts/1",
         "/crm/account/1/edit", "/crm/case/new",
         "/tickets/", "/tickets/projects/ENG/board", "/tickets/projects/IT/board", "/tickets/search?q=project%20%3D%20IT",
         "/tickets/IT-1", "/tickets/ENG-1", "/tickets/IT-1/edit", "/tickets/ENG-1/edit", "/tickets/create?project=IT",
         "/tickets/create?project=ENG", "/tickets/kb", "/tickets/kb?q=policy&category=IT", "/tickets/kb/new",
         "/tickets/kb/KB0010001", "/tickets/kb/KB0010001/edit", "/tickets/projects/ENG/backlog",
         "/tickets/projects/ENG/board?q=assignee%20is%20EMPTY", "/tickets/IT-1?edit=assignee",
         "/tickets/ENG-1/transition?name=Close"]
FIELDS = ("input", "textarea", "select")


class PageAudit(HTMLParser):
    """Collects what the checks need in one pass over a page."""

    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.labels: set[str] = set()
        self.fields: list[dict] = []
        self.forms: list[dict] = []
        self.buttons: list[dict] = []
        self.landmarks: set[str] = set()
        self._label_depth = 0
        self._button: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag in ("main", "nav", "header"):
            self.landmarks.add(tag)
        if tag == "label":
            self._label_depth += 1
            if "for" in a:
                self.labels.add(a["for"])
        elif tag == "form":
            self.forms.append({"method": a.get("method", "get").lower(), "csrf": False, "action": a.get("action")})
        elif tag in FIELDS and a.get("type") not in ("hidden", "submit"):
            self.fields.append({**a, "wrapped": self._label_depth > 0})
        elif tag == "input" and a.get("name") == "csrf_token" and self.forms:
            self.forms[-1]["csrf"] = True
        elif tag == "button":
            self._button = {"aria": a.get("aria-label"), "text": ""}
            self.buttons.append(self._button)

    def handle_endtag(self, tag):
        if tag == "label":
            self._label_depth -= 1
        elif tag == "button":
            self._button = None

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data.strip()


@pytest.fixture
def names(browser) -> dict[str, str]:
    """Records the page paths refer to."""
    with browser.db() as db:
        owner = browser.episode.actor(db)
        replied = db.scalar(select(Message).where(Message.id.in_(
            select(Message.thread_parent_id).where(Message.thread_parent_id.is_not(None)))).order_by(Message.id))
        mine = services.post_message(db, owner, "general", "hello").id
        return {"handle": owner.handle, "team": db.scalars(select(Team.slug).order_by(Team.id)).first(),
                "department": owner.department.slug, "thread_channel": replied.channel.name,
                "thread": str(replied.id), "mine": str(mine)}


@pytest.mark.parametrize("path", PAGES)
def test_page_is_well_formed_and_labelled(browser, names, path):
    response = browser.get(path.format(**names))
    assert response.status_code == 200
    audit = PageAudit()
    audit.feed(response.get_data(as_text=True))
    duplicates = {i for i in audit.ids if audit.ids.count(i) > 1}
    assert not duplicates, f"duplicate ids: {duplicates}"
    assert {"main", "nav", "header"} <= audit.landmarks
    unlabelled = [f for f in audit.fields if not (f.get("id") in audit.labels or f.get("aria-label") or f["wrapped"])]
    assert not unlabelled, f"fields without a label: {unlabelled}"
    assert all(b["aria"] or b["text"] for b in audit.buttons), "a button has no accessible name"
    posts = [f for f in audit.forms if f["method"] == "post"]
    assert all(f["csrf"] for f in posts), [f["action"] for f in posts if not f["csrf"]]
