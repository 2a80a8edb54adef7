"""``stream_table``: the epoch order of a table's rows as a stream of
``pyarrow.RecordBatch``es, for training loops (docs/table-order.md,
"Epochs"), without writing a shuffled copy.

The Rust engine (``knuffle_table::TableStream``) reads the inputs once
(pass 1: every row to the bucket file of its label's range, in a nameless
temporary file, or kept in memory when the table fits), then orders one
bucket at a time and hands out its rows (pass 2), on a thread of its own, a
few batches ahead. Batches reach pyarrow through the Arrow C data interface,
without a copy.
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Iterator

from knuffle import _knuffle
from knuffle._generator import _type_name
from knuffle._sampling import Path, _count, _paths

#: Rows per batch when ``batch_size`` is not given.
DEFAULT_BATCH_SIZE = 1024


class TableStream:
    """The rows of tables in an epoch order: an iterator of
    ``pyarrow.RecordBatch``, made by :func:`stream_table`. ``schema`` is the
    batches' ``pyarrow.Schema``. After an error (raised from ``next``) the
    stream ends."""

    def __init__(self, inner: Any) -> None:
        import pyarrow as pa

        self._inner = inner
        self._pa = pa
        self.schema = pa.schema(inner)

    def __iter__(self) -> TableStream:
        return self

    def __next__(self) -> Any:
        return self._pa.record_batch(next(self._inner))


def _int(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}= must be an int, not {type(value).__name__}")
    if not low <= value < high:
        raise ValueError(f"{name}= must be in {low}..{high - 1}, got {value}")
    return int(value)


def _columns(columns: Any) -> list[str] | None:
    if columns is None:
        return None
    if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
        raise TypeError("columns= must be a list of column names (str)")
    return list(columns)


def _consumers(rank: Any, world_size: Any) -> tuple[int, int]:
    world_size = _int(world_size, "world_size", 1, 1 << 63)
    rank = _count(rank, "rank")
    if rank is None or rank >= world_size:
        raise ValueError(f"rank= must be in 0..{world_size - 1} (world_size={world_size}), got {rank}")
    return rank, world_size


def _open(
    source: Any,
    seed: Any,
    *,
    epoch: Any,
    columns: Any,
    batch_size: Any,
    memory: Any,
    temp_dir: Any,
    format: Any,
    consumer: int,
    consumers: int,
    start: Any,
) -> TableStream:
    """The stream of consumer ``consumer`` of ``consumers`` from position
    ``start``: positions ``start + consumer``, ``start + consumer +
    consumers``, ... of the epoch order."""
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
    inputs = _paths(source, "source")
    if temp_dir is not None:
        try:
            temp_dir = os.fsdecode(os.fspath(temp_dir))
        except TypeError:
            raise TypeError(f"temp_dir= must be a path (str or os.PathLike), not {_type_name(temp_dir)}") from None
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format= must be a str (parquet, arrow, arrows, csv, tsv or jsonl), not {_type_name(format)}")
    options = {
        "seed": seed,
        "epoch": _int(epoch, "epoch", 0, 1 << 64),
        "columns": _columns(columns),
        "batch_size": _int(batch_size, "batch_size", 1, 1 << 32),
        "memory": memory,
        "temp_dir": temp_dir,
        "format": format,
        "consumer": consumer,
        "consumers": consumers,
        "start": _int(start, "start", 0, 1 << 64),
    }
    return TableStream(_knuffle.stream_table_paths(inputs, options))


def stream_table(
    source: Path | list[Path],
    seed: str,
    *,
    epoch: int = 0,
    columns: list[str] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    memory: int | str | None = None,
    temp_dir: Path | None = None,
    rank: int = 0,
    world_size: int = 1,
    start: int = 0,
    format: str | None = None,
) -> Iterator[Any]:
    """Stream the rows of tables in the epoch order of ``seed`` and
    ``epoch``, as ``pyarrow.RecordBatch``es of ``batch_size`` rows (the last
    one may have fewer): epoch ``e``'s rows are those of ``knuffle table
    SOURCE --seed "<the epoch's seed>"`` (epoch 0: the seed itself; epoch
    ``e >= 1``: ``"knuffle epoch e: SEED"``, docs/table-order.md), every
    order exactly equally likely, without a shuffled copy on disk.

    ``source`` is what ``knuffle table`` reads: a Parquet, Arrow IPC, CSV/TSV
    or JSON Lines file (from the extension, or ``format=``), a directory of
    shards, or a list of them, all with the same columns. ``columns`` keeps
    those columns, in that order. ``memory`` (bytes, or a size such as
    ``"512M"``; default the smaller of 1 GiB and 3/4 of the memory
    available) bounds what the stream holds: a table larger goes through
    bucket files in ``temp_dir`` (default ``$TMPDIR`` or ``/tmp``; the files
    have no name, so nothing is left behind, even by a killed process),
    about the size of the columns read. The order does not depend on it.

    ``rank`` of ``world_size`` consumers takes the positions ``rank``,
    ``rank + world_size``, ... of the order, so that the consumers' rows,
    merged by position, are the order, whatever ``world_size`` is. ``start``
    skips the first ``start`` positions (the rows all consumers together
    have seen: a resumed epoch continues with exactly the rest).

    The inputs are read before the first batch (pass 1), then each bucket is
    ordered as its rows are needed (pass 2). Errors: ``ValueError`` for
    invalid options or data (a corrupt file, naming it; no row comes out of
    a corrupt input), ``OSError`` when a read or write fails.

    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> d = tempfile.mkdtemp()
    >>> pq.write_table(pa.table({"id": list(range(10))}), os.path.join(d, "rows.parquet"))
    >>> batches = list(knuffle.stream_table(os.path.join(d, "rows.parquet"), "friday", batch_size=4))
    >>> [b.num_rows for b in batches]
    [4, 4, 2]
    >>> pa.Table.from_batches(batches)["id"].to_pylist() == knuffle.table_order("friday", 10).tolist()
    True
    """
    consumer, consumers = _consumers(rank, world_size)
    return _open(
        source,
        seed,
        epoch=epoch,
        columns=columns,
        batch_size=batch_size,
        memory=memory,
        temp_dir=temp_dir,
        format=format,
        consumer=consumer,
        consumers=consumers,
        start=start,
    )


__all__: list[str] = ["TableStream", "stream_table"]
