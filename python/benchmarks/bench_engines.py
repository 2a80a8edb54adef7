"""Global row shuffles on Spark and Ray Data, from Parquet: seconds (medians).

    python python/benchmarks/bench_engines.py                  # 10^7 rows, 2 cores
    python python/benchmarks/bench_engines.py --rows 100000    # a quick check
    python python/benchmarks/bench_engines.py --engines spark  # one engine

The input (int64, float64, int32 and a string column) is written once to
one Parquet file of --row-groups row groups. Contestants, in turns (round 1:
each once, round 2: each once, ...):

* Spark on local[--cores]: knuffle.spark.shuffle (exact, the table order)
  against df.orderBy(rand(seed)) (its order changes with the partitioning,
  SPARK-13380); each result is written to Spark's "noop" sink, which
  computes every row and writes nothing;
* Ray Data on ray.init(num_cpus=--cores): knuffle.ray.shuffle against
  ds.random_shuffle(seed=...), which is NOT uniform (equal slices per
  output block; docs/ray.md); each result is materialized.

Session and runtime start-up are not timed; reading the Parquet file is.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_input(path: str, rows: int, row_groups: int) -> None:
    x = np.arange(rows, dtype=np.int64)
    table = pa.table({
        "id": x,
        "value": x * 0.5,
        "bucket": (x % 1000).astype(np.int32),
        "name": pa.array([f"user-{i:09d}" for i in range(rows)]),
    })
    pq.write_table(table, path, row_group_size=max(1, -(-rows // row_groups)))


def spark_contestants(path: str, cores: int):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import knuffle.spark

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    def knuffle_spark() -> None:
        df = spark.read.parquet(path)
        knuffle.spark.shuffle(df, "bench").write.format("noop").mode("overwrite").save()

    def order_by_rand() -> None:
        df = spark.read.parquet(path)
        df.orderBy(F.rand(1)).write.format("noop").mode("overwrite").save()

    return [
        ("Spark: knuffle.spark.shuffle (exact, reproducible)", knuffle_spark),
        ("Spark: orderBy(rand(seed)) (order changes with the partitioning)", order_by_rand),
    ], spark.stop


def ray_contestants(path: str, cores: int):
    import ray
    import ray.data

    import knuffle.ray

    ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False

    def knuffle_ray() -> None:
        knuffle.ray.shuffle(ray.data.read_parquet(path), "bench").materialize()

    def random_shuffle() -> None:
        ray.data.read_parquet(path).random_shuffle(seed=1).materialize()

    return [
        ("Ray: knuffle.ray.shuffle (exact, reproducible)", knuffle_ray),
        ("Ray: ds.random_shuffle(seed) (NOT uniform: equal slices per block)", random_shuffle),
    ], ray.shutdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--row-groups", type=int, default=20)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default="spark,ray", help="spark, ray or both")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "input.parquet")
        write_input(path, args.rows, args.row_groups)
        print(f"{args.rows} rows, one Parquet file of {args.row_groups} row groups, "
              f"{args.cores} cores")
        print()
        print("| contestant | seconds (median) |")
        print("| --- | ---: |")
        for engine in args.engines.split(","):
            make = {"spark": spark_contestants, "ray": ray_contestants}[engine.strip()]
            contestants, stop = make(path, args.cores)
            times: dict[str, list[float]] = {name: [] for name, _ in contestants}
            try:
                for _ in range(args.rounds):
                    for name, run in contestants:
                        start = time.perf_counter()
                        run()
                        times[name].append(time.perf_counter() - start)
            finally:
                stop()
            for name, _ in contestants:
                print(f"| {name} | {statistics.median(times[name]):.2f} |", flush=True)


if __name__ == "__main__":
    main()
