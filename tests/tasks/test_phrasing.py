"""Neither the kind of a deep task nor its right outcome can be read off its instruction: a naive
Bayes classifier of words, trained on the instructions of every other deep template, cannot tell the
instances to refuse from the others much better than chance (balanced accuracy at most 0.65), and
across the decision suite carrying out and refusing are about equally frequent."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.base import DEEP_KINDS
from officegym.tasks.decisions import twin_outcome
from officegym.tasks.registry import all_tasks
from officegym.worlds import ensure_world

DEEP = [t for t in all_tasks() if t.kind in DEEP_KINDS]
INSTANCES = 4  # two pairs of twins per template
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")

pytestmark = pytest.mark.xdist_group("phrasing")


@pytest.fixture(scope="module")
def drawn():
    """(template id, instruction, refuses everything asked, outcome) for INSTANCES of every deep template."""
    engine = sqlite_engine(str(ensure_world("medium", 0).path), readonly=True)
    session = make_sessionmaker(engine)()
    try:
        rows = []
        for template in DEEP:
            for k in range(INSTANCES):
                inst = template.make(session, k, 0)
                rows.append((template.id, inst.instruction, inst.outcome.kind == "refuse", inst.outcome))
        return rows
    finally:
        session.close()
        engine.dispose()


def words(text: str) -> list[str]:
    """The lower-case words of a text (names and numbers are words too: the classifier may use them)."""
    return _WORD.findall(text.lower())


class NaiveBayes:
    """Multinomial naive Bayes over word counts, with add-one smoothing."""

    def __init__(self, texts: list[str], labels: list[bool]):
        self.counts = {label: Counter() for label in (False, True)}
        self.priors = {label: math.log((labels.count(label) + 1) / (len(labels) + 2)) for label in (False, True)}
        for text, label in zip(texts, labels):
            self.counts[label].update(words(text))
        self.vocabulary = set(self.counts[False]) | set(self.counts[True])
        self.totals = {label: sum(c.values()) + len(self.vocabulary) for label, c in self.counts.items()}

    def predict(self, text: str) -> bool:
        """The more likely label of a text."""
        def score(label):
            return self.priors[label] + sum(math.log((self.counts[label][w] + 1) / self.totals[label])
                                            for w in words(text) if w in self.vocabulary)
        return score(True) > score(False)


def balanced_accuracy(truth: list[bool], predicted: list[bool]) -> float:
    """The mean of the recall of each label."""
    recalls = []
    for label in (False, True):
        chosen = [p for t, p in zip(truth, predicted) if t == label]
        if chosen:
            recalls.append(sum(p == label for p in chosen) / len(chosen))
    return sum(recalls) / len(recalls)


def held_out_accuracy(rows) -> float:
    """Balanced accuracy of predictions made for each template by a classifier of the others."""
    truth, predicted = [], []
    for template in sorted({r[0] for r in rows}):
        train = [r for r in rows if r[0] != template]
        model = NaiveBayes([r[1] for r in train], [r[2] for r in train])
        for row in (r for r in rows if r[0] == template):
            truth.append(row[2])
            predicted.append(model.predict(row[1]))
    return balanced_accuracy(truth, predicted)


def test_the_classifier_reads_words_when_they_give_the_outcome_away():
    # The classifier itself is sound: where a phrase marks the instances to refuse, it finds them.
    rows = [(f"t{k % 5}", f"{'please refuse this' if k % 2 else 'please handle this'} item {k}", bool(k % 2), None)
            for k in range(40)]
    assert held_out_accuracy(rows) == 1.0


def test_the_outcome_cannot_be_read_off_the_instruction(drawn):
    assert any(r[2] for r in drawn) and not all(r[2] for r in drawn)
    accuracy = held_out_accuracy(drawn)
    assert accuracy <= 0.65, f"balanced accuracy {accuracy:.2f}"


def test_carrying_out_and_refusing_are_about_equally_frequent_in_the_decision_suite(drawn):
    deciding = {r[0] for r in drawn if r[3].refuse}
    parts = Counter()
    for template_id, _, _, outcome in drawn:
        if template_id in deciding:
            parts["carry out"] += outcome.carry_out
            parts["refuse"] += outcome.refuse
    share = parts["refuse"] / (parts["refuse"] + parts["carry out"])
    assert 0.4 <= share <= 0.6, parts


def test_twins_alternate_within_each_pair_in_an_order_no_parity_gives_away():
    outcomes = [twin_outcome("r.example", k).kind for k in range(40)]
    assert all(outcomes[2 * k] != outcomes[2 * k + 1] for k in range(20))
    assert 5 <= sum(o == "refuse" for o in outcomes[0::2]) <= 15  # even instances are not always the same
    assert twin_outcome("r.example", 7) == twin_outcome("r.example", 7)
