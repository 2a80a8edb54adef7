"""Shared helpers of the Python tests."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "crates" / "knuffle" / "tests" / "golden" / "cross_language.json"

# Chi-square critical value for 23 degrees of freedom (the 24 orders of 4
# items) at alpha = 0.001: a fair shuffler stays below it 999 times in 1000,
# so with fixed seeds a test is decided once and for all.
CHI2_23_AT_0_001 = 49.728


@pytest.fixture(scope="session")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def order_chi_square(rows: np.ndarray) -> float:
    """Pearson's chi-square of the counts of each order of n items (rows)."""
    n = rows.shape[1]
    index = {p: i for i, p in enumerate(permutations(range(n)))}
    counts = np.zeros(len(index))
    for row in rows.tolist():
        counts[index[tuple(row)]] += 1
    expected = len(rows) / len(index)
    return float(((counts - expected) ** 2 / expected).sum())


def require(condition: bool, why: str, *, module_level: bool = False) -> None:
    """Skip (the test, or with ``module_level`` the module being collected)
    when an optional tool is missing, but fail under CI=true."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI=true: the test command must provide it)", pytrace=False)
        pytest.skip(why, allow_module_level=module_level)


def require_packages(*names: str, module_level: bool = False) -> None:
    """``require`` that the packages ``names`` are installed."""
    missing = [name for name in names if importlib.util.find_spec(name) is None]
    require(not missing, f"{', '.join(missing)} not installed", module_level=module_level)


def need(name: str):
    """The module `name`; a skip when it is missing, a failure under CI=true."""
    require_packages(name)
    return importlib.import_module(name)


def knuffle_cli() -> str:
    """The `knuffle` binary (target/debug, built by `cargo test --workspace`,
    which scripts/test-all runs first), or $KNUFFLE_BIN."""
    path = os.environ.get("KNUFFLE_BIN") or str(REPO / "target" / "debug" / "knuffle")
    require(os.access(path, os.X_OK), f"the knuffle binary is not built ({path}): run cargo build -p knuffle-cli")
    return path


def pytest_sessionfinish(session, exitstatus):
    """Under CI=true a skipped test is a failure: the gap must not hide."""
    if os.environ.get("CI") != "true":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and session.exitstatus == 0:
        session.exitstatus = 1
        if reporter:
            reporter.write_line(f"CI=true: {skipped} test(s) skipped; failing the run")


# --- the engines: one Spark session and one Ray runtime per run -------------


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (knuffle.spark's tests).

    ``local[2,4]``: two task threads, and a failed task is tried up to 4
    times (plain ``local[2]`` never retries, and a test fails a task on
    purpose). Under CI=true a missing pyspark or Java fails the tests.
    """
    import importlib.util
    import shutil
    import sys

    require(importlib.util.find_spec("pyspark") is not None, "pyspark is not installed")
    require(
        shutil.which("java") is not None or "JAVA_HOME" in os.environ,
        "Spark needs Java (java on PATH or JAVA_HOME)",
    )
    # The Python workers must be this interpreter (knuffle, numpy, pyarrow).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2,4]")
        .appName("knuffle tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def ray_runtime():
    """One local Ray runtime for the whole run (knuffle.ray's tests): 2 CPUs,
    no dashboard. Under CI=true a missing ray fails the tests."""
    import importlib.util

    require(importlib.util.find_spec("ray") is not None, "ray is not installed")
    import ray
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()
