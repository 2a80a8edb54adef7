#!/usr/bin/env python3
"""Independent reference verifier for knuffle-vd/1 transcripts.

Written from the specification (docs/verifiable-draws.md) with the Python
standard library only (hashlib, json): it imports nothing of knuffle, so a
draw it accepts does not rest on trusting knuffle's code.

Usage: reference_verifier.py [--max-size SIZE] TRANSCRIPT [POPULATION_FILE]
Exit status: 0 verified, 1 does not verify (the failed check is named),
2 trouble (unreadable, malformed or too large transcript, unknown format).

It is exactly as strict as `knuffle verify` (which reads transcripts with
serde): every record refuses unknown fields; a u64 field takes only a JSON
integer from 0 to 2^64 - 1 (not true, not 5000000.0, not -1, not -0); a
string field only a string; the optional fields (population.items,
population.range, a drand source's previous_signature) may be absent or
null; a record may also be written as serde's sequence form (the values of
its fields in order, trailing optional fields left out; a source's first
element is its kind); a key twice in one object is an error. It bounds its work
as the Limits section of the specification says: at most --max-size bytes
(default 64 MiB) of each file read, JSON nested at most 127 deep, range
populations of at most 10^9 items, and the draw re-derived only when `k`
equals the number of recorded indices and items.
"""

import hashlib
import json
import os
import re
import sys
from itertools import accumulate

FORMAT = "knuffle-vd/1"
U64_MAX = 2**64 - 1
# The default --max-size: the most bytes read from a transcript or population file.
DEFAULT_MAX_SIZE = 64 << 20
# The largest range population (hi - lo + 1) that is hashed.
MAX_RANGE_ITEMS = 1_000_000_000
# serde_json refuses the 128th nested array or object.
MAX_DEPTH = 128


class Trouble(Exception):
    """The transcript cannot be checked at all (exit status 2)."""


def H(data):
    return hashlib.sha256(data).digest()


