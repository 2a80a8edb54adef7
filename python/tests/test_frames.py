"""Generator.shuffle_frame: pandas, polars, pyarrow."""

import gc
import sys

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


# -- the rows end in the order permutation(len(df)) gives, whatever the column types ---------

PINNED = [9, 10, 5, 11, 2, 3, 8, 0, 7, 6, 1, 4]  # Generator("pinned order").permutation(12), before 0.2


@pytest.mark.parametrize("threads", [1, 2])
def test_order_is_pinned_for_every_library(threads, gather_small_frames):
    data = {"x": list(range(12)), "s": [f"v{i}" for i in range(12)]}

    def shuffle(df):
        return knuffle.Generator("pinned order", threads=threads).shuffle_frame(df)

    assert shuffle(pd.DataFrame(data))["x"].tolist() == PINNED
    assert list(shuffle(pd.DataFrame(data)).index) == PINNED
    assert shuffle(pd.Series(data["s"])).tolist() == [f"v{i}" for i in PINNED]
    assert shuffle(pl.DataFrame(data))["x"].to_list() == PINNED
    assert shuffle(pa.table(data)).column("s").to_pylist() == [f"v{i}" for i in PINNED]
    assert shuffle(pa.RecordBatch.from_pydict(data)).column("x").to_pylist() == PINNED


def varied_frame(n):
    rng = np.random.default_rng(7)
    ints = rng.integers(-100, 100, n)
    cols = {f"{t}": ints.astype(t) for t in ("int8", "int16", "int32", "int64")}
    cols |= {f"{t}": np.abs(ints).astype(t) for t in ("uint8", "uint16", "uint32", "uint64")}
    cols["float32"] = rng.random(n).astype(np.float32)
    cols["float64"] = rng.random(n)
    cols["complex"] = rng.random(n) + 1j
    cols["bool"] = ints > 0
    cols["when"] = pd.date_range("2020-01-01", periods=n, freq="h")
    cols["when_s"] = np.arange(n).astype("datetime64[s]")
    cols["when_tz"] = pd.date_range("2020-01-01", periods=n, freq="min", tz="Europe/Berlin")
    cols["delta"] = pd.to_timedelta(np.arange(n), unit="s")
    cols["category"] = pd.Categorical([["a", "b", "c"][i % 3] for i in range(n)])
    cols["Int64"] = pd.array([None if i % 5 == 0 else i for i in range(n)], dtype="Int64")
    cols["boolean"] = pd.array([None if i % 4 == 0 else i % 2 == 0 for i in range(n)], dtype="boolean")
    cols["str"] = [None if i % 7 == 0 else f"s{i}" * (i % 4) for i in range(n)]
    cols["string[pyarrow]"] = pd.array([None if i % 6 == 0 else f"p{i}" for i in range(n)], dtype="string[pyarrow]")
    cols["string[python]"] = pd.array([f"q{i}" for i in range(n)], dtype="string[python]")
    cols["object"] = pd.Series([i if i % 2 else f"o{i}" for i in range(n)], dtype=object)
    cols["object_str"] = pd.Series([f"x{i}" for i in range(n)], dtype=object)
    cols["arrow_int"] = pd.array(list(range(n)), dtype="int32[pyarrow]")
    cols["arrow_float_null"] = pd.array([None if i % 3 == 0 else i / 2 for i in range(n)], dtype="float64[pyarrow]")
    cols["arrow_bool"] = pd.array([None if i % 3 == 0 else i % 2 == 1 for i in range(n)], dtype="bool[pyarrow]")
    cols["arrow_binary"] = pd.array([bytes([i % 256]) * (i % 3) for i in range(n)], dtype=pd.ArrowDtype(pa.binary()))
    cols["arrow_list"] = pd.array([[i, i] for i in range(n)], dtype=pd.ArrowDtype(pa.list_(pa.int64())))
    cols["period"] = pd.period_range("2020-01", periods=n, freq="M")
    cols["interval"] = pd.arrays.IntervalArray.from_breaks(np.arange(n + 1))
    return pd.DataFrame(cols)


def expect_equal_to_iloc(df, seed="varied", threads=2):
    out = knuffle.Generator(seed, threads=threads).shuffle_frame(df)
    expected = df.iloc[knuffle.Generator(seed).permutation(len(df))]
    if isinstance(df, pd.Series):
        pd.testing.assert_series_equal(out, expected, check_exact=True)
    else:
        pd.testing.assert_frame_equal(out, expected, check_exact=True)
        assert list(out.columns) == list(df.columns)
    assert out.attrs == df.attrs and out.flags.allows_duplicate_labels == df.flags.allows_duplicate_labels
    return out


@pytest.fixture
def gather_small_frames(monkeypatch):
    """Small frames through the Rust gathers too (they go through iloc by default)."""
    from knuffle import _frames

    monkeypatch.setattr(_frames, "_MIN_ROWS", 0)


