"""knuffle.audit_order: real loaders' approximate shuffles are flagged at
n = 10**5 with the default alpha, exact ones pass (false alarms counted over
200 seeds), bad input raises ValueError. The loaders are the real packages
(datasets, webdataset, ray, torch); under CI=true a missing one fails."""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest
from conftest import require

import knuffle

N = 100_000
SEEDS = 200


def flagged(order, cause: str, **kwargs) -> knuffle.OrderAuditReport:
    report = knuffle.audit_order(order, **kwargs)
    assert report.biased, str(report)
    assert report.verdict == "biased", str(report)
    assert any(cause in c for c in report.causes), str(report)
    return report


def needs(package: str) -> None:
    require(importlib.util.find_spec(package) is not None, f"{package} is not installed")


# --- approximate shuffles: flagged ------------------------------------------


def test_hugging_face_iterable_dataset_buffer_shuffle_is_flagged():
    needs("datasets")
    from datasets import Dataset

    ds = Dataset.from_dict({"id": np.arange(N)}).to_iterable_dataset(num_shards=1)
    order = np.concatenate([b["id"] for b in ds.shuffle(seed=7, buffer_size=1000).iter(batch_size=10_000)])
    assert sorted(order.tolist()) == list(range(N))
    report = flagged(order, "buffer shuffle of about")
    # The window estimate has the buffer's order of magnitude (740 for this
    # buffer of 1,000 rows: its rows leave the buffer at random, so they
    # move less than a sliding window of 1,000 would move them).
    window = next(c for c in report.causes if "buffer shuffle" in c)
    estimate = int(window.split("buffer shuffle of about ")[1].split(" ")[0].replace(",", ""))
    assert 300 <= estimate <= 3000, window


def test_webdataset_shuffle_buffer_is_flagged():
    needs("webdataset")
    import webdataset as wds

    order = np.fromiter(wds.filters.shuffle(1000, initial=100, rng=random.Random(3))(iter(range(N))), dtype=np.int64)
    assert sorted(order.tolist()) == list(range(N))
    flagged(order, "buffer shuffle of about")


def test_ray_local_shuffle_buffer_is_flagged(ray_runtime):
    ds = ray_runtime.data.range(N, override_num_blocks=4)
    batches = ds.iter_batches(batch_size=1000, local_shuffle_buffer_size=1000, local_shuffle_seed=5)
    order = np.concatenate([b["id"] for b in batches])
    assert sorted(order.tolist()) == list(range(N))
    # Flagged; its blocks are read in turn, so the coarse table names the cause.
    flagged(order, "")


def test_block_shuffle_is_flagged():
    rng = np.random.default_rng(11)
    order = (rng.permutation(N // 1000)[:, None] * 1000 + np.arange(1000)).ravel()
    flagged(order, "blocks of about 1,000 rows")


def test_shards_read_round_robin_are_flagged_with_and_without_the_shards():
    rng = np.random.default_rng(12)
    shards = 8
    size = N // shards
    each = [s * size + rng.permutation(size) for s in range(shards)]
    order = np.stack(each, axis=1).ravel()  # shard 0, 1, ..., 7, shard 0, ...
    flagged(order, "shards read in turn")
    shard_of = np.arange(N) // size
    report = flagged(order, "shards read in turn", shard_of=shard_of)
    same = next(t for t in report.tests if t.name == "neighbours in the same shard")
    assert same.statistic < -50, same


def test_the_same_order_two_epochs_running_fails_hard():
    order = knuffle.table_order("epoch", N)
    report = flagged(order, "the same order as the previous epoch", previous=order)
    fixed = next(t for t in report.tests if t.name == "same position as previous epoch")
    assert fixed.statistic == N and fixed.adjusted_p == 0.0
    # Two independent epochs pass.
    other = knuffle.table_order("epoch 2", N)
    assert not knuffle.audit_order(other, previous=order).biased


def test_rows_not_shuffled_at_all_are_named():
    flagged(np.arange(N), "not shuffled at all")


# --- exact shuffles: pass, false alarms counted over 200 seeds ----------------


def false_alarms(orders) -> tuple[int, int]:
    """Audits at alpha 0.001 (the default) and 0.05: how many are flagged."""
    p = np.array([knuffle.audit_order(o).p_value for o in orders])
    return int((p < 0.001).sum()), int((p < 0.05).sum())


def check_false_alarm_rate(orders) -> None:
    strict, loose = false_alarms(orders)
    # Binomial(200, 0.001): P(X >= 3) = 0.001; Binomial(200, 0.05): P(X > 20) = 0.002
    # (Holm keeps the family-wise rate at most alpha).
    assert strict <= 2, strict
    assert loose <= 20, loose


def test_knuffle_epoch_orders_pass():
    check_false_alarm_rate(knuffle.table_order(f"seed {s}", N) for s in range(SEEDS))
    report = knuffle.audit_order(knuffle.table_order("one", N))
    assert report.verdict == "no bias found" and report.causes == [] and len(report.tests) >= 6


def test_numpy_permutation_passes():
    check_false_alarm_rate(np.random.default_rng(s).permutation(N) for s in range(SEEDS))


def test_torch_randperm_passes():
    needs("torch")
    import torch

    def orders():
        for s in range(SEEDS):
            g = torch.Generator().manual_seed(s)
            yield torch.randperm(N, generator=g).numpy()

    check_false_alarm_rate(orders())


# --- not a permutation, bad input ----------------------------------------------


def test_a_non_permutation_is_a_verdict_with_examples():
    order = np.arange(1000)
    order[10] = 3
    report = knuffle.audit_order(order)
    assert (report.verdict, report.biased, report.is_permutation) == ("not a permutation", True, False)
    assert (report.missing, report.repeated) == (1, 1)
    assert report.first_missing == [10]
    assert report.first_repeated == [(3, 3, 10)]
    assert "NOT A PERMUTATION" in str(report)
    # Shorter than n: rows missing.
    short = knuffle.audit_order([2, 0, 1], n=5)
    assert short.verdict == "not a permutation" and short.first_missing == [3, 4]


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="position 2: 3 is not a row number below n = 3"):
        knuffle.audit_order([0, 1, 3])
    with pytest.raises(ValueError, match="position 1: -1 is not a row number"):
        knuffle.audit_order([0, -1, 1])
    with pytest.raises(ValueError, match="must hold integers"):
        knuffle.audit_order(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="must hold integers"):
        knuffle.audit_order(["a", "b"])
    with pytest.raises(ValueError, match="empty"):
        knuffle.audit_order([])
    with pytest.raises(ValueError, match="the shards give 2 rows"):
        knuffle.audit_order([1, 0, 2], shard_of=[0, 1])
    with pytest.raises(ValueError, match="shard_of\\[1\\] = -4"):
        knuffle.audit_order([1, 0, 2], shard_of=[0, -4, 1])
    with pytest.raises(ValueError, match="previous order is not a permutation"):
        knuffle.audit_order([1, 0, 2], previous=[0, 0, 2])
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        knuffle.audit_order([1, 0, 2], alpha=2.0)


def test_the_html_report_and_the_dict(tmp_path):
    page = tmp_path / "audit.html"
    order = np.random.default_rng(1).permutation(20_000)
    report = knuffle.audit_order(order, report=page)
    text = page.read_text(encoding="utf-8")
    assert "no bias found" in text and text.count("<svg") == 2
    d = report.to_dict()
    assert d["verdict"] == "no bias found" and d["missing"] == 0 and len(d["tests"]) == len(report.tests)
    assert repr(report).startswith("<knuffle.OrderAuditReport no bias found")
