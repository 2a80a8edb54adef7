#!/bin/sh
# Regenerates gnu_shuf_1-5.txt: 100,000 real outputs of GNU `shuf -i 1-5`,
# one permutation per line (GNU shuf prints one permutation per run, so this
# runs it 100,000 times; a few minutes). Used by tests/audit_cli.rs.
set -eu
out="$(dirname "$0")/gnu_shuf_1-5.txt"
tmp="$out.tmp"
: > "$tmp"
i=0
while [ "$i" -lt 100000 ]; do
    shuf -i 1-5 | paste -sd' ' >> "$tmp"
    i=$((i + 1))
done
mv "$tmp" "$out"
