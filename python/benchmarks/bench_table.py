"""Shuffling a Parquet (and CSV, JSON Lines) table: knuffle table against
the tools people use, and the floor (the same table read and written
unshuffled).

    python python/benchmarks/bench_table.py                  # 10^7 rows, 3 rounds
    python python/benchmarks/bench_table.py --rows 100000    # a quick check
    python python/benchmarks/bench_table.py --csv            # the CSV form too
    python python/benchmarks/bench_table.py --jsonl          # the JSON Lines form too
    python python/benchmarks/bench_table.py --wide           # a training table too

Every contestant is its own process (its peak resident memory is its own:
VmHWM, polled), reads the same input file and writes a file
in the same directory; contestants take turns, round after round; medians.
The table: id int64, value float64, bucket int32, name string (10^7 rows:
about 190 MB of Parquet, Snappy).

Contestants (each a one-line program, shown with --show):
* knuffle table (default memory, and --memory 200M or 500M);
* DuckDB COPY (SELECT * ... ORDER BY random()) with memory_limit 1GB,
  500MB and 200MB, threads 2 (not reproducible: setseed holds only on one thread);
* polars read_parquet + sample(fraction=1, shuffle=True, seed) + write;
* pyarrow read_table + take(a numpy permutation) + write_table;
* Hugging Face datasets: from_parquet + shuffle(seed) + flatten_indices +
  to_parquet;
* floors: pyarrow read_table + write_table, DuckDB COPY without ORDER BY.

The training table (--wide, --wide-rows rows, 2x10^6 by default: about
280 MB of Parquet, zstd) is what a training job reads: id int64, label
int64, a list<float32> feature of 16 values and a text of 100 to 300
random letters; every contestant writes it with zstd.

Each form is read and written in that form (a CSV shuffled into a CSV, a
JSON Lines file into a JSON Lines file: DuckDB read_json + ORDER BY
random() into FORMAT json, polars read_ndjson + write_ndjson, datasets
from_json + to_json); pyarrow writes no JSON, so its two contestants sit
out the JSON Lines form.

Run it on an idle machine only (nothing building or testing): on 2 cores a
concurrent build inflates every figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def duckdb_spilling(limit: str) -> str:
    """DuckDB held to `limit`, spilling to the work directory."""
    return f"""
import duckdb, sys
con = duckdb.connect()
con.execute("SET memory_limit='{limit}'; SET threads=2; SET temp_directory='{{TMP}}'")
con.execute(f"COPY (SELECT * FROM read_{{FMT}}('{{IN}}') ORDER BY random()) TO '{{OUT}}' {{OPTS}}")
"""


PROGRAMS = {
    "duckdb 1GB": """
import duckdb, sys
con = duckdb.connect()
con.execute("SET memory_limit='1GB'; SET threads=2; SET preserve_insertion_order=true")
con.execute(f"COPY (SELECT * FROM read_{FMT}('{IN}') ORDER BY random()) TO '{OUT}' {OPTS}")
""",
    "duckdb 200MB": duckdb_spilling("200MB"),
    "duckdb 500MB": duckdb_spilling("500MB"),
    "polars": """
import polars as pl
df = pl.read_{PLFMT}('{IN}')
df.sample(fraction=1.0, shuffle=True, seed=1).write_{PLFMT}('{OUT}')
""",
    "pyarrow take": """
import numpy as np, pyarrow.parquet as pq, pyarrow.csv as pc
t = {READ}
t = t.take(np.random.default_rng(1).permutation(t.num_rows))
{WRITE}
""",
    "datasets": """
import datasets
datasets.disable_progress_bars()
ds = datasets.Dataset.from_{FMT}('{IN}', cache_dir='{TMP}')
ds = ds.shuffle(seed=1).flatten_indices()
ds.to_{FMT}('{OUT}')
""",
    "floor pyarrow": """
import pyarrow.parquet as pq, pyarrow.csv as pc
t = {READ}
{WRITE}
""",
    "floor duckdb": """
