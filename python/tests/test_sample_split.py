"""sample_file and split_file: byte for byte the command line's
`knuffle sample` and `knuffle split` for the same seed, and clear errors."""

from __future__ import annotations

import subprocess
from fractions import Fraction

import pytest

import knuffle
from conftest import knuffle_cli


def cli(*args: str) -> bytes:
    return subprocess.run([knuffle_cli(), *args], check=True, capture_output=True).stdout


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A TSV table with a header: id, user, weight, text."""
    path = tmp_path_factory.mktemp("sample") / "t.tsv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id\tuser\tweight\ttext\n")
        for i in range(500):
            f.write(f"{i}\tu{i % 37}\t{1 + i % 5}\t{'x' * (i % 11)}\n")
    return path


@pytest.fixture(scope="module")
def csv_table(tmp_path_factory):
    """A CSV table whose quoted fields hold commas and newlines."""
    path = tmp_path_factory.mktemp("sample") / "t.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("id,user,note\r\n")
        for i in range(200):
            f.write(f'{i},u{i % 13},"line {i},\nsecond ""line"""\r\n')
    return path


SAMPLE_CASES = [
    ({"n": 10}, ["-n", "10"]),
    ({"n": 10, "inorder": True}, ["-n", "10", "--inorder"]),
    ({"p": "0.1"}, ["-p", "0.1"]),
    ({"p": 0.1}, ["-p", "0.1"]),
    ({"p": Fraction(1, 3)}, ["-p", "1/3"]),
    ({"weights": "weight", "n": 7}, ["-w", "weight", "-n", "7"]),
    ({"weights": 3, "n": 7, "inorder": True}, ["-w", "3", "-n", "7", "--inorder"]),
    ({"weights": "weight"}, ["-w", "weight"]),
    ({"replace": True, "n": 20}, ["-r", "-n", "20"]),
    ({"replace": True, "weights": "weight", "n": 20}, ["-r", "-w", "weight", "-n", "20"]),
    ({"key": "user", "p": "1/4"}, ["-k", "user", "-p", "1/4"]),
    ({"key": ["user", 3], "p": "0.5"}, ["-k", "user,3", "-p", "0.5"]),
    ({"key": "user", "per_key": 2}, ["-k", "user", "--per-key", "2"]),
    ({"p": "0.2", "print_random": True}, ["-p", "0.2", "--print-random"]),
    ({"weights": "weight", "gen_random_inorder": True}, ["-w", "weight", "--gen-random-inorder"]),
    ({}, []),
]


@pytest.mark.parametrize(("kwargs", "args"), SAMPLE_CASES)
def test_sample_file_is_the_command_lines_sample(table, tmp_path, kwargs, args):
    expected = cli("sample", "--header", "--seed", "py", *args, str(table))
    assert knuffle.sample_file(table, header=True, seed="py", **kwargs) == expected
    out = tmp_path / "out.tsv"
    assert knuffle.sample_file(table, out, header=True, seed="py", **kwargs) == "py"
    assert out.read_bytes() == expected


@pytest.fixture(scope="module")
def big_table(tmp_path_factory):
    """A TSV table of about 3 MB (60,000 rows): above memory="1M"."""
    path = tmp_path_factory.mktemp("sample") / "big.tsv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id\tweight\ttext\n")
        for i in range(60_000):
            weight = f"{1 + i % 9}.5" if i % 4 == 0 else str(1 + i % 9)
            f.write(f"{i}\t{weight}\t{'x' * (i % 23)}\n")
    return path


@pytest.mark.parametrize(
    ("kwargs", "args"),
    [
        ({}, []),
        ({"weights": "weight"}, ["-w", "weight"]),
        ({"weights": "weight", "print_random": True}, ["-w", "weight", "--print-random"]),
        ({"replace": True, "n": 2000}, ["-r", "-n", "2000"]),
        ({"replace": True, "weights": "weight", "n": 2000}, ["-r", "-w", "weight", "-n", "2000"]),
    ],
)
def test_inputs_larger_than_memory_give_the_command_lines_sample(big_table, tmp_path, kwargs, args):
    # The whole-input shuffles merge sorted runs from temporary files (in
    # temp_dir, left empty); -r reads the file twice: the command line's
    # bytes, and the same as with everything held.
    expected = cli("sample", "--header", "--seed", "big", "--memory", "1G", *args, str(big_table))
    temp = tmp_path / "temp"
    temp.mkdir()
    got = knuffle.sample_file(big_table, header=True, seed="big", memory="1M", temp_dir=temp, **kwargs)
    assert got == expected
    assert list(temp.iterdir()) == []
    small = cli("sample", "--header", "--seed", "big", "--memory", "1M", "-T", str(temp), *args, str(big_table))
    assert small == expected


