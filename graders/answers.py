"""Checks of a submitted answer, strict by design: an answer is one value. A number is one number
(written with commas, a currency sign, a multiplier such as 120k, or units around it); an answer
that writes two numbers (in digits or words), hedges ("about", "at least", "12 or more", "12+",
"probably"), denies ("not 5") or adds a percent sign the question did not ask for refuses the
match. A name or text is compared whole after folding case, whitespace and surrounding punctuation."""

from __future__ import annotations

import re

from .checks import CheckResult, check
from .statements import NEGATIONS

_NUMBER = re.compile(r"(?<![\w-])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:k|m|bn|million|thousand)\b)?", re.I)
_MULTIPLIER = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000, "bn": 1_000_000_000}
HEDGES = ("about", "around", "approximately", "approx", "roughly", "nearly", "almost", "at least", "at most",
          "more", "less", "fewer", "minimum", "maximum", "up to", "between", "maybe", "perhaps", "probably",
          "likely", "guess", "unless", "or", "either", "~", "<", ">", "≈", "≥", "≤", "+")
SPELLED = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
           "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
           "thirty", "forty", "fifty", "hundred")


def normalise_text(value: str) -> str:
    """Case-folded, whitespace collapsed, surrounding punctuation and quotes removed."""
    collapsed = re.sub(r"\s+", " ", value).strip().casefold()
    return collapsed.strip(" .,;:!?\"'`")


def _hedged(text: str) -> bool:
    """Whether an answer hedges, denies, or writes a second number in words ("12 or thirteen")."""
    words = set(re.findall(r"[a-z']+", text))
    if words & NEGATIONS or words & set(SPELLED) or any(w.endswith("n't") for w in words):
        return True
    return any((h in words) if h.isalpha() and " " not in h else f" {h} " in f" {text} " if " " in h else h in text
               for h in HEDGES if not (h == "+" and text.startswith("+")))


def parse_number(answer: str | None, percent: bool = False) -> float | None:
    """The one number an answer states, or None when it states none, several, a hedge, a denial, or
    a percentage where none was asked (with `percent`, "12.5%" reads 12.5)."""
    if not answer:
        return None
    text = normalise_text(answer)
    if _hedged(text) or ("%" in text) != percent:
        return None
    found = _NUMBER.findall(text.replace("$", "").replace("€", "").replace("£", ""))
    if len(found) != 1:
        return None
    token = found[0].replace(",", "").strip()
    multiplier = re.search(r"(k|m|bn|million|thousand)$", token)
    value = float(token[:multiplier.start()].strip() if multiplier else token)
    return value * _MULTIPLIER[multiplier.group(1)] if multiplier else value


def answer_is_number(answer: str | None, expected: float, tolerance: float = 1e-6, weight: float = 2.0,
                     percent: bool = False) -> CheckResult:
    """The submitted answer is the expected number: one number, within tolerance."""
    got = parse_number(answer, percent)
    shown = f"{expected:g}%" if percent else f"{expected:g}"
    return check(f"The submitted answer is {shown}", got is not None and abs(got - expected) <= tolerance,
                 "no answer was submitted" if answer is None else f"the answer given was {answer[:200]!r}", weight)


def answer_is_one_of(answer: str | None, accepted: list[str], shown: str, weight: float = 2.0) -> CheckResult:
    """The submitted answer equals (after normalisation) one of the accepted spellings."""
    wanted = {normalise_text(a).lstrip("@#") for a in accepted}
    passed = answer is not None and normalise_text(answer).lstrip("@#") in wanted
    return check(f"The submitted answer is {shown}", passed,
                 "no answer was submitted" if answer is None else f"the answer given was {answer[:200]!r}", weight)
