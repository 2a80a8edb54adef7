import numpy as np

import knuffle


def test_shuffle_is_a_permutation_and_reproducible():
    a = np.arange(1000, dtype=np.int64)
    b = a.copy()
    knuffle.Generator("s").shuffle(a)
    knuffle.Generator("s").shuffle(b)
    assert sorted(a.tolist()) == list(range(1000))
    assert (a == b).all()
    assert (a != np.arange(1000)).any()


def test_permutation_n():
    p = knuffle.Generator("s").permutation(100)
    assert p.dtype == np.int64
    assert sorted(p.tolist()) == list(range(100))
