"""Generator.shuffle_frame: pandas, polars, pyarrow."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import knuffle

N = 101


def frame_data():
    return {"i": np.arange(N), "s": [f"row{i}" for i in range(N)], "f": np.arange(N) * 0.25}


def test_pandas_rows_and_index_move_together():
    df = pd.DataFrame(frame_data(), index=[f"k{i}" for i in range(N)])
    out = knuffle.Generator("frame").shuffle_frame(df)
    order = knuffle.Generator("frame").permutation(N)
    assert (out["i"].to_numpy() == order).all()
    assert list(out.index) == [f"k{i}" for i in order]
    assert (out["s"] == "row" + out["i"].astype(str)).all()
    assert (df["i"].to_numpy() == np.arange(N)).all()  # input unchanged
    series = knuffle.Generator("frame").shuffle_frame(df["i"])
    assert (series.to_numpy() == order).all()


def test_polars_and_pyarrow():
    order = knuffle.Generator("frame").permutation(N)
    out = knuffle.Generator("frame").shuffle_frame(pl.DataFrame(frame_data()))
    assert isinstance(out, pl.DataFrame) and out["i"].to_list() == order.tolist()
    assert out["s"].to_list() == [f"row{i}" for i in order]
    table = pa.table(frame_data())
    out = knuffle.Generator("frame").shuffle_frame(table)
    assert isinstance(out, pa.Table) and out.column("i").to_pylist() == order.tolist()
    batch = pa.RecordBatch.from_pydict(frame_data())
    assert knuffle.Generator("frame").shuffle_frame(batch).column(0).to_pylist() == order.tolist()


def test_empty_frames():
    assert len(knuffle.Generator("e").shuffle_frame(pd.DataFrame({"a": []}))) == 0
    assert knuffle.Generator("e").shuffle_frame(pa.table({"a": pa.array([], pa.int64())})).num_rows == 0


def test_unsupported_frames():
    g = knuffle.Generator("e")
    with pytest.raises(TypeError, match="collect"):
        g.shuffle_frame(pl.DataFrame(frame_data()).lazy())
    for bad in (np.arange(3), [1, 2], {"a": [1]}):
        with pytest.raises(TypeError, match="shuffle_frame takes"):
            g.shuffle_frame(bad)
