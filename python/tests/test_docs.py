"""The docstring examples run as tests."""

import doctest

import numpy as np
import pytest

import knuffle
import knuffle._audit
import knuffle._audit_order
import knuffle._epoch
import knuffle._generator
import knuffle._stream
import knuffle._table
import knuffle.dask


@pytest.mark.parametrize("module", [knuffle, knuffle._generator, knuffle._audit, knuffle._audit_order, knuffle._epoch, knuffle._table, knuffle._stream, knuffle.dask])
def test_docstring_examples(module):
    result = doctest.testmod(module, extraglobs={"knuffle": knuffle, "np": np}, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_api_has_docstrings():
    for name in knuffle.__all__:
        assert getattr(knuffle, name).__doc__
    for name in ("shuffle", "permutation", "sample", "choice", "deal", "shuffle_frame"):
        assert ">>>" in getattr(knuffle.Generator, name).__doc__, name


NOT_RUN = "<!-- not run:"


def python_blocks(path):
    """The ```python blocks of a Markdown file: (line, code, reason or None).

    A block is not run when the last non-blank line before its fence is
    ``<!-- not run: REASON -->`` (CONTRIBUTING.md, "Examples in the documents").
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        if lines[i][3:].strip() == "python":
            before = [line.strip() for line in lines[:i] if line.strip()]
            reason = None
            if before and before[-1].startswith(NOT_RUN):
                reason = before[-1][len(NOT_RUN):].removesuffix("-->").strip()
            blocks.append((i + 1, "\n".join(lines[i + 1 : end]) + "\n", reason))
        i = end + 1
    return blocks


def documents():
    from conftest import REPO

    pages = sorted((REPO / "docs" / "guide").glob("*.md"))
    assert len(pages) >= 8, pages
    return [REPO / "python" / "README.md", REPO / "README.md", *pages]


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.name if p.parent.name != "guide" else f"guide/{p.name}")
def test_document_python_examples_run(document, tmp_path, monkeypatch):
    """Every ```python block of README.md, python/README.md and docs/guide/*.md runs, in order, in
    one fresh directory (the examples write files); a block marked not run must say why."""
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for line, code, reason in python_blocks(document):
        if reason is not None:
            assert reason, f"{document}:{line}: a not-run marker needs a reason"
            continue
        exec(compile(code, f"{document}:{line}", "exec"), namespace)


def test_documents_have_python_examples():
    from conftest import REPO

    for name in ("README.md", "python/README.md", "docs/guide/python.md"):
        assert [b for b in python_blocks(REPO / name) if b[2] is None], name
