//! Every path the documents and the code cite exists in the repository: a
//! newcomer who follows "see crates/knuffle-table/src/order.rs" or
//! "ARCHITECTURE.md" finds it (ARCHITECTURE.md is the authority on code,
//! and nothing may cite a file that is not here).
//!
//! A citation is a word that starts with one of the repository's top-level
//! folders (`crates/`, `docs/`, `python/`, `scripts/`, `fuzz/`, `.ci/`) and
//! ends in a file extension, or a bare upper-case document name such as
//! `ARCHITECTURE.md`, which must be at the root or beside the citing file.
//! Words with wildcards or placeholders (`*`, `...`, upper-case segments
//! such as `TARGET`) name families of files and are not checked.

use std::path::{Path, PathBuf};

const FOLDERS: &[&str] = &["crates/", "docs/", "python/", "scripts/", "fuzz/", ".ci/"];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// The files whose citations are checked: the root's documents, `docs/`,
/// and the sources and tests of the crates and of the Python package.
fn citing_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for name in ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"] {
        files.push(root.join(name));
    }
    for dir in [
        "docs",
        "crates",
        "python/src",
        "python/knuffle",
        "python/tests",
        "scripts",
    ] {
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    files
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "data" || name == "golden" {
            continue;
        }
        if path.is_dir() {
            walk(&path, files);
        } else if path
            .extension()
            .is_some_and(|e| ["md", "rs", "py", "pyi", "toml"].iter().any(|x| e == *x))
            || path.parent().is_some_and(|p| p.ends_with("scripts"))
        {
            files.push(path);
        }
    }
}

/// The words of `text` that may be paths: runs of path characters.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-*".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
}

fn has_extension(word: &str) -> bool {
    let last = word.rsplit('/').next().unwrap_or(word);
    last.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty() && ext.len() <= 7)
}

/// A word that names a family of files rather than one file.
fn is_pattern(word: &str) -> bool {
    word.contains('*')
        || word.contains("..")
        || word.split('/').any(|segment| {
            let stem = segment.split('.').next().unwrap_or(segment);
            stem.len() > 1
                && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && !segment.ends_with(".md")
        })
}

/// A bare document name in upper case: `README.md`, `ARCHITECTURE.md`.
fn is_document_name(word: &str) -> bool {
    word.strip_suffix(".md").is_some_and(|stem| {
        stem.len() > 2 && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

#[test]
fn every_cited_path_exists() {
    let root = repository();
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in citing_files(&root) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let here = file.parent().expect("a directory");
        for (number, line) in text.lines().enumerate() {
            for word in words(line) {
                let exists = if FOLDERS.iter().any(|f| word.starts_with(f)) {
                    if !has_extension(word) || is_pattern(word) {
                        continue;
                    }
                    root.join(word).exists()
                } else if is_document_name(word) {
                    root.join(word).exists() || here.join(word).exists()
                } else {
                    continue;
                };
                checked += 1;
                if !exists {
                    let shown = file.strip_prefix(&root).unwrap_or(&file);
                    missing.push(format!("{}:{}: {word}", shown.display(), number + 1));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} citations found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "cited files that are not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_and_leaves_patterns_alone() {
    // The missing document's name is put together, so that this file does
    // not cite it.
    let line = format!(
        "see crates/knuffle/src/lib.rs, `docs/table-order.md`. And {}.md",
        "NOWHERE"
    );
    let found: Vec<&str> = words(&line).collect();
    assert!(found.contains(&"crates/knuffle/src/lib.rs"));
    assert!(found.contains(&"docs/table-order.md"));
    assert!(found.iter().any(|w| is_document_name(w)));
    assert!(is_pattern("fuzz/artifacts/TARGET/crash-1.bin"));
    assert!(is_pattern("crates/*/src/lib.rs"));
    assert!(!is_pattern("crates/knuffle-cli/tests/cli/main.rs"));
    assert!(has_extension("docs/guide/README.md"));
    assert!(!has_extension("crates/knuffle-cli"));
}
