"""The exception raised when a job needs more than its ``memory=`` limit."""

from __future__ import annotations


class MemoryLimitError(MemoryError, ValueError):
    """A job needs more memory than its ``memory=`` limit allows.

    It is a ``MemoryError`` (the limit, not the machine, ran out) and a
    ``ValueError`` (a value given, the limit, does not suit the input):
    either ``except`` catches it. The message says what to raise.
    Allocations that fail whatever the limit stay plain ``MemoryError``.
    """
