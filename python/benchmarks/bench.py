"""knuffle against numpy, the standard library, pandas (and torch when installed).

Every contestant runs in turns (round-robin, so a slow phase of the machine
hits all of them alike), several rounds; the table gives the median time per
call and per element, and knuffle's speed-up. Run it on an idle machine:

    python python/benchmarks/bench.py            # 10^5 .. 10^8, 10^6-item lists, 10^7-row frames
    python python/benchmarks/bench.py --quick    # tiny sizes: checks that it runs
    python python/benchmarks/bench.py --json out.json

Contestants: ``Generator.shuffle`` (2 threads, the default, and 1 thread) and
numpy's ``default_rng().shuffle`` on int64 arrays; ``Generator.permutation(n)``
and numpy's ``default_rng().permutation(n)`` (and ``torch.randperm``);
``random.shuffle`` and ``Generator.shuffle`` on a list of 10^6 ints;
``Generator.shuffle_frame`` against pandas ``df.sample(frac=1, random_state=...)``
and ``df.iloc[numpy permutation]`` on a frame of 10^7 rows (an int, a float
and a string column), and on the same rows as a pyarrow Table (against
``take``) and a polars DataFrame (against ``sample(fraction=1)``).
``--frames`` runs the data-frame part alone; ``--dtypes`` runs frames of an
int64 column and one column of each pandas dtype (object, ``str``,
``string`` in both storages, categorical, datetime with a time zone,
nullable Int64) against ``df.sample(frac=1)``.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from typing import Callable

import numpy as np

import knuffle

try:  # optional
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None


def race(contestants: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds per call of each contestant, run in turns."""
    times: dict[str, list[float]] = {name: [] for name in contestants}
    for name, run in contestants.items():  # warm-up, not timed
        run()
    for _ in range(rounds):
        for name, run in contestants.items():
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def report(title: str, n: int, medians: dict[str, float], baseline: str, rows: list[dict]) -> None:
    print(f"\n{title}, n = {n:,}")
    print(f"  {'contestant':<44} {'median':>12} {'ns/element':>11} {'vs ' + baseline:>16}")
    for name, seconds in medians.items():
        speedup = medians[baseline] / seconds
        print(f"  {name:<44} {seconds * 1e3:>9.2f} ms {seconds / n * 1e9:>11.2f} {speedup:>15.2f}x")
        rows.append({"benchmark": title, "n": n, "contestant": name, "median_s": seconds,
                     "ns_per_element": seconds / n * 1e9, "speedup_vs_" + baseline: speedup})


def bench_arrays(sizes: list[int], rounds: int, rows: list[dict]) -> None:
    for n in sizes:
        g2 = knuffle.Generator("bench", threads=2)
        g1 = knuffle.Generator("bench", threads=1)
        rng = np.random.default_rng(12345)
        a_k2, a_k1, a_np = (np.arange(n, dtype=np.int64) for _ in range(3))
        medians = race(
            {
                "numpy default_rng().shuffle": lambda: rng.shuffle(a_np),
                "knuffle Generator.shuffle (2 threads)": lambda: g2.shuffle(a_k2),
                "knuffle Generator.shuffle (1 thread)": lambda: g1.shuffle(a_k1),
            },
            rounds,
        )
        report("shuffle int64 in place", n, medians, "numpy default_rng().shuffle", rows)
        del a_k2, a_k1, a_np
        contestants = {
            "numpy default_rng().permutation": lambda: rng.permutation(n),
            "knuffle Generator.permutation (2 threads)": lambda: g2.permutation(n),
            "knuffle Generator.permutation (1 thread)": lambda: g1.permutation(n),
        }
        if torch is not None:
            torch.manual_seed(12345)
            contestants["torch.randperm"] = lambda: torch.randperm(n)
        medians = race(contestants, rounds)
        report("permutation(n)", n, medians, "numpy default_rng().permutation", rows)


def bench_list(n: int, rounds: int, rows: list[dict]) -> None:
    g = knuffle.Generator("bench list")
    py_random = random.Random(12345)
    items_random, items_knuffle = list(range(n)), list(range(n))
    medians = race(
        {
            "random.shuffle (list)": lambda: py_random.shuffle(items_random),
            "knuffle Generator.shuffle (list)": lambda: g.shuffle(items_knuffle),
        },
        rounds,
    )
    report("shuffle a Python list", n, medians, "random.shuffle (list)", rows)