@pytest.mark.parametrize("n", [0, 1, 2, 101])
def test_pandas_equals_iloc_for_every_dtype(n, gather_small_frames):
    df = varied_frame(n)
    df.attrs["source"] = "test"
    out = expect_equal_to_iloc(df)
    assert out.dtypes.to_dict() == df.dtypes.to_dict()
    for name in df.columns:
        expect_equal_to_iloc(df[name])


def test_pandas_columns_indexes_and_layouts(gather_small_frames):
    n = 50
    values = np.arange(n * 3, dtype=np.int64).reshape(3, n).T  # column-major: contiguous columns
    wide = pd.DataFrame(values, columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1)]))
    wide.index = [i % 7 for i in range(n)]  # a non-unique index
    expect_equal_to_iloc(wide)
    dup = pd.DataFrame(np.arange(n * 2).reshape(n, 2), columns=["x", "x"], index=pd.date_range("2021", periods=n))
    expect_equal_to_iloc(dup)
    c_order = pd.DataFrame(np.ascontiguousarray(values), index=pd.RangeIndex(10, 10 + 2 * n, 2))  # strided
    out = expect_equal_to_iloc(c_order)
    assert out.index.tolist() == [10 + 2 * i for i in knuffle.Generator("varied").permutation(n)]
    expect_equal_to_iloc(pd.DataFrame(index=range(5)))  # rows, no columns
    expect_equal_to_iloc(pd.DataFrame())
    expect_equal_to_iloc(pd.Series(np.arange(9.0)[::3], name="every third"))  # a strided Series
    sliced = pd.Series(pa.array([f"s{i}" for i in range(20)])[5:15], dtype=pd.ArrowDtype(pa.string()))
    expect_equal_to_iloc(sliced)
    expect_equal_to_iloc(pd.DataFrame({"s": pd.array(["a", None] * 10, dtype="string[pyarrow]")}).iloc[3:])


@pytest.mark.parametrize("threads", [1, 2])
def test_large_frames_gathered_on_threads_equal_iloc(threads):
    n = (1 << 21) + 3  # over the threshold where the gathers run on the pool
    df = pd.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "x": np.arange(n) * 0.5,
        "label": pd.Series(np.arange(n) % 1000).astype(str),
        "object": pd.Series(np.arange(n) % 1000, dtype=object),  # pointers copied on the pool
    })
    out = expect_equal_to_iloc(df, "large", threads)
    assert (out["label"] == (out["id"] % 1000).astype(str)).all()
    assert (out["object"] == out["id"] % 1000).all()


def test_pyarrow_equals_take_for_every_type(gather_small_frames):
    n = 101
    data = {
        "i8": pa.array(range(n), pa.int8()), "u64": pa.array(range(n), pa.uint64()),
        "f16": pa.array(np.arange(n, dtype=np.float16)), "f32": pa.array([None if i % 3 else i / 3 for i in range(n)], pa.float32()),
        "bool": pa.array([None if i % 5 == 0 else i % 3 == 0 for i in range(n)]),
        "ts": pa.array(range(n), pa.timestamp("us", tz="UTC")), "date": pa.array(range(n), pa.date32()),
        "dec": pa.array([None if i % 4 == 0 else i for i in range(n)], pa.decimal128(20, 2)),
        "s": pa.array([None if i % 7 == 0 else f"s{i}" for i in range(n)]),
        "ls": pa.array([f"L{i}" * (i % 3) for i in range(n)], pa.large_string()),
        "bin": pa.array([bytes([i]) for i in range(n)], pa.binary()),
        "dict": pa.array([f"d{i % 4}" for i in range(n)]).dictionary_encode(),
        "list": pa.array([[i] for i in range(n)]),
    }
    table = pa.table(data).replace_schema_metadata({"origin": "test"})
    table = pa.concat_tables([table.slice(0, 40), table.slice(40)])  # several chunks
    order = knuffle.Generator("arrow").permutation(n)
    out = knuffle.Generator("arrow").shuffle_frame(table)
    expected = table.take(order)
    assert out.schema == expected.schema and out.schema.metadata == expected.schema.metadata
    assert out.equals(expected)
    batch = pa.RecordBatch.from_pydict({k: v for k, v in data.items()}).slice(3, 90)
    out = knuffle.Generator("arrow").shuffle_frame(batch)
    assert isinstance(out, pa.RecordBatch)
    assert out.equals(batch.take(knuffle.Generator("arrow").permutation(90)))


def test_polars_equals_its_gather():
    df = pl.DataFrame({"i": range(N), "s": [f"r{i}" for i in range(N)], "f": [None, 1.5] * 50 + [2.0]})
    out = knuffle.Generator("polars").shuffle_frame(df)
    assert out.equals(df[knuffle.Generator("polars").permutation(N)])
    assert knuffle.Generator("polars").shuffle_frame(df["s"]).to_list() == out["s"].to_list()


