"""knuffle.spark's JVM component (the Java sources in knuffle/_jvm, compiled
on first use): its labels are the Rust reference's at any row number, its
keys carry the places of the tied rows, the jar is compiled once and reused,
and where it cannot be compiled knuffle.spark computes the same keys in
Python (with a warning when a javac fails)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import warnings

import numpy as np
import pytest
from conftest import require

import knuffle
import knuffle.spark
from knuffle import _knuffle, _spark_jvm

# PySpark 4.3 warns that it does not fully support pandas 3.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

NONE = np.zeros(0, dtype=np.int64)


def keys_of(spark, rows, seed: str, tied=NONE, places=NONE, place_bits: int = 0) -> np.ndarray:
    """The component's keys of the row numbers ``rows``, in their order."""
    df = spark.createDataFrame([(int(r), i) for i, r in enumerate(rows)], "r bigint, i int")
    out = _spark_jvm.with_sort_keys(df, "k", "r", seed, tied, places, place_bits)
    require(out is not None, "no javac: the JVM component is not built")
    got = sorted((row["i"], row["k"]) for row in out.collect())
    return np.array([k for _, k in got], dtype=np.int64)


def test_the_component_is_compiled_here(spark):
    # The test command's JDK has a javac: the keys must come from the JVM,
    # or the tests of knuffle.spark would try the Python fallback only.
    require(_spark_jvm._jar(spark.sparkContext) is not None, "no javac: the JVM component is not built")


def test_labels_are_the_reference_at_any_row_number(spark):
    rng = np.random.default_rng(7)
    rows = np.concatenate([
        [0, 1, 15, 16, 17, 1_000_000, 2**32 - 1, 2**32, 2**40 + 5, 2**62 + 3, 2**63 - 1],
        rng.integers(0, 2**63 - 1, 200, dtype=np.int64),
        np.arange(5000, 5100),  # consecutive rows: one block serves 16
    ]).astype(np.int64)
    for seed in ("friday poker", "", "ünïcode ✓"):
        got = keys_of(spark, rows, seed)
        assert (got == _knuffle.table_labels_at(seed, rows).astype(np.int64)).all(), seed
    # The test vectors of docs/table-order.md.
    assert keys_of(spark, range(6), "friday poker").tolist() == [
        2519465350, 1516506482, 2360106229, 2197290069, 359571723, 3355490449
    ]


def test_keys_carry_the_places_of_the_tied_rows(spark):
    # Any list of rows with places: the listed rows get label << 31 | place,
    # every other row label << 31 (the filter in front of the search lets
    # none through wrongly, and misses none).
    n = 20_000
    rows = np.arange(n, dtype=np.int64)
    # 6,668 tied rows: the filter grows past its smallest size (4,096 rows).
    tied = np.concatenate([np.arange(3, n, 3), [2**40]]).astype(np.int64)
    places = np.arange(1, len(tied) + 1, dtype=np.int64)
    asked = np.concatenate([rows, [2**40, 2**40 + 1]]).astype(np.int64)
    got = keys_of(spark, asked, "places", tied, places, 31)
    expected = _knuffle.table_labels_at("places", asked).astype(np.int64) << 31
    place_of = dict(zip(tied.tolist(), places.tolist()))
    expected |= np.array([place_of.get(r, 0) for r in asked.tolist()], dtype=np.int64)
    assert (got == expected).all()
    assert (got & (2**31 - 1) != 0).sum() == len(tied)


def test_a_negative_row_number_stops_the_job(spark):
    df = spark.createDataFrame([(5,), (-1,)], "r bigint")
    out = _spark_jvm.with_sort_keys(df, "k", "r", "s", NONE, NONE, 0)
    with pytest.raises(Exception, match="a row number is never negative: -1"):
        out.collect()


def test_the_jar_is_compiled_once_and_then_reused(spark, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    jar = _spark_jvm._jar(spark.sparkContext)
    require(jar is not None, "no javac: the JVM component is not built")
    assert jar.parent == tmp_path / "knuffle" and jar.stat().st_size > 0
    assert [p.name for p in jar.parent.iterdir()] == [jar.name]  # no partial file left

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(subprocess, "run", no_compiling)
    assert _spark_jvm._jar(spark.sparkContext) == jar


def shuffled_ids(spark, seed: str, n: int) -> list[int]:
    return [r["id"] for r in knuffle.spark.shuffle(spark.range(0, n, 1, 3), seed, 2).collect()]


def test_without_a_javac_the_same_keys_come_from_python(spark, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(_spark_jvm, "_javac", lambda java_home: None)
    df = spark.range(0, 10)
    assert _spark_jvm.with_sort_keys(df, "k", "id", "s", NONE, NONE, 0) is None
    assert shuffled_ids(spark, "no javac", 2000) == knuffle.table_order("no javac", 2000).tolist()
    assert not (tmp_path / "knuffle").exists() or not any((tmp_path / "knuffle").iterdir())


def test_a_javac_that_fails_is_reported_once_and_python_takes_over(spark, tmp_path, monkeypatch):
    javac = tmp_path / "javac"
    javac.write_text("#!/bin/sh\necho 'error: this javac is broken' >&2\nexit 2\n")
    javac.chmod(0o755)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(_spark_jvm, "_javac", lambda java_home: str(javac))
    monkeypatch.setattr(_spark_jvm, "_failed", set())
    with pytest.warns(RuntimeWarning, match="(?s)compiling its JVM component failed.*this javac is broken"):
        got = shuffled_ids(spark, "broken javac", 2000)
    assert got == knuffle.table_order("broken javac", 2000).tolist()
    assert not any((tmp_path / "cache" / "knuffle").iterdir())
    # Not tried again in this process: no second warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert shuffled_ids(spark, "broken javac", 2000) == got


def test_a_component_that_cannot_be_loaded_is_reported_and_python_takes_over(spark, monkeypatch):
    require(_spark_jvm._jar(spark.sparkContext) is not None, "no javac: the JVM component is not built")
    monkeypatch.setattr(_spark_jvm, "_CLASS", "knuffle.spark.NoSuchClass")
    monkeypatch.setattr(_spark_jvm, "_failed", set())
    with pytest.warns(RuntimeWarning, match="loading its JVM component failed"):
        got = shuffled_ids(spark, "not loaded", 2000)
    assert got == knuffle.table_order("not loaded", 2000).tolist()


def test_the_cache_in_the_temporary_directory_is_this_users_alone(tmp_path, monkeypatch):
    # A jar found in the cache is run: where the user's cache directory
    # cannot be made, the one in the temporary directory must be theirs
    # and writable by nobody else, or a fresh one is made.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    mine = _spark_jvm._cache_dir()
    assert mine == tmp_path / f"knuffle-{os.getuid()}"
    assert mine.stat().st_mode & 0o777 == 0o700
    mine.chmod(0o777)  # as if somebody else could write into it
    other = _spark_jvm._cache_dir()
    assert other != mine and other.parent == tmp_path and other.stat().st_mode & 0o077 == 0
