"""``stream_table``: the epoch order of a table's rows as a stream of
``pyarrow.RecordBatch``es, for training loops (docs/table-order.md,
"Epochs"), without writing a shuffled copy.

The Rust engine (``knuffle_table::TableStream``) reads the inputs once
(pass 1: every row to the bucket file of its label's range, in a nameless
temporary file, or kept in memory when the table fits; with ``cache_dir=``,
in a cache directory that the streams of a machine share, one pass 1 per
epoch, the next epoch's written in the background), then orders one bucket
at a time and hands out its rows (pass 2), on a thread of its own, a few
batches ahead. Batches reach pyarrow through the Arrow C data interface,
without a copy.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

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

    @property
    def stats(self) -> dict[str, Any]:
        """What the stream did so far, a dict:

        - ``"pass1"``: how it had its pass 1, known from its first batch on
          (``None`` before): ``"private"`` (no cache: it read the inputs for
          itself), ``"wrote"`` (it read the inputs and wrote the cache's
          entry of the epoch for every stream of the machine) or
          ``"reused"`` (it read the entry another stream wrote, not the
          inputs); ``"waited"``: whether it waited for that stream;
        - ``"writer_pid"``: the process that wrote the entry (with a cache),
          ``"written_in_background"``: whether as the next epoch's pass 1 in
          the background; ``"bucket_bytes"``: the entry's size on disk;
        - ``"prefetch"``: the next epoch's pass 1 in the background:
          ``"off"``, ``"running"``, ``"done"``, ``"ready"`` (it was there),
          ``"busy"`` (another stream writes it), ``"no room"`` or
          ``"failed"``, with ``"prefetch_detail"`` saying why;
        - ``"removed"``: entries of the cache this stream removed."""
        return dict(self._inner.stats())


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


def _directory(value: Any, name: str) -> str | None:
    if value is None:
        return None
    try:
        return os.fsdecode(os.fspath(value))
    except TypeError:
        raise TypeError(f"{name}= must be a path (str or os.PathLike), not {_type_name(value)}") from None


def _prefetch(prefetch: Any, cache_dir: str | None) -> bool:
    """The next epoch's pass 1 in the background: by default with a cache
    directory (and only there)."""
    if prefetch is None:
        return cache_dir is not None
    if not isinstance(prefetch, bool):
        raise TypeError(f"prefetch= must be True, False or None, not {_type_name(prefetch)}")
    if prefetch and cache_dir is None:
        raise ValueError("prefetch=True needs cache_dir= (the next epoch's pass 1 is written there)")
    return prefetch


def _consumers(rank: Any, world_size: Any) -> tuple[int, int]:
    world_size = _int(world_size, "world_size", 1, 1 << 63)
    rank = _count(rank, "rank")
    if rank is None or rank >= world_size:
        raise ValueError(f"rank= must be in 0..{world_size - 1} (world_size={world_size}), got {rank}")
    return rank, world_size


def _options(
    seed: Any,
    *,
    epoch: Any,
    columns: Any,
    batch_size: Any,
    memory: Any,
    temp_dir: Any,
    cache_dir: Any,
    prefetch: Any,
    format: Any,
    consumer: int,
    consumers: int,
    start: Any,
) -> dict[str, Any]:
    """The options dict of the Rust engine, checked."""
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format= must be a str (parquet, arrow, arrows, csv, tsv or jsonl), not {_type_name(format)}")
    cache_dir = _directory(cache_dir, "cache_dir")
    return {
        "seed": seed,
        "epoch": _int(epoch, "epoch", 0, 1 << 64),
        "columns": _columns(columns),
        "batch_size": _int(batch_size, "batch_size", 1, 1 << 32),
        "memory": memory,
        "temp_dir": _directory(temp_dir, "temp_dir"),
        "cache_dir": cache_dir,
        "prefetch": _prefetch(prefetch, cache_dir),
        "format": format,
        "consumer": consumer,
        "consumers": consumers,
        "start": _int(start, "start", 0, 1 << 64),
    }


def _open(source: Any, seed: Any, **options: Any) -> TableStream:
    """The stream of consumer ``consumer`` of ``consumers`` from position
    ``start``: positions ``start + consumer``, ``start + consumer +
    consumers``, ... of the epoch order (the other options: ``_options``)."""
    inputs = _paths(source, "source")
    return TableStream(_knuffle.stream_table_paths(inputs, _options(seed, **options)))


def _prefetch_epochs(source: Any, seed: Any, **options: Any) -> Any:
    """Epoch ``epoch``'s pass 1 into ``cache_dir`` (written, or waited for),
    then the next epoch's when there is room, on a thread of their own:
    the handle's ``wait()`` returns their stats."""
    inputs = _paths(source, "source")
    return _knuffle.stream_prefetch(inputs, _options(seed, **options))


def stream_table(
    source: Path | list[Path],
    seed: str,
    *,
    epoch: int = 0,
    columns: list[str] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    memory: int | str | None = None,
    temp_dir: Path | None = None,
    cache_dir: Path | None = None,
    prefetch: bool | None = None,
    rank: int = 0,
    world_size: int = 1,
    start: int = 0,
    format: str | None = None,
) -> TableStream:
    """Stream the rows of tables in the epoch order of ``seed`` and
    ``epoch``, as ``pyarrow.RecordBatch``es of ``batch_size`` rows (the last
    one may have fewer): epoch ``e``'s rows are those of ``knuffle table
    SOURCE --seed "<the epoch's seed>"`` (epoch 0: the seed itself; epoch
    ``e >= 1``: ``"knuffle epoch e: SEED"``, docs/table-order.md), every
    order exactly equally likely, without a shuffled copy on disk.

    ``source`` is what ``knuffle table`` reads: a Parquet, Arrow IPC, CSV/TSV
    or JSON Lines file (from the extension, or ``format=``; CSV/TSV and
    JSON Lines compressed with gzip or zstd are read by content), a
    directory of shards, or a list of them, all with the same columns. ``columns`` keeps
    those columns, in that order. ``memory`` (bytes, or a size such as
    ``"512M"``; default the smaller of 1 GiB and 3/4 of the memory
    available) bounds what the stream holds: a table larger goes through
    bucket files in ``temp_dir`` (default ``$TMPDIR`` or ``/tmp``; the files
    have no name, so nothing is left behind, even by a killed process),
    about the size of the columns read. The order does not depend on it.

    ``cache_dir`` (a directory on local disk) shares pass 1 among the
    streams of a machine: the first stream of an epoch to arrive reads the
    inputs and writes the epoch's bucket files there, the others wait for
    it and read them (``stats["pass1"]`` says which), and each then orders
    its own rows; with ``prefetch`` (default: on with a cache directory),
    once the epoch's pass 1 is done the next epoch's is written in the
    background when the cache's file system has room for it (free space of
    an epoch's bucket files and a quarter more), taking a quarter of
    ``memory``. A stream that reaches the end of epoch ``e`` removes the
    cache's entries of earlier epochs that no stream reads, and those of
    the same inputs under another seed or other columns that no stream
    reads and none of whose entries is newer than its own; entries that
    can never be used again (a killed writer's, or of inputs that changed)
    go as the next stream opens the cache. The rows never depend on it.

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
        cache_dir=cache_dir,
        prefetch=prefetch,
        format=format,
        consumer=consumer,
        consumers=consumers,
        start=start,
    )


__all__: list[str] = ["TableStream", "stream_table"]
