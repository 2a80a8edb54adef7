//! Byte-for-byte comparison with the installed GNU shuf (coreutils 9.1):
//! `--random-source` output in every mode, and the messages and exit
//! status of every error. Skipped, with a message, when GNU shuf is absent
//! (a failure under `CI=true`).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::shuf::{gnu_shuf, knuffle, run, seq, shuf_dir};

/// A fixed pseudo-random byte file (xorshift), `len` bytes.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect()
}

/// Output with the program's path replaced by `PROG` in stderr.
fn normalized(out: &Output, program: &Path) -> (Option<i32>, Vec<u8>, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).replace(program.to_str().unwrap(), "PROG");
    (out.status.code(), out.stdout.clone(), stderr)
}

struct Fixture {
    dir: tempfile::TempDir,
    named: tempfile::TempDir,
    gnu: PathBuf,
}

impl Fixture {
    fn new() -> Option<Fixture> {
        let Some(gnu) = gnu_shuf() else {
            crate::support::require_or_skip("GNU shuf (coreutils) is not installed");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("rand"), random_bytes(8 << 20, 0x5EED)).unwrap();
        std::fs::write(p.join("tiny"), b"abc").unwrap();
        std::fs::write(p.join("small"), seq(1000)).unwrap();
        // Over GNU's 8 MiB reservoir threshold: -n on it is reservoir sampled.
        std::fs::write(p.join("large"), seq(1_200_000)).unwrap();
        let mut odd = b"a\r\nb\xff\xfe\n\n\0c\0d".to_vec();
        odd.extend(b"no final newline");
        std::fs::write(p.join("odd"), odd).unwrap();
        Some(Fixture {
            dir,
            named: shuf_dir(),
            gnu,
        })
    }

    /// Runs GNU and ours (as `knuffle` and as `shuf`) with the same
    /// arguments and stdin; everything must be identical.
    fn same(&self, args: &[&str], stdin: &[u8]) {
        let dir = self.dir.path();
        let expected = normalized(&run(&self.gnu, dir, args, stdin), &self.gnu);
        for ours in [knuffle(), self.named.path().join("shuf")] {
            let got = normalized(&run(&ours, dir, args, stdin), &ours);
            assert!(
                got == expected,
                "{} {args:?}\n GNU: {:?} {:?} stdout {} bytes {:?}\nours: {:?} {:?} stdout {} bytes {:?}",
                ours.display(),
                expected.0,
                expected.2,
                expected.1.len(),
                String::from_utf8_lossy(&expected.1[..expected.1.len().min(200)]),
                got.0,
                got.2,
                got.1.len(),
                String::from_utf8_lossy(&got.1[..got.1.len().min(200)]),
            );
        }
    }
}

#[test]
fn random_source_output_is_identical_in_every_mode() {
    let Some(f) = Fixture::new() else { return };
    let r = "--random-source=rand";
    let cases: &[&[&str]] = &[
        &[r, "small"],
        &[r, "-n", "10", "small"],
        &[r, "-n", "1", "small"],
        &[r, "-n", "5000", "small"],
        &[r, "-n", "7", "large"],
        &[r, "-n", "2", "-z", "odd"],
        &[r, "odd"],
        &[r, "-z", "odd"],
        &[r, "-e", "a", "b", "c", "d", "e", "f"],
        &[r, "-n", "2", "-e", "a", "b", "c"],
        &[r, "-z", "-e", "x\ny", "z", ""],
        &[r, "-i", "1-100"],
        &[r, "-i", "5-4"],
        &[r, "-n", "3", "-i", "0-1000000"],
        &[r, "-n", "20000", "-i", "1-200000"],
        &[r, "-n", "3", "-i", "1-18446744073709551615"],
        &[
            r,
            "-n",
            "3",
            "-i",
            "18446744073709551610-18446744073709551615",
        ],
        &[r, "-r", "-n", "50", "-i", "1-6"],
        &[r, "-r", "-n", "50", "-i", "0-18446744073709551614"],
        &[r, "-r", "-n", "30", "-e", "heads", "tails"],
        &[r, "-r", "-n", "30", "small"],
        &[
            "--random-source",
            "rand",
            "--rep",
            "--head-count=9",
            "--input-range=10-20",
        ],
        &["--random-source=tiny", "-i", "1-100"],
        &["--random-source=tiny", "-r", "-n", "10", "-i", "1-100"],
        &["--random-source=tiny", "-r", "-n", "10", "-i", "1-1000000"],
        &["--random-source=missing", "-i", "1-3"],
        &["--random-source=missing", "-n", "0", "-i", "1-3"],
        &["--random-source=missing", "-n", "0", "-r", "-i", "1-3"],
        &["--random-source=missing", "-e", "only"],
        &["--random-source=missing", "-i", "3-2"],
        &["--random-source=.", "-i", "1-3"],
    ];
    for args in cases {
        f.same(args, b"");
    }
    // Standard input: a pipe with -n is reservoir sampled by GNU.
    f.same(&[r, "-n", "5"], &seq(5000));
    f.same(&[r, "-n", "5"], &seq(3));
    f.same(&[r, "-n", "3"], &seq(3));
    f.same(&[r], &seq(300));
    f.same(&[r, "-n", "4", "-"], b"a\nb\nc\nd\ne\nf");
    f.same(&["--random-source=tiny", "-n", "2"], &seq(2000));
}

