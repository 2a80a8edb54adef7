"""knuffle.shuffle_table: on files, byte for byte `knuffle table` with the
same options; on tables in memory (pyarrow, polars, pandas, datasets), the
rows in knuffle.table_order; every Arrow type kept; the same order whatever
the shard layout or the memory limit; clear errors; every order of 4 rows
equally likely, and a biased stand-in rejected by the same test."""

from __future__ import annotations

import csv
import datetime
import decimal
import importlib
import io
import os
import random
import subprocess

import numpy as np
import pytest

import knuffle
from conftest import CHI2_23_AT_0_001, knuffle_cli, need, order_chi_square


def cli_table(*args: str) -> None:
    subprocess.run([knuffle_cli(), "table", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def pa():
    return need("pyarrow")


@pytest.fixture(scope="module")
def pq(pa):
    return importlib.import_module("pyarrow.parquet")


def ids_table(pa, n: int, start: int = 0):
    """Rows `id` (int64), `name` (text of varying length) and `score` (float, some nulls)."""
    ids = list(range(start, start + n))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([f"row {i} " + "x" * (i % 23) for i in ids]),
            "score": pa.array([None if i % 7 == 3 else i / 8 for i in ids], pa.float64()),
        }
    )


def every_type(pa, n: int):
    """A table of `n` rows with a column of every Arrow type the issue names, nulls in each."""

    def nulled(values, type_):
        return pa.array([None if i % 5 == 2 else v for i, v in enumerate(values)], type=type_)

    r = range(n)
    utc = datetime.timezone.utc
    strings = ["", "a", "ß∂ƒ", "comma, and \"quote\"", "new\nline"]
    dictionary = pa.DictionaryArray.from_arrays(
        pa.array([None if i % 5 == 2 else i % 4 for i in r], pa.int32()),
        pa.array(["red", "green", "blue", "black"]),
    )
    return pa.table(
        {
            "id": pa.array(list(r), pa.int64()),
            "i8": nulled([(i % 256) - 128 for i in r], pa.int8()),
            "u16": nulled([i * 7 % 65536 for i in r], pa.uint16()),
            "i32": nulled([i * 100_003 % 2**31 for i in r], pa.int32()),
            "u64": nulled([2**64 - 1 - i for i in r], pa.uint64()),
            "f32": nulled([i / 4 for i in r], pa.float32()),
            "f64": nulled([float("inf") if i == 1 else i * 1.5e300 / n for i in r], pa.float64()),
            "dec": nulled([decimal.Decimal(f"{i}.{i % 100:02d}") for i in r], pa.decimal128(12, 2)),
            "bool": nulled([i % 3 == 0 for i in r], pa.bool_()),
            "str": nulled([strings[i % 5] + str(i) for i in r], pa.string()),
            "lstr": nulled([f"large {i}" for i in r], pa.large_string()),
            "bin": nulled([bytes([i % 256, 0, 255]) for i in r], pa.binary()),
            "lbin": nulled([bytes(i % 9) for i in r], pa.large_binary()),
            "date": nulled([datetime.date(2000, 1, 1) + datetime.timedelta(days=i) for i in r], pa.date32()),
            "ts": nulled(
                [datetime.datetime(2026, 1, 1, tzinfo=utc) + datetime.timedelta(seconds=i * 37) for i in r],
                pa.timestamp("us", tz="Europe/Amsterdam"),
            ),
            "dict": dictionary,
            "list": nulled([[j for j in range(i % 4)] + ([None] if i % 6 == 0 else []) for i in r], pa.list_(pa.int32())),
            "struct": nulled(
                [{"a": i, "b": None if i % 4 == 0 else f"s{i}"} for i in r],
                pa.struct([("a", pa.int16()), ("b", pa.string())]),
            ),
            "map": nulled([[(f"k{j}", j if j % 2 else None) for j in range(i % 3)] for i in r], pa.map_(pa.string(), pa.int64())),
            "nothing": pa.nulls(n),
        }
    )


