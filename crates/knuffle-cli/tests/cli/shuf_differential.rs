//! Differential test against the installed GNU shuf (coreutils 9.1):
//! random command lines (options in every spelling, abbreviations, bad
//! options, missing files, directories, `-o`) on random inputs (NUL, 0xFF,
//! CR, no final newline, empty, long lines), run by GNU and by us with the
//! same `--random-source` file; standard output, standard error (program
//! name normalised), exit status and the `-o` file must be identical.
//!
//! The cases come from a fixed seed, so a failure reproduces; it prints
//! the case number and the command line. `KNUFFLE_DIFF_CASES=5000` runs
//! more cases (default 500), `KNUFFLE_DIFF_SEED=N` another sequence.
//! Without GNU shuf the test is skipped (a failure under `CI=true`).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::Output;

use crate::support::shuf::{gnu_shuf, knuffle, run_in, shuf_dir};

/// xorshift64*: the case generator (not a shuffler; any fixed sequence will do).
struct Cases(u64);

impl Cases {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (slightly uneven for large n: fine for test cases).
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One generated case: arguments, standard input, and files to create.
struct Case {
    args: Vec<OsString>,
    stdin: Vec<u8>,
    files: Vec<(&'static str, Vec<u8>)>,
    output_file: bool,
    /// Two FILE operands: GNU's "extra operand", knuffle's extension.
    several_files: bool,
}

fn random_lines(g: &mut Cases) -> Vec<u8> {
    let mut data = Vec::new();
    let lines = *g.pick(&[0, 1, 2, 3, 5, 10, 40, 200]);
    for _ in 0..lines {
        let len = if g.chance(3) {
            5000 + g.below(20000)
        } else {
            g.below(12)
        };
        for _ in 0..len {
            let b = match g.below(20) {
                0 => 0u8,
                1 => 0xff,
                2 => b'\r',
                3 => b'\n',
                4 => 0xc3,
                _ => b'a' + g.below(26) as u8,
            };
            data.push(b);
        }
        data.push(if g.chance(20) { 0 } else { b'\n' });
    }
    if g.chance(25) {
        data.extend(b"no final delimiter");
    }
    data
}

/// A COUNT; `finite` leaves out the one meaning "no limit" (with `-r`
/// and a one-line input, GNU then writes forever without reading any
/// random byte).
fn count(g: &mut Cases, finite: bool) -> String {
    const COUNTS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "5",
        "10",
        "100",
        " 7",
        "+4",
        "-1",
        "",
        "x",
        "3k",
        "99999999999999999999",
    ];
    let usable = if finite {
        COUNTS.len() - 1
    } else {
        COUNTS.len()
    };
    COUNTS[g.below(usable)].to_string()
}

fn head_count(g: &mut Cases, args: &mut Vec<OsString>, finite: bool) {
    let n = count(g, finite);
    match g.below(7) {
        0 => args.extend(["-n".into(), n.into()]),
        1 => args.push(format!("-n{n}").into()),
        2 => args.push(format!("--head-count={n}").into()),
        3 => args.extend(["--head-count".into(), n.into()]),
        4 => args.extend(["--head".into(), n.into()]),
        5 => args.push(format!("--hea={n}").into()),
        _ => args.push(format!("--he={n}").into()), // ambiguous
    }
}

fn generate(g: &mut Cases) -> Case {
    let mut case = Case {
        args: Vec::new(),
        stdin: Vec::new(),
        files: Vec::new(),
        output_file: false,
        several_files: false,
    };
    let mut options: Vec<Vec<OsString>> = Vec::new();
    let source = *g.pick(&[
        "rand", "rand", "rand", "rand", "rand", "tiny", "missing", ".",
    ]);
    options.push(match g.below(4) {
        0 => vec!["--random-source".into(), source.into()],
        1 => vec![format!("--random-source={source}").into()],
        2 => vec![format!("--rand={source}").into()],
        _ => vec!["--random-s".into(), source.into()],
    });
    let repeat = g.chance(25);
    if repeat {
        options.push(vec![g.pick(&["-r", "--repeat", "--rep"]).into()]);
    }
    // With -r, a count keeps the output finite.
    if repeat || g.chance(40) {
        let mut a = Vec::new();
        head_count(g, &mut a, repeat);
        options.push(a);
        if g.chance(10) {
            let mut b = Vec::new();
            head_count(g, &mut b, repeat);
            options.push(b);
        }
    }
    if g.chance(25) {
        options.push(vec![g.pick(&["-z", "--zero-terminated", "--z"]).into()]);
    }
    if g.chance(15) {
        let target = *g.pick(&["out", "out", "dir", "nodir/x", "input"]);
        case.output_file = target == "out";
        options.push(match g.below(3) {
            0 => vec!["-o".into(), target.into()],
            1 => vec![format!("-o{target}").into()],
            _ => vec![format!("--output={target}").into()],
        });
    }
    if g.chance(6) {
        let bad = *g.pick(&[
            "-x",
            "--bogus",
            "--=",
            "--=x",
            "--x=1",
            "--echo=1",
            "--zero-terminated=",
            "--help=1",
            "-",
            "---",
            "--r",
            "--i",
            "-i",
            "-o",
            "-n",
            "--in",
        ]);
        // A lone "-" is an operand (standard input): maybe a second FILE.
        case.several_files |= bad == "-";
        options.push(vec![bad.into()]);
    }
    if g.chance(2) {
        let choices: [&[u8]; 4] = [b"--\xff", b"-\xff", b"--h\xff=1", b"--\xc3"];
        let bytes = g.pick(&choices);
        options.push(vec![OsString::from_vec(bytes.to_vec())]);
    }
    if g.chance(3) {
        options.push(vec![g.pick(&["--help", "--version"]).into()]);
    }
    let mut operands: Vec<OsString> = Vec::new();
    match g.below(10) {
        0 | 1 => {
            options.push(vec![g.pick(&["-e", "--echo", "--ec"]).into()]);
            for _ in 0..g.below(6) {
                let mut arg = random_lines(g);
                arg.retain(|&b| b != 0);
                arg.truncate(g.below(8));
                operands.push(OsString::from_vec(arg));
            }
            if g.chance(20) {
                operands.push("-x".into()); // after --, or an option
            }
        }
        2 | 3 => {
            let range = *g.pick(&[
                "1-10",
                "0-0",
                "5-4",
                "5-3",
                "1-100000",
                "1-18446744073709551615",
                "a-b",
                "1-",
                "7",
                "18446744073709551610-18446744073709551615",
                " 1-3",
            ]);
            options.push(match g.below(3) {
                0 => vec!["-i".into(), range.into()],
                1 => vec![format!("-i{range}").into()],
                _ => vec![format!("--input-range={range}").into()],
            });
            if g.chance(10) {
                operands.push("extra".into());
            }
        }
        _ => {
            case.files.push(("input", random_lines(g)));
            case.stdin = random_lines(g);
            match g.below(8) {
                0 => {}
                1 => operands.push("-".into()),
                2 => operands.push("missing".into()),
                3 => operands.push("dir".into()),
                4 if g.chance(30) => {
                    case.several_files = true;
                    operands.extend(["input".into(), "input".into()]);
                }
                _ => operands.push("input".into()),
            }
        }
    }
    // Options and operands in a random order (getopt permutes), or `--`.
    let dashdash = g.chance(15);
    let mut pieces: Vec<Vec<OsString>> = options;
    if !dashdash {
        pieces.extend(operands.drain(..).map(|o| vec![o]));
    }
    for i in (1..pieces.len()).rev() {
        let j = g.below(i + 1);
        pieces.swap(i, j);
    }
    case.args = pieces.into_iter().flatten().collect();
    if dashdash {
        case.args.push("--".into());
        case.args.extend(operands);
    }
    case
}

/// (status, stdout, stderr with the program's path as PROG, the -o file).
type Result4 = (Option<i32>, Vec<u8>, String, Option<Vec<u8>>);

fn run_case(program: &Path, dir: &Path, case: &Case) -> Result4 {
    let _ = std::fs::remove_file(dir.join("out"));
    for (name, content) in &case.files {
        std::fs::write(dir.join(name), content).unwrap();
    }
    let args: Vec<&OsStr> = case.args.iter().map(OsString::as_os_str).collect();
    let out: Output = run_in(program, dir, &args, &case.stdin);
    let stderr = String::from_utf8_lossy(&out.stderr).replace(program.to_str().unwrap(), "PROG");
    let mut stdout = out.stdout;
    let text = String::from_utf8_lossy(&stdout).into_owned();
    if text.starts_with("Usage: ") {
        // --help: GNU's text up to its footer (ours names knuffle there).
        let end = "output version information and exit\n";
        let body = text.split_inclusive(end).next().unwrap_or_default();
        stdout = body.replace(program.to_str().unwrap(), "PROG").into_bytes();
    } else if text.starts_with("shuf (") {
        stdout = b"--version text".to_vec(); // ours says knuffle, not GNU coreutils
    }
    // On failure GNU leaves FILE created or truncated; knuffle leaves it as
    // it was (documented: a failing run never truncates an output).
    let file = case
        .output_file
        .then_some(())
        .filter(|()| out.status.success())
        .and(Some(case.output_file))
        .unwrap_or(false)
        .then(|| std::fs::read(dir.join("out")).ok())
        .flatten();
    (out.status.code(), stdout, stderr, file)
}

fn shell_line(args: &[OsString]) -> String {
    args.iter()
        .map(|a| {
            let bytes = a.as_bytes();
            if !bytes.is_empty()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_=./+".contains(b))
            {
                a.to_string_lossy().into_owned()
            } else {
                let escaped: String = bytes
                    .iter()
                    .map(|&b| match b {
                        b'\'' => "\\'".to_string(),
                        b'\\' => "\\\\".to_string(),
                        0x20..=0x7e => char::from(b).to_string(),
                        _ => format!("\\x{b:02x}"),
                    })
                    .collect();
                format!("$'{escaped}'")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn preview(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned()
}

#[test]
fn random_command_lines_match_gnu_shuf() {
    let Some(gnu) = gnu_shuf() else {
        crate::support::require_or_skip("GNU shuf (coreutils) is not installed");
        return;
    };
    let cases: usize = std::env::var("KNUFFLE_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let seed: u64 = std::env::var("KNUFFLE_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_D1FF);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut source = Cases(0x0123_4567_89AB_CDEF);
    let bytes: Vec<u8> = (0..1 << 16).map(|_| (source.next() >> 56) as u8).collect();
    std::fs::write(p.join("rand"), bytes).unwrap();
    std::fs::write(p.join("tiny"), b"xyz").unwrap();
    std::fs::create_dir(p.join("dir")).unwrap();
    let named = shuf_dir();
    let shuf = named.path().join("shuf");
    let mut g = Cases(seed | 1);
    for number in 0..cases {
        let case = generate(&mut g);
        let expected = run_case(&gnu, p, &case);
        let mut ours = vec![shuf.clone()];
        // knuffle has extensions (several FILEs, its own --help and
        // --version): elsewhere it must match GNU too, errors included.
        if !case.several_files && !case.args.iter().any(|a| a == "--help" || a == "--version") {
            ours.push(knuffle());
        }
        for program in ours {
            let got = run_case(&program, p, &case);
            if got != expected {
                panic!(
                    "case {number} (KNUFFLE_DIFF_SEED={seed}) differs:\n  shuf {}\n  stdin: {} bytes\n\
                     GNU : status {:?}, stderr {:?}, stdout {} bytes {:?}, -o file {:?}\n\
                     {}: status {:?}, stderr {:?}, stdout {} bytes {:?}, -o file {:?}",
                    shell_line(&case.args),
                    case.stdin.len(),
                    expected.0,
                    expected.2,
                    expected.1.len(),
                    preview(&expected.1),
                    expected.3.as_deref().map(preview),
                    program.display(),
                    got.0,
                    got.2,
                    got.1.len(),
                    preview(&got.1),
                    got.3.as_deref().map(preview),
                );
            }
        }
    }
}
