"""Chi-square over the 24 orders of 4 items, for every shuffle path, with a
biased negative control that the same test rejects."""

import random

import numpy as np
import pytest

import knuffle
from conftest import CHI2_23_AT_0_001, order_chi_square

TRIALS = 24_000


def naive_swap(items, rng):
    """The classic wrong shuffle: swap each position with any position."""
    n = len(items)
    for i in range(n):
        j = rng.randrange(n)
        items[i], items[j] = items[j], items[i]


def knuffle_rows(shuffle_one):
    g = knuffle.Generator("uniformity")
    rows = np.empty((TRIALS, 4), dtype=np.int64)
    for t in range(TRIALS):
        rows[t] = shuffle_one(g)
    return rows


def by_array(g):
    a = np.arange(4, dtype=np.int8)
    g.shuffle(a)
    return a


def by_list(g):
    items = [0, 1, 2, 3]
    g.shuffle(items)
    return items


def by_records(g):
    rec = np.zeros(4, dtype=[("i", "<i8"), ("pad", "S9")])
    rec["i"] = np.arange(4)
    g.shuffle(rec)
    return rec["i"]


def by_permutation(g):
    return g.permutation(4)


def by_sample(g):
    return g.sample(4, 4)


@pytest.mark.parametrize("shuffle_one", [by_array, by_list, by_records, by_permutation, by_sample])
def test_every_order_equally_likely(shuffle_one):
    rows = knuffle_rows(shuffle_one)
    assert order_chi_square(rows) < CHI2_23_AT_0_001
    assert not knuffle.audit(rows).biased


def test_the_same_test_rejects_the_naive_swap():
    rng = random.Random(20261122)
    rows = np.empty((TRIALS, 4), dtype=np.int64)
    for t in range(TRIALS):
        items = [0, 1, 2, 3]
        naive_swap(items, rng)
        rows[t] = items
    assert order_chi_square(rows) > CHI2_23_AT_0_001
    assert knuffle.audit(rows).biased
