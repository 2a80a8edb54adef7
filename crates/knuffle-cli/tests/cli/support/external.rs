//! Helpers of the `external_*` integration tests (external mode:
//! inputs larger than the memory limit).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output};
use std::thread;

/// The `knuffle` binary under test.
pub fn knuffle() -> Command {
    Command::new(super::binary())
}

/// Runs `knuffle ARGS` with `input` on standard input.
pub fn run(args: &[&str], input: &[u8]) -> Output {
    super::TestCommand::knuffle()
        .args(args)
        .stdin(input)
        .output()
}

/// Runs `knuffle ARGS` and checks it succeeded; returns standard output.
pub fn run_ok(args: &[&str], input: &[u8]) -> Vec<u8> {
    let output = run(args, input);
    assert!(
        output.status.success(),
        "knuffle {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The records of `bytes` (each with its delimiter), sorted: two outputs
/// are permutations of each other exactly when these are equal.
pub fn sorted_records(bytes: &[u8], delimiter: u8) -> Vec<&[u8]> {
    let mut records: Vec<&[u8]> = bytes.split_inclusive(|&b| b == delimiter).collect();
    records.sort_unstable();
    records
}

/// `input` with a delimiter added at the end when it lacks one (what a
/// shuffle's output holds).
pub fn terminated(input: &[u8], delimiter: u8) -> Vec<u8> {
    let mut bytes = input.to_vec();
    if bytes.last().is_some_and(|&b| b != delimiter) {
        bytes.push(delimiter);
    }
    bytes
}

/// Asserts that `output` is a permutation of the records of `input`.
pub fn assert_permutation(output: &[u8], input: &[u8], delimiter: u8) {
    let expected = terminated(input, delimiter);
    assert_eq!(
        output.len(),
        expected.len(),
        "output and input sizes differ"
    );
    assert!(
        sorted_records(output, delimiter) == sorted_records(&expected, delimiter),
        "the output is not a permutation of the input"
    );
}

/// Deterministic pseudo-random bytes (a 64-bit LCG; test data only).
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

/// Text lines `line <i> <padding>` of varying lengths, `count` of them.
pub fn numbered_lines(count: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for i in 0..count {
        bytes.extend_from_slice(format!("line {i} ").as_bytes());
        bytes.extend(std::iter::repeat_n(b'x', (i * 7919) % 61));
        bytes.push(b'\n');
    }
    bytes
}

/// Names of the entries of `dir`.
pub fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("readable directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Waits for `child`, returning its exit status and its peak resident
/// memory in bytes: `VmHWM` of `/proc/PID/status`, read every 2 ms until
/// the process ends. (Not `wait4`'s `ru_maxrss`: Linux folds the memory of
/// the forking test process into it at `exec`.) `VmHWM` is a high-water
/// mark, so only growth in the last 2 ms of the run could be missed.
pub fn wait_with_peak_memory(child: &mut Child) -> (std::process::ExitStatus, u64) {
    let mut peak = 0u64;
    loop {
        peak = peak.max(peak_so_far(child));
        if let Some(status) = child.try_wait().expect("waitable child") {
            return (status, peak);
        }
        thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The peak resident memory of `knuffle ARGS` on one line of standard
/// input: what the process takes whatever its input (code, libraries, the
/// tables the loader relocates at start, thread stacks). The memory tests
/// allow it beside `--memory`; it is measured rather than assumed, because
/// it depends on the build (the debug binary's libraries and how they are
/// optimised moved it from about 7.8 to 8.7 MB).
pub fn fixed_memory(args: &[&str]) -> u64 {
    let mut child = knuffle()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("knuffle runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin.write_all(b"one line\n").expect("writable pipe");
    // The run is over in a few milliseconds once its input ends, too soon
    // to be seen: it is watched while it waits for the end of its input.
    let mut started = 0;
    for _ in 0..100 {
        thread::sleep(std::time::Duration::from_millis(5));
        started = started.max(peak_so_far(&child));
    }
    drop(stdin);
    let (status, peak) = wait_with_peak_memory(&mut child);
    assert!(status.success(), "knuffle {args:?} on one line failed");
    started.max(peak)
}

/// `VmHWM` of `child` now (0 once it has ended).
fn peak_so_far(child: &Child) -> u64 {
    std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// Reads all of `reader` (a child's pipe).
pub fn read_all(mut reader: impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).expect("readable pipe");
    bytes
}
