//! Command-line conventions: `help`, `-h`, `SUB -h`, `SUB --version`,
//! mistyped subcommands, files named like subcommands, the texts under the
//! name `shuf`, and the generated man page and completions.

use crate::support::shuf::{run, shuf_dir};
use crate::support::{binary, code_and_text};

const SUBCOMMANDS: &[&str] = &["deal", "chars", "trace", "lab", "audit", "draw", "verify"];

#[test]
fn help_in_every_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let k = binary();
    let top = run(&k, dir.path(), &["--help"], b"");
    assert!(top.status.success());
    for args in [&["help"][..], &["-h"], &["help", "help"]] {
        let out = run(&k, dir.path(), args, b"");
        assert!(out.status.success(), "{args:?}");
        assert_eq!(out.stdout, top.stdout, "{args:?}");
    }
    let text = String::from_utf8_lossy(&top.stdout);
    assert!(text.contains("./deal") && text.contains("did you mean"));
    for sub in SUBCOMMANDS {
        let long = run(&k, dir.path(), &[sub, "--help"], b"");
        let help = run(&k, dir.path(), &["help", sub], b"");
        let short = run(&k, dir.path(), &[sub, "-h"], b"");
        assert!(long.status.success() && help.status.success() && short.status.success());
        assert_eq!(help.stdout, long.stdout, "{sub}");
        assert!(String::from_utf8_lossy(&short.stdout).contains(&format!("knuffle {sub}")));
        let version = run(&k, dir.path(), &[sub, "--version"], b"");
        let (code, stdout, _) = code_and_text(&version);
        assert_eq!(code, 0, "{sub} --version");
        assert_eq!(
            stdout,
            format!("knuffle {sub} {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    let out = run(&k, dir.path(), &["help", "dael"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean 'deal'?"));
}

#[test]
fn a_mistyped_subcommand_is_a_usage_error_but_files_are_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let k = binary();
    for (typo, meant) in [
        ("dael", "deal"),
        ("cahrs", "chars"),
        ("trcae", "trace"),
        ("lba", "lab"),
        ("audti", "audit"),
    ] {
        let (code, stdout, stderr) = code_and_text(&run(&k, p, &[typo], b""));
        assert_eq!(code, 2, "{typo}: {stderr}");
        assert!(stdout.is_empty());
        assert!(
            stderr.contains(&format!(
                "'{typo}' is not a subcommand or an existing file; did you mean '{meant}'?"
            )),
            "{stderr}"
        );
    }
    // Not read as a FILE: -e lines, -n 0, -i's extra operand stay shuf's.
    let (code, stdout, _) = code_and_text(&run(&k, p, &["dael", "-e"], b""));
    assert_eq!((code, stdout.as_str()), (0, "dael\n"));
    assert_eq!(run(&k, p, &["dael", "-n", "0"], b"").status.code(), Some(0));
    let (code, _, stderr) = code_and_text(&run(&k, p, &["dael", "-i", "1-2"], b""));
    assert_eq!(code, 1);
    assert!(stderr.contains("extra operand"), "{stderr}");
    // Far from every name: an ordinary missing FILE (GNU's message, status 1).
    let (code, _, stderr) = code_and_text(&run(&k, p, &["data.txt"], b""));
    assert_eq!(code, 1);
    assert!(stderr.contains("data.txt: No such file or directory"));
    // After `--` or an option, or with a slash, it is a FILE.
    for args in [&["--", "dael"][..], &["-n1", "dael"], &["./dael"]] {
        let (code, _, stderr) = code_and_text(&run(&k, p, args, b""));
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains("No such file or directory"), "{stderr}");
    }
    // A file that exists is shuffled, typo or not; a subcommand's name
    // reaches the file as ./deal or after --.
    std::fs::write(p.join("dael"), "one\n").unwrap();
    std::fs::write(p.join("deal"), "two\n").unwrap();
    for (args, expected) in [
        (&["dael"][..], "one\n"),
        (&["./deal"], "two\n"),
        (&["--", "deal"], "two\n"),
        (&["-n", "5", "deal"], "two\n"),
    ] {
        let (code, stdout, stderr) = code_and_text(&run(&k, p, args, b""));
        assert_eq!((code, stdout.as_str()), (0, expected), "{args:?}: {stderr}");
    }
    // Under the name shuf there are no subcommands at all.
    let named = shuf_dir();
    let (code, stdout, _) = code_and_text(&run(&named.path().join("shuf"), p, &["deal"], b""));
    assert_eq!((code, stdout.as_str()), (0, "two\n"));
}

