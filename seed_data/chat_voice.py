"""How each person writes in chat: the same everyday reply ("Thanks!", "No worries", "Works for
me") comes out in a person's own words and habits (a favourite phrasing, a greeting, whether they
address people by name, end on an emoji or write casually), so that a channel reads as written by
people and not as one template under many names.

A voice changes only the wording around a message's content: names, keys, numbers and facts are
kept as they are. Each voice draws from a generator of its own, seeded by the company and the
person, so the world stays the same for the same seed whatever else changes in the chat plan."""

from __future__ import annotations

import re
import zlib
from random import Random

# Replies that say the same thing; a person has a favourite of each group and now and then uses
# another. A line is matched whole (case and final punctuation aside).
SAME_REPLY = [
    ["Thanks!", "Thank you!", "Thanks a lot!", "Much appreciated!", "Cheers!", "Thx!", "Many thanks!",
     "Thanks so much!", "Appreciate it!", "Thank you, that helps!"],
    ["No worries", "No problem.", "All good", "Not a problem", "No stress at all", "Don't worry about it",
     "It's fine, really", "Happens to all of us"],
    ["Sure", "Sure, go ahead", "Of course", "Sure thing", "Absolutely", "Yep, go for it", "Please do"],
    ["Works for me", "Fine by me", "That works", "Perfect", "Sounds good", "Sounds good to me.", "Good for me"],
    ["+1", "Agreed.", "Same here.", "Seconded.", "Yes to this.", "Fully agree."],
    ["Noted.", "Got it.", "Understood.", "Ack, thanks.", "Copy that.", "Noted, thanks."],
    ["Makes sense.", "That makes sense.", "Fair enough.", "Right, makes sense.", "Ok, that tracks."],
    ["Nice!", "Great!", "Awesome!", "Love it!", "Excellent!", "Brilliant!", "Great, thank you!"],
    ["Will do.", "On it.", "Will do!", "Sure, will do.", "I'll do that.", "Doing it now."],
    ["Good call.", "Good point.", "Good idea.", "Smart move.", "Yes, good call."],
    ["Joining now", "Coming!", "On my way", "Be right there", "Joining in a sec", "Omw"],
    ["I'm in", "Count me in", "I'm in!", "Sign me up", "Yes please, I'm in"],
    ["Following", "Following this thread.", "Watching this one.", "Subscribing.", "Keen to hear the answer."],
    ["Thanks for sharing.", "Thanks for the heads-up.", "Good to know, thanks.", "Useful, thanks for posting.",
     "Thanks for flagging."],
    ["Nice progress!", "Great progress!", "Looking good!", "Good stuff!", "Nice, keep it going!", "Moving nicely!"],
    ["Let me know if you need help with the exec sponsor", "Happy to help with the exec sponsor if useful",
     "Shout if you need me with the exec sponsor", "I know their exec sponsor a bit, ping me",
     "Need a hand with the exec sponsor?"],
    ["Go go go", "Let's go!", "Go get it!", "Keep pushing!", "Almost there!"],
    ["Sure, how about after lunch?", "Sure, after lunch?", "After lunch ok?", "Yes, after lunch works?",
     "Sure, early afternoon?"],
    ["Can't make it this week, have fun!", "Skipping this one, have fun!", "Not this time, enjoy!",
     "Out this week, next time!", "Can't join, have a good one!"],
    ["Perfect, I'll send an invite.", "Great, invite coming.", "Perfect, sending the invite.",
     "Good, I'll put it in the calendar."],
    ["I'll take the first blocker.", "First blocker is mine.", "I can take the first blocker.",
     "Taking the first blocker."],
    ["Let's discuss in tomorrow's sync.", "Let's take it to tomorrow's sync.", "Tomorrow's sync?",
     "Can we cover this at the sync tomorrow?"],
    ["Yes, I'll reach out today.", "Will reach out today.", "On it, I'll contact them today.",
     "Yes, reaching out this afternoon."],
    ["Not that I know of.", "Not as far as I know.", "Don't think so.", "Not that I've heard."],
    ["I'll take a look this afternoon.", "I'll look this afternoon.", "Will check after lunch.",
     "Let me look into it later today."],
    ["Looping in my team on this.", "Pulling my team in.", "Adding my team to this.", "Flagging to my team."],
    ["Let me know if I can help.", "Happy to help if needed.", "Shout if I can help.", "Here if you need a hand."],
    ["Same question here.", "+1, I'd like to know too.", "Wondering the same.", "Same here, curious.",
     "Also keen to know."],
    ["Good question.", "Great question.", "Good one.", "Also curious about this."],
]
FILLERS = ["Ok, ", "Oh, ", "Right, ", "Ah, ", "Hmm, ", "So, ", "Honestly, "]
GREETINGS = ["", "", "Hey {first}, ", "Hi {first}! ", "Hey! ", "Morning {first}! ", "Hi! ", "Quick q: "]
EMOJI_HABITS = [" :)", " 🙂", " 👍", " 🙏", " 😅", " :D", " 🎉", " ✨"]
THANKS_GROUP = 0


