//! `knuffle draw`, `knuffle verify` and `knuffle deal --commit/--reveal`
//! through the real binary: golden transcripts under fixed seeds (value
//! stability), acceptance, rejection of every single-field tampering with the
//! failed check named, agreement with the independent Python reference
//! verifier (docs/verifiable/reference_verifier.py), the published vectors
//! through `--compat`, and bad input.
//!
//! Regenerate the golden transcripts after an intended change with
//! `KNUFFLE_BLESS=1 cargo test -p knuffle-cli --test cli draw_verify::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{
    code_and_text, draw_data as data, knuffle, knuffle_with_input, python3, python3_works,
    reference_verifier_script,
};

mod compat;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_path(name: &str) -> PathBuf {
    manifest().join("tests/golden/draw").join(name)
}

/// The golden transcripts: name and the `knuffle draw` arguments that make
/// them (the transcript path is appended). `deal-committed.json` is made by
/// `deal --reveal` ([`golden_deal_reveal_reproduces`]).
fn golden_draws() -> Vec<(&'static str, Vec<String>)> {
    let dice = "3 6 1 4 5 2 2 6 1 3 4 5 6 1 2 3 4 5 6 1";
    vec![
        (
            "lottery-range-beacon.json",
            vec![
                "-i".into(),
                "1-500".into(),
                "-n".into(),
                "5".into(),
                "--seed".into(),
                dice.into(),
                "--beacon".into(),
                data("beacon-5000000.json"),
            ],
        ),
        (
            "audit-file-two-seeds.json",
            vec![
                data("ballots.txt"),
                "-n".into(),
                "6".into(),
                "--seed".into(),
                "31415926535897932384".into(),
                "--seed".into(),
                "observer: 27182818284590452353".into(),
            ],
        ),
        (
            "replace-items.json",
            vec![
                "-e".into(),
                "red".into(),
                "green".into(),
                "blue".into(),
                "-n".into(),
                "8".into(),
                "--replace".into(),
                "--seed".into(),
                "with replacement".into(),
            ],
        ),
        (
            "whole-population.json",
            vec![
                "-e".into(),
                "Ann".into(),
                "Bob".into(),
                "Cy".into(),
                "Dee".into(),
                "Émile".into(),
                "-n".into(),
                "5".into(),
                "--seed".into(),
                "everyone".into(),
            ],
        ),
    ]
}

fn all_golden_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = golden_draws().iter().map(|(n, _)| *n).collect();
    names.push("deal-committed.json");
    names
}

fn run(args: &[&str]) -> (i32, String, String) {
    code_and_text(&knuffle(args))
}

fn compare_or_bless(name: &str, produced: &Path) {
    let got = std::fs::read_to_string(produced).expect("the transcript was written");
    let path = golden_path(name);
    if std::env::var_os("KNUFFLE_BLESS").is_some() {
        std::fs::write(&path, &got).expect("bless");
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with KNUFFLE_BLESS=1)", path.display()));
    assert_eq!(got, want, "transcript {name} changed");
}

#[test]
fn golden_transcripts_under_fixed_seeds() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in golden_draws() {
        let out = dir.path().join(name);
        let mut all: Vec<&str> = vec!["draw"];
        all.extend(args.iter().map(String::as_str));
        all.extend(["--transcript", out.to_str().unwrap()]);
        let (code, stdout, stderr) = run(&all);
        assert_eq!(code, 0, "{name}: {stderr}");
        compare_or_bless(name, &out);
        // Standard output is the drawn items, one per line.
        let transcript: Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let items: Vec<&str> = transcript["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(stdout.lines().collect::<Vec<_>>(), items, "{name}");
    }
}

