"""`knuffle.spark`: an exactly uniform, reproducible global row shuffle on
Spark.

``knuffle.spark.shuffle(df, seed)`` returns a PySpark DataFrame whose rows
are all of ``df``'s rows in **the table order** (docs/table-order.md): the
order ``knuffle table``, ``knuffle.dask.shuffle``, ``knuffle.ray.shuffle``
and ``knuffle.table_order`` give the same seed and the same row sequence.
Every one of the n! orders has probability exactly 1/n!, and the order does
not change with the input's partitioning, ``num_partitions``,
``spark.sql.shuffle.partitions``, adaptive query execution, the number of
executors or a task retried after a failure. docs/spark.md has the steps,
the guarantees and the cost.

The steps, each in the engine's own terms:

1. one job counts the rows of each input partition (JVM only, no column
   read); prefix sums on the driver give every row its global row number
   ``offset[partition] + position`` (``monotonically_increasing_id`` holds
   the partition and the position);
2. a UDF of the row numbers alone gives each row its sort key: its label
   (ChaCha20 word ``row`` of the seed's stream) and, for the rare rows that
   share their label with another (about n^2 / 2^32 rows), their place in
   its tie order, which the driver lists beforehand in Rust
   (``table_tied_rows``, broadcast to the tasks). The UDF is the JVM
   component (``knuffle._spark_jvm``, Java compiled on first use), or where
   that cannot run a vectorized Python UDF (labels in Rust);
3. ``repartition(B, key)`` sends the rows of label range ``p`` to partition
   ``p`` (``key`` is an integer that Spark's hash partitioner sends to
   ``p``, an expression that does not move with the rows: no sampling
   pass, unlike ``repartitionByRange`` or ``orderBy``);
4. ``sortWithinPartitions(sort key)`` puts each partition in the table
   order, in the JVM: no column of the rows passes through Python.

Above ``2**27`` rows the driver does not list the tied rows (their list
would pass 64 MiB): the key is the label, the partitions are sorted by
(label, row), and one Arrow pass (``mapInArrow``) shuffles each run of
equal labels with its bucket's generator.
"""

from __future__ import annotations

from typing import Any

from knuffle._engines import require

require("knuffle.spark", ("pyspark", "pandas", "pyarrow"), "spark")

import numpy as np
import pandas as pd

from knuffle import _knuffle, _spark_jvm
from knuffle._engines import check_partitions, check_seed, partition_of

__all__ = ["shuffle"]

_ROW = "__knuffle_row"
_LABEL = "__knuffle_label"
_SORT = "__knuffle_sort"
_HELPERS = (_ROW, _LABEL, _SORT)

# A sort key is label << 31 | place: a place in a run of ties is far below
# 2**31, and (2**32 - 1) << 31 | place stays below 2**63.
_PLACE_BITS = 31

# The most rows whose tied rows the driver lists (step 2): at 2**27 rows
# about 4.2 million rows share a label, 64 MiB as two int64 arrays,
# broadcast once to each executor.
_TIES_LISTED_UP_TO = 2**27

# monotonically_increasing_id(): the partition index in the upper 31 bits,
# the position in the partition in the lower 33.
_POSITION_BITS = 33


def shuffle(df: Any, seed: str, num_partitions: int | None = None) -> Any:
    """All rows of the Spark DataFrame ``df`` in the table order of ``seed``.

    ``seed`` is any text (as ``knuffle --seed``). ``num_partitions`` is the
    number of output partitions (by default the input's); partition ``p``
    holds the ``p``-th of ``num_partitions`` equal label ranges, so the
    sizes follow the multinomial law (about n / num_partitions rows each),
    and reading the partitions in order (``collect``, ``toPandas``,
    ``write``) gives the order, whatever ``num_partitions`` is.

    Rows are numbered in ``df``'s own order (its partitions in order, the
    order ``df.collect()`` returns): ``df`` must give the same rows in the
    same order each time it is computed, as a file read does. One job
    counts the rows of each partition when ``shuffle`` is called, and the
    driver then lists the rows that share a label (two threads: about
    0.15 s at 10^7 rows, 4 s at 10^8); the DataFrame returned is lazy, as
    Spark's are.
    """
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    check_seed(seed)
    if not isinstance(df, DataFrame):
        raise TypeError(f"knuffle.spark.shuffle takes a Spark DataFrame, not {type(df).__name__}")
    taken = [c for c in _HELPERS if c in df.columns]
    if taken:
        raise ValueError(f"the input has columns named {taken}, which knuffle.spark uses")
    partitions = check_partitions(
        num_partitions, max(1, df.rdd.getNumPartitions()), "num_partitions"
    )

    # 1. Row counts per input partition, then each partition's first row.
    counted = df.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()
    counts = np.zeros(max((r["p"] for r in counted), default=-1) + 1, dtype=np.int64)
    for r in counted:
        counts[r["p"]] = r["count"]
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)

    mid = F.monotonically_increasing_id()
    part = F.shiftright(mid, _POSITION_BITS).cast("int")
    position = F.col(_ROW).bitwiseAND((1 << _POSITION_BITS) - 1)
    counted_here = F.element_at(_array(counts), part + 1)
    row = F.when(
        (part < len(counts)) & (position < counted_here),
        F.element_at(_array(offsets), part + 1) + position,
    ).otherwise(F.raise_error(F.lit(
        "knuffle.spark.shuffle: an input partition has more rows than when they were "
        "counted: the input must give the same rows in the same partitions each time it "
        "is computed (write it to files, or checkpoint it, first)"
    )))
    numbered = df.withColumn(_ROW, mid).withColumn(_ROW, row)
    n = int(counts.sum())
    if n <= _TIES_LISTED_UP_TO:
        return _sorted_by_keys(numbered, seed, n, partitions)

    # 2. Labels, from the row numbers alone.
    empty = np.zeros(0, dtype=np.int64)
    labelled = _with_keys(numbered, _LABEL, seed, empty, empty, 0)

    # 3. To the partition of the label's range.
    moved = _to_label_ranges(labelled, F.col(_LABEL), partitions).sortWithinPartitions(
        _LABEL, _ROW
    )

    # 4. Ties, in one Arrow pass that also drops the helper columns.
    columns = df.columns

    def finish(batches: Any) -> Any:
        return _finish(batches, seed, partitions, columns)

    return moved.mapInArrow(finish, df.schema)


