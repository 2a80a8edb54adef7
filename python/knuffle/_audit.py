"""`knuffle.audit`: test shuffles for bias, as ``knuffle audit`` does."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from knuffle import _knuffle

#: The family-wise significance level of ``knuffle audit``.
DEFAULT_ALPHA = 0.001

#: The largest ``n`` audited (2**32: items are 32-bit numbers), as
#: ``knuffle_lab::audit::MAX_DECK_SIZE``; memory does not grow with ``n``.
MAX_DECK_SIZE = 2**32


@dataclass(frozen=True)
class AuditTest:
    """One test of an audit: a chi-square statistic and its p-values."""

    name: str
    about: str
    statistic: float
    dof: float
    p_value: float
    #: Holm-adjusted p-value (compared with ``alpha`` for the verdict).
    adjusted_p: float


class AuditReport:
    """The outcome of :func:`audit`: the tests, the verdict, the power.

    ``biased`` is True when any test is significant at the family-wise level
    ``alpha`` after Holm's correction. ``too_few_to_clear`` is True when no
    bias was found but there were too few shuffles to catch even the naive
    swap's bias at this ``n``. ``str(report)`` is the command line's report;
    ``to_dict()`` gives plain Python values (JSON-ready).
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw
        self.n: int = raw["n"]
        self.k: int = raw["k"]
        self.trials: int = raw["trials"]
        self.alpha: float = raw["alpha"]
        self.tests: list[AuditTest] = [AuditTest(**t) for t in raw["tests"]]
        self.skipped: list[str] = raw["skipped"]
        self.orders_seen: int | None = raw["orders_seen"]
        self.order_count_sd: float | None = raw["order_count_sd"]
        self.power: list[str] = raw["power"]
        self.naive_swap_shuffles: float | None = raw["naive_swap_shuffles"]
        self.biased: bool = raw["biased"]
        self.too_few_to_clear: bool = raw["too_few_to_clear"]
        #: The smallest Holm-adjusted p-value (1.0 when no test ran).
        self.p_value: float = raw["min_adjusted_p"]
        #: The binned position matrix: counts[item bin][position bin].
        self.positions: np.ndarray = np.array(raw["positions"]["counts"], dtype=np.int64)

    @property
    def verdict(self) -> str:
        """``"biased"``, ``"no bias found"`` or ``"too few shuffles"``."""
        if self.biased:
            return "biased"
        if self.too_few_to_clear:
            return "too few shuffles"
        return "no bias found"

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python values."""
        return {
            "n": self.n,
            "k": self.k,
            "trials": self.trials,
            "alpha": self.alpha,
            "verdict": self.verdict,
            "biased": self.biased,
            "too_few_to_clear": self.too_few_to_clear,
            "p_value": self.p_value,
            "tests": [asdict(t) for t in self.tests],
            "skipped": list(self.skipped),
            "orders_seen": self.orders_seen,
            "order_count_sd": self.order_count_sd,
            "power": list(self.power),
            "naive_swap_shuffles": self.naive_swap_shuffles,
            "positions": self._raw["positions"],
        }

    def __str__(self) -> str:
        return self._raw["text"]

    def __repr__(self) -> str:
        return (
            f"<knuffle.AuditReport {self.verdict}: {self.trials} shuffles of n = {self.n}"
            f"{'' if self.k == self.n else f' (deals of {self.k})'}, min Holm p = {self.p_value:.3g}>"
        )


def audit(
    perms: Any,
    n: int | None = None,
    *,
    base: int = 0,
    alpha: float = DEFAULT_ALPHA,
    effect: float | None = None,
) -> AuditReport:
    """Audit shuffles for bias: the tests of ``knuffle audit``.

    ``perms`` holds one shuffle per row (a 2-D integer array, or a list of
    equal-length sequences): each row a permutation of ``range(n)`` (with
    ``base=1``: of ``1..n``), or, when ``n`` is given and larger than the
    rows, the first ``k`` items of one (a deal). The tests: the
    full-permutation chi-square (small ``n``), the position test (item i
    at position j, binned), and the pair tests the data supports, with
    Holm's correction at family-wise level ``alpha``. ``effect`` adds the
    number of shuffles needed to catch a bias of that effect size (Cohen's
    w). Raises ``ValueError`` when a row is not a permutation, or when
    ``n`` is larger than ``MAX_DECK_SIZE`` (2**32), before any work.

    >>> g = knuffle.Generator("audit")
    >>> fair = knuffle.audit([g.permutation(4) for _ in range(20000)])
    >>> fair.biased
    False
    >>> sorted_rows = knuffle.audit([[0, 1, 2, 3]] * 1000)
    >>> sorted_rows.biased
    True
    """
    if isinstance(perms, np.ndarray):
        rows = perms
    else:
        try:
            rows = np.array(list(perms))
        except ValueError as e:
            raise ValueError(f"perms must be rows of equal length: {e}") from None
    if rows.ndim != 2:
        raise ValueError(f"perms must be 2-D (one shuffle per row), got {rows.ndim} dimension(s)")
    if rows.dtype.kind not in "iu":
        raise TypeError(f"perms must hold integers, got dtype {rows.dtype}")
    if rows.dtype.kind == "u" and rows.size and rows.max() > np.iinfo(np.int64).max:
        raise ValueError("perms holds a value larger than int64")
    if n is not None:
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        if n > MAX_DECK_SIZE:
            raise ValueError(
                f"n: the deck size {n} is too large: at most {MAX_DECK_SIZE} items "
                "(2^32; items are numbered with 32-bit integers)"
            )
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return AuditReport(_knuffle.audit_rows(rows, n, int(base), float(alpha), effect))