def test_csv_records_with_quoted_newlines_match(csv_table, tmp_path):
    for kwargs, args in [({"n": 5}, ["-n", "5"]), ({"key": "user", "p": "1/2"}, ["-k", "user", "-p", "1/2"])]:
        expected = cli("sample", "--csv", "--header", "--seed", "c", *args, str(csv_table))
        assert knuffle.sample_file(csv_table, csv=True, header=True, seed="c", **kwargs) == expected


def test_a_fresh_seed_is_returned_and_replays(table, tmp_path):
    out = tmp_path / "a.tsv"
    seed = knuffle.sample_file(table, out, n=5)
    assert isinstance(seed, str) and len(seed) == 64
    assert knuffle.sample_file(table, n=5, seed=seed) == out.read_bytes()


@pytest.mark.parametrize(
    ("kwargs", "args"),
    [
        ({}, []),
        ({"key": "user"}, ["-k", "user"]),
    ],
)
def test_split_file_is_the_command_lines_split(table, tmp_path, kwargs, args):
    cli_outs = [tmp_path / f"cli{j}" for j in range(3)]
    py_outs = [tmp_path / f"py{j}" for j in range(3)]
    o = [a for path in cli_outs for a in ("-o", str(path))]
    cli("split", "--parts", "80,10,10", "--header", "--seed", "sp", *args, *o, str(table))
    assert knuffle.split_file(table, py_outs, [80, 10, 10], header=True, seed="sp", **kwargs) == "sp"
    for c, p in zip(cli_outs, py_outs):
        assert p.read_bytes() == c.read_bytes()
    knuffle.split_file(table, py_outs, "0.8,0.1,0.1", header=True, seed="sp", **kwargs)
    assert [p.read_bytes() for p in py_outs] == [c.read_bytes() for c in cli_outs], "shares are normalised"


def test_split_sizes_are_exact_and_the_header_heads_every_part(table, tmp_path):
    outs = [tmp_path / name for name in ("train", "valid", "test")]
    knuffle.split_file(table, outs, [0.8, 0.1, 0.1], header=True, seed="x")
    parts = [p.read_text().splitlines() for p in outs]
    assert [len(p) - 1 for p in parts] == [400, 50, 50]
    assert all(p[0] == "id\tuser\tweight\ttext" for p in parts)
    rows = sorted(row for p in parts for row in p[1:])
    assert rows == sorted(table.read_text().splitlines()[1:])


def test_bad_arguments_are_value_errors(table, tmp_path):
    for kwargs in [
        {"p": "1.5"},
        {"p": -0.1},
        {"p": "0.1", "n": 3},
        {"key": "user"},
        {"per_key": 2},
        {"replace": True},
        {"inorder": True},
        {"weights": "nosuchfield", "n": 2},
        {"delimiter": "ab"},
        {"memory": 1000},
    ]:
        with pytest.raises(ValueError):
            knuffle.sample_file(table, header=True, **kwargs)
    with pytest.raises(ValueError, match="field numbers count from 1"):
        knuffle.sample_file(table, weights=0, n=1)
    with pytest.raises(TypeError):
        knuffle.sample_file(table, n="3")
    outs = [tmp_path / "a", tmp_path / "b"]
    for parts in ["-1,2", "0,0", [1, 2, 3], "x"]:
        with pytest.raises(ValueError):
            knuffle.split_file(table, outs, parts)
    assert not any(p.exists() for p in outs)


