"""Checks of what a text states, sound against shotgun and negated answers.

A task declares the value a message must state as a `Candidate` and the pool of look-alike values
of the same kind (the other offices, accounts, deals, people). A text states a candidate when it
writes one of its spellings as a whole word (names, handles, keys) or, for an amount of money, when
one of the amounts it writes equals it. Overlapping spellings resolve leftmost-longest, so "Acme
Labs" states Acme Labs and not Acme. A statement is denied when a negation or a hedge governs it:
one of the three words before it or the two after it, within its clause ("IT-48 is not resolved",
"might be Europe/London", "far from resolved"), or a question mark right after it ("resolved?").
A negation further away belongs to something else ("resolved, and we haven't seen errors since"),
except a sentence that opens by denying all it says ("It is not true that the refund is $900").
Texts are compared after Unicode normalisation, without invisible format characters.

`says` returns a requirement (some text states the value and does not deny it) and a guard (no
text states another candidate of the pool, and none denies the value): a message that lists every
candidate, or negates the claim, fails and scores 0. A candidate named only to be left out ("without
Globex", "Globex (left out at its owner's request)") is not stated.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from .checks import CheckResult, check, guard
from .written import amounts_written, listed_as_declined

# Words that deny or hedge what they govern. "no" is left out: "resolved with no data loss" states it.
NEGATIONS = {"not", "never", "neither", "nor", "cannot", "unresolved", "untrue", "false", "incorrect", "isnt",
             "arent", "wasnt", "werent", "dont", "doesnt", "didnt", "hasnt", "havent", "hadnt", "shouldnt",
             "couldnt", "wouldnt", "cant", "wont"}
HEDGES = {"might", "maybe", "perhaps", "probably", "possibly", "unlikely", "hardly", "pending", "supposedly"}
HEDGE_PHRASES = ("far from", "nowhere near", "no need", "yet to")
# Openings that deny the whole sentence after them, however far the value is.
DENYING_OPENINGS = re.compile(r"(?:\b(?:not|never)|n't)\s+(?:true|the\s+case|correct|so)\s+that\b"
                              r"|\b(?:untrue|false|incorrect|wrong)\s+that\b")
BEFORE, AFTER = 3, 2  # the words around a value that govern it
# Kinds of value a text names rather than asserts: a refusal cites the rule it rests on ("that isn't
# allowed under KB0010007" cites KB0010007), so a negation near it denies nothing; nor does one near a
# value whose fact is itself a negation ("Northwind Cloud isn't on any deal" states the unknown competitor).
NAMING_KINDS = frozenset({"handbook rule", "sender's address",  # and who a request came from
                          "competitor the CRM does not know"})
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_JOINS = {"and", "but", "so", "since", "because", "although", "though", "while", "whereas"}  # they end a clause
_CLAUSE_END = set(".!?;:\n,()[]—–")  # what ends a clause


@dataclass(frozen=True)
class Candidate:
    """A value a text may state: how to write it (`label`), the spellings that count as stating it
    and, for money, the amount in cents (matched against every amount the text writes)."""

    label: str
    spellings: tuple[str, ...] = ()
    amount: int | None = None
    pattern: str = ""

    @classmethod
    def text(cls, label: str, *more: str) -> "Candidate":
        """A value written as words: its label and any other accepted spellings."""
        return cls(label, tuple(dict.fromkeys(s for s in (label, *more) if s)))

    @classmethod
    def person(cls, person) -> "Candidate":
        """A person: full name, @handle, handle or email."""
        return cls(person.name, (person.name, f"@{person.handle}", person.handle, person.email))

    @classmethod
    def pattern_of(cls, label: str, pattern: str) -> "Candidate":
        """Every value a regular expression matches as a whole word, such as any other ticket key of
        a project (r"IT-\\d+"): a pool too large to list, in one candidate."""
        return cls(label, (), None, pattern)

    @classmethod
    def money(cls, cents: int) -> "Candidate":
        """An amount of money in cents, however the text writes it ($120,000, 120000, $120k)."""
        whole, rest = divmod(cents, 100)
        return cls(f"${whole:,}" + (f".{rest:02d}" if rest else ""), (), cents)


def normalise(text: str) -> str:
    """Text as the checks read it: Unicode NFKC, without invisible format characters (zero-width
    spaces and joiners, soft hyphens)."""
    return "".join(c for c in unicodedata.normalize("NFKC", text or "") if unicodedata.category(c) != "Cf")


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


def _short_forms(candidate: Candidate) -> set[str]:
    """The spellings of a candidate that are only the first word of another of its spellings (a
    first name beside the full name)."""
    folded = [_fold(s) for s in candidate.spellings]
    return {s for s in folded if " " not in s and any(f.startswith(s + " ") for f in folded)}


def _name_goes_on(cased: str, end: int) -> bool:
    """Whether a capitalised word follows text[:end] after one space: the rest of another full name
    ("Joshua Chavez" does not name Joshua Good by his first name)."""
    return cased[end:end + 1] == " " and cased[end + 1:end + 2].isupper()


def stated(text: str, candidates: list[Candidate], cased: str | None = None) -> dict[int, list[tuple[int, int]]]:
    """Which candidates (by index) a text states, with the spans where it states them. A first name
    counts as a short form of its full name only where no other name goes on after it, which is read
    from the text as written (`cased`, when `text` has been case folded)."""
    folded = _fold(text or "")
    cased = cased if cased is not None and len(cased) == len(folded) else (text or "")
    spans = []
    for index, candidate in enumerate(candidates):
        short = _short_forms(candidate)
        for spelling in candidate.spellings:
            needle = _fold(spelling)
            at = folded.find(needle)
            while needle and at >= 0:
                if _bounded(folded, at, at + len(needle)) and not (
                        needle in short and _name_goes_on(cased, at + len(needle))):
                    spans.append((at, at + len(needle), index))
                at = folded.find(needle, at + 1)
        if candidate.pattern:
            spans += [(m.start(), m.end(), index) for m in re.finditer(candidate.pattern, folded, re.I)
                      if _bounded(folded, m.start(), m.end())]
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


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the clause holding text[start:end]: up to the nearest punctuation that ends a
    clause (a '.' or ',' between digits does not), a spaced dash, or a joining word."""
    def ends(i: int) -> bool:
        if text[i] not in _CLAUSE_END:
            return text[i] == "-" and 0 < i < len(text) - 1 and text[i - 1] == " " and text[i + 1] == " "
        return not (text[i] in ".," and _inside_number(text, i))
    left, right = start, end
    while left > 0 and not ends(left - 1):
        left -= 1
    while right < len(text) and not ends(right):
        right += 1
    before = [m for m in _WORD.finditer(text, left, start)]
    joins = [m.end() for m in before if _fold(m.group()) in _JOINS]
    after = [m for m in _WORD.finditer(text, end, right)]
    stops = [m.start() for m in after if _fold(m.group()) in _JOINS]
    return (joins[-1] if joins else left), (stops[0] if stops else right)


