"""knuffle.stream_table and knuffle.torch.TableDataset with cache_dir=: two
processes started at once do one pass 1 and both get the epoch order; a
pass 1 killed with SIGKILL is detected, removed and redone by the next run;
a corrupt input and a full disk are clear errors that leave no rows and no
bucket files; the next epoch's pass 1 in the background gives the rows of a
cold run; a DataLoader's workers read the epoch the main process wrote."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import knuffle
from conftest import need


def epoch_seed(seed: str, epoch: int) -> str:
    """docs/table-order.md, "Epochs"."""
    return seed if epoch == 0 else f"knuffle epoch {epoch}: {seed}"


def table(n: int, text_bytes: int = 40) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "feature": pa.array(np.arange(2 * n, dtype=np.float32).reshape(n, 2).tolist(), pa.list_(pa.float32())),
            "text": pa.array(np.char.add(np.arange(n).astype(str), "x" * text_bytes).tolist()),
        }
    )


def write_shards(directory, t: pa.Table, shards: int = 4) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    step = -(-t.num_rows // shards)
    for i in range(shards):
        pq.write_table(t.slice(i * step, step), directory / f"part-{i:05d}.parquet", row_group_size=5000)


def ids(batches) -> list[int]:
    batches = list(batches)
    return pa.Table.from_batches(batches)["id"].to_pylist() if batches else []


def entry_files(cache, epoch: int) -> list[str]:
    """The files of epoch `epoch`'s entries in the cache, by suffix."""
    found = []
    for dataset in os.listdir(cache):
        for name in os.listdir(os.path.join(cache, dataset)):
            if name.startswith(f"epoch-{epoch}."):
                found.append(name[len(f"epoch-{epoch}.") :])
    return sorted(found)


def manifest(cache, epoch: int) -> dict:
    (dataset,) = os.listdir(cache)
    with open(os.path.join(cache, dataset, f"epoch-{epoch}.manifest")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("cache") / "shards"
    t = table(60_000)
    write_shards(d, t)
    return d, t


CONSUMER = textwrap.dedent(
    """
    import json, os, sys, time
    import knuffle, pyarrow as pa
    source, cache, rank, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    open(f"{ready}-{rank}", "w").close()
    while not all(os.path.exists(f"{ready}-{r}") for r in range(2)):  # both are here
        time.sleep(0.001)
    stream = knuffle.stream_table(
        source, "together", epoch=2, rank=rank, world_size=2, cache_dir=cache, memory="4M", prefetch=False
    )
    rows = [i for batch in stream for i in batch.column(0).to_pylist()]
    print(json.dumps({"pid": os.getpid(), "ids": rows, "stats": stream.stats}))
    """
)


def test_two_processes_at_once_do_one_pass_1(data, tmp_path):
    """Each child opens its stream once both have started (each made its
    ready file): one writes the entry, the other reads it (having waited
    for the writer, or found the entry complete); neither writes another
    epoch (prefetch=False)."""
    source, t = data
    cache, ready = tmp_path / "cache", tmp_path / "ready"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CONSUMER, str(source), str(cache), str(rank), str(ready)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for rank in range(2)
    ]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=600)
        assert child.returncode == 0
        results.append(json.loads(out))
    passes = sorted(r["stats"]["pass1"] for r in results)
    assert passes == ["reused", "wrote"], [r["stats"] for r in results]
    (writer,) = [r for r in results if r["stats"]["pass1"] == "wrote"]
    (reader,) = [r for r in results if r["stats"]["pass1"] == "reused"]
    assert reader["pid"] != writer["pid"]
    assert all(r["stats"]["writer_pid"] == writer["pid"] for r in results)
    assert all(r["stats"]["prefetch"] == "off" for r in results)
    assert entry_files(cache, 3) == []
    assert manifest(cache, 2)["writer"] == {"pid": writer["pid"], "background": False}
    # Both have their positions of the epoch order: merged, the order.
    order = knuffle.table_order(epoch_seed("together", 2), t.num_rows).tolist()
    assert results[0]["ids"] == order[0::2]
    assert results[1]["ids"] == order[1::2]
    knuffle.shuffle_table(source, tmp_path / "out.parquet", seed=epoch_seed("together", 2))
    assert pq.read_table(tmp_path / "out.parquet")["id"].to_pylist() == order


