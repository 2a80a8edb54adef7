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

The three steps (Sandelius 1962; the external shuffle of ``knuffle
--memory``):

1. one pass counts the rows of each partition; prefix sums give every row
   its global row number, and row ``i`` gets the label ``i``-th word of a
   ChaCha20 stream derived from the seed (random access, 2**32 buckets,
   exactly uniform and independent);
2. Dask's own shuffle (``set_index`` on the label with explicit integer
   divisions: tasks or p2p) moves every row to the output partition that
   holds its label's range;
3. each output partition sorts its rows by (label, global row) and
   shuffles every run of equal labels with the generator of (seed, label),
   in Rust with the GIL released.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pandas as pd

from knuffle import _knuffle

__all__ = ["shuffle"]

# Helper columns, dropped before the result is returned.
_LABEL = "__knuffle_label"
_ROW = "__knuffle_row"
_INDEX = "__knuffle_index"
_HELPERS = (_LABEL, _ROW, _INDEX)

_LABEL_BITS: int = 32  # the table order's labels are 32-bit words


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

    One pass over the input counts the rows of each partition (computed
    when ``shuffle`` is called); the shuffle itself is lazy, as usual in
    Dask. The input must give the same rows each time it is computed.

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
    return _shuffle(ddf, seed, npartitions, shuffle_method, _LABEL_BITS)


def _check_partitions(npartitions: Any, default: int) -> int:
    if npartitions is None:
        return default
    if isinstance(npartitions, (bool, np.bool_)):
        raise TypeError("npartitions must be an integer, not bool")
    try:
        npartitions = operator.index(npartitions)
    except TypeError:
        raise TypeError(
            f"npartitions must be an integer, not {type(npartitions).__name__}"
        ) from None
    if not 1 <= npartitions <= 2**31:
        raise ValueError(f"npartitions must be in 1..2**31, got {npartitions}")
    return npartitions


def _divisions(npartitions: int, bits: int) -> list[int]:
    """Integer label boundaries: partition p holds labels
    ceil(p * 2**bits / B) .. ceil((p+1) * 2**bits / B) - 1 (the last one up
    to 2**bits - 1; Dask's last division is inclusive)."""
    buckets = 1 << bits
    if npartitions > buckets:
        raise ValueError(f"npartitions must be at most {buckets}")
    return [-(-p * buckets // npartitions) for p in range(npartitions)] + [buckets]


def _label(part: Any, seed: str, bits: int, offsets: list[int], lengths: list[int],
           partition_info: dict | None = None) -> Any:
    """Adds the label, global row number and index columns to one partition."""
    if partition_info is None:  # Dask asking for metadata
        start = 0
    else:
        number = partition_info["number"]
        if number >= len(lengths) or len(part) != lengths[number]:
            counted = lengths[number] if number < len(lengths) else 0
            raise RuntimeError(
                f"partition {number} has {len(part)} rows now but had {counted} "
                "when knuffle.dask.shuffle counted them: the input must give the same "
                "rows each time it is computed"
            )
        start = offsets[number]
    count = len(part)
    return part.assign(**{
        _LABEL: _knuffle.table_labels(seed, start, count),
        _ROW: np.arange(start, start + count, dtype=np.int64),
        _INDEX: part.index,
    })


def _finish(part: Any, seed: str, index_name: Any) -> Any:
    """Puts one output partition in its final order and drops the helpers."""
    labels = np.ascontiguousarray(part.index.to_numpy(dtype=np.int64))
    rows = np.ascontiguousarray(part[_ROW].to_numpy(dtype=np.int64))
    order = _knuffle.table_order_rows(seed, labels, rows)
    part = part.iloc[order]
    index = pd.Index(part[_INDEX].array, name=index_name)
    out = part.drop(columns=[_ROW, _INDEX])
    out.index = index
    return out


def _shuffle(ddf: Any, seed: str, npartitions: int | None, shuffle_method: str | None,
             bits: int) -> Any:
    import dask.dataframe as dd

    if not isinstance(seed, str):
        raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
    if _is_dask_array(ddf):
        return _shuffle_array(ddf, seed, npartitions, bits)
    if isinstance(ddf, dd.Series):
        name = ddf.name
        column = "__knuffle_series" if name is None else name
        frame = _shuffle(ddf.to_frame(name=column), seed, npartitions, shuffle_method, bits)
        return frame[column].rename(name)
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(
            "knuffle.dask.shuffle takes a Dask DataFrame, Series or Array, "
            f"not {type(ddf).__name__}"
        )
    npartitions = _check_partitions(npartitions, ddf.npartitions)
    taken = [c for c in _HELPERS if c in ddf.columns]
    if taken:
        raise ValueError(f"the input has columns named {taken}, which knuffle.dask uses")
    meta = ddf._meta

    lengths = [int(x) for x in ddf.map_partitions(len, meta=(None, "int64")).compute()]
    if len(lengths) != ddf.npartitions:
        raise RuntimeError(
            f"counted {len(lengths)} partitions but the input has {ddf.npartitions}: "
            "the input must give the same partitions each time it is computed"
        )
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])[:-1].tolist()

    labelled = ddf.map_partitions(
        _label, seed, bits, offsets, lengths,
        meta=_label(meta, seed, bits, [0], [0]),
    )
    moved = labelled.set_index(
        _LABEL, divisions=_divisions(npartitions, bits), shuffle_method=shuffle_method,
    )
    return moved.map_partitions(
        _finish, seed, meta.index.name, meta=meta, clear_divisions=True,
    )


def _is_dask_array(x: Any) -> bool:
    try:
        import dask.array as da
    except ImportError:  # dask without its array extra
        return False
    return isinstance(x, da.Array)


def _shuffle_array(x: Any, seed: str, npartitions: int | None, bits: int) -> Any:
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
    chunks = _check_partitions(npartitions, max(1, len(x.chunks[0])))
    order = _knuffle.table_order(seed, n)
    out = x[order]
    if n:
        out = out.rechunk({0: -(-n // chunks)})
    return out