def _inside_number(text: str, i: int) -> bool:
    """Whether text[i] sits between two digits (the '.' or ',' of "1,250.50")."""
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()


def _sentence_start(text: str, start: int) -> int:
    """Where the sentence holding text[start] begins (after a '.', '!', '?' or line break; a '.'
    inside a number ends nothing)."""
    for i in range(start - 1, -1, -1):
        if text[i] in "!?\n" or (text[i] == "." and not _inside_number(text, i)):
            return i + 1
    return 0


def governed(text: str, start: int, end: int) -> bool:
    """Whether a negation or a hedge governs text[start:end] (see the module's docstring); a
    question mark right after it makes it asked, unless it is an @mention (whom the question asks)."""
    left, right = _clause(text, start, end)
    near = [m.group() for m in _WORD.finditer(text, left, start)][-BEFORE:]
    near += [m.group() for m in _WORD.finditer(text, end, right)][:AFTER]
    words = [_fold(w) for w in near]
    if any(w.endswith("n't") or w.replace("'", "") in NEGATIONS or w in HEDGES for w in words):
        return True
    if any(phrase in " ".join(words) for phrase in HEDGE_PHRASES):
        return True
    if DENYING_OPENINGS.search(_fold(text[_sentence_start(text, start):start])):
        return True
    return text[end:].lstrip(" ").startswith("?") and not text[start:end].startswith("@")


_EXCLUDED_BEFORE = {"not", "never", "no", "without", "except", "excluding", "excluded", "minus"}
_EXCLUDING_PHRASES_BEFORE = ("other than", "apart from", "leaving out", "left out", "except for", "aside from")
_EXCLUDED_AFTER = re.compile(r"^\W*(?:\w+\W+){0,5}?(?:excluded|omitted|left out|not included|dropped|stays out|"
                             r"stay out|is out|are out)\b")


