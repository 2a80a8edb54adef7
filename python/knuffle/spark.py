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
2. a vectorized UDF on the row numbers alone gives each row its label
   (Rust, ChaCha20 word ``row`` of the seed's stream);
3. ``repartition(B, key)`` sends the rows of label range ``p`` to partition
   ``p`` (``key`` is an integer that Spark's hash partitioner sends to
   ``p``: no sampling pass, unlike ``repartitionByRange`` or ``orderBy``);
4. ``sortWithinPartitions(label, row)``, then one Arrow pass
   (``mapInArrow``) shuffles each run of equal labels with its bucket's
   generator and drops the helper columns.
"""

from __future__ import annotations

from typing import Any

from knuffle._engines import require

require("knuffle.spark", ("pyspark", "pandas", "pyarrow"), "spark")

import numpy as np
import pandas as pd

from knuffle import _knuffle
from knuffle._engines import check_partitions, check_seed, partition_of

__all__ = ["shuffle"]

_ROW = "__knuffle_row"
_LABEL = "__knuffle_label"
_KEY = "__knuffle_key"
_HELPERS = (_ROW, _LABEL, _KEY)

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
    counts the rows of each partition when ``shuffle`` is called; the
    DataFrame returned is lazy, as Spark's are.
    """
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.functions import pandas_udf

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

    def array(values: Any) -> Any:  # a literal array<bigint>, never empty
        return F.lit([int(v) for v in values] or [0]).cast("array<bigint>")

    mid = F.monotonically_increasing_id()
    part = F.shiftright(mid, _POSITION_BITS).cast("int")
    position = F.col(_ROW).bitwiseAND((1 << _POSITION_BITS) - 1)
    counted_here = F.element_at(array(counts), part + 1)
    row = F.when(
        (part < len(counts)) & (position < counted_here),
        F.element_at(array(offsets), part + 1) + position,
    ).otherwise(F.raise_error(F.lit(
        "knuffle.spark.shuffle: an input partition has more rows than when they were "
        "counted: the input must give the same rows in the same partitions each time it "
        "is computed (write it to files, or checkpoint it, first)"
    )))

    # 2. Labels, from the row numbers alone (Rust, one call per Arrow batch).
    @pandas_udf("bigint")  # type: ignore[call-overload]
    def labels(rows: pd.Series) -> pd.Series:
        values = np.ascontiguousarray(rows.to_numpy(dtype=np.int64))
        return pd.Series(_knuffle.table_labels_at(seed, values).astype(np.int64))

    # 3. To the partition of the label's range: a key that Spark's hash
    # partitioner (pmod(murmur3(key, 42), B)) sends to exactly that partition.
    keys = _hash_preimages(partitions)
    range_of = F.shiftright(F.col(_LABEL) * F.lit(partitions).cast("bigint"), 32).cast("int")
    columns = df.columns
    labelled = (
        df.withColumn(_ROW, mid)
        .withColumn(_ROW, row)
        .withColumn(_LABEL, labels(F.col(_ROW)))
        .withColumn(_KEY, F.element_at(array(keys), range_of + 1))
    )
    moved = labelled.repartition(partitions, F.col(_KEY)).sortWithinPartitions(_LABEL, _ROW)

    # 4. Ties, in one Arrow pass that also drops the helper columns.
    def finish(batches: Any) -> Any:
        return _finish(batches, seed, partitions, columns)

    return moved.mapInArrow(finish, df.schema)


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
