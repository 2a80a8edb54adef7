"""Shared helpers of the Python tests."""

from __future__ import annotations

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


def require(condition: bool, why: str) -> None:
    """Skip when an optional tool is missing, but fail under CI=true."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI=true: the test command must provide it)")
        pytest.skip(why)


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
