"""An epoch's order split among consumers by position, and the state that resumes it.

Consumer ``r`` of ``R`` (a rank of a training job) gets the positions
``start + r``, ``start + r + R``, ... of the epoch's order, as torch's
``DistributedSampler`` gives rank ``r`` the items ``indices[r:total_size:R]``:
merged by position, the consumers give the epoch's order itself, whatever
``R`` is. ``start`` is 0 for a whole epoch, and the number of rows the job
had already consumed when it resumes one (the state below).

**Padding and drop_last are torch's.** Each consumer gets the same number of
rows, ``ceil((n - start) / R)``; the positions past the end, ``n`` and up
(fewer than ``R`` of them), are filled with the order from its start: position
``g`` holds row ``order[g mod n]``, which is torch's padding (``indices +=
indices[:padding_size]``, the list repeated when ``n < R``). With
``drop_last`` each consumer gets ``floor((n - start) / R)`` rows and the last
``(n - start) mod R`` positions are dropped instead.

**The state** is ``(seed, epoch, samples seen)`` and the size of the data set:
samples seen counts positions of the epoch's order, globally, so that a job
with another number of consumers continues at the same position. Consumers
move in lockstep (synchronous training: every rank takes one batch a step), so
after ``k`` rows each, the job has consumed the positions ``start .. start +
k * R``: a consumer's state is ``start + k * R``, the same on every rank.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from knuffle import _epoch

#: The value of "kind" in every state, so that a state from elsewhere (another
#: sampler's, another library's) is recognised and refused.
STATE_KIND = "knuffle epoch order"

#: Rows of a consumer fetched at a time from the order (memory: 8 bytes each).
CHUNK_ROWS = 1 << 16

_EPOCHS = 2**64


def seed_text(seed: Any) -> str:
    """A seed as text: an int is its decimal digits (``seed=42`` is ``--seed 42``)."""
    if isinstance(seed, str):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or a str (any text), not {type(seed).__name__}")
    return str(int(seed))


def whole_number(value: Any, name: str) -> int:
    """``value`` as a Python int (not bool), or TypeError naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None


def check_epoch(epoch: Any) -> int:
    """An epoch number: an integer from 0 to 2**64 - 1."""
    epoch = whole_number(epoch, "epoch")
    if not 0 <= epoch < _EPOCHS:
        raise ValueError(f"epoch must be from 0 to 2**64 - 1, got {epoch}")
    return epoch


def epoch_order(seed: str, n: int, epoch: int) -> Any:
    """The epoch's order of ``n`` rows (``knuffle.epoch_order``: ``len``,
    ``order[i]`` and ``order[a:b:step]`` as int64, one window of rows held
    at a time, never ``n`` row numbers)."""
    return _epoch.epoch_order(seed, n, epoch)


class Sequential:
    """The rows in their own order (``shuffle=False``): position ``i`` holds row ``i``."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return np.arange(*key.indices(self._n), dtype=np.int64)
        return range(self._n)[key]


def rank_count(n: int, start: int, replicas: int, drop_last: bool) -> int:
    """Rows each of ``replicas`` consumers gets from position ``start`` on
    (torch's ``num_samples`` when ``start`` is 0)."""
    left = max(n - start, 0)
    return left // replicas if drop_last else -(-left // replicas)


def rank_rows(order: Any, start: int, rank: int, replicas: int, first: int, stop: int) -> np.ndarray:
    """The rows of consumer ``rank`` at its local indices ``first .. stop``:
    positions ``start + rank + replicas * k`` of ``order``, padded as torch pads."""
    n = len(order)
    low = start + rank + replicas * first
    count = stop - first
    inside = min(count, max(0, -(-(n - low) // replicas)))
    rows = np.empty(count, dtype=np.int64)
    if inside:
        rows[:inside] = order[low : low + replicas * (inside - 1) + 1 : replicas]
    for j in range(inside, count):
        # Torch's padding: the positions past the end repeat the order from
        # its start (position arithmetic, not a random draw).
        rows[j] = order[(low + replicas * j) % n]
    return rows


def make_state(seed: str, shuffle: bool, n: int, epoch: int, seen: int) -> dict[str, Any]:
    """The state of a job at ``seen`` positions into an epoch (plain Python
    values: ``torch.save``, JSON and pickle keep it)."""
    return {
        "kind": STATE_KIND,
        "seed": seed,
        "shuffle": shuffle,
        "dataset_size": n,
        "epoch": epoch,
        "samples_seen": seen,
    }


def read_state(state: Any, *, seed: str | None, shuffle: bool, n: int) -> tuple[str, int, int]:
    """``(seed, epoch, samples seen)`` of a state, checked against the data set
    and the sampler (``seed=None``: the sampler takes the state's seed)."""
    if not isinstance(state, dict) or state.get("kind") != STATE_KIND:
        raise ValueError(
            "not the state of a knuffle sampler (a dict from knuffle's state_dict(), "
            f"with 'kind': {STATE_KIND!r}): {state!r:.200}"
        )
    missing = [key for key in ("seed", "shuffle", "dataset_size", "epoch", "samples_seen") if key not in state]
    if missing:
        raise ValueError(f"the sampler state lacks {', '.join(missing)}")
    size = whole_number(state["dataset_size"], "the state's dataset_size")
    if size != n:
        raise ValueError(f"the state is of a data set of {size} rows; this sampler's has {n}")
    if bool(state["shuffle"]) != shuffle:
        raise ValueError(
            f"the state is of a sampler with shuffle={bool(state['shuffle'])}; this one has shuffle={shuffle}"
        )
    state_seed = state["seed"]
    if not isinstance(state_seed, str):
        raise ValueError(f"the state's seed must be a str, got {type(state_seed).__name__}")
    if seed is not None and shuffle and state_seed != seed:
        raise ValueError(f"the state is of seed {state_seed!r}; this sampler's seed is {seed!r}")
    epoch = check_epoch(state["epoch"])
    seen = whole_number(state["samples_seen"], "the state's samples_seen")
    if seen < 0:
        raise ValueError(f"the state's samples_seen must be at least 0, got {seen}")
    return state_seed, epoch, seen
