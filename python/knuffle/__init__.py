"""knuffle: exactly uniform, reproducible, fast shuffles for Python.

Every order is exactly equally likely (Fisher-Yates with unbiased bounded
draws, an exact parallel scatter for large arrays), and a text seed gives the
same order on every platform, in Python, in Rust and on the command line
(``knuffle --seed TEXT``).

>>> import knuffle
>>> g = knuffle.Generator("friday poker")
>>> p = g.permutation(10)
>>> sorted(p.tolist()) == list(range(10))
True
>>> bool((knuffle.Generator("friday poker").permutation(10) == p).all())
True
"""

from __future__ import annotations

from knuffle._audit import AuditReport, AuditTest, audit
from knuffle._audit_order import OrderAuditReport, audit_order
from knuffle._epoch import EpochOrder, epoch_order, epoch_seed
from knuffle._errors import MemoryLimitError
from knuffle._files import shuffle_file
from knuffle._generator import Generator, Hands
from knuffle._sampling import sample_file, split_file
from knuffle._stream import TableStream, stream_table
from knuffle._table import TableReport, shuffle_table, table_order

__all__ = [
    "AuditReport",
    "AuditTest",
    "EpochOrder",
    "Generator",
    "Hands",
    "MemoryLimitError",
    "OrderAuditReport",
    "TableReport",
    "TableStream",
    "audit",
    "audit_order",
    "epoch_order",
    "epoch_seed",
    "sample_file",
    "shuffle_file",
    "shuffle_table",
    "split_file",
    "stream_table",
    "table_order",
]
__version__ = "0.1.0"
