//! The Python extension's test build shares the workspace's compiled
//! libraries (scripts/test-all builds it into the workspace's target
//! directory with the dev profile): that holds only while python/Cargo.lock
//! pins the same version of every package the workspace's Cargo.lock has,
//! and python/Cargo.toml's dev profile is the root's. Either drifting
//! silently doubles the test suite's build time; these tests say which
//! entry drifted. Cargo also compiles a library again for each set of
//! features a build asks of it: the third test asks Cargo for the three
//! builds' plans (the binary's, the tests', the extension's) and checks that
//! every library they share is the same compilation in each.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
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

/// Cargo's plan (`--unit-graph`, read with `RUSTC_BOOTSTRAP=1` on a stable
/// Cargo; nothing is built) of `cargo ARGS`: every compilation of a library
/// from a registry, by "name@version:target:mode", with an identity that
/// covers its features, its profile and (recursively) its dependencies'
/// identities.
fn compilations(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let scratch = tempfile::tempdir().expect("a directory");
    let out = std::process::Command::new(env!("CARGO"))
        .args(args)
        .args(["--unit-graph", "-Z", "unstable-options", "--locked"])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", scratch.path())
        .current_dir(repository())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} --unit-graph: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let graph: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a unit graph");
    let units = graph["units"].as_array().expect("units");
    fn identity(units: &[serde_json::Value], i: usize, memo: &mut Vec<Option<String>>) -> String {
        if let Some(known) = &memo[i] {
            return known.clone();
        }
        let unit = &units[i];
        let mut profile = unit["profile"].clone();
        // The profile's name (dev, test) is not part of a compilation's
        // identity; its settings are.
        profile.as_object_mut().expect("a profile").remove("name");
        let mut dependencies: Vec<String> = unit["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .map(|d| identity(units, d["index"].as_u64().expect("an index") as usize, memo))
            .collect();
        dependencies.sort();
        let own = serde_json::json!([
            unit["pkg_id"],
            unit["target"]["name"],
            unit["mode"],
            unit["features"],
            profile,
            unit["platform"],
            dependencies
        ])
        .to_string();
        // The text itself would grow with the depth: a hash of it.
        let mut hasher = std::hash::DefaultHasher::new();
        own.hash(&mut hasher);
        let digest = format!("{:016x}", hasher.finish());
        memo[i] = Some(digest.clone());
        digest
    }
    let mut memo = vec![None; units.len()];
    let mut by_name: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, unit) in units.iter().enumerate() {
        let package = unit["pkg_id"].as_str().expect("a package id");
        if !package.starts_with("registry+") {
            continue;
        }
        let name = format!(
            "{}:{}:{}",
            package.rsplit('#').next().expect("name@version"),
            unit["target"]["name"].as_str().expect("a target"),
            unit["mode"].as_str().expect("a mode")
        );
        by_name
            .entry(name)
            .or_default()
            .insert(identity(units, i, &mut memo));
    }
    by_name
}

#[test]
fn the_binary_the_tests_and_the_extension_compile_their_shared_libraries_once() {
    let tests = compilations(&["test", "--workspace", "--no-run"]);
    assert!(tests.keys().any(|k| k.starts_with("parquet@")));
    for (what, other) in [
        ("`cargo run`", compilations(&["build", "-p", "knuffle-cli"])),
        (
            "the Python extension",
            compilations(&["build", "--manifest-path", "python/Cargo.toml", "--lib"]),
        ),
    ] {
        assert!(other.keys().any(|k| k.starts_with("arrow-array@")));
        let twice: Vec<&String> = other
            .iter()
            .filter(|(name, ids)| tests.get(*name).is_some_and(|theirs| theirs != *ids))
            .map(|(name, _)| name)
            .collect();
        assert!(
            twice.is_empty(),
            "{what} and `cargo test --workspace` compile these libraries differently \
             (with other features, or above a library that has): add the features they \
             differ in to crates/workspace-hack/Cargo.toml:\n{twice:?}"
        );
    }
}
