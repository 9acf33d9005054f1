"""Retired episode ids: every id added stays refused, ids never added are not, and thousands of
them hold no Python object each (an object kept per deleted episode kept its allocator arena)."""

from __future__ import annotations

import gc
import secrets
import sys

from officegym.retired_ids import BATCH, RetiredIds


def test_every_retired_id_stays_refused_and_others_do_not():
    retired, ids = RetiredIds(), [secrets.token_urlsafe(16) for _ in range(3 * BATCH + 7)]
    for k, episode_id in enumerate(ids):
        retired.add(episode_id)
        assert episode_id in retired and ids[k // 2] in retired  # before and after the batches merge
    assert len(retired) == len(ids) and all(i in retired for i in ids)
    assert not any(secrets.token_urlsafe(16) in retired for _ in range(2000))
    assert None not in retired and 7 not in retired


def test_ten_thousand_retired_ids_hold_no_object_each():
    ids = [secrets.token_urlsafe(16) for _ in range(10_000)]
    retired = RetiredIds()
    gc.collect()
    before = sys.getallocatedblocks()
    for episode_id in ids:
        retired.add(episode_id)
    gc.collect()
    assert sys.getallocatedblocks() - before < BATCH + 50  # at most the newest batch's digests
