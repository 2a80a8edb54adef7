"""The table order (docs/table-order.md): ``table_order`` and ``shuffle_table``."""

from __future__ import annotations

import operator
import numpy as np

from knuffle import _knuffle


def table_order(seed: str, n: int) -> np.ndarray:
    """The permutation of ``0..n`` (int64) that the table order gives ``n``
    rows for ``seed``: element ``k`` is the row that goes to position ``k``.

    ``knuffle table --seed SEED``, ``knuffle.shuffle_table``,
    ``knuffle.dask.shuffle``, ``knuffle.spark.shuffle`` and
    ``knuffle.ray.shuffle`` all put ``n`` rows in this order.

    >>> import knuffle
    >>> order = knuffle.table_order("friday poker", 5)
    >>> sorted(order.tolist())
    [0, 1, 2, 3, 4]
    """
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
    if isinstance(n, (bool, np.bool_)):
        raise TypeError("n must be an integer, not bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an integer, not {type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"n must be at least 0, got {n}")
    if n >= 2**63:
        raise ValueError(f"n must be below 2**63, got {n}")
    return _knuffle.table_order(seed, n)


__all__: list[str] = ["table_order"]
