"""knuffle.ray.shuffle on a local Ray runtime (one per run, conftest.py): a
permutation of the rows, the table order (the same as knuffle.table_order
and knuffle.dask.shuffle) for 1, 3 and 11 input blocks and any number of
output blocks; exactly uniform by knuffle.audit, which flags Ray's own
ds.random_shuffle on 2 blocks of 2 rows (its equal slices).

Statistical tests use fixed seeds, so each is decided once and for all.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import knuffle
import knuffle.ray


def rows_frame(n: int) -> pd.DataFrame:
    """int, float, string with nulls and datetime columns."""
    x = np.arange(n, dtype=np.int64)
    return pd.DataFrame({
        "id": x,
        "f": x / 7.0,
        "s": pd.array([None if i % 5 == 0 else f"row {i}" for i in x], dtype="string"),
        "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(x, unit="min"),
    })


def dataset(ray, n: int, blocks: int):
    """The rows of rows_frame(n) as ``blocks`` Arrow blocks, in order."""
    table = pa.Table.from_pandas(rows_frame(n), preserve_index=False)
    cuts = np.linspace(0, n, blocks + 1).astype(int)
    parts = [table.slice(a, b - a) for a, b in zip(cuts[:-1], cuts[1:])]
    return ray.data.from_arrow(parts)


def ids(ds) -> list[int]:
    return [r["id"] for r in ds.take_all()]


def test_output_is_a_permutation_with_strings_and_nulls(ray_runtime):
    ds = dataset(ray_runtime, 600, 3)
    out = knuffle.ray.shuffle(ds, "perm").to_pandas()
    expected = rows_frame(600)
    assert out["id"].tolist() != list(range(600))
    pd.testing.assert_frame_equal(
        out.sort_values("id").reset_index(drop=True), expected, check_dtype=False
    )
    assert out["s"].isna().sum() == 120


def test_the_table_order_for_1_3_and_11_blocks(ray_runtime):
    n = 2000
    reference = knuffle.table_order("same", n).tolist()
    for blocks in (1, 3, 11):
        ds = dataset(ray_runtime, n, blocks)
        assert ids(knuffle.ray.shuffle(ds, "same")) == reference, blocks
        out = knuffle.ray.shuffle(ds, "same", num_blocks=4)
        assert out.num_blocks() == 4
        assert ids(out) == reference
    # A dataset computed by Ray Data's own read and map tasks.
    ranged = ray_runtime.data.range(n, override_num_blocks=7).map_batches(
        lambda b: {"id": b["id"], "y": b["id"] * 2}
    )
    assert ids(knuffle.ray.shuffle(ranged, "same", 3)) == reference
    assert ids(knuffle.ray.shuffle(dataset(ray_runtime, n, 3), "other")) != reference


def test_same_order_as_knuffle_dask(ray_runtime):
    import dask
    import dask.dataframe as dd

    import knuffle.dask

    df = rows_frame(1500)
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        expected = knuffle.dask.shuffle(dd.from_pandas(df, npartitions=4), "engines").compute()
    got = ids(knuffle.ray.shuffle(dataset(ray_runtime, 1500, 5), "engines"))
    assert got == expected["id"].tolist()


def test_empty_and_one_row_inputs(ray_runtime):
    assert ids(knuffle.ray.shuffle(dataset(ray_runtime, 1, 1), "tiny", 3)) == [0]
    empty = ray_runtime.data.from_arrow(pa.table({"id": pa.array([], pa.int64())}))
    assert ids(knuffle.ray.shuffle(empty, "tiny")) == []


def test_bad_arguments_are_refused(ray_runtime):
    ds = dataset(ray_runtime, 10, 2)
    with pytest.raises(TypeError, match="seed must be a str"):
        knuffle.ray.shuffle(ds, 42)
    with pytest.raises(TypeError, match="Ray Dataset"):
        knuffle.ray.shuffle(rows_frame(3), "s")
    with pytest.raises(ValueError, match="num_blocks"):
        knuffle.ray.shuffle(ds, "s", 0)
    with pytest.raises(TypeError, match="num_blocks"):
        knuffle.ray.shuffle(ds, "s", 1.5)


# --- uniformity, with Ray's random_shuffle as the biased control ------------


def four_rows(ray):
    """4 rows in 2 blocks of 2."""
    return ray.data.from_arrow([pa.table({"id": [0, 1]}), pa.table({"id": [2, 3]})])


def test_random_shuffle_is_biased_and_knuffle_is_not_on_two_blocks_of_two(ray_runtime):
    ds = four_rows(ray_runtime)
    # 24 orders of 4 rows; 144 seeds, 6 expected per order.
    fair = np.array([ids(knuffle.ray.shuffle(ds, f"four {s}", 2)) for s in range(144)])
    report = knuffle.audit(fair)
    assert not report.biased, str(report)
    assert len({tuple(r) for r in fair.tolist()}) > 20
    # Ray cuts each shuffled block into equal slices, one per output block:
    # rows 0 and 1 (one input block) never share an output block.
    ray_orders = np.array([ids(ds.random_shuffle(seed=s)) for s in range(24)])
    assert knuffle.audit(ray_orders).biased
    assert all({r[0], r[1]} not in ({0, 1}, {2, 3}) for r in ray_orders.tolist())


def test_positions_at_ten_thousand_rows(ray_runtime):
    ds = dataset(ray_runtime, 10_000, 4)
    fair = np.array([ids(knuffle.ray.shuffle(ds, f"positions {s}", 4)) for s in range(6)])
    report = knuffle.audit(fair)
    assert not report.biased, str(report)
    # Ray's block-local shuffle (each block shuffled, blocks kept in place).
    local = np.array([
        ids(ds.map_batches(lambda b, s=s: b.sample(frac=1, random_state=s), batch_format="pandas"))
        for s in range(6)
    ])
    assert knuffle.audit(local).biased


def test_a_block_is_cut_by_label_range_keeping_row_order():
    # table_cut (Rust, a counting sort) against numpy: labels, their label
    # range, a stable sort by range, and where each range begins.
    from knuffle import _knuffle
    from knuffle._engines import partition_of

    for start, count, partitions in [(0, 0, 3), (5, 1000, 1), (123_456, 5000, 7), (10, 300, 1000)]:
        positions, labels, bounds = _knuffle.table_cut("cut", start, count, partitions)
        expected = _knuffle.table_labels("cut", start, count).astype(np.uint32)
        targets = partition_of(expected, partitions)
        order = np.argsort(targets, kind="stable")
        assert positions.tolist() == order.tolist()
        assert labels.tolist() == expected[order].tolist()
        ranges = np.searchsorted(targets[order], np.arange(partitions + 1))
        assert bounds.tolist() == ranges.tolist()
    for partitions in (0, 2**31 + 1):
        with pytest.raises(ValueError, match="partitions must be in"):
            _knuffle.table_cut("cut", 0, 10, partitions)
    with pytest.raises(ValueError, match="past 2\\^64"):
        _knuffle.table_cut("cut", 2**64 - 5, 10, 2)


def test_the_example_of_docs_ray_md_runs(ray_runtime, tmp_path, monkeypatch):
    """docs/ray.md's python blocks, verbatim, on this run's Ray runtime."""
    from conftest import REPO
    from test_docs import python_blocks

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = python_blocks(REPO / "docs" / "ray.md")
    assert blocks
    for line, code, reason in blocks:
        assert reason is None, f"docs/ray.md:{line} is not run: {reason}"
        exec(compile(code, f"docs/ray.md:{line}", "exec"), namespace)