@pytest.mark.parametrize(
    "kwargs, args, says",
    [
        # The engine's rules (the command line gives them to clap, which
        # words its own refusal; Python's words are the engine's).
        ({"p": "0.1", "n": 3}, ["-p", "0.1", "-n", "3"], "p= and n= cannot be combined"),
        ({"replace": True, "p": "0.5"}, ["-r", "-p", "0.5"],
         "replace=True and p= cannot be combined"),
        ({"print_random": True, "per_key": 1, "key": "1"},
         ["--print-random", "--per-key", "1", "-k", "1"],
         "print_random=True and per_key= cannot be combined"),
        ({"csv": True, "zero_terminated": True}, ["--csv", "-z"],
         "csv=True and zero_terminated=True cannot be combined"),
        ({"per_key": 2}, ["--per-key", "2"], "per_key= needs key="),
        ({"inorder": True}, ["--inorder"], "inorder=True needs n="),
        ({"key": "1"}, ["-k", "1"], "key= needs p= (distinct sampling) or per_key= (stratified)"),
        ({"n": 2, "print_random": True}, ["-n", "2", "--print-random"],
         "print_random=True needs a mode that gives each record a random value: p=, key= with "
         "p=, or weights= without replace=True (n=, replace=True and per_key= draw none per "
         "record)"),
    ],
)
def test_options_are_refused_by_the_command_lines_rules_in_pythons_names(
    table, kwargs, args, says
):
    with pytest.raises(ValueError) as error:
        knuffle.sample_file(table, **kwargs)
    assert str(error.value) == says
    cli = subprocess.run([knuffle_cli(), "sample", *args, str(table)], capture_output=True, text=True)
    assert cli.returncode == 2, cli.stderr


def test_a_sample_with_replacement_needs_n_before_its_values_are_read(table):
    # The rule of sample_file (a file cannot hold an endless sample) comes
    # before the options' values are parsed, as it always did.
    with pytest.raises(ValueError, match="replace=True needs n="):
        knuffle.sample_file(table, replace=True, weights="0")