#[test]
fn error_messages_and_statuses_are_identical() {
    let Some(f) = Fixture::new() else { return };
    let cases: &[&[&str]] = &[
        &["-x"],
        &["--foo"],
        &["--h"],
        &["--he", "3", "small"],
        &["--echo=3"],
        &["--ec=3"],
        &["--head-count"],
        &["-n"],
        &["-o"],
        &["--random-source"],
        &["-nA"],
        &["-n", "-1"],
        &["-n", ""],
        &["-n", "3k", "small"],
        &["-n", "0x5", "small"],
        &["-i", "1"],
        &["-i", "A"],
        &["-i", "1-"],
        &["-i", "-1-3"],
        &["-i", "1--3"],
        &["-i", "1-A"],
        &["-i", "1-3x"],
        &["-i", "5-3"],
        &["-i", "0-18446744073709551615"],
        &["-i", "1-99999999999999999999999"],
        &["-i", "1-2", "-i", "3-4"],
        &["-o", "a", "-o", "b"],
        &["--random-source", "a", "--random-source", "b"],
        &["-e", "-i", "1-3"],
        &["-i", "1-3", "x"],
        &["small", "small"],
        &["missing"],
        &["-r", "-e"],
        &["-r", "/dev/null"],
        // The output is opened before "no lines to repeat" is said.
        &["-r", "-o", ".", "/dev/null"],
        &["-r", "-o", "no/such/dir", "-e"],
        &["-r", "-o", ".", "-i", "3-2"],
        &["-r", "-n", "0", "-o", ".", "-e"],
        // glibc shows a long option with its `=value`.
        &["--he=5"],
        &["--x=1"],
        &["--="],
        &["--=x"],
        &["---"],
        &["--zero-terminated="],
        &["--z="],
        &["--help=1"],
        &["--head-count="],
        &["--ra"],
        &["."],
        &["-n", "1", "-o", "no/such/dir", "small"],
        &["-n", "1", "-e", "-x"],
        &["--", "-i"],
        &["-rn3", "-e", "a"],
        &["-i", " +1-3", "-n", "0"],
        &["-n", " +2", "-n", "99999999999999999999", "-i", "1-1"],
        &["--version", "--foo"],
        &["--foo", "--version"],
        &["--rep", "-n", "2", "-i", "7-7"],
        &["--hea", "1", "-i", "7-7"],
        &["--in", "4-4"],
    ];
    for args in cases {
        let dir = f.dir.path();
        let expected = normalized(&run(&f.gnu, dir, args, b""), &f.gnu);
        for ours in [knuffle(), f.named.path().join("shuf")] {
            if *args == ["small", "small"] && ours == knuffle() {
                continue; // knuffle's extension: several FILEs (checked below)
            }
            let got = normalized(&run(&ours, dir, args, b""), &ours);
            if args[0] == "--version" {
                assert_eq!(got.0, Some(0));
                continue;
            }
            assert_eq!(
                got.0,
                expected.0,
                "{} {args:?}: status; GNU said {:?}",
                ours.display(),
                expected.2
            );
            assert_eq!(got.2, expected.2, "{} {args:?}: stderr", ours.display());
            if expected.0 == Some(1) {
                assert_eq!(got.1, expected.1, "{} {args:?}: stdout", ours.display());
            }
        }
    }
    // Only GNU's operand rules under the name `shuf`; knuffle takes several files.
    let out = run(
        &knuffle(),
        f.dir.path(),
        &["-n", "1", "small", "small"],
        b"",
    );
    assert!(out.status.success());
}