def _int64_udf(function: Any) -> Any:
    """``function`` (an int64 array of row numbers to an int64 array of the
    same length) as a vectorized Spark UDF: an Arrow UDF where PySpark has
    them (4.1 and later: the batches reach it as Arrow arrays, without
    pandas), else a pandas UDF."""
    from pyspark.sql import functions as F

    if hasattr(F, "arrow_udf"):
        import pyarrow as pa

        def on_arrow(rows: Any) -> Any:
            values = np.ascontiguousarray(rows.to_numpy(zero_copy_only=False), dtype=np.int64)
            return pa.array(function(values), type=pa.int64())

        # PySpark reads the kind of UDF from the hints: given as the types
        # themselves (this module's annotations are strings, which it would
        # resolve in a namespace without pyarrow).
        on_arrow.__annotations__ = {"rows": pa.Array, "return": pa.Array}
        return F.arrow_udf(on_arrow, "bigint")

    from pyspark.sql.pandas.functions import pandas_udf

    def on_pandas(rows: Any) -> Any:
        values = np.ascontiguousarray(rows.to_numpy(dtype=np.int64))
        return pd.Series(function(values))

    on_pandas.__annotations__ = {"rows": pd.Series, "return": pd.Series}
    return pandas_udf(on_pandas, "bigint")  # type: ignore[call-overload]


def _array(values: Any) -> Any:
    """A literal array<bigint> (never empty)."""
    from pyspark.sql import functions as F

    return F.lit([int(v) for v in values] or [0]).cast("array<bigint>")


def _range_of(label: Any, partitions: int) -> Any:
    """The output partition of a label: ``label * partitions >> 32``."""
    from pyspark.sql import functions as F

    return F.shiftright(label * F.lit(partitions).cast("bigint"), 32).cast("int")


def _to_label_ranges(df: Any, label: Any, partitions: int) -> Any:
    """``df`` repartitioned so that partition ``p`` holds the rows of the
    ``p``-th label range: by a key that Spark's hash partitioner
    (pmod(murmur3(key, 42), B)) sends to exactly that partition."""
    from pyspark.sql import functions as F

    keys = _array(_hash_preimages(partitions))
    # An expression, not a column: Spark computes it to place each row and
    # does not move it with the row.
    return df.repartition(partitions, F.element_at(keys, _range_of(label, partitions) + 1))


def _sorted_by_keys(numbered: Any, seed: str, n: int, partitions: int) -> Any:
    """Steps 2 to 4 for up to ``_TIES_LISTED_UP_TO`` rows: each row's sort
    key is ``label << 31 | place`` (the place in its run's tie order, 0 for
    a row whose label is its own), so one sort within each partition gives
    the table order."""
    from pyspark.sql import functions as F

    tied, places = _knuffle.table_tied_rows(seed, n)
    keyed = _with_keys(numbered, _SORT, seed, tied, places, _PLACE_BITS)
    label = F.shiftright(F.col(_SORT), _PLACE_BITS)
    # The row number is not needed past the keys: only the key (8 bytes a
    # row, as orderBy(rand) adds) moves with the rows.
    moved = _to_label_ranges(keyed.drop(_ROW), label, partitions).sortWithinPartitions(_SORT)
    # Each partition must hold its own label range (a filter that keeps
    # every row or stops the job; Spark does not move it below the sort, as
    # the partition id is not deterministic).
    here = F.spark_partition_id() == _range_of(label, partitions)
    checked = moved.filter(F.when(here, F.lit(True)).otherwise(F.raise_error(F.lit(
        "knuffle.spark.shuffle: a partition received labels of another range "
        "(Spark's hash partitioner is not pmod(murmur3(key, 42), n)?)"
    ))))
    return checked.drop(_SORT)


