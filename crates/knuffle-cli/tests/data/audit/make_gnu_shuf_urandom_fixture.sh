#!/bin/sh
# Regenerates gnu_shuf_1-5_urandom.txt: 100,000 outputs of GNU
# `shuf -i 1-5 --random-source=/dev/urandom`, one per line. With an
# explicit random source GNU shuf reads raw bytes (no 16-bit ISAAC seed),
# and its outputs are uniform. A few minutes. Used by tests/audit_cli.rs.
set -eu
out="$(dirname "$0")/gnu_shuf_1-5_urandom.txt"
tmp="$out.tmp"
: > "$tmp"
i=0
while [ "$i" -lt 100000 ]; do
    shuf -i 1-5 --random-source=/dev/urandom | paste -sd' ' >> "$tmp"
    i=$((i + 1))
done
mv "$tmp" "$out"
