//! `knuffle sample` on inputs larger than `--memory`: the shuffles of every
//! record (no mode, `-w FIELD` without `-n`) sort runs into temporary files
//! and merge them, `-r -n K` on standard input spools it and reads it
//! twice. The output for a seed is the same for every `--memory` (and the
//! same as the in-memory path's), the peak resident memory stays within
//! the limit plus a constant, a failing or killed run leaves no temporary
//! file and no partial output, and the external uniform shuffle passes a
//! position test that a blockwise stand-in fails.

use std::io::Write;
use std::process::{Command, Stdio};
use std::thread;

use crate::support::external::{
    fixed_memory, knuffle, read_all, sorted_records, wait_with_peak_memory,
};
use crate::support::{TestCommand, code_and_text};

/// The limit of the memory tests.
const LIMIT: u64 = 8 << 20;

/// What a run may take beyond the limit and the process's fixed memory
/// (as `external_memory`).
const SLACK: u64 = 4 << 20;

/// `lines` records `WEIGHT\tNUMBER PADDING`, weights 1..=9 (some float).
fn weighted_lines(lines: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for i in 0..lines {
        let weight = if i % 5 == 0 {
            format!("{}.5", 1 + i % 9)
        } else {
            (1 + i % 9).to_string()
        };
        bytes.extend_from_slice(format!("{weight}\t{i} ").as_bytes());
        bytes.extend(std::iter::repeat_n(b'x', (i * 7919) % 41));
        bytes.push(b'\n');
    }
    bytes
}

/// `knuffle sample ARGS` with `input` on standard input (or a FILE among
/// the arguments); its standard output, asserting success.
fn sample(args: &[&str], input: &[u8]) -> Vec<u8> {
    let output = TestCommand::knuffle()
        .arg("sample")
        .args(args)
        .stdin(input)
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 0, "sample {args:?}: {err}");
    output.stdout
}

#[test]
fn whole_shuffles_are_the_same_for_every_memory_limit() {
    // 120,000 records, about 4 MB: above --memory 1M and 2M (several runs,
    // merged in more than one level at 1M), held at 1G.
    let input = weighted_lines(120_000);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.tsv");
    std::fs::write(&file, &input).unwrap();
    let file = file.to_str().unwrap();
    for mode in [&[][..], &["-w", "1"], &["-w", "1", "--print-random"]] {
        for seed in ["one", "two", "three"] {
            let run = |memory: &str, from_file: bool| {
                let mut args = vec!["--seed", seed, "--memory", memory];
                args.extend_from_slice(mode);
                if from_file {
                    args.push(file);
                    sample(&args, b"")
                } else {
                    sample(&args, &input)
                }
            };
            let held = run("1G", true);
            for (memory, from_file) in [("1M", true), ("2M", false), ("1G", false)] {
                assert!(
                    run(memory, from_file) == held,
                    "{mode:?} seed {seed}: --memory {memory} (file: {from_file}) differs"
                );
            }
            if mode.len() < 2 {
                assert_eq!(
                    sorted_records(&held, b'\n'),
                    sorted_records(&input, b'\n'),
                    "{mode:?}: not a permutation"
                );
            }
        }
    }
}

/// Runs `knuffle ARGS` with `input` on standard input; its output and
/// peak resident memory, asserting success.
fn run_with_peak(args: &[&str], input: &[u8]) -> (Vec<u8>, u64) {
    let mut child = knuffle()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let copy = input.to_vec();
    let writer = thread::spawn(move || {
        // A run that ends early closes the pipe: not this test's failure.
        let _ = stdin.write_all(&copy);
    });
    let stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || read_all(stdout));
    let stderr = child.stderr.take().unwrap();
    let errors = thread::spawn(move || read_all(stderr));
    let (status, peak) = wait_with_peak_memory(&mut child);
    writer.join().unwrap();
    let output = reader.join().unwrap();
    let errors = errors.join().unwrap();
    assert!(
        status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&errors)
    );
    (output, peak)
}

#[test]
fn every_whole_input_mode_stays_within_the_limit_on_five_times_the_limit() {
    let _heavy = crate::support::heavy();
    // About 48 MB: more than five times the 8 MiB limit, in pipes.
    let input = weighted_lines(1_500_000);
    assert!(input.len() as u64 > 5 * LIMIT);
    let bound = LIMIT + fixed_memory(&["sample", "--seed", "peak", "--memory", "8M"]) + SLACK;
    for mode in [
        &[][..],
        &["-w", "1"],
        &["-r", "-n", "20000"],
        &["-r", "-w", "1", "-n", "20000"],
    ] {
        let mut args = vec!["sample", "--seed", "peak", "--memory", "8M"];
        args.extend_from_slice(mode);
        let (output, peak) = run_with_peak(&args, &input);
        eprintln!("{mode:?}: peak resident memory {peak} bytes");
        if mode.first() != Some(&"-r") {
            assert_eq!(output.len(), input.len(), "{mode:?}");
        } else {
            assert_eq!(output.iter().filter(|&&b| b == b'\n').count(), 20_000);
        }
        assert!(
            peak <= bound,
            "{mode:?}: peak resident memory {peak} bytes exceeds {bound}: the 8 MiB limit, the \
             process's fixed memory and 4 MiB"
        );
    }
    // Held in memory the same input takes more: the bound is not vacuous.
    let (_, peak) = run_with_peak(&["sample", "--seed", "peak", "--memory", "1G"], &input);
    assert!(peak > bound, "in-memory peak only {peak} bytes");
}

