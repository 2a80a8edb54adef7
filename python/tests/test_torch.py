"""knuffle.torch: the samplers with the real torch DataLoader and torchdata's
StatefulDataLoader (CPU, 0 to 2 workers, ranks simulated in one process).

Every number of ranks and workers gives the same global sequence (the epoch
order, with torch's padding); resuming at any cursor, with the same or another
number of ranks and workers, gives the rows not yet seen, each once; torch's
padding, drop_last and shuffle=False rules hold exactly; n = 4 is exactly
uniform over the 24 orders (a biased stand-in fails the same test); bad input
is a clear error. Under CI=true a missing torch or torchdata fails the run.
"""

from __future__ import annotations

import json
import math
import pickle
import random

import numpy as np
import pytest

from conftest import CHI2_23_AT_0_001, order_chi_square, require_packages

require_packages("torch", "torchdata", module_level=True)

import torch
from torch.utils.data import DataLoader, Dataset
from torchdata.stateful_dataloader import StatefulDataLoader

import knuffle
import knuffle.torch
from knuffle import _epoch_split

pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    # torchdata 0.11 under torch 2.15 (not this package's): noise in every run.
    pytest.mark.filterwarnings("ignore:'set_vital' is deprecated"),
]


class Rows(Dataset):
    """Row i is the number i."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


def epoch_order(seed: str, n: int, epoch: int = 0) -> list[int]:
    return knuffle.table_order(knuffle.epoch_seed(seed, epoch), n).tolist()


def padded(order: list[int], total: int) -> list[int]:
    """torch's padding, as DistributedSampler.__iter__ writes it."""
    indices = list(order)
    padding_size = total - len(indices)
    if padding_size <= len(indices):
        indices += indices[:padding_size]
    else:
        indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
    return indices


def torch_rule(order: list[int], replicas: int, rank: int, drop_last: bool) -> list[int]:
    """What torch's DistributedSampler gives a rank for this order."""
    n = len(order)
    if drop_last and n % replicas:
        per_rank = math.ceil((n - replicas) / replicas)
    else:
        per_rank = math.ceil(n / replicas)
    total = per_rank * replicas
    indices = padded(order, total) if not drop_last else order[:total]
    return indices[rank:total:replicas]


def merge(per_rank: list[list[int]]) -> list[int]:
    """The ranks' rows merged by position: rank r's k-th row is position r + R k.
    Every rank has as many rows (lockstep)."""
    assert len({len(rows) for rows in per_rank}) <= 1, [len(rows) for rows in per_rank]
    return [row for step in zip(*per_rank) for row in step]


def loader_rows(loader) -> list[int]:
    return [int(i) for batch in loader for i in batch]


def samplers(n, replicas, seed="train", epoch=0, **options):
    ranks = [knuffle.torch.DistributedSampler(Rows(n), replicas, r, seed=seed, **options) for r in range(replicas)]
    for s in ranks:
        s.set_epoch(epoch)
    return ranks


# --- one global sequence, any topology -------------------------------------