def bench_frame(n: int, rounds: int, rows: list[dict]) -> None:
    if pd is None:
        print("\nshuffle_frame: pandas is not installed; skipped")
        return
    g2 = knuffle.Generator("bench frame", threads=2)
    g1 = knuffle.Generator("bench frame", threads=1)
    df = pd.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "x": np.linspace(0, 1, n),
        "label": pd.Series(np.arange(n) % 1000).astype(str),
    })
    seeds = iter(range(10**9))
    rng = np.random.default_rng(12345)
    medians = race(
        {
            "pandas df.sample(frac=1, random_state=...)": lambda: df.sample(frac=1, random_state=next(seeds)),
            "pandas df.iloc[numpy permutation]": lambda: df.iloc[rng.permutation(n)],
            "knuffle Generator.shuffle_frame (2 threads)": lambda: g2.shuffle_frame(df),
            "knuffle Generator.shuffle_frame (1 thread)": lambda: g1.shuffle_frame(df),
        },
        rounds,
    )
    report("shuffle the rows of a pandas DataFrame", n, medians,
           "pandas df.sample(frac=1, random_state=...)", rows)
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None:
        table = pa.Table.from_pandas(df, preserve_index=False)
        medians = race(
            {
                "pyarrow table.take(numpy permutation)": lambda: table.take(rng.permutation(n)),
                "knuffle Generator.shuffle_frame (2 threads)": lambda: g2.shuffle_frame(table),
            },
            rounds,
        )
        report("shuffle the rows of a pyarrow Table", n, medians, "pyarrow table.take(numpy permutation)", rows)
    try:
        import polars as pl
    except ImportError:  # pragma: no cover
        pl = None
    if pl is not None:
        frame = pl.from_pandas(df)
        medians = race(
            {
                "polars df.sample(fraction=1, shuffle=True)": lambda: frame.sample(
                    fraction=1, shuffle=True, seed=next(seeds)),
                "knuffle Generator.shuffle_frame (2 threads)": lambda: g2.shuffle_frame(frame),
            },
            rounds,
        )
        report("shuffle the rows of a polars DataFrame", n, medians, "polars df.sample(fraction=1, shuffle=True)",
               rows)


def dtype_columns(n: int) -> dict[str, Callable[[], object]]:
    """One column of each pandas dtype the issue names, made on demand."""
    labels = np.arange(n) % 1000
    text = pd.Series(labels).astype(str).to_numpy(dtype=object)
    return {
        "object (Python str)": lambda: pd.Series(text, dtype=object),
        "str (the pandas 3 default)": lambda: pd.Series(text, dtype="str"),
        "string[python]": lambda: pd.Series(text, dtype="string[python]"),
        "string[pyarrow]": lambda: pd.Series(text, dtype="string[pyarrow]"),
        "category": lambda: pd.Series(pd.Categorical.from_codes(labels % 100, [f"c{i}" for i in range(100)])),
        "datetime64[ns, Europe/Berlin]": lambda: pd.Series(
            pd.date_range("2020-01-01", periods=n, freq="s", tz="Europe/Berlin")),
        "Int64 (nullable)": lambda: pd.Series(pd.arrays.IntegerArray(labels.astype(np.int64), labels % 7 == 0)),
    }


def bench_frame_dtypes(n: int, rounds: int, rows: list[dict]) -> None:
    """A frame of an int64 column and one column of each dtype, alone:
    ``shuffle_frame`` (2 threads) against ``df.sample(frac=1)``."""
    if pd is None:
        print("\nshuffle_frame by dtype: pandas is not installed; skipped")
        return
    g2 = knuffle.Generator("bench dtypes", threads=2)
    seeds = iter(range(10**9))
    for name, make in dtype_columns(n).items():
        df = pd.DataFrame({"id": np.arange(n, dtype=np.int64), "value": make()})
        medians = race(
            {
                "pandas df.sample(frac=1, random_state=...)": lambda: df.sample(frac=1, random_state=next(seeds)),
                "knuffle Generator.shuffle_frame (2 threads)": lambda: g2.shuffle_frame(df),
            },
            rounds,
        )
        report(f"shuffle a pandas frame: int64 + {name}", n, medians,
               "pandas df.sample(frac=1, random_state=...)", rows)
        del df


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, to check that the script runs")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per contestant")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--frames", action="store_true", help="only the data-frame benchmark")
    parser.add_argument("--dtypes", action="store_true",
                        help="only the data frames of one column of each pandas dtype")
    args = parser.parse_args(argv)
    if args.quick:
        sizes, list_n, frame_n, rounds = [10**3, 10**4], 10**4, 10**4, args.rounds or 3
    else:
        sizes, list_n, frame_n, rounds = [10**5, 10**6, 10**7, 10**8], 10**6, 10**7, args.rounds or 7
    print(f"knuffle {knuffle.__version__}, numpy {np.__version__}, pandas {pd.__version__ if pd else '-'}, "
          f"Python {platform.python_version()}, {platform.machine()}, rounds = {rounds}")
    if torch is None:
        print("torch: not installed here, so torch.randperm is not compared (pip install torch to add it)")
    else:
        print(f"torch {torch.__version__}: torch.randperm is compared, {torch.get_num_threads()} threads")
    rows: list[dict] = []
    if not args.frames and not args.dtypes:
        bench_arrays(sizes, rounds, rows)
        bench_list(list_n, rounds, rows)
    if not args.dtypes:
        bench_frame(frame_n, max(3, rounds // 2), rows)
    if not args.frames:
        bench_frame_dtypes(frame_n, max(3, rounds // 2), rows)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"python": sys.version, "numpy": np.__version__, "results": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
