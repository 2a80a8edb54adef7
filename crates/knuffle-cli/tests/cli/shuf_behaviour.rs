//! knuffle's shuf mode beyond GNU's own tests: any bytes, huge lines, safe
//! `-o`, `--seed`, `--header`, several files, fairness, closed pipes.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::support::shuf::{knuffle, lines, run, seq};

/// The delimited records of `bytes` (a missing last delimiter tolerated),
/// sorted, for comparing multisets of lines.
fn records(bytes: &[u8], delimiter: u8) -> Vec<Vec<u8>> {
    let mut r: Vec<Vec<u8>> = bytes
        .split(|&b| b == delimiter)
        .map(<[u8]>::to_vec)
        .collect();
    if bytes.last() == Some(&delimiter) || bytes.is_empty() {
        r.pop();
    }
    r.sort();
    r
}

fn work() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn any_bytes_are_lines_and_a_missing_final_delimiter_is_added() {
    let dir = work();
    let input =
        b"crlf\r\n\xff\xfe invalid utf-8\n\nnul\0inside\ntab\there\nno final newline".to_vec();
    std::fs::write(dir.path().join("odd"), &input).unwrap();
    for args in [&["odd"][..], &["-"][..]] {
        let out = run(
            &knuffle(),
            dir.path(),
            &[&["--seed", "bytes"], args].concat(),
            &input,
        );
        assert!(out.status.success());
        assert_eq!(
            out.stdout.last(),
            Some(&b'\n'),
            "the delimiter must be added"
        );
        assert_eq!(
            records(&out.stdout, b'\n'),
            records(&input, b'\n'),
            "{args:?}"
        );
    }
    let nul_input = b"a\nb\0c\0\0d".to_vec();
    let out = run(&knuffle(), dir.path(), &["-z", "--seed", "z"], &nul_input);
    assert_eq!(out.stdout.iter().filter(|&&b| b == 0).count(), 4);
    assert_eq!(records(&out.stdout, 0), records(&nul_input, 0));
}

#[test]
fn lines_of_many_megabytes_survive_every_path() {
    let dir = work();
    let mut input = Vec::new();
    for (i, len) in [5_000_000usize, 3, 7_000_000, 0, 1].iter().enumerate() {
        input.extend(std::iter::repeat_n(b'a' + i as u8, *len));
        input.push(b'\n');
    }
    std::fs::write(dir.path().join("big"), &input).unwrap();
    for args in [
        &["big"][..],
        &["-n", "3", "big"][..],
        &["-n", "3"][..],
        &[][..],
    ] {
        let out = run(&knuffle(), dir.path(), args, &input);
        assert!(out.status.success(), "{args:?}");
        let got = records(&out.stdout, b'\n');
        if args.contains(&"-n") {
            assert_eq!(got.len(), 3);
            assert!(got.iter().all(|r| records(&input, b'\n').contains(r)));
        } else {
            assert_eq!(got, records(&input, b'\n'), "{args:?}");
        }
    }
}

