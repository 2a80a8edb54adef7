#!/usr/bin/env python3
"""Independent reference verifier for knuffle-vd/1 transcripts.

Written from the specification (docs/verifiable-draws.md) with the Python
standard library only (hashlib, json): it imports nothing of knuffle, so a
draw it accepts does not rest on trusting knuffle's code.

Usage: reference_verifier.py TRANSCRIPT [POPULATION_FILE]
Exit status: 0 verified, 1 does not verify (the failed check is named),
2 trouble (unreadable or malformed transcript, unknown format).
"""

import hashlib
import json
import sys

FORMAT = "knuffle-vd/1"


def H(data):
    return hashlib.sha256(data).digest()


def lp(data):
    """4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def u32be(x):
    return x.to_bytes(4, "big")


def u64be(x):
    return x.to_bytes(8, "big")


def population_digest(items):
    h = hashlib.sha256(b"knuffle-vd/1 population" + u64be(len(items)))
    for item in items:
        h.update(lp(item.encode("utf-8")))
    return h.digest()


def source_label_value(source):
    kind = source["kind"]
    if kind == "text":
        return "text", source["value"].encode("utf-8")
    if kind == "drand":
        label = "drand:%s:%d" % (source["chain"], source["round"])
        return label, bytes.fromhex(source["randomness"])
    if kind == "commit":
        return "commit", source["secret"].encode("utf-8")
    raise ValueError("unknown source kind %r" % kind)


def derive_key(mode, digest, sources):
    data = b"knuffle-vd/1 key" + lp(mode.encode()) + digest + u32be(len(sources))
    for source in sources:
        label, value = source_label_value(source)
        data += lp(label.encode("utf-8")) + lp(value)
    return H(data)


def commitment(mode, digest, secret, beacon):
    return H(b"knuffle-vd/1 commit" + lp(mode.encode()) + digest
             + lp(secret.encode("utf-8")) + lp(beacon.encode("utf-8")))


class Stream:
    """64-bit big-endian words of H(K || u64be(0)), H(K || u64be(1)), ..."""

    def __init__(self, key):
        self.key = key
        self.counter = 0
        self.words = []

    def word(self):
        if not self.words:
            block = H(self.key + u64be(self.counter))
            self.counter += 1
            self.words = [int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8)]
        return self.words.pop(0)


def below(stream, b):
    """Lemire's method with exact rejection."""
    m = stream.word() * b
    threshold = (2**64 - b) % b
    while m % 2**64 < threshold:
        m = stream.word() * b
    return m >> 64


def draw(key, mode, n, k):
    stream = Stream(key)
    if mode == "replace":
        return [below(stream, n) for _ in range(k)]
    moved = {}
    out = []
    for i in range(min(k, n - 1)):
        j = i + below(stream, n - i)
        a_i, a_j = moved.get(i, i), moved.get(j, j)
        moved[i], moved[j] = a_j, a_i
        out.append(a_j)
    if k == n and n > 0:
        out.append(moved.get(n - 1, n - 1))
    return out


def population_items(transcript, population_file):
    if population_file is not None:
        with open(population_file, "rb") as f:
            text = f.read().decode("utf-8")
        if text == "":
            return []
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n")
    population = transcript["population"]
    if "items" in population:
        return population["items"]
    if "range" in population:
        lo, hi = population["range"]["lo"], population["range"]["hi"]
        return [str(v) for v in range(lo, hi + 1)]
    raise ValueError("the transcript does not embed its population: give the population file")


def verify(transcript, items):
    """Returns a list of (check name, passed, detail)."""
    checks = []
    mode = transcript["mode"]
    if mode not in ("perm", "replace"):
        raise ValueError("unknown mode %r" % mode)
    digest = population_digest(items)
    n = len(items)
    checks.append(("population digest",
                   digest.hex() == transcript["population"]["digest"].lower()
                   and n == transcript["population"]["count"],
                   "%d items hash to %s" % (n, digest.hex())))
    sources = transcript["sources"]
    drand_refs = ["drand:%s:%d" % (s["chain"], s["round"]) for s in sources if s["kind"] == "drand"]
    for s in sources:
        if s["kind"] == "drand":
            derived = H(bytes.fromhex(s["signature"]))
            checks.append(("beacon randomness", derived.hex() == s["randomness"].lower(),
                           "round %d: SHA-256(signature) = %s" % (s["round"], derived.hex())))
        elif s["kind"] == "commit":
            derived = commitment(mode, digest, s["secret"], s["beacon"])
            checks.append(("commitment opening", derived.hex() == s["commitment"].lower(),
                           "recomputed %s" % derived.hex()))
            checks.append(("committed beacon", s["beacon"] in drand_refs,
                           "the commitment names %s" % s["beacon"]))
    key = derive_key(mode, digest, sources)
    checks.append(("key", key.hex() == transcript["key"].lower(), "recomputed %s" % key.hex()))
    k = transcript["k"]
    result = transcript["result"]
    k_fits = (n > 0 or k == 0) if mode == "replace" else k <= n
    checks.append(("k", k_fits and len(result["indices"]) == k and len(result["items"]) == k,
                   "k = %d" % k))
    if k_fits:
        derived = draw(key, mode, n, k)
    else:
        derived = None
    ok = derived == result["indices"] and all(
        items[i] == item for i, item in zip(result["indices"], result["items"]))
    checks.append(("result", ok, "re-derived indices %s" % (derived,)))
    return checks


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            transcript = json.load(f)
        if transcript.get("format") != FORMAT:
            raise ValueError("unknown transcript format %r" % transcript.get("format"))
        items = population_items(transcript, argv[2] if len(argv) == 3 else None)
        checks = verify(transcript, items)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print("reference_verifier: trouble: %s" % e, file=sys.stderr)
        return 2
    for name, passed, detail in checks:
        print("%s %s: %s" % ("ok  " if passed else "FAIL", name, detail))
    if any(s["kind"] == "drand" for s in transcript["sources"]):
        print("note the beacon's BLS signature was not checked")
    failed = [name for name, passed, _ in checks if not passed]
    if failed:
        print("does not verify: the %s check failed" % failed[0])
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
