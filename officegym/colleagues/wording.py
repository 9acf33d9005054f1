"""How a colleague words a reply: several wordings of every kind of sentence, and each person's
favourite among them (from the seeded chat voices of `seed_data.chat_voice`), so two people never
answer one message with the same sentence and a person sounds the same from one reply to the next.

The choice is a function of the person and the sentence kind only (no draw that depends on the
message), so the same question in the same state gets the same reply every run.
"""

from __future__ import annotations

import re
import zlib

from officegym.seed_data.chat_voice import Voice

VOICE_COMPANY = "colleagues"  # the voices' seed: one voice per person, the same in every episode

# Each kind: wordings with {fields} the caller fills. Every pool has more wordings than a message
# has repliers (colleagues.MAX_REPLIERS), so each replier can take one nobody used yet.
WORDINGS: dict[str, list[str]] = {
    "state": ["{state}", "Latest I have: {state}", "From my side: {state}", "Here's where it stands: {state}",
              "Quick update: {state}", "Current picture: {state}"],
    "unknown": ["I don't know about {what}.", "No idea about {what}, sorry.", "{what} isn't something I work on.",
                "I haven't been involved in {what}.", "Nothing from me on {what}: not my area.",
                "Can't help with {what}, I'm not on it."],
    "redirect": ["I don't know about {what}; {who} would.", "Not mine: {who} knows {what} better.",
                 "For {what}, try {who}.", "{who} is the one to ask about {what}.",
                 "I'm not across {what}; {who} is.", "Best ask {who} about {what}."],
    "unseen": ["I can't find {what} among the tickets you can see.",
               "{what} doesn't show up among the tickets you can see; check the key?",
               "No ticket {what} that you can see, as far as I can tell.",
               "I can't find {what} in anything you have access to; is the key right?",
               "Nothing I can share on {what}: it isn't among the tickets you can see.",
               "I don't see {what} among the tickets open to you."],
    "sales_only": ["I can't share deal details outside Sales: the CRM shows you accounts and contacts "
                   "(see \"{article}\").",
                   "Deals stay with Sales, sorry; outside Sales you can read accounts and contacts "
                   "(\"{article}\").",
                   "That's Sales-only data: per \"{article}\" I can't pass deal details on outside Sales.",
                   "Deal details are for the Sales team; \"{article}\" has the rule. Accounts and contacts "
                   "you can read yourself.",
                   "I'd rather not: deal data stays in Sales (\"{article}\").",
                   "Sorry, deal details are Sales-only (\"{article}\"); the account itself you can look up."],
    "amounts_elsewhere": ["Amounts go in #deals, so not here.", "I'll keep the figure for #deals.",
                          "The amount is for #deals, not this conversation.",
                          "Ask in #deals for the amount: that's where we discuss figures.",
                          "Figures only in #deals, per the handbook.", "The number itself belongs in #deals."],
    "private_ticket": ["{what} is a private service-desk request; ask me in a DM.",
                       "{what} is a desk request and private: DM me.",
                       "I can't discuss {what} here, desk requests are private. DM me?",
                       "Service-desk requests like {what} stay private: message me directly.",
                       "Not here: {what} is private to the desk. A DM works.",
                       "{what} is a private request; let's take it to a DM."],
    "not_yours": ["I decide discount requests when the deal's owner or the requester asks; "
                  "for {what} that isn't you.",
                  "The request on {what} is decided when its owner or requester asks me.",
                  "For {what}, I need the ask to come from the deal's owner or the person who requested it.",
                  "I'll take {what} up with its owner or the requester, not on your word.",
                  "Only the deal owner or the requester can ask me to decide on {what}.",
                  "{what}'s request: I act on it when its owner or requester asks."],
    "directory": ["Not someone I work with, but the directory has it: {state}",
                  "I don't know them personally; per the directory, {state}",
                  "Only what the directory says: {state}", "We haven't worked together. Directory: {state}",
                  "Not on my team, but here's the directory entry: {state}",
                  "Don't know them well; the directory says {state}"],
    "which": ["Which {thing} do you mean? {hint}", "Sure, which {thing} is this about? {hint}",
              "Happy to help: which {thing}? {hint}", "Can you tell me which {thing} you mean? {hint}",
              "Which {thing} exactly? {hint}", "Which {thing} are we talking about? {hint}"],
    "what_about": ["Sure, what is it about? A ticket key or a deal or account name helps.",
                   "What's this about? Give me the ticket key, or the deal or account name.",
                   "Happy to help: which ticket, deal or account is it?",
                   "Sure, go ahead: which record is this about (a key or a name)?",
                   "What do you need? Name the ticket, deal or account and I'll check.",
                   "Of course, what is it? Send me the key or the name."],
    "handover": ["Got it, I have it from here.", "Confirmed, taking it over.", "Thanks, it's mine now.",
                 "Ack, I've got it.", "Taking over, thanks.", "Confirmed, I'm on it."],
}
# Words that make a message about deals (so a decline never depends on whether a hidden deal exists).
DEAL_WORDS = ("deal", "opportunity", "discount", "quote", "renewal", "pipeline", "forecast")
# What a question is about when it names no record, by the words it uses (first match wins).
THINGS = [(("ticket", "incident", "request", "issue", "bug", "outage"), "ticket", "Its key (like IT-123) helps."),
          (DEAL_WORDS, "deal", "Its name, please."),
          (("account", "customer", "client"), "account", "Its name, please."),
          (("who", "someone", "person", "colleague", "hire"), "person", "Their name or @handle?")]


class Speaker:
    """One colleague's way of wording the sentences of a reply."""

    def __init__(self, person_id: int):
        self.voice = Voice(VOICE_COMPANY, person_id)

    def say(self, kind: str, used: set[str], **fields) -> str:
        """A sentence of `kind` in this person's favourite wording, or the next one no one used yet."""
        pool = WORDINGS[kind]
        first = (self.voice.taste + zlib.crc32(kind.encode())) % len(pool)
        for step in range(len(pool)):
            said = self._touch(pool[(first + step) % len(pool)].format(**fields))
            if said not in used:
                used.add(said)
                return said
        return said

    def _touch(self, text: str) -> str:
        """The person's casual habit (a lower-case first common word), which changes no content."""
        if self.voice.casual and text[:1].isupper() and text.split()[0].lower() in ("i", "sure", "can", "which",
                                                                                    "got", "thanks", "taking"):
            return text if text.startswith("I ") or text.startswith("I'") else text[:1].lower() + text[1:]
        return text


def uses_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether the text uses one of the words, singular or plural ("opportunity", "opportunities")."""
    used = set(re.findall(r"[a-z]+", text.lower()))
    return any(word in used or word + "s" in used or (word.endswith("y") and word[:-1] + "ies" in used)
               for word in words)


def thing_asked(text: str) -> tuple[str, str] | None:
    """What a question that names no record seems to be about (the thing, a hint), or None."""
    for words, thing, hint in THINGS:
        if uses_any(text, words):
            return thing, hint
    return None
