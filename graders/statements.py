"""Checks of what a text states, sound against shotgun and negated answers.

A task declares the value a message must state as a `Candidate` and the pool of look-alike values
of the same kind (the other offices, accounts, deals, people). A text states a candidate when it
writes one of its spellings as a whole word (names, handles, keys) or, for an amount of money, when
one of the amounts it writes equals it. Overlapping spellings resolve leftmost-longest, so "Acme
Labs" states Acme Labs and not Acme. A statement is denied when the clause around it carries a
negation ("IT-48 is not resolved").

`says` returns a requirement (some text states the value and does not deny it) and a guard (no
text states another candidate of the pool, and none denies the value): a message that lists every
candidate, or negates the claim, fails and scores 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .checks import CheckResult, check, guard

# Words that deny a clause. "no" is left out: "resolved with no data loss" states it.
NEGATIONS = {"not", "never", "neither", "nor", "cannot", "unresolved", "untrue", "false", "incorrect", "isnt",
             "arent", "wasnt", "werent", "dont", "doesnt", "didnt", "hasnt", "havent", "hadnt", "shouldnt",
             "couldnt", "wouldnt"}
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_AMOUNT = re.compile(r"(?<![\w.$/:-])(\$|USD ?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?([kKmM]\b|bn\b|million\b)?")
_MULTIPLIER = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000, "million": 1_000_000}
_CLAUSE_END = set(".!?;:\n,()[]—–")  # what ends a clause (a '?' also makes it a question)


@dataclass(frozen=True)
class Candidate:
    """A value a text may state: how to write it (`label`), the spellings that count as stating it
    and, for money, the amount in cents (matched against every amount the text writes)."""

    label: str
    spellings: tuple[str, ...] = ()
    amount: int | None = None

    @classmethod
    def text(cls, label: str, *more: str) -> "Candidate":
        """A value written as words: its label and any other accepted spellings."""
        return cls(label, tuple(dict.fromkeys(s for s in (label, *more) if s)))

    @classmethod
    def person(cls, person) -> "Candidate":
        """A person: full name, @handle, handle or email."""
        return cls(person.name, (person.name, f"@{person.handle}", person.handle, person.email))

    @classmethod
    def money(cls, cents: int) -> "Candidate":
        """An amount of money in cents, however the text writes it ($120,000, 120000, $120k)."""
        whole, rest = divmod(cents, 100)
        return cls(f"${whole:,}" + (f".{rest:02d}" if rest else ""), (), cents)


def _fold(text: str) -> str:
    return text.casefold().replace("’", "'")


def _bounded(text: str, start: int, end: int) -> bool:
    """A match is a whole word: no letter or digit joins it on either side (a '.', '-' or '_'
    followed by one continues a handle or an email, so it joins too)."""
    before = text[start - 1] if start else " "
    if before.isalnum() or (before in "._-" and start > 1 and text[start - 2].isalnum()):
        return False
    after = text[end] if end < len(text) else " "
    return not (after.isalnum() or (after in "._-@" and end + 1 < len(text) and text[end + 1].isalnum()))


def amounts_written(text: str) -> list[tuple[int, int, int]]:
    """Every amount of money a text writes, as (start, end, cents). Plain numbers count when they
    are written as money ($, a multiplier) or are 1,000 or more; dates, times and keys do not."""
    found = []
    for match in _AMOUNT.finditer(text or ""):
        sign, digits, decimals, multiplier = match.groups()
        end = match.end()
        if end < len(text) and text[end] in "-/:" and end + 1 < len(text) and text[end + 1].isdigit():
            continue  # part of a date or a time
        value = float(digits.replace(",", "") + (decimals or ""))
        if multiplier:
            value *= _MULTIPLIER[multiplier.lower()]
        if sign or multiplier or value >= 1000:
            found.append((match.start(), end, round(value * 100)))
    return found


def stated(text: str, candidates: list[Candidate]) -> dict[int, list[tuple[int, int]]]:
    """Which candidates (by index) a text states, with the spans where it states them."""
    folded = _fold(text or "")
    spans = []
    for index, candidate in enumerate(candidates):
        for spelling in candidate.spellings:
            needle = _fold(spelling)
            at = folded.find(needle)
            while needle and at >= 0:
                if _bounded(folded, at, at + len(needle)):
                    spans.append((at, at + len(needle), index))
                at = folded.find(needle, at + 1)
    taken: dict[int, list[tuple[int, int]]] = {}
    last_end = -1
    for start, end, index in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
        if start >= last_end:
            taken.setdefault(index, []).append((start, end))
            last_end = end
    by_amount = {c.amount: i for i, c in enumerate(candidates) if c.amount is not None}
    for start, end, cents in amounts_written(text or ""):
        if cents in by_amount:
            taken.setdefault(by_amount[cents], []).append((start, end))
    return taken


def clause_around(text: str, start: int, end: int) -> str:
    """The clause holding text[start:end], without it: up to the nearest punctuation that ends a
    clause on either side (a '.' or ',' between digits does not). A clause that asks a question
    keeps its '?', which makes it a statement of nothing."""
    def ends(i: int) -> bool:
        if text[i] not in _CLAUSE_END:
            return False
        return not (text[i] in ".," and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit())
    left = start
    while left > 0 and not ends(left - 1):
        left -= 1
    right = end
    while right < len(text) and not ends(right):
        right += 1
    asked = "?" if right < len(text) and text[right] == "?" else ""
    return text[left:start] + " " + text[end:right] + asked


def is_negated(clause: str) -> bool:
    """Whether a clause denies or only asks what it holds (not, never, n't, unresolved, a '?')."""
    folded = _fold(clause)
    return any(w.endswith("n't") or w.replace("'", "") in NEGATIONS for w in _WORD.findall(folded)) \
        or "yet to" in folded or folded.endswith("?")


def denied(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether every place a text states something is inside a clause that denies or only asks it
    (a question addressed to an @mention still names whom it asks)."""
    def no(start: int, end: int) -> bool:
        clause = clause_around(text, start, end)
        return is_negated(clause[:-1] if text[start] == "@" and clause.endswith("?") else clause)
    return bool(spans) and all(no(s, e) for s, e in spans)


def says(texts: Iterable[str], right: Candidate, others: Iterable[Candidate], requirement: str, kind: str,
         weight: float = 2.0, deniable: bool = True) -> list[CheckResult]:
    """A requirement that some text states `right` without denying it, and a guard that no text
    states another candidate of `kind` from `others` or denies `right`. A value that only names
    what the text is about (which password, which ticket), rather than what it claims, is not
    `deniable`: "the VPN password isn't safe, please rotate it" still names the VPN."""
    texts = [t for t in texts if t]
    pool = [right] + [c for c in others if c != right and c.label != right.label]
    affirmed, extra, denials = False, [], []
    for text in texts:
        found = stated(text, pool)
        if 0 in found:
            if deniable and denied(text, found[0]):
                denials.append(text)
            else:
                affirmed = True
        extra += [pool[i].label for i in sorted(found) if i != 0]
    shown = [t[:120] for t in texts[:3]]
    return [check(requirement, affirmed, f"texts found: {shown}" if texts else "no such text was written", weight),
            guard(f"Nothing else is stated in place of {right.label}: no other {kind}, no denial",
                  not extra and not denials,
                  f"also states {sorted(set(extra))[:5]}" if extra else f"denies it: {denials[0][:120]!r}"
                  if denials else "")]
