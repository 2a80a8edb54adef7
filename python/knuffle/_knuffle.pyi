"""Type stubs of the Rust extension `knuffle._knuffle` (internal API: use `knuffle`)."""

from typing import Any

import numpy as np
import numpy.typing as npt

DEFAULT_THREADS: int

class Generator:
    def __init__(self, seed: str | None = None, threads: int = 2) -> None: ...
    @property
    def seed(self) -> str: ...
    @property
    def threads(self) -> int: ...
    def shuffle_words(self, array: npt.NDArray[Any], threads: int | None = None) -> None: ...
    def shuffle_rows(self, array: npt.NDArray[np.uint8], threads: int | None = None) -> None: ...
    def shuffle_list(self, list: list[Any]) -> None: ...
    def permutation_n(self, n: int, threads: int | None = None) -> npt.NDArray[np.int64]: ...
    def sample_u64(self, n: int, k: int) -> npt.NDArray[np.uint64]: ...
    def weighted_int(self, weights: npt.NDArray[np.uint64], k: int) -> npt.NDArray[np.int64]: ...
    def weighted_float(self, weights: npt.NDArray[np.float64], k: int) -> npt.NDArray[np.int64]: ...
    def shuffle_file_paths(
        self,
        inputs: list[str],
        output: str,
        zero_terminated: bool,
        header: int,
        count: int | None,
        repeat: bool,
        memory: int | str | None,
        temp_dir: str | None,
    ) -> None: ...
    def deal(
        self, players: int, cards: int, board: int, decks: int, jokers: int, ascii: bool
    ) -> tuple[list[list[str]], list[str], int]: ...

def audit_rows(
    rows: npt.NDArray[np.int64],
    n: int | None,
    base: int,
    alpha: float,
    effect: float | None,
) -> dict[str, Any]: ...

# knuffle.sample_file / split_file (python/src/sampling.rs)
def sample_paths(
    inputs: list[str], output: str | None, options: dict[str, Any]
) -> tuple[str, bytes | None]: ...
def split_paths(inputs: list[str], outputs: list[str], options: dict[str, Any]) -> str: ...

# knuffle.dask (python/src/dask.rs)
DASK_LABEL_BITS: int

def dask_labels(seed: str, start: int, count: int, bits: int = 32) -> npt.NDArray[np.int64]: ...
def dask_order(
    seed: str, labels: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]: ...
