"""The documented audit example (python/examples/audit_loaders.py)."""

import importlib.util

from conftest import REPO


def load_example():
    path = REPO / "python" / "examples" / "audit_loaders.py"
    spec = importlib.util.spec_from_file_location("audit_loaders", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dataloader_order_is_fair_and_the_shuffle_buffer_is_flagged():
    example = load_example()
    assert example.audit_dataloader(n=8, epochs=5000).verdict == "no bias found"
    buffered = example.audit_buffered(n=4000, buffer_size=1000, epochs=40)
    assert buffered.biased
    # A buffer larger than the stream is a full shuffle: no bias.
    assert not example.audit_buffered(n=50, buffer_size=1000, epochs=3000).biased
