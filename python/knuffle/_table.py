"""The table order (docs/table-order.md): ``table_order`` and ``shuffle_table``.

``shuffle_table`` has two faces with one order: on paths it is ``knuffle
table`` (the Rust engine ``knuffle_table``, out of core, the GIL released);
on a table in memory (pyarrow, polars, pandas, Hugging Face ``datasets``) it
gathers the rows by ``table_order(seed, n)``, which is the order the engine
gives a file of the same ``n`` rows.
"""

from __future__ import annotations

import operator
import os
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from knuffle import _knuffle
from knuffle._generator import Generator, _type_name
from knuffle._sampling import Path, _count, _paths


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


class TableReport(NamedTuple):
    """What ``shuffle_table`` did to files: the seed text used (without
    ``seed=`` a fresh 256-bit one, 64 hex digits, so that the run can be
    replayed, in Python or as ``knuffle table --seed``), the rows read, the
    rows written (fewer with ``count=``), and the bucket files the rows went
    through (0: they were shuffled in memory)."""

    seed: str
    rows_in: int
    rows_out: int
    buckets: int


#: What ``src`` may be, for the errors that say so.
_SOURCES = (
    "a path (str or os.PathLike: a file or a directory of shards), a list of paths, "
    "a pyarrow Table or RecordBatch, a polars DataFrame or Series, "
    "a pandas DataFrame or Series, or a datasets.Dataset"
)

#: The options that only files have.
_FILE_OPTIONS = (
    "memory",
    "shards",
    "rows_per_shard",
    "parts",
    "format",
    "output_format",
    "compression",
    "row_group_rows",
    "temp_dir",
    "infer_types",
    "partition_by",
)


