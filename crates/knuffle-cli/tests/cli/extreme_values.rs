//! Every numeric option of every subcommand (and of shuf mode) with extreme
//! values: 0, 1, 2, 2^63-1, 2^64-1, 10^15, negative and non-numeric (and
//! NaN, infinities and tiny values for the options that take a fraction),
//! each run under `ulimit -v 4000000`. Every run must end with status 0, 1
//! or 2 within the time limit (or by SIGPIPE when the test closed an
//! endless output after 64 KiB, as `| head -c 65536` would), with no
//! panic and no abort. The options are found in each `--help`, so an
//! option added without a case here fails the test.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support::limited::{End, Limited, Outcome};
use crate::support::{knuffle, stdout};

/// The values every numeric option gets.
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "9223372036854775807",
    "18446744073709551615",
    "1000000000000000",
    "-1",
    "abc",
];

/// More values for the options that take a fraction or a real number.
const REAL_VALUES: &[&str] = &["nan", "inf", "-inf", "1e-300", "1e308", "0.5"];

/// `ulimit -v 4000000` (KiB).
const ADDRESS_SPACE: u64 = 4_000_000 * 1024;

/// How long one run may take (a debug build on a busy 2-core machine).
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Standard output read before it is closed (an endless stream then ends).
const STDOUT_CAP: usize = 64 << 10;

/// The value names (`--help`'s `<N>` or `=N`) of numeric options.
const NUMERIC_VALUE_NAMES: &[&str] = &[
    "N", "K", "R", "COUNT", "SIZE", "TRIALS", "PATHS", "ALPHA", "W", "LO-HI", "0|1", "ROWS",
    "EPOCH", "POSITION", "RANK", "RANKS",
];

/// Value names of options whose values are real numbers.
const REAL_VALUE_NAMES: &[&str] = &["ALPHA", "W"];

/// Shuffles for `audit` to read.
const SHUFFLES: &[u8] = b"1 2 3\n2 3 1\n3 1 2\n1 3 2\n2 1 3\n3 2 1\n";

/// One option in one setting. `V` in `args` (the only capital letter
/// there) is the value under test; `{T}` a fresh temporary directory of the
/// run.
struct Case {
    /// The subcommand (`""` for shuf mode) and the option's long name.
    subcommand: &'static str,
    option: &'static str,
    args: &'static [&'static str],
    stdin: &'static [u8],
    /// A knuffle command run first (to make a file the case reads).
    setup: &'static [&'static str],
}

const fn case(
    subcommand: &'static str,
    option: &'static str,
    args: &'static [&'static str],
) -> Case {
    Case {
        subcommand,
        option,
        args,
        stdin: b"",
        setup: &[],
    }
}

impl Case {
    /// The case with `bytes` on standard input.
    const fn stdin(self, bytes: &'static [u8]) -> Case {
        Case {
            stdin: bytes,
            ..self
        }
    }

    /// The case with `args` run first (a knuffle command making a file).
    const fn setup(self, args: &'static [&'static str]) -> Case {
        Case {
            setup: args,
            ..self
        }
    }
}

