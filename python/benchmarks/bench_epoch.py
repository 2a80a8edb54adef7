"""The epoch order at 10^9 rows: knuffle.epoch_order against torch.randperm
(what DistributedSampler uses) and Grain's IndexSampler.

    python python/benchmarks/bench_epoch.py                    # n = 10^9, 3 rounds
    python python/benchmarks/bench_epoch.py --rows 10000000    # a quick check
    python python/benchmarks/bench_epoch.py --only knuffle     # one contestant

Every contestant is its own process, started fresh each round (its peak
resident memory, ru_maxrss, is its own; the figure of a process that only
imports the same modules is printed as "import" so that the interpreter and
the libraries are not counted against the algorithm); contestants take
turns, round after round; medians.

Measured:
* knuffle first row: ``epoch_order(seed, n, epoch=1)[0]`` from nothing (two
  passes over the n labels: the counts of the label ranges, then the first
  window), on 2 threads and on 1;
* knuffle streaming on one core (RAYON_NUM_THREADS=1): after a first
  question (``order[n - 1]``, which counts the ranges), ``--stream`` rows
  read from position 0 in slices of 65,536; each window costs one pass over
  the n labels, so this is the steady rate of a whole epoch;
* torch.randperm(n): the time to the permutation (its first row), its peak
  memory (8 bytes a row), and its rows/s when read in the same slices;
* Grain's IndexSampler (if ``grain`` imports): rows/s of ``sampler[i]``
  (a keyed Feistel permutation of the positions, one Python call a row).

Run it on an idle machine only (nothing building or testing).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHUNK = 1 << 16

PROGRAMS = {
    "knuffle import": """
import knuffle, numpy
result = {}
""",
    "knuffle first row, 2 threads": """
import knuffle
t = time.perf_counter()
order = knuffle.epoch_order("bench", {N}, epoch=1)
row = order[0]
result = {"first_row_s": time.perf_counter() - t}
""",
    "knuffle first row, 1 thread": """
import knuffle
t = time.perf_counter()
order = knuffle.epoch_order("bench", {N}, epoch=1)
row = order[0]
result = {"first_row_s": time.perf_counter() - t}
""",
    "knuffle streaming, 1 thread": """
import knuffle
order = knuffle.epoch_order("bench", {N}, epoch=1)
order[{N} - 1]
t = time.perf_counter()
done = 0
while done < {STREAM}:
    done += len(order[done : min(done + {CHUNK}, {STREAM})])
elapsed = time.perf_counter() - t
result = {"rows_per_s": done / elapsed, "stream_s": elapsed}
""",
    "torch import": """
import torch
torch.set_num_threads(2)
result = {}
""",
    "torch.randperm": """
import torch
torch.set_num_threads(2)
g = torch.Generator().manual_seed(1)
t = time.perf_counter()
perm = torch.randperm({N}, generator=g)
first = int(perm[0])
made = time.perf_counter() - t
t = time.perf_counter()
done = 0
while done < {STREAM}:
    done += len(perm[done : min(done + {CHUNK}, {STREAM})].numpy())
elapsed = time.perf_counter() - t
result = {"first_row_s": made, "rows_per_s": done / elapsed}
""",
    "grain IndexSampler": """
import grain.python as grain
sampler = grain.IndexSampler({N}, grain.NoSharding(), shuffle=True, num_epochs=1, seed=1)
t = time.perf_counter()
first = sampler[0].record_key
made = time.perf_counter() - t
rows = min({STREAM}, 1_000_000)
t = time.perf_counter()
for i in range(rows):
    sampler[i]
elapsed = time.perf_counter() - t
result = {"first_row_s": made, "rows_per_s": rows / elapsed}
""",
}

PRELUDE = "import json, resource, time\n"
EPILOGUE = """
result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""


def run(name: str, n: int, stream: int) -> dict:
    program = PROGRAMS[name]
    for key, value in (("{N}", n), ("{STREAM}", stream), ("{CHUNK}", CHUNK)):
        program = program.replace(key, str(value))
    code = PRELUDE + program + EPILOGUE
    env = dict(os.environ)
    if "1 thread" in name:
        env["RAYON_NUM_THREADS"] = "1"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def available(name: str) -> bool:
    module = {"torch": "torch", "grain": "grain.python"}.get(name.split()[0])
    if module is None:
        return True
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**9)
    parser.add_argument("--stream", type=int, default=3 * 2**23, help="rows read by the streaming runs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="contestants whose name starts with this")
    args = parser.parse_args()
    stream = min(args.stream, args.rows)
    names = [name for name in PROGRAMS if name.startswith(args.only) and available(name)]
    missing = [name for name in PROGRAMS if name.startswith(args.only) and name not in names]
    if missing:
        print(f"not installed, not measured: {', '.join(missing)}")
    results: dict[str, list[dict]] = {name: [] for name in names}
    for _ in range(args.rounds):
        for name in names:
            results[name].append(run(name, args.rows, stream))
    print(f"n = {args.rows}, streaming {stream} rows, {args.rounds} rounds (medians; min-max)")
    for name in names:
        line = [f"{name:32}"]
        for key, unit in (("first_row_s", "s to the first row"), ("rows_per_s", "M rows/s"), ("peak_mib", "MiB peak")):
            values = [r[key] for r in results[name] if key in r]
            if not values:
                continue
            scale = 1e-6 if key == "rows_per_s" else 1.0
            median = statistics.median(values) * scale
            line.append(f"{median:9.2f} {unit} ({min(values) * scale:.2f}-{max(values) * scale:.2f})")
        print("  ".join(line))


if __name__ == "__main__":
    main()