#[test]
fn with_replacement_on_standard_input_is_the_files_sample() {
    let input = weighted_lines(50_000);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.tsv");
    std::fs::write(&file, &input).unwrap();
    let file = file.to_str().unwrap();
    for mode in [&["-r", "-n", "3000"][..], &["-r", "-w", "1", "-n", "3000"]] {
        let mut from_file = vec!["--seed", "spool", "--memory", "1G"];
        from_file.extend_from_slice(mode);
        from_file.push(file);
        let expected = sample(&from_file, b"");
        for memory in ["1M", "1G"] {
            let temp = tempfile::tempdir().unwrap();
            let mut args = vec!["--seed", "spool", "--memory", memory];
            args.extend_from_slice(mode);
            args.extend(["-T", temp.path().to_str().unwrap()]);
            assert!(
                sample(&args, &input) == expected,
                "{mode:?} --memory {memory}: standard input gave another sample"
            );
            assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
        }
    }
}

#[test]
fn a_failing_run_leaves_no_temporary_file_and_no_output() {
    // A bad weight in the last record, after several runs were written.
    let mut input = weighted_lines(100_000);
    input.extend_from_slice(b"heavy\tlast\n");
    let temp = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("sample.tsv");
    for mode in [&["-w", "1"][..], &["-r", "-w", "1", "-n", "10"]] {
        let mut args = vec!["sample", "--seed", "fail", "--memory", "1M", "-T"];
        args.push(temp.path().to_str().unwrap());
        args.extend(["-o", out.to_str().unwrap()]);
        args.extend_from_slice(mode);
        let output = TestCommand::knuffle().args(&args).stdin(&input).output();
        let (code, _, err) = code_and_text(&output);
        assert_eq!(code, 1, "{mode:?}: {err}");
        assert!(err.contains("not a weight"), "{err}");
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
        assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 0);
    }
    // A temporary directory that does not exist: status 1, named.
    let output = TestCommand::knuffle()
        .args(["sample", "--memory", "1M", "-T", "/nonexistent/dir"])
        .stdin(&input)
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("'/nonexistent/dir'"), "{err}");
}

#[test]
fn a_killed_run_leaves_no_temporary_file_and_no_output() {
    let temp = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("sample.txt");
    let mut child = Command::new(crate::support::binary())
        .args(["sample", "--seed", "kill", "--memory", "1M", "-T"])
        .arg(temp.path())
        .arg("-o")
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Enough for runs to be written; standard input stays open.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&weighted_lines(100_000)).unwrap();
    stdin.flush().unwrap();
    thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 0);
}

/// Pearson's statistic of a `cells` x `cells` table of where records go:
/// input block (row) against output block (column), expected equal.
fn block_table_statistic(positions: &[usize], cells: usize) -> f64 {
    let n = positions.len();
    let mut table = vec![0f64; cells * cells];
    for (from, &to) in positions.iter().enumerate() {
        table[from * cells / n * cells + to * cells / n] += 1.0;
    }
    let expected = n as f64 / (cells * cells) as f64;
    table
        .iter()
        .map(|&o| (o - expected).powi(2) / expected)
        .sum()
}

#[test]
fn the_merged_uniform_shuffle_moves_records_anywhere_and_a_blockwise_stand_in_fails() {
    // 100,000 records through runs of --memory 1M: where does input block
    // i land? 10 x 10 blocks, 81 degrees of freedom: below 130 at
    // p = 0.0001 (fixed seeds: deterministic). A stand-in that shuffles
    // within each run's worth of records but keeps the runs in input
    // order (a merge that concatenates) has a diagonal table.
    const CRITICAL: f64 = 130.0;
    let n = 100_000usize;
    let input: Vec<u8> = (0..n).flat_map(|i| format!("{i}\n").into_bytes()).collect();
    for seed in ["p1", "p2"] {
        let out = sample(&["--seed", seed, "--memory", "1M"], &input);
        let positions: Vec<usize> = {
            let mut at = vec![0usize; n];
            for (position, line) in out
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .enumerate()
            {
                at[std::str::from_utf8(line).unwrap().parse::<usize>().unwrap()] = position;
            }
            at
        };
        let statistic = block_table_statistic(&positions, 10);
        assert!(statistic < CRITICAL, "seed {seed}: {statistic}");
    }
    // The stand-in: blocks of 20,000 records shuffled in place.
    let mut state = 0x1234_5678u64;
    let mut order: Vec<usize> = (0..n).collect();
    for block in order.chunks_mut(20_000) {
        for i in (1..block.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = ((u128::from(state) * (i as u128 + 1)) >> 64) as usize;
            block.swap(i, j);
        }
    }
    let mut positions = vec![0; n];
    for (position, &record) in order.iter().enumerate() {
        positions[record] = position;
    }
    let statistic = block_table_statistic(&positions, 10);
    assert!(statistic > CRITICAL, "the stand-in passed: {statistic}");
}
