"""`knuffle.audit_order`: is one long order (a loader's epoch) a fair shuffle?

The same audit as ``knuffle audit --order FILE``.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

import numpy as np

from knuffle import _knuffle
from knuffle._audit import DEFAULT_ALPHA, AuditTest


class OrderAuditReport:
    """The outcome of :func:`audit_order`: the tests, the verdict, the causes.

    ``biased`` is True when the order is not a permutation of ``range(n)``,
    or when any test is significant at the family-wise level ``alpha`` after
    Holm's correction. ``verdict`` is ``"biased"``, ``"no bias found"`` or
    ``"not a permutation"``; ``causes`` says in words what the failing tests
    suggest. ``str(report)`` is the command line's report; ``to_dict()``
    gives plain Python values (JSON-ready).
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw
        self.n: int = raw["n"]
        self.alpha: float = raw["alpha"]
        self.verdict: str = raw["verdict"]
        self.biased: bool = raw["biased"]
        #: The smallest Holm-adjusted p-value (0.0 for a non-permutation).
        self.p_value: float = raw["min_adjusted_p"]
        self.tests: list[AuditTest] = [AuditTest(**t) for t in raw["tests"]]
        self.skipped: list[str] = raw["skipped"]
        self.causes: list[str] = raw["causes"]
        perm = raw["permutation"]
        #: Rows of ``range(n)`` that never appear, and appearances beyond a row's first.
        self.missing: int = perm["missing"]
        self.repeated: int = perm["repeated"]
        #: The first few missing rows; the first few repeats as (row, first position, repeat's position).
        self.first_missing: list[int] = list(perm["first_missing"])
        self.first_repeated: list[tuple[int, int, int]] = [tuple(r) for r in perm["first_repeated"]]

    @property
    def is_permutation(self) -> bool:
        """Every row of ``range(n)`` exactly once."""
        return self.missing == 0 and self.repeated == 0

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python values."""
        return {
            "n": self.n,
            "alpha": self.alpha,
            "verdict": self.verdict,
            "biased": self.biased,
            "p_value": self.p_value,
            "tests": [asdict(t) for t in self.tests],
            "skipped": list(self.skipped),
            "causes": list(self.causes),
            "missing": self.missing,
            "repeated": self.repeated,
            "first_missing": list(self.first_missing),
            "first_repeated": [list(r) for r in self.first_repeated],
        }

    def __str__(self) -> str:
        return self._raw["text"]

    def __repr__(self) -> str:
        return f"<knuffle.OrderAuditReport {self.verdict}: one order of n = {self.n}, min Holm p = {self.p_value:.3g}>"


def _integers(values: Any, name: str) -> np.ndarray:
    """A 1-D int64 array of ``values`` (a numpy array, a list, any sequence)."""
    array = values if isinstance(values, np.ndarray) else np.asarray(list(values))
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one row number a position), got {array.ndim} dimension(s)")
    if array.size == 0:
        raise ValueError(f"{name} is empty: no rows")
    if array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {array.dtype}")
    if array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds a value larger than int64")
    return np.ascontiguousarray(array, dtype=np.int64)


def audit_order(
    order: Any,
    *,
    n: int | None = None,
    shard_of: Any = None,
    previous: Any = None,
    alpha: float = DEFAULT_ALPHA,
    report: str | os.PathLike[str] | None = None,
) -> OrderAuditReport:
    """Audit one long order: is it a fair shuffle of the rows ``range(n)``?

    ``order`` holds the row at each position (a numpy array or a list of
    integers); ``n`` defaults to its length. ``shard_of[row]`` is each row's
    shard (adds the same-shard neighbours test); ``previous`` is the
    previous epoch's order (adds the tests of independence of the two
    epochs). The tests, each against an exactly uniform permutation, share
    one family-wise verdict at level ``alpha`` (Holm's correction). With
    ``report``, the HTML page (heat map, displacement histogram) is
    written there. Raises ``ValueError`` for input that cannot be audited
    (not integers, a value outside ``range(n)``, lengths that differ); an
    order that is not a permutation is a verdict, not an error.

    >>> fair = knuffle.audit_order(knuffle.table_order("epoch", 50_000))
    >>> fair.verdict
    'no bias found'
    >>> knuffle.audit_order(list(range(50_000))).biased
    True
    """
    rows = _integers(order, "order")
    if n is not None:
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
    shards = None if shard_of is None else _integers(shard_of, "shard_of")
    before = None if previous is None else _integers(previous, "previous")
    raw = _knuffle.audit_order(rows, n, shards, before, float(alpha), report is not None)
    if report is not None:
        with open(report, "w", encoding="utf-8") as page:
            page.write(raw["html"])
    return OrderAuditReport(raw)