@pytest.mark.parametrize("workers", [0, 1, 2])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
def test_every_topology_merges_to_the_epoch_order(replicas, workers):
    n, epoch = 103, 2
    order = epoch_order("train", n, epoch)
    per_rank = []
    for s in samplers(n, replicas, epoch=epoch):
        loader = DataLoader(Rows(n), batch_size=5, sampler=s, num_workers=workers)
        per_rank.append(loader_rows(loader))
    total = math.ceil(n / replicas) * replicas
    assert merge(per_rank) == padded(order, total)
    assert merge(per_rank)[:n] == order


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 11, 12])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("drop_last", [False, True])
def test_torch_rules_exactly(n, replicas, drop_last):
    """Padding, drop_last and len are torch's, and shuffle=False gives torch's rows."""
    order = epoch_order("rules", n)
    for rank in range(replicas):
        ours = knuffle.torch.DistributedSampler(Rows(n), replicas, rank, seed="rules", drop_last=drop_last)
        assert list(ours) == torch_rule(order, replicas, rank, drop_last)
        theirs = torch.utils.data.distributed.DistributedSampler(
            Rows(n), replicas, rank, shuffle=False, drop_last=drop_last
        )
        sequential = knuffle.torch.DistributedSampler(Rows(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(sequential) == list(theirs)
        assert len(ours) == len(sequential) == len(theirs)


def test_epochs_and_seeds():
    n = 50
    s = knuffle.torch.Sampler(Rows(n), seed="train")
    assert list(s) == epoch_order("train", n) == knuffle.table_order("train", n).tolist()
    s.set_epoch(7)
    assert list(s) == epoch_order("train", n, 7) == knuffle.table_order("knuffle epoch 7: train", n).tolist()
    assert epoch_order("train", n, 7) != epoch_order("train", n, 8)
    # An int seed is its decimal digits; epochs of seed 0 are not seed 1's.
    assert list(knuffle.torch.Sampler(Rows(n), seed=42)) == epoch_order("42", n)
    zero = knuffle.torch.DistributedSampler(Rows(n), 1, 0)
    zero.set_epoch(1)
    assert list(zero) == epoch_order("0", n, 1) != epoch_order("1", n)
    fresh = knuffle.torch.Sampler(Rows(n))
    assert len(fresh.seed) == 64 and list(fresh) == epoch_order(fresh.seed, n)
    assert len(s) == n


def test_isinstance_of_torchs_distributed_sampler():
    """Frameworks that look for a DistributedSampler (to call set_epoch) find one."""
    s = knuffle.torch.DistributedSampler(Rows(10), 2, 1)
    assert isinstance(s, torch.utils.data.distributed.DistributedSampler)
    assert (s.num_samples, s.total_size, s.seed) == (5, 10, "0")


# --- resume to the row -------------------------------------------------------


def run_ranks(n, replicas, workers, steps, *, batch=4, seed="resume", epoch=1, restore=None, stateful=True):
    """Each rank's loader takes `steps` batches (None: the whole epoch).
    `restore`: (how, states) from an earlier run. Returns (rows per rank, loader states)."""
    per_rank, states = [], []
    for rank in range(replicas):
        sampler = knuffle.torch.DistributedSampler(Rows(n), replicas, rank, seed=seed)
        sampler.set_epoch(epoch)
        loader_class = StatefulDataLoader if stateful else DataLoader
        loader = loader_class(Rows(n), batch_size=batch, sampler=sampler, num_workers=workers)
        if restore is not None:
            how, old = restore
            if how == "loader":
                loader.load_state_dict(old[rank])
            else:
                sampler.load_state_dict(knuffle.torch.sampler_state(old[0]))
        rows, it = [], iter(loader)
        for step, batch_rows in enumerate(it if steps != 0 else ()):
            rows += [int(i) for i in batch_rows]
            if step + 1 == steps:
                break
        per_rank.append(rows)
        states.append(loader.state_dict())
        del it, loader
    return per_rank, states


def check_union(n, first, second, seed="resume", epoch=1):
    """The rows before and after the resume: the epoch's order exactly once,
    then (if any) torch's padding, which repeats the order's first rows."""
    order = epoch_order(seed, n, epoch)
    rows = merge(first) + merge(second)
    assert rows[:n] == order
    assert len(rows) - n < max(len(first), len(second))  # fewer padded positions than ranks
    assert rows[n:] == [order[g % n] for g in range(n, len(rows))]


def test_resume_at_random_cursors_with_any_topology():
    rng = random.Random(35)
    topologies = [(r, w) for r in (1, 2, 3, 4) for w in (0, 1, 2)]
    for trial in range(10):
        n = rng.randrange(1, 90)
        r1, w1 = rng.choice(topologies)
        r2, w2 = (r1, w1) if trial % 3 == 0 else rng.choice(topologies)
        batches = math.ceil(math.ceil(n / r1) / 4)
        steps = rng.randrange(0, batches + 1)
        first, states = run_ranks(n, r1, w1, steps)
        how = "loader" if (r2, w2) == (r1, w1) else "sampler"
        second, _ = run_ranks(n, r2, w2, None, restore=(how, states))
        if steps == batches:
            assert merge(second) == []  # the first run read the whole epoch
        if steps == 0:
            assert first == [[] for _ in range(r1)]
        check_union(n, first, second)


@pytest.mark.parametrize("workers", [0, 2])
def test_resume_through_the_loader_state_with_the_same_workers(workers):
    """loader.load_state_dict with each rank's own state, and with rank 0's
    state on another number of ranks (every rank's sampler state is the same)."""
    n = 61
    first, states = run_ranks(n, 3, workers, 2)
    assert all(len(rows) == 8 for rows in first)
    for replicas in (3, 2):
        second, _ = run_ranks(n, replicas, workers, None, restore=("loader", states if replicas == 3 else states[:1] * 2))
        check_union(n, first, second)


def test_sampler_state_counts_what_the_loader_handed_out_not_what_it_prefetched():
    n = 200
    sampler = knuffle.torch.DistributedSampler(Rows(n), 2, 0, seed="prefetch")
    loader = StatefulDataLoader(Rows(n), batch_size=5, sampler=sampler, num_workers=2, prefetch_factor=4)
    it = iter(loader)
    for _ in range(3):
        next(it)
    # The workers have the indices of several more batches already...
    assert sampler.state_dict()["samples_seen"] > 3 * 5 * 2
    # ...but the loader's state is at the third batch: 30 positions of the epoch.
    assert knuffle.torch.sampler_state(loader.state_dict())["samples_seen"] == 3 * 5 * 2
    del it


def test_state_of_the_sampler_itself():
    n = 23
    ranks = samplers(n, 2, seed="own", epoch=4)
    its = [iter(s) for s in ranks]
    taken = [[next(it) for _ in range(6)] for it in its]
    state = ranks[0].state_dict()
    assert state == ranks[1].state_dict()
    assert state == {"kind": _epoch_split.STATE_KIND, "seed": "own", "shuffle": True, "dataset_size": n, "epoch": 4, "samples_seen": 12}
    assert json.loads(json.dumps(state)) == state and pickle.loads(pickle.dumps(state)) == state
    # Three ranks continue; loading sets the epoch.
    rest = [knuffle.torch.DistributedSampler(Rows(n), 3, r, seed="own") for r in range(3)]
    for s in rest:
        s.load_state_dict(state)
        assert s.epoch == 4
    left = [list(s) for s in rest]
    assert merge(taken) + merge(left)[: n - 12] == epoch_order("own", n, 4)
    # The next pass starts the epoch over; set_epoch(another) drops a loaded position.
    assert merge([list(s) for s in rest])[:n] == epoch_order("own", n, 4)
    s = knuffle.torch.Sampler(Rows(n), seed="own")
    s.load_state_dict(state)
    s.set_epoch(5)
    assert list(s) == epoch_order("own", n, 5)
    # An unseeded Sampler takes the state's seed.
    unseeded = knuffle.torch.Sampler(Rows(n))
    unseeded.load_state_dict(state)
    assert unseeded.seed == "own" and list(unseeded) == epoch_order("own", n, 4)[12:]


def test_a_finished_epoch_resumes_to_nothing_then_the_next_epoch():
    n = 10
    s = knuffle.torch.DistributedSampler(Rows(n), 4, 1, seed="end")
    assert len(list(s)) == 3
    state = s.state_dict()
    assert state["samples_seen"] == 12  # 10 rows and 2 padded
    again = knuffle.torch.DistributedSampler(Rows(n), 2, 0, seed="end")
    again.load_state_dict(state)
    assert list(again) == []
    again.set_epoch(1)
    assert list(again) == epoch_order("end", n, 1)[0::2]


def test_drop_last_with_a_resume():
    """After a resume with drop_last, each rank gets floor(left / R) rows."""
    n = 30
    first = [list(s)[:3] for s in samplers(n, 4, seed="drop", drop_last=True)]
    state = {"kind": _epoch_split.STATE_KIND, "seed": "drop", "shuffle": True, "dataset_size": n, "epoch": 0, "samples_seen": 12}
    rest = samplers(n, 4, seed="drop", drop_last=True)
    for s in rest:
        s.load_state_dict(state)
    left = [list(s) for s in rest]
    assert [len(rows) for rows in left] == [4] * 4  # 18 left: 16 kept, 2 dropped
    assert merge(first) + merge(left) == epoch_order("drop", n)[:28]


# --- exactly uniform ------------------------------------------------------------


def sampler_orders(seeds: int) -> np.ndarray:
    rows = np.empty((seeds, 4), dtype=np.int64)
    for seed in range(seeds):
        ranks = [knuffle.torch.DistributedSampler(Rows(4), 2, r, seed=f"uniform {seed}") for r in (0, 1)]
        rows[seed] = merge([list(s) for s in ranks])
    return rows


def test_n4_every_order_equally_likely_through_the_sampler():
    assert order_chi_square(sampler_orders(4800)) < CHI2_23_AT_0_001


def test_n4_a_biased_stand_in_fails_the_same_test(monkeypatch):
    """The classic wrong shuffle (swap each position with any position) put in
    the sampler's place: the same test must reject it."""

    def naive_swap(seed, n, epoch):
        rng = random.Random(seed)
        items = list(range(n))
        for i in range(n):
            j = rng.randrange(n)
            items[i], items[j] = items[j], items[i]
        return np.array(items, dtype=np.int64)

    monkeypatch.setattr(_epoch_split, "epoch_order", naive_swap)
    assert order_chi_square(sampler_orders(4800)) > CHI2_23_AT_0_001


# --- bad input ------------------------------------------------------------------


class Sized(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def test_bad_arguments_are_clear_errors():
    D = knuffle.torch.DistributedSampler
    with pytest.raises(ValueError, match=r"Invalid rank 4, rank should be in the interval \[0, 3\]"):
        D(Rows(10), 4, 4)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        D(Rows(10), 4, -1)
    with pytest.raises(ValueError, match="num_replicas must be at least 1, got 0"):
        D(Rows(10), 0, 0)
    with pytest.raises(TypeError, match="rank must be an integer, not float"):
        D(Rows(10), 2, 1.0)
    with pytest.raises(TypeError, match="seed must be an int or a str"):
        D(Rows(10), 2, 0, seed=1.5)
    with pytest.raises(TypeError, match="seed must be an int or a str"):
        knuffle.torch.Sampler(Rows(10), seed=True)
    s = D(Rows(10), 2, 0)
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match=r"epoch must be from 0 to 2\*\*64 - 1"):
            s.set_epoch(bad)
    last = [D(Rows(10), 2, r) for r in (0, 1)]
    for rank in last:
        rank.set_epoch(2**64 - 1)
    assert merge([list(rank) for rank in last]) == epoch_order("0", 10, 2**64 - 1)
    with pytest.raises(TypeError, match="the data set must have a length"):
        knuffle.torch.Sampler(iter(range(3)))
    with pytest.raises(ValueError):
        knuffle.torch.Sampler(Sized(-1))  # len() itself refuses


def test_a_data_set_too_large_is_a_clear_error():
    s = knuffle.torch.Sampler(Sized(2**63 - 1), seed="huge")
    with pytest.raises((ValueError, MemoryError)):
        next(iter(s))


def test_a_data_set_that_changed_size_is_a_clear_error():
    rows = Rows(10)
    s = knuffle.torch.Sampler(rows, seed=1)
    rows.n = 11
    with pytest.raises(ValueError, match="had 10 rows when the sampler was made and has 11 now"):
        iter(s)


def test_foreign_states_are_clear_errors():
    n = 20
    good = knuffle.torch.Sampler(Rows(n), seed="mine").state_dict()
    s = knuffle.torch.Sampler(Rows(n), seed="mine")
    with pytest.raises(ValueError, match="not the state of a knuffle sampler"):
        s.load_state_dict({"yielded": 3})  # torchdata's StatefulDistributedSampler's
    with pytest.raises(ValueError, match="not the state of a knuffle sampler"):
        s.load_state_dict([1, 2])
    with pytest.raises(ValueError, match="is of seed 'theirs'; this sampler's seed is 'mine'"):
        s.load_state_dict({**good, "seed": "theirs"})
    with pytest.raises(ValueError, match="is of a data set of 21 rows; this sampler's has 20"):
        s.load_state_dict({**good, "dataset_size": 21})
    with pytest.raises(ValueError, match="shuffle=False; this one has shuffle=True"):
        s.load_state_dict({**good, "shuffle": False})
    with pytest.raises(ValueError, match="epoch must be from 0"):
        s.load_state_dict({**good, "epoch": -1})
    with pytest.raises(ValueError, match="samples_seen must be at least 0"):
        s.load_state_dict({**good, "samples_seen": -5})
    with pytest.raises(ValueError, match="lacks samples_seen"):
        s.load_state_dict({k: v for k, v in good.items() if k != "samples_seen"})
    with pytest.raises(ValueError, match="no knuffle sampler state"):
        knuffle.torch.sampler_state({"_num_yielded": 3})
    with pytest.raises(ValueError, match="snapshot_every_n_steps"):
        knuffle.torch.sampler_state({"_steps_since_snapshot": 2, "x": good})
    # Nothing was changed by the refused states.
    assert s.state_dict() == good and list(s) == epoch_order("mine", n)


class Noisy(Dataset):
    """Each row draws from the data set's knuffle.Generator."""

    def __init__(self, n):
        self.n = n
        self.g = knuffle.Generator("workers")
        self.g.permutation(3)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.g.permutation(5).tolist()


def test_workers_get_the_datasets_generator_with_its_exact_state():
    """DataLoader workers receive the data set pickled: each worker's
    generator draws exactly what the original would draw next."""
    data = Noisy(2)
    expected = pickle.loads(pickle.dumps(data.g)).permutation(5).tolist()
    loader = DataLoader(data, batch_size=None, num_workers=2)
    assert [list(map(int, row)) for row in loader] == [expected, expected]
    assert data.g.permutation(5).tolist() == expected  # the original did not move


def test_docstring_examples():
    import doctest

    result = doctest.testmod(knuffle.torch, extraglobs={"knuffle": knuffle})
    assert result.attempted > 0 and result.failed == 0


def test_hugging_face_dataset_with_the_distributed_sampler():
    require_packages("datasets")
    import datasets

    n = 45
    ds = datasets.Dataset.from_dict({"id": list(range(n)), "text": [f"row {i}" for i in range(n)]})
    per_rank = []
    for rank in range(2):
        sampler = knuffle.torch.DistributedSampler(ds, num_replicas=2, rank=rank, seed="hf")
        sampler.set_epoch(3)
        loader = DataLoader(ds, batch_size=8, sampler=sampler, num_workers=rank * 2)
        per_rank.append([int(i) for batch in loader for i in batch["id"]])
        assert [t for batch in DataLoader(ds, batch_size=8, sampler=sampler) for t in batch["text"]] == [
            f"row {i}" for i in per_rank[-1]
        ]
    assert merge(per_rank) == padded(epoch_order("hf", n, 3), 46)
