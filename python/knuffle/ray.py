"""`knuffle.ray`: an exactly uniform, reproducible global row shuffle on Ray
Data.

``knuffle.ray.shuffle(ds, seed)`` returns a Ray Dataset whose rows are all
of ``ds``'s rows in **the table order** (docs/table-order.md): the order
``knuffle table``, ``knuffle.dask.shuffle``, ``knuffle.spark.shuffle`` and
``knuffle.table_order`` give the same seed and the same row sequence. Every
one of the n! orders has probability exactly 1/n!, and the order does not
change with the input's blocks, ``num_blocks``, the number of workers or a
retried task. docs/ray.md has the steps, the guarantees and the cost.

The steps, as Ray tasks:

1. ``ds`` is executed with its row order preserved; its blocks' row counts
   (Ray's block metadata) and their prefix sums give every row its global
   row number;
2. one task per input block labels its rows (Rust, ChaCha20 word ``row``
   of the seed's stream) and cuts the block into ``num_blocks`` pieces,
   piece ``p`` holding the rows of the ``p``-th label range (one Rust
   counting sort, one gather of the columns);
3. one task per output block takes its pieces and puts them in the table
   order in one Rust call (a counting sort by label, each run of equal
   labels in row order, then shuffled with its bucket's generator).
"""

from __future__ import annotations

from typing import Any

from knuffle._engines import require

require("knuffle.ray", ("ray", "pyarrow"), "ray")

import numpy as np

from knuffle import _knuffle
from knuffle._engines import check_partitions, check_seed

__all__ = ["shuffle"]

_ROW = "__knuffle_row"
_LABEL = "__knuffle_label"
_HELPERS = (_ROW, _LABEL)


def shuffle(ds: Any, seed: str, num_blocks: int | None = None) -> Any:
    """All rows of the Ray Dataset ``ds`` in the table order of ``seed``.

    ``seed`` is any text (as ``knuffle --seed``). ``num_blocks`` is the
    number of output blocks (by default the input's); block ``p`` holds the
    ``p``-th of ``num_blocks`` equal label ranges, so the sizes follow the
    multinomial law, and reading the blocks in order (``iter_rows``,
    ``take_all``, ``write_parquet``) gives the order, whatever
    ``num_blocks`` is.

    Rows are numbered in ``ds``'s order, computed with Ray Data's
    ``preserve_order`` on (the order ``ds.take_all()`` gives with it): ``ds``
    must give the same rows in the same order each time it is computed, as
    a file read does. ``shuffle`` runs when it is called, as
    ``ds.materialize()`` does, and returns a materialized Dataset.
    """
    import ray
    from ray.data import Dataset

    check_seed(seed)
    if not isinstance(ds, Dataset):
        raise TypeError(f"knuffle.ray.shuffle takes a Ray Dataset, not {type(ds).__name__}")
    taken = [c for c in _HELPERS if c in (ds.columns(fetch_if_missing=False) or [])]
    if taken:
        raise ValueError(f"the input has columns named {taken}, which knuffle.ray uses")

    # 1. The input's blocks, in order, and their row counts.
    options = ds.context.execution_options
    preserve = options.preserve_order
    options.preserve_order = True
    try:
        entries = [
            entry for bundle in ds.iter_internal_ref_bundles() for entry in bundle.blocks
        ]
    finally:
        options.preserve_order = preserve
    blocks = [getattr(e, "ref", None) or e[0] for e in entries]
    counts = [getattr(getattr(e, "metadata", None) or e[1], "num_rows", None) for e in entries]
    if any(c is None for c in counts):
        counts = ray.get([_count.remote(b) for b in blocks])
    partitions = check_partitions(num_blocks, max(1, len(blocks)), "num_blocks")
    starts = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])[:-1].tolist()

    # 2. Label and cut each input block; 3. order each output block.
    cut = _cut.options(num_returns=partitions)
    pieces = [cut.remote(b, seed, int(s), partitions) for b, s in zip(blocks, starts)]
    if partitions == 1:
        pieces = [[p] for p in pieces]
    out = [_order.remote(seed, *[piece[p] for piece in pieces]) for p in range(partitions)]
    if not blocks:
        out = [ray.put(_empty(ds))]
    return ray.data.from_arrow_refs(out)


def _empty(ds: Any) -> Any:
    import pyarrow as pa

    schema = ds.schema(fetch_if_missing=False)
    arrow = getattr(schema, "base_schema", None)
    return arrow.empty_table() if isinstance(arrow, pa.Schema) else pa.table({})


def _arrow(block: Any) -> Any:
    from ray.data.block import BlockAccessor

    return BlockAccessor.for_block(block).to_arrow()


def _remote(function: Any) -> Any:
    import ray

    return ray.remote(function)


def _count_block(block: Any) -> int:
    return _arrow(block).num_rows


def _cut_block(block: Any, seed: str, start: int, partitions: int) -> Any:
    """The rows of one input block (global rows ``start..``) with their
    labels and row numbers, cut into one piece per output block (a stable
    counting sort by output block, in Rust)."""
    table = _arrow(block)
    positions, labels, bounds = _knuffle.table_cut(seed, start, table.num_rows, partitions)
    table = (
        table.take(positions)
        .append_column(_LABEL, [labels])
        .append_column(_ROW, [positions + start])
    )
    pieces = [table.slice(bounds[p], bounds[p + 1] - bounds[p]) for p in range(partitions)]
    return pieces[0] if partitions == 1 else tuple(pieces)


def _order_pieces(seed: str, *pieces: Any) -> Any:
    """One output block: its pieces from every input block, in the table
    order (the pieces' columns are gathered once, not joined first)."""
    import pyarrow as pa

    table = pa.concat_tables(pieces, promote_options="default")
    labels = np.ascontiguousarray(table.column(_LABEL).to_numpy())
    rows = np.ascontiguousarray(table.column(_ROW).to_numpy())
    order = _knuffle.table_order_partition(seed, labels, rows)
    return table.take(order).drop_columns(list(_HELPERS)).combine_chunks()


class _Lazy:
    """A Ray remote function made on first use (importing knuffle.ray does
    not import Ray)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.remote_function: Any = None

    def _get(self) -> Any:
        if self.remote_function is None:
            self.remote_function = _remote(self.function)
        return self.remote_function

    def remote(self, *args: Any) -> Any:
        return self._get().remote(*args)

    def options(self, **options: Any) -> Any:
        return self._get().options(**options)


_count = _Lazy(_count_block)
_cut = _Lazy(_cut_block)
_order = _Lazy(_order_pieces)
