"""What the engines' shuffles share (``knuffle.dask``, ``knuffle.spark``,
``knuffle.ray``): argument checks and the output partition of a label.

Every engine runs the table order's three steps (docs/table-order.md):
number the rows globally from per-partition counts, label them, move each
row to the output partition that holds its label's range, and put each
output partition in the table order. The ranges are fixed here, so a
partition's rows never depend on the engine's own partitioner.
"""

from __future__ import annotations

import importlib.util
import operator
from typing import Any

import numpy as np

# The largest number of output partitions: p = label * B >> 32 must stay
# below 2**63 and fit an int32.
MAX_PARTITIONS = 2**31


def require(module: str, packages: tuple[str, ...], extra: str) -> None:
    """Raises an ImportError that says what to install when one of
    ``packages`` is missing, without importing any of them (importing
    ``knuffle.ray`` does not start Ray)."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(
            f"{module} needs {' and '.join(missing)}, which is not installed: "
            f'pip install "knuffle[{extra}]"'
        )


def check_seed(seed: Any) -> str:
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
    return seed


def check_partitions(value: Any, default: int, name: str) -> int:
    """``value`` (an output partition count named ``name``) or ``default``."""
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not 1 <= value <= MAX_PARTITIONS:
        raise ValueError(f"{name} must be in 1..2**31, got {value}")
    return value


def partition_of(labels: np.ndarray, partitions: int) -> np.ndarray:
    """The output partition (int32) of each label: partition ``p`` of ``B``
    holds the labels ``ceil(p * 2**32 / B) .. ceil((p+1) * 2**32 / B) - 1``,
    that is ``p = label * B >> 32``."""
    product = np.asarray(labels).astype(np.uint64) * np.uint64(partitions)
    return (product >> np.uint64(32)).astype(np.int32)
