"""Streaming a table into training in the epoch order (issue 36's targets):
knuffle.stream_table's pass 1 and pass 2 against reading the same files
unshuffled, against knuffle table (a whole shuffled copy), against the
streaming shuffles of Hugging Face datasets and Ray Data, and a torch
DataLoader around knuffle.torch.TableDataset.

    python python/benchmarks/bench_stream.py                            # ~1 GB, 3 rounds
    python python/benchmarks/bench_stream.py --rows 20000 --rounds 1    # checks that it runs
    python python/benchmarks/bench_stream.py --only knuffle             # some contestants
    python python/benchmarks/bench_stream.py --only pyarrow,"knuffle stream pass 2"
    python python/benchmarks/bench_stream.py --json out.json

The dataset (made once in --data, default a directory under the system's
temporary directory, and reused while --rows is the same): 8 Parquet
shards (Snappy, row groups of 65,536 rows) of an int64 id, an int64 label,
a list<float32> feature of 16 values and a text of 100 to 300 random
letters; 3.5 million rows make about 1 GB.

Every contestant reads every column, in batches of --batch-size rows, and
counts the rows; each runs in a process of its own, started fresh each
round: its peak resident memory is its own (VmHWM, else ru_maxrss), and
"children" the largest ru_maxrss of the processes it started and waited
for (the DataLoader's workers, and what the libraries start); Ray's
workers are not its children and are not counted. Before the rounds every file is read once (the page cache
warmed) and the cache entries that the warm contestants read are written;
then the contestants take turns, round after round; medians (min-max).

Contestants:
* pyarrow ParquetFile.iter_batches: the files read in order, unshuffled
  (the speed to match);
* knuffle table: the whole shuffle to a directory of 8 Parquet shards
  (knuffle.shuffle_table, the engine of `knuffle table`), its time;
* knuffle stream pass 1: stream_table with a new cache directory, the time
  to its first batch (pass 1: the inputs read and the bucket files written,
  and the first bucket ordered);
* knuffle stream pass 2: stream_table of an epoch already in the cache
  (what every epoch costs from the second on, its pass 1 done in the
  background), all rows;
* knuffle stream without cache: stream_table without a cache directory, a
  whole epoch (pass 1 and pass 2);
* torch DataLoader, 0 and 2 workers: around TableDataset (batches), the
  epoch in the cache already;
* Hugging Face IterableDataset.shuffle(buffer_size=10_000) over the same
  files (streaming), and Ray Data iter_batches(local_shuffle_buffer_size=
  --ray-buffer) (both approximate shuffles), if installed.

Run it on an idle machine only (nothing building or testing).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SEED = "bench stream"
EPOCH = 1
SHARDS = 8

PRELUDE = """
import glob, json, os, resource, sys, time
DATA, WORK, BATCH, MEMORY, RAY_BUFFER = {DATA!r}, {WORK!r}, {BATCH}, {MEMORY!r}, {RAY_BUFFER}
FILES = sorted(glob.glob(os.path.join(DATA, "*.parquet")))
COLUMNS = ["id", "label", "feature", "text"]
"""

EPILOGUE = """
def own_peak_kib():
    # VmHWM: this process's own peak (ru_maxrss would fold in the
    # benchmark's own, as it was when this process was started).
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result["peak_mib"] = own_peak_kib() / 1024
result["children_peak_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(result))
"""

PROGRAMS = {
    "pyarrow iter_batches (unshuffled)": """
import pyarrow.parquet as pq
t = time.perf_counter()
rows = 0
for path in FILES:
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=COLUMNS):
        rows += batch.num_rows
elapsed = time.perf_counter() - t
result = {"rows": rows, "seconds": elapsed}
""",
    "knuffle table (a shuffled copy)": """
import shutil, knuffle
out = os.path.join(WORK, "table-out")
shutil.rmtree(out, ignore_errors=True)
t = time.perf_counter()
knuffle.shuffle_table(DATA, out, seed=knuffle.epoch_seed({SEED!r}, {EPOCH}), shards=8, memory=MEMORY)
elapsed = time.perf_counter() - t
shutil.rmtree(out)
result = {"seconds": elapsed}
""",
    "knuffle stream pass 1": """
import shutil, knuffle
cache = os.path.join(WORK, "cold-cache")
shutil.rmtree(cache, ignore_errors=True)
t = time.perf_counter()
stream = knuffle.stream_table(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                              cache_dir=cache, prefetch=False)
first = next(stream)
elapsed = time.perf_counter() - t
assert stream.stats["pass1"] == "wrote", stream.stats
bucket_bytes = stream.stats["bucket_bytes"]
del stream
shutil.rmtree(cache)
result = {"seconds": elapsed, "bucket_bytes": bucket_bytes}
""",
    "knuffle stream pass 2 (epoch in the cache)": """
