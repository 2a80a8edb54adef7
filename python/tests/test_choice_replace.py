"""`Generator.choice(..., replace=True)`: independent draws, uniform or by
weight, checked against their exact laws with a chi-square test that a
correct sampler passes and a biased stand-in fails (fixed seeds)."""

import numpy as np
import pytest

import knuffle

# Upper 0.001 quantiles of chi-square with 3 and 5 degrees of freedom.
CHI2_3 = 16.266
CHI2_5 = 20.515


def chi_square(counts, probabilities):
    counts = np.asarray(counts, dtype=float)
    expected = counts.sum() * np.asarray(probabilities, dtype=float)
    return float(((counts - expected) ** 2 / expected).sum())


def test_uniform_draws_with_replacement_are_uniform_and_a_biased_stand_in_fails():
    draws = knuffle.Generator("replace").choice(6, 60_000, replace=True)
    assert draws.shape == (60_000,)
    counts = np.bincount(draws, minlength=6)
    assert chi_square(counts, [1 / 6] * 6) < CHI2_5
    # The stand-in: 3 random bits folded onto 6 values (0 and 1 twice as likely).
    bits = np.random.default_rng(7).integers(0, 8, size=60_000)
    biased = np.bincount(bits % 6, minlength=6)
    assert chi_square(biased, [1 / 6] * 6) > CHI2_5


def test_weighted_draws_with_replacement_follow_the_weights_and_truncated_weights_fail():
    weights = [1, 2, 3, 4]
    exact = [w / 10 for w in weights]
    for w in (weights, [1.0, 2.0, 3.0, 4.0]):
        draws = knuffle.Generator("weights").choice(4, 100_000, weights=w, replace=True)
        assert chi_square(np.bincount(draws, minlength=4), exact) < CHI2_3
    # The stand-in draws by [1, 2, 3, 3]: tested against the true law, it fails.
    wrong = knuffle.Generator("weights").choice(4, 100_000, weights=[1, 2, 3, 3], replace=True)
    assert chi_square(np.bincount(wrong, minlength=4), exact) > CHI2_3


def test_draws_repeat_elements_and_replay_from_the_seed():
    g = knuffle.Generator("again")
    first = g.choice(["a", "b", "c"], 50, replace=True)
    assert len(first) == 50 and set(first.tolist()) <= {"a", "b", "c"}
    assert len(set(first.tolist())) < 50  # more draws than elements: repeats
    again = knuffle.Generator("again").choice(["a", "b", "c"], 50, replace=True)
    assert first.tolist() == again.tolist()
    # A zero weight is never drawn; rows of a 2-D array come whole.
    rows = np.arange(12).reshape(4, 3)
    drawn = knuffle.Generator("rows").choice(rows, 30, weights=[0, 1, 0, 1], replace=True)
    assert drawn.shape == (30, 3)
    assert set(map(tuple, drawn.tolist())) <= {(3, 4, 5), (9, 10, 11)}
    # Without replacement nothing changed: k distinct elements.
    assert len(set(knuffle.Generator("d").choice(10, 10).tolist())) == 10


def test_impossible_draws_are_clear_errors():
    g = knuffle.Generator("e")
    with pytest.raises(ValueError, match="empty population"):
        g.choice(0, 1, replace=True)
    with pytest.raises(ValueError, match="no item has a positive weight"):
        g.choice(3, 1, weights=[0, 0, 0], replace=True)
    with pytest.raises(ValueError, match="distinct"):
        g.choice(3, 4)
    assert g.choice(0, 0, replace=True).tolist() == []