#[test]
fn golden_deal_reveal_reproduces() {
    // The secret file was made once by `deal --commit` (kept here, public
    // now that the deal is done), the deal by `deal --reveal`.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("deal.json");
    let (code, stdout, stderr) = run(&[
        "deal",
        "--players",
        "2",
        "--cards",
        "2",
        "--board",
        "5",
        "--reveal",
        &data("deal-committed.secret"),
        "--client-seed",
        "lucky 7",
        "--beacon",
        &data("beacon-5000000.json"),
        "--transcript",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("player 1: "), "{stdout}");
    assert!(stdout.contains("\nflop:     "), "{stdout}");
    assert!(
        stdout.lines().last().unwrap().starts_with("river:    "),
        "{stdout}"
    );
    compare_or_bless("deal-committed.json", &out);
}

fn verify(path: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["verify", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn verify_accepts_every_golden_transcript() {
    for name in all_golden_names() {
        let (code, stdout, stderr) = verify(&golden_path(name), &[]);
        assert_eq!(code, 0, "{name}: {stdout}{stderr}");
        assert!(stdout.contains("verified: "), "{stdout}");
        let has_beacon = std::fs::read_to_string(golden_path(name))
            .unwrap()
            .contains("\"drand\"");
        assert_eq!(
            stdout.contains("BLS signature was not checked"),
            has_beacon,
            "{name}: {stdout}"
        );
    }
}

fn reference_verifier(transcript: &Path, population: Option<&str>) -> Output {
    let mut command = Command::new(python3().expect("python3 runs"));
    command.arg(reference_verifier_script()).arg(transcript);
    if let Some(p) = population {
        command.arg(p);
    }
    command.output().expect("python3 runs")
}

#[test]
fn the_python_reference_verifier_agrees_on_every_golden_transcript() {
    if !python3_works() {
        return;
    }
    for name in all_golden_names() {
        let out = reference_verifier(&golden_path(name), None);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.ends_with("verified\n"), "{text}");
    }
}

/// A golden transcript with one field changed by `tamper`.
fn tampered(name: &str, tamper: impl Fn(&mut Value)) -> Value {
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(golden_path(name)).unwrap()).unwrap();
    tamper(&mut value);
    value
}

fn source_of_kind<'a>(value: &'a mut Value, kind: &str) -> &'a mut Value {
    value["sources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} source"))
}

fn flip_hex(text: &str) -> String {
    let first = if text.starts_with('0') { "1" } else { "0" };
    format!("{first}{}", &text[1..])
}

#[test]
fn verify_rejects_every_single_field_tampering_naming_the_check() {
    type Tamper = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, &str, Tamper, &str)> = vec![
        (
            "seed",
            "lottery-range-beacon.json",
            Box::new(|v| {
                source_of_kind(v, "text")["value"] =
                    "3 6 1 4 5 2 2 6 1 3 4 5 6 1 2 3 4 5 6 2".into()
            }),
            "key",
        ),
        (
            "secret",
            "deal-committed.json",
            Box::new(|v| {
                let s = source_of_kind(v, "commit");
                let secret = flip_hex(s["secret"].as_str().unwrap());
                s["secret"] = secret.into();
            }),
            "commitment opening",
        ),
        (
            "beacon round",
            "lottery-range-beacon.json",
            Box::new(|v| source_of_kind(v, "drand")["round"] = 5_000_001.into()),
            "key",
        ),
        (
            "beacon round of a committed deal",
            "deal-committed.json",
            Box::new(|v| source_of_kind(v, "drand")["round"] = 5_000_001.into()),
            "committed beacon",
        ),
        (
            "beacon randomness",
            "lottery-range-beacon.json",
            Box::new(|v| {
                let d = source_of_kind(v, "drand");
                let r = flip_hex(d["randomness"].as_str().unwrap());
                d["randomness"] = r.into();
            }),
            "beacon randomness",
        ),
        (
            "result item",
            "audit-file-two-seeds.json",
            Box::new(|v| v["result"]["items"][0] = "ballot 999, precinct N".into()),
            "result",
        ),
        (
            "result index",
            "replace-items.json",
            Box::new(|v| {
                let i = v["result"]["indices"][2].as_u64().unwrap();
                v["result"]["indices"][2] = ((i + 1) % 3).into();
            }),
            "result",
        ),
        (
            "population order",
            "whole-population.json",
            Box::new(|v| {
                let items = v["population"]["items"].as_array_mut().unwrap();
                items.swap(0, 1);
            }),
            "population digest",
        ),
        (
            "population order (card deck)",
            "deal-committed.json",
            Box::new(|v| {
                let items = v["population"]["items"].as_array_mut().unwrap();
                items.swap(10, 11);
            }),
            "population digest",
        ),
        (
            "k",
            "audit-file-two-seeds.json",
            Box::new(|v| v["k"] = 7.into()),
            "k",
        ),
        (
            "key",
            "whole-population.json",
            Box::new(|v| {
                let k = flip_hex(v["key"].as_str().unwrap());
                v["key"] = k.into();
            }),
            "key",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let python = python3_works();
    for (what, name, tamper, check) in cases {
        let value = tampered(name, tamper);
        let path = dir.path().join(format!("{}.json", what.replace(' ', "-")));
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        let population = name.starts_with("audit").then(|| data("ballots.txt"));
        let extra: Vec<&str> = population.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = verify(&path, &extra);
        assert_eq!(code, 1, "tampered {what}: {stdout}{stderr}");
        assert!(
            stdout.contains(&format!("the {check} check failed")),
            "tampered {what}: expected the {check} check to fail first:\n{stdout}"
        );
        if python {
            let out = reference_verifier(&path, population.as_deref());
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(1),
                "reference verifier, tampered {what}: {text}"
            );
            assert!(
                text.contains(&format!("the {check} check failed")),
                "reference verifier, tampered {what}: {text}"
            );
        }
    }
}

