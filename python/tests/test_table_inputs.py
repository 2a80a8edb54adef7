"""knuffle.shuffle_table on several files: Hive-partitioned directories as
pyarrow writes them (their key=value levels are columns), columns matched by
name and promoted without loss, and output names of no table format. Every
row is there unchanged, the order is that of the same rows in flat files,
and each error is `knuffle table`'s (exit status 2, the same message)."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.parse

import pytest

import knuffle
from conftest import knuffle_cli
from test_table import need


@pytest.fixture(scope="module")
def pa():
    return need("pyarrow")


@pytest.fixture(scope="module")
def pq(pa):
    return need("pyarrow.parquet")


def knuffle_files(root) -> list[str]:
    """The Parquet files of a directory in the order knuffle reads them:
    byte order of the names, a directory's files where it sorts, names
    starting with . or _ skipped."""
    files = []
    for name in sorted(os.listdir(root), key=os.fsencode):
        path = os.path.join(root, name)
        if name.startswith((".", "_")):
            continue
        if os.path.isdir(path):
            files += knuffle_files(path)
        elif name.endswith(".parquet"):
            files.append(path)
    return files


def levels(root, path) -> dict:
    """The key=value directories of `path` under `root`, URL-decoded
    (None for Hive's null)."""
    out = {}
    for part in os.path.relpath(os.path.dirname(path), root).split(os.sep):
        if "=" in part:
            key, value = part.split("=", 1)
            out[urllib.parse.unquote(key)] = None if value == "__HIVE_DEFAULT_PARTITION__" else urllib.parse.unquote(value)
    return out


def sorted_rows(table) -> list[str]:
    return sorted(repr(sorted(row.items())) for row in table.to_pylist())


def assert_refused(inputs, dst, message: str, **kwargs) -> None:
    """A ValueError with `message` from Python, exit status 2 and the same
    message from `knuffle table` (its flags named as Python names them:
    `--output-format` is `output_format=`), and no output."""
    with pytest.raises(ValueError, match=message) as error:
        knuffle.shuffle_table([str(i) for i in inputs], dst, seed="bad", **kwargs)
    run = subprocess.run([knuffle_cli(), "table", *map(str, inputs), "-o", str(dst), "--seed", "bad"], capture_output=True)
    assert run.returncode == 2, run.stderr
    python_named = re.sub(r"--([a-z][a-z-]*)", lambda m: m.group(1).replace("-", "_") + "=", run.stderr.decode())
    assert str(error.value) in python_named
    assert "--" not in str(error.value)
    assert not os.path.exists(dst)


def hive_table(pa, n: int):
    cities = ["a b", "x/y", "é", "100%", None]
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": [f"row {i}" for i in range(n)],
            "label": pa.array([None if i % 13 == 0 else i % 3 - 1 for i in range(n)], pa.int32()),
            "city": pa.array([cities[i % 5] for i in range(n)], pa.string()),
        }
    )


def test_hive_partitions_are_columns_in_the_order_of_the_same_rows_in_flat_files(pa, pq, tmp_path):
    ds = need("pyarrow.dataset")
    table = hive_table(pa, 3000)
    hive = tmp_path / "hive"
    # Two writes: two files in most partition directories.
    for half, rows in (("a", table.slice(0, 1700)), ("b", table.slice(1700))):
        pq.write_to_dataset(rows, hive, partition_cols=["label", "city"], basename_template=half + "-{i}.parquet")
    out = tmp_path / "out.parquet"
    report = knuffle.shuffle_table(hive, out, seed="hive")
    assert (report.rows_in, report.rows_out) == (3000, 3000)
    got = pq.read_table(out)
    assert got.schema.names == ["id", "name", "label", "city"]
    assert got.schema.field("label").type == pa.int32() and got.schema.field("city").type == pa.string()
    # Every row, its partition values as pyarrow reads them.
    assert sorted_rows(got) == sorted_rows(table)
    assert sorted_rows(got) == sorted_rows(ds.dataset(hive, partitioning="hive").to_table())
    # The same rows in flat files, in the order knuffle reads the partitions.
    flat = tmp_path / "flat"
    flat.mkdir()
    files = knuffle_files(hive)
    assert len(files) > 10
    for i, path in enumerate(files):
        part = pq.ParquetFile(path).read()
        values = levels(hive, path)
        label = None if values["label"] is None else int(values["label"])
        part = part.append_column(pa.field("label", pa.int32()), pa.array([label] * part.num_rows, pa.int32()))
        part = part.append_column(pa.field("city", pa.string()), pa.array([values["city"]] * part.num_rows, pa.string()))
        pq.write_table(part, flat / f"{i:04d}.parquet")
    knuffle.shuffle_table(flat, tmp_path / "flat.parquet", seed="hive")
    assert got.to_pylist() == pq.read_table(tmp_path / "flat.parquet").to_pylist()
    # Out of core, and from the command line: the same.
    knuffle.shuffle_table(hive, tmp_path / "small.parquet", seed="hive", memory="1M")
    assert pq.read_table(tmp_path / "small.parquet").to_pylist() == got.to_pylist()
    subprocess.run([knuffle_cli(), "table", str(hive), "-o", str(tmp_path / "cli.parquet"), "--seed", "hive"], check=True)
    assert (tmp_path / "cli.parquet").read_bytes() == out.read_bytes()


