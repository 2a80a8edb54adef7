"""Global row shuffles on a local Dask cluster: time and peak memory per worker.

    python python/benchmarks/bench_dask.py                # 10^7 rows, 2 workers
    python python/benchmarks/bench_dask.py --rows 100000  # a quick check

Contestants, each on new worker processes (so that a worker's peak
resident memory belongs to that contestant alone), the input generated on
the workers by every contestant alike (a "generate only" row shows that
share):

* knuffle.dask.shuffle: exactly uniform, reproducible for any partitioning
  (the rows of each partition are counted in the same graph, so the input
  is computed once);
* ddf.shuffle(on=random column) + a sort by that column in each partition:
  a global shuffle, but its order changes with the partitioning and it
  draws float keys;
* ddf.sample(frac=1): NOT a global shuffle; each row stays in its partition
  (shown for its cost only).

Columns: int64, float64, int32 and a string column. Medians of --rounds,
the contestants in turns.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
import pandas as pd


def make_part(part: int, rows: int, partitions: int) -> pd.DataFrame:
    start = part * rows // partitions
    stop = (part + 1) * rows // partitions
    x = np.arange(start, stop, dtype=np.int64)
    return pd.DataFrame(
        {
            "id": x,
            "value": x * 0.5,
            "bucket": (x % 1000).astype(np.int32),
            "name": pd.array([f"user-{i:09d}" for i in x], dtype="string[pyarrow]"),
        }
    )


def random_key(df: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    number = 0 if partition_info is None else partition_info["number"]
    rng = np.random.default_rng(number)
    return df.assign(_key=rng.random(len(df)))


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--partitions", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-limit", default="4GiB", help="per worker")
    parser.add_argument("--method", default=None, help="Dask shuffle method: tasks or p2p")
    parser.add_argument(
        "--persisted-input",
        action="store_true",
        help="generate and persist the input on the workers before the clock starts "
        "(as a cached or already loaded data set; knuffle's counting pass then reads memory)",
    )
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster, wait

    import knuffle.dask

    persisted = None

    def source():
        if persisted is not None:
            return persisted
        return dd.from_map(
            make_part, range(args.partitions), rows=args.rows, partitions=args.partitions
        )

    def knuffle_global():
        return knuffle.dask.shuffle(source(), "bench", shuffle_method=args.method)

    def random_column_then_sort():
        keyed = source().map_partitions(random_key)
        moved = keyed.shuffle(on="_key", shuffle_method=args.method)
        return moved.map_partitions(lambda d: d.sort_values("_key").drop(columns="_key"))

    def sample_frac_1():
        return source().sample(frac=1, random_state=1)

    contestants = [
        ("generate only (input, no shuffle)", source),
        ("knuffle.dask.shuffle (global, exact, reproducible)", knuffle_global),
        ("ddf.shuffle(on=random column) + sort (global)", random_column_then_sort),
        ("ddf.sample(frac=1) (NOT global: rows stay in their partition)", sample_frac_1),
    ]

    def fresh_cluster() -> LocalCluster:
        return LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            memory_limit=args.memory_limit,
        )

    print(
        f"{args.rows} rows in {args.partitions} partitions, {args.workers} workers, "
        f"dask {dask.__version__}, shuffle method {args.method or 'default'}, "
        f"input {'persisted before timing' if args.persisted_input else 'generated in each run'}"
    )
    print()
    print("| contestant | seconds (median) | peak RSS per worker, MiB (max) |")
    print("| --- | ---: | ---: |")
    times: dict[str, list[float]] = {name: [] for name, _ in contestants}
    peaks: dict[str, list[float]] = {name: [] for name, _ in contestants}
    # Contestants in turns (round 1: each once, round 2: each once, ...), so
    # that a slow spell of the machine falls on all of them alike.
    for _ in range(args.rounds):
        for name, build in contestants:
            # New worker processes for every run: a worker's peak resident
            # memory then belongs to this run alone (cluster start not timed).
            with fresh_cluster() as cluster, Client(cluster) as client:
                if args.persisted_input:
                    persisted = None
                    persisted = source().persist()
                    wait(persisted)
                start = time.perf_counter()
                result = build().persist()
                wait(result)
                times[name].append(time.perf_counter() - start)
                peaks[name].append(max(client.run(peak_rss_mib).values()))
                assert len(result) == args.rows
                del result
                persisted = None
    for name, _ in contestants:
        print(
            f"| {name} | {statistics.median(times[name]):.2f} | {max(peaks[name]):.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