import knuffle
t = time.perf_counter()
stream = knuffle.stream_table(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                              cache_dir=os.path.join(WORK, "warm-cache"), prefetch=False)
rows = 0
for batch in stream:
    rows += batch.num_rows
elapsed = time.perf_counter() - t
assert stream.stats["pass1"] == "reused", stream.stats
result = {"rows": rows, "seconds": elapsed}
""",
    "knuffle stream without cache (pass 1 + 2)": """
import knuffle
t = time.perf_counter()
rows = 0
for batch in knuffle.stream_table(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                                  temp_dir=WORK):
    rows += batch.num_rows
elapsed = time.perf_counter() - t
result = {"rows": rows, "seconds": elapsed}
""",
    "torch DataLoader, 0 workers (TableDataset)": """
import torch, knuffle.torch
dataset = knuffle.torch.TableDataset(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                                     rank=0, world_size=1, cache_dir=os.path.join(WORK, "warm-cache"), prefetch=False)
loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=0)
t = time.perf_counter()
rows = 0
for batch in loader:
    rows += len(batch["id"])
elapsed = time.perf_counter() - t
result = {"rows": rows, "seconds": elapsed}
""",
    "torch DataLoader, 2 workers (TableDataset)": """
import torch, knuffle.torch
dataset = knuffle.torch.TableDataset(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                                     rank=0, world_size=1, cache_dir=os.path.join(WORK, "warm-cache"), prefetch=False)
loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=2)
t = time.perf_counter()
rows = 0
for batch in loader:
    rows += len(batch["id"])
elapsed = time.perf_counter() - t
result = {"rows": rows, "seconds": elapsed}
""",
    "Hugging Face IterableDataset.shuffle(buffer_size=10_000)": """
import datasets
datasets.disable_progress_bars()
t = time.perf_counter()
ds = datasets.load_dataset("parquet", data_files=FILES, split="train", streaming=True)
ds = ds.shuffle(seed=1, buffer_size=10_000)
rows = 0
for batch in ds.iter(batch_size=BATCH):
    rows += len(batch["id"])
elapsed = time.perf_counter() - t
result = {"rows": rows, "seconds": elapsed}
""",
    "Ray Data iter_batches(local_shuffle_buffer_size)": """
import ray, logging
ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
ray.data.DataContext.get_current().enable_progress_bars = False
t = time.perf_counter()
ds = ray.data.read_parquet(DATA, columns=COLUMNS)
rows = 0
for batch in ds.iter_batches(batch_size=BATCH, local_shuffle_buffer_size=RAY_BUFFER, batch_format="pyarrow"):
    rows += batch.num_rows
elapsed = time.perf_counter() - t
ray.shutdown()
result = {"rows": rows, "seconds": elapsed}
""",
}

#: The module a contestant needs beyond knuffle and pyarrow.
NEEDS = {"torch": "torch", "Hugging Face": "datasets", "Ray": "ray"}


def training_rows(rng, start: int, n: int):
    """Rows `start..start + n` of the training table (a pyarrow Table): id
    int64, label int64, a list<float32> feature of 16 values, a text of 100
    to 300 random letters; `rng` a numpy Generator."""
    import numpy as np
    import pyarrow as pa

    lengths = rng.integers(100, 301, n)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    letters = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    text = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(letters))
    features = pa.ListArray.from_arrays(
        pa.array(np.arange(0, 16 * n + 1, 16, dtype=np.int32)),
        pa.array(rng.standard_normal(16 * n, dtype=np.float32)),
    )
    return pa.table(
        {
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "label": pa.array(rng.integers(0, 1000, n, dtype=np.int64)),
            "feature": features,
            "text": text,
        }
    )


def make_data(directory: str, rows: int) -> None:
    """8 Parquet shards of `rows` rows in all (made once: a marker file
    records the rows)."""
    marker = os.path.join(directory, "_ROWS")
    if os.path.exists(marker) and open(marker).read().strip() == str(rows):
        return
    import numpy as np
    import pyarrow.parquet as pq

    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    rng = np.random.default_rng(36)
    per_shard = -(-rows // SHARDS)
    for shard in range(SHARDS):
        start = shard * per_shard
        n = max(0, min(per_shard, rows - start))
        table = training_rows(rng, start, n)
        pq.write_table(table, os.path.join(directory, f"part-{shard:05d}.parquet"), row_group_size=65_536)
    with open(marker, "w") as f:
        f.write(str(rows))


def program(name: str, settings: dict) -> str:
    code = PRELUDE + PROGRAMS[name] + EPILOGUE
    for key, value in settings.items():
        code = code.replace("{" + key + "!r}", repr(value)).replace("{" + key + "}", str(value))
    return code


def run(name: str, settings: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", program(name, settings)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def available(name: str) -> bool:
    module = next((m for prefix, m in NEEDS.items() if name.startswith(prefix)), None)
    if module is None:
        return True
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def prepare(settings: dict) -> None:
    """The page cache warmed (every file read once) and the epoch written to
    the warm cache (for the contestants that read it)."""
    warm = """