const CASES: &[Case] = &[
    // shuf mode
    case("", "head-count", &["-n", "V", "-i", "1-10"]),
    case("", "head-count", &["-r", "-n", "V", "-e", "a", "b"]),
    case(
        "",
        "head-count",
        &["-n", "V", "--memory", "1M", "-i", "1-1000"],
    ),
    case("", "input-range", &["-i", "1-V"]),
    case("", "input-range", &["-i", "V-V"]),
    case(
        "",
        "input-range",
        &["-n", "3", "-i", "V-18446744073709551615"],
    ),
    case("", "header", &["--header", "V", "-e", "a", "b"]),
    case("", "memory", &["--memory", "V", "-e", "a", "b"]),
    case(
        "",
        "memory",
        &["--memory", "V", "-n", "2", "-i", "1-100000"],
    ),
    // deal
    case("deal", "hands", &["deal", "--seed", "s", "--hands", "V"]),
    case(
        "deal",
        "cards-each",
        &["deal", "--seed", "s", "--cards-each", "V"],
    ),
    case("deal", "board", &["deal", "--seed", "s", "--board", "V"]),
    case("deal", "decks", &["deal", "--seed", "s", "--decks", "V"]),
    case("deal", "jokers", &["deal", "--seed", "s", "--jokers", "V"]),
    case(
        "deal",
        "beacon-round",
        &[
            "deal",
            "--commit",
            "--beacon-round",
            "V",
            "--secret-file",
            "{T}/secret",
        ],
    ),
    // chars
    case(
        "chars",
        "count",
        &["chars", "--seed", "s", "-n", "V", "abc"],
    ),
    case(
        "chars",
        "max-line",
        &["chars", "--seed", "s", "--max-line", "V"],
    )
    .stdin(b"abcdef\n"),
    // trace
    case("trace", "numbers", &["trace", "--seed", "s", "-n", "V"]),
    // lab
    case(
        "lab",
        "items",
        &["lab", "-a", "fisher-yates", "-t", "100", "-n", "V"],
    ),
    case(
        "lab",
        "trials",
        &["lab", "-a", "fisher-yates", "-n", "3", "-t", "V"],
    ),
    case(
        "lab",
        "alpha",
        &["lab", "-a", "fisher-yates", "-t", "100", "--alpha", "V"],
    ),
    case(
        "lab",
        "path-limit",
        &["lab", "--exact", "-n", "5", "--path-limit", "V"],
    ),
    // audit
    case("audit", "deck-size", &["audit", "--deck-size", "V"]).stdin(SHUFFLES),
    case("audit", "base", &["audit", "--base", "V"]).stdin(SHUFFLES),
    case("audit", "alpha", &["audit", "--alpha", "V"]).stdin(SHUFFLES),
    case("audit", "effect", &["audit", "--effect", "V"]).stdin(SHUFFLES),
    // draw
    case(
        "draw",
        "count",
        &["draw", "--seed", "s", "-i", "1-100", "-n", "V"],
    ),
    case(
        "draw",
        "count",
        &["draw", "--seed", "s", "-i", "1-100", "-r", "-n", "V"],
    ),
    case(
        "draw",
        "count",
        &[
            "draw",
            "--seed",
            "s",
            "-i",
            "1-100",
            "-r",
            "-n",
            "V",
            "--transcript",
            "{T}/t.json",
        ],
    ),
    case(
        "draw",
        "count",
        &[
            "draw",
            "--seed",
            "s",
            "-i",
            "1-18446744073709551614",
            "-n",
            "V",
        ],
    ),
    case(
        "draw",
        "count",
        &[
            "draw", "--seed", "s", "-e", "a", "b", "--compat", "stake", "-n", "V",
        ],
    ),
    case(
        "draw",
        "count",
        &[
            "draw",
            "--seed",
            "s",
            "-e",
            "a",
            "b",
            "--compat",
            "consistent-sampler",
            "-r",
            "-n",
            "V",
        ],
    ),
    case(
        "draw",
        "count",
        &[
            "draw",
            "--seed",
            "s",
            "-e",
            "a",
            "b",
            "--compat",
            "rivest2011",
            "-r",
            "-n",
            "V",
        ],
    ),
    case(
        "draw",
        "input-range",
        &["draw", "--seed", "s", "-n", "3", "-i", "1-V"],
    ),
    case(
        "draw",
        "input-range",
        &["draw", "--seed", "s", "-n", "1", "-i", "V-V"],
    ),
    case(
        "draw",
        "digits",
        &[
            "draw",
            "--seed",
            "s",
            "-e",
            "a",
            "b",
            "--compat",
            "consistent-sampler",
            "--tickets",
            "-n",
            "1",
            "--digits",
            "V",
        ],
    ),
    case(
        "draw",
        "nonce",
        &[
            "draw", "--seed", "s", "-e", "a", "b", "--compat", "stake", "-n", "1", "--nonce", "V",
        ],
    ),
    // sample
    case("sample", "count", &["sample", "--seed", "s", "-n", "V"]).stdin(b"a\nb\nc\n"),
    case(
        "sample",
        "count",
        &["sample", "--seed", "s", "-w", "1", "-n", "V"],
    )
    .stdin(b"1\n2.5\n3\n"),
    case(
        "sample",
        "count",
        &["sample", "--seed", "s", "-r", "-w", "1", "-n", "V"],
    )
    .stdin(b"1\n2.5\n3\n"),
    case(
        "sample",
        "memory",
        &["sample", "--seed", "s", "--memory", "V"],
    )
    .stdin(b"a\nb\nc\n"),
    case("sample", "prob", &["sample", "--seed", "s", "-p", "V"]).stdin(b"a\nb\nc\n"),
    case(
        "sample",
        "per-key",
        &["sample", "--seed", "s", "-k", "1", "--per-key", "V"],
    )
    .stdin(b"a\nb\na\n"),
    // the size of files read by draw and verify
    case(
        "draw",
        "max-size",
        &["draw", "--seed", "s", "-n", "2", "--max-size", "V", "-"],
    )
    .stdin(b"a\nb\nc\n"),
    case(
        "verify",
        "max-size",
        &["verify", "--max-size", "V", "{T}/t.json"],
    )
    .setup(&[
        "draw",
        "--seed",
        "s",
        "-i",
        "1-10",
        "-n",
        "3",
        "--transcript",
        "{T}/t.json",
    ]),
    // split
    case(
        "split",
        "memory",
        &[
            "split", "--seed", "s", "--parts", "1,1", "-o", "{T}/a", "-o", "{T}/b", "--memory", "V",
        ],
    )
    .stdin(b"a\nb\nc\n"),
    case(
        "split",
        "parts",
        &["split", "--seed", "s", "--parts", "V", "-o", "{T}/a"],
    )
    .stdin(b"a\nb\nc\n"),
    case(
        "split",
        "parts",
        &[
            "split", "--seed", "s", "--parts", "1,V", "-o", "{T}/a", "-o", "{T}/b",
        ],
    )
    .stdin(b"a\nb\nc\n"),
    // table (a CSV on standard input)
    case(
        "table",
        "head-count",
        &[
            "table",
            "/dev/stdin",
            "--format",
            "csv",
            "--seed",
            "s",
            "-o",
            "{T}/o.csv",
            "-n",
            "V",
        ],
    )
    .stdin(TABLE),
    case(
        "table",
        "shards",
        &[
            "table",
            "/dev/stdin",
            "--format",
            "csv",
            "--seed",
            "s",
            "-o",
            "{T}/o",
            "--shards",
            "V",
        ],
    )
    .stdin(TABLE),
    case(
        "table",
        "rows-per-shard",
        &[
            "table",
            "/dev/stdin",
            "--format",
            "csv",
            "--seed",
            "s",
            "-o",
            "{T}/o",
            "--rows-per-shard",
            "V",
        ],
    )
    .stdin(TABLE),
    case(
        "table",
        "memory",
        &[
            "table",
            "/dev/stdin",
            "--format",
            "csv",
            "-o",
            "{T}/o.csv",
            "--memory",
            "V",
        ],
    )
    .stdin(TABLE),
    case(
        "table",
        "row-group-rows",
        &[
            "table",
            "/dev/stdin",
            "--format",
            "csv",
            "-o",
            "{T}/o.parquet",
            "--row-group-rows",
            "V",
        ],
    )
    .stdin(TABLE),
    // order
    case("order", "rows", &["order", "-n", "V", "--seed", "s"]),
    case(
        "order",
        "epoch",
        &["order", "-n", "10", "--seed", "s", "--epoch", "V"],
    ),
    case(
        "order",
        "from",
        &["order", "-n", "10", "--seed", "s", "--from", "V"],
    ),
    case(
        "order",
        "count",
        &["order", "-n", "10", "--seed", "s", "--count", "V"],
    ),
    case(
        "order",
        "rank",
        &[
            "order",
            "-n",
            "10",
            "--seed",
            "s",
            "--rank",
            "V",
            "--world-size",
            "4",
        ],
    ),
    case(
        "order",
        "world-size",
        &[
            "order",
            "-n",
            "10",
            "--seed",
            "s",
            "--rank",
            "1",
            "--world-size",
            "V",
        ],
    ),
];