/// File names in messages are quoted exactly as GNU's `quotef` does
/// (gnulib quotearg, shell-escape style, colons quoted too).
#[test]
fn file_names_are_quoted_like_gnu() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let Some(f) = Fixture::new() else { return };
    let names: &[&[u8]] = &[
        b"a=b",
        b"--input-range=20-29",
        b"a'b",
        b"it's a b",
        b"a'b=c",
        b"a#",
        b"#a",
        b"a~",
        b"~a",
        b"x]",
        b"[x",
        b"a{b}",
        b"{",
        b"}",
        b"a@b",
        b"a:b",
        b"-n",
        b"a b",
        b" ",
        b"a\tb",
        b"a\nb",
        b"a\n\tb",
        b"\n",
        b"\r\x07\x08\x0b\x0c",
        b"\xff",
        b"a\xffb",
        b"\xc3",
        b"\xe2\x82",
        b"\x01x",
        b"\x7f",
        b"caf\xc3\xa9",
        b"caf\xc3\xa9 x",
        b"\xc2\x85",
        b"\xe2\x80\xa8",
        b"\xf0\x9f\x98\x80",
        b"",
        b"a?",
        b"a\\b",
        b"$HOME",
        b"a*",
        b"!a",
        b"a;b",
        b"a|b",
        b"a&b",
        b"(a)",
        b"a<b>",
        b"a^b",
        b"`a`",
        b"\"a\"",
        b"\n'",
        b"'\n",
        b"a'\xff",
        b"\xff'\x01",
        b"%+,-./_",
        b"\xef\xbf\xbe",
        b"\xf4\x8f\xbf\xbf",
        b"\xc2\xad\xe2\x80\x8b",
    ];
    for name in names {
        let name = OsStr::from_bytes(name);
        let dir = f.dir.path();
        for args in [
            vec![OsStr::new("--"), name],
            vec![OsStr::new("-n"), name], // quote (locale quotes, C escapes)
            vec![
                OsStr::new("-o"),
                OsStr::new("no/such"),
                OsStr::new("-n1"),
                OsStr::new("--"),
                name,
            ],
        ] {
            let expected = normalized(
                &crate::support::shuf::run_in(&f.gnu, dir, &args, b""),
                &f.gnu,
            );
            for ours in [knuffle(), f.named.path().join("shuf")] {
                let got = normalized(&crate::support::shuf::run_in(&ours, dir, &args, b""), &ours);
                assert_eq!(got, expected, "{} {args:?}", ours.display());
            }
        }
        // The same name as the output file (in a missing directory).
        let mut out = b"no/such/".to_vec();
        out.extend(name.as_bytes());
        let args = [
            OsStr::new("-e"),
            OsStr::new("x"),
            OsStr::new("-o"),
            OsStr::from_bytes(&out),
        ];
        let expected = normalized(
            &crate::support::shuf::run_in(&f.gnu, dir, &args, b""),
            &f.gnu,
        );
        for ours in [knuffle(), f.named.path().join("shuf")] {
            let got = normalized(&crate::support::shuf::run_in(&ours, dir, &args, b""), &ours);
            assert_eq!(got, expected, "{} {args:?}", ours.display());
        }
        // In the C locale every byte over 0x7F is escaped, and values are
        // quoted with apostrophes: `-n NAME` shows `quote`, a FILE `quotef`.
        let in_c_locale = |program: &Path, args: &[&OsStr]| {
            let out = crate::support::TestCommand::new(program)
                .args(args)
                .current_dir(dir)
                .env("LC_ALL", "C")
                .output();
            normalized(&out, program)
        };
        for args in [vec![OsStr::new("--"), name], vec![OsStr::new("-n"), name]] {
            let expected = in_c_locale(&f.gnu, &args);
            let shuf = f.named.path().join("shuf");
            assert_eq!(in_c_locale(&shuf, &args), expected, "LC_ALL=C {args:?}");
        }
    }
}