import knuffle, pyarrow.parquet as pq
for path in FILES:
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=COLUMNS):
        pass
stream = knuffle.stream_table(DATA, {SEED!r}, epoch={EPOCH}, columns=COLUMNS, batch_size=BATCH, memory=MEMORY,
                              cache_dir=os.path.join(WORK, "warm-cache"), prefetch=False)
next(stream)
result = {"bucket_bytes": stream.stats["bucket_bytes"]}
del stream
"""
    PROGRAMS["prepare"] = warm
    try:
        run("prepare", settings)
    finally:
        del PROGRAMS["prepare"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_500_000, help="rows of the dataset (3.5M: about 1 GB)")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "knuffle-bench-stream"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--memory", default="1G", help="knuffle's memory= (and knuffle table's)")
    parser.add_argument("--ray-buffer", type=int, default=10_000, help="Ray's local_shuffle_buffer_size (rows)")
    parser.add_argument("--only", default="", help="contestants whose name starts with this (or one of these, comma-separated)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    data = os.path.join(args.data, f"rows-{args.rows}")
    make_data(data, args.rows)
    work = tempfile.mkdtemp(prefix="knuffle-bench-stream-work-")
    settings = {
        "DATA": data,
        "WORK": work,
        "BATCH": args.batch_size,
        "MEMORY": args.memory,
        "RAY_BUFFER": args.ray_buffer,
        "SEED": SEED,
        "EPOCH": EPOCH,
    }
    try:
        prefixes = tuple(args.only.split(","))
        names = [name for name in PROGRAMS if name.startswith(prefixes) and available(name)]
        missing = [name for name in PROGRAMS if name.startswith(prefixes) and name not in names]
        if missing:
            print(f"not installed, not measured: {', '.join(missing)}")
        prepare(settings)
        results: dict[str, list[dict]] = {name: [] for name in names}
        for _ in range(args.rounds):
            for name in names:
                results[name].append(run(name, settings))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data) if f.endswith(".parquet"))
    print(
        f"{args.rows:,} rows in {SHARDS} Parquet shards, {size / 2**20:,.0f} MiB; batches of {args.batch_size}; "
        f"memory={args.memory}; {args.rounds} rounds (medians, min-max)"
    )
    summary = {}
    for name in names:
        seconds = [r["seconds"] for r in results[name]]
        peak = statistics.median(r["peak_mib"] for r in results[name])
        children = statistics.median(r["children_peak_mib"] for r in results[name])
        line = f"  {name:56} {statistics.median(seconds):8.2f} s ({min(seconds):.2f}-{max(seconds):.2f})"
        rows = results[name][0].get("rows")
        if rows:
            rates = [rows / s for s in seconds]
            line += f" {statistics.median(rates) / 1e6:7.3f} M rows/s"
        line += f"  peak {peak:,.0f} MiB" + (f" (children {children:,.0f} MiB)" if children > 1 else "")
        print(line)
        summary[name] = {"median_s": statistics.median(seconds), "seconds": seconds, "rows": rows,
                         "peak_mib": peak, "children_peak_mib": children}
    base = summary.get("pyarrow iter_batches (unshuffled)")
    pass2 = summary.get("knuffle stream pass 2 (epoch in the cache)")
    pass1 = summary.get("knuffle stream pass 1")
    table = summary.get("knuffle table (a shuffled copy)")
    if base and pass2:
        ratio = base["median_s"] / pass2["median_s"]
        print(f"pass 2 at {ratio:.0%} of the unshuffled read (target: at least 90%)")
    if pass1 and table:
        ratio = pass1["median_s"] / table["median_s"]
        print(f"pass 1 takes {ratio:.2f}x the time of knuffle table (target: at most 1.2x)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"python": sys.version, "rows": args.rows, "bytes": size, "batch_size": args.batch_size,
                       "memory": args.memory, "rounds": args.rounds, "results": summary}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
