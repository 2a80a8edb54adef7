"""Audit the order two data loaders give: is every order equally likely?

A PyTorch-style ``DataLoader(shuffle=True)`` draws a fresh random permutation
of the data set every epoch (torch's RandomSampler uses ``randperm``); a
streaming loader with a shuffle buffer (``tf.data``'s ``shuffle(1000)``,
torchdata's ``Shuffler``, webdataset's ``shuffle(1000)``) keeps 1000 items
and emits a random one as each new item arrives. Over a sorted stream the
buffer cannot move an item far from where it was: ``knuffle.audit`` says so.

Run: ``python python/examples/audit_loaders.py``
"""

from __future__ import annotations

import numpy as np

import knuffle


class DataLoader:
    """A stand-in for ``torch.utils.data.DataLoader(dataset, shuffle=True)``:
    each epoch visits the data set in a fresh random order (numpy here)."""

    def __init__(self, dataset, batch_size=1, shuffle=True, seed=0):
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        n = len(self.dataset)
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        for start in range(0, n, self.batch_size):
            yield [self.dataset[i] for i in order[start : start + self.batch_size]]


def buffered_shuffle(stream, buffer_size, rng):
    """A streaming shuffle with a fixed buffer: fill it, then for each new
    item emit a random buffered one and put the new one in its place."""
    buffer = []
    for item in stream:
        if len(buffer) < buffer_size:
            buffer.append(item)
            continue
        j = int(rng.integers(buffer_size))
        yield buffer[j]
        buffer[j] = item
    rng.shuffle(buffer)
    yield from buffer


def audit_dataloader(n=10, epochs=20_000):
    loader = DataLoader(list(range(n)), batch_size=4, shuffle=True, seed=1)
    orders = [[i for batch in loader for i in batch] for _ in range(epochs)]
    return knuffle.audit(orders)


def audit_buffered(n=10_000, buffer_size=1000, epochs=100):
    rng = np.random.default_rng(2)
    orders = [list(buffered_shuffle(range(n), buffer_size, rng)) for _ in range(epochs)]
    return knuffle.audit(orders)


if __name__ == "__main__":
    report = audit_dataloader()
    print("DataLoader(shuffle=True), 20000 epochs of 10 items:", report.verdict)
    print(report)
    report = audit_buffered()
    print("1000-item shuffle buffer over a sorted stream, 100 epochs of 10000 items:", report.verdict)
    print(report)
