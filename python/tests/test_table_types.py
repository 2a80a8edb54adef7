"""``shuffle_table(..., infer_types=True)`` (CSV columns typed only when
every value comes back as written) and ``partition_by=`` (a Hive layout
that pyarrow reads back: every row, unchanged, each value's rows in the
table order, directory names as pyarrow's ``write_to_dataset`` writes
them)."""

from __future__ import annotations

import datetime
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import knuffle

CSV = """\
i,f,b,d,t,zip,mixed
1,1.5,true,2024-01-31,2024-01-31T08:00:00,007,1
-20,-0.25,false,1970-01-01,2024-01-31T08:00:00.250,123,1.5
,3.0,true,2000-02-29,1999-12-31T23:59:59,042,2
"""


def test_infer_types_types_parquet_columns_exactly(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV)
    out = tmp_path / "typed.parquet"
    knuffle.shuffle_table(src, out, seed="t", infer_types=True)
    table = pq.read_table(out)
    types = {field.name: str(field.type) for field in table.schema}
    assert types == {
        "i": "int64",
        "f": "double",
        "b": "bool",
        "d": "date32[day]",
        "t": "timestamp[us]",
        "zip": "string",
        "mixed": "string",
    }
    rows = sorted(table.to_pylist(), key=lambda r: r["f"])
    assert rows[0] == {
        "i": -20,
        "f": -0.25,
        "b": False,
        "d": datetime.date(1970, 1, 1),
        "t": datetime.datetime(2024, 1, 31, 8, 0, 0, 250000),
        "zip": "123",
        "mixed": "1.5",
    }
    assert rows[2]["i"] is None
    # Back to CSV: the same bytes, row for row.
    back = tmp_path / "back.csv"
    knuffle.shuffle_table(out, back, seed="u")
    assert sorted(back.read_text().splitlines()) == sorted(CSV.splitlines())
    # Without the flag every column is text.
    plain = tmp_path / "plain.parquet"
    knuffle.shuffle_table(src, plain, seed="t")
    assert {str(f.type) for f in pq.read_schema(plain)} == {"string"}


def test_infer_types_is_a_flag(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV)
    with pytest.raises(TypeError, match="infer_types= must be True or False"):
        knuffle.shuffle_table(src, tmp_path / "o.parquet", infer_types="yes")
    with pytest.raises(TypeError, match="infer_types= applies to files"):
        knuffle.shuffle_table(pa.table({"a": [1]}), infer_types=True)


LABELS = ["cat", "a/b", "50%", "é x", "", None, "k=v", "+x"]


def labelled(n: int) -> pa.Table:
    return pa.table({"id": list(range(n)), "label": [LABELS[i % len(LABELS)] for i in range(n)], "x": [i / 4 for i in range(n)]})


def test_partition_by_round_trips_through_pyarrow_in_the_table_order(tmp_path):
    rows = labelled(4000)
    src = tmp_path / "in.parquet"
    pq.write_table(rows, src)
    flat = tmp_path / "flat.parquet"
    knuffle.shuffle_table(src, flat, seed="p")
    out = tmp_path / "out"
    report = knuffle.shuffle_table(src, out, seed="p", partition_by="label")
    assert report.rows_out == 4000
    # The directory names pyarrow writes for the same values.
    theirs = tmp_path / "theirs"
    pq.write_to_dataset(rows, theirs, partition_cols=["label"])
    assert sorted(os.listdir(out)) == sorted(os.listdir(theirs))
    # Each directory: its value's rows in the order of the flat output, the
    # label left out of the files.
    order = pq.read_table(flat).to_pylist()
    for name in os.listdir(out):
        files = sorted(os.listdir(out / name))
        assert files == ["part-00000.parquet"]
        part = pq.read_table(out / name / files[0])
        assert part.schema.names == ["id", "x"]
        value = name.split("=", 1)[1]
        wanted = [r["id"] for r in order if (r["label"] is None and value == "__HIVE_DEFAULT_PARTITION__") or (r["label"] is not None and _escaped(r["label"]) == value)]
        assert part["id"].to_pylist() == wanted
    # Read back by pyarrow: every row, unchanged (the label a dictionary
    # of text, as pyarrow reads a Hive key).
    back = pq.read_table(out)
    assert str(back.schema.field("label").type) == "dictionary<values=string, indices=int32, ordered=0>"
    got = sorted(back.to_pylist(), key=lambda r: r["id"])
    assert got == rows.to_pylist()


def _escaped(text: str) -> str:
    return "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "-._~") else f"%{b:02X}" for b in text.encode())


def test_partition_by_integers_read_back_as_pyarrow_types_them(tmp_path):
    rows = pa.table({"id": list(range(300)), "k": pa.array([i % 3 - 1 for i in range(300)], pa.int64())})
    src = tmp_path / "in.parquet"
    pq.write_table(rows, src)
    out = tmp_path / "out"
    knuffle.shuffle_table(src, out, seed="k", partition_by="k")
    assert sorted(os.listdir(out)) == ["k=-1", "k=0", "k=1"]
    back = pq.read_table(out)  # pyarrow's Hive partitioning: int32 values, dictionary-encoded
    assert str(back.schema.field("k").type) == "dictionary<values=int32, indices=int32, ordered=0>"
    assert sorted(back.to_pylist(), key=lambda r: r["id"]) == rows.to_pylist()
    # knuffle's own Hive reader: the same rows, k an Int32 column.
    again = tmp_path / "again.parquet"
    knuffle.shuffle_table(out, again, seed="k")
    table = pq.read_table(again)
    assert str(table.schema.field("k").type) == "int32"
    assert sorted(table.to_pylist(), key=lambda r: r["id"]) == rows.to_pylist()


def test_partition_by_mistakes_leave_nothing(tmp_path):
    src = tmp_path / "in.parquet"
    pq.write_table(labelled(10), src)
    out = tmp_path / "out"
    # The engine's message names the option as Python does.
    with pytest.raises(ValueError, match="partition_by= x: the column is Float64") as error:
        knuffle.shuffle_table(src, out, seed="s", partition_by="x")
    assert "--" not in str(error.value)
    with pytest.raises(ValueError, match="partition_by= cannot be combined"):
        knuffle.shuffle_table(src, out, seed="s", partition_by="label", shards=2)
    assert sorted(os.listdir(tmp_path)) == ["in.parquet"]
