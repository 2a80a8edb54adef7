//! The cases of GNU coreutils' own test script `tests/shuf/shuf.sh`, run
//! against our binary both as `knuffle` and under the name `shuf`.

use std::path::{Path, PathBuf};

use crate::support::shuf::{first_lines, knuffle, lines, run, seq, sh, shuf_dir};

/// Runs `case` with the binary as `knuffle` and as `shuf`.
fn both(case: impl Fn(&Path, &Path)) {
    let named = shuf_dir();
    let programs: [PathBuf; 2] = [knuffle(), named.path().join("shuf")];
    for program in &programs {
        let work = tempfile::tempdir().expect("work dir");
        case(program, work.path());
    }
}

fn sorted_numbers(bytes: &[u8]) -> Vec<u64> {
    let mut v: Vec<u64> = lines(bytes)
        .iter()
        .map(|l| l.parse().expect("number"))
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn shuffles_a_file_and_a_range_into_permutations() {
    both(|shuf, dir| {
        std::fs::write(dir.join("in"), seq(100)).unwrap();
        for args in [&["in"][..], &["-i", "1-100"][..]] {
            let out = run(shuf, dir, args, b"");
            assert!(out.status.success(), "{args:?}");
            assert_ne!(out.stdout, seq(100), "not random? {args:?}");
            assert_eq!(
                sorted_numbers(&out.stdout),
                (1..=100).collect::<Vec<_>>(),
                "not a permutation"
            );
        }
    });
}

#[test]
fn repeat_with_zero_count_and_closed_stdin() {
    both(|shuf, dir| {
        std::fs::write(dir.join("in"), seq(100)).unwrap();
        let out = sh(shuf, dir, r#""$SHUF" -r -n 0 in <&- >out"#);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(std::fs::read(dir.join("out")).unwrap(), b"");
        let out = sh(shuf, dir, r#""$SHUF" /dev/null <&- >out"#);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(std::fs::read(dir.join("out")).unwrap(), b"");
    });
}

#[test]
fn echo_and_simple_errors() {
    both(|shuf, dir| {
        let out = run(shuf, dir, &["-e", "a", "b", "c", "d", "e"], b"");
        let mut got = lines(&out.stdout);
        got.sort();
        assert_eq!(got, ["a", "b", "c", "d", "e"]);
        assert_eq!(run(shuf, dir, &["-er"], b"").status.code(), Some(1), "-er");
        assert_eq!(
            run(shuf, dir, &["-i0-0", "1"], b"").status.code(),
            Some(1),
            "-i0-0 1"
        );
        // "seq 1860" is 8193 bytes: coreutils before 6.3 looped forever.
        assert!(run(shuf, dir, &[], &seq(1860)).status.success());
        let out = run(shuf, dir, &["--zero-terminated", "-i", "1-1"], b"");
        assert_eq!(out.stdout, b"1\0", "missing NUL terminator?");
    });
}

/// The least address space (KiB, to 1 MiB) under which `program` starts and
/// shuffles a tiny range: what loading the binary itself takes here.
fn address_space_to_start(program: &Path, dir: &Path) -> u64 {
    let starts = |kib: u64| {
        sh(
            program,
            dir,
            &format!(r#"ulimit -v {kib} && "$SHUF" -i1-10 >/dev/null"#),
        )
        .status
        .success()
    };
    let (mut low, mut high) = (4 * 1024, 1024 * 1024);
    assert!(
        starts(high),
        "the binary does not start in 1 GiB of address space"
    );
    while high - low > 1024 {
        let mid = (low + high) / 2;
        if starts(mid) { high = mid } else { low = mid }
    }
    high
}

#[test]
fn memory_exhaustion_exits_with_status_1() {
    both(|shuf, dir| {
        // GNU's test uses `ulimit -v 8192` and -i1-1000000. What the knuffle
        // binary needs just to load (a debug build with every subcommand,
        // more than 8 MiB) differs from machine to machine, so the limit is
        // what it takes to start plus 16 MiB: room for every small
        // allocation, while the range's 800 MB of entries cannot fit.
        let limit = address_space_to_start(shuf, dir) + 16 * 1024;
        let out = sh(
            shuf,
            dir,
            &format!(r#"ulimit -v {limit} && "$SHUF" -i1-100000000 >/dev/null"#),
        );
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("memory exhausted"),
            "{out:?}"
        );
    });
}

#[test]
fn small_subsets_of_huge_ranges_are_quick() {
    both(|shuf, dir| {
        let out = sh(
            shuf,
            dir,
            r#"timeout 10 "$SHUF" -i1-18446744073709551615 -n2"#,
        );
        assert!(out.status.success(), "couldn't get a small subset: {out:?}");
        assert_eq!(lines(&out.stdout).len(), 2);
        // ASLR must not be the only source of randomness (1 in 2^64 to fail).
        let a = run(shuf, dir, &["-i", "1-18446744073709551615", "-n", "1"], b"");
        let b = run(shuf, dir, &["-i", "1-18446744073709551615", "-n", "1"], b"");
        assert_ne!(a.stdout, b.stdout);
    });
}

#[test]
fn zero_count_opens_no_input() {
    both(|shuf, dir| {
        let unreadable = dir.join("unreadable");
        std::fs::write(&unreadable, "x\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert!(run(shuf, dir, &["-n0", "unreadable"], b"").status.success());
        // Root reads any file: the input that cannot be read is then a
        // directory (read(2) fails with EISDIR for everyone).
        let bad = if std::fs::File::open(&unreadable).is_err() {
            "unreadable"
        } else {
            std::fs::create_dir(dir.join("a-directory")).unwrap();
            "a-directory"
        };
        assert!(run(shuf, dir, &["-n0", bad], b"").status.success());
        assert_eq!(run(shuf, dir, &["-n1", bad], b"").status.code(), Some(1));
        assert!(
            run(shuf, dir, &["-n0", "missing-file"], b"")
                .status
                .success()
        );
    });
}

#[test]
fn the_smallest_count_wins() {
    both(|shuf, dir| {
        let out = run(shuf, dir, &["-n10", "-i0-9", "-n3", "-n20"], b"");
        assert_eq!(lines(&out.stdout).len(), 3, "Multiple -n failed");
    });
}

#[test]
fn usage_errors_exit_with_status_1() {
    both(|shuf, dir| {
        let cases: &[&[&str]] = &[
            &["-i0-9", "-e", "A", "B"],
            &["-nA"],
            &["-i0-9", "-n10", "-i8-90"],
            &["-i1"],
            &["-iA"],
            &["-i1-"],
            &["-i1-A"],
            &["-i0-9", "-o", "A", "-o", "B"],
            &["-i0-9", "--random-source", "A", "--random-source", "B"],
        ];
        for args in cases {
            let out = run(shuf, dir, args, b"");
            assert_eq!(out.status.code(), Some(1), "{args:?} must fail");
            assert!(!out.stderr.is_empty(), "{args:?} must explain");
        }
    });
}

#[test]
fn repeat_without_count_is_endless_and_ends_quietly_on_a_closed_pipe() {
    both(|shuf, dir| {
        let (got, ended) = first_lines(shuf, dir, &["--rep", "-i", "0-10"], b"", 1000);
        assert_eq!(
            lines(&got).len(),
            1000,
            "--repeat does not repeat indefinitely"
        );
        assert!(ended);
        let (got, ended) = first_lines(shuf, dir, &["--rep", "-e", "A", "B", "C", "D"], b"", 1000);
        assert_eq!(
            lines(&got).len(),
            1000,
            "--repeat,-e does not repeat indefinitely"
        );
        assert!(ended);
        let (got, ended) = first_lines(shuf, dir, &["--rep"], b"A\nB\nC\nD\nE\n", 1000);
        assert_eq!(
            lines(&got).len(),
            1000,
            "--repeat,STDIN does not repeat indefinitely"
        );
        assert!(ended);
    });
}

#[test]
fn repeat_with_count() {
    both(|shuf, dir| {
        let out = run(shuf, dir, &["--rep", "-i0-9", "-n1000"], b"");
        let mut values = sorted_numbers(&out.stdout);
        assert_eq!(values.len(), 1000, "--repeat with --count failed");
        values.dedup();
        assert_eq!(
            values,
            (0..=9).collect::<Vec<_>>(),
            "--repeat produced bad output"
        );
        let out = run(shuf, dir, &["--rep", "-i222-233", "-n2000"], b"");
        let mut values = sorted_numbers(&out.stdout);
        values.dedup();
        assert_eq!(
            values,
            (222..=233).collect::<Vec<_>>(),
            "bad output with non-zero low"
        );
        let out = run(shuf, dir, &["--rep", "-i0-9", "-n0"], b"");
        assert!(out.status.success() && out.stdout.is_empty());
        let out = run(shuf, dir, &["--rep", "-n2000"], b"A\nB\nC\nD\nE\n");
        let mut got = lines(&out.stdout);
        assert_eq!(got.len(), 2000, "--repeat,STDIN,count failed");
        got.sort();
        got.dedup();
        assert_eq!(got, ["A", "B", "C", "D", "E"]);
        let out = run(shuf, dir, &["--rep", "-n0"], b"A\nB\nC\nD\nE\n");
        assert!(out.status.success() && out.stdout.is_empty());
    });
}

#[test]
fn a_failing_getrandom_is_handled() {
    let have_strace = std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_strace {
        crate::support::require_or_skip("strace is not installed");
        return;
    }
    both(|shuf, dir| {
        let out = sh(
            shuf,
            dir,
            r#"strace -o /dev/null -e inject=getrandom:error=ENOSYS "$SHUF" -i 1-9"#,
        );
        assert!(matches!(out.status.code(), Some(0) | Some(1)), "{out:?}");
    });
}