def _bare(phrase: str) -> str:
    """A phrase without its final punctuation."""
    return re.sub(r"[.!?]+$", "", phrase)


def _lowered(text: str) -> str:
    """Text with a lower-case first letter."""
    return text[:1].lower() + text[1:]


_GROUP_OF = {}
for _index, _group in enumerate(SAME_REPLY):
    for _phrase in _group:
        _GROUP_OF.setdefault(_bare(_phrase).lower(), _index)
# First words a casual writer lower-cases; any other (a name, a key, "I") keeps its case.
_STARTERS = {re.sub(r"\W", "", phrase.split()[0]).lower() for group in SAME_REPLY for phrase in group} | {
    "the", "yes", "ok", "okay", "can", "could", "would", "will", "is", "are", "do", "does", "did", "just",
    "quick", "running", "approved", "deal", "who", "what", "when", "where", "how", "why", "anytime", "congrats",
    "looping", "not", "let", "lets", "looks", "happy", "that", "this", "we", "you", "it", "all", "any", "also",
    "sorry", "still", "checked", "added", "deployed", "left", "addressed", "blocked", "unblocked", "tried",
    "adding", "waiting", "picking", "finished", "dropping", "update", "heads", "reminder", "welcome", "there",
    "here", "hey", "hi", "morning", "yeah", "nope", "maybe", "sounds", "works", "got", "posted", "done"}


class Voice:
    """One person's way of writing."""

    def __init__(self, company: str, person_id: int):
        self.rng = Random(f"voice:{company}:{person_id}")
        rng = self.rng
        self.favourite = [rng.randrange(len(group)) for group in SAME_REPLY]
        self.loyalty = rng.uniform(0.55, 0.9)  # how often the favourite phrasing is the one used
        self.greeting = rng.choice(GREETINGS)
        self.by_name = rng.random() < 0.35  # "Thanks, Ana!"
        self.emoji = rng.choice(EMOJI_HABITS) if rng.random() < 0.4 else ""
        self.emoji_rate = rng.uniform(0.15, 0.5)
        self.casual = rng.random() < 0.2  # lower-case first letter, no final full stop
        self.taste = rng.randrange(1 << 30)  # which of several wordings this person favours
        self.filler = rng.choice(FILLERS) if rng.random() < 0.6 else ""  # "Ok, sure, ..."
        self.filler_rate = rng.uniform(0.2, 0.5)

    def pick(self, wordings: list[str]) -> str:
        """One of several wordings of a turn: the person's favourite, now and then another."""
        if self.rng.random() < self.loyalty:
            return wordings[(self.taste + zlib.crc32(wordings[0].encode())) % len(wordings)]
        return self.rng.choice(wordings)

    def reply(self, text: str, addressee: str | None = None) -> str:
        """An everyday reply said this person's way (other text is only touched up, see `touch`)."""
        group = _GROUP_OF.get(_bare(text.strip()).lower())
        if group is None:
            if self.filler and _lowers(text) and self.rng.random() < self.filler_rate:
                text = self.filler + _lowered(text)
            return self.touch(text)
        choices = SAME_REPLY[group]
        index = self.favourite[group] if self.rng.random() < self.loyalty else self.rng.randrange(len(choices))
        said = choices[index]
        if group == THANKS_GROUP and addressee and self.by_name:
            said = f"{_bare(said)}, {addressee}!"
        return self.touch(said)

    def opening(self, text: str, addressee: str | None) -> str:
        """The first line of a conversation, with this person's greeting."""
        greeting = self.greeting.format(first=addressee or "").replace(" ,", ",").replace(" !", "!")
        already = re.match(r"(hey|hi|hello|morning)\b", text, re.I) or (addressee and text.startswith(addressee))
        question_only = greeting.startswith("Quick q") and not text.rstrip().endswith("?")
        if already or question_only or (greeting.strip() in ("Hey,", "Hi!", "Morning!") and not addressee):
            greeting = ""
        if greeting.endswith(", ") and _lowers(text):
            text = _lowered(text)
        return self.touch(greeting + text)

    def touch(self, text: str) -> str:
        """Habits that change no content: a casual first letter and full stop, an emoji now and then."""
        if self.casual and _lowers(text):
            text = _lowered(text)
            if text.endswith(".") and not text.endswith(".."):
                text = text[:-1]
        if self.emoji and self.rng.random() < self.emoji_rate and not text.endswith(("?", ":)", ":(")):
            text += self.emoji
        return text


def _lowers(text: str) -> bool:
    """Whether the first word may be written in lower case (a common word, not a name or key)."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first[:1].isupper() and re.sub(r"\W", "", first).lower() in _STARTERS


def voice_of(org, person_id: int) -> Voice:
    """The person's voice (one per world: its generator goes on where the last message left it)."""
    return org.cached(("voice", person_id), lambda: Voice(org.company, person_id))


def first_name(org, person_id: int) -> str:
    """The first name people address someone by."""
    return org.person(person_id).name.split()[0]
