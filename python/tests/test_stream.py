"""knuffle.stream_table: the rows of `knuffle table` / `shuffle_table` for
the epoch's seed, batch by batch, in memory and through bucket files, for
every input format; consumers merged by position are the order; resumes
from any position; exactly uniform at n = 4; bounded memory; clean errors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from conftest import CHI2_23_AT_0_001, knuffle_cli, order_chi_square

import knuffle


def epoch_seed(seed: str, epoch: int) -> str:
    """docs/table-order.md, "Epochs"."""
    return seed if epoch == 0 else f"knuffle epoch {epoch}: {seed}"


def table(n: int) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "label": pa.array(np.arange(n, dtype=np.int32) % 7),
            "feature": pa.array([[float(i), float(i) / 2] for i in range(n)], pa.list_(pa.float32())),
            "text": pa.array([f"row {i} " + "x" * (i % 50) for i in range(n)]),
        }
    )


def ids(batches) -> list[int]:
    return pa.Table.from_batches(list(batches))["id"].to_pylist() if batches else []


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("stream")
    t = table(30_000)
    pq.write_table(t, d / "rows.parquet", row_group_size=4000)
    shards = d / "shards"
    shards.mkdir()
    for i, (a, b) in enumerate([(0, 1), (1, 9000), (9000, 9001), (9001, 30_000)]):
        pq.write_table(t.slice(a, b - a), shards / f"part-{i:05d}.parquet", row_group_size=3000)
    (shards / "_SUCCESS").write_text("")
    return d, t


def test_the_stream_is_the_shuffled_table(data, tmp_path):
    d, t = data
    source = d / "rows.parquet"
    for epoch in (0, 3):
        knuffle.shuffle_table(source, tmp_path / "out.parquet", seed=epoch_seed("train", epoch))
        expected = pq.read_table(tmp_path / "out.parquet")
        for memory in (None, "1M"):
            stream = knuffle.stream_table(source, "train", epoch=epoch, batch_size=1000, memory=memory)
            assert stream.schema == t.schema
            batches = list(stream)
            assert all(isinstance(b, pa.RecordBatch) for b in batches)
            assert [b.num_rows for b in batches] == [1000] * 30
            assert pa.Table.from_batches(batches).equals(expected), (epoch, memory)


def test_the_stream_is_knuffle_table_on_the_command_line(data, tmp_path):
    d, _ = data
    out = tmp_path / "cli.parquet"
    subprocess.run(
        [knuffle_cli(), "table", str(d / "shards"), "-o", str(out), "--seed", epoch_seed("cli", 5)], check=True
    )
    batches = list(knuffle.stream_table(d / "shards", "cli", epoch=5, memory="1M", batch_size=777))
    assert pa.Table.from_batches(batches).equals(pq.read_table(out))


def test_every_input_format(data, tmp_path):
    _, t = data
    small = t.slice(0, 3000).select(["id", "text"])
    feather.write_feather(small, tmp_path / "t.arrow", compression="uncompressed")
    with pa.OSFile(str(tmp_path / "t.arrows"), "wb") as sink, pa.ipc.new_stream(sink, small.schema) as writer:
        writer.write_table(small, max_chunksize=700)
    pcsv.write_csv(small, tmp_path / "t.csv")
    with open(tmp_path / "t.jsonl", "w") as f:
        for i, text in zip(small["id"].to_pylist(), small["text"].to_pylist()):
            f.write(f'{{"id": {i}, "text": "{text}"}}\n')
    expected = knuffle.table_order(epoch_seed("formats", 1), 3000).tolist()
    for name in ("t.arrow", "t.arrows", "t.csv", "t.jsonl"):
        for memory in (None, "1M"):
            got = ids(list(knuffle.stream_table(tmp_path / name, "formats", epoch=1, memory=memory)))
            assert [int(i) for i in got] == expected, (name, memory)


def test_consumers_merged_by_position_are_the_order(data):
    d, _ = data
    expected = knuffle.table_order(epoch_seed("ranks", 2), 30_000)
    for world_size, start in ((1, 0), (3, 0), (4, 10_001), (5, 29_999)):
        merged = np.full(30_000, -1)
        total = 0
        for rank in range(world_size):
            got = ids(
                list(
                    knuffle.stream_table(
                        d / "shards", "ranks", epoch=2, rank=rank, world_size=world_size, start=start, memory="1M"
                    )
                )
            )
            merged[start + rank :: world_size][: len(got)] = got
            total += len(got)
        assert total == 30_000 - start
        assert (merged[start:] == expected[start:]).all(), (world_size, start)


def test_columns(data):
    d, t = data
    batches = list(knuffle.stream_table(d / "rows.parquet", "cols", columns=["text", "id"], batch_size=5000))
    got = pa.Table.from_batches(batches)
    assert got.column_names == ["text", "id"]
    assert got.equals(t.take(knuffle.table_order("cols", 30_000)).select(["text", "id"]))


def test_bad_arguments_and_inputs(data, tmp_path):
    d, _ = data
    source = d / "rows.parquet"
    with pytest.raises(ValueError, match="no column 'nope'"):
        knuffle.stream_table(source, "s", columns=["id", "nope"])
    with pytest.raises(TypeError, match="columns="):
        knuffle.stream_table(source, "s", columns="id")
    with pytest.raises(TypeError, match="seed"):
        knuffle.stream_table(source, 42)
    with pytest.raises(ValueError, match="rank="):
        knuffle.stream_table(source, "s", rank=2, world_size=2)
    with pytest.raises(ValueError, match="batch_size="):
        knuffle.stream_table(source, "s", batch_size=0)
    with pytest.raises(ValueError, match="epoch="):
        knuffle.stream_table(source, "s", epoch=-1)
    with pytest.raises(ValueError, match="memory"):
        knuffle.stream_table(source, "s", memory="1K")
    with pytest.raises(OSError, match="missing.parquet"):
        knuffle.stream_table(tmp_path / "missing.parquet", "s")
    # A truncated shard: refused at once, naming it.
    shards = tmp_path / "shards"
    shards.mkdir()
    for name in os.listdir(d / "shards"):
        (shards / name).write_bytes((d / "shards" / name).read_bytes())
    whole = (shards / "part-00003.parquet").read_bytes()
    (shards / "part-00003.parquet").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match="part-00003.parquet"):
        knuffle.stream_table(shards, "s")
    # A ragged row deep in the second CSV: an error naming it, before any row.
    csvs = tmp_path / "csvs"
    csvs.mkdir()
    good = "id,text\n" + "".join(f"{i},row {i}\n" for i in range(20_000))
    (csvs / "a.csv").write_text(good)
    (csvs / "b.csv").write_text(good + "1,2,3\n")
    for memory in (None, "1M"):
        stream = knuffle.stream_table(csvs, "s", memory=memory)
        with pytest.raises(ValueError, match="b.csv"):
            next(stream)
        with pytest.raises(StopIteration):
            next(stream)


def test_bucket_files_leave_nothing_behind(data, tmp_path):
    d, _ = data
    temp = tmp_path / "temp"
    temp.mkdir()
    stream = knuffle.stream_table(d / "rows.parquet", "s", memory="1M", temp_dir=temp)
    next(stream)
    assert os.listdir(temp) == []  # nameless files
    del stream


def test_every_order_of_four_rows_is_equally_likely(tmp_path):
    """Chi-square over the 24 orders of 4 rows, 1200 epochs of one seed; a
    buffer shuffle (buffer of 2 rows, as streaming loaders do) fails."""
    pq.write_table(pa.table({"id": [0, 1, 2, 3]}), tmp_path / "four.parquet")
    streamed, buffered = [], []
    rng = np.random.default_rng(7)
    for epoch in range(1200):
        streamed.append(ids(list(knuffle.stream_table(tmp_path / "four.parquet", "n=4", epoch=epoch, batch_size=3))))
        buffer, out = [0], []
        for row in (1, 2, 3):
            buffer.append(row)
            out.append(buffer.pop(int(rng.integers(2))))
        buffered.append(out + buffer)
    assert order_chi_square(np.array(streamed)) < CHI2_23_AT_0_001
    assert order_chi_square(np.array(buffered)) > CHI2_23_AT_0_001


PEAK = textwrap.dedent(
    """
    import sys
    import knuffle, pyarrow

    def peak():
        # VmHWM: this process's own peak (ru_maxrss folds in the parent's at exec).
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    before = peak()
    rows = 0
    for batch in knuffle.stream_table(sys.argv[1], "memory", memory=sys.argv[2], temp_dir=sys.argv[3]):
        rows += batch.num_rows
    after = peak()
    print(rows, (after - before) // 1024)
    """
)


def test_memory_is_bounded_by_memory(tmp_path):
    """About 120 MB of rows streamed with memory="32M": the process grows by
    well under the table's size; with memory="1G" the table is held whole
    (the same measurement sees it, so the bound is not vacuous)."""
    n = 400_000
    big = pa.table({"id": np.arange(n), "text": pa.array(np.char.add(np.arange(n).astype(str), "y" * 280).tolist())})
    pq.write_table(big, tmp_path / "big.parquet", row_group_size=20_000, compression="zstd")
    del big

    def grown(memory: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", PEAK, str(tmp_path / "big.parquet"), memory, str(tmp_path)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        assert int(out[0]) == n
        return int(out[1])

    bounded = grown("32M")
    assert bounded < 80, f"memory='32M' grew the process by {bounded} MiB"
    assert grown("1G") > 120


FULL = textwrap.dedent(
    """
    import resource, signal, sys
    import knuffle
    # Files may not grow past 1 MiB (EFBIG, as a full disk's ENOSPC).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    rows = 0
    try:
        for batch in knuffle.stream_table(sys.argv[1], "full", memory="1M", temp_dir=sys.argv[2]):
            rows += batch.num_rows
    except OSError as error:
        print("OSError", rows, error)
    """
)


def test_a_full_disk_is_a_clear_error_before_any_row(data, tmp_path):
    d, _ = data
    out = subprocess.run(
        [sys.executable, "-c", FULL, str(d / "rows.parquet"), str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out.startswith("OSError 0 "), out
    assert str(tmp_path) in out and "too large" in out.lower(), out
    assert os.listdir(tmp_path) == []
