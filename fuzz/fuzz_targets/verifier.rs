//! Verification of an untrusted transcript (`knuffle_draw::verify` after
//! `Transcript::parse`, with the population the transcript embeds, as
//! `knuffle verify TRANSCRIPT` does): never a panic, and work bounded by the
//! input. A range population above `MAX_RANGE_ITEMS` is refused before any
//! hashing; the draw is re-derived only when `k` equals the number of
//! recorded indices and items (else the `result` check fails unread); a
//! verified transcript's indices and items are those of the population.
#![no_main]

use knuffle_draw::{MAX_RANGE_ITEMS, Population, Transcript, population_of, verify};
use libfuzzer_sys::fuzz_target;

/// The largest range hashed here: up to `MAX_RANGE_ITEMS` is bounded work
/// too, but a minute per input would stall the fuzzer.
const FUZZ_RANGE_ITEMS: u64 = 100_000;

const CHECKS: [&str; 8] = [
    "population digest",
    "beacon randomness",
    "beacon signature",
    "commitment opening",
    "committed beacon",
    "key",
    "k",
    "result",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(transcript) = Transcript::parse(text) else {
        return;
    };
    let population = match population_of(&transcript, None) {
        Ok(population) => population,
        Err(trouble) => {
            assert!(!trouble.0.is_empty());
            return;
        }
    };
    let n = population.count();
    if let Population::Range { .. } = population {
        assert!(n <= MAX_RANGE_ITEMS, "a range of {n} items was accepted");
        if n > FUZZ_RANGE_ITEMS {
            return;
        }
    }
    let Ok(report) = verify(&transcript, &population) else {
        return;
    };
    assert!(report.checks.iter().all(|c| CHECKS.contains(&c.name)));
    let check = |name: &str| {
        report
            .checks
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no {name} check in\n{report}"))
    };
    let result = &transcript.result;
    let k = transcript.k;
    if result.indices.len() as u64 != k || result.items.len() as u64 != k {
        assert!(!check("k").passed);
        assert!(!check("result").passed && check("result").detail.contains("not re-derived"));
    }
    if report.verified() {
        assert_eq!(result.indices.len() as u64, k);
        for (&index, item) in result.indices.iter().zip(&result.items) {
            assert!(index < n, "index {index} of {n} items verified");
            assert_eq!(population.item(index), *item);
        }
        if transcript.mode == "perm" {
            let mut seen = result.indices.clone();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(
                seen.len(),
                result.indices.len(),
                "a repeated index verified"
            );
        }
    }
});
