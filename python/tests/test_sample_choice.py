"""Generator.sample (Floyd) and Generator.choice (uniform and weighted)."""

from collections import Counter
from itertools import permutations

import numpy as np
import pytest

import knuffle
from conftest import CHI2_23_AT_0_001


def test_sample_distinct_in_range_and_reproducible():
    s = knuffle.Generator("s").sample(1000, 100)
    assert s.dtype == np.int64 and len(set(s.tolist())) == 100 and s.min() >= 0 and s.max() < 1000
    assert (s == knuffle.Generator("s").sample(1000, 100)).all()
    assert sorted(knuffle.Generator("s").sample(10, 10).tolist()) == list(range(10))
    assert knuffle.Generator("s").sample(0, 0).size == 0


def test_sample_huge_n():
    s = knuffle.Generator("huge").sample(2**64 - 1, 5)
    assert s.dtype == np.uint64 and len(set(s.tolist())) == 5
    t = knuffle.Generator("huge").sample(2**63, 5)
    assert t.dtype == np.int64 and (t >= 0).all()


def test_sample_errors():
    g = knuffle.Generator("e")
    with pytest.raises(ValueError, match="k = 6"):
        g.sample(5, 6)
    with pytest.raises(ValueError):
        g.sample(-1, 0)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        g.sample(2**64, 1)
    with pytest.raises(TypeError):
        g.sample(10.0, 2)
    with pytest.raises(MemoryError):
        g.sample(2**64 - 1, 2**62)


def test_sample_ordered_pairs_are_uniform():
    # k = 2 of n = 5: 20 ordered pairs, each 1/20.
    g = knuffle.Generator("pairs")
    counts = Counter(tuple(g.sample(5, 2).tolist()) for _ in range(20000))
    assert len(counts) == 20
    expected = 1000
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 43.82  # chi-square, 19 dof, alpha = 0.001


def test_choice_uniform():
    g = knuffle.Generator("c")
    out = g.choice(["a", "b", "c", "d"], 3)
    assert len(set(out.tolist())) == 3
    rows = g.choice(np.arange(10).reshape(5, 2), 2)
    assert rows.shape == (2, 2) and (rows[:, 1] == rows[:, 0] + 1).all()
    assert sorted(g.choice(7, 7).tolist()) == list(range(7))


def test_weighted_zero_weights_never_chosen():
    g = knuffle.Generator("w")
    for _ in range(200):
        assert sorted(g.choice(["a", "b", "c", "d"], 2, weights=[3, 0, 0, 1]).tolist()) == ["a", "d"]
        assert sorted(g.choice(4, 2, weights=np.array([0.0, 2.5, 0.0, 1e-300])).tolist()) == [1, 3]


def test_weighted_law_is_successive_sampling():
    # weights 1, 2, 3, 4 (total 10), k = 2: P(i then j) = w_i/10 * w_j/(10 - w_i).
    w = [1, 2, 3, 4]
    for weights in (w, np.array(w, dtype=np.float64), np.array(w, dtype=np.uint8)):
        g = knuffle.Generator("law")
        trials = 40000
        counts = Counter(tuple(g.choice(4, 2, weights=weights).tolist()) for _ in range(trials))
        chi2 = 0.0
        for i, j in permutations(range(4), 2):
            p = w[i] / 10 * w[j] / (10 - w[i])
            expected = trials * p
            chi2 += (counts[(i, j)] - expected) ** 2 / expected
        assert chi2 < 32.91, (weights, counts)  # 11 dof, alpha = 0.001


def test_weighted_law_flags_a_wrong_law():
    # The same test must reject draws with replacement-like bias: uniform draws.
    w = [1, 2, 3, 4]
    g = knuffle.Generator("law")
    trials = 40000
    counts = Counter(tuple(g.choice(4, 2).tolist()) for _ in range(trials))
    chi2 = sum(
        (counts[(i, j)] - trials * w[i] / 10 * w[j] / (10 - w[i])) ** 2 / (trials * w[i] / 10 * w[j] / (10 - w[i]))
        for i, j in permutations(range(4), 2)
    )
    assert chi2 > 32.91


def test_weighted_huge_integer_weights_exact():
    g = knuffle.Generator("big weights")
    # Two weights near 2**64: sums beyond 64 bits are handled exactly.
    picks = Counter(g.choice(2, 1, weights=[2**64 - 1, 2**64 - 1])[0] for _ in range(2000))
    assert set(picks) == {0, 1}
    assert g.choice(3, 1, weights=[0, 2**64 - 1, 0]).tolist() == [1]


def test_weighted_float_tiny_and_wide_range():
    g = knuffle.Generator("floats")
    # A weight 2**-20 of the largest is exact: chosen about 1 in 2**20 draws.
    w = [1.0, 2.0**-20]
    picks = [g.choice(2, 1, weights=w)[0] for _ in range(2000)]
    assert picks.count(1) < 5
    assert sorted(g.choice(2, 2, weights=w).tolist()) == [0, 1]


def test_weighted_errors():
    g = knuffle.Generator("e")
    with pytest.raises(ValueError, match="positive weight"):
        g.choice(3, 2, weights=[1, 0, 0])
    with pytest.raises(ValueError, match="non-negative"):
        g.choice(3, 1, weights=[1, -1, 0])
    with pytest.raises(ValueError, match="finite"):
        g.choice(3, 1, weights=[1.0, float("nan"), 0.0])
    with pytest.raises(ValueError, match="finite"):
        g.choice(3, 1, weights=[1.0, float("inf"), 0.0])
    with pytest.raises(ValueError, match="shape"):
        g.choice(3, 1, weights=[1, 2])
    with pytest.raises(ValueError, match="2\\*\\*64"):
        g.choice(2, 1, weights=[2**64, 1])
    with pytest.raises(TypeError, match="weights"):
        g.choice(2, 1, weights=["a", "b"])
    with pytest.raises(ValueError, match="k = 5"):
        g.choice([1, 2, 3], 5)
    with pytest.raises(TypeError):
        g.choice("abc", 1)
    with pytest.raises(ValueError):
        g.choice(3, -1)


def test_chi_square_threshold_constant_is_sane():
    assert 40 < CHI2_23_AT_0_001 < 60
