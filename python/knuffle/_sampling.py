"""`knuffle.sample_file` and `knuffle.split_file`: the command line's
``knuffle sample`` and ``knuffle split`` as functions, on records of text
and on tables (the same bytes for the same seed; the engines are the ones
the command line runs, with the GIL released)."""

from __future__ import annotations

import decimal
import fractions
import numbers
import os
from typing import Any, Sequence

from knuffle import _knuffle

Path = str | os.PathLike[str]
Field = int | str


def _paths(inputs: Any, what: str) -> list[str]:
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    try:
        paths = [os.fsdecode(os.fspath(p)) for p in inputs]
    except TypeError:
        raise TypeError(f"{what} must be a path (str or os.PathLike) or a list of paths") from None
    if not paths:
        raise ValueError(f"no {what} given")
    return paths


def _count(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}= must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name}= must be non-negative, got {value}")
    if value >= 1 << 64:
        raise ValueError(f"{name}= must be below 2**64, got {value}")
    return int(value)


def _decimal(value: Any, name: str) -> str:
    """A number as the command line's text: an int, a float as the shortest
    decimal that reads back as it (0.1 is 1/10, as "0.1" on the command line),
    a Fraction as a/b, a str as it is."""
    if isinstance(value, bool):
        raise TypeError(f"{name}= takes a number or a string, not bool")
    if isinstance(value, str):
        return value
    if isinstance(value, fractions.Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{name}= must be finite, got {value}")
        return format(decimal.Decimal(repr(value)), "f")
    raise TypeError(f"{name}= takes a number or a string, not {type(value).__name__}")


def _field(value: Any, name: str) -> str | None:
    """A field: its number from 1 (int) or its header name (str)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name}= takes a field number (from 1) or a header name, not bool")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"{name}= field numbers count from 1, got {value}")
        return str(int(value))
    if isinstance(value, str):
        return value
    raise TypeError(f"{name}= takes a field number (from 1) or a header name")


def _format(value: Any, name: str) -> str | None:
    """A table format's name (``"parquet"``, ``"csv"``, ...), or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name}= must be a str naming a table format, such as 'parquet'")
    return value


def _fields(value: Any, name: str) -> str | None:
    """Key fields: one field, or a list of them (or a comma-separated str)."""
    if value is None or isinstance(value, (str, numbers.Integral)):
        return _field(value, name)
    fields = [_field(v, name) for v in value]
    if not fields:
        raise ValueError(f"{name}= needs at least one field")
    return ",".join(f for f in fields if f is not None)


def sample_file(
    src: Path | Sequence[Path],
    dst: Path | None = None,
    *,
    n: int | None = None,
    p: float | str | fractions.Fraction | None = None,
    weights: Field | None = None,
    replace: bool = False,
    key: Field | Sequence[Field] | None = None,
    per_key: int | None = None,
    inorder: bool = False,
    header: bool = False,
    delimiter: str | None = None,
    csv: bool = False,
    zero_terminated: bool = False,
    skip_bad_weights: bool = False,
    print_random: bool = False,
    gen_random_inorder: bool = False,
    seed: str | None = None,
    memory: int | str | None = None,
    temp_dir: Path | None = None,
    format: str | None = None,
    output_format: str | None = None,
) -> str | bytes:
    """Sample the records of ``src`` (a path or a list of paths, read as one
    sequence of records) as ``knuffle sample`` does: byte for byte what
    ``knuffle sample --seed SEED ...`` writes for the same options.

    Modes (their laws as in ``knuffle sample --help`` and docs/sample.md):
    ``n=K`` a simple random sample (every K-set equally likely; with
    ``inorder=True`` in input order); ``p=P`` Bernoulli, each record with
    probability exactly P (a str such as ``"1/3"`` or ``"0.001"``, a
    ``Fraction``, or a float read as its shortest decimal: ``0.1`` is 1/10);
    ``weights=FIELD`` (with or without ``n``) successive sampling by weight;
    ``replace=True`` with ``n`` draws with replacement (uniform or by
    ``weights``); ``key=FIELDS`` with ``p`` distinct sampling by key;
    ``key=FIELDS`` with ``per_key=N`` stratified. No mode: a shuffle.
    Fields are numbers from 1 or, with ``header=True``, header names; key
    fields a list or a comma-separated str. ``delimiter`` is one character
    (default TAB, or a comma with ``csv=True``); ``csv=True`` reads RFC 4180
    records; ``zero_terminated=True`` NUL-ended ones. A gzip or zstd input
    is read decompressed (its first bytes say, whatever its name).

    Memory: the shuffles of every record (no mode, or ``weights`` without
    ``n``) and ``replace=True`` with ``n`` work on inputs of any size within
    ``memory``: beyond it the shuffles sort runs of records into nameless
    temporary files in ``temp_dir`` (default ``$TMPDIR`` or ``/tmp``) and
    merge them, with the same output for the same seed whatever ``memory``
    is; the modes that hold their sample (``n``, ``per_key``) raise
    ``knuffle.MemoryLimitError`` (a ``MemoryError``) when it would exceed
    ``memory``.

    With ``dst`` the sample is written there (replaced only once complete; a
    failing run leaves it as it was) and the seed text used is returned
    (without ``seed``, a fresh 256-bit one, so that the run can be replayed).
    Without ``dst`` the sample is returned as ``bytes``.

    **Tables.** When an input is a Parquet or Arrow file (told by its first
    bytes) or a directory of shards, or ``format=`` or ``output_format=`` is
    given, or ``dst`` names a Parquet or Arrow file, the rows of the tables
    are sampled as ``knuffle sample`` samples them (Parquet, Arrow, CSV,
    TSV, JSON Lines, Hive folders): the same modes but ``replace``, the same
    laws and the same decisions (a table and the CSV of its rows give the
    same sample for a seed), written to ``dst`` (required) as a table,
    every column kept with its type. ``key`` and ``weights`` name columns
    (or number them from 1). ``delimiter`` and ``zero_terminated`` are for
    records of text.

    Errors: ``ValueError`` (bad options or data, such as a bad weight),
    ``OSError`` (naming the file), ``knuffle.MemoryLimitError`` (over
    ``memory``; a ``MemoryError`` and a ``ValueError``).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> path = os.path.join(d, "in.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(f"{i}\\n" for i in range(100)))
    >>> len(knuffle.sample_file(path, n=5, seed="s").split())
    5
    """
    options = {
        "n": _count(n, "n"),
        "p": None if p is None else _decimal(p, "p"),
        "weights": _field(weights, "weights"),
        "replace": bool(replace),
        "key": _fields(key, "key"),
        "per_key": _count(per_key, "per_key"),
        "inorder": bool(inorder),
        "header": bool(header),
        "delimiter": delimiter,
        "csv": bool(csv),
        "zero_terminated": bool(zero_terminated),
        "skip_bad_weights": bool(skip_bad_weights),
        "print_random": bool(print_random),
        "gen_random_inorder": bool(gen_random_inorder),
        "seed": seed,
        "memory": memory,
        "temp_dir": None if temp_dir is None else os.fsdecode(os.fspath(temp_dir)),
        "format": _format(format, "format"),
        "output_format": _format(output_format, "output_format"),
    }
    if delimiter is not None and not isinstance(delimiter, str):
        raise TypeError("delimiter= must be a str of one character")
    if seed is not None and not isinstance(seed, str):
        raise TypeError("seed= must be a str")
    output = None if dst is None else os.fsdecode(os.fspath(dst))
    used, data = _knuffle.sample_paths(_paths(src, "input"), output, options)
    return used if dst is not None else data


def split_file(
    src: Path | Sequence[Path],
    dsts: Sequence[Path],
    parts: str | Sequence[float | int | str],
    *,
    key: Field | Sequence[Field] | None = None,
    header: bool = False,
    delimiter: str | None = None,
    csv: bool = False,
    zero_terminated: bool = False,
    seed: str | None = None,
    memory: int | str | None = None,
    temp_dir: Path | None = None,
    format: str | None = None,
    output_format: str | None = None,
) -> str:
    """Split the records of ``src`` into the files ``dsts``, one per part,
    as ``knuffle split --parts PARTS -o DST ...`` does (byte for byte, for
    the same seed). ``parts`` are the shares (``[80, 10, 10]``,
    ``[0.8, 0.1, 0.1]`` or ``"80,10,10"``; normalised, each at least 0).

    By default the part sizes are exact (floors of the shares of N, the
    records left over to the largest remainders, ties to the earlier part)
    and the assignment is uniformly random among all with those sizes;
    records keep their input order within a part. With ``key`` all records
    of a key go to one part, chosen by a keyed hash of the seed and the key
    (the same in every run and file; sizes then only approximately the
    shares). With ``header=True`` the header heads every part. A gzip or
    zstd input is read decompressed. Returns the seed text used. Every
    output is replaced only once complete.

    **Tables.** When an input is a Parquet or Arrow file or a directory of
    shards, or ``format=`` or ``output_format=`` is given, or an output
    names a Parquet or Arrow file, the rows of the tables are split as
    ``knuffle split`` splits them: the same laws and decisions (a table and
    the CSV of its rows are split alike for a seed), each part a table of
    one format (``output_format=``, else the first output's extension),
    every column kept with its type, rows in input order. ``key`` names
    columns. An exact split reads its inputs twice: they must be files.

    Errors: ``ValueError`` (bad parts, the wrong number of outputs, bad
    fields), ``OSError`` (naming the file or missing directory).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> path = os.path.join(d, "in.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(f"{i}\\n" for i in range(10)))
    >>> outs = [os.path.join(d, name) for name in ("train", "valid", "test")]
    >>> knuffle.split_file(path, outs, [80, 10, 10], seed="s")
    's'
    >>> [len(open(o).read().split()) for o in outs]
    [8, 1, 1]
    """
    if isinstance(parts, str):
        shares = parts
    else:
        shares = ",".join(_decimal(share, "parts") for share in parts)
    if seed is not None and not isinstance(seed, str):
        raise TypeError("seed= must be a str")
    if delimiter is not None and not isinstance(delimiter, str):
        raise TypeError("delimiter= must be a str of one character")
    options = {
        "parts": shares,
        "key": _fields(key, "key"),
        "header": bool(header),
        "delimiter": delimiter,
        "csv": bool(csv),
        "zero_terminated": bool(zero_terminated),
        "seed": seed,
        "memory": memory,
        "temp_dir": None if temp_dir is None else os.fsdecode(os.fspath(temp_dir)),
        "format": _format(format, "format"),
        "output_format": _format(output_format, "output_format"),
    }
    if isinstance(dsts, (str, bytes, os.PathLike)):
        raise TypeError("dsts= must be a list of paths, one per part")
    outputs = _paths(dsts, "output")
    return str(_knuffle.split_paths(_paths(src, "input"), outputs, options))
