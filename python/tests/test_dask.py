"""knuffle.dask.shuffle: a permutation of the rows, the same order for any
partitioning, worker count and scheduler, exactly uniform (checked by
knuffle.audit, which flags ``ddf.sample(frac=1)``), and the same order when
a worker dies mid-run.

Statistical tests use fixed seeds, so each is decided once and for all; the
thresholds are knuffle.audit's (family-wise alpha = 0.001 with Holm's
correction), which a fair shuffler passes and a partition-local one fails.
"""

from __future__ import annotations

import os
import signal
import time
from itertools import permutations

import numpy as np
import pytest

# scripts/test-all installs dask[dataframe] and distributed: a missing one
# fails these tests rather than skipping them.
import dask
import dask.dataframe as dd
import pandas as pd
from dask.distributed import Client, LocalCluster

import knuffle
import knuffle.dask
from knuffle import _knuffle

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def cluster(workers: int) -> LocalCluster:
    """Worker processes on the loopback interface only, small memory."""
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        memory_limit="512MiB",
    )


@pytest.fixture(scope="module")
def client():
    with cluster(3) as c, Client(c) as cl:
        yield cl


@pytest.fixture()
def synchronous():
    # Dask picks its p2p shuffle whenever a distributed client exists (the
    # module's cluster, once started), and p2p needs distributed workers.
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        yield


def frame(n: int) -> pd.DataFrame:
    """Int, float, string, categorical and datetime columns, a custom index."""
    x = np.arange(n, dtype=np.int64)
    return pd.DataFrame(
        {
            "x": x,
            "f": x / 7.0,
            "s": pd.array([f"row {i}" for i in x], dtype="string"),
            "c": pd.Categorical(np.array(["red", "green", "blue"])[x % 3]),
            "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(x, unit="min"),
        },
        index=pd.Index(x * 10 + 3, name="id"),
    )


def order(df: pd.DataFrame, seed: str, partitions: int, npartitions=None) -> list[int]:
    ddf = dd.from_pandas(df, npartitions=partitions, sort=False)
    return knuffle.dask.shuffle(ddf, seed, npartitions).compute()["x"].tolist()


def assert_permutation_of(out: pd.DataFrame, df: pd.DataFrame) -> None:
    assert len(out) == len(df)
    assert out["x"].is_unique
    assert out.index.name == df.index.name
    pd.testing.assert_frame_equal(out.sort_values("x"), df)


# --- the Rust helpers -------------------------------------------------------


def test_labels_are_random_access_by_row_number():
    whole = _knuffle.table_labels("s", 0, 1000)
    assert whole.dtype == np.int64
    assert whole.min() >= 0 and whole.max() < 2**32
    assert (_knuffle.table_labels("s", 377, 200) == whole[377:577]).all()
    assert not (_knuffle.table_labels("t", 0, 1000) == whole).all()
    # Any row numbers, in any order (the engines' batches).
    rows = np.array([5, 3, 4, 999, 0, 1, 2], dtype=np.int64)
    at = _knuffle.table_labels_at("s", rows)
    assert at.dtype == np.uint32 and (at == whole[rows]).all()
    with pytest.raises(ValueError, match="2\\*\\*64"):
        _knuffle.table_labels("s", 2**64 - 5, 10)
    with pytest.raises(ValueError, match="negative row"):
        _knuffle.table_labels_at("s", np.array([1, -1]))


def test_labels_with_their_output_partitions():
    whole = _knuffle.table_labels("s", 0, 1000)
    for partitions in (1, 7, 2**31):
        labels, targets = _knuffle.table_labels_partitions("s", 377, 200, partitions)
        assert labels.dtype == np.uint32 and (labels == whole[377:577]).all()
        # Partition p holds the p-th of `partitions` equal label ranges.
        assert targets.dtype == np.int32
        assert (targets == (whole[377:577] * partitions) >> 32).all()
    # Every partition of 7 gets rows, in label order.
    labels, targets = _knuffle.table_labels_partitions("s", 0, 1000, 7)
    assert sorted(set(targets.tolist())) == list(range(7))
    assert (np.diff(targets[np.argsort(labels)]) >= 0).all()
    for bad in (0, 2**31 + 1):
        with pytest.raises(ValueError, match="partitions must be"):
            _knuffle.table_labels_partitions("s", 0, 10, bad)
    with pytest.raises(ValueError, match="2\\^64"):
        _knuffle.table_labels_partitions("s", 2**64 - 5, 10, 3)


def bucket(label: int, positions: list[int]) -> list[int]:
    """The bucket generator's order of tied rows (given in ascending row order)."""
    g = knuffle.Generator(f"knuffle table-order/v1 bucket {label}\ns")
    return np.array(positions)[g.permutation(len(positions))].tolist()