/// A small CSV table for `knuffle table`.
const TABLE: &[u8] = b"id,name\n1,a\n2,\"b,c\"\n3,d\n";

/// The subcommands, as `knuffle --help` lists them.
fn subcommands() -> Vec<String> {
    let help = stdout(&knuffle(&["--help"]));
    let line = help
        .lines()
        .find(|l| l.contains("SUBCOMMAND"))
        .expect("the usage names the subcommands");
    let list = line
        .rsplit_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .expect("(a, b, ...) after SUBCOMMAND");
    list.split(", ")
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The numeric options of `--help` (long name, value name).
fn numeric_options(help: &str) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for line in help.lines() {
        let line = line.trim_start();
        let Some(at) = line.find("--") else { continue };
        if !line.starts_with('-') {
            continue;
        }
        let rest = &line[at + 2..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        let value = if let Some(v) = after.strip_prefix(" <") {
            v.split('>').next()
        } else if let Some(v) = after.strip_prefix('=') {
            v.split_whitespace().next()
        } else {
            None
        };
        if let Some(value) = value.filter(|v| NUMERIC_VALUE_NAMES.contains(v)) {
            found.insert((name.to_owned(), value.to_owned()));
        }
    }
    found
}

/// Whether `outcome` is an acceptable end for a hostile value.
fn check(described: &str, outcome: &Outcome) {
    let ended_well = match outcome.end {
        End::Exited(code) => (0..=2).contains(&code),
        End::Signal(signal) => signal == libc::SIGPIPE && outcome.closed_stdout,
    };
    assert!(
        ended_well,
        "{described}: ended with {:?}; stderr: {}",
        outcome.end, outcome.stderr
    );
    for sign in [
        "panicked",
        "memory allocation",
        "RUST_BACKTRACE",
        "stack overflow",
    ] {
        assert!(
            !outcome.stderr.contains(sign),
            "{described}: {sign:?} in stderr: {}",
            outcome.stderr
        );
    }
    if matches!(outcome.end, End::Exited(1 | 2)) {
        assert!(
            !outcome.stderr.trim().is_empty(),
            "{described}: failed without saying why"
        );
    }
}

#[test]
fn every_numeric_option_is_covered() {
    let mut missing = Vec::new();
    let mut subcommands = subcommands();
    subcommands.push(String::new());
    for subcommand in &subcommands {
        let help = if subcommand.is_empty() {
            stdout(&knuffle(&["--help"]))
        } else {
            stdout(&knuffle(&[subcommand, "--help"]))
        };
        for (option, value) in numeric_options(&help) {
            let covered = CASES
                .iter()
                .any(|c| c.subcommand == subcommand && c.option == option);
            if !covered {
                missing.push(format!("knuffle {subcommand} --{option} <{value}>"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "numeric options without a case in extreme_values.rs: {missing:?}"
    );
}

#[test]
fn the_help_parser_finds_numeric_options() {
    let found = numeric_options(&stdout(&knuffle(&["draw", "--help"])));
    assert!(
        found.contains(&("count".to_owned(), "K".to_owned())),
        "{found:?}"
    );
    let found = numeric_options(&stdout(&knuffle(&["--help"])));
    assert!(
        found.contains(&("head-count".to_owned(), "COUNT".to_owned())),
        "{found:?}"
    );
    assert!(!found.iter().any(|(name, _)| name == "output"), "{found:?}");
}

#[test]
fn extreme_values_end_cleanly_under_an_address_space_limit() {
    let _heavy = crate::support::heavy();
    let real_options: BTreeSet<&str> = ["alpha", "effect"].into();
    assert!(
        REAL_VALUE_NAMES
            .iter()
            .all(|v| NUMERIC_VALUE_NAMES.contains(v))
    );
    for case in CASES {
        let mut values: Vec<&str> = VALUES.to_vec();
        if real_options.contains(case.option) {
            values.extend(REAL_VALUES);
        }
        for value in values {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let temp = dir.path().to_str().expect("UTF-8 temporary path");
            let args: Vec<String> = case
                .args
                .iter()
                .map(|a| a.replace("{T}", temp).replace('V', value))
                .collect();
            if !case.setup.is_empty() {
                let setup: Vec<String> =
                    case.setup.iter().map(|a| a.replace("{T}", temp)).collect();
                let made = knuffle(&setup.iter().map(String::as_str).collect::<Vec<_>>());
                assert!(made.status.success(), "setup {setup:?} failed");
            }
            let described = format!("knuffle {}", args.join(" "));
            let outcome = Limited::new(&args)
                .stdin(case.stdin)
                .address_space(ADDRESS_SPACE)
                .time_limit(TIME_LIMIT)
                .resident_limit(3 << 30)
                .stdout_cap(STDOUT_CAP)
                .run();
            check(&described, &outcome);
        }
    }
}