def test_the_gathers_refuse_bad_input():
    from knuffle import _knuffle

    order = np.array([1, 0, 2], dtype=np.int64)
    with pytest.raises(ValueError, match="outside 0..3"):
        _knuffle.frame_gather_fixed(np.array([0, 3, 1]), [np.arange(3)], [np.empty(3, np.int64)], 1)
    with pytest.raises(ValueError, match="Python objects"):
        _knuffle.frame_gather_fixed(order, [np.array([1, "a", None], dtype=object)], [np.empty(3, object)], 1)
    with pytest.raises(ValueError, match="writeable"):
        _knuffle.frame_gather_fixed(order, [np.arange(3)], [np.arange(6)[::2]], 1)
    read_only = np.empty(3, np.int64)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        _knuffle.frame_gather_fixed(order, [np.arange(3)], [read_only], 1)
    shared = np.empty(3, np.int64)
    with pytest.raises(ValueError, match="new"):  # one output twice: two writers of the same bytes
        _knuffle.frame_gather_fixed(order, [np.arange(3), np.arange(3)], [shared, shared], 1)
    both = np.arange(6, dtype=np.int64)
    with pytest.raises(ValueError, match="new"):  # an output overlapping a source
        _knuffle.frame_gather_fixed(order, [both[:3]], [both[2:5]], 1)
    with pytest.raises(ValueError, match="new"):  # an output overlapping the order
        _knuffle.frame_gather_fixed(order, [np.arange(3)], [order], 1)
    with pytest.raises(ValueError, match="shorter"):
        _knuffle.frame_gather_bits(order, np.zeros(1, np.uint8), 2**64 - 2, 3, 1)
    with pytest.raises(ValueError, match="do not fit"):
        _knuffle.frame_gather_varlen(order, np.array([0, 2, 9, 4], np.int32), np.zeros(4, np.uint8), 1)
    offsets, data = _knuffle.frame_gather_varlen(order, np.array([0, 2, 3, 3], np.int64), np.frombuffer(b"abc", np.uint8), 1)
    assert offsets.tolist() == [0, 1, 3, 3] and data.tobytes() == b"cab"
    assert _knuffle.frame_gather_bits(order, np.array([0b101 << 1], np.uint8), 1, 3, 1).tolist() == [0b110]


def test_small_and_wide_frames_equal_iloc():
    df = pd.DataFrame(np.arange(300.0).reshape(100, 3), columns=["a", "b", "c"])
    df["s"] = [f"s{i}" for i in range(100)]
    expect_equal_to_iloc(df)  # under _MIN_ROWS: iloc itself, the same result


def test_the_columns_go_through_the_rust_gathers(monkeypatch, gather_small_frames):
    """Not only equal to iloc / take: gathered in Rust (a pandas or pyarrow
    upgrade that stopped matching the column types would show here)."""
    from knuffle import _frames

    calls = {"fixed": 0, "varlen": 0, "bits": 0, "objects": 0}

    def counting(name):
        real = getattr(_frames._knuffle, f"frame_gather_{name}")

        def gather(*args):
            calls[name] += 1
            return real(*args)

        return gather

    for name in calls:
        monkeypatch.setattr(_frames._knuffle, f"frame_gather_{name}", counting(name))
    df = pd.DataFrame({
        "i": np.arange(N), "f": np.arange(N) * 0.5,
        "s": pd.array([None if i % 7 == 0 else f"s{i}" for i in range(N)], dtype="string[pyarrow]"),
        "str": pd.Series([f"t{i}" for i in range(N)], dtype="str"),
    })
    expect_equal_to_iloc(df)
    assert calls["fixed"] == 1 and calls["varlen"] == 2 and calls["bits"] == 1, calls
    table = pa.table({"b": pa.array([i % 3 == 0 for i in range(N)]), "x": pa.array(range(N), pa.int32())})
    knuffle.Generator("arrow").shuffle_frame(table)
    assert calls["bits"] == 2 and calls["fixed"] == 2, calls

    # pandas' own arrays whose values are numpy arrays: one fixed gather for
    # the codes, datetimes, periods and the masked arrays' values and masks,
    # one object gather per column of Python objects.
    calls.update(fixed=0, objects=0)
    df = pd.DataFrame({
        "category": pd.Categorical([f"c{i % 5}" for i in range(N)]),
        "when_tz": pd.date_range("2020-01-01", periods=N, freq="min", tz="Europe/Berlin"),
        "period": pd.period_range("2020-01", periods=N, freq="M"),
        "Int64": pd.array([None if i % 5 == 0 else i for i in range(N)], dtype="Int64"),
        "Float64": pd.array([None if i % 4 == 0 else i / 4 for i in range(N)], dtype="Float64"),
        "boolean": pd.array([None if i % 3 == 0 else i % 2 == 0 for i in range(N)], dtype="boolean"),
        "object": pd.Series([i if i % 2 else f"o{i}" for i in range(N)], dtype=object),
        "string[python]": pd.array([None if i % 6 == 0 else f"q{i}" for i in range(N)], dtype="string[python]"),
    })
    expect_equal_to_iloc(df)
    assert calls["fixed"] == 1 and calls["objects"] == 2, calls


