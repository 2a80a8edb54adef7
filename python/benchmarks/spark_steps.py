"""Where ``knuffle.spark.shuffle``'s time goes: its plan, step by step, on
Spark ``local[2]``, each variant written to Spark's ``noop`` sink.

    python python/benchmarks/spark_steps.py                # 10^7 rows
    python python/benchmarks/spark_steps.py --rows 100000  # a quick check

The input is bench_engines.py's (10^7 rows of int64, float64, int32 and a
string, one Parquet file of 20 row groups). Variants, in turns, medians of
--rounds after one warm-up round:

* ``orderBy(rand(seed))``, the anchor;
* ``knuffle.spark.shuffle``: the sort keys from the driver's list of tied
  rows (up to 2**27 rows);
* the same with the tie pass of larger inputs (``mapInArrow``: every
  column through Python and back), forced by lowering the bound;
* the count job alone;
* number, key by the UDF, move and sort, without the tie handling: the UDF
  computes labels only;
* the same with a JVM expression in place of the UDF (``xxhash64``: not
  the table order, a stand-in that shows what the UDF's pass costs).
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
    from knuffle import _knuffle

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

        def count_only() -> None:
            df = spark.read.parquet(path)
            df.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()

        def moved(label_in_python: bool) -> None:
            df = spark.read.parquet(path)
            partitions = df.rdd.getNumPartitions()
            numbered = df.withColumn(ks._ROW, F.monotonically_increasing_id())

            def labels(rows):
                return _knuffle.table_labels_at(seed, rows).astype("int64")

            label = (
                ks._int64_udf(labels)(F.col(ks._ROW))
                if label_in_python
                else F.xxhash64(F.col(ks._ROW)).bitwiseAND(F.lit(0xFFFFFFFF))
            )
            out = (
                ks._to_label_ranges(numbered.withColumn(ks._LABEL, label), F.col(ks._LABEL), partitions)
                .sortWithinPartitions(ks._LABEL, ks._ROW)
                .drop(ks._ROW, ks._LABEL, ks._KEY)
            )
            noop(out)

        variants = {
            "orderBy(rand(seed)) (the anchor)": lambda: noop(spark.read.parquet(path).orderBy(F.rand(1))),
            "knuffle.spark.shuffle (tied rows listed by the driver)": lambda: noop(
                ks.shuffle(spark.read.parquet(path), seed)
            ),
            "knuffle.spark.shuffle with the tie pass (mapInArrow)": tie_pass,
            "the count job alone": count_only,
            "labels by the UDF, move, sort (no tie handling)": lambda: moved(True),
            "a JVM stand-in for the labels, move, sort": lambda: moved(False),
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
