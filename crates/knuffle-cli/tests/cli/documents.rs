//! The examples of README.md and of the user guide (`docs/guide/*.md`) run
//! as they are written (CONTRIBUTING.md, "Examples in the documents").
//!
//! Each document's `sh` and `console` blocks run in order in one fresh
//! temporary directory, with the binary under test first on `PATH` as
//! `knuffle` and the repository's `crates`, `docs` and `python` linked in.
//! A `sh` block is one `bash` script under `set -euo pipefail`; a `console`
//! block is `$ command` lines (continued by a final `\`, each run under
//! `set -o pipefail` and required to succeed), each followed by its
//! expected output, every line of which must begin a line of the actual
//! output, in order (a trailing `...` stands for the rest of the line). `python` blocks run in `python/tests/test_docs.py`. A block that
//! cannot run here carries `<!-- not run: REASON -->` on the line before
//! its fence; a marker without a reason fails, and nothing else is skipped.
//! Relative links of these documents, CONTRIBUTING.md and ARCHITECTURE.md must name files
//! that exist, and their `#anchors` headings of those files.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::binary;

/// One fenced block of a Markdown document.
#[derive(Debug)]
struct Block {
    /// The info string (`sh`, `console`, `python`, `rust`, `text`, ...).
    info: String,
    /// The line of the opening fence (1-based).
    line: usize,
    /// The lines between the fences.
    body: String,
    /// `Some(reason)` for a block marked `<!-- not run: reason -->`.
    not_run: Option<String>,
}

const NOT_RUN: &str = "<!-- not run:";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every page of the guide, sorted.
fn documents() -> Vec<PathBuf> {
    let root = repository();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide"))
        .expect("docs/guide exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 8, "the guide has a page per face: {pages:?}");
    let mut all = vec![root.join("README.md")];
    all.extend(pages);
    all
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced blocks of `text`, each with its marker (the last non-blank
/// line before the fence).
fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let previous = lines[..i].iter().rev().find(|l| !l.trim().is_empty());
        let not_run = previous
            .and_then(|l| l.trim().strip_prefix(NOT_RUN))
            .map(|rest| rest.trim_end_matches("-->").trim().to_string());
        let start = i;
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].starts_with("```"))
            .unwrap_or_else(|| panic!("the block at line {} is never closed", start + 1));
        found.push(Block {
            info: info.trim().to_string(),
            line: start + 1,
            body: lines[start + 1..end].join("\n") + "\n",
            not_run,
        });
        i = end + 1;
    }
    found
}

/// A fresh directory holding links to the repository's `crates`, `docs`
/// and `python`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = repository().canonicalize().expect("the repository");
    for name in ["crates", "docs", "python"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).expect("symlink");
    }
    dir
}

