"""shuffle_file: the command line's line shuffle, byte for byte."""

import subprocess

import pytest

import knuffle
from conftest import knuffle_cli


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """About 3 MB of lines of varied lengths, a header line on top."""
    path = tmp_path_factory.mktemp("files") / "in.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,payload\n")
        for i in range(120_000):
            f.write(f"{i},{'x' * (i % 37)}\n")
    return path


def cli_output(args, tmp_path):
    out = tmp_path / "cli.out"
    subprocess.run([knuffle_cli(), *args, "-o", str(out)], check=True)
    return out.read_bytes()


@pytest.mark.parametrize("memory", ["1G", "1M", "2M"])  # in memory; external (one and more buckets)
def test_equals_the_command_line(big_file, tmp_path, memory):
    expected = cli_output(["--seed", "file seed", "--memory", memory, "--header", "1", str(big_file)], tmp_path)
    out = tmp_path / "py.out"
    assert knuffle.shuffle_file(big_file, out, seed="file seed", memory=memory, header=1) == "file seed"
    assert out.read_bytes() == expected
    g_out = tmp_path / "g.out"
    knuffle.Generator("file seed").shuffle_file(str(big_file), g_out, memory=memory, header=1)
    assert g_out.read_bytes() == expected
    lines = expected.split(b"\n")
    assert lines[0] == b"id,payload"
    assert sorted(lines[1:]) == sorted(big_file.read_bytes().split(b"\n")[1:])


def test_memory_limit_changes_the_layout_not_the_lines(big_file, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    knuffle.shuffle_file(big_file, a, seed="s", memory="1G")
    knuffle.shuffle_file(big_file, b, seed="s", memory=1 << 20)
    assert a.read_bytes() != b.read_bytes()
    assert sorted(a.read_bytes().split(b"\n")) == sorted(b.read_bytes().split(b"\n"))


def test_options_match_the_command_line(tmp_path):
    src = tmp_path / "z.bin"
    src.write_bytes(b"".join(b"rec%d\x00" % i for i in range(500)))
    expected = cli_output(["--seed", "z", "-z", "-n", "7", str(src)], tmp_path)
    out = tmp_path / "z.out"
    knuffle.shuffle_file(src, out, seed="z", zero_terminated=True, count=7)
    assert out.read_bytes() == expected and out.read_bytes().count(b"\x00") == 7
    several = cli_output(["--seed", "two", str(src), str(src)], tmp_path)
    knuffle.shuffle_file([src, src], out, seed="two")
    assert out.read_bytes() == several
    repeat = cli_output(["--seed", "r", "-r", "-n", "20", str(src)], tmp_path)
    knuffle.shuffle_file(src, out, seed="r", repeat=True, count=20)
    assert out.read_bytes() == repeat


def test_fresh_seed_is_returned_and_replays(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("".join(f"{i}\n" for i in range(1000)))
    seed = knuffle.shuffle_file(src, tmp_path / "1.txt")
    assert len(seed) == 64
    knuffle.shuffle_file(src, tmp_path / "2.txt", seed=seed)
    assert (tmp_path / "1.txt").read_bytes() == (tmp_path / "2.txt").read_bytes()


def test_in_place_and_failures_leave_the_output_untouched(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("".join(f"{i}\n" for i in range(1000)))
    knuffle.shuffle_file(src, src, seed="in place")
    assert sorted(src.read_text().split(), key=int) == [str(i) for i in range(1000)]
    out = tmp_path / "keep.txt"
    out.write_text("precious\n")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        knuffle.shuffle_file(tmp_path / "missing.txt", out, seed="x")
    big = tmp_path / "big.txt"
    big.write_text("".join(f"{i:07d}\n" for i in range(300_000)))  # 2.4 MB > 1M: external
    with pytest.raises(OSError, match="temporary space"):
        knuffle.shuffle_file(big, out, seed="x", memory="1M", temp_dir=tmp_path / "no such dir")
    assert out.read_text() == "precious\n"


def test_bad_options():
    with pytest.raises(ValueError, match="too small"):
        knuffle.shuffle_file("a", "b", memory=1000)
    with pytest.raises(ValueError, match="invalid memory size"):
        knuffle.shuffle_file("a", "b", memory="lots")
    with pytest.raises(TypeError, match="memory"):
        knuffle.shuffle_file("a", "b", memory=1.5)
    with pytest.raises(ValueError, match="count"):
        knuffle.shuffle_file("a", "b", repeat=True)
    # An endless output is refused before the memory limit is looked at.
    with pytest.raises(ValueError, match="repeat=True needs count="):
        knuffle.shuffle_file("a", "b", repeat=True, memory="100K")
    with pytest.raises(ValueError, match="header"):
        knuffle.shuffle_file("a", "b", header=-1)
    with pytest.raises(ValueError, match="no input"):
        knuffle.shuffle_file([], "b")
    with pytest.raises(TypeError, match="path"):
        knuffle.shuffle_file(5, "b")


def test_gil_free_run_keeps_the_stream_in_step(tmp_path):
    # The generator's stream moves on by exactly the draws the file shuffle made.
    src = tmp_path / "in.txt"
    src.write_text("".join(f"{i}\n" for i in range(100)))
    g = knuffle.Generator("after")
    g.shuffle_file(src, tmp_path / "o1")
    after_file = g.permutation(10)
    h = knuffle.Generator("after")
    h.shuffle_file(src, tmp_path / "o2")
    assert (h.permutation(10) == after_file).all()
    assert (knuffle.Generator("after").permutation(10) != after_file).any()