def test_order_sorts_by_label_and_shuffles_each_bucket_with_its_generator():
    order = _knuffle.table_order_partition
    dtype = np.uint32
    labels = np.array([5, 1, 5, 1, 9, 5, 5], dtype=dtype)
    rows = np.array([10, 11, 12, 13, 14, 15, 16], dtype=np.int64)
    got = order("s", labels, rows)

    assert got.tolist() == bucket(1, [1, 3]) + bucket(5, [0, 2, 5, 6]) + [4]
    # The order in which the rows arrive does not matter.
    shuffled = np.array([6, 4, 0, 3, 5, 1, 2])
    again = order("s", labels[shuffled], rows[shuffled])
    assert rows[shuffled][again].tolist() == rows[got].tolist()
    with pytest.raises(ValueError, match="appears twice"):
        order("s", np.array([1, 1], dtype=dtype), np.array([3, 3]))
    with pytest.raises(ValueError, match="labels for"):
        order("s", np.array([1, 1], dtype=dtype), np.array([3]))


def test_one_partition_ordered_in_one_call_is_the_reference_order():
    n = 50_000
    labels = _knuffle.table_labels("ref", 0, n).astype(np.uint32)
    rows = np.arange(n, dtype=np.int64)
    scrambled = np.random.default_rng(7).permutation(n)
    got = _knuffle.table_order_partition("ref", labels[scrambled], rows[scrambled])
    assert (rows[scrambled][got] == knuffle.table_order("ref", n)).all()


# --- permutation and reproducibility ---------------------------------------


def test_output_is_a_permutation_synchronous(synchronous):
    df = frame(1000)
    for partitions, npartitions in [(1, None), (7, None), (7, 3), (2, 11)]:
        ddf = dd.from_pandas(df, npartitions=partitions, sort=False)
        result = knuffle.dask.shuffle(ddf, "perm", npartitions)
        assert result.npartitions == (npartitions or partitions)
        out = result.compute()
        assert_permutation_of(out, df)
        assert out["x"].tolist() != sorted(out["x"])


def test_output_is_a_permutation_on_a_cluster(client):
    df = frame(3000)
    out = knuffle.dask.shuffle(dd.from_pandas(df, npartitions=5), "perm", 4).compute()
    assert_permutation_of(out, df)


def test_large_partitions_are_the_table_order_of_every_column(synchronous, monkeypatch):
    # Output partitions of 100,000 rows: their columns go through the Rust
    # gathers (smaller ones through pandas' iloc), including Python objects
    # and a nullable integer column; the result is the table order exactly.
    import knuffle._frames

    gathers = []
    for name in ("frame_gather_fixed", "frame_gather_objects", "frame_gather_varlen"):
        gather = getattr(_knuffle, name)
        monkeypatch.setattr(
            knuffle._frames._knuffle, name,
            lambda *args, _name=name, _gather=gather: gathers.append(_name) or _gather(*args),
        )
    n = 200_000
    df = frame(n)
    df["o"] = pd.Series([("obj", i) for i in range(n)], dtype=object, index=df.index)
    df["i"] = pd.array(np.where(np.arange(n) % 5 == 0, None, np.arange(n)), dtype="Int64")
    with dask.config.set({"dataframe.convert-string": False}):  # keep the objects
        ddf = dd.from_pandas(df, npartitions=3, sort=False)
        out = knuffle.dask.shuffle(ddf, "large", 2).compute()
    assert out["o"].dtype == object
    pd.testing.assert_frame_equal(out, df.iloc[knuffle.table_order("large", n)])
    # Each of the 2 output partitions: its objects, its Arrow text and one
    # call for the fixed-width columns.
    assert sorted(gathers) == sorted(
        ["frame_gather_fixed", "frame_gather_objects", "frame_gather_varlen"] * 2
    )


def test_rows_leave_their_partition(synchronous):
    df = frame(400)
    out = order(df, "move", 4)
    first_quarter = set(range(100))
    assert 0 < len(first_quarter & set(out[:100])) < 100


def test_same_order_for_any_partitioning_and_scheduler(synchronous):
    df = frame(500)
    reference = order(df, "same", 1)
    for partitions in (1, 3, 17):
        for npartitions in (None, 1, 4, 9):
            assert order(df, "same", partitions, npartitions) == reference
    with dask.config.set(scheduler="threads"):
        assert order(df, "same", 3) == reference
    assert order(df, "other", 3) != reference
    assert order(df, "same ", 3) != reference


def test_same_order_with_one_or_three_workers(client):
    df = frame(2000)
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        reference = order(df, "workers", 3)
    assert len(client.scheduler_info()["workers"]) == 3
    for partitions in (1, 3, 17):
        assert order(df, "workers", partitions) == reference
    ddf = dd.from_pandas(df, npartitions=3)
    tasks = knuffle.dask.shuffle(ddf, "workers", shuffle_method="tasks").compute()
    assert tasks["x"].tolist() == reference
    with cluster(1) as one, Client(one):
        assert order(df, "workers", 17) == reference


