"""Untrusted use never gets a bare PyO3 error: a generator shared by
threads, and ``memory=`` out of range, are refused in words that say what
happened and what to do."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import knuffle


def test_one_generator_in_four_threads_is_refused_clearly_and_keeps_its_stream():
    g = knuffle.Generator("shared")
    arrays = [np.arange(1 << 22, dtype=np.uint64) for _ in range(4)]
    errors: list[BaseException] = []
    done: list[int] = []
    start = threading.Barrier(4)

    def work(i: int) -> None:
        start.wait()
        try:
            for _ in range(5):
                g.shuffle(arrays[i])
            done.append(i)
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The GIL is released while an array of 32 MiB is shuffled, so the four
    # threads meet on the one generator: every refusal says why.
    assert errors, "four threads never overlapped on one generator"
    for error in errors:
        message = str(error)
        assert "used by one thread at a time" in message, message
        assert "give each thread its own Generator" in message, message
        assert "Already borrowed" not in message
    # Each array is still a permutation of what it held (a refused call
    # changes nothing).
    for a in arrays:
        assert np.array_equal(np.sort(a), np.arange(1 << 22, dtype=np.uint64))
    # The generator still works afterwards.
    g.shuffle(arrays[0])


def test_one_generator_per_thread_is_the_way():
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = knuffle.Generator(f"seed/{i}").permutation(1 << 20)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert np.array_equal(results[i], knuffle.Generator(f"seed/{i}").permutation(1 << 20))


@pytest.mark.parametrize("memory", [2**80, 2**64])
def test_memory_out_of_range_names_the_parameter_and_the_forms(tmp_path, memory):
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n")
    with pytest.raises(ValueError) as caught:
        knuffle.Generator("m").shuffle_file(source, tmp_path / "out.txt", memory=memory)
    message = str(caught.value)
    assert f"memory={memory}" in message, message
    assert "'512M'" in message and "number of bytes" in message, message
    assert "extract" not in message
    with pytest.raises(ValueError, match="memory="):
        knuffle.shuffle_file(source, tmp_path / "out.txt", memory=memory)
    assert not (tmp_path / "out.txt").exists()


def test_the_largest_memory_limit_is_accepted(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n")
    knuffle.Generator("m").shuffle_file(source, tmp_path / "out.txt", memory=2**64 - 1)
    assert sorted((tmp_path / "out.txt").read_text().split()) == ["a", "b"]


def test_the_core_refuses_a_bad_memory_type_in_words():
    core = knuffle._knuffle.Generator("m", 1)
    options = {"zero_terminated": False, "header": 0, "count": None, "repeat": False,
               "temp_dir": None}
    with pytest.raises(TypeError, match="memory= takes a number of bytes"):
        core.shuffle_file_paths(["a"], "b", {**options, "memory": 1.5})
    with pytest.raises(TypeError, match="not bool"):
        core.shuffle_file_paths(["a"], "b", {**options, "memory": True})


def test_a_list_of_values_is_not_taken_for_paths():
    with pytest.raises(TypeError, match=r"list of table files \(paths\); this one holds a int"):
        knuffle.shuffle_table([1, 2, 3], seed="x")


MISSING = """
import sys
sys.modules[{name!r}] = None  # as if it were not installed
try:
    import knuffle.{module}
except ImportError as error:
    print(error)
"""


@pytest.mark.parametrize(
    ("module", "name"), [("dask", "dask"), ("spark", "pyspark"), ("spark", "pyarrow"), ("ray", "ray")]
)
def test_a_missing_engine_says_what_to_install(module, name):
    out = subprocess.run(
        [sys.executable, "-c", MISSING.format(module=module, name=name)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == f'knuffle.{module} needs {name}, which is not installed: pip install "knuffle[{module}]"\n'
