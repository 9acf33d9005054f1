"""The train/test partition of a world's people and records: stable (a hash of the record's kind and
id, the same in every world and every run) and disjoint, so that a test instance never repeats the
people and records a train instance acts on.

One record in TEST_SHARE belongs to the test split. Workflow and refusal templates draw their actor
and their targets from their own split (`of_split`), and the suite's tests check it."""

from __future__ import annotations

import hashlib
from typing import Iterable, TypeVar

T = TypeVar("T")
TEST_SHARE = 3  # one record in three is in the test split
SPLITS = ("train", "test")


def split_of(kind: str, ident) -> str:
    """The split a record belongs to: `kind` names its table ("person", "opportunity", "account",
    "ticket", "case", "channel", "workbook", ...), `ident` its id (or a ticket key)."""
    digest = hashlib.sha256(f"{kind}:{ident}".encode()).digest()
    return "test" if digest[0] % TEST_SHARE == 0 else "train"


def in_split(split: str, kind: str, ident) -> bool:
    """Whether the record is in `split`."""
    if split not in SPLITS:
        raise ValueError(f"split is one of {SPLITS}, not {split!r}")
    return split_of(kind, ident) == split


def of_split(split: str, kind: str, rows: Iterable[T], ident=lambda row: row.id) -> list[T]:
    """The rows of one kind that belong to `split`, in their order."""
    return [row for row in rows if in_split(split, kind, ident(row))]


def person_in(split: str, person_id: int | None) -> bool:
    """Whether a person (an actor, a requester, an owner) belongs to `split`."""
    return person_id is not None and in_split(split, "person", person_id)


def people_of(split: str, ids: Iterable[int]) -> list[int]:
    """The ids of the people in `split`, in their order."""
    return [i for i in ids if person_in(split, i)]