def excluded(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is named only to be left out: an exclusion among the three words
    before it ("without Globex", "other than Globex", "not Globex") or in the words that follow it up
    to the end of its clause, parentheses included ("Globex (left out at its owner's request)",
    "Globex is excluded"), or listed under a heading of what was declined ("Rejected: Globex")."""
    if listed_as_declined(text, start):
        return True
    left, _ = _clause(text, start, end)
    before = [_fold(m.group()) for m in _WORD.finditer(text, left, start)][-BEFORE:]
    if any(w in _EXCLUDED_BEFORE or w.endswith("n't") for w in before):
        return True
    if any(" ".join(before).endswith(phrase) or phrase in " ".join(before) for phrase in _EXCLUDING_PHRASES_BEFORE):
        return True
    after = re.split(r"[.!?;,\n]|\b(?:and|but|while|whereas)\b", text[end:], maxsplit=1)[0]
    return bool(_EXCLUDED_AFTER.match(after))


# Words before a value in its clause that make it an earlier or superseded value, not the result:
# "I had first set it to 2026-03-27", "originally Globex", "instead of Globex" (the last five words), "previously 2026-03-27".
_EARLIER_BEFORE = {"originally", "initially", "formerly", "replacing"}
_EARLIER_PHRASES_BEFORE = ("instead of", "rather than", "in place of", "no longer", "had first", "first set",
                           "at first", "was first", "had set", "had put", "previously set", "earlier set",
                           "old manager", "former manager", "previous manager")
# An apposition that makes a person an earlier one: "Rebecca Wagner, your manager before the move, ...".
_EARLIER_APPOSITION = re.compile(r"\s*,\s*[^,.;:\n]{0,40}?\b(?:old|former|previous|earlier|before (?:the|their|his|"
                                 r"her|your|my) (?:move|transfer))\b")
_EARLIER_AFTER = re.compile(r"^\W*(?:\w+\W+){0,3}?(?:superseded|replaced|no longer|previously|before that|"
                            r"originally|at first|earlier)\b")
# What, in a sentence, sets its values aside as left as they were: a heading ("Not changed: ...",
# "Untouched: ...") or a phrase of leaving them ("left them as they are", "left alone").
_UNTOUCHED_HEADING = re.compile(r"\W*(?:not changed|unchanged|untouched|not touched|left as (?:is|they are|it is)|"
                                r"left alone|not updated|no change)\s*:")
_UNTOUCHED_PHRASE = re.compile(r"\b(?:untouched|unchanged|not changed|(?:left|leave|leaving|kept|keep)\b.*"
                               r"\b(?:as (?:they are|it is|is|they were|it was)|alone))\b")


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence (or ';'-separated part) holding text[start:end]."""
    left = max(text.rfind(c, 0, start) for c in ".!?\n;") + 1
    right = re.search(r"[!?\n;]|\.(?!\d)", text[end:])
    return left, end + right.start() if right else len(text)


def set_aside(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is named as an earlier, superseded value ("I had first set it to
    2026-03-27", "instead of Globex", "Globex (superseded)") or as one left as it was ("Not changed:
    the rows of Globex ...", "I left Globex as it is"): either way it is not
    a competing statement of the result."""
    left, _ = _clause(text, start, end)
    before = [_fold(m.group()) for m in _WORD.finditer(text, left, start)][-5:]
    if _EARLIER_BEFORE & set(before) or before[-1:] in (["previously"], ["earlier"]) or any(p in " ".join(before) for p in _EARLIER_PHRASES_BEFORE):
        return True
    if _EARLIER_AFTER.match(re.split(r"[.!?;,\n()]", text[end:], maxsplit=1)[0]) or _EARLIER_APPOSITION.match(text, end):
        return True
    sentence_start, sentence_end = _sentence(text, start, end)
    clause_start, clause_end = _clause(text, start, end)
    return bool(_UNTOUCHED_HEADING.match(text, sentence_start, sentence_end)
                or _UNTOUCHED_PHRASE.search(text, clause_start, clause_end))


def denied(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether every place a text states something is denied, hedged or only asked."""
    return bool(spans) and all(governed(text, s, e) for s, e in spans)


def says(texts: Iterable[str], right: Candidate, others: Iterable[Candidate], requirement: str, kind: str,
         weight: float = 2.0, deniable: bool = True) -> list[CheckResult]:
    """A requirement that some text states `right` without denying it, and a guard that no text
    states another candidate of `kind` from `others` or denies `right`. A value that only names
    what the text is about (which password, which ticket), rather than what it claims, is not
    `deniable`: "the VPN password isn't safe, please rotate it" still names the VPN; nor is a value
    of one of NAMING_KINDS (the rule a refusal cites). Nor is such a value set aside by being earlier
    work: "INV-12 was already credited earlier" still names the invoice."""
    deniable = deniable and kind not in NAMING_KINDS
    written = [normalise(t) for t in texts if t]
    texts = [_fold(t) for t in written]
    pool = [right] + [c for c in others if c != right and c.label != right.label]
    affirmed, extra, denials = False, [], []
    for text, cased in zip(texts, written):
        found = stated(text, pool, cased)
        if 0 in found:
            claimed = [(s, e) for s, e in found[0] if not (deniable and set_aside(text, s, e))]
            if deniable and denied(text, found[0]):
                denials.append(text)
            elif claimed:
                affirmed = True
        extra += [pool[i].label for i in sorted(found)
                  if i != 0 and not all(excluded(text, s, e) or set_aside(text, s, e) for s, e in found[i])]
    shown = [t[:120] for t in texts[:3]]
    return [check(requirement, affirmed, f"texts found: {shown}" if texts else "no such text was written", weight),
            guard(f"Nothing else is stated in place of {right.label}: no other {kind}, no denial",
                  not extra and not denials,
                  f"also states {sorted(set(extra))[:5]}" if extra else f"denies it: {denials[0][:120]!r}"
                  if denials else "")]