def lp(data):
    """4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def u32be(x):
    return x.to_bytes(4, "big")


def u64be(x):
    return x.to_bytes(8, "big")


# ---------------------------------------------------------------- reading


def proc_field(path, name):
    """A field of a /proc file that counts in kB (meminfo, status), in
    bytes, or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name):
                    return int(line[len(name):].split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def meminfo(name):
    """A /proc/meminfo field in bytes, or None."""
    return proc_field("/proc/meminfo", name)


def status_field(name):
    """A /proc/self/status field (VmSize:) in bytes, or None."""
    return proc_field("/proc/self/status", name)


def parse_size(text):
    """A size like `sort -S` (and knuffle's --max-size): digits, then an
    optional unit K M G T P E (powers of 1024; lowercase, `KiB` and `KB`
    forms too), `b` or nothing for bytes, or `%` of the physical memory."""
    invalid = Trouble("invalid value '%s' for '--max-size <SIZE>': invalid memory size: '%s'"
                      % (text, text))
    trimmed = text.strip()
    match = re.match(r"[0-9]+", trimmed)
    if not match or match.end() > 20 or int(match.group()) > U64_MAX:
        raise invalid
    number = int(match.group())
    suffix = trimmed[match.end():]
    if suffix == "%":
        total = meminfo("MemTotal:")
        if number > 100:
            raise invalid
        if total is None:
            raise Trouble("cannot read the machine's memory size for '%s'" % text)
        size = total * number // 100
    else:
        if suffix.endswith("iB"):
            unit = suffix[:-2]
        elif suffix.endswith("B") and len(suffix) > 1:
            unit = suffix[:-1]
        else:
            unit = suffix
        shifts = {"": 0, "b": 0, "B": 0, "k": 10, "K": 10, "m": 20, "M": 20, "g": 30,
                  "G": 30, "t": 40, "T": 40, "p": 50, "P": 50, "e": 60, "E": 60}
        if unit not in shifts:
            raise invalid
        size = number << shifts[unit]
        if size > U64_MAX:
            raise Trouble("memory size too large: '%s'" % text)
    if size == 0:
        raise Trouble("--max-size must be at least 1 byte (got %s)" % json.dumps(text))
    return size


def human_bytes(size):
    """A size as knuffle writes it: `64 MiB`, `1.5 GiB`, `900 bytes`."""
    units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    if size < 1024:
        return "%d bytes" % size
    unit, scaled = 0, size
    while scaled >= 1024 * 1024 and unit + 1 < len(units):
        scaled //= 1024
        unit += 1
    whole, tenths = scaled // 1024, (scaled % 1024) * 10 // 1024
    if whole >= 100 or (tenths == 0 and size % (1 << (10 * (unit + 1))) == 0):
        return "%d %s" % (whole, units[unit])
    return "%d.%d %s" % (whole, tenths, units[unit])


def memory_budget():
    """The memory a verification may use, after knuffle's budget: the
    smallest of three quarters of the memory available, three quarters of
    the room under the cgroup v2 memory.max, and the address space left
    under the address-space limit (ulimit -v) after what this process maps
    now and 64 MiB for each of 2 x cores + 4 allocation arenas; 1 GiB when
    none can be read; at least 1 MiB. (knuffle also reads cgroup v1 limits;
    the two agree unless a population file comes near the budget.)"""
    rooms = [r // 4 * 3 for r in (meminfo("MemAvailable:"), cgroup_room()) if r is not None]
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            mapped = status_field("VmSize:") or 0
            headroom = (2 * (os.cpu_count() or 1) + 4) * (64 << 20)
            rooms.append(max(soft - mapped - headroom, 0))
    except (ImportError, OSError, ValueError):
        pass
    return max(min(rooms) if rooms else 1 << 30, 1 << 20)


def cgroup_room():
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = int(f.read().strip())  # "max" (no limit) fails here
        with open("/sys/fs/cgroup/memory.current") as f:
            current = int(f.read().strip())
    except (OSError, ValueError):
        return None
    return max(limit - current, 0)


def read_limited(path, limit, what):
    """The bytes of `path` (`-`: standard input), reading at most `limit` + 1
    of them; more is trouble."""
    name = "standard input" if path == "-" else path
    chunks = []
    total = 0
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
        try:
            while total <= limit:
                chunk = f.read(min(1 << 20, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        finally:
            if f is not sys.stdin.buffer:
                f.close()
    except OSError as e:
        raise Trouble("%s: %s" % (name, e.strerror or e)) from None
    if total > limit:
        raise Trouble("%s: %s larger than %s (raise with --max-size)"
                      % (name, what, human_bytes(limit)))
    return b"".join(chunks)


# ------------------------------------------------------------ strict JSON

# A JSON string (or an unterminated one, to the end), escapes included.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = tuple(1 if c in b"[{" else -1 for c in range(256))
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_depth(text):
    """Refuses JSON nested MAX_DEPTH deep before the parser recurses into it.

    Strings are skipped; the brackets left are counted. Up to the first
    syntax error (where a parser stops) this is the parser's own depth."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if brackets.count("[") + brackets.count("{") < MAX_DEPTH:
        return
    steps = map(_DEPTH_STEP.__getitem__, brackets.encode("ascii"))
    if max(accumulate(steps)) >= MAX_DEPTH:
        raise Trouble("malformed transcript JSON: nested more than %d levels deep"
                      % (MAX_DEPTH - 1))


class NotU64:
    """A JSON number that no u64 field takes: negative (-0 too), a fraction,
    an exponent, or more than 2^64 - 1 (serde_json reads them as i64 or f64)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _integer(text):
    if text.startswith("-") or len(text) > 20 or int(text) > U64_MAX:
        return NotU64(text)
    return int(text)


def _constant(name):
    raise ValueError("%s is not JSON" % name)


def _object(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError("duplicate field %s" % json.dumps(key))
        obj[key] = value
    return obj


def loads_strict(text):
    """JSON as serde reads a transcript: no NaN or Infinity, no lone
    surrogate escapes, numbers kept exact, no key twice in an object."""
    check_depth(text)
    value = json.loads(text, object_pairs_hook=_object, parse_int=_integer,
                       parse_float=NotU64, parse_constant=_constant)
    if _SURROGATE_ESCAPE.search(text):
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, str):
                if _SURROGATE.search(v):
                    raise ValueError("lone surrogate in a \\u escape")
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, dict):
                stack.extend(v.keys())
                stack.extend(v.values())
    return value


# --------------------------------------------- the transcript's records


class Malformed(Exception):
    """A value that the transcript's records do not take."""


def describe(v):
    if v is None:
        return "null"
    if v is True or v is False:
        return "a boolean"
    if isinstance(v, NotU64):
        return "the number %s" % v.text
    if isinstance(v, int):
        return "the integer %d" % v
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def u64(v, where):
    if type(v) is int and 0 <= v <= U64_MAX:
        return v
    raise Malformed("%s: expected an integer from 0 to 2^64 - 1, got %s" % (where, describe(v)))


def text(v, where):
    if type(v) is str:
        return v
    raise Malformed("%s: expected a string, got %s" % (where, describe(v)))


def list_of(element):
    def parse(v, where):
        if type(v) is not list:
            raise Malformed("%s: expected an array, got %s" % (where, describe(v)))
        return [element(x, "%s[%d]" % (where, i)) for i, x in enumerate(v)]
    return parse


def record(fields):
    """A record with `fields` [(name, parse, optional)]: an object with
    exactly those keys (optional ones may be absent or null), or serde's
    sequence form, the values in field order (trailing optional ones may be
    left out)."""

    def parse(v, where):
        out = {}
        if type(v) is dict:
            names = [name for name, _, _ in fields]
            for key in v:
                if key not in names:
                    raise Malformed("%s: unknown field %r (expected one of %s)"
                                    % (where, key, ", ".join(names)))
            for name, field, optional in fields:
                if name not in v:
                    if not optional:
                        raise Malformed("%s: missing field %r" % (where, name))
                    out[name] = None
                elif optional and v[name] is None:
                    out[name] = None
                else:
                    out[name] = field(v[name], "%s.%s" % (where, name))
        elif type(v) is list:
            if len(v) > len(fields):
                raise Malformed("%s: an array of %d values for a record of %d fields"
                                % (where, len(v), len(fields)))
            for i, (name, field, optional) in enumerate(fields):
                if i >= len(v):
                    if not optional:
                        raise Malformed("%s: an array of %d values, missing %r"
                                        % (where, len(v), name))
                    out[name] = None
                elif optional and v[i] is None:
                    out[name] = None
                else:
                    out[name] = field(v[i], "%s.%s" % (where, name))
        else:
            raise Malformed("%s: expected an object, got %s" % (where, describe(v)))
        return out

    return parse


SOURCE_KINDS = {
    "text": record([("value", text, False)]),
    "drand": record([("chain", text, False), ("round", u64, False),
                     ("signature", text, False), ("randomness", text, False),
                     ("previous_signature", text, True)]),
    "commit": record([("secret", text, False), ("commitment", text, False),
                      ("beacon", text, False)]),
}


def source(v, where):
    """A seed source: the field `kind` names its variant (in the sequence
    form, the first element)."""
    if type(v) is dict:
        if "kind" not in v:
            raise Malformed("%s: missing field 'kind'" % where)
        kind = v["kind"]
        rest = {key: x for key, x in v.items() if key != "kind"}
    elif type(v) is list:
        if not v:
            raise Malformed("%s: missing field 'kind'" % where)
        kind, rest = v[0], v[1:]
    else:
        raise Malformed("%s: expected an object, got %s" % (where, describe(v)))
    if type(kind) is not str or kind not in SOURCE_KINDS:
        raise Malformed("%s.kind: expected one of text, drand, commit, got %s"
                        % (where, repr(kind) if type(kind) is str else describe(kind)))
    out = SOURCE_KINDS[kind](rest, where)
    out["kind"] = kind
    return out


TRANSCRIPT = record([
    ("format", text, False),
    ("mode", text, False),
    ("k", u64, False),
    ("population", record([("count", u64, False), ("digest", text, False),
                           ("items", list_of(text), True),
                           ("range", record([("lo", u64, False), ("hi", u64, False)]), True)]),
     False),
    ("sources", list_of(source), False),
    ("key", text, False),
    ("result", record([("indices", list_of(u64), False), ("items", list_of(text), False)]),
     False),
])


def parse_transcript(data):
    """The transcript in `data` (bytes), checked as `knuffle verify` does."""
    try:
        value = loads_strict(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise Trouble("malformed transcript JSON: not UTF-8 (byte %d)" % e.start) from None
    except ValueError as e:  # json.JSONDecodeError is one
        raise Trouble("malformed transcript JSON: %s" % e) from None
    if type(value) is not dict:
        raise Trouble('not a knuffle transcript: not a JSON object with a "format" field')
    if value.get("format") is None:
        raise Trouble('not a knuffle transcript: no "format" field')
    if type(value["format"]) is not str:
        raise Trouble('not a knuffle transcript: "format" is not a string')
    if value["format"] != FORMAT:
        raise Trouble("unknown transcript format %s (this verifier reads %s)"
                      % (json.dumps(value["format"]), json.dumps(FORMAT)))
    try:
        return TRANSCRIPT(value, "transcript")
    except Malformed as e:
        raise Trouble("malformed %s transcript: %s" % (FORMAT, e)) from None


def from_hex(s, what, size=None):
    """Hexadecimal, either case, an even number of digits (no spaces)."""
    if not re.fullmatch(r"(?:[0-9a-fA-F]{2})*", s):
        raise Trouble("%s: not an even number of hex digits: %r" % (what, s))
    data = bytes.fromhex(s)
    if size is not None and len(data) != size:
        raise Trouble("%s: expected %d hex digits (%d bytes), got %d"
                      % (what, 2 * size, size, len(s)))
    return data


# ------------------------------------------------------------ the format


class Population:
    """Items by index: a list of strings, or the integers lo..=hi."""

    def __init__(self, items=None, lo=None, hi=None):
        self.items, self.lo, self.hi = items, lo, hi
        self.count = len(items) if items is not None else hi - lo + 1

    def item(self, i):
        return self.items[i] if self.items is not None else str(self.lo + i)

    def digest(self):
        h = hashlib.sha256(b"knuffle-vd/1 population" + u64be(self.count))
        if self.items is not None:
            for item in self.items:
                h.update(lp(item.encode("utf-8")))
        else:
            step = 1 << 16
            for start in range(self.lo, self.hi + 1, step):
                h.update(b"".join(lp(str(v).encode("ascii"))
                                  for v in range(start, min(start + step, self.hi + 1))))
        return h.digest()


def source_label_value(source):
    kind = source["kind"]
    if kind == "text":
        return "text", source["value"].encode("utf-8")
    if kind == "drand":
        return beacon_ref(source), source["randomness_bytes"]
    return "commit", source["secret"].encode("utf-8")


def beacon_ref(source):
    return "drand:%s:%d" % (source["chain"], source["round"])


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
            self.words = [int.from_bytes(block[i:i + 8], "big") for i in range(24, -8, -8)]
        return self.words.pop()


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


def read_population(path, limit):
    """A population file: UTF-8 lines separated by \\n (a final one optional),
    at most `limit` bytes, and no more items than the memory budget holds
    (64 bytes per item besides the text, as knuffle counts)."""
    name = "standard input" if path == "-" else path
    data = read_limited(path, limit, "population file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Trouble("%s: not UTF-8 text (byte %d): items are text" % (name, e.start)) from None
    if text == "":
        return Population(items=[])
    body = text[:-1] if text.endswith("\n") else text
    lines = body.count("\n") + 1
    needed = lines * 64 + len(data)
    budget = memory_budget()
    if needed > budget:
        raise Trouble("%s: %d items need about %s of memory, more than the %s this run allows"
                      % (name, lines, human_bytes(needed), human_bytes(budget)))
    items = body.split("\n")
    if len(data) >= 1 << 32:
        for line, item in enumerate(items):
            if len(item.encode("utf-8")) >= 1 << 32:
                raise Trouble("%s: line %d is 4 GiB or longer (an item is at most 4 GiB - 1 "
                              "bytes)" % (name, line + 1))
    return Population(items=items)


def population_of(transcript, given):
    if given is not None:
        return given
    population = transcript["population"]
    if population["items"] is not None:
        return Population(items=population["items"])
    if population["range"] is not None:
        lo, hi = population["range"]["lo"], population["range"]["hi"]
        if hi < lo or hi - lo >= U64_MAX:
            raise Trouble("invalid range %d-%d" % (lo, hi))
        if hi - lo + 1 > MAX_RANGE_ITEMS:
            raise Trouble("range population of %d items is larger than the limit of %d"
                          % (hi - lo + 1, MAX_RANGE_ITEMS))
        return Population(lo=lo, hi=hi)
    raise Trouble("the transcript does not embed its population: give the population file")


def verify(transcript, population):
    """Returns a list of (check name, passed, detail)."""
    mode = transcript["mode"]
    if mode not in ("perm", "replace"):
        raise Trouble("unknown mode %s" % json.dumps(mode))
    sources = transcript["sources"]
    for s in sources:
        if s["kind"] == "drand":
            s["signature_bytes"] = from_hex(s["signature"], "drand signature")
            s["randomness_bytes"] = from_hex(s["randomness"], "drand randomness", 32)
            if s["previous_signature"] is not None:
                from_hex(s["previous_signature"], "drand previous_signature")
        elif s["kind"] == "commit":
            s["commitment_bytes"] = from_hex(s["commitment"], "commitment", 32)
    recorded_digest = from_hex(transcript["population"]["digest"], "population digest", 32)
    recorded_key = from_hex(transcript["key"], "key", 32)

    checks = []
    digest = population.digest()
    n = population.count
    checks.append(("population digest",
                   digest == recorded_digest and n == transcript["population"]["count"],
                   "%d items hash to %s" % (n, digest.hex())))
    drand_refs = [beacon_ref(s) for s in sources if s["kind"] == "drand"]
    for s in sources:
        if s["kind"] == "drand":
            derived = H(s["signature_bytes"])
            checks.append(("beacon randomness", derived == s["randomness_bytes"],
                           "round %d: SHA-256(signature) = %s" % (s["round"], derived.hex())))
        elif s["kind"] == "commit":
            derived = commitment(mode, digest, s["secret"], s["beacon"])
            checks.append(("commitment opening", derived == s["commitment_bytes"],
                           "recomputed %s" % derived.hex()))
            checks.append(("committed beacon", s["beacon"] in drand_refs,
                           "the commitment names %s" % s["beacon"]))
    key = derive_key(mode, digest, sources)
    checks.append(("key", key == recorded_key, "recomputed %s" % key.hex()))
    k = transcript["k"]
    indices, items = transcript["result"]["indices"], transcript["result"]["items"]
    k_fits = (n > 0 or k == 0) if mode == "replace" else k <= n
    k_ok = k_fits and len(indices) == k and len(items) == k
    checks.append(("k", k_ok, "k = %d, %d indices and %d items recorded, %d in the population"
                   % (k, len(indices), len(items), n)))
    if k_ok:
        # Bounded: k is the number of indices the transcript records.
        derived = draw(key, mode, n, k)
        t = next((t for t, (a, b) in enumerate(zip(derived, indices)) if a != b), None)
        if t is not None:
            checks.append(("result", False, "draw %d re-derives as index %d, the transcript "
                           "says %d" % (t + 1, derived[t], indices[t])))
        elif all(population.item(i) == item for i, item in zip(derived, items)):
            checks.append(("result", True, "the drawn indices and items re-derive exactly"))
        else:
            checks.append(("result", False, "the indices re-derive, but an item differs from "
                           "the population's"))
    else:
        checks.append(("result", False, "not re-derived (the k check failed)"))
    return checks


# ------------------------------------------------------------------ main


USAGE = "usage: reference_verifier.py [--max-size SIZE] TRANSCRIPT [POPULATION_FILE]"


def parse_args(argv):
    """(max_size, transcript, population file or None)."""
    max_size = None
    paths = []
    args = list(argv)
    only_paths = False
    while args:
        arg = args.pop(0)
        if only_paths or arg == "-" or not arg.startswith("-"):
            paths.append(arg)
        elif arg == "--":
            only_paths = True
        elif arg == "--max-size" or arg.startswith("--max-size="):
            if max_size is not None:
                raise Trouble("the argument '--max-size <SIZE>' cannot be used multiple times")
            if arg == "--max-size":
                if not args:
                    raise Trouble("a value is required for '--max-size <SIZE>'\n" + USAGE)
                arg = "--max-size=" + args.pop(0)
            max_size = parse_size(arg[len("--max-size="):])
        else:
            raise Trouble("unknown option %s\n%s" % (arg, USAGE))
    if len(paths) not in (1, 2):
        raise Trouble(USAGE)
    if max_size is None:
        max_size = DEFAULT_MAX_SIZE
    return max_size, paths[0], paths[1] if len(paths) == 2 else None


def run(argv):
    if argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    max_size, transcript_path, population_path = parse_args(argv[1:])
    transcript = parse_transcript(read_limited(transcript_path, max_size, "transcript"))
    given = None if population_path is None else read_population(population_path, max_size)
    checks = verify(transcript, population_of(transcript, given))
    lines = ["%s %s: %s" % ("ok  " if passed else "FAIL", name, detail)
             for name, passed, detail in checks]
    if any(s["kind"] == "drand" for s in transcript["sources"]):
        lines.append("note the beacon's BLS signature was not checked")
    failed = [name for name, passed, _ in checks if not passed]
    if failed:
        lines.append("does not verify: the %s check failed" % failed[0])
    else:
        lines.append("verified")
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 1 if failed else 0


def main(argv):
    """Runs the verifier; every failure is an exit status and a message."""
    try:
        return run(argv)
    except Trouble as e:
        message = str(e)
    except BrokenPipeError:
        # The reader went away: nothing more can be written (exit 2, as knuffle).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 2
    except MemoryError:
        message = "out of memory"
    except RecursionError:
        message = "nested too deeply"
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback
        message = "unexpected %s: %s" % (type(e).__name__, e)
    try:
        print("reference_verifier: trouble: %s" % message, file=sys.stderr)
    except Exception:  # noqa: BLE001 - standard error itself is gone
        pass
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
