//! The Python extension's test build shares the workspace's compiled
//! libraries (scripts/test-all builds it into the workspace's target
//! directory with the dev profile): that holds only while python/Cargo.lock
//! pins the same version of every package the workspace's Cargo.lock has,
//! and python/Cargo.toml's dev profile is the root's. Either drifting
//! silently doubles the test suite's build time; these tests say which
//! entry drifted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// Every (name, versions) of a Cargo.lock.
fn locked(path: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(path).expect("a Cargo.lock");
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut name = None;
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"').to_owned());
        } else if let (Some(value), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            packages
                .entry(n)
                .or_default()
                .insert(value.trim_matches('"').to_owned());
        }
    }
    packages
}

#[test]
fn the_python_lockfile_pins_the_workspaces_versions() {
    let root = repository();
    let workspace = locked(&root.join("Cargo.lock"));
    let python = locked(&root.join("python/Cargo.lock"));
    assert!(python.contains_key("arrow-array") && python.contains_key("pyo3"));
    let drifted: Vec<String> = python
        .iter()
        .filter_map(|(name, versions)| {
            let theirs = workspace.get(name)?;
            let extra: Vec<&String> = versions.difference(theirs).collect();
            (!extra.is_empty()).then(|| format!("{name} {extra:?} (workspace: {theirs:?})"))
        })
        .collect();
    assert!(
        drifted.is_empty(),
        "python/Cargo.lock differs from Cargo.lock (align them with `cargo update \
         --manifest-path python/Cargo.toml -p NAME --precise VERSION`):\n{}",
        drifted.join("\n")
    );
}

/// The `[profile.dev...]` sections of a manifest, as text, without
/// comments and blank lines.
fn dev_profile(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a Cargo.toml");
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line.starts_with("[profile.dev");
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            lines.push(line.to_owned());
        }
    }
    lines
}

#[test]
fn the_python_dev_profile_is_the_workspaces() {
    let root = repository();
    let workspace = dev_profile(&root.join("Cargo.toml"));
    assert!(workspace.iter().any(|l| l == "[profile.dev]"));
    assert_eq!(dev_profile(&root.join("python/Cargo.toml")), workspace);
}
