"""The epoch order (docs/table-order.md, "Epochs"): ``epoch_order`` and
``epoch_seed``.

Epoch ``e`` of a seed is the table order of the seed text ``epoch_seed(seed,
e)``: every one of the ``n!`` orders exactly equally likely, the same rows as
``knuffle order``, ``knuffle.table_order`` and, for epoch 0, ``knuffle table
--seed SEED``. An ``EpochOrder`` answers by position without holding ``n``
row numbers: it computes one window of label ranges at a time (one pass over
the rows' labels, on two threads, the GIL released) and keeps the last one,
so reading it from front to back in slices costs one pass per window.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Union, overload

import numpy as np

from knuffle import _knuffle

#: A seed: any text, or an int (its decimal text: ``7`` is ``"7"``).
Seed = Union[str, int]

#: The most rows an epoch order has.
MAX_ROWS = 2**32

#: Rows fetched at a time when an ``EpochOrder`` is iterated.
_ITER_CHUNK = 1 << 16


def _seed_text(seed: Seed) -> str:
    if isinstance(seed, str):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a str (any text) or an int, not {type(seed).__name__}")
    return str(int(seed))


def _integer(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not low <= number <= high:
        raise ValueError(f"{name} must be from {low} to {high}, got {number}")
    return number


def epoch_seed(seed: Seed, epoch: int) -> str:
    """The seed text whose table order is epoch ``epoch`` of ``seed``:
    ``seed`` itself for epoch 0, ``"knuffle epoch {epoch}: {seed}"`` after.

    >>> import knuffle
    >>> knuffle.epoch_seed("friday", 0), knuffle.epoch_seed("friday", 3)
    ('friday', 'knuffle epoch 3: friday')
    """
    return _knuffle.epoch_seed(_seed_text(seed), _integer(epoch, "epoch", 0, 2**64 - 1))


class EpochOrder:
    """Epoch ``epoch`` of ``seed`` for ``n`` rows: ``order[i]`` is the row
    at position ``i``. Made by ``knuffle.epoch_order``.

    ``len(order)``, ``order[i]`` (negative ``i`` counts from the end, as in
    Python), ``order[a:b]`` and ``order[a:b:step]`` (numpy int64 arrays) and
    iteration. Memory: the counts of 4,096 label ranges (32 KiB) and the
    last window computed (at most 8M rows, 64 MiB), whatever ``n`` is. A
    position outside the window costs one pass over the ``n`` labels.
    """

    __slots__ = ("_core",)

    def __init__(self, seed: Seed, n: int, epoch: int = 0) -> None:
        text = _seed_text(seed)
        rows = _integer(n, "n", 0, MAX_ROWS)
        number = _integer(epoch, "epoch", 0, 2**64 - 1)
        self._core = _knuffle.EpochOrder(text, number, rows)

    @property
    def seed(self) -> str:
        """The seed text (an int seed as its decimal text)."""
        return self._core.seed

    @property
    def epoch(self) -> int:
        """The epoch."""
        return self._core.epoch

    def __len__(self) -> int:
        return len(self._core)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> np.ndarray: ...
    def __getitem__(self, index: int | slice) -> int | np.ndarray:
        n = len(self._core)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                return np.empty(0, dtype=np.int64)
            return self._core.take(start, step, count)
        if isinstance(index, (bool, np.bool_)):
            raise TypeError("epoch order indices must be integers or slices, not bool")
        try:
            position = operator.index(index)
        except TypeError:
            raise TypeError(
                f"epoch order indices must be integers or slices, not {type(index).__name__}"
            ) from None
        if position < 0:
            position += n
        if not 0 <= position < n:
            raise IndexError("epoch order index out of range")
        return self._core.get(position)

    def __iter__(self) -> Iterator[int]:
        n = len(self._core)
        for start in range(0, n, _ITER_CHUNK):
            count = min(_ITER_CHUNK, n - start)
            yield from self._core.take(start, 1, count).tolist()

    def __repr__(self) -> str:
        return f"knuffle.epoch_order({self.seed!r}, {len(self)}, epoch={self.epoch})"

    def __reduce__(self) -> tuple[object, tuple[str, int, int]]:
        # Pickled as its arguments: the windows are recomputed on demand.
        return (EpochOrder, (self.seed, len(self), self.epoch))


def epoch_order(seed: Seed, n: int, epoch: int = 0) -> EpochOrder:
    """Epoch ``epoch`` of ``seed`` for ``n`` rows (``0 <= n <= 2**32``): an
    exactly uniform order of ``0..n``, a new independent one each epoch.

    It is ``knuffle.table_order(knuffle.epoch_seed(seed, epoch), n)``
    without holding ``n`` row numbers, and the rows ``knuffle order -n N
    --seed SEED --epoch E`` prints. ``seed`` is any text, or an int (its
    decimal text). Consumer ``r`` of ``R`` (a rank, or a rank's loader
    worker) takes ``order[r::R]``: merged by position, the consumers'
    rows are the epoch's order, whatever ``R`` is.

    >>> import knuffle
    >>> order = knuffle.epoch_order("friday", 10, epoch=1)
    >>> len(order), sorted(order) == list(range(10))
    (10, True)
    >>> order[2:5].tolist() == list(order)[2:5]
    True
    """
    return EpochOrder(seed, n, epoch)