def test_hive_keys_are_typed_and_decoded_as_pyarrow_does(pa, pq, tmp_path):
    ds = need("pyarrow.dataset")
    dirs = ["k=0x10/t=a%20b", "k=-7/t=%zz", "k=007/t=a+b", "k=__HIVE_DEFAULT_PARTITION__/t=%C3%A9"]
    for i, d in enumerate(dirs):
        os.makedirs(tmp_path / "h" / d)
        pq.write_table(pa.table({"x": [i]}), tmp_path / "h" / d / "f.parquet")
    (tmp_path / "big").mkdir()
    for d in ("n=1", "n=3000000000"):  # past Int32: text, as in pyarrow
        os.makedirs(tmp_path / "big" / d)
        pq.write_table(pa.table({"x": [1]}), tmp_path / "big" / d / "f.parquet")
    for name in ("h", "big"):
        knuffle.shuffle_table(tmp_path / name, tmp_path / f"{name}.parquet", seed="types")
        got = pq.read_table(tmp_path / f"{name}.parquet")
        theirs = ds.dataset(tmp_path / name, partitioning="hive").to_table()
        assert got.schema.equals(theirs.schema), (got.schema, theirs.schema)
        assert sorted_rows(got) == sorted_rows(theirs)


def test_inconsistent_hive_directories_are_errors(pa, pq, tmp_path):
    def put(path, table):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(table, path)

    rows = pa.table({"x": [1, 2]})
    put(tmp_path / "missing" / "label=0" / "a.parquet", rows)
    put(tmp_path / "missing" / "b.parquet", rows)
    put(tmp_path / "order" / "a=1" / "b=2" / "f.parquet", rows)
    put(tmp_path / "order" / "b=1" / "a=2" / "f.parquet", rows)
    put(tmp_path / "clash" / "x=1" / "f.parquet", rows)
    for name in ("missing", "order"):
        assert_refused([tmp_path / name], tmp_path / "out.parquet", "every file needs the same key=value directories")
    assert_refused([tmp_path / "clash"], tmp_path / "out.parquet", "the file has a column 'x' and lies in the partition directory x=1")


def test_columns_are_matched_by_name_and_promoted_exactly(pa, pq, tmp_path):
    a = pa.table(
        {
            "id": pa.array([0, 1, 2], pa.int64()),
            "i": pa.array([1, -2, None], pa.int32()),
            "u": pa.array([4_000_000_000, 0, 1], pa.uint32()),
            "f": pa.array([0.1, None, 1e300], pa.float64()),
            "n": pa.nulls(3),
            "s": pa.array(["a", "b", None], pa.string()),
            "small": pa.array([-128, 127, 0], pa.int8()),
        }
    )
    b = pa.table(
        {
            "small": pa.array([2**15 - 1, -(2**15)], pa.int16()),
            "s": pa.array(["d", "e"], pa.large_string()),
            "n": pa.array([1.5, None], pa.float32()),
            "f": pa.array([0.1, 3.0], pa.float32()),
            "u": pa.array([-5, 2**31 - 1], pa.int32()),
            "i": pa.array([2**40, -(2**62)], pa.int64()),
            "id": pa.array([3, 4], pa.int64()),
        }
    )
    pq.write_table(a, tmp_path / "a.parquet")
    pq.write_table(b, tmp_path / "b.parquet")
    schema = pa.schema(
        [("id", pa.int64()), ("i", pa.int64()), ("u", pa.int64()), ("f", pa.float64()), ("n", pa.float32()), ("s", pa.large_string()), ("small", pa.int16())]
    )
    for out_name in ("out.parquet", "out.arrow"):
        out = tmp_path / out_name
        knuffle.shuffle_table([tmp_path / "a.parquet", tmp_path / "b.parquet"], out, seed="promote")
        got = pq.read_table(out) if out_name.endswith("parquet") else pa.ipc.open_file(out).read_all()
        assert got.schema.remove_metadata().equals(schema), got.schema
        # Each value exactly (a float32 0.1 is the float64 of its bits).
        expected = pa.concat_tables([a.select(schema.names).cast(schema), b.select(schema.names).cast(schema)])
        assert got.to_pylist() == expected.take(knuffle.table_order("promote", 5)).to_pylist()
        assert got.column("u").to_pylist().count(4_000_000_000) == 1
        assert -(2**62) in got.column("i").to_pylist()


def test_columns_that_do_not_convert_without_loss_are_errors(pa, pq, tmp_path):
    pq.write_table(pa.table({"x": pa.array([1], pa.int64()), "y": [1]}), tmp_path / "i64.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.uint64()), "y": [1]}), tmp_path / "u64.parquet")
    pq.write_table(pa.table({"x": pa.array([1.0], pa.float64()), "y": [1]}), tmp_path / "f64.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), tmp_path / "no_y.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int64()), "y": [1], "z": [2]}), tmp_path / "z.parquet")
    out = tmp_path / "out.parquet"
    lossy = "column 'x' is Int64 against {}, and neither converts to the other without loss"
    assert_refused([tmp_path / "i64.parquet", tmp_path / "u64.parquet"], out, lossy.format("UInt64"))
    assert_refused([tmp_path / "i64.parquet", tmp_path / "f64.parquet"], out, lossy.format("Float64"))
    assert_refused([tmp_path / "i64.parquet", tmp_path / "no_y.parquet"], out, "no_y.parquet has no column 'y'")
    assert_refused([tmp_path / "i64.parquet", tmp_path / "z.parquet"], out, "z.parquet has a column 'z' that")


def test_an_output_name_of_no_table_format_needs_output_format(pa, pq, tmp_path):
    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "in.parquet")
    assert_refused([tmp_path / "in.parquet"], tmp_path / "out.txt", r"out.txt: '\.txt' is not the extension of a table format")
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.txt", seed="x", output_format="csv")
    assert sorted((tmp_path / "out.txt").read_text().split()) == ["1", "2", "3", "x"]