def test_an_input_rewritten_at_its_size_with_its_time_set_back_is_read_again(tmp_path):
    """The same lines in another order (the same size), written in place
    (the same inode), its modification time set back (`cp -p`, `rsync
    -t`): the cache's old entry is not read; the rows are the new file's."""
    path, cache = tmp_path / "rows.csv", tmp_path / "cache"
    n = 5000
    path.write_text("id\n" + "".join(f"{i}\n" for i in range(n)))
    first = knuffle.stream_table(path, "rewritten", cache_dir=cache, prefetch=False)
    assert [int(row) for row in ids(first)] == knuffle.table_order("rewritten", n).tolist()
    before = os.stat(path)
    path.write_text("id\n" + "".join(f"{i}\n" for i in reversed(range(n))))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    second = knuffle.stream_table(path, "rewritten", cache_dir=cache, prefetch=False)
    got = [int(row) for row in ids(second)]  # CSV columns are text
    assert second.stats["pass1"] == "wrote"
    knuffle.shuffle_table(path, tmp_path / "out.parquet", seed="rewritten")
    assert got == [int(row) for row in pq.read_table(tmp_path / "out.parquet")["id"].to_pylist()]
    assert got == [n - 1 - row for row in knuffle.table_order("rewritten", n).tolist()]


HELD = textwrap.dedent(
    """
    import fcntl, os, sys, threading, time
    import knuffle
    from knuffle._stream import _prefetch_epochs
    source, cache = sys.argv[1], sys.argv[2]
    for _ in knuffle.stream_table(source, "held", cache_dir=cache, prefetch=False):
        pass
    (dataset,) = os.listdir(cache)
    # Another process holds epoch 1 (as its writer does).
    lock = open(os.path.join(cache, dataset, "epoch-1.lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    stream = knuffle.stream_table(source, "held", epoch=1, cache_dir=cache, prefetch=False)
    prefetching = _prefetch_epochs(
        source, "held", epoch=1, columns=None, batch_size=1024, memory="4M", temp_dir=None, cache_dir=cache,
        prefetch=True, format=None, consumer=0, consumers=1, start=0,
    )
    got = []
    waiters = [
        threading.Thread(target=lambda: got.append(next(stream).num_rows)),
        threading.Thread(target=prefetching.wait),
    ]
    for waiter in waiters:
        waiter.start()
    # While the threads wait (for a batch, for the passes), the stats and
    # done() answer.
    for _ in range(50):
        assert stream.stats["pass1"] is None
        assert prefetching.stats()["pass1"] is None
        assert not prefetching.done()
        time.sleep(0.01)
    assert all(waiter.is_alive() for waiter in waiters)
    fcntl.flock(lock, fcntl.LOCK_UN)
    for waiter in waiters:
        waiter.join()
    assert got == [1024] and stream.stats["pass1"] in ("wrote", "reused")
    assert prefetching.done() and prefetching.stats()["pass1"] in ("wrote", "reused")
    print("answered")
    """
)