#[test]
fn output_may_be_the_input_and_failing_runs_leave_it_untouched() {
    let dir = work();
    let p = dir.path();
    std::fs::write(p.join("f"), seq(2000)).unwrap();
    let out = run(&knuffle(), p, &["-o", "f", "f"], b"");
    assert!(out.status.success(), "{out:?}");
    let shuffled = std::fs::read(p.join("f")).unwrap();
    assert_ne!(shuffled, seq(2000));
    assert_eq!(records(&shuffled, b'\n'), records(&seq(2000), b'\n'));

    std::fs::write(p.join("keep"), b"precious\n").unwrap();
    std::fs::write(p.join("tiny"), b"abc").unwrap();
    let failing: &[&[&str]] = &[
        &["-r", "-o", "keep", "/dev/null"], // no lines to repeat
        &["--random-source=tiny", "-i", "1-1000", "-o", "keep"], // source exhausted
        &[
            "--random-source=tiny",
            "-r",
            "-n",
            "50",
            "-i",
            "1-9",
            "-o",
            "keep",
        ], // ... mid-output
        &["-o", "keep", "missing-input"],
    ];
    for args in failing {
        let out = run(&knuffle(), p, args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            std::fs::read(p.join("keep")).unwrap(),
            b"precious\n",
            "{args:?} touched the output"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(p)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".knuffle-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn output_keeps_permissions_and_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let dir = work();
    let p = dir.path();
    std::fs::write(p.join("target"), b"old\n").unwrap();
    std::fs::set_permissions(p.join("target"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink("target", p.join("link")).unwrap();
    let out = run(&knuffle(), p, &["-e", "x", "y", "-o", "link"], b"");
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::symlink_metadata(p.join("link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        records(&std::fs::read(p.join("target")).unwrap(), b'\n'),
        [b"x".to_vec(), b"y".to_vec()]
    );
    let mode = std::fs::metadata(p.join("target"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);
    // -n 0 still creates (truncates) the output, as GNU does.
    let out = run(&knuffle(), p, &["-n", "0", "-o", "new"], b"");
    assert!(out.status.success());
    assert_eq!(std::fs::read(p.join("new")).unwrap(), b"");
}

#[test]
fn seeds_reproduce_and_short_seeds_are_flagged() {
    let dir = work();
    let p = dir.path();
    let a = run(&knuffle(), p, &["--seed", "friday", "-i", "1-50"], b"");
    let b = run(&knuffle(), p, &["--seed", "friday", "-i", "1-50"], b"");
    let c = run(&knuffle(), p, &["--seed", "saturday", "-i", "1-50"], b"");
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    let piped_a = run(&knuffle(), p, &["--seed", "x", "-n", "5"], &seq(10_000));
    let piped_b = run(&knuffle(), p, &["--seed", "x", "-n", "5"], &seq(10_000));
    assert_eq!(piped_a.stdout, piped_b.stdout);

    let warned = |args: &[&str]| !run(&knuffle(), p, args, b"").stderr.is_empty();
    assert!(
        warned(&["--seed", "42", "-i", "1-21"]),
        "a 64-bit seed cannot reach 21! orders"
    );
    assert!(!warned(&["--seed", "42", "-i", "1-20"]));
    assert!(!warned(&["--seed", "a long passphrase", "-i", "1-52"]));
}

#[test]
fn a_seed_gives_the_same_order_on_one_thread_and_on_two() {
    // Several 1 MiB read pieces, many output blocks, lines of 0 to 299
    // bytes (some longer than the 128-byte copy window), no final newline.
    let dir = work();
    let mut input = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..200_000u32 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let len = (state >> 33) as usize % 300;
        input.extend(format!("{i}:").bytes());
        input.extend((0..len).map(|j| b'a' + (j % 26) as u8));
        input.push(b'\n');
    }
    input.extend_from_slice(b"last line without newline");
    std::fs::write(dir.path().join("in"), &input).unwrap();
    let shuffled = |threads: &str| {
        let out = Command::new(knuffle())
            .args(["--seed", "threads", "in"])
            .current_dir(dir.path())
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .expect("knuffle");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let one = shuffled("1");
    assert_eq!(one, shuffled("2"));
    assert_ne!(one[..1000], input[..1000]);
    assert_eq!(records(&one, b'\n'), records(&input, b'\n'));
}

#[test]
fn header_lines_stay_on_top() {
    let dir = work();
    let p = dir.path();
    let csv =
        "name,score\n".to_string() + &(0..500).map(|i| format!("p{i},{i}\n")).collect::<String>();
    std::fs::write(p.join("t.csv"), &csv).unwrap();
    for args in [
        &["--header", "1", "t.csv"][..],
        &["--header=1", "-n", "5"][..],
        &["--header", "1", "-n", "400", "t.csv"][..],
    ] {
        let out = run(&knuffle(), p, args, csv.as_bytes());
        let got = lines(&out.stdout);
        assert_eq!(got[0], "name,score", "{args:?}");
        assert!(got[1..].iter().all(|l| l.starts_with('p')));
    }
    let out = run(
        &knuffle(),
        p,
        &["--header", "1", "-r", "-n", "3", "t.csv"],
        b"",
    );
    assert_eq!(lines(&out.stdout).len(), 4);
    let out = run(&knuffle(), p, &["--header", "1", "-i", "1-3"], b"");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn several_files_are_shuffled_together() {
    let dir = work();
    let p = dir.path();
    std::fs::write(p.join("a"), b"a1\na2").unwrap();
    std::fs::write(p.join("b"), b"b1\n").unwrap();
    let out = run(&knuffle(), p, &["a", "-", "b"], b"s1\n");
    assert!(out.status.success());
    let mut got = lines(&out.stdout);
    got.sort();
    assert_eq!(got, ["a1", "a2", "b1", "s1"]);
}

#[test]
fn messages_name_the_program_as_invoked() {
    for name in ["shuf", "knuffle"] {
        let out = Command::new(knuffle())
            .arg0(name)
            .arg("--bogus")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("{name}: unrecognized option '--bogus'")),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("Try '{name} --help'")));
    }
    let out = Command::new(knuffle())
        .arg0("shuf")
        .args(["--seed", "1"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "no extensions under the name shuf"
    );
}

#[test]
fn a_closed_output_pipe_ends_the_run_quietly() {
    let dir = work();
    let big: Vec<u8> = seq(3_000_000);
    std::fs::write(dir.path().join("big"), &big).unwrap();
    for args in [&["big"][..], &["-r", "big"][..], &["-i", "1-50000000"][..]] {
        let mut child = Command::new(knuffle())
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        let mut stdout = child.stdout.take().unwrap();
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.success() || status.signal() == Some(libc_sigpipe()),
            "{args:?}: {status:?}"
        );
    }
}

fn libc_sigpipe() -> i32 {
    13
}

/// The order of four items `a`..`d` as an index 0..24 (its Lehmer code).
fn order_index(order: &[u8]) -> usize {
    let items: Vec<usize> = order.iter().map(|&b| usize::from(b - b'a')).collect();
    knuffle_stats::perm::rank(&items) as usize
}

#[test]
fn every_order_is_equally_likely_and_a_biased_shuffle_is_caught() {
    // 23 degrees of freedom: fails above 49.73, the 0.001 critical value.
    const ALPHA: f64 = 1e-3;
    const TRIALS: u64 = 960;
    let dir = work();
    let mut counts = [0u64; 24];
    for trial in 0..TRIALS {
        let seed = format!("fairness trial {trial}");
        let out = run(
            &knuffle(),
            dir.path(),
            &["--seed", &seed, "-e", "a", "b", "c", "d"],
            b"",
        );
        let order: Vec<u8> = out.stdout.iter().copied().filter(|&b| b != b'\n').collect();
        counts[order_index(&order)] += 1;
    }
    let verdict = knuffle_stats::battery::uniform_counts(&counts, ALPHA);
    assert!(
        verdict.passed(),
        "knuffle looks biased: {verdict}, {counts:?}"
    );

    // The naive "swap each position with any position" shuffle ("How not to shuffle #2" in "Shuffle things in .Net", 2009),
    // same trials, same statistic: it must be caught.
    let mut naive = [0u64; 24];
    let mut state = 0x1234_5678_9ABC_DEF1u64;
    for _ in 0..TRIALS {
        let mut deck = *b"abcd";
        for i in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = ((state >> 32) * 4) >> 32; // exact for a power of two
            deck.swap(i, j as usize);
        }
        naive[order_index(&deck)] += 1;
    }
    let verdict = knuffle_stats::battery::uniform_counts(&naive, ALPHA);
    assert!(
        !verdict.passed(),
        "the biased shuffle was not caught: {verdict}, {naive:?}"
    );
}

#[test]
fn zero_count_reads_nothing() {
    let dir = work();
    let out = Command::new(knuffle())
        .args(["-n", "0"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn zero_count_with_memory_and_repeat_warns_of_nothing() {
    // -n 0 reads nothing, so --memory has nothing not to apply to.
    let dir = work();
    std::fs::write(dir.path().join("in.txt"), "a\nb\n").unwrap();
    let out = Command::new(knuffle())
        .args(["-n", "0", "-r", "--memory", "10M", "in.txt"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    // With a count, the warning stays.
    let out = Command::new(knuffle())
        .args(["-n", "1", "-r", "--memory", "10M", "in.txt"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--memory does not apply with -r"),
        "{stderr}"
    );
}