def test_series_keeps_its_name_and_order(synchronous):
    df = frame(300)
    out = knuffle.dask.shuffle(dd.from_pandas(df, npartitions=3)["s"], "series").compute()
    assert out.name == "s"
    assert out.tolist() == [f"row {i}" for i in order(df, "series", 5)]


def test_empty_and_one_row_inputs(synchronous):
    for n in (0, 1):
        df = frame(n)
        out = knuffle.dask.shuffle(dd.from_pandas(df, npartitions=1), "tiny", 3).compute()
        assert_permutation_of(out, df)


def test_bad_arguments_are_refused():
    ddf = dd.from_pandas(frame(10), npartitions=2)
    with pytest.raises(TypeError, match="seed must be a str"):
        knuffle.dask.shuffle(ddf, 42)
    with pytest.raises(TypeError, match="Dask DataFrame, Series or Array"):
        knuffle.dask.shuffle(frame(10), "s")
    with pytest.raises(ValueError, match="npartitions"):
        knuffle.dask.shuffle(ddf, "s", 0)
    with pytest.raises(TypeError, match="npartitions"):
        knuffle.dask.shuffle(ddf, "s", 2.0)
    with pytest.raises(ValueError, match="__knuffle_row"):
        knuffle.dask.shuffle(ddf.assign(__knuffle_row=1), "s")


def test_the_input_is_computed_once(synchronous, tmp_path):
    calls = tmp_path / "calls"

    def rows(part: int) -> pd.DataFrame:
        with open(calls, "a") as f:
            f.write(f"{part}\n")
        return pd.DataFrame({"x": np.arange(5 + part) + 100 * part})

    ddf = dd.from_map(rows, [0, 1, 2])
    calls.unlink()  # from_map read partition 0 for the metadata
    out = knuffle.dask.shuffle(ddf, "s", 2).compute()
    # Counting the rows and moving them read each partition once.
    assert sorted(calls.read_text().split()) == ["0", "1", "2"]
    assert sorted(out["x"]) == sorted(ddf.compute()["x"])


def test_a_partition_that_changes_length_is_refused():
    from knuffle.dask import _label

    part = pd.DataFrame({"x": np.arange(4)})
    with pytest.raises(RuntimeError, match="same rows each time"):
        _label(part, pd.Series([9]), pd.Series([5]), "s", 2)


# --- uniformity, with ddf.sample(frac=1) as the biased control -------------


def small_orders(shuffle, n: int, seeds: int) -> np.ndarray:
    """The order of n rows, one row per partition, for each seed."""
    ddf = dd.from_pandas(pd.DataFrame({"x": np.arange(n)}), npartitions=n)
    return np.array([shuffle(ddf, i).compute()["x"].to_numpy() for i in range(seeds)])


def test_full_permutation_test_over_many_seeds(synchronous):
    # 300 seeds, 50 expected per order of 3 rows (one row per partition).
    fair = small_orders(lambda ddf, i: knuffle.dask.shuffle(ddf, f"full {i}"), 3, 300)
    report = knuffle.audit(fair)
    assert not report.biased, str(report)
    local = small_orders(lambda ddf, i: ddf.sample(frac=1, random_state=i), 3, 30)
    assert knuffle.audit(local).biased


def patterns(order: np.ndarray, k: int) -> np.ndarray:
    """The relative order of the rows {j, j+m, ..., j+(k-1)m} for each j (m =
    n/k): in a uniform permutation these are independent and uniform over
    the k! orders (disjoint sets of rows), so one shuffle of n rows gives m
    samples of a k-row shuffle, each spread over k input partitions."""
    m = len(order) // k
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return np.argsort(position.reshape(k, m).T, axis=1)


def test_five_row_orders_over_five_partitions(synchronous):
    k, m = 5, 4000
    ddf = dd.from_pandas(pd.DataFrame({"x": np.arange(k * m)}), npartitions=k)
    samples = np.concatenate([
        patterns(knuffle.dask.shuffle(ddf, f"five {s}", 2).compute()["x"].to_numpy(), k)
        for s in range(4)
    ])
    assert len({tuple(p) for p in samples.tolist()}) == len(list(permutations(range(k))))
    report = knuffle.audit(samples)
    assert not report.biased, str(report)
    local = patterns(ddf.sample(frac=1, random_state=1).compute()["x"].to_numpy(), k)
    assert knuffle.audit(local).biased