#[test]
fn under_the_name_shuf_help_and_version_are_gnus() {
    let named = shuf_dir();
    let shuf = named.path().join("shuf");
    let dir = tempfile::tempdir().unwrap();
    let (code, help, _) = code_and_text(&run(&shuf, dir.path(), &["--help"], b""));
    assert_eq!(code, 0);
    for absent in ["--seed", "--header", "--memory", "deal", "--generate"] {
        assert!(!help.contains(absent), "shuf --help mentions {absent}");
    }
    let program = shuf.display().to_string();
    let gnu_body = format!(
        "Usage: {program} [OPTION]... [FILE]\n  or:  {program} -e [OPTION]... [ARG]...\n  or:  {program} -i LO-HI [OPTION]...\n\
         Write a random permutation of the input lines to standard output.\n\n\
         With no FILE, or when FILE is -, read standard input.\n\n\
         Mandatory arguments to long options are mandatory for short options too.\n\
         \x20 -e, --echo                treat each ARG as an input line\n\
         \x20 -i, --input-range=LO-HI   treat each number LO through HI as an input line\n\
         \x20 -n, --head-count=COUNT    output at most COUNT lines\n\
         \x20 -o, --output=FILE         write result to FILE instead of standard output\n\
         \x20     --random-source=FILE  get random bytes from FILE\n\
         \x20 -r, --repeat              output lines can be repeated\n\
         \x20 -z, --zero-terminated     line delimiter is NUL, not newline\n\
         \x20     --help        display this help and exit\n\
         \x20     --version     output version information and exit\n\n"
    );
    assert!(help.starts_with(&gnu_body), "{help}");
    let (code, version, _) = code_and_text(&run(&shuf, dir.path(), &["--version"], b""));
    assert_eq!(code, 0);
    assert!(version.starts_with(&format!("shuf (knuffle) {}\n", env!("CARGO_PKG_VERSION"))));
    assert!(version.contains("There is NO WARRANTY, to the extent permitted by law."));
    // -h and --generate are knuffle's: GNU's errors under the name shuf.
    let (code, _, stderr) = code_and_text(&run(&shuf, dir.path(), &["-h"], b""));
    assert_eq!(code, 1);
    assert!(stderr.contains("invalid option -- 'h'"));
}

#[test]
fn man_page_and_completions_cover_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let k = binary();
    for kind in ["man", "complete-bash", "complete-zsh", "complete-fish"] {
        for args in [
            vec!["--generate", kind],
            vec![&format!("--generate={kind}")[..]],
        ] {
            let out = run(&k, dir.path(), &args, b"");
            let (code, text, stderr) = code_and_text(&out);
            let text = text.replace("\\-", "-"); // roff's escaped hyphens
            assert_eq!(code, 0, "{kind}: {stderr}");
            assert!(
                text.lines().count() > 50,
                "{kind}: {} lines",
                text.lines().count()
            );
            for word in SUBCOMMANDS.iter().chain(&[
                "head-count",
                "random-source",
                "zero-terminated",
                "seed",
            ]) {
                assert!(text.contains(word), "{kind} does not mention {word}");
            }
        }
    }
    let (_, man, _) = code_and_text(&run(&k, dir.path(), &["--generate", "man"], b""));
    assert!(
        man.starts_with(".ie") || man.contains(".TH knuffle 1"),
        "{man}"
    );
    for sub in SUBCOMMANDS {
        assert!(
            man.contains(&format!("KNUFFLE {} OPTIONS", sub.to_uppercase())),
            "{sub}"
        );
    }
    let (code, _, stderr) = code_and_text(&run(&k, dir.path(), &["--generate", "pdf"], b""));
    assert_eq!(code, 1);
    assert!(stderr.contains("man, complete-bash, complete-zsh, complete-fish"));
}
