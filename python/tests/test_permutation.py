"""Generator.permutation: of n, and shuffled copies."""

import numpy as np
import pytest

import knuffle


def test_permutation_of_n():
    for n in (0, 1, 2, 5, 1000):
        p = knuffle.Generator("p").permutation(n)
        assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(n))
    assert (knuffle.Generator("p").permutation(np.int32(10)) == knuffle.Generator("p").permutation(10)).all()


def test_permutation_copy_leaves_input_unchanged():
    a = np.arange(20).reshape(10, 2)
    copy = knuffle.Generator("c").permutation(a)
    assert (a == np.arange(20).reshape(10, 2)).all()
    assert (copy == a[knuffle.Generator("c").permutation(10)]).all()
    items = ["x", "y", "z"]
    out = knuffle.Generator("c").permutation(items)
    assert items == ["x", "y", "z"] and sorted(out.tolist()) == items
    ro = np.arange(5)
    ro.flags.writeable = False
    assert sorted(knuffle.Generator("c").permutation(ro).tolist()) == list(range(5))


def test_permutation_errors():
    g = knuffle.Generator("e")
    with pytest.raises(ValueError, match="non-negative"):
        g.permutation(-1)
    with pytest.raises(ValueError, match="int64"):
        g.permutation(2**63)
    for bad in ("abc", 2.5, None, {"a": 1}, True):
        with pytest.raises(TypeError):
            g.permutation(bad)
    with pytest.raises(MemoryError):
        g.permutation(2**62)


def test_permutation_of_series():
    import pandas as pd

    s = pd.Series([5, 6, 7])
    out = knuffle.Generator("c").permutation(s)
    assert isinstance(out, np.ndarray) and sorted(out.tolist()) == [5, 6, 7]
