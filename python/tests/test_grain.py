"""knuffle.grain.IndexSampler with Grain's own DataLoader: every number of
shards merges to the epoch order, epochs follow each other, Grain's
checkpoints resume it, bad input is a clear error. Under CI=true a missing
grain fails the run."""

from __future__ import annotations

import pytest

from conftest import require_packages

require_packages("grain", module_level=True)

import grain.python as gp

import knuffle
import knuffle.grain
from knuffle import _epoch_split


def epoch_order(seed, n, epoch=0):
    return knuffle.table_order(knuffle.epoch_seed(seed, epoch), n).tolist()


def loader(n, shard, shards, seed="grain", num_epochs=1, workers=0):
    return gp.DataLoader(
        data_source=gp.RangeDataSource(0, n, 1),
        sampler=knuffle.grain.IndexSampler(n, seed=seed, num_epochs=num_epochs),
        shard_options=gp.ShardOptions(shard_index=shard, shard_count=shards, drop_remainder=True),
        worker_count=workers,
    )


@pytest.mark.parametrize("shards", [1, 2, 3, 4])
def test_shards_merge_to_the_epoch_order(shards):
    n = 31
    per_shard = [[int(x) for x in loader(n, s, shards)] for s in range(shards)]
    merged = [row for step in zip(*per_shard) for row in step]
    assert merged == epoch_order("grain", n)[: n // shards * shards]


def test_workers_and_epochs():
    n = 12
    rows = [int(x) for x in loader(n, 0, 1, num_epochs=2, workers=2)]
    assert rows == epoch_order("grain", n, 0) + epoch_order("grain", n, 1)


def test_grain_checkpoints_resume_it():
    n = 20
    it = iter(loader(n, 1, 2))
    first = [int(next(it)) for _ in range(4)]
    state = it.get_state()
    again = iter(loader(n, 1, 2))
    again.set_state(state)
    assert first + [int(x) for x in again] == epoch_order("grain", n)[1::2]


def test_shuffle_false_and_bad_input():
    sampler = knuffle.grain.IndexSampler(4, seed=0, shuffle=False, num_epochs=2)
    assert [sampler[i].record_key for i in range(8)] == [0, 1, 2, 3] * 2
    with pytest.raises(IndexError, match=r"index 8 is outside the sampler's range \[0, 8\)"):
        sampler[8]
    with pytest.raises(IndexError):
        sampler[-1]
    with pytest.raises(ValueError, match="num_records must be from 1"):
        knuffle.grain.IndexSampler(0, seed=1)
    with pytest.raises(ValueError, match="num_records must be from 1"):
        knuffle.grain.IndexSampler(2**63, seed=1)
    with pytest.raises(ValueError, match="num_epochs must be from 1"):
        knuffle.grain.IndexSampler(5, seed=1, num_epochs=0)
    with pytest.raises(TypeError, match="seed must be an int or a str"):
        knuffle.grain.IndexSampler(5, seed=2.5)
    assert len(knuffle.grain.IndexSampler(5, seed=1)) == 2**63 - 1


def test_docstring_examples():
    import doctest

    result = doctest.testmod(knuffle.grain, extraglobs={"knuffle": knuffle})
    assert result.attempted > 0 and result.failed == 0
