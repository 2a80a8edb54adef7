"""knuffle.torch.TableDataset with the real torch DataLoader (num_workers 0
and 2) and torchdata's StatefulDataLoader: every consumer together yields
the epoch once, each consumer its positions of the epoch order, whatever
the ranks and workers; a state restored (with the same or other ranks)
continues with exactly the rows not yet seen."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import knuffle
from conftest import require_packages

require_packages("torch", "torchdata", module_level=True)

import torch  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402
from torchdata.stateful_dataloader import StatefulDataLoader  # noqa: E402

from knuffle.torch import TableDataset  # noqa: E402

N = 5000


def epoch_seed(seed: str, epoch: int) -> str:
    return seed if epoch == 0 else f"knuffle epoch {epoch}: {seed}"


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    d = tmp_path_factory.mktemp("torch_table") / "shards"
    d.mkdir()
    t = pa.table(
        {
            "id": pa.array(np.arange(N, dtype=np.int64)),
            "feature": pa.array([[float(i), -float(i), 0.5] for i in range(N)], pa.list_(pa.float32())),
            "text": pa.array([f"t{i}" for i in range(N)]),
        }
    )
    for i, a in enumerate(range(0, N, 1300)):
        pq.write_table(t.slice(a, 1300), d / f"part-{i:05d}.parquet", row_group_size=500)
    return d


def positions(seed: str, epoch: int) -> np.ndarray:
    """The position of each row in the epoch order."""
    order = knuffle.table_order(epoch_seed(seed, epoch), N)
    inverse = np.empty(N, dtype=np.int64)
    inverse[order] = np.arange(N)
    return inverse


def batch_ids(batches) -> list[np.ndarray]:
    return [b["id"].numpy() for b in batches]


def assert_consumer_runs(batches: list[np.ndarray], at: np.ndarray, consumers: int) -> None:
    """Each batch is consecutive positions of one consumer: a run with step
    `consumers`."""
    for ids in batches:
        p = at[ids]
        assert (np.diff(p) == consumers).all(), p[:10]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_dataloader_yields_the_epoch_once_in_consumer_runs(shards, workers):
    at = positions("loader", 4)
    dataset = TableDataset(shards, "loader", epoch=4, batch_size=64, rank=0, world_size=1)
    loader = DataLoader(dataset, batch_size=None, num_workers=workers)
    batches = batch_ids(loader)
    seen = np.concatenate(batches)
    assert sorted(at[seen].tolist()) == list(range(N))
    assert_consumer_runs(batches, at, max(workers, 1))
    if workers == 0:
        # One consumer: the epoch order itself.
        assert (at[seen] == np.arange(N)).all()


@pytest.mark.parametrize("world_size,workers", [(1, 2), (2, 0), (3, 2), (4, 1)])
def test_any_topology_merges_to_the_epoch_order(shards, world_size, workers):
    at = positions("topology", 0)
    merged = np.full(N, -1)
    for rank in range(world_size):
        dataset = TableDataset(shards, "topology", batch_size=50, rank=rank, world_size=world_size)
        for ids in batch_ids(DataLoader(dataset, batch_size=None, num_workers=workers)):
            p = at[ids]
            assert (merged[p] == -1).all()
            merged[p] = ids
            # Consumer rank + world_size * worker of world_size * workers.
            consumer = p[0] % (world_size * max(workers, 1))
            assert consumer % world_size == rank
    assert (merged == knuffle.table_order("topology", N)).all()


def test_rows_tensors_and_numpy(shards):
    rows = list(DataLoader(TableDataset(shards, "rows", rank=0, world_size=1), batch_size=7))
    first = rows[0]
    assert first["id"].dtype == torch.int64 and first["id"].shape == (7,)
    assert first["feature"].dtype == torch.float32 and first["feature"].shape == (7, 3)
    assert first["text"] == [f"t{i}" for i in first["id"].tolist()]
    assert (first["feature"][:, 1] == -first["id"].to(torch.float32)).all()
    order = knuffle.table_order("rows", N).tolist()
    assert torch.cat([r["id"] for r in rows]).tolist() == order
    batch = next(iter(TableDataset(shards, "rows", batch_size=10, output="numpy", rank=0, world_size=1)))
    assert isinstance(batch["id"], np.ndarray) and batch["feature"].shape == (10, 3)
    assert batch["id"].tolist() == order[:10]


WRITABLE = textwrap.dedent(
    """
    import sys, warnings
    from knuffle.torch import TableDataset
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = next(iter(TableDataset(sys.argv[1], "rows", batch_size=10, rank=0, world_size=1)))
    assert [str(w.message) for w in caught] == [], caught
    first["id"] += 1  # the tensor's own memory, not the batch's
    print(first["id"].tolist())
    """
)


def test_tensors_are_writable_without_a_warning(shards):
    """torch warns once a process about a tensor over read-only memory (an
    Arrow buffer): in a fresh process, no warning, and an in-place
    operation works on the tensor's own copy."""
    out = subprocess.run([sys.executable, "-c", WRITABLE, str(shards)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{[row + 1 for row in knuffle.table_order('rows', N)[:10].tolist()]}\n"


@pytest.mark.parametrize("workers", [0, 2])
def test_stateful_dataloader_resumes_to_the_row(shards, workers):
    at = positions("resume", 1)

    def loader():
        dataset = TableDataset(shards, "resume", epoch=1, batch_size=32, rank=0, world_size=1)
        return StatefulDataLoader(dataset, batch_size=None, num_workers=workers)

    first = loader()
    seen = []
    for k, batch in enumerate(first):
        seen.append(batch["id"].numpy())
        if k == 40:
            state = first.state_dict()
            break
    del first  # the run is killed here
    second = loader()
    second.load_state_dict(state)
    rest = batch_ids(second)
    union = np.concatenate(seen + rest)
    assert sorted(at[union].tolist()) == list(range(N)), "rows lost or repeated"
    assert_consumer_runs(rest, at, max(workers, 1))
    if workers == 0:
        assert (at[union] == np.arange(N)).all()


def test_resume_with_other_ranks(shards):
    """Two ranks in lockstep take 20 batches each; the state restored on
    three ranks deals exactly the rows not yet seen."""
    seen = []
    datasets = [TableDataset(shards, "ranks", batch_size=25, rank=r, world_size=2) for r in range(2)]
    iterators = [iter(d) for d in datasets]
    for _ in range(20):
        for it in iterators:
            seen.append(next(it)["id"].numpy())
    state = datasets[1].state_dict()
    assert state["rows_seen"] == 2 * 20 * 25 == datasets[0].state_dict()["rows_seen"]
    rest = []
    for rank in range(3):
        dataset = TableDataset(shards, "ranks", batch_size=25, rank=rank, world_size=3)
        dataset.load_state_dict(state)
        rest.extend(batch["id"].numpy() for batch in dataset)
    at = positions("ranks", 0)
    assert sorted(at[np.concatenate(seen)].tolist()) == list(range(1000))
    assert sorted(at[np.concatenate(rest)].tolist()) == list(range(1000, N))


def test_states_of_other_seeds_or_data_are_refused(shards, tmp_path):
    dataset = TableDataset(shards, "mine", batch_size=10, rank=0, world_size=1)
    next(iter(dataset))
    state = dataset.state_dict()
    with pytest.raises(ValueError, match="another seed"):
        TableDataset(shards, "other", rank=0, world_size=1).load_state_dict(state)
    with pytest.raises(ValueError, match="another dataset"):
        TableDataset(shards, "mine", columns=["id"], rank=0, world_size=1).load_state_dict(state)
    with pytest.raises(ValueError, match="not a TableDataset state"):
        dataset.load_state_dict({"rows_seen": 3})
    with pytest.raises(ValueError, match="rank="):
        TableDataset(shards, "mine", rank=3, world_size=3)
    # set_epoch starts the next epoch from its first row.
    dataset.set_epoch(2)
    first = next(iter(dataset))["id"].tolist()
    assert first == knuffle.table_order(epoch_seed("mine", 2), N)[:10].tolist()
