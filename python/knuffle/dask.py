"""`knuffle.dask`: an exactly uniform, reproducible global row shuffle on Dask.

``knuffle.dask.shuffle(ddf, seed)`` returns a Dask DataFrame (or Series, or
the rows of a Dask Array along axis 0)
whose rows are a uniformly random permutation of all the input's rows:
every one of the n! orders has probability exactly 1/n!, rows move between
partitions, and the order depends only on the seed text and the rows,
never on the input's partitioning, the number of output partitions, the
number of workers or the scheduler. docs/dask.md has the algorithm, the
proof and the memory per worker.

>>> import pandas as pd, dask.dataframe as dd, knuffle.dask
>>> ddf = dd.from_pandas(pd.DataFrame({"x": range(10)}), npartitions=3)
>>> out = knuffle.dask.shuffle(ddf, "friday poker").compute()
>>> sorted(out["x"]) == list(range(10))
True
>>> again = dd.from_pandas(pd.DataFrame({"x": range(10)}), npartitions=7)
>>> bool((knuffle.dask.shuffle(again, "friday poker").compute()["x"] == out["x"]).all())
True

The steps (Sandelius 1962; the external shuffle of ``knuffle --memory``),
all in one Dask graph, so the input is computed once:

1. each input partition's length, and their running sum, give the
   partition its first global row number; row ``i`` gets the label
   ``i``-th word of a ChaCha20 stream derived from the seed (random
   access, 2**32 buckets, exactly uniform and independent) and the number
   of the output partition that holds its label's range;
2. Dask's own shuffle (tasks or p2p) moves every row to that partition;
3. each output partition puts its rows in the table order in one Rust call
   (sort by (label, global row), each run of equal labels shuffled with the
   generator of (seed, label)), with the GIL released, and its columns are
   gathered in that order as ``shuffle_frame`` gathers them (in Rust from
   65,536 rows; smaller partitions by pandas' ``iloc``).
"""

from __future__ import annotations

from typing import Any

from knuffle._engines import require

require("knuffle.dask", ("dask", "pandas"), "dask")

import numpy as np

from knuffle import _knuffle
from knuffle._engines import check_partitions, check_seed
from knuffle._frames import take_pandas

__all__ = ["shuffle"]

# Helper columns, dropped before the result is returned: the label
# (uint32), the global row number (int64) and the output partition (int32;
# Dask's shuffles take the partition from a column only under this name,
# and hash any other).
_LABEL = "__knuffle_label"
_ROW = "__knuffle_row"
_PART = "_partitions"
_HELPERS = (_LABEL, _ROW, _PART)


def shuffle(
    ddf: Any,
    seed: str,
    npartitions: int | None = None,
    *,
    shuffle_method: str | None = None,
) -> Any:
    """A uniformly random permutation of the rows of a Dask DataFrame or Series
    (or of a Dask Array along axis 0).

    ``seed`` is any text (as ``knuffle --seed``); the same seed and the same
    rows give the same order with any partitioning of the input, any
    ``npartitions``, any number of workers and any scheduler (synchronous,
    threads, processes, distributed). ``npartitions`` is the number of
    output partitions (by default the input's); each receives a share of
    the rows that follows the multinomial law (about n / npartitions
    rows). ``shuffle_method`` is passed to Dask's shuffle (``"tasks"`` or
    ``"p2p"``; by default Dask's choice). Rows keep their index labels.

    The result is lazy, as usual in Dask, and computing it computes the
    input once: each partition's length is counted in the same graph that
    moves its rows. The order is that of the rows as ``ddf.compute()``
    gives them (the table order of docs/table-order.md).

    A Dask Array's rows are put in the same order as a DataFrame of as many
    rows; the order (8 bytes per row, 32 while it is computed) is computed
    on the client when ``shuffle`` is called and applied with Dask's take;
    ``npartitions`` is then the number of chunks along axis 0.

    >>> import pandas as pd, dask.dataframe as dd, knuffle.dask
    >>> ddf = dd.from_pandas(pd.DataFrame({"x": range(6)}), npartitions=2)
    >>> out = knuffle.dask.shuffle(ddf, "s", npartitions=3)
    >>> out.npartitions
    3
    >>> sorted(out.compute()["x"])
    [0, 1, 2, 3, 4, 5]
    """
    return _shuffle(ddf, seed, npartitions, shuffle_method)


