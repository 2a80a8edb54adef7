"""knuffle.epoch_order: the table order of each epoch's seed text, read by
position, slice and iteration without holding n row numbers; every order of
4 rows equally likely (a stand-in without tie shuffles fails the same
test); every split into ranks x loader workers merging back into the order;
bad arguments refused."""

import pickle

import numpy as np
import pytest

import knuffle
from conftest import CHI2_23_AT_0_001, order_chi_square


def reference(seed, n, epoch=0):
    return knuffle.table_order(knuffle.epoch_seed(seed, epoch), n)


def test_epoch_seeds():
    assert knuffle.epoch_seed("friday", 0) == "friday"
    assert knuffle.epoch_seed("friday", 3) == "knuffle epoch 3: friday"
    assert knuffle.epoch_seed(42, 2**64 - 1) == "knuffle epoch 18446744073709551615: 42"


@pytest.mark.parametrize(("seed", "n", "epoch"), [("", 0, 0), ("a", 1, 0), ("friday poker", 10, 0), ("x", 1000, 1), ("medium", 54_321, 9)])
def test_equals_the_table_order_of_the_epoch_seed(seed, n, epoch):
    order = knuffle.epoch_order(seed, n, epoch=epoch)
    expected = reference(seed, n, epoch)
    assert len(order) == n
    assert list(order) == expected.tolist()
    assert np.array_equal(order[:], expected)
    assert order[:].dtype == np.int64


def test_epoch_zero_is_the_seed_and_int_seeds_are_their_text():
    assert list(knuffle.epoch_order("friday poker", 10)) == [6, 4, 1, 8, 3, 2, 0, 5, 7, 9]
    assert list(knuffle.epoch_order(42, 20, epoch=2)) == list(knuffle.epoch_order("42", 20, epoch=2))
    assert knuffle.epoch_order(np.int64(7), 5).seed == "7"


def test_indices_and_slices_are_pythons():
    n = 30_011
    order = knuffle.epoch_order("slices", n, epoch=4)
    expected = reference("slices", n, 4)
    as_list = expected.tolist()
    for i in (0, 1, n - 1, -1, -n, 12_345):
        assert order[i] == as_list[i]
    for s in (
        slice(None),
        slice(5, 17),
        slice(-20, None),
        slice(100, 40_000, 7),
        slice(None, None, -1),
        slice(n - 3, 10, -1000),
        slice(20, 10),
        slice(7, 8, 5),
        slice(None, None, n + 5),
    ):
        assert np.array_equal(order[s], expected[s]), s
    for bad in (n, -n - 1, 2**70):
        with pytest.raises(IndexError):
            order[bad]
    with pytest.raises(TypeError):
        order[True]
    with pytest.raises(TypeError):
        order[1.5]


def test_sequential_slices_read_the_order():
    n = 100_003
    order = knuffle.epoch_order("chunks", n)
    parts = [order[a : a + 4096] for a in range(0, n, 4096)]
    assert np.array_equal(np.concatenate(parts), reference("chunks", n))


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("workers", [0, 1, 2])
def test_every_ranks_and_workers_split_merges_back(ranks, workers):
    # Consumer c of C (C = ranks x workers, worker 0 standing for the main
    # process when workers = 0) takes positions c, c + C, ...: merged by
    # position the consumers' rows are the epoch's order.
    n = 1009
    order = knuffle.epoch_order("split", n, epoch=1)
    consumers = ranks * max(workers, 1)
    merged = np.full(n, -1, dtype=np.int64)
    for rank in range(ranks):
        for worker in range(max(workers, 1)):
            c = rank * max(workers, 1) + worker
            merged[c::consumers] = order[c::consumers]
    assert np.array_equal(merged, reference("split", n, 1))


def test_every_order_of_four_rows_is_equally_likely():
    # 24 orders, 250 expected each, over 6000 seeds.
    rows = np.array([list(knuffle.epoch_order(f"seed {t}", 4, epoch=1)) for t in range(6000)])
    assert order_chi_square(rows) < CHI2_23_AT_0_001


def test_the_same_test_rejects_orders_without_tie_shuffles():
    # The stand-in: 2-bit labels, ties left in row order.
    rows = []
    for t in range(6000):
        labels = knuffle._knuffle.table_labels(knuffle.epoch_seed(f"seed {t}", 1), 0, 4) >> 30
        rows.append(np.argsort(labels, kind="stable").tolist())
    assert order_chi_square(np.array(rows)) > CHI2_23_AT_0_001


def test_pickles_as_its_arguments():
    order = knuffle.epoch_order("pickle", 100, epoch=3)
    again = pickle.loads(pickle.dumps(order))
    assert (again.seed, again.epoch, len(again)) == ("pickle", 3, 100)
    assert list(again) == list(order)
    assert repr(order) == "knuffle.epoch_order('pickle', 100, epoch=3)"


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="n must be from 0 to 4294967296, got -1"):
        knuffle.epoch_order("s", -1)
    with pytest.raises(ValueError, match="n must be from 0 to 4294967296"):
        knuffle.epoch_order("s", 2**32 + 1)
    with pytest.raises(ValueError, match="epoch must be from 0 to 18446744073709551615"):
        knuffle.epoch_order("s", 10, epoch=-1)
    with pytest.raises(ValueError, match="epoch"):
        knuffle.epoch_order("s", 10, epoch=2**64)
    with pytest.raises(TypeError, match="seed must be a str"):
        knuffle.epoch_order(1.5, 10)
    with pytest.raises(TypeError, match="seed must be a str"):
        knuffle.epoch_order(True, 10)
    with pytest.raises(TypeError, match="n must be an integer"):
        knuffle.epoch_order("s", 10.0)
    with pytest.raises(TypeError, match="bool"):
        knuffle.epoch_order("s", True)
    with pytest.raises(ValueError, match="epoch"):
        knuffle.epoch_seed("s", -1)
