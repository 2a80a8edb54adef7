"""knuffle: exactly uniform, reproducible, fast shuffles for Python.

>>> import knuffle
>>> g = knuffle.Generator("friday poker")
>>> p = g.permutation(5)
>>> sorted(p.tolist())
[0, 1, 2, 3, 4]
"""

from __future__ import annotations

import numpy as np

from knuffle import _knuffle

__all__ = ["Generator"]


class Generator:
    """A seeded knuffle random stream (ChaCha20, the CLI's ``--seed``)."""

    def __init__(self, seed: str | None = None) -> None:
        self._core = _knuffle.Generator(seed)

    def shuffle(self, a) -> None:
        """Shuffle ``a`` in place."""
        arr = np.asarray(a)
        if arr.dtype != np.int64 or arr.ndim != 1:
            raise TypeError("only 1-D int64 arrays for now")
        self._core.shuffle_i64(arr)

    def permutation(self, n):
        """Return a random permutation of ``range(n)`` as an int64 array."""
        return self._core.permutation_n(int(n))
