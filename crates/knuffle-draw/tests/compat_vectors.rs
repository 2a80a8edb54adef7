//! The published vectors of the schemes in use reproduce exactly through
//! `knuffle_draw::compat` (the CLI's `--compat` is tested on the same data).

use knuffle_draw::compat::{consistent, rivest, stake};
use serde_json::Value;

fn data(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn rivest_sampler_published_tests() {
    let tests = data("rivest-sampler-tests.json");
    let cases = tests["tests"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let d = &case["data"];
        let seed = d["seed"].as_str().unwrap();
        let total = d["total"].as_u64().unwrap();
        let count = d["count"].as_u64().unwrap();
        let expected: Vec<u64> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(
            rivest::sample(seed, 1, total, count, true).unwrap(),
            expected,
            "seed {seed:?}"
        );
    }
}

#[test]
fn rivest_without_replacement_skips_repeats_and_keeps_counting() {
    // Seed "0" over 1..2 picks 1, 1, 2 with replacement: without, the
    // repeated 1 is skipped.
    assert_eq!(rivest::sample("0", 1, 2, 2, false).unwrap(), vec![1, 2]);
    assert!(rivest::sample("0", 1, 2, 3, false).is_err());
}

fn ids(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) if s == "range(100)" => (0..100).map(|i| i.to_string()).collect(),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect(),
        other => panic!("unexpected ids {other}"),
    }
}

#[test]
fn consistent_sampler_published_vectors() {
    let vectors = data("consistent-sampler-vectors.json");
    for case in vectors["without_replacement"].as_array().unwrap() {
        let ids = ids(&case["ids"]);
        let seed = case["seed"].as_str().unwrap();
        let take = case["take"].as_u64().unwrap();
        let got: Vec<&str> = consistent::sample(&ids, seed, false, take)
            .iter()
            .map(|t| ids[t.id].as_str())
            .collect();
        let expected: Vec<&str> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(got, expected, "seed {seed}");
        // A smaller sample is a prefix of a larger one.
        let shorter = consistent::sample(&ids, seed, false, take / 2);
        assert_eq!(shorter.len() as u64, take / 2);
    }
    for case in vectors["with_replacement"].as_array().unwrap() {
        let ids = ids(&case["ids"]);
        let seed = case["seed"].as_str().unwrap();
        let digits = case["digits"].as_u64().unwrap() as usize;
        let got: Vec<(String, String, u64)> =
            consistent::sample(&ids, seed, true, case["take"].as_u64().unwrap())
                .into_iter()
                .map(|t| (t.trimmed(digits), ids[t.id].clone(), t.generation))
                .collect();
        let expected: Vec<(String, String, u64)> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t[0].as_str().unwrap().to_owned(),
                    t[1].as_str().unwrap().to_owned(),
                    t[2].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, expected);
    }
}

#[test]
fn stake_style_published_vector() {
    for case in data("stake-vectors.json").as_array().unwrap() {
        let cards: Vec<String> = stake::cards(
            case["server_seed"].as_str().unwrap(),
            case["client_seed"].as_str().unwrap(),
            case["nonce"].as_u64().unwrap(),
            case["count"].as_u64().unwrap(),
        )
        .into_iter()
        .map(stake::card)
        .collect();
        let expected: Vec<&str> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(cards, expected);
    }
}

#[test]
fn stake_bias_names_the_favoured_and_the_short_cards() {
    let report = stake::bias();
    assert!(!report.exact);
    let text = report.to_string();
    assert!(
        text.contains("48 cards have probability 82,595,525/2^32"),
        "{text}"
    );
    assert!(
        text.contains("4 cards have probability 82,595,524/2^32"),
        "{text}"
    );
    // The short cards are the ones whose preimage interval is narrowest.
    let short: Vec<String> = (0..52)
        .filter(|&c| stake::preimages(c) == 82_595_524)
        .map(stake::card)
        .collect();
    assert!(text.contains(&short.join(" ")), "{text}");
}
