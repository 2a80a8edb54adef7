"""`Generator`: shuffles, permutations, samples and deals from one seed."""

from __future__ import annotations

import operator
import os
import sys
import warnings
from typing import Any, Sequence

import numpy as np

from knuffle import _frames, _knuffle

_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_MAX_U64 = 2**64 - 1


class Hands(list[list[str]]):
    """The hands of a deal (a list of hands, each a list of card names),
    with the ``board`` (community cards) and the number of cards left in
    ``remaining``."""

    board: list[str]
    remaining: int

    def __init__(self, hands: list[list[str]], board: list[str], remaining: int) -> None:
        super().__init__(hands)
        self.board = board
        self.remaining = remaining

    def __repr__(self) -> str:
        return f"Hands({list.__repr__(self)}, board={self.board!r}, remaining={self.remaining})"


def _renamed(value: Any, old_value: Any, name: str, old_name: str) -> Any:
    """``value``, or the value given under ``old_name`` (a renamed keyword:
    it warns once per call site)."""
    if old_value is None:
        return value
    if value is not None:
        raise TypeError(f"give {name}= or its old name {old_name}=, not both")
    warnings.warn(
        f"{old_name}= is now {name}= (the name of knuffle deal's option)",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value


def _index(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None


_IN_USE = (
    "a knuffle.Generator is used by one thread at a time: this one is in use "
    "by another thread (its stream is unchanged by this call); give each thread "
    "its own Generator, for example Generator(f'{seed}/{i}') for thread i"
)

#: PyO3's words when a method of the Rust generator is entered while another
#: call holds it (the GIL is released during shuffles).
_BORROWED = ("Already borrowed", "Already mutably borrowed")


class _OneThreadAtATime:
    """The Rust generator, its methods raising :data:`_IN_USE` instead of
    PyO3's bare "Already borrowed" when another thread is using it."""

    def __init__(self, core: Any) -> None:
        self._inner = core

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attribute(*args, **kwargs)
            except RuntimeError as error:
                if str(error) in _BORROWED:
                    raise RuntimeError(_IN_USE) from None
                raise

        # Kept, so that later calls find it without __getattr__.
        setattr(self, name, call)
        return call


class Generator:
    """A reproducible, exactly uniform random stream: ChaCha20 keyed with
    SHA-256 of a seed text, exactly as the command line's ``--seed``.

    ``Generator("text")`` replays the same orders everywhere (Python, Rust's
    ``knuffle::Seed::from_text``, ``knuffle --seed text``). ``Generator()``
    takes 256 bits from the operating system; its seed text (64 hex digits)
    is in ``g.seed``, so any run can be replayed.

    Large arrays are shuffled on ``threads`` threads (2 by default); the
    result does not depend on the thread count. The GIL is released while a
    shuffle runs. A generator is one stream, used by one thread at a time:
    a call while another thread's call on the same generator is running
    raises ``RuntimeError`` (saying so) and leaves the stream as it was.
    Give each thread its own generator, for example
    ``Generator(f"{seed}/{i}")`` for thread ``i``.

    >>> g = knuffle.Generator("friday poker")
    >>> g.seed
    'friday poker'
    >>> len(knuffle.Generator().seed)
    64
    """

    def __init__(self, seed: str | None = None, *, threads: int = 2) -> None:
        if seed is not None and not isinstance(seed, str):
            raise TypeError(f"seed must be a str (any text), not {type(seed).__name__}")
        threads = _index(threads, "threads")
        if threads < 1:
            raise ValueError("threads must be at least 1")
        self._core = _OneThreadAtATime(_knuffle.Generator(seed, threads))

    @property
    def seed(self) -> str:
        """The seed text; ``Generator(g.seed)`` replays this generator."""
        return self._core.seed

    @property
    def threads(self) -> int:
        """The default thread count for large arrays."""
        return self._core.threads

    def __repr__(self) -> str:
        return f"knuffle.Generator({self.seed!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickles (and ``copy.copy`` / ``copy.deepcopy`` copies) with the
        exact state: the seed text, the thread count and the position in the
        stream, so that the copy draws exactly what the original would draw
        next (DataLoader workers, checkpoints). The copy is a stream of its
        own: drawing from one does not move the other.

        >>> import pickle
        >>> g = knuffle.Generator("friday poker")
        >>> _ = g.permutation(5)
        >>> copy = pickle.loads(pickle.dumps(g))
        >>> bool((copy.permutation(1000) == g.permutation(1000)).all())
        True
        """
        return (_restore, (type(self), self.seed, self.threads, self._core.word_pos))

    def _threads(self, threads: int | None) -> int | None:
        if threads is None:
            return None
        threads = _index(threads, "threads")
        if threads < 1:
            raise ValueError("threads must be at least 1")
        return threads

    # -- shuffles in place -------------------------------------------------

    def shuffle(self, x: Any, *, threads: int | None = None) -> None:
        """Shuffle ``x`` in place; every order is equally likely.

        ``x`` is a numpy array of any dtype (numbers, bool, strings,
        structured records, Python objects; a 2-D or N-D array has its rows,
        axis 0, shuffled), a ``bytearray``, a writable ``memoryview`` or a
        Python ``list``. Whatever the type, ``n`` rows end in the order
        ``permutation(n)`` would give from the same generator state, so
        arrays shuffled from equal generators stay aligned row by row.
        Contiguous arrays are shuffled in place in Rust with the GIL
        released; other layouts (strided views) and object arrays are
        rearranged through a copy by numpy. A failure leaves ``x`` unchanged.

        >>> g = knuffle.Generator("doc")
        >>> a = np.arange(10)
        >>> g.shuffle(a)
        >>> bool((a == knuffle.Generator("doc").permutation(10)).all())
        True
        >>> cards = ["A", "K", "Q", "J"]
        >>> knuffle.Generator("doc").shuffle(cards)
        >>> sorted(cards)
        ['A', 'J', 'K', 'Q']
        """
        threads = self._threads(threads)
        if isinstance(x, list):
            self._core.shuffle_list(x)
            return
        if isinstance(x, bytearray):
            self._shuffle_array(np.frombuffer(x, dtype=np.uint8), threads)
            return
        if isinstance(x, memoryview):
            if x.readonly:
                raise TypeError("cannot shuffle a read-only memoryview in place")
            self._shuffle_array(np.asarray(x), threads)
            return
        if isinstance(x, np.ndarray):
            self._shuffle_array(x, threads)
            return
        raise TypeError(_unsupported(x, "shuffle in place"))

    def _shuffle_array(self, a: np.ndarray, threads: int | None) -> None:
        if a.ndim == 0:
            raise ValueError("cannot shuffle a 0-d array (it has no axis to shuffle)")
        if not a.flags.writeable:
            raise ValueError("cannot shuffle a read-only array in place (use permutation(a) for a shuffled copy)")
        n = a.shape[0]
        if n == 0:
            return
        width = a.itemsize * (a.size // n)
        plain = type(a) in (np.ndarray, np.memmap)
        if width == 0:
            # Nothing moves; draw as permutation(n) would, to keep the stream in step.
            self._core.permutation_n(n, threads)
            return
        if plain and not a.dtype.hasobject and a.flags.c_contiguous:
            raw = a.reshape(-1).view(np.uint8).reshape(n, width)
            word = _WORDS.get(width)
            if word is not None:
                words = raw.view(word).reshape(n)
                if words.flags.aligned:
                    self._core.shuffle_words(words, threads)
                    return
            else:
                self._core.shuffle_rows(raw, threads)
                return
        # Strided views, object arrays (numpy keeps the reference counts),
        # subclasses such as masked arrays: numpy gathers a copy, then
        # assigns it, so an error leaves the array as it was.
        order = self._core.permutation_n(n, threads)
        a[...] = a[order]

    # -- permutations and copies -------------------------------------------

    def permutation(self, x: Any, *, threads: int | None = None) -> np.ndarray:
        """A random permutation.

        With an integer ``n``: ``range(n)`` in random order, as an int64
        array; the very order Rust's ``knuffle::permutation(n, rng)`` gives
        for the same seed. With an array (or list, tuple, memoryview): a
        shuffled copy (rows, axis 0); the input is left unchanged.

        >>> knuffle.Generator("friday poker").permutation(5).dtype
        dtype('int64')
        >>> a = np.array([10, 20, 30])
        >>> b = knuffle.Generator("x").permutation(a)
        >>> a.tolist(), sorted(b.tolist())
        ([10, 20, 30], [10, 20, 30])
        """
        threads = self._threads(threads)
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            n = operator.index(x)
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
            if n > 2**63 - 1:
                raise ValueError(f"n = {n} does not fit in int64")
            return self._core.permutation_n(n, threads)
        if isinstance(x, np.ndarray):
            copy = x.copy()
        elif isinstance(x, (list, tuple, memoryview, bytes, bytearray, range)) or hasattr(x, "__array__"):
            copy = np.array(x)  # sequences, and array-likes such as pandas or polars Series
        else:
            raise TypeError(_unsupported(x, "permute"))
        if copy.ndim == 0:
            raise TypeError(f"cannot permute a 0-d array or a scalar of type {type(x).__name__}")
        if not copy.flags.writeable:
            copy = copy.copy()
        self._shuffle_array(copy, threads)
        return copy

    # -- sampling -----------------------------------------------------------

    def sample(self, n: int, k: int) -> np.ndarray:
        """``k`` distinct integers of ``range(n)``, uniformly chosen, in random
        order (Floyd's algorithm: O(k) time and memory whatever ``n``).

        ``n`` may be as large as ``2**64 - 1``. The result is int64 when
        ``n <= 2**63`` (every value fits) and uint64 above.

        >>> s = knuffle.Generator("lottery").sample(49, 6)
        >>> len(set(s.tolist())), bool(s.max() < 49)
        (6, True)
        >>> knuffle.Generator("big").sample(2**64 - 1, 3).dtype
        dtype('uint64')
        """
        n = _index(n, "n")
        k = _index(k, "k")
        if n < 0 or k < 0:
            raise ValueError(f"n and k must be non-negative, got n = {n}, k = {k}")
        if n > _MAX_U64:
            raise ValueError(f"n = {n} is larger than 2**64 - 1")
        if k > n:
            raise ValueError(f"cannot choose k = {k} distinct values from range({n})")
        chosen = self._core.sample_u64(n, k)
        return chosen.view(np.int64) if n <= 2**63 else chosen

    def choice(self, a: Any, k: int, weights: Any = None, *, replace: bool = False) -> np.ndarray:
        """``k`` distinct elements (rows) of ``a``, in the order drawn, or
        with ``replace=True`` ``k`` independent draws (an element may come
        back; ``k`` may exceed ``len(a)``).

        ``a`` is an array-like (rows along axis 0) or an integer ``n``
        (then indices of ``range(n)`` are returned). Without ``weights``,
        every k-subset and order is equally likely (``sample``); with
        ``replace=True`` each draw is exactly uniform (Lemire's bounded
        integers).

        With ``weights`` (one non-negative weight per element): weighted
        sampling without replacement by successive draws, each element drawn
        with probability proportional to its weight among those left, as
        numpy's ``choice(replace=False, p=...)`` defines it. Integer (and
        bool) weights are exact: each draw is an exactly uniform integer
        below the remaining total (up to ``2**128``). Float weights are
        used at their exact binary value times one power of two (the
        largest near ``2**(126 - log2 n)``): only parts of a weight smaller
        than ``2**-61`` of the largest weight are dropped, so weights within
        a factor of ``2**10`` of the largest are always exact, and within
        ``2**40`` for up to ``2**32`` elements; a positive weight never
        becomes 0. No float rounding decides a draw. With ``replace=True``
        each draw picks element ``i`` with probability exactly
        ``weights[i] / sum(weights)`` (for integer weights; floats as above).

        >>> g = knuffle.Generator("draw")
        >>> sorted(g.choice(["a", "b", "c", "d"], 2, weights=[1, 0, 0, 1]).tolist())
        ['a', 'd']
        >>> len(g.choice(6, 10, replace=True)), set(g.choice(["x"], 3, replace=True).tolist())
        (10, {'x'})
        """
        k = _index(k, "k")
        if k < 0:
            raise ValueError(f"k must be non-negative, got {k}")
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            pool = None
            n = operator.index(a)
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
        else:
            if isinstance(a, (str, bytes, dict, set, frozenset)) or a is None:
                raise TypeError(_unsupported(a, "choose from"))
            pool = np.asarray(a)
            if pool.ndim == 0:
                raise TypeError(f"cannot choose from a scalar of type {type(a).__name__}")
            n = pool.shape[0]
        replace = bool(replace)
        if weights is None:
            if replace:
                if n == 0 and k > 0:
                    raise ValueError(f"cannot draw k = {k} elements from an empty population")
                index = self._core.draws_u64(n, k).astype(np.int64)
            elif k > n:
                raise ValueError(f"cannot choose k = {k} distinct elements from {n}")
            else:
                index = self.sample(n, k)
        else:
            index = self._weighted(n, k, weights, replace)
        return index if pool is None else pool[index]

    def _weighted(self, n: int, k: int, weights: Any, replace: bool = False) -> np.ndarray:
        w = np.asarray(weights)
        if w.shape != (n,):
            raise ValueError(f"weights must have one value per element: shape ({n},), got {w.shape}")
        if k > n and not replace:
            raise ValueError(f"cannot choose k = {k} distinct elements from {n}")
        kind = w.dtype.kind
        if kind in "biu":
            if kind == "i" and n and w.min() < 0:
                raise ValueError(f"weights must be non-negative, got {w.min()}")
            return self._core.weighted_int(w.astype(np.uint64), k, replace)
        if kind == "f":
            return self._core.weighted_float(w.astype(np.float64), k, replace)
        if kind == "O":
            values = list(w)
            if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
                bad = [v for v in values if not 0 <= v <= _MAX_U64]
                if bad:
                    raise ValueError(f"integer weights must lie in 0..2**64-1, got {bad[0]}")
                return self._core.weighted_int(np.array(values, dtype=np.uint64), k, replace)
        raise TypeError(f"weights must be integers or floats, got dtype {w.dtype}")

    # -- cards --------------------------------------------------------------

    def deal(
        self,
        hands: int | None = None,
        cards_each: int | None = None,
        *,
        board: int = 0,
        decks: int = 1,
        jokers: int = 0,
        ascii: bool = False,
        players: int | None = None,
        cards: int | None = None,
    ) -> Hands:
        """Deal ``hands`` hands of ``cards_each`` cards (default 4 of 13, and
        ``board`` community cards) from a standard 52-card deck (or a shoe
        of ``decks`` decks, each with ``jokers`` jokers): the same deal as
        ``knuffle deal --seed TEXT --hands H --cards-each C --board B
        --decks D --jokers J`` from a fresh ``Generator(TEXT)``, the same
        names. Only the dealt cards are randomised (a partial Fisher-Yates
        shuffle); cards go round-robin, one to each hand per round, then to
        the board. Card names as the command line writes them: ``A♠ 10♥``
        (``ascii=True``: ``AS TH``). ``players=`` and ``cards=``, this
        method's names before 0.2, still work and warn (DeprecationWarning).

        >>> h = knuffle.Generator("friday poker").deal(hands=6, cards_each=2, board=5)
        >>> len(h), len(h[0]), len(h.board), h.remaining
        (6, 2, 5, 35)
        """
        hands = _renamed(hands, players, "hands", "players")
        cards_each = _renamed(cards_each, cards, "cards_each", "cards")
        hands = _index(4 if hands is None else hands, "hands")
        cards_each = _index(13 if cards_each is None else cards_each, "cards_each")
        board = _index(board, "board")
        decks = _index(decks, "decks")
        jokers = _index(jokers, "jokers")
        if hands < 1 or cards_each < 0 or board < 0:
            raise ValueError("hands must be at least 1, cards_each and board non-negative")
        if not 1 <= decks <= 1000 or not 0 <= jokers <= 1000:
            raise ValueError("decks must be in 1..1000 and jokers in 0..1000 (as on the command line)")
        if cards_each == 0 and board == 0:
            raise ValueError("nothing to deal: cards_each and board are both 0")
        players, cards = hands, cards_each
        hands, board_cards, remaining = self._core.deal(players, cards, board, decks, jokers, bool(ascii))
        return Hands(hands, board_cards, remaining)

    # -- data frames --------------------------------------------------------

    def shuffle_frame(self, df: Any, *, threads: int | None = None) -> Any:
        """A copy of a data frame with its rows in random order.

        Takes a pandas ``DataFrame`` or ``Series`` (the index moves with its
        rows), a polars ``DataFrame`` or ``Series``, or a pyarrow ``Table``
        or ``RecordBatch``; returns the same type. Rows end in the order
        ``permutation(len(df))`` gives, and the result equals
        ``df.iloc[order]`` (pandas), ``df[order]`` (polars) or
        ``df.take(order)`` (pyarrow) for that order: the same dtypes, names,
        index and attrs. Numeric, boolean, datetime (with or without a time
        zone), period, categorical, nullable and Arrow-backed columns are
        gathered in Rust with the GIL released, on ``threads`` threads;
        columns of Python objects (``object``, ``string[python]``) in Rust
        on the calling thread.

        >>> import pandas as pd
        >>> df = pd.DataFrame({"x": [1, 2, 3]}, index=["a", "b", "c"])
        >>> out = knuffle.Generator("frame").shuffle_frame(df)
        >>> sorted(zip(out.index, out["x"]))
        [('a', 1), ('b', 2), ('c', 3)]
        """
        threads = self._threads(threads)
        count = self._core.threads if threads is None else threads
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(df, (pd.DataFrame, pd.Series)):
            return _frames.take_pandas(pd, df, self._core.permutation_n(len(df), threads), count)
        pl = sys.modules.get("polars")
        if pl is not None and isinstance(df, (pl.DataFrame, pl.Series)):
            # polars' own gather (in Rust, on its threads) beats a round trip through Arrow.
            return df[self._core.permutation_n(len(df), threads)]
        if pl is not None and isinstance(df, pl.LazyFrame):
            raise TypeError("cannot shuffle a polars LazyFrame: collect() it first (its length is not known)")
        pa = sys.modules.get("pyarrow")
        if pa is not None and isinstance(df, (pa.Table, pa.RecordBatch)):
            return _frames.take_arrow(pa, df, self._core.permutation_n(df.num_rows, threads), count)
        raise TypeError(
            f"shuffle_frame takes a pandas, polars or pyarrow data frame, not {_type_name(df)}"
            " (for arrays and lists use shuffle or permutation)"
        )

    # -- files --------------------------------------------------------------

    def shuffle_file(
        self,
        input: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        output: str | os.PathLike[str],
        *,
        memory: int | str | None = None,
        header: int = 0,
        zero_terminated: bool = False,
        count: int | None = None,
        repeat: bool = False,
        temp_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        """Shuffle the lines of a file (or of several, concatenated) into
        ``output``: the command line's ``knuffle`` (GNU ``shuf``) as a call.

        From a fresh ``Generator(SEED)`` the output is byte for byte that of
        ``knuffle --seed SEED --memory M [--header H] [-z] [-n N] [-r] FILE...
        -o OUT``. Inputs that do not fit ``memory`` (bytes, or a size such as
        ``"512M"``, ``"4G"``, ``"25%"``; default: 3/4 of the memory available,
        within ``ulimit -v`` and the cgroup's limit)
        are shuffled exactly uniformly through temporary files in
        ``temp_dir`` (default ``$TMPDIR`` or ``/tmp``), in bounded memory.
        The memory limit fixes the layout, so a different limit gives a
        different (equally uniform) order. ``header`` lines stay on top;
        ``zero_terminated`` splits on NUL instead of newline; ``count``
        writes at most that many lines; ``repeat`` draws with replacement
        (needs ``count``). ``output`` may be one of the inputs: it is
        replaced only after a complete run, so a failure never truncates it.
        The GIL is released for the whole run. Errors: ``FileNotFoundError``,
        ``PermissionError`` and other ``OSError`` (naming the file or the
        temporary directory), ``ValueError`` for bad options.

        >>> import os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> path = os.path.join(d, "in.txt")
        >>> with open(path, "w") as f:
        ...     _ = f.write("id\\n" + "".join(f"{i}\\n" for i in range(100)))
        >>> knuffle.Generator("s").shuffle_file(path, os.path.join(d, "out.txt"), header=1, memory="1G")
        >>> lines = open(os.path.join(d, "out.txt")).read().split()
        >>> lines[0], sorted(lines[1:], key=int) == [str(i) for i in range(100)]
        ('id', True)
        """
        for name, value in (("header", header), ("count", count)):
            if value is not None and _index(value, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {value}")
        if memory is not None and not isinstance(memory, (int, str)) or isinstance(memory, bool):
            raise TypeError("memory must be a number of bytes or a size such as '512M'")
        if isinstance(memory, int) and memory < 0:
            raise ValueError(f"memory must be positive, got {memory}")
        options = {
            "zero_terminated": bool(zero_terminated),
            "header": _index(header, "header"),
            "count": None if count is None else _index(count, "count"),
            "repeat": bool(repeat),
            "memory": memory,
            "temp_dir": None if temp_dir is None else os.fsdecode(os.fspath(temp_dir)),
        }
        self._core.shuffle_file_paths(_paths(input), os.fsdecode(os.fspath(output)), options)


def _restore(cls: type[Generator], seed: str, threads: int, word_pos: int) -> Generator:
    """A generator of ``seed`` moved to ``word_pos`` (what ``Generator.__reduce__`` saved)."""
    generator = cls.__new__(cls)
    Generator.__init__(generator, seed, threads=threads)
    generator._core.set_word_pos(_index(word_pos, "word_pos"))
    return generator


def _paths(inputs: Any) -> list[str]:
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    try:
        paths = [os.fsdecode(os.fspath(p)) for p in inputs]
    except TypeError:
        raise TypeError("input must be a path (str or os.PathLike) or a list of paths") from None
    if not paths:
        raise ValueError("no input file given")
    return paths


def _type_name(x: Any) -> str:
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _unsupported(x: Any, verb: str) -> str:
    return (
        f"cannot {verb} a {_type_name(x)}: expected a numpy array, a list, a bytearray "
        "or a writable memoryview (data frames: shuffle_frame; a shuffled copy: permutation)"
    )


