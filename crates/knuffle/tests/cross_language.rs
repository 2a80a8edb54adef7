//! The golden vectors shared with the Python package (python/tests/test_golden.py):
//! `tests/golden/cross_language.json` holds, for a few seeds, the permutation
//! `knuffle::permutation(n, &mut Seed::from_text(seed).rng())` (large `n` by
//! SHA-256) and a bridge deal; Python's `knuffle.Generator(seed)` must give the
//! very same orders. One case per line, so this test reads it without a JSON crate.

use knuffle::cards::Deck;
use knuffle::{Seed, permutation};
use sha2::{Digest, Sha256};

const GOLDEN: &str = include_str!("golden/cross_language.json");

/// The text after `"key": ` on `line`, up to the end of its value.
fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\": "))? + key.len() + 4;
    Some(&line[start..])
}

fn string(line: &str, key: &str) -> Option<String> {
    let rest = value(line, key)?.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

fn number(line: &str, key: &str) -> Option<usize> {
    let rest = value(line, key)?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

/// The items of the list value of `key` (numbers or strings, no nesting).
fn list(line: &str, key: &str) -> Option<Vec<String>> {
    let rest = value(line, key)?.strip_prefix('[')?;
    let body = &rest[..rest.find(']')?];
    Some(
        body.split(", ")
            .filter(|item| !item.is_empty())
            .map(|item| item.trim_matches('"').to_string())
            .collect(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn permutations_match_the_shared_golden_vectors() {
    let mut checked = 0;
    for line in GOLDEN.lines().filter(|l| l.contains("\"n\": ")) {
        let seed = string(line, "seed").expect("seed");
        let n = number(line, "n").expect("n");
        let perm = permutation(n, &mut Seed::from_text(&seed).rng());
        if let Some(expected) = list(line, "permutation") {
            let expected: Vec<usize> = expected.iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(perm, expected, "seed {seed:?}, n = {n}");
        } else {
            let expected = string(line, "sha256").expect("permutation or sha256");
            let bytes: Vec<u8> = perm
                .iter()
                .flat_map(|&i| (i as u64).to_le_bytes())
                .collect();
            assert_eq!(
                hex(&Sha256::digest(&bytes)),
                expected,
                "seed {seed:?}, n = {n}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 9, "every golden permutation was read");
}

#[test]
fn deals_match_the_shared_golden_vectors() {
    let mut checked = 0;
    for line in GOLDEN.lines().filter(|l| l.contains("\"hands\": ")) {
        let seed = string(line, "seed").expect("seed");
        let players = number(line, "players").expect("players");
        let cards = number(line, "cards").expect("cards");
        let deal = Deck::standard()
            .deal(players, cards, 0, &mut Seed::from_text(&seed).rng())
            .unwrap();
        let hands: Vec<String> = deal
            .hands
            .iter()
            .map(|hand| {
                let names: Vec<String> = hand.iter().map(|c| c.to_ascii()).collect();
                names.join(" ")
            })
            .collect();
        assert_eq!(hands, list(line, "hands").expect("hands"), "seed {seed:?}");
        checked += 1;
    }
    assert_eq!(checked, 1, "every golden deal was read");
}
