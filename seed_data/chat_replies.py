"""Conversations and thread replies in people's own voices: the turns of a DM exchange and the
short replies colleagues add to a busy thread."""

from __future__ import annotations

from datetime import datetime, timedelta

from . import scale_vocab, vocab
from .chat_text import Line, Scene
from .chat_voice import first_name, voice_of
from .org import PersonRec


def chatter(scene: Scene, lines: list[Line], rate: float, end: datetime) -> None:
    """A busy workspace: colleagues add short replies to a thread (`rate` more on average, now and
    then many more), never after the channel's last day."""
    rng = scene.rng
    count = 0
    while rng.random() < rate / (1 + rate):
        count += 1
    top, when, last = lines[0], max(line.at for line in lines), lines[-1].author_id
    pool = scale_vocab.CHATTER_ASKED if "?" in top.text else scale_vocab.CHATTER
    for _ in range(count):
        when += timedelta(minutes=rng.randint(2, 120), seconds=rng.randint(0, 59))
        if when > end:
            break
        speaker = scene.someone({last})
        said = voice_of(scene.org, speaker.id).reply(rng.choice(pool), first_name(scene.org, top.author_id))
        reply = Line(speaker.id, said, when, reply_to=top)
        if rng.random() < 0.2:
            reply.reactions.append((scene.someone({speaker.id}).id, rng.choice(vocab.EMOJI["ack"])))
        lines.append(reply)
        last = speaker.id


def render_exchange(scene: Scene, turns: list[list[str]], speakers: list[PersonRec]) -> list[Line]:
    """A DM or group-DM exchange: speakers take turns, never the same twice in a row, each turn in
    the wording its speaker favours."""
    out: list[Line] = []
    when, previous = scene.at, None
    scene.people["asker"] = speakers[0]
    scene.people["partner"] = speakers[1]
    for i, wordings in enumerate(turns):
        options = [p for p in speakers if p is not previous]
        speaker = speakers[0] if i == 0 else (speakers[1] if i == 1 else scene.rng.choice(options))
        voice = voice_of(scene.org, speaker.id)
        text = scene.fill(voice.pick(wordings))
        if i == 0:
            said = voice.opening(text, first_name(scene.org, speakers[1].id) if len(speakers) == 2 else None)
        else:
            said = voice.reply(text, first_name(scene.org, previous.id))
        out.append(Line(speaker.id, said, when))
        previous, scene.prev = speaker, speaker
        when += timedelta(minutes=scene.rng.randint(1, 25), seconds=scene.rng.randint(0, 59))
    return out
