"""knuffle.spark.shuffle on a local Spark (one session per run, conftest.py):
a permutation of the rows, the table order (the same as knuffle.table_order
and knuffle.dask.shuffle) for any input partitioning, with adaptive query
execution on and off, and when tasks fail and are retried; exactly uniform
by knuffle.audit, which flags a partition-local shuffle. orderBy(rand(seed))
is shown to change its order with the partitioning.

Statistical tests use fixed seeds, so each is decided once and for all.
"""

from __future__ import annotations

import datetime
import decimal
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import knuffle
import knuffle.spark
from knuffle.spark import _hash_preimages, _murmur3_long

# PySpark 4.3 warns that it does not fully support pandas 3.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def rows_frame(spark, n: int, partitions: int):
    """n rows in ``partitions`` partitions, in id order whatever the count:
    bigint, int, double, string with nulls, boolean, date, timestamp and
    decimal columns."""
    from pyspark.sql import functions as F

    ids = spark.range(0, n, 1, partitions)
    return ids.select(
        F.col("id"),
        (F.col("id") % 97).cast("int").alias("i"),
        (F.col("id") / 7.0).alias("d"),
        F.when(F.col("id") % 5 == 0, F.lit(None))
        .otherwise(F.concat(F.lit("row "), F.col("id").cast("string")))
        .alias("s"),
        (F.col("id") % 2 == 0).alias("b"),
        F.date_add(F.lit(datetime.date(2024, 1, 1)), (F.col("id") % 400).cast("int")).alias("t"),
        (F.lit(datetime.datetime(2024, 1, 1)) + F.make_interval(mins=F.col("id").cast("int")))
        .alias("ts"),
        (F.col("id") / 100).cast("decimal(12,2)").alias("m"),
    )


def ids(df) -> list[int]:
    return [r["id"] for r in df.select("id").collect()] if "id" in df.columns else []


def order(spark, n: int, seed: str, partitions: int, num_partitions=None) -> list[int]:
    out = knuffle.spark.shuffle(rows_frame(spark, n, partitions), seed, num_partitions)
    return [r["id"] for r in out.collect()]


def test_spark_hash_preimages_land_in_their_partition(spark):
    from pyspark.sql import functions as F

    values = np.array([0, 1, -1, 2**40 + 5, 123456789012, -(2**62)], dtype=np.int64)
    got = spark.createDataFrame([(int(v),) for v in values], "v bigint").select(F.hash("v"))
    assert [r[0] for r in got.collect()] == _murmur3_long(values).tolist()
    keys = _hash_preimages(7)
    parts = spark.createDataFrame([(k,) for k in keys], "k bigint").select(F.pmod(F.hash("k"), 7))
    assert [r[0] for r in parts.collect()] == list(range(7))


def test_output_is_a_permutation_with_types_strings_and_nulls(spark):
    df = rows_frame(spark, 500, 3)
    out = knuffle.spark.shuffle(df, "perm").collect()
    original = df.collect()
    assert len(out) == len(original)
    assert out != original
    assert sorted(out, key=lambda r: r["id"]) == original
    assert sum(r["s"] is None for r in out) == 100
    assert isinstance(out[0]["m"], decimal.Decimal) and isinstance(out[0]["t"], datetime.date)
    schema = knuffle.spark.shuffle(df, "perm").schema
    assert schema == df.schema


def test_the_table_order_for_any_partitioning_and_with_aqe_on_or_off(spark):
    n = 1000
    reference = knuffle.table_order("same", n).tolist()
    aqe = spark.conf.get("spark.sql.adaptive.enabled")
    shuffle_partitions = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for enabled, shuffle in (("true", "4"), ("false", "7")):
            spark.conf.set("spark.sql.adaptive.enabled", enabled)
            spark.conf.set("spark.sql.shuffle.partitions", shuffle)
            for partitions in (1, 3, 11):
                assert order(spark, n, "same", partitions) == reference, (enabled, partitions)
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", aqe)
        spark.conf.set("spark.sql.shuffle.partitions", shuffle_partitions)
    assert order(spark, n, "other", 3) != reference


