"""A Grain sampler in the epoch order: ``knuffle.grain.IndexSampler``.

Grain's ``DataLoader`` asks its sampler for the record at a global index:
process ``s`` of ``S`` (its ``ShardOptions``) reads the indices ``s, s + S,
s + 2S, ...``. This sampler answers index ``i`` with position ``i mod n`` of
epoch ``i div n``'s order (docs/table-order.md, "Epochs"): every order of the
``n`` records equally likely, a new independent order each epoch, and one
global sequence whatever the number of processes and workers, the same as
``knuffle.torch``'s samplers and ``knuffle order`` give. (Grain's own
``IndexSampler`` shuffles each shard apart, with a Feistel permutation of a
64-bit seed: a small family of the ``n!`` orders.) Grain's checkpoints
(``iterator.get_state()``) resume it, since it depends on the index alone.

>>> import knuffle.grain
>>> sampler = knuffle.grain.IndexSampler(5, seed="friday", num_epochs=2)
>>> [sampler[i].record_key for i in range(5)] == knuffle.table_order("friday", 5).tolist()
True
>>> len(sampler)
10
"""

from __future__ import annotations

import sys
from typing import Any

try:
    from grain.python import RecordMetadata
except ImportError as error:  # pragma: no cover - depends on the machine
    raise ImportError(f'knuffle.grain needs Grain ({error}): pip install grain') from error

from knuffle import _epoch_split

__all__ = ["IndexSampler"]


class IndexSampler:
    """Grain's sampler protocol (``sampler[index]`` -> ``RecordMetadata``) in
    the epoch order of ``seed`` (an int or any text) over ``num_records``
    records, for ``num_epochs`` epochs (``None``: for ever).
    ``shuffle=False`` gives the records in their own order.

    Records carry no ``rng`` (Grain's random transforms need one of their own).
    """

    def __init__(self, num_records: int, *, seed: int | str, num_epochs: int | None = None, shuffle: bool = True) -> None:
        n = _epoch_split.whole_number(num_records, "num_records")
        if not 0 < n < 2**63:
            raise ValueError(f"num_records must be from 1 to 2**63 - 1, got {n}")
        if num_epochs is not None:
            num_epochs = _epoch_split.whole_number(num_epochs, "num_epochs")
            if not 0 < num_epochs <= 2**64:
                raise ValueError(f"num_epochs must be from 1 to 2**64, or None, got {num_epochs}")
        self._n = n
        self._seed = _epoch_split.seed_text(seed)
        self._num_epochs = num_epochs
        self._shuffle = bool(shuffle)
        self._epoch: int | None = None
        self._order: Any = None

    def __len__(self) -> int:
        if self._num_epochs is None:
            return sys.maxsize
        return min(self._num_epochs * self._n, sys.maxsize)

    def __repr__(self) -> str:
        # Grain compares a checkpoint's sampler with the loader's by repr.
        return (
            f"knuffle.grain.IndexSampler(num_records={self._n}, seed={self._seed!r}, "
            f"num_epochs={self._num_epochs}, shuffle={self._shuffle})"
        )

    def __getitem__(self, index: int) -> RecordMetadata:
        index = _epoch_split.whole_number(index, "index")
        if not 0 <= index < len(self):
            raise IndexError(f"index {index} is outside the sampler's range [0, {len(self)})")
        # Position arithmetic (which epoch, which position in it), not a draw.
        epoch, position = divmod(index, self._n)
        return RecordMetadata(index=index, record_key=int(self._epoch_order(epoch)[position]))

    def _epoch_order(self, epoch: int) -> Any:
        if not self._shuffle:
            return _epoch_split.Sequential(self._n)
        if epoch != self._epoch:
            self._order, self._epoch = None, None  # free the old one first
            self._order = _epoch_split.epoch_order(self._seed, self._n, epoch)
            self._epoch = epoch
        return self._order

    def __getstate__(self) -> dict[str, Any]:
        # Workers get the arguments, not a cached order.
        return {**self.__dict__, "_epoch": None, "_order": None}
