"""The docstring examples run as tests."""

import doctest

import numpy as np
import pytest

import knuffle
import knuffle._audit
import knuffle._generator
import knuffle.dask


@pytest.mark.parametrize("module", [knuffle, knuffle._generator, knuffle._audit, knuffle.dask])
def test_docstring_examples(module):
    result = doctest.testmod(module, extraglobs={"knuffle": knuffle, "np": np}, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_api_has_docstrings():
    for name in knuffle.__all__:
        assert getattr(knuffle, name).__doc__
    for name in ("shuffle", "permutation", "sample", "choice", "deal", "shuffle_frame"):
        assert ">>>" in getattr(knuffle.Generator, name).__doc__, name


def test_readme_examples_run(tmp_path, monkeypatch):
    import re

    from conftest import REPO

    monkeypatch.chdir(tmp_path)  # the examples write files

    for readme in (REPO / "python" / "README.md", REPO / "README.md"):
        blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
        assert blocks, readme
        for block in blocks:
            exec(compile(block, str(readme), "exec"), {})