@pytest.mark.parametrize(
    "ties",
    [
        "listed by the driver, keys in the JVM",
        "listed, keys in an Arrow UDF",
        "listed, keys in a pandas UDF",
        "ordered in an Arrow pass, labels in the JVM",
        "ordered in an Arrow pass, labels in Python",
    ],
)
def test_rows_that_share_a_label_are_in_their_tie_order(spark, monkeypatch, ties):
    # 300,000 rows hold about 10 pairs of equal labels. Up to 2**27 rows the
    # driver lists them with their places, and the keys are computed in the
    # JVM component, or, without a javac, in a vectorized Python UDF (an
    # Arrow UDF; before PySpark 4.1 a pandas UDF); above, an Arrow pass
    # orders each run (taken here by lowering the bound).
    from pyspark.sql import functions as F

    from knuffle import _knuffle, _spark_jvm

    if ties not in ("listed by the driver, keys in the JVM", "ordered in an Arrow pass, labels in the JVM"):
        monkeypatch.setattr(_spark_jvm, "with_sort_keys", lambda *args: None)
    if ties == "listed, keys in a pandas UDF":
        monkeypatch.delattr(F, "arrow_udf", raising=False)

    n = 300_000
    tied, places = _knuffle.table_tied_rows("ties", n)
    assert len(tied) >= 4 and set(places.tolist()) >= {0, 1}
    if ties.startswith("ordered in an Arrow pass"):
        monkeypatch.setattr(knuffle.spark, "_TIES_LISTED_UP_TO", n - 1)
    out = knuffle.spark.shuffle(spark.range(0, n, 1, 3), "ties", 4)
    got = np.array([r["id"] for r in out.collect()])
    assert (got == knuffle.table_order("ties", n)).all()
    # Tied rows left in row order are not the table order.
    labels = _knuffle.table_labels("ties", 0, n)
    naive = np.lexsort((np.arange(n), labels))
    assert (naive != got).any()


def test_the_tied_rows_listed_are_those_of_the_table_order():
    # 2**21 rows, about 500 pairs of equal labels, searched by two threads
    # (two label ranges, two row ranges): every row whose label is shared,
    # with its place among its label's rows in knuffle.table_order.
    from knuffle import _knuffle

    n = 2**21
    rows, places = _knuffle.table_tied_rows("listed", n)
    labels = _knuffle.table_labels("listed", 0, n)
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    tied = np.flatnonzero(counts[inverse] > 1)
    assert len(tied) > 900 and rows.tolist() == tied.tolist()
    position = np.empty(n, dtype=np.int64)
    position[knuffle.table_order("listed", n)] = np.arange(n)
    by_order = tied[np.lexsort((position[tied], labels[tied]))]
    run_labels = labels[by_order]
    starts = np.flatnonzero(np.r_[True, run_labels[1:] != run_labels[:-1]])
    rank = np.arange(len(by_order)) - np.repeat(starts, np.diff(np.r_[starts, len(by_order)]))
    expected = np.empty(n, dtype=np.int64)
    expected[by_order] = rank
    assert places.tolist() == expected[tied].tolist()
    assert set(places.tolist()) == {0, 1}  # pairs (a triple is rare at this size)


def test_the_driver_lists_the_tied_rows_of_at_most_2_pow_28_rows():
    from knuffle import _knuffle

    with pytest.raises(ValueError, match="at most 2\\^28 rows"):
        _knuffle.table_tied_rows("s", 2**28 + 1)
    rows, places = _knuffle.table_tied_rows("s", 0)
    assert len(rows) == len(places) == 0


@pytest.mark.parametrize("ties", ["listed by the driver", "ordered in an Arrow pass"])
def test_a_partition_holding_another_label_range_stops_the_job(spark, monkeypatch, ties):
    # Keys that Spark's partitioner sends elsewhere (as a partitioner other
    # than pmod(murmur3(key, 42), n) would): the job fails, no rows come out.
    if ties == "ordered in an Arrow pass":
        monkeypatch.setattr(knuffle.spark, "_TIES_LISTED_UP_TO", -1)
    monkeypatch.setattr(knuffle.spark, "_hash_preimages", lambda p: list(range(100, 100 + p)))
    out = knuffle.spark.shuffle(spark.range(0, 1000, 1, 2), "elsewhere", 4)
    with pytest.raises(Exception, match="received labels of another range"):
        out.collect()


def test_same_order_as_knuffle_dask(spark):
    import dask
    import dask.dataframe as dd

    import knuffle.dask

    df = rows_frame(spark, 2000, 4)
    pdf = df.toPandas()
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        expected = knuffle.dask.shuffle(dd.from_pandas(pdf, npartitions=3), "engines").compute()
    got = knuffle.spark.shuffle(df, "engines", 2).toPandas()
    assert got["id"].tolist() == expected["id"].tolist()


def test_rows_leave_their_partition_and_partitions_hold_label_ranges(spark):
    from pyspark.sql import functions as F

    out = knuffle.spark.shuffle(rows_frame(spark, 4000, 4), "ranges", 4)
    assert out.rdd.getNumPartitions() == 4
    sizes = [r["count"] for r in out.groupBy(F.spark_partition_id()).count().collect()]
    assert sum(sizes) == 4000 and all(800 < s < 1200 for s in sizes)
    first = set(ids(out)[:1000])
    assert 0 < len(first & set(range(1000))) < 1000