def rows_as_text(table) -> list[str]:
    """The rows of a pyarrow table, each as one comparable text."""
    return [repr(sorted(row.items())) for row in table.to_pylist()]


def assert_same_table(got, expected) -> None:
    """The same schema and the same rows in the same order (a dictionary
    column may come back with its dictionary in another order: its values
    are compared)."""
    assert got.schema.equals(expected.schema)
    assert got.to_pylist() == expected.to_pylist()


# -- files: every type, the order, the command line ----------------------------


def test_every_arrow_type_survives_a_parquet_round_trip(pa, pq, tmp_path):
    table = every_type(pa, 500)
    pq.write_table(table, tmp_path / "in.parquet")
    report = knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed="types")
    assert report == knuffle.TableReport("types", 500, 500, 0)
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.schema.equals(table.schema)
    assert sorted(rows_as_text(out)) == sorted(rows_as_text(table))
    assert_same_table(out, table.take(knuffle.table_order("types", 500)))


def test_files_are_in_the_table_order(pa, pq, tmp_path):
    pq.write_table(ids_table(pa, 1000), tmp_path / "in.parquet")
    knuffle.shuffle_table(str(tmp_path / "in.parquet"), str(tmp_path / "out.parquet"), seed="order")
    ids = pq.read_table(tmp_path / "out.parquet")["id"].to_numpy()
    assert (ids == knuffle.table_order("order", 1000)).all()


def test_seven_shards_in_a_directory_give_the_order_of_one_file(pa, pq, tmp_path):
    table = ids_table(pa, 2000)
    pq.write_table(table, tmp_path / "one.parquet")
    (tmp_path / "shards").mkdir()
    cuts = [0, 1, 300, 301, 900, 1500, 1999, 2000]
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        pq.write_table(table.slice(a, b - a), tmp_path / "shards" / f"part-{i}.parquet")
    knuffle.shuffle_table(tmp_path / "one.parquet", tmp_path / "from_one.parquet", seed="shards")
    report = knuffle.shuffle_table(tmp_path / "shards", tmp_path / "from_seven.parquet", seed="shards")
    assert report.rows_in == 2000
    one = pq.read_table(tmp_path / "from_one.parquet")
    assert pq.read_table(tmp_path / "from_seven.parquet").equals(one)
    listed = sorted((tmp_path / "shards").iterdir())
    knuffle.shuffle_table(listed, tmp_path / "from_list.parquet", seed="shards")
    assert pq.read_table(tmp_path / "from_list.parquet").equals(one)


@pytest.fixture(scope="module")
def big_parquet(pa, pq, tmp_path_factory):
    """A Parquet table of about 10 MB in memory (150,000 rows): many buckets under memory="1M"."""
    path = tmp_path_factory.mktemp("table") / "big.parquet"
    pq.write_table(ids_table(pa, 150_000), path, row_group_size=20_000)
    return path


def test_a_small_memory_limit_goes_through_buckets_and_gives_the_same_rows(pq, big_parquet, tmp_path):
    small = knuffle.shuffle_table(big_parquet, tmp_path / "small.parquet", seed="buckets", memory="1M")
    default = knuffle.shuffle_table(big_parquet, tmp_path / "default.parquet", seed="buckets")
    assert small.buckets > 1
    assert default.buckets == 0
    assert small.rows_out == default.rows_out == 150_000
    out = pq.read_table(tmp_path / "small.parquet")
    assert out.equals(pq.read_table(tmp_path / "default.parquet"))
    assert (out["id"].to_numpy() == knuffle.table_order("buckets", 150_000)).all()
    assert sorted(os.listdir(tmp_path)) == ["default.parquet", "small.parquet"]