def shuffle_table(
    src: Any,
    dst: Path | None = None,
    *,
    seed: str | None = None,
    memory: int | str | None = None,
    shards: int | None = None,
    rows_per_shard: int | None = None,
    parts: str | Sequence[int | float] | None = None,
    format: str | None = None,
    output_format: str | None = None,
    count: int | None = None,
    compression: str | None = None,
    row_group_rows: int | None = None,
    temp_dir: Path | None = None,
    infer_types: bool = False,
    partition_by: str | None = None,
) -> Any:
    """Shuffle the rows of a table in the table order of ``seed``: every
    order exactly equally likely, and the same order for the same seed and
    rows in ``knuffle table``, ``knuffle.dask``, ``knuffle.spark`` and
    ``knuffle.ray`` (docs/table-order.md).

    **Files.** With ``src`` a path (a file, or a directory of shards) or a
    list of paths, and ``dst`` a path, this is ``knuffle table SRC... -o DST``
    with the same options, byte for byte: Parquet, Arrow IPC (file and
    stream), CSV/TSV and JSON Lines, from the extension or ``format=``
    (``output_format=`` for ``dst``, default its extension, else the
    first input's; a ``dst`` extension of no format is an error). CSV/TSV
    and JSON Lines inputs compressed with gzip or zstd are read by their
    content (``t.csv.gz``, ``t.jsonl.zst``, in directories too), and a ``dst``
    ending in ``.gz`` or ``.zst`` is written compressed. All inputs need the
    same columns, matched by name (the first file's order), of types that
    convert without loss; a directory's ``key=value`` levels are Hive
    partitions, columns after the file's own. Tables larger than
    ``memory`` (bytes, or a size such as ``"200M"``, ``"4G"``, ``"25%"``;
    default 3/4 of the memory available) go through bucket files in
    ``temp_dir`` (default ``$TMPDIR`` or ``/tmp``); the order does not
    depend on ``memory``. ``shards=N`` or ``rows_per_shard=K`` write the
    directory ``dst`` (new or empty) of shards ``part-00000.EXT``, ...,
    each a contiguous run of the order. ``parts=[80, 10, 10]`` (or
    ``"80,10,10"``) with ``dst`` a list of paths, one per part, splits the
    order into runs of those exact sizes (``knuffle table --parts``: the
    largest remainder method), e.g. train, validation and test files: every
    split into parts of those sizes is equally likely. ``count=K`` writes the first K rows
    of the order (a uniform sample in random order). ``compression`` and
    ``row_group_rows`` set a Parquet output's (default: the first Parquet
    input's). ``infer_types=True`` types CSV/TSV columns from all their
    values (``knuffle table --infer-types``: Int64, Float64, Boolean,
    Date32 or Timestamp only when every value comes back as the same text;
    the inputs are read once more for it). ``partition_by="COL"`` writes the
    directory ``dst`` in a Hive layout, ``COL=VALUE/part-00000.EXT`` (as
    ``pyarrow.parquet.write_to_dataset(partition_cols=[COL])``), each
    value's rows in the table order, ``COL`` left out of the files and read
    back from the directory names. ``dst`` appears only once complete. The GIL is released for
    the run. Returns a :class:`TableReport` (the seed text used, rows in and
    out). Errors: ``ValueError`` for invalid options or data (a corrupt or
    truncated file, a schema mismatch naming both files, a ragged CSV row),
    ``OSError`` when a read or write fails (naming the file),
    ``knuffle.MemoryLimitError`` (a ``ValueError`` and a ``MemoryError``)
    for a table whose columns alone take more than ``memory`` allows,
    saying what to raise (a footer, record or message larger than it is a
    ``ValueError``, also saying so).

    **Tables in memory.** With ``src`` a pyarrow ``Table`` or
    ``RecordBatch``, a polars ``DataFrame`` or ``Series``, a pandas
    ``DataFrame`` or ``Series`` (the index moves with its rows) or a Hugging
    Face ``datasets.Dataset``, and no ``dst``, returns a new object of the
    same type with the rows in the order ``table_order(seed, n)``: the order
    the files' path gives a file of the same rows. A ``Dataset`` comes back
    with its rows stored in that order (no indices mapping, unlike
    ``Dataset.shuffle``), its features, split and format kept. ``count=K``
    keeps the first K rows of the order; the files' options do not apply.
    Without ``seed`` a fresh random seed is used (as ``Generator()``). A
    ``Dataset`` larger than memory goes through the files' path: its cache
    files are Arrow IPC streams (``[f["filename"] for f in ds.cache_files]``
    with ``format="arrows"``, to a ``.arrows`` file that
    ``datasets.Dataset.from_file`` reads back), in the same order.

    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> rows = pa.table({"id": list(range(6)), "name": list("abcdef")})
    >>> shuffled = knuffle.shuffle_table(rows, seed="friday")
    >>> shuffled["id"].to_pylist() == knuffle.table_order("friday", 6).tolist()
    True
    >>> d = tempfile.mkdtemp()
    >>> pq.write_table(rows, os.path.join(d, "rows.parquet"))
    >>> knuffle.shuffle_table(os.path.join(d, "rows.parquet"), os.path.join(d, "out.parquet"), seed="friday")
    TableReport(seed='friday', rows_in=6, rows_out=6, buckets=0)
    >>> pq.read_table(os.path.join(d, "out.parquet")).equals(shuffled)
    True
    """
    if seed is not None and not isinstance(seed, str):
        raise TypeError(f"seed= must be a str (any text), not {type(seed).__name__}")
    count = _count(count, "count")
    if isinstance(src, (list, tuple)):
        stray = next((item for item in src if not isinstance(item, (str, bytes, os.PathLike))), None)
        if stray is not None:
            raise TypeError(
                "shuffle_table: a list src is a list of table files (paths); this one "
                f"holds a {type(stray).__name__}. Values in memory: a pyarrow Table, a "
                "pandas or polars DataFrame, or knuffle.shuffle for a numpy array"
            )
    if isinstance(src, (str, bytes, os.PathLike, list, tuple)):
        if dst is None:
            raise TypeError(
                "shuffle_table: dst= is needed when src is a path (the output file, the "
                "shard directory with shards= or rows_per_shard=, or a list of files with parts=)"
            )
        inputs = _paths(src, "src")
        options = _file_options(
            seed=_seed(seed),
            memory=memory,
            shards=shards,
            rows_per_shard=rows_per_shard,
            parts=parts,
            format=format,
            output_format=output_format,
            count=count,
            compression=compression,
            row_group_rows=row_group_rows,
            temp_dir=temp_dir,
            infer_types=infer_types,
            partition_by=partition_by,
        )
        many = isinstance(dst, (list, tuple))
        try:
            outputs = [os.fsdecode(os.fspath(d)) for d in (dst if many else [dst])]
        except TypeError:
            raise TypeError(
                f"dst= must be a path (str or os.PathLike), or a list of paths with parts=, not {_type_name(dst)}"
            ) from None
        if many and options["parts"] is None:
            raise TypeError("shuffle_table: a list dst= (one path per part) needs parts=")
        rows_in, rows_out, buckets = _knuffle.shuffle_table_paths(inputs, outputs, options)
        return TableReport(options["seed"], rows_in, rows_out, buckets)

    shuffle = _in_memory(src)
    if dst is not None:
        raise TypeError(
            f"shuffle_table: dst= is for paths; a {_type_name(src)} is returned shuffled "
            "(write it yourself, or give the path of a file)"
        )
    given = {
        "memory": memory,
        "shards": shards,
        "rows_per_shard": rows_per_shard,
        "parts": parts,
        "format": format,
        "output_format": output_format,
        "compression": compression,
        "row_group_rows": row_group_rows,
        "temp_dir": temp_dir,
        "infer_types": infer_types or None,
        "partition_by": partition_by,
    }
    for name in _FILE_OPTIONS:
        if given[name] is not None:
            raise TypeError(
                f"shuffle_table: {name}= applies to files; a {_type_name(src)} takes seed= and count= only"
            )
    seed = _seed(seed)
    order = table_order(seed, _length(src))
    if count is not None:
        order = order[:count]
    return shuffle(src, order, seed, count)


