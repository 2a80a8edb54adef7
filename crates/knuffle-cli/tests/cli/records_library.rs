//! The record library (`knuffle_records::shuffle_records`) writes exactly
//! what the `knuffle` command writes for the same inputs, seed and memory
//! limit: in memory, through the reservoir, and through the external
//! scatter/gather, from a file or from a reader, with GNU's random source.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use knuffle_records::{
    HeadCount, Input, Options, Randomness, shuffle_records, shuffle_records_to_file,
};

fn knuffle(args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_knuffle"))
        .args(args)
        .output()
        .expect("knuffle runs");
    assert!(
        output.status.success(),
        "knuffle {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn library(input: Input, options: &Options, randomness: &mut Randomness) -> Vec<u8> {
    let mut out = Vec::new();
    shuffle_records([input], options, randomness, &mut out).expect("the library shuffles");
    out
}

fn lines(count: usize, width: usize) -> Vec<u8> {
    (0..count)
        .flat_map(|i| format!("{i:0width$}\n").into_bytes())
        .collect()
}

fn file_with(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(bytes))
        .expect("a test file");
    path.to_str().expect("a UTF-8 path").to_string()
}

/// Each case: the command's options, and the same as library options.
fn cases() -> Vec<(Vec<&'static str>, Options)> {
    let memory = |m: u64| Some(m << 20);
    vec![
        // In memory.
        (vec![], Options::default()),
        (
            vec!["--header", "2"],
            Options {
                header: 2,
                ..Options::default()
            },
        ),
        // -n above the reservoir's size: the in-memory index.
        (
            vec!["-n", "70000"],
            Options {
                count: HeadCount::AtMost(70_000),
                ..Options::default()
            },
        ),
        // The reservoir.
        (
            vec!["-n", "5", "--header", "1"],
            Options {
                count: HeadCount::AtMost(5),
                header: 1,
                ..Options::default()
            },
        ),
        // Repeat.
        (
            vec!["-r", "-n", "1000"],
            Options {
                repeat: true,
                count: HeadCount::AtMost(1000),
                ..Options::default()
            },
        ),
        // External: the input (about 1.6 MB) is above a 1 MiB limit.
        (
            vec!["--memory", "1M"],
            Options {
                memory: memory(1),
                ..Options::default()
            },
        ),
        (
            vec!["--memory", "1M", "--header", "3", "-n", "100000"],
            Options {
                memory: memory(1),
                header: 3,
                count: HeadCount::AtMost(100_000),
                ..Options::default()
            },
        ),
    ]
}

#[test]
fn the_library_writes_what_the_command_writes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = lines(200_000, 7);
    let path = file_with(dir.path(), "input", &data);
    for (args, options) in cases() {
        let mut command_args = vec!["--seed", "equal"];
        command_args.extend(&args);
        command_args.push(&path);
        let expected = knuffle(&command_args);
        let from_path = library(
            Input::from_name(&path),
            &options,
            &mut Randomness::from_seed_text("equal"),
        );
        assert!(from_path == expected, "path input differs for {args:?}");
        let from_reader = library(
            Input::Reader(Box::new(std::io::Cursor::new(data.clone()))),
            &options,
            &mut Randomness::from_seed_text("equal"),
        );
        assert!(from_reader == expected, "reader input differs for {args:?}");
    }
}

#[test]
fn the_library_writes_what_the_command_writes_with_a_gnu_random_source() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = lines(1000, 3);
    let path = file_with(dir.path(), "input", &data);
    let source: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let source_path = file_with(dir.path(), "source", &source);
    for (args, options) in [
        (vec![], Options::default()),
        (
            vec!["-n", "7"],
            Options {
                count: HeadCount::AtMost(7),
                ..Options::default()
            },
        ),
    ] {
        let mut command_args = vec!["--random-source", &source_path];
        command_args.extend(&args);
        command_args.push(&path);
        let expected = knuffle(&command_args);
        let got = library(
            Input::from_name(&path),
            &options,
            &mut Randomness::gnu_source(&source_path),
        );
        assert!(got == expected, "GNU source output differs for {args:?}");
    }
}

#[test]
fn several_inputs_and_an_output_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let a = file_with(dir.path(), "a", b"1\n2\n3");
    let b = file_with(dir.path(), "b", b"4\n5\n");
    let out = dir.path().join("out");
    let expected = knuffle(&["--seed", "two", &a, &b]);
    shuffle_records_to_file(
        [Input::from_name(&a), Input::from_name(&b)],
        &Options::default(),
        &mut Randomness::from_seed_text("two"),
        &out,
    )
    .expect("the library shuffles");
    assert_eq!(std::fs::read(&out).expect("the output"), expected);

    // A failing run (a missing input) leaves the output file as it was.
    let failed = shuffle_records_to_file(
        [
            Input::from_name(&a),
            Input::from_name(dir.path().join("missing")),
        ],
        &Options::default(),
        &mut Randomness::from_seed_text("two"),
        &out,
    );
    assert!(matches!(failed, Err(knuffle_records::Error::File { .. })));
    assert_eq!(std::fs::read(&out).expect("the output"), expected);
}
