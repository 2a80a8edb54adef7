"""``shuffle_frame`` alone, for comparing two builds of knuffle in turns.

Prints the median milliseconds of 5 calls (after one warm-up) on a
10^7-row pandas frame: ``frame`` (an int64, a float64 and a string column,
as bench.py's) or one int64 column and a column of the dtype given (``object``,
``category``, ``string[python]``, ...). Run it with each build's Python in
turn, several rounds, on an idle machine:

    for r in 1 2 3 4; do
        old/.venv/bin/python python/benchmarks/frame_alone.py object
        .venv/bin/python python/benchmarks/frame_alone.py object
    done
"""

from __future__ import annotations

import gc
import statistics
import sys
import time

import numpy as np
import pandas as pd

import knuffle


def frame(kind: str, n: int) -> pd.DataFrame:
    labels = pd.Series(np.arange(n) % 1000).astype(str)
    if kind == "frame":
        return pd.DataFrame({"id": np.arange(n, dtype=np.int64), "x": np.linspace(0, 1, n), "label": labels})
    return pd.DataFrame({"id": np.arange(n, dtype=np.int64), "value": labels.astype(kind)})


def main(argv: list[str]) -> int:
    kind = argv[0] if argv else "frame"
    n = int(argv[1]) if len(argv) > 1 else 10**7
    df = frame(kind, n)
    g = knuffle.Generator("frame alone", threads=2)
    g.shuffle_frame(df)
    times = []
    for _ in range(5):
        gc.collect()
        start = time.perf_counter()
        g.shuffle_frame(df)
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times) * 1e3:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
