"""knuffle for PyTorch training loops.

``TableDataset``: the rows of tables in the exact epoch order as a torch
``IterableDataset``, split among ranks and DataLoader workers, resumable to
the row (``knuffle.stream_table`` underneath).
"""

from __future__ import annotations

from knuffle._torch_table import TableDataset

__all__ = ["TableDataset"]
