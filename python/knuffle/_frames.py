"""Putting the rows of a data frame in one given order (``shuffle_frame``).

The order is drawn once by the caller (``permutation(len(df))``); the
columns are gathered in Rust (the core library's ``knuffle::gather``
through python/src/frame.rs, GIL released, on the generator's threads) where their memory layout allows: numpy-backed columns
of 1 to 16-byte items, and Arrow string, binary, boolean and fixed-width
numeric arrays (values, offsets and validity bitmaps); pandas' arrays that
keep their values in numpy (categorical codes, datetimes with a time zone,
periods, the nullable integer, float and boolean arrays' values and mask)
through the same gathers; columns of Python objects (``object``, and the
Python storage of ``string``) in Rust with the GIL held (python/src/
frame_objects.rs). Every other column uses its own library's take. The
result equals ``df.iloc[order]`` (pandas) and ``table.take(order)``
(pyarrow): same dtypes, names, index and attrs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from knuffle import _knuffle

# Frames of fewer rows go through iloc or take (the same result): each column costs
# about 30 µs of Python here, which iloc's gather of whole 2-D blocks does not
# pay (1000 float columns of 100 rows: 27 ms here, 0.1 ms by iloc; BENCHMARKS.md).
_MIN_ROWS = 1 << 16

# Frames of more columns and none backed by Arrow go through iloc (see take_pandas).
_MAX_NUMPY_COLUMNS = 8

# numpy kinds gathered in Rust: bool, signed, unsigned, float, complex,
# timedelta64, datetime64 (object columns hold references: numpy's take).
_FIXED_KINDS = "biufcmM"


class _Fixed:
    """Fixed-width columns waiting for one Rust call."""

    def __init__(self, order: np.ndarray, threads: int) -> None:
        self.order, self.threads = order, threads
        self.sources: list[np.ndarray] = []
        self.outputs: list[np.ndarray] = []

    def add(self, source: np.ndarray) -> np.ndarray:
        """The array that will hold ``source`` gathered, after ``run``."""
        out = np.empty(len(self.order), dtype=source.dtype)
        self.sources.append(source)
        self.outputs.append(out)
        return out

    def run(self) -> None:
        if self.sources:
            _knuffle.frame_gather_fixed(self.order, self.sources, self.outputs, self.threads)


class _Later:
    """A column made from arrays that ``_Fixed.run`` fills: built after it."""

    def __init__(self, build: Any) -> None:
        self.build = build


def _built(column: Any) -> Any:
    return column.build() if isinstance(column, _Later) else column


def take_pandas(pd: Any, df: Any, order: np.ndarray, threads: int) -> Any:
    """``df.iloc[order]`` for a pandas DataFrame or Series."""
    series = type(df) is pd.Series
    if len(df) < _MIN_ROWS or not series and (type(df) is not pd.DataFrame or df.shape[1] == 0):
        return df.iloc[order]  # subclasses keep their own take; no columns: nothing to gather
    columns = [df] if series else [df.iloc[:, j] for j in range(df.shape[1])]
    if not series and (
        any(_strided(column) for column in columns)
        or len(columns) > _MAX_NUMPY_COLUMNS and not any(_arrow_backed(pd, column) for column in columns)
    ):
        # Columns of a 2-D block (a frame made from a row-major 2-D array): iloc
        # gathers whole rows of the block, a few cache lines each, where a
        # column gather reads a cache line per item. And many numpy columns
        # of one dtype, gathered one by one, are stacked into one block again
        # by the DataFrame's constructor (a copy): level with iloc from 10
        # such columns (BENCHMARKS.md). The Arrow columns are what iloc
        # gathers slowly.
        return df.iloc[order]
    fixed = _Fixed(order, threads)
    gathered = [_pandas_column(pd, column, order, threads, fixed) for column in columns]
    fixed.run()
    gathered = [_built(g) for g in gathered]
    index = _taken_index(pd, df.index, order)
    if series:
        dtype = object if df.dtype == object else None
        out = pd.Series(gathered[0], index=index, name=df.name, dtype=dtype, copy=False)
    else:
        # A bare object array would be read as strings: those go in as Series.
        gathered = [
            pd.Series(g, dtype=object, copy=False) if c.dtype == object else g for c, g in zip(columns, gathered)
        ]
        out = pd.DataFrame(dict(enumerate(gathered)), copy=False)
        out.index = index
        out.columns = df.columns
    return out.__finalize__(df, method="take")  # attrs and flags, as iloc


def _taken_index(pd: Any, index: Any, order: np.ndarray) -> Any:
    """``index.take(order)``. A RangeIndex's is its values at ``order``, by
    arithmetic (pandas checks and converts: 34 ms of 405 for a 10^7-row
    frame); pandas makes a RangeIndex again when those values are evenly
    spaced, and then so does ``take``."""
    if type(index) is not pd.RangeIndex or len(order) < 3 or order[1] - order[0] == order[-1] - order[-2]:
        return index.take(order)
    start, step = index.start, index.step
    values = order if (start, step) == (0, 1) else start + step * order
    return pd.Index(values, dtype=np.int64, name=index.name, copy=False)


def _arrow_backed(pd: Any, column: Any) -> bool:
    return isinstance(column.array, pd.arrays.ArrowExtensionArray)


def _numpy_source(column: Any) -> Any:
    """The column's numpy array (no copy) when the Rust gather takes it:
    1-D, of a fixed-width kind; else None."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in _FIXED_KINDS:
        source = column.to_numpy(copy=False)
        if source.dtype == dtype and source.ndim == 1:
            return source
    return None


def _strided(column: Any) -> bool:
    source = _numpy_source(column)
    return source is not None and len(source) > 1 and source.strides[0] != source.itemsize