/// `bash -c SCRIPT` in `dir` with the binary under test on `PATH` and
/// `set OPTIONS` first: status, standard output, standard error.
fn bash(dir: &Path, options: &str, script: &str) -> (Option<i32>, String, String) {
    let bin_dir = binary()
        .parent()
        .expect("the binary's directory")
        .to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin_dir];
    paths.extend(std::env::split_paths(&path));
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!("set {options}\n{script}"))
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .output()
        .expect("bash runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The commands of a `console` block, each with its expected output lines.
fn console_commands(body: &str) -> Vec<(String, Vec<String>)> {
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for line in body.lines() {
        if continued {
            let (command, _) = commands.last_mut().expect("a command");
            command.push('\n');
            command.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            commands.push((command.to_string(), Vec::new()));
            continued = line.ends_with('\\');
        } else {
            let (_, expected) = commands
                .last_mut()
                .unwrap_or_else(|| panic!("output before any command: {line:?}"));
            expected.push(line.to_string());
        }
    }
    commands
}

/// Every expected line (less a trailing `...`) begins a line of `actual`,
/// in order.
fn matches(expected: &[String], actual: &str) -> Result<(), String> {
    let mut lines = actual.lines().map(str::trim_end);
    for want in expected {
        let prefix = want.trim_end().trim_end_matches("...").trim_end();
        if !lines.any(|line| line.starts_with(prefix)) {
            return Err(format!("no line (in order) begins with {prefix:?}"));
        }
    }
    Ok(())
}

/// Runs one block in `dir`; `Err` says what went wrong.
fn run(dir: &Path, block: &Block) -> Result<(), String> {
    if block.info == "sh" {
        let (status, out, err) = bash(dir, "-euo pipefail", &block.body);
        if status != Some(0) {
            return Err(format!("status {status:?}\nstdout:\n{out}\nstderr:\n{err}"));
        }
        return Ok(());
    }
    let commands = console_commands(&block.body);
    if commands.is_empty() {
        return Err("a console block without a `$ ` command".into());
    }
    for (command, expected) in commands {
        // As typed at a prompt: no `-e`, so that `COMMAND; echo $?` shows a
        // failure's status.
        let (status, out, err) = bash(dir, "-o pipefail", &command);
        if status != Some(0) {
            return Err(format!(
                "$ {command}\nstatus {status:?}\nstdout:\n{out}\nstderr:\n{err}"
            ));
        }
        matches(&expected, &out)
            .map_err(|why| format!("$ {command}\n{why}\nstdout:\n{out}\nstderr:\n{err}"))?;
    }
    Ok(())
}

#[test]
fn every_shell_example_of_the_readme_and_the_guide_runs() {
    let mut failures = Vec::new();
    let (mut ran, mut marked) = (0, 0);
    for document in documents() {
        let name = document
            .strip_prefix(repository())
            .unwrap_or(&document)
            .display()
            .to_string();
        let dir = workspace();
        for block in blocks(&read(&document)) {
            let place = format!("{name}:{} (```{})", block.line, block.info);
            if let Some(reason) = &block.not_run {
                if reason.is_empty() {
                    failures.push(format!("{place}: `{NOT_RUN} -->` needs a reason"));
                }
                marked += 1;
                continue;
            }
            if !matches!(block.info.as_str(), "sh" | "console") {
                continue;
            }
            ran += 1;
            if let Err(why) = run(dir.path(), &block) {
                failures.push(format!("{place}:\n{}\n{why}", block.body));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} examples failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(ran >= 15, "only {ran} shell examples found");
    eprintln!("documents: {ran} shell examples ran, {marked} blocks marked not run");
}

#[test]
fn blocks_are_marked_only_with_a_reason_and_only_where_they_would_run() {
    for document in documents() {
        for block in blocks(&read(&document)) {
            if let Some(reason) = &block.not_run {
                assert!(
                    !reason.is_empty(),
                    "{}:{}: a not-run marker without a reason",
                    document.display(),
                    block.line
                );
                assert!(
                    matches!(block.info.as_str(), "sh" | "console" | "python"),
                    "{}:{}: a not-run marker on a ```{} block, which is never run",
                    document.display(),
                    block.line,
                    block.info
                );
            }
        }
    }
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation
/// other than `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(slug(line.trim_start_matches('#')));
        }
    }
    found
}

#[test]
fn relative_links_of_the_documents_name_existing_files_and_headings() {
    let mut documents = documents();
    documents.push(repository().join("CONTRIBUTING.md"));
    documents.push(repository().join("ARCHITECTURE.md"));
    let mut broken = Vec::new();
    for document in documents {
        let text = read(&document);
        let base = document.parent().expect("a directory");
        let mut search = text.as_str();
        while let Some(at) = search.find("](") {
            search = &search[at + 2..];
            let Some(end) = search.find(')') else { break };
            let target = &search[..end];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                document.clone()
            } else {
                base.join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target}: no such file", document.display()));
            } else if !anchor.is_empty() && !anchors(&read(&path)).iter().any(|a| a == anchor) {
                broken.push(format!("{}: {target}: no such heading", document.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_console_block_is_read_as_commands_and_expected_lines() {
    let commands = console_commands("$ echo a \\\n   b\na b\n$ true\n");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[0].0, "echo a \\\n   b");
    assert_eq!(commands[0].1, ["a b"]);
    assert!(matches(&["x: ...".into(), "z".into()], "x: 1\ny\nz\n").is_ok());
    assert!(matches(&["z".into(), "x".into()], "x\nz\n").is_err());
    let marked =
        blocks("<!-- not run: needs the network -->\n```sh\ncurl x\n```\n```sh\nls\n```\n");
    assert_eq!(marked[0].not_run.as_deref(), Some("needs the network"));
    assert_eq!(marked[1].not_run, None);
    assert_eq!(
        slug(" `knuffle::shuffle` against rand 0.9 and rip_shuffle"),
        "knuffleshuffle-against-rand-09-and-rip_shuffle"
    );
    assert_eq!(slug(" Dask: a global shuffle"), "dask-a-global-shuffle");
}