@pytest.mark.parametrize("bits", [2, 1])
def test_five_row_orders_with_tiny_buckets(bits):
    # Labels cut to 1 or 2 bits put thousands of rows in each bucket, so the
    # per-bucket shuffle (the one the engines run on each partition) decides
    # almost everything.
    k, m = 5, 4000
    rows = np.arange(k * m, dtype=np.int64)
    samples = []
    for s in range(4):
        labels = (_knuffle.table_labels(f"tiny {s}", 0, k * m) >> (32 - bits)).astype(np.uint32)
        samples.append(patterns(_knuffle.table_order_partition(f"tiny {s}", labels, rows), k))
    report = knuffle.audit(np.concatenate(samples))
    assert not report.biased, str(report)
    # Ties left in row order (no bucket shuffle) are caught.
    labels = (_knuffle.table_labels("tiny 0", 0, k * m) >> (32 - bits)).astype(np.uint32)
    assert knuffle.audit(patterns(np.argsort(labels, kind="stable"), k)).biased


def test_position_test_at_ten_thousand_rows(synchronous):
    ddf = dd.from_pandas(pd.DataFrame({"x": np.arange(10_000)}), npartitions=4)
    fair = np.array([
        knuffle.dask.shuffle(ddf, f"positions {s}", 4).compute()["x"].to_numpy()
        for s in range(8)
    ])
    report = knuffle.audit(fair)
    assert not report.biased, str(report)
    local = np.array([
        ddf.sample(frac=1, random_state=s).compute()["x"].to_numpy() for s in range(8)
    ])
    assert knuffle.audit(local).biased


# --- a worker dies mid-run -------------------------------------------------


def slow_rows(part: int, delay: float = 0.25) -> pd.DataFrame:
    time.sleep(delay)
    x = np.arange(part * 200, (part + 1) * 200)
    return pd.DataFrame({"x": x, "s": [f"r{i}" for i in x]})


@pytest.mark.parametrize("method", ["tasks", "p2p"])
def test_same_order_when_a_worker_is_killed_mid_run(client, method):
    ddf = dd.from_map(slow_rows, list(range(16)))
    # The same rows without the delay, on the synchronous scheduler.
    rows = pd.concat([slow_rows(p, 0) for p in range(16)])
    fast = dd.from_pandas(rows, npartitions=3, sort=False)
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        reference = knuffle.dask.shuffle(fast, "kill").compute()["x"].tolist()
    assert sorted(reference) == list(range(3200))

    result = knuffle.dask.shuffle(ddf, "kill", shuffle_method=method)
    future = client.compute(result)
    pids = client.run(os.getpid)
    # Kill a worker that is running tasks of this computation.
    busy: list[str] = []
    deadline = time.monotonic() + 60
    while not busy and time.monotonic() < deadline:
        time.sleep(0.1)
        busy = [w for w, tasks in client.processing().items() if tasks]
    assert busy and not future.done(), "the run ended before a worker could be killed"
    victim = busy[0]
    os.kill(pids[victim], signal.SIGKILL)
    out = future.result(timeout=120)
    assert out["x"].tolist() == reference
    # The nanny started a new worker process in place of the killed one.
    client.wait_for_workers(3, timeout=60)
    assert pids[victim] not in client.run(os.getpid).values()


# --- Dask Array along axis 0 -------------------------------------------------


def test_array_rows_follow_the_dataframe_order(synchronous):
    import dask.array as da

    a = np.arange(3000, dtype=np.int64).reshape(1000, 3)
    df_order = order(pd.DataFrame({"x": np.arange(1000)}), "array", 3)
    for chunk in (1000, 170, 7):
        out = knuffle.dask.shuffle(da.from_array(a, chunks=(chunk, 3)), "array")
        assert (out.compute() == a[df_order]).all()
    out = knuffle.dask.shuffle(da.from_array(a, chunks=(170, 3)), "array", npartitions=4)
    assert len(out.chunks[0]) == 4
    assert knuffle.dask.shuffle(da.from_array(np.arange(0)), "array").compute().size == 0
    with pytest.raises(ValueError, match="0-dimensional"):
        knuffle.dask.shuffle(da.from_array(np.int64(3)), "array")
    unknown = da.from_array(np.arange(10), chunks=5)
    unknown = unknown[unknown > 2]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        knuffle.dask.shuffle(unknown, "array")


def test_parquet_in_parquet_out_with_a_column_selected_later(synchronous, tmp_path):
    df = frame(600)
    dd.from_pandas(df, npartitions=6, sort=False).to_parquet(tmp_path / "in")
    ddf = dd.read_parquet(tmp_path / "in")
    reference = order(df, "parquet", 2)
    shuffled = knuffle.dask.shuffle(ddf, "parquet", 4)
    # A column chosen after the shuffle must not change the partitions the
    # shuffle counted (Dask's optimizer projects columns into the reader).
    assert shuffled["x"].compute().tolist() == reference
    shuffled.to_parquet(tmp_path / "out")
    out = dd.read_parquet(tmp_path / "out").compute()
    assert out["x"].tolist() == reference
    assert_permutation_of(out, df)
