//! `--compat`: the published vectors of other draw systems reproduced byte
//! for byte, a published third-party draw verified, and a real drand
//! mainnet round whose signature is checked.

use std::path::Path;

use serde_json::Value;

use super::{flip_hex, manifest, reference_verifier, run, source_of_kind, verify};
use crate::support::{code_and_text, draw_data as data, knuffle_with_input, python3_works};

fn lines(stdout: &str) -> Vec<&str> {
    stdout.lines().collect()
}

#[test]
fn compat_reproduces_the_published_vectors_byte_for_byte() {
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(
            manifest().join("../knuffle-draw/tests/data/rivest-sampler-tests.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for case in vectors["tests"].as_array().unwrap() {
        let d = &case["data"];
        let range = format!("1-{}", d["total"]);
        let count = d["count"].to_string();
        let (code, stdout, stderr) = run(&[
            "draw",
            "--compat",
            "rivest2011",
            "--replace",
            "-i",
            &range,
            "-n",
            &count,
            "--seed",
            d["seed"].as_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let expected: Vec<String> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        assert_eq!(lines(&stdout), expected);
        assert!(stderr.contains("bias of rivest2011: "), "{stderr}");
    }
    let ids: String = (0..100).map(|i| format!("{i}\n")).collect();
    let out = knuffle_with_input(
        &[
            "draw",
            "--compat",
            "consistent-sampler",
            "-n",
            "10",
            "--seed",
            "41",
        ],
        ids.as_bytes(),
    );
    let (code, stdout, stderr) = code_and_text(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "73\n51\n17\n58\n38\n42\n39\n20\n11\n67\n");
    let (_, stdout, _) = run(&[
        "draw",
        "--compat",
        "consistent-sampler",
        "-e",
        "a",
        "b",
        "c",
        "d",
        "-n",
        "4",
        "--seed",
        "31",
    ]);
    assert_eq!(stdout, "b\na\nd\nc\n");
    let (_, stdout, _) = run(&[
        "draw",
        "--compat",
        "consistent-sampler",
        "--replace",
        "--tickets",
        "--digits",
        "12",
        "-e",
        "A-1",
        "A-2",
        "A-3",
        "B-1",
        "B-2",
        "B-3",
        "-n",
        "5",
        "--seed",
        "314159",
    ]);
    assert_eq!(
        stdout,
        "0.410310858090 B-2 1\n0.470960291255 B-3 1\n0.471438751218 A-3 1\n\
         0.567089805977 A-2 1\n0.659534619443 A-2 2\n"
    );
    let (code, stdout, stderr) = run(&[
        "draw",
        "--compat",
        "stake",
        "--seed",
        "server seed",
        "--client-seed",
        "client seed",
        "--nonce",
        "1",
        "-n",
        "5",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "J♠\n10♥\n5♥\nK♣\n9♥\n");
    assert!(
        stderr.contains("48 cards have probability 82,595,525/2^32"),
        "{stderr}"
    );
    assert!(
        stderr.contains("4 cards have probability 82,595,524/2^32"),
        "{stderr}"
    );
}

#[test]
fn verify_compat_checks_a_published_third_party_draw() {
    let dir = tempfile::tempdir().unwrap();
    let published = dir.path().join("picks.txt");
    std::fs::write(&published, "740\n180\n264\n789\n238\n").unwrap();
    let args = |file: &Path| {
        vec![
            "verify".to_owned(),
            "--compat".into(),
            "rivest2011".into(),
            "-i".into(),
            "1-876".into(),
            "--replace".into(),
            "--seed".into(),
            "3546311556112163624615351222".into(),
            "--expect".into(),
            file.to_str().unwrap().to_owned(),
        ]
    };
    let ok: Vec<String> = args(&published);
    let (code, stdout, stderr) = run(&ok.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("verified: "), "{stdout}");
    assert!(stderr.contains("bias of rivest2011"), "{stderr}");
    let altered = dir.path().join("altered.txt");
    std::fs::write(&altered, "740\n180\n265\n789\n238\n").unwrap();
    let bad: Vec<String> = args(&altered);
    let (code, stdout, _) = run(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("line 3 re-derives as \"264\""), "{stdout}");
}

#[test]
fn a_real_drand_mainnet_round_seeds_a_draw_and_its_signature_is_checked_with_bls() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.json");
    let beacon = data("drand-mainnet-72785.json");
    let (code, _, stderr) = run(&[
        "draw",
        "-i",
        "1-100",
        "-n",
        "3",
        "--beacon",
        &beacon,
        "--transcript",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&t).unwrap();
    assert!(text.contains("\"previous_signature\""), "{text}");
    let (code, stdout, _) = verify(&t, &["--beacon", &beacon]);
    assert_eq!(code, 0, "{stdout}");
    if cfg!(feature = "bls") {
        assert!(
            stdout.contains("ok   beacon signature: round 72785"),
            "{stdout}"
        );
        // Another previous signature: the BLS check (only) fails.
        let mut value: Value = serde_json::from_str(&text).unwrap();
        let d = source_of_kind(&mut value, "drand");
        let prev = flip_hex(d["previous_signature"].as_str().unwrap());
        d["previous_signature"] = prev.into();
        std::fs::write(&t, serde_json::to_string(&value).unwrap()).unwrap();
        let (code, stdout, _) = verify(&t, &[]);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.contains("the beacon signature check failed"),
            "{stdout}"
        );
    } else {
        assert!(stdout.contains("BLS signature was not checked"), "{stdout}");
        assert!(stdout.contains("--features bls"), "{stdout}");
    }
    if python3_works() {
        assert_eq!(reference_verifier(&t, None).status.code(), Some(0));
    }
}