def test_temp_dir_holds_the_buckets_and_is_left_empty(big_parquet, tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    report = knuffle.shuffle_table(big_parquet, tmp_path / "out.parquet", seed="t", memory=1 << 20, temp_dir=spill)
    assert report.buckets > 1
    assert list(spill.iterdir()) == []


def quoted_csv(n: int) -> str:
    """A CSV table whose fields hold delimiters, quotes, newlines and empty values."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", "text", "note"])
    for i in range(n):
        writer.writerow([i, f"line {i},\nsecond \"line\" {i}", "" if i % 3 else f"plain {i}"])
    return out.getvalue()


def test_csv_quoted_fields_stay_whole_and_the_header_once(tmp_path):
    (tmp_path / "in.csv").write_text(quoted_csv(300), encoding="utf-8", newline="")
    report = knuffle.shuffle_table(tmp_path / "in.csv", tmp_path / "out.csv", seed="csv")
    assert (report.rows_in, report.rows_out) == (300, 300)
    with open(tmp_path / "in.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as f:
        out = list(csv.reader(f))
    assert out[0] == rows[0] == ["id", "text", "note"]
    order = knuffle.table_order("csv", 300)
    assert out[1:] == [rows[1 + i] for i in order]


def test_gzip_and_zstd_tables_are_read_by_content_and_written_by_extension(pa, tmp_path):
    import gzip

    text = quoted_csv(2000).encode()
    jsonl = "".join(f'{{"id": {i}, "name": "n{i}"}}\n' for i in range(2000)).encode()
    (tmp_path / "t.csv").write_bytes(text)
    (tmp_path / "t.jsonl").write_bytes(jsonl)
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(text))
    (tmp_path / "misnamed.csv").write_bytes(gzip.compress(text))
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as stream:
        stream.write(jsonl)
    (tmp_path / "t.jsonl.zst").write_bytes(sink.getvalue().to_pybytes())
    # Every row, in the order of the plain file for the same seed.
    knuffle.shuffle_table(tmp_path / "t.csv", tmp_path / "plain.csv", seed="gz")
    knuffle.shuffle_table(tmp_path / "t.jsonl", tmp_path / "plain.jsonl", seed="gz")
    plain_csv = (tmp_path / "plain.csv").read_bytes()
    plain_jsonl = (tmp_path / "plain.jsonl").read_bytes()
    cases = (("t.csv.gz", "csv", plain_csv), ("misnamed.csv", "csv", plain_csv), ("t.jsonl.zst", "jsonl", plain_jsonl))
    for src, extension, plain in cases:
        out = tmp_path / f"out.{extension}"
        report = knuffle.shuffle_table(tmp_path / src, out, seed="gz")
        assert (report.rows_in, out.read_bytes()) == (2000, plain), src
    # A stream reads them too: the rows of the plain file's stream.
    streamed = pa.Table.from_batches(list(knuffle.stream_table(tmp_path / "t.jsonl.zst", "gz")))
    plain_stream = pa.Table.from_batches(list(knuffle.stream_table(tmp_path / "t.jsonl", "gz")))
    assert streamed.num_rows == 2000 and streamed.equals(plain_stream)
    # Outputs compressed by their extension, read back by Python's own readers.
    knuffle.shuffle_table(tmp_path / "t.csv", tmp_path / "out.csv.gz", seed="gz")
    assert gzip.decompress((tmp_path / "out.csv.gz").read_bytes()) == plain_csv
    knuffle.shuffle_table(tmp_path / "t.jsonl.zst", tmp_path / "out.jsonl.zst", seed="gz")
    with pa.CompressedInputStream(pa.OSFile(str(tmp_path / "out.jsonl.zst")), "zstd") as stream:
        assert stream.read() == plain_jsonl
    # The command line writes the same bytes.
    cli_table("--seed", "gz", str(tmp_path / "t.csv"), "-o", str(tmp_path / "cli.csv.gz"))
    assert (tmp_path / "cli.csv.gz").read_bytes() == (tmp_path / "out.csv.gz").read_bytes()
    with pytest.raises(ValueError, match="drop the .gz"):
        knuffle.shuffle_table(tmp_path / "t.csv", tmp_path / "out.parquet.gz", seed="gz")
    assert not (tmp_path / "out.parquet.gz").exists()


def test_a_truncated_compressed_table_is_a_value_error_and_leaves_no_output(pa, tmp_path):
    import gzip

    data = gzip.compress(quoted_csv(3000).encode())
    (tmp_path / "cut.csv.gz").write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(ValueError, match="cut.csv.gz: the gzip data is corrupt or truncated"):
        knuffle.shuffle_table(tmp_path / "cut.csv.gz", tmp_path / "out.csv", seed="cut")
    assert not (tmp_path / "out.csv").exists()


def test_an_empty_table_and_a_table_of_one_row(pa, pq, tmp_path):
    for n in (0, 1):
        table = every_type(pa, n)
        pq.write_table(table, tmp_path / f"in{n}.parquet")
        report = knuffle.shuffle_table(tmp_path / f"in{n}.parquet", tmp_path / f"out{n}.parquet", seed="few")
        assert (report.rows_in, report.rows_out) == (n, n)
        out = pq.read_table(tmp_path / f"out{n}.parquet")
        assert_same_table(out, table)
    (tmp_path / "header.csv").write_text("a,b\r\n", encoding="utf-8")
    assert knuffle.shuffle_table(tmp_path / "header.csv", tmp_path / "header_out.csv", seed="few").rows_out == 0
    assert (tmp_path / "header_out.csv").read_text(encoding="utf-8").splitlines() == ["a,b"]


def test_shards_are_contiguous_runs_of_the_order(pa, pq, tmp_path):
    pq.write_table(ids_table(pa, 1001), tmp_path / "in.parquet")
    report = knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out", seed="cut", shards=4)
    assert report.rows_out == 1001
    names = sorted(os.listdir(tmp_path / "out"))
    assert names == [f"part-{i:05d}.parquet" for i in range(4)]
    parts = [pq.read_table(tmp_path / "out" / name)["id"].to_pylist() for name in names]
    assert [len(p) for p in parts] == [251, 250, 250, 250]
    order = knuffle.table_order("cut", 1001).tolist()
    assert sum(parts, []) == order
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "each", seed="cut", rows_per_shard=300)
    names = sorted(os.listdir(tmp_path / "each"))
    parts = [pq.read_table(tmp_path / "each" / name)["id"].to_pylist() for name in names]
    assert [len(p) for p in parts] == [300, 300, 300, 101]
    assert sum(parts, []) == order


def test_count_takes_the_first_rows_of_the_order(pa, pq, tmp_path):
    pq.write_table(ids_table(pa, 500), tmp_path / "in.parquet")
    report = knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed="head", count=20)
    assert (report.rows_in, report.rows_out) == (500, 20)
    ids = pq.read_table(tmp_path / "out.parquet")["id"].to_pylist()
    assert ids == knuffle.table_order("head", 500)[:20].tolist()


def test_without_a_seed_a_fresh_one_is_returned_and_replays_the_run(pa, pq, tmp_path):
    pq.write_table(ids_table(pa, 200), tmp_path / "in.parquet")
    first = knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "a.parquet")
    second = knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "b.parquet")
    assert len(first.seed) == 64 and first.seed != second.seed
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "c.parquet", seed=first.seed)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "c.parquet").read_bytes()


@pytest.fixture(scope="module")
def inputs(pa, pq, tmp_path_factory):
    """The inputs of the comparisons with the command line."""
    d = tmp_path_factory.mktemp("cli")
    pq.write_table(every_type(pa, 700), d / "types.parquet", row_group_size=100)
    pq.write_table(ids_table(pa, 120_000), d / "big.parquet")
    (d / "quoted.csv").write_text(quoted_csv(400), encoding="utf-8", newline="")
    (d / "rows.tsv").write_text("a\tb\n" + "".join(f"{i}\t{i * i}\n" for i in range(300)), encoding="utf-8")
    (d / "rows.jsonl").write_text("".join(f'{{"a": {i}, "b": "v{i}"}}\n' for i in range(300)), encoding="utf-8")
    (d / "shards").mkdir()
    for i in range(7):
        pq.write_table(ids_table(pa, 100 + i, start=1000 * i), d / "shards" / f"s{i}.parquet")
    return d


# (inputs, output name, keyword arguments, command-line arguments)
CLI_CASES = [
    (["types.parquet"], "out.parquet", {}, []),
    # 21 columns: a Parquet writer of that width needs more than 1M (a clear
    # error there, which the hostile-table tests check).
    (["types.parquet"], "out.parquet", {"memory": "2M"}, ["--memory", "2M"]),
    (["big.parquet"], "out.parquet", {"memory": "1M"}, ["--memory", "1M"]),
    (["big.parquet"], "out.parquet", {"memory": 1 << 30}, ["--memory", "1G"]),
    (["big.parquet"], "out.parquet", {"count": 1000, "memory": "1M"}, ["-n", "1000", "--memory", "1M"]),
    (["types.parquet"], "out.parquet", {"compression": "zstd(3)", "row_group_rows": 64}, ["--compression", "zstd(3)", "--row-group-rows", "64"]),
    (["types.parquet"], "out.arrow", {}, []),
    (["types.parquet"], "out.arrows", {}, []),
    (["types.parquet"], "out.data", {"output_format": "arrow"}, ["--output-format", "arrow"]),
    (["quoted.csv"], "out.csv", {}, []),
    (["quoted.csv"], "out.csv", {"memory": "1M"}, ["--memory", "1M"]),
    (["rows.tsv"], "out.tsv", {}, []),
    (["rows.jsonl"], "out.jsonl", {}, []),
    (["rows.jsonl"], "out.parquet", {}, []),
    (["rows.tsv"], "out.txt", {"format": "tsv", "output_format": "csv"}, ["--format", "tsv", "--output-format", "csv"]),
    (["shards"], "out.parquet", {}, []),
    (["shards"], "out", {"shards": 3}, ["--shards", "3"]),
    (["big.parquet"], "out", {"rows_per_shard": 50_000, "memory": "1M"}, ["--rows-per-shard", "50000", "--memory", "1M"]),
]


def tree_bytes(path) -> dict[str, bytes]:
    """A file's bytes, or every file of a directory by name."""
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir())}
    return {"": path.read_bytes()}


