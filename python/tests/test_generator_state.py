"""knuffle.Generator pickles, copies and deep-copies with its exact state:
the copy draws exactly what the original would draw next, and is a stream of
its own (DataLoader workers, checkpoints)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import knuffle


def draws(g: knuffle.Generator) -> list:
    """Draws of every kind, so that any position in the stream is reached."""
    a = np.arange(37)
    g.shuffle(a)
    return [a.tolist(), g.permutation(5).tolist(), g.sample(1000, 3).tolist(), g.choice(10, 4, replace=True).tolist()]


def copies(g: knuffle.Generator) -> list[knuffle.Generator]:
    pickled = [pickle.loads(pickle.dumps(g, protocol)) for protocol in range(pickle.HIGHEST_PROTOCOL + 1)]
    return [*pickled, copy.copy(g), copy.deepcopy(g), copy.deepcopy({"g": g})["g"]]


@pytest.mark.parametrize("warm_up", [0, 1, 2, 7, 40])
def test_a_copy_continues_with_exactly_the_same_stream(warm_up):
    g = knuffle.Generator("state", threads=1)
    for _ in range(warm_up):
        draws(g)
    twins = copies(g)
    expected = [draws(g) for _ in range(3)]
    for twin in twins:
        assert type(twin) is knuffle.Generator
        assert (twin.seed, twin.threads) == ("state", 1)
        assert [draws(twin) for _ in range(3)] == expected


def test_a_copy_is_a_stream_of_its_own():
    g = knuffle.Generator("own")
    twin = copy.deepcopy(g)
    first = twin.permutation(100).tolist()
    assert g.permutation(100).tolist() == first  # drawing from the copy did not move g


def test_an_os_seeded_generator_and_a_large_array_shuffle():
    g = knuffle.Generator()
    g.permutation(300_000)  # the parallel path: many blocks of the stream
    twin = pickle.loads(pickle.dumps(g))
    assert twin.seed == g.seed
    assert (twin.permutation(300_000) == g.permutation(300_000)).all()


def test_a_subclass_copies_as_itself():
    class Mine(knuffle.Generator):
        pass

    g = Mine("sub")
    g.permutation(3)
    twin = copy.deepcopy(g)
    assert type(twin) is Mine and twin.permutation(9).tolist() == g.permutation(9).tolist()
