#!/bin/sh
# Regenerates the GNU shuf fixtures used by tests/audit_cli.rs: 100,000
# real outputs of GNU `shuf -i 1-5`, one permutation per line (GNU shuf
# prints one permutation per run, so each file takes 100,000 runs; a few
# minutes each).
#   gnu_shuf_1-5.txt          plain `shuf -i 1-5` (its ISAAC generator is
#                              seeded from 2 random bytes: biased)
#   gnu_shuf_1-5_urandom.txt  `--random-source=/dev/urandom`: raw bytes,
#                              uniform outputs
set -eu
dir="$(dirname "$0")"

fixture() {
    out="$dir/$1"
    shift
    tmp="$out.tmp"
    : > "$tmp"
    i=0
    while [ "$i" -lt 100000 ]; do
        shuf -i 1-5 "$@" | paste -sd' ' >> "$tmp"
        i=$((i + 1))
    done
    mv "$tmp" "$out"
}

fixture gnu_shuf_1-5.txt
fixture gnu_shuf_1-5_urandom.txt --random-source=/dev/urandom