@pytest.mark.parametrize(("names", "output", "kwargs", "args"), CLI_CASES)
def test_files_are_the_command_lines_bytes(inputs, tmp_path, names, output, kwargs, args):
    sources = [str(inputs / name) for name in names]
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    cli_table(*sources, "-o", str(tmp_path / "cli" / output), "--seed", "cli", *args)
    report = knuffle.shuffle_table(sources, tmp_path / "py" / output, seed="cli", **kwargs)
    assert report.seed == "cli"
    assert tree_bytes(tmp_path / "py" / output) == tree_bytes(tmp_path / "cli" / output)


def test_a_schema_mismatch_is_the_command_lines_error(inputs, tmp_path):
    sources = [str(inputs / "shards"), str(inputs / "types.parquet")]
    with pytest.raises(ValueError) as error:
        knuffle.shuffle_table(sources, tmp_path / "out.parquet", seed="cli")
    run = subprocess.run([knuffle_cli(), "table", *sources, "-o", str(tmp_path / "out.parquet")], capture_output=True)
    assert run.returncode == 2
    assert str(error.value) in run.stderr.decode()
    assert os.listdir(tmp_path) == []


# -- tables in memory -----------------------------------------------------------


def test_a_pyarrow_table_and_record_batch_are_in_the_order_of_the_file(pa, pq, tmp_path):
    table = every_type(pa, 300)
    pq.write_table(table, tmp_path / "in.parquet")
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed="memory")
    from_file = pq.read_table(tmp_path / "out.parquet")
    shuffled = knuffle.shuffle_table(table, seed="memory")
    assert isinstance(shuffled, pa.Table)
    assert_same_table(shuffled, from_file)
    batch = knuffle.shuffle_table(table.combine_chunks().to_batches()[0], seed="memory")
    assert isinstance(batch, pa.RecordBatch)
    assert_same_table(pa.Table.from_batches([batch]), from_file)
    head = knuffle.shuffle_table(table, seed="memory", count=10)
    assert_same_table(head, from_file.slice(0, 10))