def _label(part: Any, ends: Any, lengths: Any, seed: str, partitions: int) -> Any:
    """Adds the label, global row number and output partition columns to
    one input partition; ``ends`` holds the running sum of the partitions'
    lengths up to this one, ``lengths`` this partition's counted length."""
    count = len(part)
    end, counted = int(ends.iloc[0]), int(lengths.iloc[0])
    if count != counted:
        raise RuntimeError(
            f"an input partition has {count} rows now but had {counted} when "
            "knuffle.dask.shuffle counted them: the input must give the same rows "
            "each time it is computed"
        )
    start = end - count
    labels, targets = _knuffle.table_labels_partitions(seed, start, count, partitions)
    return part.assign(**{
        _LABEL: labels,
        _ROW: np.arange(start, end, dtype=np.int64),
        _PART: targets,
    })


def _finish(part: Any, seed: str) -> Any:
    """Puts one output partition in the table order and drops the helpers;
    the columns are gathered in Rust as by ``shuffle_frame``, on the task's
    own thread (a worker runs one task per thread)."""
    import pandas as pd

    labels = np.ascontiguousarray(part[_LABEL].to_numpy(dtype=np.uint32))
    rows = np.ascontiguousarray(part[_ROW].to_numpy(dtype=np.int64))
    order = _knuffle.table_order_partition(seed, labels, rows)
    kept = part.drop(columns=[c for c in _HELPERS if c in part.columns])
    return take_pandas(pd, kept, order, threads=1)


def _shuffle(ddf: Any, seed: str, npartitions: int | None, shuffle_method: str | None) -> Any:
    import dask.dataframe as dd
    from dask.dataframe.dask_expr._collection import new_collection
    from dask.dataframe.dask_expr._shuffle import Shuffle

    check_seed(seed)
    if _is_dask_array(ddf):
        return _shuffle_array(ddf, seed, npartitions)
    if isinstance(ddf, dd.Series):
        name = ddf.name
        column = "__knuffle_series" if name is None else name
        frame = _shuffle(ddf.to_frame(name=column), seed, npartitions, shuffle_method)
        return frame[column].rename(name)
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(
            "knuffle.dask.shuffle takes a Dask DataFrame, Series or Array, "
            f"not {type(ddf).__name__}"
        )
    npartitions = check_partitions(npartitions, ddf.npartitions, "npartitions")
    if shuffle_method not in (None, "tasks", "p2p", "disk"):
        raise ValueError(
            f"shuffle_method must be 'tasks', 'p2p', 'disk' or None, got {shuffle_method!r}"
        )
    taken = [c for c in _HELPERS if c in ddf.columns]
    if taken:
        raise ValueError(f"the input has columns named {taken}, which knuffle.dask uses")
    meta = ddf._meta

    # Lengths and their running sum, one value per input partition, in the
    # same graph as the rows: computing the result computes the input once.
    lengths = ddf.map_partitions(len, meta=(None, "int64"))
    labelled = ddf.map_partitions(
        _label, lengths.cumsum(), lengths, seed, npartitions,
        meta=meta.assign(**{
            _LABEL: np.array([], dtype=np.uint32),
            _ROW: np.array([], dtype=np.int64),
            _PART: np.array([], dtype=np.int32),
        }),
        align_dataframes=False,
    )
    # Dask's shuffle on a column that already holds each row's output
    # partition (what set_index does after its searchsorted; a plain
    # ddf.shuffle would hash the column and scatter the label ranges).
    moved = new_collection(
        Shuffle(labelled.expr, _PART, npartitions, False, shuffle_method, {})
    )
    return moved.map_partitions(_finish, seed, meta=meta, clear_divisions=True)


def _is_dask_array(x: Any) -> bool:
    try:
        import dask.array as da
    except ImportError:  # dask without its array extra
        return False
    return isinstance(x, da.Array)


def _shuffle_array(x: Any, seed: str, npartitions: int | None) -> Any:
    """Rows (axis 0) of a Dask Array in the order the DataFrame path gives
    the same number of rows. An array's rows are numbered by position, so
    the whole order is known from n alone: it is computed here (32 bytes
    per row on the client, in Rust) and applied with Dask's take."""
    if x.ndim == 0:
        raise ValueError("a 0-dimensional array has no rows to shuffle")
    n = x.shape[0]
    if isinstance(n, float):  # NaN: unknown chunk sizes
        raise ValueError(
            "the array's chunk sizes along axis 0 are unknown: call x.compute_chunk_sizes() first"
        )
    chunks = check_partitions(npartitions, max(1, len(x.chunks[0])), "npartitions")
    order = _knuffle.table_order(seed, n)
    out = x[order]
    if n:
        out = out.rechunk({0: -(-n // chunks)})
    return out
