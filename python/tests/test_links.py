"""Every relative Markdown link of the repository's documents names a file
that exists, and an anchor into a Markdown file names one of its headings.

Standard library only: it runs without the built extension
(`python3 -m pytest python/tests/test_links.py`).
"""

import os
import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]

# Directories that hold no documents of the repository: build output,
# environments, dependencies and generated corpora.
SKIPPED_DIRECTORIES = {".git", "target", ".venv", "venv", "node_modules", "corpus", "artifacts", "__pycache__", ".pytest_cache"}

# `](target)` or `](target "title")`; `<target>` is unwrapped below.
LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def markdown_files(root: Path) -> list[Path]:
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
        found.extend(Path(directory) / name for name in sorted(files) if name.endswith(".md"))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, spaces to `-`, punctuation
    other than `-` and `_` dropped."""
    return "".join("-" if c == " " else c for c in heading.strip().lower() if c == " " or c in "-_" or c.isalnum())


def outside_code(text: str):
    """(line number, line) of the lines outside fenced blocks, inline code removed."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * len(marker.group(1))
                continue
            if stripped.startswith(fence) and not stripped[len(fence) :].strip():
                fence = None
                continue
        if fence is None:
            yield number, INLINE_CODE.sub("", line)


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings (ATX headings outside fenced
    blocks; a repeated heading gets GitHub's `-1`, `-2`, ... suffix)."""
    seen: dict[str, int] = {}
    found = set()
    fence = None
    for line in text.splitlines():
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)
            elif stripped.startswith(fence) and not stripped[len(fence) :].strip():
                fence = None
            continue
        if fence is not None:
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    # HTML anchors written by hand: <a name="x"></a> or id="x".
    found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return found


def broken_links(document: Path, root: Path) -> list[str]:
    """The broken relative links of one Markdown file, each as `file:line: target: why`."""
    text = document.read_text(encoding="utf-8")
    broken = []
    for number, line in outside_code(text):
        for match in LINK.finditer(line):
            target = match.group(1).strip("<>")
            if not target or re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # empty, or a URL (https:, mailto:, ...)
            path_part, _, anchor = target.partition("#")
            if path_part.startswith("/"):
                path = root / path_part.lstrip("/")
            elif path_part:
                path = document.parent / path_part
            else:
                path = document
            place = f"{document.relative_to(root)}:{number}: {target}"
            if not path.exists():
                broken.append(f"{place}: no such file")
            elif anchor and path.is_file() and path.suffix == ".md":
                if anchor not in anchors(path.read_text(encoding="utf-8")):
                    broken.append(f"{place}: no such heading")
    return broken


def test_every_relative_link_names_an_existing_file_and_heading():
    documents = markdown_files(REPOSITORY)
    names = {str(d.relative_to(REPOSITORY)) for d in documents}
    assert {"README.md", "BENCHMARKS.md", "CHANGELOG.md", "CONTRIBUTING.md"} <= names
    broken = [b for d in documents for b in broken_links(d, REPOSITORY)]
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_checker_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "target.md").write_text("# Target page\n\n## Files larger than memory\n\n## Notes\n\n## Notes\n")
    (tmp_path / "README.md").write_text(
        "[fine](pages/target.md) [fine](pages/target.md#files-larger-than-memory)\n"
        "[repeated](pages/target.md#notes-1) [here](#a-heading) [web](https://example.com/x.md)\n"
        "`[in code](missing.md)`\n\n```sh\necho '[in a block](missing.md)'\n```\n\n# A heading\n"
        "[gone](pages/missing.md)\n"
        "[bad anchor](pages/target.md#files-larger-than-ram)\n"
        "[bad local anchor](#no-such-heading)\n"
    )
    broken = broken_links(tmp_path / "README.md", tmp_path)
    assert broken == [
        "README.md:10: pages/missing.md: no such file",
        "README.md:11: pages/target.md#files-larger-than-ram: no such heading",
        "README.md:12: #no-such-heading: no such heading",
    ]
    assert broken_links(tmp_path / "pages" / "target.md", tmp_path) == []


def test_slugs_follow_githubs_rules():
    assert slug("`knuffle::shuffle` against rand 0.9 and rip_shuffle") == "knuffleshuffle-against-rand-09-and-rip_shuffle"
    assert slug("knuffle as shuf: whole processes against GNU shuf 9.1") == "knuffle-as-shuf-whole-processes-against-gnu-shuf-91"
    assert slug("The bias lab's speed") == "the-bias-labs-speed"
    assert slug("Where knuffle stands: every run on the EPYC, side by side") == "where-knuffle-stands-every-run-on-the-epyc-side-by-side"