def test_a_polars_frame_is_in_the_table_order():
    pl = need("polars")
    df = pl.DataFrame({"id": list(range(400)), "name": [f"n{i}" for i in range(400)]})
    out = knuffle.shuffle_table(df, seed="polars")
    assert isinstance(out, pl.DataFrame)
    order = knuffle.table_order("polars", 400).tolist()
    assert out["id"].to_list() == order
    assert out["name"].to_list() == [f"n{i}" for i in order]
    series = knuffle.shuffle_table(df["id"], seed="polars")
    assert isinstance(series, pl.Series) and series.to_list() == order
    assert knuffle.shuffle_table(df.head(0), seed="polars").shape == (0, 2)


def test_a_pandas_frame_is_in_the_table_order_with_its_index():
    pd = need("pandas")
    df = pd.DataFrame({"x": range(50)}, index=[f"r{i}" for i in range(50)])
    out = knuffle.shuffle_table(df, seed="pandas")
    assert isinstance(out, pd.DataFrame)
    order = knuffle.table_order("pandas", 50).tolist()
    assert out["x"].tolist() == order
    assert list(out.index) == [f"r{i}" for i in order]


def test_a_dataset_is_stored_in_the_table_order_without_an_indices_mapping(pa, pq, tmp_path):
    datasets = need("datasets")
    table = ids_table(pa, 600)
    ds = datasets.Dataset.from_dict(table.to_pydict())
    out = knuffle.shuffle_table(ds, seed="hf")
    assert isinstance(out, datasets.Dataset)
    assert out._indices is None
    order = knuffle.table_order("hf", 600).tolist()
    assert out["id"] == order
    assert out.features == ds.features
    assert out.data.table.column("id").to_pylist() == order  # stored in that order
    assert knuffle.shuffle_table(ds, seed="hf")._fingerprint == out._fingerprint
    assert knuffle.shuffle_table(ds, seed="other")._fingerprint != out._fingerprint

    # A Dataset with an indices mapping: its rows as it reads them.
    view = ds.select(range(599, -1, -2)).with_format("numpy")
    assert view._indices is not None
    out = knuffle.shuffle_table(view, seed="hf")
    assert out._indices is None
    assert out.format["type"] == "numpy"
    expected = [view["id"][i] for i in knuffle.table_order("hf", 300)]
    assert list(out["id"]) == expected

    # The same order as the file of the same rows.
    pq.write_table(ds.data.table, tmp_path / "in.parquet")
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed="hf")
    assert pq.read_table(tmp_path / "out.parquet")["id"].to_pylist() == order