def _seed(seed: str | None) -> str:
    """The seed text given, or a fresh 256-bit one (as ``Generator()``)."""
    return seed if seed is not None else Generator(None, threads=1).seed


def _at_least_one(value: Any, name: str) -> int | None:
    value = _count(value, name)
    if value is not None and value < 1:
        raise ValueError(f"{name}= must be at least 1, got {value}")
    return value


def _text(value: Any, name: str, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name}= must be a str ({what}), not {type(value).__name__}")
    return value


_FORMATS = "parquet, arrow, arrows, csv, tsv or jsonl"


def _parts(parts: Any) -> str | None:
    """``parts=`` as the command line's text: a str as it is, a sequence of
    numbers joined by commas, each written exactly (``0.1`` is ``"0.1"``)."""
    if parts is None or isinstance(parts, str):
        return parts
    if not isinstance(parts, (list, tuple)) or not all(
        isinstance(p, (int, float)) and not isinstance(p, bool) for p in parts
    ):
        raise TypeError(f"parts= must be a list of numbers (such as [80, 10, 10]) or a str, not {_type_name(parts)}")
    # A float's repr is its shortest exact decimal; one in scientific
    # notation is written out (the engine takes at most 18 decimals).
    return ",".join(f"{p:.18f}" if isinstance(p, float) and "e" in repr(p) else repr(p) for p in parts)