def test_object_columns_hold_one_new_reference_per_row(gather_small_frames):
    """Each row of a gathered object column is a new reference: counts go up
    by one per row (a permutation, counted in source order) and come back
    when the result is dropped (nothing leaked or freed early)."""
    from knuffle import _knuffle

    items = [object() for _ in range(40)]
    source = np.empty(len(items), dtype=object)
    source[:] = items
    before = [sys.getrefcount(item) for item in items]
    order = knuffle.Generator("objects").permutation(len(items))
    out = _knuffle.frame_gather_objects(order, source, 1)
    assert all(out[i] is items[j] for i, j in enumerate(order))
    assert [sys.getrefcount(item) for item in items] == [b + 1 for b in before]
    repeated = np.array([3, 3, 3, 0] + list(range(4, 40)), dtype=np.int64)  # not a permutation
    twice = _knuffle.frame_gather_objects(repeated, source, 1)
    assert sys.getrefcount(items[3]) == before[3] + 4 and sys.getrefcount(items[1]) == before[1] + 1
    del out, twice
    gc.collect()
    assert [sys.getrefcount(item) for item in items] == before
    strided = _knuffle.frame_gather_objects(np.array([1, 0], np.int64), source[::20], 1)
    assert strided[0] is items[20] and strided[1] is items[0]


def test_a_large_object_gather_on_the_pool_counts_each_row_once():
    """From 2**21 rows on 2 threads the references are copied on the pool,
    then counted: once per row, in the source's order for a permutation."""
    from knuffle import _knuffle

    items = [object() for _ in range(3)]
    n = 2**21 + 5
    source = np.empty(n, dtype=object)
    source[:] = [items[i % 3] for i in range(n)]
    per_item = [(np.arange(n) % 3 == k).sum() for k in range(3)]
    before = [sys.getrefcount(item) for item in items]
    order = knuffle.Generator("large objects").permutation(n)
    out = _knuffle.frame_gather_objects(order, source, 2)
    assert (out == source[order]).all()
    after = [sys.getrefcount(item) for item in items]
    assert [a - b for a, b in zip(after, before)] == per_item
    repeated = np.zeros(n, dtype=np.int64)  # every row is row 0: items[0]
    same = _knuffle.frame_gather_objects(repeated, source, 2)
    assert sys.getrefcount(items[0]) - before[0] == per_item[0] + n
    del out, same
    gc.collect()
    assert [sys.getrefcount(item) for item in items] == before


def test_the_object_gather_refuses_bad_input():
    from knuffle import _knuffle

    source = np.array(["a", 1, None], dtype=object)
    with pytest.raises(ValueError, match="Python objects"):
        _knuffle.frame_gather_objects(np.array([0, 1, 2]), np.arange(3), 1)
    with pytest.raises(ValueError, match="outside 0..3"):
        _knuffle.frame_gather_objects(np.array([0, 3, 1]), source, 1)
    with pytest.raises(ValueError, match="2 rows and the source 3"):
        _knuffle.frame_gather_objects(np.array([0, 1]), source, 1)
    with pytest.raises(ValueError, match="Python objects"):
        _knuffle.frame_gather_objects(np.array([0]), np.array([["a"]], dtype=object), 1)


def test_range_indexes_are_taken_as_pandas_takes_them(gather_small_frames):
    """A RangeIndex's rows are computed, not taken: the same values, name and
    index type as ``index.take`` (a RangeIndex again when evenly spaced)."""
    from knuffle import _frames

    for index in [pd.RangeIndex(50), pd.RangeIndex(10, 110, 2, name="r"), pd.RangeIndex(100, 0, -2)]:
        df = pd.DataFrame({"x": np.arange(50)}, index=index)
        out = expect_equal_to_iloc(df)
        expected = df.iloc[knuffle.Generator("varied").permutation(50)]
        assert type(out.index) is type(expected.index) and out.index.name == expected.index.name
    index = pd.RangeIndex(5, 25, 2, name="r")
    for order in [np.arange(10), np.arange(9, -1, -1), np.array([3, 1, 4, 0, 2, 9, 5, 8, 7, 6]), np.array([1, 0])]:
        got, want = _frames._taken_index(pd, index, order), index.take(order)
        assert type(got) is type(want) and got.equals(want) and got.name == want.name
