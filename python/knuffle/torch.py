"""PyTorch in the epoch order: exactly uniform, the same global order for any
number of ranks and workers, resumable to the row.

:class:`DistributedSampler` takes the arguments of
``torch.utils.data.distributed.DistributedSampler`` and keeps its rules
(``set_epoch``, ``len``, padding, ``drop_last``); :class:`Sampler` is the
same for one process. Epoch ``e`` of seed ``s`` is the epoch order of
docs/table-order.md ("Epochs"): every order of the ``n`` rows equally likely,
independent from epoch to epoch, and the same order as ``knuffle order``.
Rank ``r`` of ``R`` gets the positions ``r, r + R, r + 2R, ...`` of the order
(as torch's ``indices[rank:total_size:num_replicas]``), so merged by position
the ranks give the epoch's order, whatever ``R`` is.

``state_dict()`` / ``load_state_dict()`` are what
``torchdata.stateful_dataloader.StatefulDataLoader`` saves and restores. The
state is ``(seed, epoch, samples seen globally)`` and the data set's size:
restored with the same or another number of ranks it continues with exactly
the rows not yet seen (ranks move in lockstep; see :func:`sampler_state` for
another number of loader workers, and docs/guide/training.md).

>>> import knuffle.torch
>>> rows = list(range(10))
>>> ranks = [knuffle.torch.DistributedSampler(rows, num_replicas=2, rank=r, seed="friday") for r in (0, 1)]
>>> merged = [row for pair in zip(*map(list, ranks)) for row in pair]
>>> merged == knuffle.table_order("friday", 10).tolist()
True

:class:`TableDataset`: the rows of tables in the epoch order as a torch
``IterableDataset``, split among ranks and DataLoader workers, resumable to
the row (``knuffle.stream_table`` underneath).

"""

from __future__ import annotations

import itertools
import operator
import os
from typing import Any, Iterator, Sized

try:
    from torch.utils.data import Sampler as _TorchSampler
    from torch.utils.data.distributed import DistributedSampler as _TorchDistributedSampler
except ImportError as error:  # pragma: no cover - depends on the machine
    raise ImportError(f'knuffle.torch needs PyTorch ({error}): pip install "knuffle[torch]"') from error

from knuffle import _epoch_split
from knuffle._epoch_split import STATE_KIND
from knuffle._torch_table import TableDataset

__all__ = ["DistributedSampler", "Sampler", "TableDataset", "sampler_state"]


class _Pass:
    """One rank's pass over an epoch from position ``start`` on; knows how
    many of its rows the loader has taken (for ``state_dict``)."""

    def __init__(self, order: Any, start: int, rank: int, replicas: int, count: int) -> None:
        self.order, self.start, self.rank, self.replicas, self.count = order, start, rank, replicas, count
        # The local index where the chunk being read ends, and its iterator:
        # rows taken = chunk end - rows left in the chunk.
        self._chunk_end = 0
        self._chunk: Iterator[int] = iter(())

    def taken(self) -> int:
        return self._chunk_end - operator.length_hint(self._chunk)

    def seen(self) -> int:
        """Positions of the epoch consumed by the whole job (lockstep)."""
        return self.start + self.taken() * self.replicas

    def chunks(self) -> Iterator[Iterator[int]]:
        """The rows as list iterators (Python ints from lists: as fast per
        row as iterating torch's list of indices, chained in C)."""
        for first in range(0, self.count, _epoch_split.CHUNK_ROWS):
            stop = min(first + _epoch_split.CHUNK_ROWS, self.count)
            rows = _epoch_split.rank_rows(self.order, self.start, self.rank, self.replicas, first, stop)
            self._chunk = iter(rows.tolist())
            self._chunk_end = stop
            yield self._chunk


class _EpochSampling:
    """What both samplers share: the epoch order, the rank's positions, the state."""

    dataset: Sized
    num_replicas: int
    rank: int
    epoch: int
    drop_last: bool
    shuffle: bool
    seed: str

    def _start(self, seed: str, given_seed: bool) -> None:
        self.seed = seed
        self._given_seed = given_seed
        self._size = _dataset_size(self.dataset)
        self._pending: int | None = None  # a loaded state's position, for the next pass
        self._pass: _Pass | None = None
        self._order_key: tuple[str, int, int] | None = None
        self._order: Any = None

    def set_epoch(self, epoch: int) -> None:
        """The epoch of the next pass (each epoch has an independent order).
        Another epoch than the current one drops a loaded state's position;
        the same one keeps it."""
        epoch = _epoch_split.check_epoch(epoch)
        if epoch != self.epoch:
            self._pending, self._pass = None, None
        self.epoch = epoch

    def _epoch_order(self, n: int) -> Any:
        if not self.shuffle:
            return _epoch_split.Sequential(n)
        key = (self.seed, self.epoch, n)
        if self._order_key != key:
            self._order, self._order_key = None, None  # free the old one first
            self._order = _epoch_split.epoch_order(self.seed, n, self.epoch)
            self._order_key = key
        return self._order

    def __iter__(self) -> Iterator[int]:
        n = _dataset_size(self.dataset)
        if n != self._size:
            raise ValueError(f"the data set had {self._size} rows when the sampler was made and has {n} now")
        self._pass = None
        return itertools.chain.from_iterable(self._started_pass(n))

    def _started_pass(self, n: int) -> Iterator[Iterator[int]]:
        # Runs at the first row asked for, not at iter(): loaders make
        # iterators they never read (torch's DataLoader makes two when it
        # starts), and only the one that is read takes a loaded position.
        start = self._pending or 0
        self._pending = None
        count = _epoch_split.rank_count(n, start, self.num_replicas, self.drop_last)
        self._pass = _Pass(self._epoch_order(n), start, self.rank, self.num_replicas, count)
        yield from self._pass.chunks()

    def state_dict(self) -> dict[str, Any]:
        """``{"kind", "seed", "shuffle", "dataset_size", "epoch", "samples_seen"}``:
        the positions of the current epoch the whole job has consumed (this
        rank's rows times the number of ranks, plus where the pass started)."""
        if self._pass is not None:
            seen = self._pass.seen()
        else:
            seen = self._pending or 0
        return _epoch_split.make_state(self.seed, self.shuffle, self._size, self.epoch, seen)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from ``state`` (from ``state_dict()`` of a sampler of the
        same seed and data set, with any number of ranks): the next pass
        starts at its epoch and position. A sampler made without a seed takes
        the state's."""
        seed, epoch, seen = _epoch_split.read_state(
            state, seed=self.seed if self._given_seed else None, shuffle=self.shuffle, n=self._size
        )
        self.seed, self._given_seed = seed, True
        self.epoch = epoch
        self._pass = None
        self._pending = seen