def _file_options(**given: Any) -> dict[str, Any]:
    """The options of ``knuffle._knuffle.shuffle_table_paths`` (every key),
    their types checked; their values are checked by the engine, as the
    command line's are."""
    temp_dir = given["temp_dir"]
    if temp_dir is not None:
        try:
            temp_dir = os.fsdecode(os.fspath(temp_dir))
        except TypeError:
            raise TypeError(f"temp_dir= must be a path (str or os.PathLike), not {_type_name(temp_dir)}") from None
    return {
        "seed": given["seed"],
        "memory": given["memory"],
        "shards": _at_least_one(given["shards"], "shards"),
        "rows_per_shard": _at_least_one(given["rows_per_shard"], "rows_per_shard"),
        "parts": _parts(given["parts"]),
        "format": _text(given["format"], "format", _FORMATS),
        "output_format": _text(given["output_format"], "output_format", _FORMATS),
        "count": given["count"],
        "compression": _text(given["compression"], "compression", "a Parquet codec such as 'zstd' or 'zstd(3)'"),
        "row_group_rows": _count(given["row_group_rows"], "row_group_rows"),
        "temp_dir": temp_dir,
        "infer_types": _flag(given["infer_types"], "infer_types"),
        "partition_by": _text(given["partition_by"], "partition_by", "a column name"),
    }


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}= must be True or False, not {_type_name(value)}")
    return value


# -- tables in memory ---------------------------------------------------------


def _in_memory(src: Any) -> Any:
    """The function that gathers the rows of ``src`` by an order, or a
    ``TypeError`` naming ``src`` and the accepted types."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(src, (pa.Table, pa.RecordBatch)):
        return _take_arrow
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(src, (pl.DataFrame, pl.Series)):
        return _take_polars
    if pl is not None and isinstance(src, pl.LazyFrame):
        raise TypeError("shuffle_table: cannot shuffle a polars LazyFrame: collect() it first (its length is not known)")
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(src, (pd.DataFrame, pd.Series)):
        return _take_pandas
    ds = sys.modules.get("datasets")
    if ds is not None and isinstance(src, ds.Dataset):
        return _take_dataset
    if ds is not None and isinstance(src, ds.IterableDataset):
        raise TypeError(
            "shuffle_table: cannot shuffle a datasets.IterableDataset (its length is not known): "
            "shuffle its files, or a Dataset"
        )
    if ds is not None and isinstance(src, ds.DatasetDict):
        raise TypeError("shuffle_table: shuffle each split of a DatasetDict (dd['train'], ...)")
    raise TypeError(f"shuffle_table: src must be {_SOURCES}, not {_type_name(src)}")


def _length(src: Any) -> int:
    return src.num_rows if hasattr(src, "num_rows") else len(src)


def _take_arrow(src: Any, order: np.ndarray, seed: str, count: int | None) -> Any:
    return src.take(order)


def _take_polars(src: Any, order: np.ndarray, seed: str, count: int | None) -> Any:
    return src[order]


def _take_pandas(src: Any, order: np.ndarray, seed: str, count: int | None) -> Any:
    return src.take(order)


def _take_dataset(src: Any, order: np.ndarray, seed: str, count: int | None) -> Any:
    """A new ``Dataset`` whose Arrow table holds the rows in ``order`` (the
    rows of ``src`` as it reads them, through its indices mapping if it has
    one), with ``src``'s features, split and format, and a fingerprint
    derived from ``src``'s, the seed and the count."""
    import datasets
    from datasets.fingerprint import update_fingerprint
    from datasets.table import InMemoryTable

    rows: Any = order
    if src._indices is not None:
        rows = src._indices.column(0).take(order)
    table = src.data.table.take(rows)
    fingerprint = update_fingerprint(src._fingerprint, "knuffle.shuffle_table", {"seed": seed, "count": count})
    out = datasets.Dataset(InMemoryTable(table), info=src.info, split=src.split, fingerprint=fingerprint)
    view = src.format
    if out.format != view:
        out.set_format(
            type=view["type"],
            columns=view["columns"],
            output_all_columns=view["output_all_columns"],
            **view["format_kwargs"],
        )
    return out


__all__: list[str] = ["TableReport", "shuffle_table", "table_order"]