def _pandas_column(pd: Any, column: Any, order: np.ndarray, threads: int, fixed: _Fixed) -> Any:
    source = _numpy_source(column)
    if source is not None:
        return fixed.add(source)
    dtype = column.dtype
    values = column.array
    kind = type(values)
    if kind in _numpy_backed(pd):
        backing = values._ndarray
        if backing.ndim == 1 and backing.dtype == object:
            return values._from_backing_data(_knuffle.frame_gather_objects(order, backing, threads))
        if backing.ndim == 1 and backing.dtype.kind in _FIXED_KINDS:
            out = fixed.add(backing)
            return _Later(lambda: values._from_backing_data(out))
    if kind in _masked(pd):
        data, mask = values._data, values._mask
        if data.ndim == 1 and data.dtype.kind in _FIXED_KINDS and mask.shape == data.shape:
            data_out, mask_out = fixed.add(data), fixed.add(mask)
            return _Later(lambda: kind(data_out, mask_out, copy=False))
    if type(values) in (pd.arrays.ArrowStringArray, pd.arrays.ArrowExtensionArray):
        pa = _pyarrow()
        taken = take_arrow_array(pa, values.__arrow_array__(), order, threads)
        if taken is not None:
            chunked = pa.chunked_array([taken], type=taken.type)
            if type(values) is pd.arrays.ArrowStringArray:
                return pd.arrays.ArrowStringArray(chunked, dtype=dtype)
            return pd.arrays.ArrowExtensionArray(chunked)
    return values.take(order)  # what iloc does for every other column


def _numpy_backed(pd: Any) -> tuple[type, ...]:
    """pandas' arrays whose values are one numpy array (``_ndarray``), rebuilt
    around a gathered copy by ``_from_backing_data`` with the same dtype:
    categorical codes, datetimes (with a time zone: naive ones are numpy
    columns), timedeltas, periods, and numpy object arrays (``object``
    columns, the Python storage of ``string``). Only these exact types:
    a subclass keeps its own take."""
    a = pd.arrays
    return (a.Categorical, a.DatetimeArray, a.TimedeltaArray, a.PeriodArray, a.StringArray,
            a.NumpyExtensionArray)


def _masked(pd: Any) -> tuple[type, ...]:
    """pandas' nullable arrays: values and a boolean mask (``_data``, ``_mask``),
    rebuilt by their public constructor ``Array(values, mask)``."""
    a = pd.arrays
    return (a.IntegerArray, a.FloatingArray, a.BooleanArray)


def _pyarrow() -> Any:
    import pyarrow

    return pyarrow


def take_arrow_array(pa: Any, array: Any, order: np.ndarray, threads: int) -> Any:
    """``array.take(order)`` gathered in Rust for string, binary, boolean
    and fixed-width numeric arrays (chunked arrays are combined first);
    None for any other type."""
    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 1:
            array = array.chunk(0)
        else:
            try:
                array = array.combine_chunks()
            except pa.ArrowInvalid:  # more than 32-bit offsets can address: take handles it
                return None
    kind = array.type
    n = len(array)
    if n == 0 or pa.types.is_dictionary(kind) or isinstance(kind, pa.ExtensionType):
        return None
    buffers = array.buffers()
    start = array.offset
    if pa.types.is_string(kind) or pa.types.is_binary(kind):
        offset_type = np.int32
    elif pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
        offset_type = np.int64
    else:
        offset_type = None
    if offset_type is not None:
        offsets = np.frombuffer(buffers[1], dtype=offset_type)[start : start + n + 1]
        data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.empty(0, np.uint8)
        new_offsets, new_data = _knuffle.frame_gather_varlen(order, offsets, data, threads)
        values = [pa.py_buffer(new_offsets), pa.py_buffer(new_data)]
    elif pa.types.is_boolean(kind):
        bits = np.frombuffer(buffers[1], dtype=np.uint8)
        values = [pa.py_buffer(_knuffle.frame_gather_bits(order, bits, start, n, threads))]
    elif _fixed_width(pa, kind) and len(buffers) == 2:
        width = kind.bit_width // 8
        source = np.frombuffer(buffers[1], dtype=np.uint8)[start * width : (start + n) * width].view(f"V{width}")
        fixed = _Fixed(order, threads)
        out = fixed.add(source)
        fixed.run()
        values = [pa.py_buffer(out)]
    else:
        return None
    validity = None
    if array.null_count:
        bits = np.frombuffer(buffers[0], dtype=np.uint8)
        validity = pa.py_buffer(_knuffle.frame_gather_bits(order, bits, start, n, threads))
    return pa.Array.from_buffers(kind, len(order), [validity, *values], null_count=array.null_count)


def _fixed_width(pa: Any, kind: Any) -> bool:
    t = pa.types
    if not (t.is_integer(kind) or t.is_floating(kind) or t.is_timestamp(kind) or t.is_date(kind)
            or t.is_time(kind) or t.is_duration(kind) or t.is_decimal128(kind)):
        return False
    return kind.bit_width in (8, 16, 32, 64, 128)


def take_arrow(pa: Any, table: Any, order: np.ndarray, threads: int) -> Any:
    """``table.take(order)`` for a pyarrow Table or RecordBatch."""
    if table.num_rows < _MIN_ROWS:
        return table.take(order)  # as pandas' small frames: the per-column cost outweighs the gather
    columns = []
    for column in table.columns:
        taken = take_arrow_array(pa, column, order, threads)
        columns.append(column.take(order) if taken is None else taken)
    if isinstance(table, pa.RecordBatch):
        return pa.RecordBatch.from_arrays(
            [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in columns], schema=table.schema
        )
    return pa.Table.from_arrays(columns, schema=table.schema)