#[test]
fn growing_k_extends_the_earlier_draw() {
    for extra in [&[][..], &["--replace"][..]] {
        let draw = |k: &str| {
            let mut args = vec!["draw", "-i", "1-1000", "-n", k, "--seed", "escalate"];
            args.extend_from_slice(extra);
            let (code, stdout, stderr) = run(&args);
            assert_eq!(code, 0, "{stderr}");
            stdout
        };
        let small = draw("10");
        let large = draw("60");
        assert_eq!(large.lines().count(), 60);
        assert!(
            large.starts_with(&small),
            "{small} is not a prefix of {large}"
        );
    }
}

#[test]
fn a_transcript_without_items_needs_its_population_file_which_must_match() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.json");
    let ballots = data("ballots.txt");
    let (code, _, stderr) = run(&[
        "draw",
        &ballots,
        "-n",
        "3",
        "--seed",
        "s",
        "--omit-items",
        "--transcript",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = verify(&t, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("give the population file"), "{stderr}");
    assert_eq!(verify(&t, &[&ballots]).0, 0);
    // A population file that differs from the digest (one ballot edited).
    let edited = dir.path().join("edited.txt");
    let text = std::fs::read_to_string(&ballots)
        .unwrap()
        .replace("ballot 007", "ballot 070");
    std::fs::write(&edited, text).unwrap();
    let (code, stdout, _) = verify(&t, &[edited.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("the population digest check failed"),
        "{stdout}"
    );
    if python3_works() {
        let out = reference_verifier(&t, Some(edited.to_str().unwrap()));
        assert_eq!(out.status.code(), Some(1));
        let out = reference_verifier(&t, Some(&ballots));
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn bad_transcripts_are_trouble_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "malformed.json",
            "{\"format\": \"knuffle-vd/1\", \"mode\": ",
            "malformed transcript JSON",
        ),
        (
            "version.json",
            "{\"format\": \"knuffle-vd/2\"}",
            "unknown transcript format \"knuffle-vd/2\"",
        ),
        ("noformat.json", "{\"k\": 1}", "no \"format\" field"),
        (
            "missing.json",
            "{\"format\": \"knuffle-vd/1\", \"k\": 1}",
            "malformed knuffle-vd/1 transcript",
        ),
    ];
    for (name, text, message) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (code, _, stderr) = verify(&path, &[]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains(message), "{name}: {stderr}");
        if python3_works() {
            assert_eq!(
                reference_verifier(&path, None).status.code(),
                Some(2),
                "{name}"
            );
        }
    }
    let (code, _, stderr) = verify(&dir.path().join("absent.json"), &[]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn beacon_files_that_do_not_match_are_refused() {
    // Drawing with a beacon whose randomness is not SHA-256 of its signature.
    let (code, stdout, stderr) = run(&[
        "draw",
        "-i",
        "1-10",
        "-n",
        "1",
        "--beacon",
        &data("beacon-bad-randomness.json"),
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("is not SHA-256 of the signature"),
        "{stderr}"
    );
    assert!(stdout.is_empty());
    // Verifying against another round's beacon file.
    let golden = golden_path("lottery-range-beacon.json");
    let (code, stdout, stderr) = verify(&golden, &["--beacon", &data("beacon-5000001.json")]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("the beacon file check failed"), "{stdout}");
    let (code, stdout, _) = verify(&golden, &["--beacon", &data("beacon-5000000.json")]);
    assert_eq!(code, 0, "{stdout}");
    // Revealing a deal with a round other than the committed one.
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&[
        "deal",
        "--players",
        "2",
        "--cards",
        "2",
        "--board",
        "5",
        "--reveal",
        &data("deal-committed.secret"),
        "--client-seed",
        "x",
        "--beacon",
        &data("beacon-5000001.json"),
        "--transcript",
        dir.path().join("d.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("but the commitment names"), "{stderr}");
    assert!(!dir.path().join("d.json").exists());
}

#[test]
fn commit_then_reveal_keeps_the_secret_private_and_verifies() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("table-9.secret");
    let deal = ["deal", "--players", "3", "--cards", "2", "--board", "5"];
    let mut commit = deal.to_vec();
    commit.extend([
        "--commit",
        "--beacon-round",
        "5000000",
        "--secret-file",
        secret.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = run(&commit);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("commitment: "), "{stdout}");
    let commitment = stdout.lines().next().unwrap()["commitment: ".len()..].to_owned();
    assert!(!stdout.contains(&std::fs::read_to_string(&secret).unwrap()[..20]));
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the secret file is readable only by its owner");
    // Never overwritten.
    let before = std::fs::read(&secret).unwrap();
    let (code, _, stderr) = run(&commit);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(std::fs::read(&secret).unwrap(), before);
    // Reveal and verify.
    let transcript = dir.path().join("deal.json");
    let beacon = data("beacon-5000000.json");
    let mut reveal = deal.to_vec();
    reveal.extend([
        "--reveal",
        secret.to_str().unwrap(),
        "--client-seed",
        "player seed",
        "--beacon",
        &beacon,
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = run(&reveal);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 6, "{stdout}");
    let (code, report, _) = verify(&transcript, &[]);
    assert_eq!(code, 0, "{report}");
    assert!(report.contains(&commitment), "{report}");
    // Another deck than the committed one is refused.
    let mut other = reveal.clone();
    other.extend(["--jokers", "1"]);
    let (code, _, stderr) = run(&other);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("differs from the committed one"),
        "{stderr}"
    );
}

#[test]
fn bad_draw_arguments_get_a_clear_error() {
    let cases: [(&[&str], &str); 5] = [
        (&["draw", "-i", "1-10", "-n", "3"], "no seed source"),
        (
            &["draw", "-i", "1-3", "-n", "4", "--seed", "s"],
            "cannot draw 4 items without replacement",
        ),
        (
            &["draw", "-i", "9-1", "-n", "1", "--seed", "s"],
            "invalid input range",
        ),
        (
            &["draw", "-n", "1", "--compat", "stake", "--seed", "s"],
            "needs --client-seed",
        ),
        (
            &[
                "draw",
                "-i",
                "1-9",
                "-n",
                "1",
                "--compat",
                "rivest2011",
                "--seed",
                "a",
                "--seed",
                "b",
            ],
            "exactly one --seed",
        ),
    ];
    for (args, message) in cases {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stdout.is_empty());
    }
}

#[test]
fn unreadable_or_binary_populations_are_refused() {
    let out = knuffle_with_input(&["draw", "-n", "1", "--seed", "s"], b"a\n\xff\n");
    let (code, stdout, stderr) = code_and_text(&out);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("standard input: not UTF-8 text"),
        "{stderr}"
    );
    assert!(stdout.is_empty());
    let (code, _, stderr) = run(&["draw", "/nonexistent/ballots", "-n", "1", "--seed", "s"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("/nonexistent/ballots"), "{stderr}");
}

#[test]
fn help_shows_examples() {
    for (args, example) in [
        (&["draw", "--help"][..], "knuffle verify lottery.json"),
        (
            &["verify", "--help"][..],
            "knuffle verify audit.json ballots.txt",
        ),
        (&["deal", "--help"][..], "--commit --beacon-round"),
    ] {
        let (code, stdout, _) = run(args);
        assert_eq!(code, 0);
        assert!(stdout.contains(example), "{args:?}: {stdout}");
    }
}

#[test]
fn the_reference_verifier_agrees_on_edge_cases_of_n_and_k() {
    if !python3_works() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, bool); 9] = [
        ("1-1", "1", false),
        ("1-1", "0", false),
        ("1-2", "2", false),
        ("1-7", "6", false),
        ("1-7", "7", false),
        ("5-5", "4", true),
        ("1-3", "20", true),
        ("1-100000", "12", false),
        ("18446744073709551000-18446744073709551614", "9", false),
    ];
    for (i, (range, k, replace)) in cases.into_iter().enumerate() {
        let t = dir.path().join(format!("{i}.json"));
        let mut args = vec![
            "draw",
            "-i",
            range,
            "-n",
            k,
            "--seed",
            "edge",
            "--transcript",
        ];
        args.push(t.to_str().unwrap());
        if replace {
            args.push("--replace");
        }
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(verify(&t, &[]).0, 0, "{args:?}");
        let out = reference_verifier(&t, None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn draws_with_more_outcomes_than_keys_say_so() {
    let (code, _, stderr) = run(&["draw", "-i", "1-100", "-n", "100", "--seed", "x"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("2^524.8 possible outcomes"), "{stderr}");
    let (_, _, stderr) = run(&["draw", "-i", "1-100", "-n", "30", "--seed", "x"]);
    assert!(stderr.is_empty(), "{stderr}");
}