def test_io_failures_are_os_errors(table, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.tsv"):
        knuffle.sample_file(tmp_path / "missing.tsv", n=1)
    kept = tmp_path / "kept.txt"
    kept.write_text("old\n")
    with pytest.raises(OSError, match="nodir"):
        knuffle.split_file(table, [kept, tmp_path / "nodir" / "x"], [1, 1])
    assert kept.read_text() == "old\n"
    with pytest.raises(OSError):
        knuffle.sample_file(tmp_path / "missing.tsv", kept, n=1)
    assert kept.read_text() == "old\n", "a failing run never truncates"


def test_docstring_examples_of_sample_and_split():
    import doctest

    import knuffle._sampling

    result = doctest.testmod(knuffle._sampling, extraglobs={"knuffle": knuffle})
    assert result.attempted > 0
    assert result.failed == 0


@pytest.fixture(scope="module")
def parquet_table(tmp_path_factory):
    """A Parquet table of 400 rows (int, str, float, a nullable str) and
    the CSV of its rows as knuffle writes it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path_factory.mktemp("tables")
    n = 400
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "user": [f"u{i * 7 % 11 % 7}" for i in range(n)],
            "w": [1.5 + i % 4 for i in range(n)],
            "note": [None if i % 3 == 0 else f"n{i}" for i in range(n)],
        }
    )
    pq.write_table(table, d / "t.parquet")
    cli("sample", "-p", "1", str(d / "t.parquet"), "-o", str(d / "t.csv"))
    return d / "t.parquet", d / "t.csv", table


TABLE_SAMPLES = [
    ({"n": 9}, ["-n", "9"]),
    ({"n": 9, "inorder": True}, ["-n", "9", "--inorder"]),
    ({"p": "0.2"}, ["-p", "0.2"]),
    ({"key": "user", "p": "1/3"}, ["-k", "user", "-p", "1/3"]),
    ({"weights": "w", "n": 5}, ["-w", "w", "-n", "5"]),
    ({"weights": "w"}, ["-w", "w"]),
    ({"key": "user", "per_key": 2}, ["-k", "user", "--per-key", "2"]),
    ({}, []),
]


@pytest.mark.parametrize("kwargs,args", TABLE_SAMPLES)
def test_sample_file_samples_tables_as_the_command_line_and_the_csv_lines(
    parquet_table, tmp_path, kwargs, args
):
    import pyarrow.parquet as pq

    parquet, csv, table = parquet_table
    out = tmp_path / "s.parquet"
    assert knuffle.sample_file(parquet, out, seed="t", **kwargs) == "t"
    sample = pq.read_table(out)
    assert sample.schema == table.schema, "every column kept with its type"
    knuffle.sample_file(parquet, tmp_path / "s.csv", seed="t", **kwargs)
    cli("sample", "--seed", "t", *args, str(parquet), "-o", str(tmp_path / "cli.csv"))
    lines = cli("sample", "--seed", "t", *args, "--csv", "--header", str(csv))
    assert (tmp_path / "s.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes() == lines
    assert len(sample) == len(lines.splitlines()) - 1


@pytest.mark.parametrize("kwargs,args", [({}, []), ({"key": "user"}, ["-k", "user"])])
def test_split_file_splits_tables_as_the_command_line_and_the_csv_lines(
    parquet_table, tmp_path, kwargs, args
):
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet, csv, table = parquet_table
    parts = [tmp_path / f"{name}.parquet" for name in ("train", "valid", "test")]
    assert knuffle.split_file(parquet, parts, [80, 10, 10], seed="t", **kwargs) == "t"
    got = [pq.read_table(p) for p in parts]
    assert all(g.schema == table.schema for g in got)
    whole = pa.concat_tables(got).sort_by("id")
    assert whole.equals(table), "every row once, unchanged"
    if not kwargs:
        assert [len(g) for g in got] == [320, 40, 40]
    lines = [tmp_path / f"l{j}.csv" for j in range(3)]
    cli(
        "split", "--seed", "t", "--parts", "80,10,10", *args, "--csv", "--header", str(csv),
        *[a for p in lines for a in ("-o", str(p))],
    )
    as_csv = [tmp_path / f"p{j}.csv" for j in range(3)]
    knuffle.split_file(parquet, as_csv, "80,10,10", seed="t", **kwargs)
    assert [p.read_bytes() for p in as_csv] == [p.read_bytes() for p in lines]


def test_table_samples_and_splits_raise_what_the_line_functions_raise(parquet_table, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet, _, _ = parquet_table
    with pytest.raises(ValueError, match="give dst="):
        knuffle.sample_file(parquet, n=2)
    with pytest.raises(ValueError, match="replace=True is for records of text"):
        knuffle.sample_file(parquet, tmp_path / "o.parquet", n=2, replace=True)
    with pytest.raises(ValueError, match="delimiter= is for records of text"):
        knuffle.sample_file(parquet, tmp_path / "o.parquet", n=2, delimiter=",")
    with pytest.raises(ValueError, match="no column of that name"):
        knuffle.split_file(parquet, [tmp_path / "a.csv", tmp_path / "b.csv"], [1, 1], key="nope")
    with pytest.raises(ValueError, match="unknown table format"):
        knuffle.sample_file(parquet, tmp_path / "o.csv", n=2, format="xls")
    with pytest.raises(TypeError, match="format="):
        knuffle.sample_file(parquet, tmp_path / "o.csv", n=2, format=1)
    # A bad weight is a ValueError, more than `memory` a MemoryError, as
    # for records of text; nothing is written.
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"id": [0, 1], "w": [1.0, -2.0]}), bad)
    with pytest.raises(ValueError, match="row 2 of"):
        knuffle.sample_file(bad, tmp_path / "o.parquet", weights="w", n=1)
    big = tmp_path / "big.parquet"
    pq.write_table(pa.table({"id": range(200_000), "s": ["x" * 40] * 200_000}), big)
    with pytest.raises(knuffle.MemoryLimitError, match="memory limit") as error:
        knuffle.sample_file(big, tmp_path / "o.parquet", n=150_000, memory="1M")
    assert isinstance(error.value, MemoryError) and isinstance(error.value, ValueError)
    with pytest.raises(FileNotFoundError):
        knuffle.split_file(parquet, [tmp_path / "no" / "a.csv", tmp_path / "b.csv"], [1, 1])
    assert not (tmp_path / "o.parquet").exists() and not (tmp_path / "b.csv").exists()
    # format= makes a CSV input a table: every column by name.
    plain = tmp_path / "plain.csv"
    plain.write_text("id,user\n1,a\n2,b\n3,a\n")
    knuffle.sample_file(plain, tmp_path / "k.parquet", key="user", per_key=1, format="csv", seed="s")
    assert pq.read_table(tmp_path / "k.parquet").column_names == ["id", "user"]


def test_bzip2_and_xz_are_refused_naming_what_reads_them(tmp_path):
    import bz2
    import lzma

    xz = tmp_path / "app.log.xz"
    xz.write_bytes(lzma.compress(b"one\ntwo\nthree\n"))
    bzip2 = tmp_path / "app.log.bz2"
    bzip2.write_bytes(bz2.compress(b"one\ntwo\nthree\n"))
    outputs = [tmp_path / name for name in ("tr.txt", "va.txt", "te.txt")]
    for src, says in (
        (xz, "is xz-compressed.*xz -dc"),
        (bzip2, "is bzip2-compressed.*bzip2 -dc"),
    ):
        with pytest.raises(ValueError, match=says):
            knuffle.split_file(src, outputs, [80, 10, 10], seed="1")
        with pytest.raises(ValueError, match=says):
            knuffle.sample_file(src, tmp_path / "sample.txt", n=2, seed="1")
        assert not any(path.exists() for path in outputs)
        assert not (tmp_path / "sample.txt").exists()


def zstd_compress(data: bytes) -> bytes:
    """`data` as a zstd frame written by pyarrow (Arrow's zstd codec)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


def test_gzip_and_zstd_are_read_as_the_plain_records(tmp_path):
    import gzip

    text = "".join(f"{i}\tname {i}\n" for i in range(3000)).encode()
    (tmp_path / "plain.tsv").write_bytes(text)
    # Concatenated gzip members are one stream; a name does not decide.
    (tmp_path / "in.tsv.gz").write_bytes(gzip.compress(text[:1000]) + gzip.compress(text[1000:]))
    (tmp_path / "in.tsv.zst").write_bytes(zstd_compress(text))
    (tmp_path / "misnamed.tsv").write_bytes(gzip.compress(text))
    plain_sample = knuffle.sample_file(tmp_path / "plain.tsv", n=25, seed="c")
    outputs = [tmp_path / name for name in ("a.tsv", "b.tsv")]
    knuffle.split_file(tmp_path / "plain.tsv", outputs, [70, 30], seed="c")
    plain_parts = [path.read_bytes() for path in outputs]
    assert sum(len(part) for part in plain_parts) == len(text)
    for name in ("in.tsv.gz", "in.tsv.zst", "misnamed.tsv"):
        assert knuffle.sample_file(tmp_path / name, n=25, seed="c") == plain_sample, name
        knuffle.split_file(tmp_path / name, outputs, [70, 30], seed="c")
        assert [path.read_bytes() for path in outputs] == plain_parts, name
    # The command line reads them the same way.
    cli = subprocess.run(
        [knuffle_cli(), "sample", "-n", "25", "--seed", "c", tmp_path / "in.tsv.zst"],
        check=True,
        capture_output=True,
    )
    assert cli.stdout == plain_sample


def test_a_truncated_stream_is_a_value_error_naming_the_file_and_leaves_no_output(tmp_path):
    import gzip

    text = "".join(f"line {i}\n" for i in range(5000)).encode()
    packed = {"cut.txt.gz": gzip.compress(text), "cut.txt.zst": zstd_compress(text)}
    for name, data in packed.items():
        (tmp_path / name).write_bytes(data[: len(data) * 2 // 3])
        with pytest.raises(ValueError, match=f"{name}.*corrupt or truncated"):
            knuffle.sample_file(tmp_path / name, tmp_path / "sample.txt", n=3, seed="t")
        outputs = [tmp_path / "p0", tmp_path / "p1"]
        with pytest.raises(ValueError, match="corrupt or truncated"):
            knuffle.split_file(tmp_path / name, outputs, [50, 50], seed="t")
        assert not any(path.exists() for path in [*outputs, tmp_path / "sample.txt"])
