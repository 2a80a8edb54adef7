"""knuffle.audit: the tests of `knuffle audit` on arrays of shuffles."""

import json

import numpy as np
import pytest

import knuffle


def fair_rows(n=6, trials=20000, seed="audit"):
    g = knuffle.Generator(seed)
    return np.stack([g.permutation(n) for _ in range(trials)])


def test_fair_report_fields():
    report = knuffle.audit(fair_rows())
    assert not report.biased and report.verdict == "no bias found"
    assert report.n == 6 and report.k == 6 and report.trials == 20000
    assert report.tests and all(0 <= t.p_value <= 1 for t in report.tests)
    assert 0 < report.p_value <= 1
    assert report.power and "power" in str(report)
    d = report.to_dict()
    json.dumps(d)
    assert d["biased"] is False and d["tests"][0]["name"] == report.tests[0].name
    assert report.positions.sum() == 6 * 20000
    assert "no bias found" in repr(report)


def test_biased_rows_are_flagged():
    rows = fair_rows()
    rows[::2] = np.arange(6)  # half the shuffles left sorted
    report = knuffle.audit(rows)
    assert report.biased and report.verdict == "biased" and report.p_value < 1e-6


def test_lists_base_one_deals_and_effect():
    rows = (fair_rows(5, 3000) + 1).tolist()
    assert not knuffle.audit(rows, base=1).biased
    deals = fair_rows(10, 5000)[:, :3]
    report = knuffle.audit(deals, n=10)
    assert report.k == 3 and report.n == 10 and not report.biased
    with_effect = knuffle.audit(fair_rows(5, 2000), effect=0.1)
    assert any("w = 0.1" in p for p in with_effect.power)


def test_too_few_shuffles():
    report = knuffle.audit(fair_rows(20, 30))
    assert not report.biased and report.too_few_to_clear and report.verdict == "too few shuffles"


def test_bad_input():
    with pytest.raises(ValueError, match="not a permutation"):
        knuffle.audit([[0, 1, 1], [0, 1, 2]])
    with pytest.raises(ValueError, match="outside"):
        knuffle.audit([[0, 1, 3]])
    with pytest.raises(ValueError, match="equal length"):
        knuffle.audit([[0, 1, 2], [0, 1]])
    with pytest.raises(ValueError, match="2-D"):
        knuffle.audit([0, 1, 2])
    with pytest.raises(TypeError, match="integers"):
        knuffle.audit([[0.0, 1.0]])
    with pytest.raises(ValueError, match="no shuffles"):
        knuffle.audit(np.zeros((0, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="universe"):
        knuffle.audit([[0, 1, 2]], n=2)
    with pytest.raises(ValueError, match="alpha"):
        knuffle.audit([[0, 1], [1, 0]], alpha=2.0)