class DistributedSampler(_EpochSampling, _TorchDistributedSampler):
    """A drop-in for ``torch.utils.data.distributed.DistributedSampler`` in
    the epoch order (knuffle.torch's module docs).

    The arguments and rules are torch's: ``num_replicas`` and ``rank`` default
    to the process group's; ``len(sampler)`` is ``ceil(n / num_replicas)``
    (``floor`` with ``drop_last``); without ``drop_last`` the last rows are
    padded with the order's first rows, so every rank gets as many;
    ``set_epoch(e)`` before each epoch. ``seed`` is an int or any text (an
    int is its decimal digits: ``seed=42`` is ``knuffle order --seed 42``),
    the same on every rank. ``shuffle=False`` gives torch's sequential rows.
    """

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int | str = 0,
        drop_last: bool = False,
    ) -> None:
        text = _epoch_split.seed_text(seed)
        if num_replicas is not None:
            num_replicas = _epoch_split.whole_number(num_replicas, "num_replicas")
            if num_replicas < 1:
                raise ValueError(f"num_replicas must be at least 1, got {num_replicas}")
        if rank is not None:
            rank = _epoch_split.whole_number(rank, "rank")
        # torch's checks and fields (num_samples, total_size), and the process
        # group's world size and rank when not given.
        _TorchDistributedSampler.__init__(self, dataset, num_replicas, rank, bool(shuffle), 0, bool(drop_last))
        self._start(text, given_seed=True)


class Sampler(_EpochSampling, _TorchSampler[int]):
    """The epoch order for one process (a :class:`DistributedSampler` of one
    rank): every row once an epoch, ``set_epoch(e)`` before each epoch, and
    ``state_dict()`` / ``load_state_dict()`` to resume to the row.

    ``seed`` is an int or any text; without it, a fresh 256-bit seed (64 hex
    digits, in ``sampler.seed``), replaced by a loaded state's seed.
    """

    def __init__(self, data_source: Sized, seed: int | str | None = None, shuffle: bool = True) -> None:
        given = seed is not None
        text = _epoch_split.seed_text(seed) if given else os.urandom(32).hex()
        self.dataset = data_source
        self.num_replicas, self.rank, self.epoch = 1, 0, 0
        self.shuffle, self.drop_last = bool(shuffle), False
        self._start(text, given_seed=given)

    def __len__(self) -> int:
        return self._size


def _dataset_size(dataset: Sized) -> int:
    try:
        n = len(dataset)
    except TypeError:
        raise TypeError(f"the data set must have a length (len()), not {type(dataset).__name__}") from None
    if n >= 2**63:
        raise ValueError(f"the data set has {n} rows; at most 2**63 - 1")
    return n


def sampler_state(loader_state: dict[str, Any]) -> dict[str, Any]:
    """The knuffle sampler's state inside a ``StatefulDataLoader``'s
    ``state_dict()`` (with any number of workers: the state at the last batch
    the loader handed out, not at the batches its workers prefetched).

    ``loader.load_state_dict`` needs the same number of workers; to resume
    with another, give this to the new sampler's ``load_state_dict`` and
    start a fresh loader.
    """
    if not isinstance(loader_state, dict):
        raise TypeError(f"loader_state must be a dict (a StatefulDataLoader's state_dict()), not {type(loader_state).__name__}")
    if loader_state.get("_steps_since_snapshot", 0):
        raise ValueError(
            "the loader's state is a snapshot taken some batches back (snapshot_every_n_steps > 1): "
            "the sampler's state would repeat those batches; use snapshot_every_n_steps=1"
        )
    found = list(_states_in(loader_state))
    if not found:
        raise ValueError("no knuffle sampler state in this loader state (is the loader's sampler a knuffle.torch sampler?)")
    if any(state != found[0] for state in found[1:]):
        raise ValueError("the loader state holds several different knuffle sampler states")
    return dict(found[0])


def _states_in(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if value.get("kind") == STATE_KIND:
            yield value
            return
        for item in value.values():
            yield from _states_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _states_in(item)