def _with_keys(
    numbered: Any, column: str, seed: str, tied: np.ndarray, places: np.ndarray, place_bits: int
) -> Any:
    """``numbered`` with the int64 column ``column``: each row's
    ``label << place_bits | place`` (``place`` from the tied rows ``tied``
    and their ``places``, 0 for the others), from its row number alone:
    computed in the JVM component, or where that cannot run in a vectorized
    Python UDF (the labels in Rust, one call per Arrow batch)."""
    from pyspark.sql import functions as F

    keyed = _spark_jvm.with_sort_keys(numbered, column, _ROW, seed, tied, places, place_bits)
    if keyed is not None:
        return keyed
    ties = numbered.sparkSession.sparkContext.broadcast((tied, places)) if len(tied) else None

    def sort_keys(rows: np.ndarray) -> np.ndarray:
        keys = _knuffle.table_labels_at(seed, rows).astype(np.int64) << place_bits
        if ties is not None:
            tied_rows, tied_places = ties.value
            at = np.minimum(np.searchsorted(tied_rows, rows), len(tied_rows) - 1)
            hit = tied_rows[at] == rows
            keys[hit] |= tied_places[at[hit]]
        return keys

    return numbered.withColumn(column, _int64_udf(sort_keys)(F.col(_ROW)))


def _finish(batches: Any, seed: str, partitions: int, columns: list[str]) -> Any:
    """Puts one output partition, sorted by (label, row), in the table order:
    each run of equal labels is permuted by its bucket's generator. A run
    may cross a batch boundary, so the rows of the last label of a batch
    wait for the next one."""
    import pyarrow as pa
    from pyspark import TaskContext

    here = TaskContext.get().partitionId()
    pending = None
    for batch in batches:
        if pending is not None:
            batch = pa.Table.from_batches([pending, batch]).combine_chunks().to_batches()[0]
        if batch.num_rows == 0:
            pending = batch
            continue
        labels = batch.column(_LABEL).to_numpy()
        last = int(np.searchsorted(labels, labels[-1]))
        if last > 0:
            yield _order(batch.slice(0, last), seed, partitions, columns, here)
        pending = batch.slice(last)
    if pending is not None and pending.num_rows:
        yield _order(pending, seed, partitions, columns, here)


def _order(batch: Any, seed: str, partitions: int, columns: list[str], here: int) -> Any:
    labels = batch.column(_LABEL).to_numpy()
    if (partition_of(labels[[0, -1]], partitions) != here).any():
        raise RuntimeError(
            f"knuffle.spark.shuffle: partition {here} received labels of another range "
            "(Spark's hash partitioner is not pmod(murmur3(key, 42), n)?)"
        )
    if (labels[1:] == labels[:-1]).any():
        rows = np.ascontiguousarray(batch.column(_ROW).to_numpy())
        order = _knuffle.table_order_partition(seed, labels.astype(np.uint32), rows)
        batch = batch.take(order)
    return batch.select(columns)


def _murmur3_long(values: np.ndarray, seed: int = 42) -> np.ndarray:
    """Spark's ``hash`` of bigint values (Murmur3_x86_32.hashLong): int32."""
    m = np.uint64(0xFFFFFFFF)

    def rotl(x: np.ndarray, r: int) -> np.ndarray:
        return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & m

    def mix_k1(k1: np.ndarray) -> np.ndarray:
        k1 = (k1 * np.uint64(0xCC9E2D51)) & m
        return (rotl(k1, 15) * np.uint64(0x1B873593)) & m

    def mix_h1(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
        h1 = rotl(h1 ^ k1, 13)
        return (h1 * np.uint64(5) + np.uint64(0xE6546B64)) & m

    v = values.astype(np.uint64)
    h1 = np.full(v.shape, np.uint64(seed))
    h1 = mix_h1(h1, mix_k1(v & m))
    h1 = mix_h1(h1, mix_k1(v >> np.uint64(32)))
    h1 ^= np.uint64(8)
    h1 ^= h1 >> np.uint64(16)
    h1 = (h1 * np.uint64(0x85EBCA6B)) & m
    h1 ^= h1 >> np.uint64(13)
    h1 = (h1 * np.uint64(0xC2B2AE35)) & m
    h1 ^= h1 >> np.uint64(16)
    return h1.astype(np.uint32).view(np.int32)


def _hash_preimages(partitions: int) -> list[int]:
    """For each partition ``p`` of ``partitions``, the smallest bigint that
    ``repartition(partitions, col)`` sends to ``p``."""
    found = np.full(partitions, -1, dtype=np.int64)
    start, size = 0, max(1024, 4 * partitions)
    while (found < 0).any():
        values = np.arange(start, start + size, dtype=np.int64)
        target = _murmur3_long(values).astype(np.int64) % partitions
        p, first = np.unique(target, return_index=True)
        new = found[p] < 0
        found[p[new]] = values[first[new]]
        start += size
    return found.tolist()
