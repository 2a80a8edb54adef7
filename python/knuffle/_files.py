"""`knuffle.shuffle_file`: the command line's line shuffle as a function."""

from __future__ import annotations

import os
from typing import Sequence

from knuffle._generator import Generator


def shuffle_file(
    input: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    seed: str | None = None,
    memory: int | str | None = None,
    header: int = 0,
    zero_terminated: bool = False,
    count: int | None = None,
    repeat: bool = False,
    temp_dir: str | os.PathLike[str] | None = None,
) -> str:
    """Shuffle the lines of ``input`` into ``output``, as
    ``knuffle --seed SEED --memory M [--header H] FILE -o OUT`` does (the
    same bytes for the same seed and memory limit). Returns the seed text
    used: without ``seed``, a fresh 256-bit seed from the OS (64 hex digits),
    so that the run can be replayed, from Python or from the command line.
    The options are those of :meth:`Generator.shuffle_file`.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "in.txt"), "w") as f:
    ...     _ = f.write("a\\nb\\nc\\n")
    >>> knuffle.shuffle_file(os.path.join(d, "in.txt"), os.path.join(d, "out.txt"), seed="x")
    'x'
    >>> sorted(open(os.path.join(d, "out.txt")).read().split())
    ['a', 'b', 'c']
    """
    generator = Generator(seed, threads=1)
    generator.shuffle_file(
        input,
        output,
        memory=memory,
        header=header,
        zero_terminated=zero_terminated,
        count=count,
        repeat=repeat,
        temp_dir=temp_dir,
    )
    return generator.seed
