"""The sampler in a DataLoader loop that does nothing else: knuffle.torch's
DistributedSampler against torch's, rows per second over a whole epoch.

    python python/benchmarks/bench_sampler.py              # n = 10^7, 3 rounds
    python python/benchmarks/bench_sampler.py --quick      # n = 10^5: checks that it runs
    python python/benchmarks/bench_sampler.py --json out.json

Each contestant is one epoch of rank 0's DataLoader (``num_workers=0``,
batches of 1024): ``set_epoch``, then every batch of indices drawn from the
sampler, fetched by a data set whose ``__getitems__`` returns the indices,
and collated by a function that returns them (nothing else happens, so the
time is the sampler's and the loader's own). Both samplers are made once;
an epoch includes making its order (torch: ``randperm(n)`` and ``tolist()``;
knuffle: the epoch order, read in slices). Contestants run in turns
(round-robin, a new epoch each round), several rounds; the table gives the
median seconds per epoch and the rows per second of the rank, for world
sizes 1 and 8. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from typing import Callable

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler as TorchDistributedSampler

import knuffle
import knuffle.torch


class Indices(Dataset):
    """A data set whose rows are their own indices, fetched a batch at a time."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitems__(self, indices: list[int]) -> list[int]:
        return indices


def unchanged(batch: list[int]) -> list[int]:
    return batch


def epoch_runner(sampler, n: int) -> Callable[[], int]:
    """One epoch of a loader over `sampler` per call (a new epoch each call): rows read."""
    loader = DataLoader(Indices(n), batch_size=1024, sampler=sampler, collate_fn=unchanged, num_workers=0)
    epoch = iter(range(10**9))

    def run() -> int:
        sampler.set_epoch(next(epoch))
        rows = 0
        for batch in loader:
            rows += len(batch)
        return rows

    return run


def race(contestants: dict[str, Callable[[], int]], rounds: int) -> dict[str, tuple[float, int]]:
    """Median seconds per epoch of each contestant, run in turns, and its rows."""
    times: dict[str, list[float]] = {name: [] for name in contestants}
    rows: dict[str, int] = {}
    for name, run in contestants.items():  # warm-up, not timed
        rows[name] = run()
    for _ in range(rounds):
        for name, run in contestants.items():
            gc.collect()
            start = time.perf_counter()
            assert run() == rows[name]
            times[name].append(time.perf_counter() - start)
    return {name: (statistics.median(t), rows[name]) for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^5, to check that the script runs")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per contestant")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    n = 10**5 if args.quick else 10**7
    torch.set_num_threads(1)
    results = []
    print(f"python {platform.python_version()}, torch {torch.__version__}, n = {n:,}, batches of 1024, rank 0")
    for world in (1, 8):
        contestants = {
            "knuffle.torch.DistributedSampler": epoch_runner(
                knuffle.torch.DistributedSampler(Indices(n), num_replicas=world, rank=0, seed="bench"), n
            ),
            "torch DistributedSampler": epoch_runner(
                TorchDistributedSampler(Indices(n), num_replicas=world, rank=0, seed=0), n
            ),
        }
        medians = race(contestants, args.rounds)
        base = medians["torch DistributedSampler"][0]
        print(f"\nworld size {world}: {n // world:,} rows a rank")
        print(f"  {'contestant':<36} {'epoch':>9} {'rows/s':>14} {'vs torch':>9}")
        for name, (seconds, rows) in medians.items():
            print(f"  {name:<36} {seconds:>7.3f} s {rows / seconds:>14,.0f} {base / seconds:>8.2f}x")
            results.append({"world_size": world, "contestant": name, "n": n, "rows": rows,
                            "median_s": seconds, "rows_per_s": rows / seconds, "speedup_vs_torch": base / seconds})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"python": sys.version, "torch": torch.__version__, "knuffle": knuffle.__version__,
                       "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