def test_stats_answer_while_another_thread_waits(tmp_path):
    """A thread waiting for a stream's batch, or for a background pass,
    does not keep another from reading their stats (nor freeze the
    interpreter): in a child, so that a freeze fails the test."""
    path = tmp_path / "rows.csv"
    path.write_text("id\n" + "".join(f"{i}\n" for i in range(5000)))
    out = subprocess.run(
        [sys.executable, "-c", HELD, str(path), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "answered\n"


KILLED = textwrap.dedent(
    """
    import sys
    import knuffle
    for batch in knuffle.stream_table(sys.argv[1], "killed", cache_dir=sys.argv[2], memory="2M", prefetch=False):
        pass
    """
)


def test_a_killed_pass_1_is_removed_and_redone(tmp_path):
    source = tmp_path / "big"
    n = 400_000
    write_shards(source, table(n, text_bytes=150), shards=8)
    cache = tmp_path / "cache"
    child = subprocess.Popen([sys.executable, "-c", KILLED, str(source), str(cache)])
    deadline = time.monotonic() + 600
    partial = None
    while partial is None and time.monotonic() < deadline:
        assert child.poll() is None, "pass 1 ended before it could be killed"
        for dataset in os.listdir(cache) if cache.exists() else []:
            path = cache / dataset / "epoch-0.buckets.partial"
            if path.exists() and path.stat().st_size > 0:
                partial = path
        time.sleep(0.002)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    # What a killed writer leaves: its partial file, no manifest.
    assert entry_files(cache, 0) == ["buckets.partial", "lock"]
    stream = knuffle.stream_table(source, "killed", cache_dir=cache, memory="16M", prefetch=False, batch_size=10_000)
    got = ids(stream)
    assert stream.stats["pass1"] == "wrote"
    assert got == knuffle.table_order("killed", n).tolist()
    assert entry_files(cache, 0) == ["buckets", "lock", "manifest"]


def test_a_corrupt_input_gives_no_row_and_leaves_no_buckets(tmp_path):
    csvs = tmp_path / "csvs"
    csvs.mkdir()
    good = "id,text\n" + "".join(f"{i},row {i}\n" for i in range(20_000))
    (csvs / "a.csv").write_text(good)
    (csvs / "b.csv").write_text(good + "1,2,3\n")
    cache = tmp_path / "cache"
    stream = knuffle.stream_table(csvs, "s", cache_dir=cache, memory="1M")
    with pytest.raises(ValueError, match="b.csv"):
        next(stream)
    with pytest.raises(StopIteration):
        next(stream)
    assert stream.stats["pass1"] is None
    assert entry_files(cache, 0) == ["lock"]


FULL = textwrap.dedent(
    """
    import resource, signal, sys
    import knuffle
    # Files may not grow past 1 MiB (EFBIG, as a full disk's ENOSPC).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    rows = 0
    try:
        for batch in knuffle.stream_table(sys.argv[1], "full", memory="1M", cache_dir=sys.argv[2]):
            rows += batch.num_rows
    except OSError as error:
        print("OSError", rows, error)
    """
)


def small_file_system(path) -> bool:
    """A 1 MiB tmpfs mounted at `path` (as root), else False."""
    path.mkdir()
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", str(path)], capture_output=True)
    return done.returncode == 0


def test_a_full_disk_is_a_clear_error_and_leaves_no_buckets(data, tmp_path):
    """The cache on a 1 MiB file system (a tmpfs; where mounting one is not
    allowed, files limited to 1 MiB with RLIMIT_FSIZE, which fails the same
    way): an OSError naming the cache, before any row, and nothing but the
    entry's lock file left."""
    source, _ = data
    cache = tmp_path / "small"
    if small_file_system(cache):
        try:
            stream = knuffle.stream_table(source, "full", cache_dir=cache, memory="1M")
            with pytest.raises(OSError, match="No space left on device") as error:
                next(stream)
            assert str(cache) in str(error.value)
            with pytest.raises(StopIteration):
                next(stream)
            assert entry_files(cache, 0) == ["lock"]
        finally:
            subprocess.run(["umount", str(cache)], check=True)
    else:
        out = subprocess.run(
            [sys.executable, "-c", FULL, str(source), str(cache)], check=True, capture_output=True, text=True
        ).stdout
        assert out.startswith("OSError 0 "), out
        assert str(cache) in out and "too large" in out.lower(), out
        assert entry_files(cache, 0) == ["lock"]


def test_the_background_pass_gives_the_rows_of_a_cold_run(data, tmp_path):
    source, t = data
    cache = tmp_path / "cache"
    first = knuffle.stream_table(source, "ahead", epoch=0, cache_dir=cache, batch_size=5000)
    assert ids(first) == knuffle.table_order("ahead", t.num_rows).tolist()
    stats = first.stats
    assert stats["pass1"] == "wrote" and stats["prefetch"] in ("running", "done"), stats
    second = knuffle.stream_table(source, "ahead", epoch=1, cache_dir=cache, batch_size=5000)
    warm = ids(second)
    stats = second.stats
    assert stats["pass1"] == "reused" and stats["written_in_background"], stats
    assert stats["writer_pid"] == os.getpid()
    cold = knuffle.stream_table(source, "ahead", epoch=1, batch_size=5000)
    assert warm == ids(cold)
    assert cold.stats["pass1"] == "private"
    knuffle.shuffle_table(source, tmp_path / "out.parquet", seed=epoch_seed("ahead", 1))
    assert warm == pq.read_table(tmp_path / "out.parquet")["id"].to_pylist()
    # Epoch 1's end removed epoch 0; epoch 2 is being written or done.
    assert entry_files(cache, 0) == []
    assert second.stats["removed"] == 1


def test_options(data, tmp_path):
    source, _ = data
    with pytest.raises(ValueError, match="cache_dir="):
        knuffle.stream_table(source, "s", prefetch=True)
    with pytest.raises(TypeError, match="prefetch="):
        knuffle.stream_table(source, "s", cache_dir=tmp_path, prefetch="yes")
    with pytest.raises(TypeError, match="cache_dir="):
        knuffle.stream_table(source, "s", cache_dir=3)
    stream = knuffle.stream_table(source, "s", cache_dir=tmp_path / "c", prefetch=False, batch_size=60_000)
    next(stream)
    assert stream.stats["prefetch"] == "off"


def test_a_dataloaders_workers_read_the_epoch_the_main_process_wrote(data, tmp_path):
    torch = need("torch")
    from knuffle.torch import TableDataset

    source, t = data
    n = t.num_rows
    cache = tmp_path / "cache"
    dataset = TableDataset(source, "loader", batch_size=1000, rank=0, world_size=1, cache_dir=cache)
    for epoch in range(3):
        dataset.set_epoch(epoch)
        pickle.dumps(dataset)  # as a DataLoader that spawns its workers does
        loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=2)
        batches = [b["id"].numpy() for b in loader]
        assert sorted(np.concatenate(batches).tolist()) == list(range(n))
        # Each batch is consecutive positions of one worker (consumer w of
        # 2): merged by position, the epoch order.
        at = np.empty(n, dtype=np.int64)
        at[knuffle.table_order(epoch_seed("loader", epoch), n)] = np.arange(n)
        assert all((np.diff(at[b]) == 2).all() for b in batches)
        stats = dataset._prefetching.wait()
        assert stats["prefetch"] in ("done", "ready"), stats
        # The next epoch's entry: written by this process in the background.
        assert manifest(cache, epoch + 1)["writer"] == {"pid": os.getpid(), "background": True}
    # The workers removed the older epochs' entries as they ended.
    assert entry_files(cache, 0) == [] and entry_files(cache, 1) == []
    assert entry_files(cache, 2) == entry_files(cache, 3) == ["buckets", "lock", "manifest"]


def test_a_dataset_without_workers_reads_the_epoch_its_set_epoch_wrote(data, tmp_path):
    torch = need("torch")
    from knuffle.torch import TableDataset

    source, t = data
    cache = tmp_path / "cache"
    dataset = TableDataset(source, "main", batch_size=5000, rank=0, world_size=1, cache_dir=cache)
    assert dataset.stream_stats is None
    seen = []
    for epoch in range(2):
        dataset.set_epoch(epoch)
        loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=0)
        seen.append(np.concatenate([b["id"].numpy() for b in loader]).tolist())
        dataset._prefetching.wait()
        assert seen[-1] == knuffle.table_order(epoch_seed("main", epoch), t.num_rows).tolist()
    # Epoch 1 was written in the background while epoch 0 was read.
    stats = dataset.stream_stats
    assert stats["pass1"] == "reused" and stats["written_in_background"], stats
    assert stats["writer_pid"] == os.getpid()