def test_a_dataset_on_disk_is_shuffled_through_its_arrow_files(tmp_path):
    """The way for a Dataset larger than memory: its cache files (Arrow IPC
    streams) through the file engine, read back with Dataset.from_file."""
    datasets = need("datasets")
    ds = datasets.Dataset.from_dict({"id": list(range(3000)), "text": [f"t{i}" for i in range(3000)]})
    ds.save_to_disk(str(tmp_path / "saved"), max_shard_size="20KB")
    ds = datasets.load_from_disk(str(tmp_path / "saved"))
    files = [f["filename"] for f in ds.cache_files]
    assert len(files) > 1
    report = knuffle.shuffle_table(files, tmp_path / "shuffled.arrows", seed="disk", format="arrows", memory="1M")
    assert report.rows_out == 3000
    out = datasets.Dataset.from_file(str(tmp_path / "shuffled.arrows"))
    assert out["id"] == knuffle.table_order("disk", 3000).tolist()
    assert out["id"] == knuffle.shuffle_table(ds, seed="disk")["id"]


def test_the_order_of_knuffle_dask(pa, pq, tmp_path):
    """The same rows and seed: the same order as knuffle.dask.shuffle, whatever its partitions."""
    need("dask")
    dd = importlib.import_module("dask.dataframe")
    pd = need("pandas")
    frame = pd.DataFrame({"id": range(1000), "text": [f"t{i}" for i in range(1000)]})
    expected = knuffle.shuffle_table(frame, seed="dask")
    shuffled = importlib.import_module("knuffle.dask").shuffle(dd.from_pandas(frame, npartitions=3), "dask", npartitions=2)
    got = shuffled.compute(scheduler="sync")
    assert got["id"].tolist() == expected["id"].tolist()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "in.parquet")
    knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed="dask")
    assert pq.read_table(tmp_path / "out.parquet")["id"].to_pylist() == got["id"].tolist()


