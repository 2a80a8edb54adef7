"""``shuffle_table(..., parts=)``: a table split into files, the same as
``knuffle table --parts``: the parts in order are the table order, of the
exact sizes of the largest remainder method."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import knuffle


@pytest.fixture
def shards(tmp_path):
    d = tmp_path / "shards"
    d.mkdir()
    for i in range(3):
        rows = range(i * 400, (i + 1) * 400)
        pq.write_table(pa.table({"id": list(rows), "x": [float(r) / 2 for r in rows]}), d / f"part-{i}.parquet")
    return d


def test_parts_are_runs_of_the_table_order(shards, tmp_path):
    outs = [tmp_path / f"{name}.parquet" for name in ("train", "valid", "test")]
    report = knuffle.shuffle_table(shards, outs, seed="split", parts=[80, 10, 10])
    assert (report.rows_in, report.rows_out) == (1200, 1200)
    parts = [pq.read_table(out)["id"].to_pylist() for out in outs]
    assert [len(p) for p in parts] == [960, 120, 120]
    assert sum(parts, []) == knuffle.table_order("split", 1200).tolist()
    # A str and decimals give the same split.
    again = [tmp_path / f"again-{i}.parquet" for i in range(3)]
    knuffle.shuffle_table(shards, again, seed="split", parts="0.8,0.1,0.1")
    assert [pq.read_table(out)["id"].to_pylist() for out in again] == parts


def test_parts_mistakes_are_clear(shards, tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    # Named as Python names them: parts=, and the paths of dst.
    with pytest.raises(ValueError, match=r"parts= has 3 shares but 2 outputs were given \(a dst path per part"):
        knuffle.shuffle_table(shards, [a, b], seed="s", parts=[1, 1, 1])
    with pytest.raises(TypeError, match="needs parts="):
        knuffle.shuffle_table(shards, [a, b], seed="s")
    with pytest.raises(ValueError, match="cannot be combined"):
        knuffle.shuffle_table(shards, [a, b], seed="s", parts=[1, 1], shards=2)
    with pytest.raises(TypeError, match="parts= must be a list of numbers"):
        knuffle.shuffle_table(shards, [a, b], seed="s", parts=[1, True])
    with pytest.raises(ValueError, match="parts=: invalid parts"):
        knuffle.shuffle_table(shards, [a, b], seed="s", parts=[1, -1])
    with pytest.raises(ValueError, match="parts= has 1 share but 0 outputs"):
        knuffle.shuffle_table(shards, [], seed="s", parts=[1])
    assert not a.exists() and not b.exists()
