"""``knuffle.torch.TableDataset``: ``stream_table`` as a torch
``IterableDataset`` that splits itself among ranks and DataLoader workers
and resumes to the row.

Consumer ``c = rank + world_size * worker`` of ``C = world_size *
num_workers`` takes the positions ``start + c``, ``start + c + C``, ... of
the epoch order (the rule of ``stream_table`` and of the samplers of issue
"Training loops"), so that all consumers' rows merged by position are the
epoch order whatever ``C`` is. A consumer's state says how many rows of the
order all consumers together have seen, counting its own times ``C`` (the
consumers move in lockstep in synchronous training).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Iterator

import numpy as np

from knuffle._sampling import _paths
from knuffle._stream import DEFAULT_BATCH_SIZE, _columns, _directory, _int, _open, _prefetch, _prefetch_epochs

try:
    import torch
    from torch.utils.data import IterableDataset, get_worker_info
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError("knuffle.torch needs PyTorch: pip install torch") from error

#: The version of the state that ``state_dict`` returns.
STATE_VERSION = 1


def _identity(inputs: list[str], columns: list[str] | None) -> str:
    """What a state belongs to: the names (relative to each input) and sizes
    of the input files, and the columns; not their times or places, so that
    a copy of the data elsewhere resumes the same state."""
    digest = hashlib.sha256()
    for root in inputs:
        if os.path.isdir(root):
            found = []
            for directory, subdirectories, names in os.walk(root):
                subdirectories[:] = [d for d in subdirectories if not d.startswith((".", "_"))]
                for name in names:
                    if not name.startswith((".", "_")):
                        path = os.path.join(directory, name)
                        found.append((os.path.relpath(path, root), os.path.getsize(path)))
            entries = sorted(found)
        else:
            entries = [(os.path.basename(root), os.path.getsize(root))]
        for name, size in entries:
            digest.update(f"{name}\0{size}\n".encode())
        digest.update(b"--\n")
    digest.update(repr(columns).encode())
    return digest.hexdigest()[:32]


def _distributed() -> tuple[int, int]:
    """(rank, world size) of torch.distributed when it is initialized, else
    (0, 1)."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class TableDataset(IterableDataset):
    """The rows of tables (what ``knuffle table`` reads: Parquet, Arrow,
    CSV, JSON Lines files or directories of shards) in the epoch order of
    ``seed`` and ``epoch``, as a torch ``IterableDataset``.

    Without ``batch_size`` it yields rows, with it batches of
    ``batch_size`` rows (the last of a consumer may have fewer; give the
    DataLoader ``batch_size=None``): each a dict of column name to a
    ``torch.Tensor`` (``output="torch"``) or a numpy array
    (``output="numpy"``); numeric columns and lists of numbers of one
    length become arrays, text and other values Python lists (a row: the
    value).

    ``rank`` and ``world_size`` default to torch.distributed's (0 and 1
    without it). Each DataLoader worker is a consumer of its own: consumer
    ``rank + world_size * worker`` of ``world_size * num_workers`` takes
    every ``world_size * num_workers``-th position of the order, so the
    union of all consumers is the epoch exactly once, merged by position in
    the epoch order. ``set_epoch(e)`` starts epoch ``e``.

    ``state_dict()`` / ``load_state_dict(state)`` resume to the row: the
    state is the seed, the epoch, the rows of the order seen by all
    consumers together, and the dataset's identity; torchdata's
    ``StatefulDataLoader`` saves and restores it in each worker. Restored
    with the same ranks and workers, each consumer continues exactly where
    it stopped; with others, the rows not yet seen are dealt to the new
    consumers, exactly once, when the consumers moved in lockstep (the same
    number of rows each: synchronous training with equal batches). With a
    plain DataLoader and workers, the dataset in the main process does not
    see the workers' progress: use ``StatefulDataLoader``, or
    ``load_state_dict`` a state whose ``rows_seen`` you counted.

    ``cache_dir`` (a directory on local disk) shares each epoch's pass 1
    among the consumers of the machine: the first to arrive reads the
    inputs and writes the epoch's bucket files there, the others read them
    (``stream_table``'s ``cache_dir``). With it, ``prefetch`` is on by
    default: ``set_epoch(e)`` in the main process starts epoch ``e``'s pass
    1 (unless another process writes it) and then epoch ``e + 1``'s in the
    background, while epoch ``e`` is consumed, so that from the second
    epoch on the consumers wait only for their pass 2. ``stream_stats`` is
    the stats of this process's last stream (``stream_table``'s
    ``TableStream.stats``; with DataLoader workers, those are in the
    workers).

    The other arguments are ``stream_table``'s.
    """

    def __init__(
        self,
        source: Any,
        seed: str,
        *,
        epoch: int = 0,
        columns: list[str] | None = None,
        batch_size: int | None = None,
        output: str = "torch",
        memory: int | str | None = None,
        temp_dir: Any = None,
        cache_dir: Any = None,
        prefetch: bool | None = None,
        rank: int | None = None,
        world_size: int | None = None,
        format: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(seed, str):
            raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
        if output not in ("torch", "numpy"):
            raise ValueError(f"output= must be 'torch' or 'numpy', got {output!r}")
        if batch_size is not None:
            _int(batch_size, "batch_size", 1, 1 << 32)
        if (rank is None) != (world_size is None):
            raise ValueError("give both rank= and world_size=, or neither (torch.distributed's)")
        if rank is None:
            rank, world_size = _distributed()
        world_size = _int(world_size, "world_size", 1, 1 << 31)
        rank = _int(rank, "rank", 0, world_size)
        self._inputs = _paths(source, "source")
        self._seed = seed
        self._epoch = _int(epoch, "epoch", 0, 1 << 64)
        self._columns = _columns(columns)
        self._batch_size = batch_size
        self._output = output
        self._memory = memory
        self._temp_dir = temp_dir
        self._cache_dir = _directory(cache_dir, "cache_dir")
        self._prefetch = _prefetch(prefetch, self._cache_dir)
        # The background pass 1 of the main process (not pickled).
        self._prefetching: Any = None
        self._stream_stats: dict[str, Any] | None = None
        self._rank = rank
        self._world_size = world_size
        self._format = format
        self._identity = _identity(self._inputs, self._columns)
        # Rows of the order seen by all consumers before this iteration, and
        # this consumer's rows since (with the number of consumers).
        self._start = 0
        self._yielded = 0
        self._consumers = world_size
        # The last iteration reached the end of the epoch: the next one
        # starts it again (a new epoch needs set_epoch).
        self._finished = False

    # -- epochs and state -------------------------------------------------

    def set_epoch(self, epoch: int) -> None:
        """Start epoch ``epoch`` from its first row; with a cache directory
        and ``prefetch``, in the main process, its pass 1 and then the next
        epoch's start in the background."""
        self._epoch = _int(epoch, "epoch", 0, 1 << 64)
        self._start = 0
        self._yielded = 0
        self._finished = False
        if self._prefetch and get_worker_info() is None:
            self._prefetching = _prefetch_epochs(
                self._inputs,
                self._seed,
                **self._stream_options(self._epoch, consumer=0, consumers=1, start=0, prefetch=True),
            )

    @property
    def stream_stats(self) -> dict[str, Any] | None:
        """The stats of this process's last stream (``TableStream.stats``),
        None before the first batch."""
        return self._stream_stats

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_prefetching"] = None
        return state

    def _stream_options(self, epoch: int, *, consumer: int, consumers: int, start: int, prefetch: bool) -> dict[str, Any]:
        return {
            "epoch": epoch,
            "columns": self._columns,
            "batch_size": self._batch_size or DEFAULT_BATCH_SIZE,
            "memory": self._memory,
            "temp_dir": self._temp_dir,
            "cache_dir": self._cache_dir,
            "prefetch": prefetch,
            "format": self._format,
            "consumer": consumer,
            "consumers": consumers,
            "start": start,
        }

    def state_dict(self) -> dict[str, Any]:
        """The state to resume from: ``{"version", "dataset", "seed",
        "epoch", "rows_seen"}`` (``rows_seen``: the rows of the epoch's
        order seen by all consumers together)."""
        return {
            "version": STATE_VERSION,
            "dataset": self._identity,
            "seed": self._seed,
            "epoch": self._epoch,
            "rows_seen": self._start + self._yielded * self._consumers,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from ``state`` (of ``state_dict``): the next iteration
        continues the epoch after its ``rows_seen`` rows."""
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise ValueError(f"not a TableDataset state (version {STATE_VERSION}): {state!r}")
        if state.get("seed") != self._seed:
            raise ValueError(f"the state is of another seed ({state.get('seed')!r}, this dataset's is {self._seed!r})")
        if state.get("dataset") != self._identity:
            raise ValueError(
                "the state is of another dataset (other files, file sizes or columns): "
                f"{state.get('dataset')} against {self._identity}"
            )
        self._epoch = _int(state.get("epoch"), "epoch", 0, 1 << 64)
        self._start = _int(state.get("rows_seen"), "rows_seen", 0, 1 << 64)
        self._yielded = 0
        self._finished = False

    # -- rows -------------------------------------------------------------

    def __iter__(self) -> Iterator[dict[str, Any]]:
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        consumers = self._world_size * workers
        consumer = self._rank + self._world_size * worker
        # This iteration starts where the state says; the state from now on
        # counts this consumer's rows.
        start = 0 if self._finished else self._start + self._yielded * self._consumers
        self._start, self._yielded, self._consumers, self._finished = start, 0, consumers, False
        # A DataLoader worker ends with its epoch: the next epoch's pass 1 is
        # the main process's (set_epoch), which lives on.
        stream = _open(
            self._inputs,
            self._seed,
            **self._stream_options(
                self._epoch,
                consumer=consumer,
                consumers=consumers,
                start=start,
                prefetch=self._prefetch and info is None,
            ),
        )
        self._stream_stats = None
        for batch in stream:
            if self._stream_stats is None:
                self._stream_stats = stream.stats
            columns = {name: self._convert(batch.column(i)) for i, name in enumerate(batch.schema.names)}
            if self._batch_size is not None:
                # Counted before it is handed out: a state saved while the
                # batch is in use has it as seen.
                self._yielded += batch.num_rows
                yield columns
                continue
            for row in range(batch.num_rows):
                self._yielded += 1
                yield {name: values[row] for name, values in columns.items()}
        self._stream_stats = stream.stats
        self._finished = True

    def _convert(self, column: Any) -> Any:
        """An Arrow column as a tensor or numpy array when it holds numbers
        (or lists of numbers of one length), else a list of values."""
        import pyarrow as pa

        kind = column.type
        values: Any = None
        if (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)) and column.null_count == 0:
            values = column.to_numpy(zero_copy_only=False)
        elif pa.types.is_fixed_size_list(kind) and column.null_count == 0:
            inner = column.flatten()
            if _numeric(inner.type) and inner.null_count == 0:
                values = inner.to_numpy(zero_copy_only=False).reshape(len(column), kind.list_size)
        elif (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and column.null_count == 0:
            inner = column.flatten()
            offsets = column.offsets.to_numpy()
            lengths = np.diff(offsets)
            if _numeric(inner.type) and inner.null_count == 0 and len(column) and (lengths == lengths[0]).all():
                values = inner.to_numpy(zero_copy_only=False).reshape(len(column), int(lengths[0]))
        if values is None:
            return column.to_pylist()
        if self._output == "numpy":
            return values
        values = np.ascontiguousarray(values)
        if not values.flags.writeable:
            # Arrow's buffers are read-only: a tensor over them would let an
            # in-place operation write into the batch (torch warns); a copy
            # is the tensor's own.
            values = values.copy()
        return torch.from_numpy(values)


def _numeric(kind: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)


__all__: list[str] = ["TableDataset"]