# -- errors -------------------------------------------------------------------------


def test_invalid_data_is_a_value_error_naming_the_file_and_leaves_no_output(pa, pq, tmp_path):
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1" + bytes(range(256)) * 10 + b"PAR1")
    pq.write_table(ids_table(pa, 5000), tmp_path / "good.parquet")
    data = (tmp_path / "good.parquet").read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(data[: len(data) // 2])
    pq.write_table(pa.table({"other": [1, 2]}), tmp_path / "other.parquet")
    (tmp_path / "ragged.csv").write_text("a,b\n1,2\n3\n", encoding="utf-8")
    cases = [
        (["corrupt.parquet"], "corrupt.parquet"),
        (["truncated.parquet"], "truncated.parquet"),
        (["good.parquet", "other.parquet"], "other.parquet"),
        (["ragged.csv"], "ragged.csv"),
    ]
    for names, named in cases:
        with pytest.raises(ValueError, match=named):
            knuffle.shuffle_table([tmp_path / n for n in names], tmp_path / "out.parquet", seed="bad")
        assert not (tmp_path / "out.parquet").exists()
    with pytest.raises(ValueError, match="good.parquet"):  # a schema mismatch names both files
        knuffle.shuffle_table([tmp_path / "good.parquet", tmp_path / "other.parquet"], tmp_path / "out.parquet")


def test_io_failures_are_os_errors_naming_the_file(pa, pq, tmp_path):
    with pytest.raises(OSError, match="missing.parquet"):
        knuffle.shuffle_table(tmp_path / "missing.parquet", tmp_path / "out.parquet", seed="io")
    pq.write_table(ids_table(pa, 10), tmp_path / "in.parquet")
    with pytest.raises(OSError, match="no_such_dir"):
        knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "no_such_dir" / "out.parquet", seed="io")
    assert not (tmp_path / "out.parquet").exists()


def test_bad_options_are_errors_naming_the_option(pa, pq, tmp_path):
    pq.write_table(ids_table(pa, 10), tmp_path / "in.parquet")
    src, dst = tmp_path / "in.parquet", tmp_path / "out.parquet"
    for kwargs, error, named in [
        ({"memory": "1K"}, ValueError, "too small"),
        ({"memory": "lots"}, ValueError, "memory="),
        ({"memory": 2.5}, TypeError, "memory="),
        ({"shards": 0}, ValueError, "shards="),
        ({"shards": 2, "rows_per_shard": 5}, ValueError, "cannot be combined"),
        ({"rows_per_shard": "5"}, TypeError, "rows_per_shard="),
        ({"row_group_rows": 0}, ValueError, "row_group_rows="),
        ({"format": "excel"}, ValueError, "excel"),
        ({"format": 3}, TypeError, "format="),
        ({"output_format": "xml"}, ValueError, "xml"),
        ({"compression": "zip"}, ValueError, "zip"),
        ({"count": -1}, ValueError, "count="),
        ({"seed": 42}, TypeError, "seed="),
        ({"temp_dir": 7}, TypeError, "temp_dir="),
    ]:
        with pytest.raises(error, match=named):
            knuffle.shuffle_table(src, dst, **kwargs)
        assert not dst.exists()
    with pytest.raises(TypeError, match="dst="):
        knuffle.shuffle_table(src)
    with pytest.raises(TypeError, match="dst="):
        knuffle.shuffle_table(src, 3)
    with pytest.raises(ValueError, match="no src"):
        knuffle.shuffle_table([], dst)


def test_wrong_types_name_the_argument_and_the_accepted_types(pa):
    for src in (42, {"a": [1]}, np.arange(3)):
        with pytest.raises(TypeError, match=r"src must be a path .*pyarrow Table.*polars DataFrame.*datasets.Dataset"):
            knuffle.shuffle_table(src, seed="t")
    table = ids_table(pa, 5)
    with pytest.raises(TypeError, match="dst= is for paths"):
        knuffle.shuffle_table(table, "out.parquet", seed="t")
    with pytest.raises(TypeError, match="memory= applies to files"):
        knuffle.shuffle_table(table, seed="t", memory="1G")
    with pytest.raises(TypeError, match="seed="):
        knuffle.shuffle_table(table, seed=1)
    pl = need("polars")
    with pytest.raises(TypeError, match="LazyFrame"):
        knuffle.shuffle_table(pl.LazyFrame({"a": [1]}), seed="t")


# -- uniformity -------------------------------------------------------------------

TRIALS = 24_000


def table_order_rows():
    """The order of 4 rows for TRIALS seeds."""
    return np.stack([knuffle.table_order(f"uniform {t}", 4) for t in range(TRIALS)])


def ties_in_input_order_rows():
    """A biased stand-in: 2-bit labels with ties left in input order (the
    table order without its shuffle of ties)."""
    rng = random.Random(20261126)
    rows = np.empty((TRIALS, 4), dtype=np.int64)
    for t in range(TRIALS):
        labels = [rng.randrange(4) for _ in range(4)]
        rows[t] = sorted(range(4), key=lambda i: labels[i])
    return rows


def test_every_order_of_four_rows_is_equally_likely():
    rows = table_order_rows()
    assert order_chi_square(rows) < CHI2_23_AT_0_001
    assert not knuffle.audit(rows).biased


def test_the_same_test_rejects_ties_in_input_order():
    rows = ties_in_input_order_rows()
    assert order_chi_square(rows) > CHI2_23_AT_0_001
    assert knuffle.audit(rows).biased


def test_positions_of_ten_thousand_rows_pass_the_audit_and_coarse_labels_fail_it():
    """The position test of knuffle audit at n = 10**4: the table order
    passes; a stand-in with 4-bit labels and ties left in input order (the
    rows of a label keep their input order, so a row's position follows its
    index) fails."""
    n, shuffles = 10_000, 100
    rows = np.stack([knuffle.table_order(f"positions {t}", n) for t in range(shuffles)])
    assert not knuffle.audit(rows).biased
    rng = np.random.default_rng(20261126)
    coarse = np.stack([np.argsort(rng.integers(0, 16, size=n), kind="stable") for _ in range(shuffles)])
    assert knuffle.audit(coarse).biased


def test_the_file_engine_gives_the_in_memory_order_for_many_seeds(pa, pq, tmp_path):
    """The table order of the files is table_order for 4 rows, for 40 seeds
    (the uniformity of table_order above then holds for the files)."""
    pq.write_table(ids_table(pa, 4), tmp_path / "in.parquet")
    for t in range(40):
        knuffle.shuffle_table(tmp_path / "in.parquet", tmp_path / "out.parquet", seed=f"uniform {t}")
        ids = pq.read_table(tmp_path / "out.parquet")["id"].to_pylist()
        assert ids == knuffle.table_order(f"uniform {t}", 4).tolist()
