//! The workspace's layers, and no import cycles between the modules of any
//! crate of the workspace.
//!
//! **Layers.** ARCHITECTURE.md: data flows one way, cli/python -> table ->
//! records/sample/lab/draw -> stats/io -> library. [`LAYERS`] numbers them
//! (library 0, stats and io 1, records/sample/lab/draw 2, table 3, cli/python 4, benchmarks and fuzz
//! targets 5), each
//! crate's `lib.rs` states its number ("Workspace layer N"), and a crate may
//! depend (`[dependencies]`, `[build-dependencies]`, any target's) only on
//! crates of a lower layer; dev-dependencies (tests may use anything) do not
//! count.
//!
//! **Modules.** Reads every `crates/*/src` tree (and that of any other workspace member), finds which module uses which (`use
//! crate::a::b`, `crate::a::f()`, `super::x`, `self::x`, and a parent's
//! `child::x`), and fails on any cycle: a module may only use modules
//! below it, so that each crate reads top-down. Edges to the crate root
//! (`lib.rs`, `main.rs`: its re-exports) are not counted, nor are unit-test
//! modules (`#[cfg(test)] mod tests` at the end of a file), which may use
//! anything; doc comments and line comments are ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Import edges `(crate, from, to)` that are known cycles still being
/// removed. Empty since the CLI's record engine moved into knuffle-records;
/// an entry that is no longer part of a cycle fails the test, so the list
/// can only shrink.
const KNOWN_CYCLE_EDGES: &[(&str, &str, &str)] = &[];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in workspace_crates() {
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut graph = module_graph(&src);
        checked += graph.len();
        let mut allowed = Vec::new();
        for &(krate, from, to) in KNOWN_CYCLE_EDGES.iter().filter(|e| e.0 == name) {
            let in_cycle =
                graph.get(from).is_some_and(|t| t.contains(to)) && reaches(&graph, to, from);
            if !in_cycle {
                failures.push(format!(
                    "{krate}: `{from} -> {to}` is listed in KNOWN_CYCLE_EDGES but is no longer \
                     part of a cycle: delete it from the list"
                ));
            }
            allowed.push((from, to));
        }
        for (from, to) in allowed {
            if let Some(targets) = graph.get_mut(from) {
                targets.remove(to);
            }
        }
        for cycle in cycles(&graph) {
            failures.push(format!("{name}: import cycle {}", cycle.join(" -> ")));
        }
    }
    assert!(
        checked > 20,
        "found only {checked} modules: wrong directory?"
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_checker_sees_cycles_through_every_kind_of_path() {
    let dir = std::env::temp_dir().join(format!("knuffle-arch-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("outer")).unwrap();
    let write = |path: &str, text: &str| fs::write(src.join(path), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\nmod outer;\n");
    write(
        "a.rs",
        "use crate::b::Thing;\n/// [`crate::c`] in a doc comment\n",
    );
    write("b.rs", "pub fn f() { crate::c::g() }\n");
    write(
        "c.rs",
        "use crate::{outer::inner::X, d};\n#[cfg(test)]\nmod tests {\n use crate::a::*;\n}\n",
    );
    write("outer/mod.rs", "mod inner;\npub fn h() { inner::k() }\n");
    write("outer/inner.rs", "use super::super::a;\n");
    let graph = module_graph(&src);
    assert_eq!(graph["a"], set(&["b"]), "doc comments are not imports");
    assert_eq!(
        graph["c"],
        set(&["outer::inner"]),
        "test modules are not imports"
    );
    assert_eq!(graph["outer"], set(&["outer::inner"]));
    assert_eq!(graph["outer::inner"], set(&["a"]));
    assert_eq!(
        cycles(&graph),
        vec![vec!["a", "b", "c", "outer::inner", "a"]]
    );
    // Without the cycle's closing edge there is none.
    write("outer/inner.rs", "pub fn k() {}\n");
    assert!(cycles(&module_graph(&src)).is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

/// The documented layer of every crate of the repository (ARCHITECTURE.md: "cli/
/// python -> table -> records/sample/lab/draw -> stats/io -> library"); tools sit above it all.
const LAYERS: &[(&str, u32)] = &[
    ("knuffle", 0),
    ("workspace-hack", 0),
    ("knuffle-stats", 1),
    ("knuffle-io", 1),
    ("knuffle-records", 2),
    ("knuffle-sample", 2),
    ("knuffle-lab", 2),
    ("knuffle-draw", 2),
    ("knuffle-table", 3),
    ("knuffle-cli", 4),
    ("knuffle-python", 4),
    ("knuffle-benches", 5),
    ("knuffle-fuzz", 5),
];

/// Crates whose `lib.rs` does not state its layer yet (their files are being
/// rewritten elsewhere). A crate listed here that states it fails the test,
/// so the list can only shrink.
const LAYER_NOT_YET_STATED: &[&str] = &[];

fn layer_of(name: &str) -> Option<u32> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|&(_, l)| l)
}

#[test]
fn every_crate_depends_only_on_crates_of_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs = workspace_crates();
    for extra in ["python", "fuzz"] {
        if root.join(extra).join("Cargo.toml").is_file() {
            dirs.insert(root.join(extra).canonicalize().expect("directory"));
        }
    }
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in &dirs {
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let Some(name) = package_name(&manifest) else {
            continue;
        };
        seen.insert(name.clone());
        let Some(layer) = layer_of(&name) else {
            failures.push(format!(
                "{name} has no layer: add it to LAYERS (and ARCHITECTURE.md)"
            ));
            continue;
        };
        failures.extend(layer_violations(&name, &normal_dependencies(&manifest)));
        let lib = dir.join("src/lib.rs");
        let stated = fs::read_to_string(&lib).ok().and_then(|t| stated_layer(&t));
        let exempt = LAYER_NOT_YET_STATED.contains(&name.as_str());
        match (stated, exempt) {
            (Some(s), _) if s != layer => failures.push(format!(
                "{name}: lib.rs states workspace layer {s}, the table says {layer}"
            )),
            (Some(_), true) => failures.push(format!(
                "{name} states its layer now: delete it from LAYER_NOT_YET_STATED"
            )),
            (None, false) if lib.is_file() => failures.push(format!(
                "{name}: lib.rs does not state its layer (\"Workspace layer {layer}\")"
            )),
            _ => {}
        }
    }
    for needed in [
        "knuffle",
        "knuffle-stats",
        "knuffle-lab",
        "knuffle-draw",
        "knuffle-cli",
    ] {
        assert!(
            seen.contains(needed),
            "{needed} not found: wrong directory?"
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_layer_check_fails_on_a_fabricated_edge() {
    let manifest = r#"
[package]
name = "knuffle-stats"

[dependencies]
knuffle.workspace = true
statrs = "0.18"
plots = { package = "knuffle-lab", path = "../knuffle-lab" }

[dependencies.knuffle-draw]
path = "../knuffle-draw"

[target.'cfg(unix)'.dependencies]
knuffle-cli = { workspace = true }

[dev-dependencies]
knuffle-records.workspace = true
"#;
    assert_eq!(package_name(manifest).as_deref(), Some("knuffle-stats"));
    let deps = normal_dependencies(manifest);
    assert_eq!(
        deps,
        [
            "knuffle",
            "statrs",
            "knuffle-lab",
            "knuffle-draw",
            "knuffle-cli"
        ],
        "dev-dependencies do not count; renamed and table forms do"
    );
    let failures = layer_violations("knuffle-stats", &deps);
    assert_eq!(failures.len(), 3, "{failures:?}");
    assert!(failures[0].contains("knuffle-stats (layer 1) depends on knuffle-lab (layer 2)"));
    // The same layer is refused too: draw must not use the lab.
    assert_eq!(
        layer_violations("knuffle-draw", &["knuffle-lab".to_string()]).len(),
        1
    );
    // Downward edges are fine.
    let down = ["knuffle-stats".to_string(), "knuffle".to_string()];
    assert!(layer_violations("knuffle-lab", &down).is_empty());
    assert_eq!(stated_layer("//! Workspace layer 2 (cli -> ...)"), Some(2));
    assert_eq!(stated_layer("//! no statement"), None);
}

/// `from`'s dependencies on workspace crates of its own or a higher layer.
fn layer_violations(from: &str, dependencies: &[String]) -> Vec<String> {
    let layer = layer_of(from).expect("a crate of LAYERS");
    dependencies
        .iter()
        .filter_map(|dep| {
            let target = layer_of(dep)?;
            (target >= layer).then(|| {
                format!(
                    "{from} (layer {layer}) depends on {dep} (layer {target}): \
                     only lower layers may be used"
                )
            })
        })
        .collect()
}

/// The `name` of a manifest's `[package]`.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some(value) = line.strip_prefix("name")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// The packages named in `[dependencies]`, `[build-dependencies]` and any
/// `[target.*.dependencies]` (by their package name when renamed), in order.
fn normal_dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            let normal = |h: &str| h == "dependencies" || h == "build-dependencies";
            let table = header.rsplit_once('.');
            in_deps = normal(header)
                || (header.starts_with("target.") && table.is_some_and(|(_, t)| normal(t)));
            if let Some((section, name)) = table
                && (normal(section)
                    || section.starts_with("target.") && section.ends_with("dependencies"))
                && !section.ends_with("dev-dependencies")
            {
                deps.push(name.to_string());
            }
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key: String = line
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        let renamed = line.split("package").nth(1).and_then(|rest| {
            let rest = rest.trim_start().strip_prefix('=')?;
            rest.split('"').nth(1).map(str::to_string)
        });
        if !key.is_empty() {
            deps.push(renamed.unwrap_or(key));
        }
    }
    deps
}

/// The number after "Workspace layer " in a crate root's text.
fn stated_layer(text: &str) -> Option<u32> {
    let rest = &text[text.find("Workspace layer ")? + "Workspace layer ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Every `crates/*` directory, and every workspace member listed in the
/// root `Cargo.toml` (a crate kept elsewhere, e.g. Python bindings).
fn workspace_crates() -> BTreeSet<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs: BTreeSet<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("crates/ entry").path())
        .collect();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("root Cargo.toml");
    if let Some(start) = manifest.find("members") {
        let list = &manifest[start..];
        let list = &list[..list.find(']').unwrap_or(list.len())];
        for member in list.split('"').skip(1).step_by(2) {
            if !member.contains('*') {
                dirs.insert(root.join(member));
            }
        }
    }
    dirs.into_iter()
        .filter(|dir| dir.join("src").is_dir())
        .map(|dir| dir.canonicalize().expect("crate directory"))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Every module of the crate (by path, `a::b`) and the modules it uses.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .filter_map(|file| module_path(src, file).map(|m| (m, file.clone())))
        .collect();
    let known: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let text = code_only(&fs::read_to_string(file).expect("read source"));
        let mut targets = BTreeSet::new();
        for path in paths_in(&text) {
            if let Some(target) = resolve(module, &path, &known)
                && target != *module
                && !target.is_empty()
            {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph.remove("");
    graph
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `lib.rs`/`main.rs` the
/// root `""`; `src/bin/*` are separate crates (skipped).
fn module_path(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    Some(parts.join("::"))
}

/// The text without comments and without a trailing unit-test module.
fn code_only(text: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim().starts_with("mod tests"))
        {
            break;
        }
        let code = match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Every path that starts with `crate::`, `super::`, `self::` or a plain
/// identifier followed by `::`, with `use` groups (`crate::{a, b::c}`)
/// expanded.
fn paths_in(text: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = (chars[i].is_alphabetic() || chars[i] == '_')
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if !starts_word || (i > 0 && chars[i - 1] == ':') {
            i += 1;
            continue;
        }
        let (mut expanded, end) = parse_path(&chars, i, Vec::new());
        paths.append(&mut expanded);
        i = end.max(i + 1);
    }
    paths.retain(|p| p.len() >= 2);
    paths
}

/// Parses `seg::seg::{group, ...}` from `start`; returns every full path
/// and the position after it.
fn parse_path(chars: &[char], start: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    let mut i = start;
    loop {
        let begin = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        if i == begin {
            break;
        }
        path.push(chars[begin..i].iter().collect());
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i) == Some(&'{') {
                let mut all = Vec::new();
                i += 1;
                loop {
                    while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                        i += 1;
                    }
                    match chars.get(i) {
                        None => return (all, i),
                        Some('}') => return (all, i + 1),
                        Some('*') => i += 1,
                        _ => {
                            let (mut inner, end) = parse_path(chars, i, path.clone());
                            if inner.is_empty() && end == i {
                                i += 1;
                            } else {
                                all.append(&mut inner);
                                i = end;
                            }
                            // Skip `as alias`.
                            while i < chars.len() && !matches!(chars[i], ',' | '}') {
                                i += 1;
                            }
                        }
                    }
                }
            }
            continue;
        }
        break;
    }
    (vec![path], i)
}

/// The module that `path`, written in `module`, refers to (the longest
/// known module prefix), if any.
fn resolve(module: &str, path: &[String], known: &BTreeSet<&str>) -> Option<String> {
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut rest = path;
    match rest[0].as_str() {
        "crate" => {
            base.clear();
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            // A plain path: only a child module of this one counts.
            let mut child = base.clone();
            child.push(&rest[0]);
            if !known.contains(child.join("::").as_str()) {
                return None;
            }
        }
    }
    let mut best = base.join("::");
    let mut current = base;
    for segment in rest {
        current.push(segment);
        let candidate = current.join("::");
        if known.contains(candidate.as_str()) {
            best = candidate;
        } else {
            break;
        }
    }
    Some(best)
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_owned()];
    while let Some(node) = stack.pop() {
        if node == to {
            return true;
        }
        if seen.insert(node.clone()) {
            stack.extend(graph.get(&node).into_iter().flatten().cloned());
        }
    }
    false
}

/// One cycle (as a closed path) per group of modules that reach each other.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    for start in graph.keys() {
        if reported.contains(start) {
            continue;
        }
        // Shortest path back to `start` (breadth first), if any.
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut closing = None;
        'search: while let Some(node) = queue.pop_front() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    closing = Some(node.clone());
                    break 'search;
                }
                if !previous.contains_key(next) {
                    previous.insert(next.clone(), node.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        if let Some(last) = closing {
            let mut cycle = vec![start.clone()];
            let mut node = last;
            while node != *start {
                cycle.push(node.clone());
                node = previous[&node].clone();
            }
            cycle[1..].reverse();
            cycle.push(start.clone());
            reported.extend(cycle.iter().cloned());
            found.push(cycle);
        }
    }
    found
}
