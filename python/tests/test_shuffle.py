"""Generator.shuffle on every kind of input."""

import numpy as np
import pytest

import knuffle

N = 257
SEED = "shuffle tests"


def expected_order(n, seed=SEED):
    return knuffle.Generator(seed).permutation(n)


@pytest.mark.parametrize(
    "dtype",
    [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
     np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_, "U7", "S3",
     "datetime64[s]"],
)
def test_every_dtype_follows_permutation_order(dtype):
    base = np.arange(N) % 250
    a = base.astype(dtype)
    original = a.copy()
    knuffle.Generator(SEED).shuffle(a)
    assert a.dtype == original.dtype
    assert (a == original[expected_order(N)]).all()


def test_structured_records_move_whole():
    rec = np.zeros(N, dtype=[("id", "<i4"), ("score", "<f8"), ("name", "U5")])
    rec["id"] = np.arange(N)
    rec["score"] = np.arange(N) * 0.5
    rec["name"] = [f"n{i}" for i in range(N)]
    original = rec.copy()
    knuffle.Generator(SEED).shuffle(rec)
    assert (rec == original[expected_order(N)]).all()
    assert (rec["score"] == rec["id"] * 0.5).all()


def test_object_arrays_keep_their_objects():
    objs = np.empty(N, dtype=object)
    objs[:] = [{"i": i} for i in range(N)]
    original = objs.copy()
    knuffle.Generator(SEED).shuffle(objs)
    order = expected_order(N)
    assert all(objs[j] is original[order[j]] for j in range(N))


@pytest.mark.parametrize("shape", [(N, 2), (N, 3), (N, 1), (N, 4, 5), (N, 0)])
def test_rows_of_a_2d_array_move_whole(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    original = a.copy()
    knuffle.Generator(SEED).shuffle(a)
    assert (a == original[expected_order(N)]).all()


def test_features_and_labels_stay_aligned():
    x = np.random.default_rng(0).normal(size=(N, 7))
    y = np.arange(N, dtype=np.int8) % 100
    x0, y0 = x.copy(), y.copy()
    knuffle.Generator("align").shuffle(x)
    knuffle.Generator("align").shuffle(y)
    order = knuffle.Generator("align").permutation(N)
    assert (x == x0[order]).all() and (y == y0[order]).all()


def test_non_contiguous_views_are_shuffled_in_place():
    base = np.arange(3 * N, dtype=np.int64)
    view = base[::3]
    knuffle.Generator(SEED).shuffle(view)
    assert (view == np.arange(0, 3 * N, 3)[expected_order(N)]).all()
    assert (base[1::3] == np.arange(1, 3 * N, 3)).all()  # the other elements untouched
    fortran = np.asfortranarray(np.arange(N * 3).reshape(N, 3))
    original = fortran.copy()
    knuffle.Generator(SEED).shuffle(fortran)
    assert (fortran == original[expected_order(N)]).all()


def test_unaligned_buffer():
    raw = np.zeros(8 * N + 1, dtype=np.uint8)
    a = raw[1:].view(np.int64)
    a[:] = np.arange(N)
    knuffle.Generator(SEED).shuffle(a)
    assert (a == expected_order(N)).all()


def test_masked_array_keeps_mask_with_values():
    a = np.ma.masked_array(np.arange(N), mask=np.arange(N) % 3 == 0)
    knuffle.Generator(SEED).shuffle(a)
    assert (a.mask == (a.data % 3 == 0)).all()
    assert (a.data == expected_order(N)).all()


def test_list_bytearray_memoryview():
    items = [f"item{i}" for i in range(N)]
    original = list(items)
    knuffle.Generator(SEED).shuffle(items)
    assert items == [original[i] for i in expected_order(N)]

    data = bytearray(range(200))
    knuffle.Generator(SEED).shuffle(data)
    assert list(data) == expected_order(200).tolist()

    buf = np.arange(N, dtype=np.int32)
    knuffle.Generator(SEED).shuffle(memoryview(buf))
    assert (buf == expected_order(N)).all()


@pytest.mark.parametrize("make", [lambda: np.array([], dtype=np.int64), lambda: [], lambda: bytearray()])
def test_empty_inputs(make):
    x = make()
    knuffle.Generator(SEED).shuffle(x)
    assert len(x) == 0


def test_one_element():
    for x in (np.array([7]), [7], bytearray(b"\x07"), np.array([[1, 2]])):
        before = np.array(x).copy()
        knuffle.Generator(SEED).shuffle(x)
        assert (np.array(x) == before).all()


def test_seeds_reproducible_and_distinct():
    a, b, c = (np.arange(1000) for _ in range(3))
    knuffle.Generator("one").shuffle(a)
    knuffle.Generator("one").shuffle(b)
    knuffle.Generator("two").shuffle(c)
    assert (a == b).all() and (a != c).any()
    g = knuffle.Generator("stream")
    first, second = g.permutation(50), g.permutation(50)
    assert (first != second).any()  # the stream moves on


def test_os_seeded_generators_differ_and_replay():
    g1, g2 = knuffle.Generator(), knuffle.Generator()
    assert g1.seed != g2.seed and len(g1.seed) == 64
    replay = knuffle.Generator(g1.seed)
    assert (g1.permutation(100) == replay.permutation(100)).all()


@pytest.mark.parametrize("dtype", [np.int64, np.int8, [("a", "<i8"), ("b", "<i8")]])
def test_result_independent_of_thread_count(dtype):
    # 2.5 million rows: past the 16 MiB threshold, so the thread pool runs.
    n = 2_500_000
    results = []
    for threads in (1, 2, 3):
        a = np.zeros(n, dtype=dtype)
        if a.dtype.names:
            a["a"] = np.arange(n)
        else:
            a[:] = np.arange(n)
        knuffle.Generator("threads").shuffle(a, threads=threads)
        results.append(a["a"].copy() if a.dtype.names else a.astype(np.int64))
    assert (results[0] == results[1]).all() and (results[0] == results[2]).all()
    order = knuffle.Generator("threads", threads=1).permutation(n)
    payload = np.arange(n) if np.dtype(dtype).names else np.arange(n).astype(dtype)
    assert (results[0] == payload[order]).all()


@pytest.mark.parametrize("bad", [(1, 2, 3), "abc", {1: 2}, {1, 2}, 5, None, b"abc", range(5)])
def test_unsupported_objects_raise_type_error(bad):
    with pytest.raises(TypeError, match="cannot shuffle"):
        knuffle.Generator(SEED).shuffle(bad)


def test_read_only_inputs_are_refused_and_unchanged():
    a = np.arange(10)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        knuffle.Generator(SEED).shuffle(a)
    assert (a == np.arange(10)).all()
    with pytest.raises(TypeError, match="read-only memoryview"):
        knuffle.Generator(SEED).shuffle(memoryview(b"abcdef"))


def test_zero_dim_and_bad_threads():
    with pytest.raises(ValueError, match="0-d"):
        knuffle.Generator(SEED).shuffle(np.array(5))
    a = np.arange(10)
    with pytest.raises(ValueError, match="threads"):
        knuffle.Generator(SEED).shuffle(a, threads=0)
    assert (a == np.arange(10)).all()
    with pytest.raises(ValueError, match="threads"):
        knuffle.Generator(SEED, threads=0)
    with pytest.raises(TypeError, match="seed"):
        knuffle.Generator(42)