import duckdb
con = duckdb.connect()
con.execute("SET threads=2")
con.execute(f"COPY (SELECT * FROM read_{FMT}('{IN}')) TO '{OUT}' {OPTS}")
""",
}


def make_table(path: str, rows: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    batch = 1_000_000
    writer = None
    for start in range(0, rows, batch):
        x = np.arange(start, min(rows, start + batch), dtype=np.int64)
        table = pa.table(
            {
                "id": x,
                "value": x * 0.5,
                "bucket": (x % 1000).astype(np.int32),
                "name": pa.array([f"user-{i:09d}" for i in x]),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="snappy")
        writer.write_table(table, row_group_size=1 << 20)
    writer.close()


def make_wide_table(path: str, rows: int) -> None:
    """The training table: the rows of bench_stream.py's shards, one file,
    row groups of 65,536, zstd."""
    import numpy as np
    import pyarrow.parquet as pq

    from bench_stream import training_rows

    rng = np.random.default_rng(36)
    writer = None
    for start in range(0, rows, 500_000):
        table = training_rows(rng, start, min(500_000, rows - start))
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
        writer.write_table(table, row_group_size=65_536)
    writer.close()


def run(argv: list[str]) -> tuple[float, int]:
    """Seconds and peak resident bytes of one process. The peak is
    VmHWM of /proc/PID/status, read every 5 ms (wait4's ru_maxrss would
    include this parent's memory, which Linux folds in at exec)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    peak = 0
    status_file = f"/proc/{process.pid}/status"
    while process.poll() is None:
        try:
            with open(status_file) as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{argv[:3]}... failed with status {process.returncode}")
    return elapsed, peak


def warm_memory(gib: int) -> None:
    """Touches fresh memory once (the first touch costs ~3 s/GB on these VMs)."""
    block = bytearray(gib << 30)
    for i in range(0, len(block), 4096):
        block[i] = 1
    del block


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv", action="store_true", help="also the table as CSV")
    parser.add_argument("--jsonl", action="store_true", help="also the table as JSON Lines")
    parser.add_argument("--wide", action="store_true", help="also a training table (list, long text, zstd)")
    parser.add_argument("--wide-rows", type=int, default=2_000_000)
    parser.add_argument("--knuffle", default=os.path.join(ROOT, "target/release/knuffle"))
    parser.add_argument("--only", nargs="*", help="contestants to run (names as printed)")
    parser.add_argument("--show", action="store_true", help="print each contestant's program")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench-table-", dir=ROOT)
    try:
        source = os.path.join(work, "table.parquet")
        make_table(source, args.rows)
        inputs = {"parquet": source}
        if args.csv:
            import pyarrow.csv as pc
            import pyarrow.parquet as pq

            inputs["csv"] = os.path.join(work, "table.csv")
            pc.write_csv(pq.read_table(source), inputs["csv"])
        if args.jsonl:
            import polars as pl

            inputs["jsonl"] = os.path.join(work, "table.jsonl")
            pl.read_parquet(source).write_ndjson(inputs["jsonl"])
        if args.wide:
            inputs["wide"] = os.path.join(work, "wide.parquet")
            make_wide_table(inputs["wide"], args.wide_rows)
        warm_memory(4)
        for fmt, path in inputs.items():
            bench(fmt, path, work, args)
    finally:
        shutil.rmtree(work)


def contestants(fmt: str, path: str, work: str, knuffle: str) -> dict[str, list[str]]:
    # The training table is Parquet written with zstd (polars' default).
    codec = "zstd" if fmt == "wide" else "snappy"
    out = os.path.join(work, "out.parquet" if fmt == "wide" else f"out.{fmt}")
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    parquet = fmt in ("parquet", "wide")
    read = f"pq.read_table('{path}')" if parquet else f"pc.read_csv('{path}')"
    write = (
        f"pq.write_table(t, '{out}', compression='{codec}')"
        if parquet
        else f"pc.write_csv(t, '{out}')"
    )
    opts = {
        "parquet": "(FORMAT parquet, COMPRESSION snappy)",
        "wide": "(FORMAT parquet, COMPRESSION zstd)",
        "csv": "(HEADER)",
        "jsonl": "(FORMAT json)",
    }[fmt]
    # The names of the form in DuckDB's read_* and datasets' from_*/to_*,
    # and in polars' read_*/write_*.
    name = {"parquet": "parquet", "wide": "parquet", "csv": "csv", "jsonl": "json"}[fmt]
    polars = {"parquet": "parquet", "wide": "parquet", "csv": "csv", "jsonl": "ndjson"}[fmt]
    found = {
        "knuffle": [knuffle, "table", path, "-o", out, "--seed", "1", "-T", tmp],
        "knuffle 200M": [knuffle, "table", path, "-o", out, "--seed", "1", "--memory", "200M",
                         "-T", tmp],
        "knuffle 500M": [knuffle, "table", path, "-o", out, "--seed", "1", "--memory", "500M",
                         "-T", tmp],
    }
    for contestant, program in PROGRAMS.items():
        if fmt == "jsonl" and "pyarrow" in contestant:
            continue
        code = (
            program.replace("{FMT}", name)
            .replace("{PLFMT}", polars)
            .replace("{IN}", path)
            .replace("{OUT}", out)
            .replace("{TMP}", tmp)
            .replace("{OPTS}", opts)
            .replace("{READ}", read)
            .replace("{WRITE}", write)
        )
        found[contestant] = [sys.executable, "-c", code]
    return found


def bench(fmt: str, path: str, work: str, args: argparse.Namespace) -> None:
    programs = contestants(fmt, path, work, args.knuffle)
    if args.only:
        programs = {k: v for k, v in programs.items() if k in args.only}
    if args.show:
        for name, argv in programs.items():
            print(f"# {name}\n{argv[-1] if argv[1] == '-c' else ' '.join(argv)}\n")
    times: dict[str, list[float]] = {name: [] for name in programs}
    peaks: dict[str, list[int]] = {name: [] for name in programs}
    for _ in range(args.rounds):
        for name, argv in programs.items():
            elapsed, peak = run(argv)
            times[name].append(elapsed)
            peaks[name].append(peak)
    size = os.path.getsize(path) / 1e6
    rows = args.wide_rows if fmt == "wide" else args.rows
    print(f"\n{rows:,} rows, {fmt} ({size:.0f} MB), medians of {args.rounds} rounds")
    print(f"{'contestant':<16} {'seconds':>8} {'peak MiB':>9}")
    for name in programs:
        print(f"{name:<16} {statistics.median(times[name]):>8.2f} "
              f"{statistics.median(peaks[name]) / 2**20:>9.0f}")


if __name__ == "__main__":
    main()
