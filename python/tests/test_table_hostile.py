"""knuffle.shuffle_table on hostile and unusual files (issue 40): every row
there and unchanged, or a ValueError naming the file (never a
PanicException, which `except Exception` does not catch), and no output
left behind. Every crafted file is made here."""

from __future__ import annotations

import importlib
import json
import struct

import pytest

import knuffle
from conftest import need


@pytest.fixture(scope="module")
def pa():
    return need("pyarrow")


def refused(tmp_path, path, expected: str) -> str:
    out = tmp_path / "out.csv"
    try:
        knuffle.shuffle_table(str(path), str(out), seed="h")
    except ValueError as error:
        message = str(error)
    else:
        pytest.fail(f"{path} was read")
    assert path.name in message, message
    assert expected in message, message
    assert not out.exists()
    return message


def test_an_unclosed_csv_quote_is_a_value_error_not_one_row(tmp_path):
    path = tmp_path / "uq.csv"
    path.write_text('id,a\n1,"unclosed\n2,b\n3,c\n')
    refused(tmp_path, path, "record 2 opens a quoted field that is never closed")


def test_tsv_values_keep_their_quotes(tmp_path):
    path = tmp_path / "in.tsv"
    path.write_text('id\tv\n0\t"quoted" text\n')
    out = tmp_path / "out.jsonl"
    knuffle.shuffle_table(str(path), str(out), seed="t")
    assert json.loads(out.read_text()) == {"id": "0", "v": '"quoted" text'}


def test_duplicate_column_names_are_refused(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("a,b,a\n1,2,3\n")
    refused(tmp_path, path, "appears twice")


def test_corrupt_parquet_footers_are_value_errors(tmp_path):
    # A footer whose schema root claims 2**31 - 1 children (the parquet
    # crate would reserve 17 GB for them).
    footer = bytes([0x15, 0x02, 0x19, 0x1C, 0x48, 0x04]) + b"root"
    footer += bytes([0x15, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x16, 0x00, 0x19, 0x0C, 0x00])
    path = tmp_path / "children.parquet"
    path.write_bytes(b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1")
    refused(tmp_path, path, "children")
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1" + bytes(range(256)) * 8 + struct.pack("<I", 100) + b"PAR1")
    refused(tmp_path, junk, "junk.parquet")


def test_feather_files_of_pyarrow_are_read(pa, tmp_path):
    feather = importlib.import_module("pyarrow.feather")
    table = pa.table({"id": list(range(1000)), "text": [f"row {i}" for i in range(1000)]})
    for compression in ("lz4", "zstd"):
        path = tmp_path / f"{compression}.feather"
        feather.write_feather(table, str(path), compression=compression)
        out = tmp_path / f"{compression}-out.parquet"
        report = knuffle.shuffle_table(str(path), str(out), seed="f")
        assert report.rows_out == 1000
        got = importlib.import_module("pyarrow.parquet").read_table(str(out))
        assert sorted(got.column("id").to_pylist()) == list(range(1000))


def test_time_zones_reach_csv_and_json_lines(pa, tmp_path):
    table = pa.table(
        {"at": pa.array([0, 3_600_000_000], pa.timestamp("us", tz="Europe/Paris"))}
    )
    path = tmp_path / "tz.arrow"
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    for out in ("out.csv", "out.jsonl"):
        knuffle.shuffle_table(str(path), str(tmp_path / out), seed="z")
        assert "+01:00" in (tmp_path / out).read_text()


def test_json_lines_keep_key_order_and_64_bit_integers(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"zeta": 18446744073709551615, "alpha": "x"}\n')
    out = tmp_path / "out.jsonl"
    knuffle.shuffle_table(str(path), str(out), seed="j")
    assert out.read_text() == '{"zeta":18446744073709551615,"alpha":"x"}\n'


def test_a_wide_parquet_file_beyond_the_memory_limit_is_a_memory_error(pa, tmp_path):
    # Parquet's column readers take about 10 KiB each, whatever the rows:
    # 10,000 columns do not fit in 50 MB (they took 100 MB).
    pq = importlib.import_module("pyarrow.parquet")
    table = pa.table({f"c{c}": [c % 10] * 4 for c in range(10_000)})
    path = tmp_path / "wide.parquet"
    pq.write_table(table, str(path))
    out = tmp_path / "out.csv"
    with pytest.raises(MemoryError, match=r"raise the memory limit \(memory=\)") as error:
        knuffle.shuffle_table(str(path), str(out), seed="w", memory="50M")
    assert "wide.parquet: 10000 columns" in str(error.value)
    # A limit that cannot hold the input is a value that does not suit it:
    # `except ValueError` catches it too.
    assert isinstance(error.value, knuffle.MemoryLimitError)
    assert isinstance(error.value, ValueError)
    assert not out.exists()
    knuffle.shuffle_table(str(path), str(out), seed="w")
    assert len(out.read_text().splitlines()) == 5
