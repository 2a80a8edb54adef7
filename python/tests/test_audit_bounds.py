"""`knuffle.audit` refuses a universe size too large before any work."""

import numpy as np
import pytest

import knuffle


@pytest.mark.parametrize("n", [10**12, 2**32 + 1, 2**64 - 1, 10**30])
def test_a_huge_n_raises_value_error_before_any_work(n):
    rows = np.array([[0, 1, 2], [2, 1, 0]])
    with pytest.raises(ValueError, match="too large: at most 4294967296 items"):
        knuffle.audit(rows, n=n)


def test_the_binding_checks_too():
    from knuffle import _knuffle

    rows = np.ascontiguousarray([[0, 1, 2]], dtype=np.int64)
    with pytest.raises(ValueError, match="too large"):
        _knuffle.audit_rows(rows, 10**12, 0, 0.001, None)


def test_deals_from_the_largest_deck_cost_nothing_up_front():
    rows = np.array([[0, 4294967295, 7], [5, 6, 8]])
    report = knuffle.audit(rows, n=2**32)
    assert report.trials == 2
    with pytest.raises(ValueError, match="appears more than once"):
        knuffle.audit(np.array([[1, 2, 1]]), n=2**32)