def fail_first_attempt(partition: int):
    """A mapInArrow function that passes batches through and, on the first
    attempt of ``partition``'s task, raises after the first batch."""

    def run(batches):
        from pyspark import TaskContext

        context = TaskContext.get()
        for i, batch in enumerate(batches):
            yield batch
            if context.partitionId() == partition and context.attemptNumber() == 0:
                raise RuntimeError("this task fails on its first attempt")

    return run


def test_tasks_that_fail_once_give_the_same_rows_in_the_same_order(spark):
    n = 3000
    reference = knuffle.table_order("retry", n).tolist()
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "200")
    try:
        df = rows_frame(spark, n, 3)
        flaky_input = df.mapInArrow(fail_first_attempt(1), df.schema)
        out = knuffle.spark.shuffle(flaky_input, "retry", 3)
        # A task after the exchange (the one that orders the ties) fails too.
        flaky_output = out.mapInArrow(fail_first_attempt(2), out.schema)
        got = [r["id"] for r in flaky_output.collect()]
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert got == reference


def test_order_by_rand_changes_with_the_partitioning(spark):
    from pyspark.sql import functions as F

    def by_rand(partitions: int) -> list[int]:
        return ids(spark.range(0, 1000, 1, partitions).orderBy(F.rand(7)))

    assert by_rand(1) != by_rand(3)
    assert sorted(by_rand(3)) == list(range(1000))


def test_bad_arguments_are_refused(spark):
    df = rows_frame(spark, 10, 2)
    with pytest.raises(TypeError, match="seed must be a str"):
        knuffle.spark.shuffle(df, 42)
    with pytest.raises(TypeError, match="Spark DataFrame"):
        knuffle.spark.shuffle(pd.DataFrame({"x": [1]}), "s")
    with pytest.raises(ValueError, match="num_partitions"):
        knuffle.spark.shuffle(df, "s", 0)
    with pytest.raises(TypeError, match="num_partitions"):
        knuffle.spark.shuffle(df, "s", 2.0)
    with pytest.raises(ValueError, match="__knuffle_row"):
        knuffle.spark.shuffle(df.withColumnRenamed("i", "__knuffle_row"), "s")


def test_empty_and_one_row_inputs(spark):
    for n in (0, 1):
        out = knuffle.spark.shuffle(rows_frame(spark, n, 1), "tiny", 3)
        assert ids(out) == list(range(n))


# --- uniformity, with a partition-local shuffle as the biased control -------


def many(spark, function, seeds) -> np.ndarray:
    """function(seed) for each seed, four Spark jobs at a time."""
    with ThreadPoolExecutor(4) as pool:
        return np.array(list(pool.map(function, seeds)))


def test_full_permutation_test_over_many_seeds(spark):
    # 3 rows in 3 partitions, 48 seeds: 8 expected per order.
    def knuffle_order(i: int) -> list[int]:
        return ids(knuffle.spark.shuffle(spark.range(0, 3, 1, 3), f"full {i}", 1))

    fair = many(spark, knuffle_order, range(48))
    report = knuffle.audit(fair)
    assert not report.biased, str(report)

    from pyspark.sql import functions as F

    def local_order(i: int) -> list[int]:
        return ids(spark.range(0, 3, 1, 3).sortWithinPartitions(F.rand(i)))

    assert knuffle.audit(many(spark, local_order, range(12))).biased


def patterns(order: np.ndarray, k: int) -> np.ndarray:
    """The relative orders of the disjoint row sets {j, j+m, ..., j+(k-1)m}
    (m = n/k), each spread over k input partitions: m samples of a k-row
    shuffle from one shuffle of n rows."""
    m = len(order) // k
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return np.argsort(position.reshape(k, m).T, axis=1)


def test_five_row_orders_and_positions_at_ten_thousand_rows(spark):
    from pyspark.sql import functions as F

    n, k = 10_000, 5
    shuffles = many(
        spark,
        lambda s: ids(knuffle.spark.shuffle(spark.range(0, n, 1, k), f"positions {s}", 4)),
        range(6),
    )
    report = knuffle.audit(shuffles)
    assert not report.biased, str(report)
    five = knuffle.audit(np.concatenate([patterns(s, k) for s in shuffles]))
    assert not five.biased, str(five)

    local = many(
        spark,
        lambda s: ids(spark.range(0, n, 1, k).sortWithinPartitions(F.rand(s))),
        range(6),
    )
    assert knuffle.audit(local).biased
    assert knuffle.audit(patterns(local[0], k)).biased


def test_the_example_of_docs_spark_md_runs(spark, tmp_path, monkeypatch):
    """docs/spark.md's python blocks, verbatim (the session they ask for is
    this run's)."""
    from conftest import REPO
    from test_docs import python_blocks

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = python_blocks(REPO / "docs" / "spark.md")
    assert blocks
    for line, code, reason in blocks:
        assert reason is None, f"docs/spark.md:{line} is not run: {reason}"
        exec(compile(code, f"docs/spark.md:{line}", "exec"), namespace)
