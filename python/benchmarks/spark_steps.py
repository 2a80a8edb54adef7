"""Where ``knuffle.spark.shuffle``'s time goes: its plan, step by step, on
Spark ``local[2]``, each variant written to Spark's ``noop`` sink.

    python python/benchmarks/spark_steps.py                # 10^7 rows
    python python/benchmarks/spark_steps.py --rows 100000  # a quick check

The input is bench_engines.py's (10^7 rows of int64, float64, int32 and a
string, one Parquet file of 20 row groups). Variants, in turns, medians of
--rounds after one warm-up round:

* ``orderBy(rand(seed))``, the anchor;
* ``knuffle.spark.shuffle``: the sort keys computed in the JVM component,
  with the driver's list of tied rows (up to 2**27 rows);
* the same with the keys from the vectorized Python UDF (where no
  ``javac`` is found);
* the tie pass of larger inputs (``mapInArrow``: every column through
  Python and back), forced by lowering the bound;
* the count job alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from bench_engines import write_input


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--row-groups", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import knuffle.spark as ks

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    seed = "bench"

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "input.parquet")
        write_input(path, args.rows, args.row_groups)

        def noop(df) -> None:
            df.write.format("noop").mode("overwrite").save()

        def tie_pass() -> None:
            bound = ks._TIES_LISTED_UP_TO
            ks._TIES_LISTED_UP_TO = -1
            try:
                noop(ks.shuffle(spark.read.parquet(path), seed))
            finally:
                ks._TIES_LISTED_UP_TO = bound

        def python_keys() -> None:
            jvm = ks._spark_jvm.with_sort_keys
            ks._spark_jvm.with_sort_keys = lambda *args: None
            try:
                noop(ks.shuffle(spark.read.parquet(path), seed))
            finally:
                ks._spark_jvm.with_sort_keys = jvm

        def count_only() -> None:
            df = spark.read.parquet(path)
            df.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()

        variants = {
            "orderBy(rand(seed)) (the anchor)": lambda: noop(spark.read.parquet(path).orderBy(F.rand(1))),
            "knuffle.spark.shuffle (keys in the JVM, tied rows listed by the driver)": lambda: noop(
                ks.shuffle(spark.read.parquet(path), seed)
            ),
            "the same with the keys in a Python UDF (no javac)": python_keys,
            "knuffle.spark.shuffle with the tie pass (mapInArrow)": tie_pass,
            "the count job alone": count_only,
        }
        for run in variants.values():
            run()
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, run in variants.items():
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
    spark.stop()
    print(f"{args.rows} rows, one Parquet file of {args.row_groups} row groups, local[2]")
    print()
    print("| variant | seconds (median) |")
    print("| --- | ---: |")
    for name in variants:
        print(f"| {name} | {statistics.median(times[name]):.2f} |")


if __name__ == "__main__":
    main()
