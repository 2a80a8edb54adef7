//! Verification: re-derive a transcript from its inputs, check by check.

use std::collections::HashSet;
use std::fmt;

use crate::commit::commitment;
use crate::encode::{digest_from_hex, sha256, to_hex};
use crate::key::{Mode, Source, derive_key};
use crate::population::Population;
use crate::transcript::Transcript;

/// One named check and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The check's name (`population digest`, `beacon randomness`,
    /// `commitment opening`, `committed beacon`, `key`, `k`, `result`).
    pub name: &'static str,
    /// Whether it passed.
    pub passed: bool,
    /// What was compared.
    pub detail: String,
}

/// The outcome of a verification.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Every check, in order.
    pub checks: Vec<Check>,
    /// What was not checked, and why.
    pub notes: Vec<String>,
}

impl Report {
    /// Whether every check passed.
    pub fn verified(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The first failed check.
    pub fn first_failure(&self) -> Option<&Check> {
        self.checks.iter().find(|c| !c.passed)
    }

    fn check(&mut self, name: &'static str, passed: bool, detail: String) {
        self.checks.push(Check {
            name,
            passed,
            detail,
        });
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            let mark = if check.passed { "ok  " } else { "FAIL" };
            writeln!(f, "{mark} {}: {}", check.name, check.detail)?;
        }
        for note in &self.notes {
            writeln!(f, "note {note}")?;
        }
        Ok(())
    }
}

/// Trouble: the transcript cannot be checked at all (as opposed to a check
/// that fails).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trouble(pub String);

impl fmt::Display for Trouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The population a transcript was drawn from: `given` (a population file)
/// when the transcript does not embed its items, or to check against them.
pub fn population_of(
    transcript: &Transcript,
    given: Option<Population>,
) -> Result<Population, Trouble> {
    let record = &transcript.population;
    if let Some(population) = given {
        return Ok(population);
    }
    if let Some(items) = &record.items {
        return Ok(Population::Items(items.clone()));
    }
    if let Some(range) = record.range {
        let population = Population::range(range.lo, range.hi)
            .ok_or_else(|| Trouble(format!("invalid range {}-{}", range.lo, range.hi)))?;
        population
            .check_size()
            .map_err(|e| Trouble(e.to_string()))?;
        return Ok(population);
    }
    Err(Trouble(
        "the transcript does not embed its population: give the population file".to_owned(),
    ))
}

/// The BLS signature of a beacon round: checked with the `bls` feature
/// (a `beacon signature` check), else a note says it was not checked.
#[cfg(feature = "bls")]
fn check_beacon_signature(report: &mut Report, source: &Source) {
    let Source::Drand {
        chain,
        round,
        signature,
        previous_signature,
        ..
    } = source
    else {
        return;
    };
    match crate::bls::check_signature(chain, *round, previous_signature.as_deref(), signature) {
        Ok(valid) => report.check(
            "beacon signature",
            valid,
            format!(
                "round {round}: the BLS signature {} under the chain's public key",
                if valid { "verifies" } else { "does NOT verify" }
            ),
        ),
        Err(why) => report.notes.push(format!(
            "beacon round {round}: the BLS signature was not checked: {why}"
        )),
    }
}

/// The BLS signature of a beacon round: checked with the `bls` feature
/// (a `beacon signature` check), else a note says it was not checked.
#[cfg(not(feature = "bls"))]
fn check_beacon_signature(report: &mut Report, source: &Source) {
    if let Source::Drand { round, .. } = source {
        report.notes.push(format!(
            "beacon round {round}: the BLS signature was not checked against the chain's public \
             key (this knuffle was built without the `bls` feature); check it with drand's tools \
             or build with --features bls"
        ));
    }
}

/// Re-derives `transcript` from `population` and checks everything.
///
/// The work is bounded by the transcript and the population: a range of
/// more than [`crate::limits::MAX_RANGE_ITEMS`] items is trouble, and the
/// draw is re-derived only when `k` equals the number of recorded indices
/// and items (else the `k` check fails and `result` is "not re-derived").
pub fn verify(transcript: &Transcript, population: &Population) -> Result<Report, Trouble> {
    population
        .check_size()
        .map_err(|e| Trouble(e.to_string()))?;
    let inputs = Inputs::parse(transcript)?;
    let mut report = Report::default();

    let digest = population.digest();
    let n = population.count();
    check_population_digest(&mut report, transcript, &inputs, digest, n);
    check_sources(&mut report, &inputs, &digest);
    let key = derive_key(inputs.mode, &digest, &inputs.sources);
    check_key(&mut report, transcript, &inputs, key);

    if !check_k(&mut report, transcript, inputs.mode, n) {
        // Re-deriving k draws that the transcript does not record would let
        // a small transcript claim unbounded work (k = 2^64 - 1).
        report.check(
            "result",
            false,
            "not re-derived: the k check failed".to_owned(),
        );
        return Ok(report);
    }
    check_result(&mut report, transcript, population, key, inputs.mode, n)?;
    Ok(report)
}

/// What the transcript records, parsed (malformed: trouble).
struct Inputs {
    mode: Mode,
    sources: Vec<Source>,
    recorded_digest: [u8; 32],
    recorded_key: [u8; 32],
}

impl Inputs {
    fn parse(transcript: &Transcript) -> Result<Self, Trouble> {
        let mode = Mode::parse(&transcript.mode)
            .ok_or_else(|| Trouble(format!("unknown mode {:?}", transcript.mode)))?;
        let sources: Vec<Source> = transcript
            .sources
            .iter()
            .map(|s| s.to_source().map_err(Trouble))
            .collect::<Result<_, _>>()?;
        let recorded_digest = digest_from_hex(&transcript.population.digest)
            .map_err(|e| Trouble(format!("population digest: {e}")))?;
        let recorded_key =
            digest_from_hex(&transcript.key).map_err(|e| Trouble(format!("key: {e}")))?;
        Ok(Inputs {
            mode,
            sources,
            recorded_digest,
            recorded_key,
        })
    }
}

/// The `population digest` check: the population's `n` items hash to the
/// recorded digest, and the recorded count is `n`.
fn check_population_digest(
    report: &mut Report,
    transcript: &Transcript,
    inputs: &Inputs,
    digest: [u8; 32],
    n: u64,
) {
    let recorded_digest = inputs.recorded_digest;
    let same_count = n == transcript.population.count;
    report.check(
        "population digest",
        digest == recorded_digest && same_count,
        if same_count {
            format!("{n} items hash to {}", to_hex(&digest))
        } else {
            format!(
                "{n} items, but the transcript says {}",
                transcript.population.count
            )
        } + &if digest == recorded_digest {
            String::new()
        } else {
            format!(" (the transcript says {})", to_hex(&recorded_digest))
        },
    );
}

/// The checks of each seed source, in order: a beacon's randomness (and
/// signature), a commitment's opening and the beacon it names.
fn check_sources(report: &mut Report, inputs: &Inputs, digest: &[u8; 32]) {
    let sources = &inputs.sources;
    let drand_refs: Vec<String> = sources
        .iter()
        .filter(|s| matches!(s, Source::Drand { .. }))
        .map(Source::label)
        .collect();
    // Looked up once per commit source: a set, so that a transcript of many
    // sources costs time linear in its size.
    let drand_set: HashSet<&str> = drand_refs.iter().map(String::as_str).collect();
    let drand_named = match drand_refs.as_slice() {
        [] => "no beacon".to_owned(),
        [a] => a.clone(),
        [a, b] => format!("{a}, {b}"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more", rest.len()),
    };
    for source in sources {
        match source {
            Source::Drand {
                signature,
                randomness,
                round,
                ..
            } => {
                check_beacon_randomness(report, *round, signature, randomness);
                check_beacon_signature(report, source);
            }
            Source::Commit {
                secret,
                commitment: recorded,
                beacon,
            } => {
                let derived = commitment(inputs.mode, digest, secret, beacon);
                report.check(
                    "commitment opening",
                    &derived == recorded,
                    format!(
                        "H(commit, mode, population, secret, {beacon}) = {}{}",
                        to_hex(&derived),
                        if &derived == recorded {
                            String::new()
                        } else {
                            format!(", the published commitment is {}", to_hex(recorded))
                        }
                    ),
                );
                let named = drand_set.contains(beacon.as_str());
                report.check(
                    "committed beacon",
                    named,
                    if named {
                        format!("the draw uses {beacon}, the round named in the commitment")
                    } else {
                        format!("the commitment names {beacon}, but the draw uses {drand_named}")
                    },
                );
            }
            Source::Text(_) => {}
        }
    }
}

/// The `beacon randomness` check: the round's randomness is the SHA-256
/// of its signature.
fn check_beacon_randomness(
    report: &mut Report,
    round: u64,
    signature: &[u8],
    randomness: &[u8; 32],
) {
    let derived = sha256(signature);
    report.check(
        "beacon randomness",
        &derived == randomness,
        format!(
            "round {round}: SHA-256(signature) = {}{}",
            to_hex(&derived),
            if &derived == randomness {
                String::new()
            } else {
                format!(", the transcript says {}", to_hex(randomness))
            }
        ),
    );
}

/// The `key` check: the key derived from the mode, the population and the
/// sources is the recorded one.
fn check_key(report: &mut Report, transcript: &Transcript, inputs: &Inputs, key: [u8; 32]) {
    let sources = &inputs.sources;
    report.check(
        "key",
        key == inputs.recorded_key,
        format!(
            "H(key, {}, population, {} source{}) = {}{}",
            inputs.mode.as_str(),
            sources.len(),
            if sources.len() == 1 { "" } else { "s" },
            to_hex(&key),
            if key == inputs.recorded_key {
                String::new()
            } else {
                format!(", the transcript says {}", transcript.key)
            }
        ),
    );
}

/// The `k` check: `k` draws fit the `n` items in this mode, and the result
/// records `k` indices and `k` items. Whether it passed.
fn check_k(report: &mut Report, transcript: &Transcript, mode: Mode, n: u64) -> bool {
    let k = transcript.k;
    let result = &transcript.result;
    let k_fits = match mode {
        Mode::Replace => n > 0 || k == 0,
        Mode::Perm => k <= n,
    };
    let k_ok = k_fits && result.indices.len() as u64 == k && result.items.len() as u64 == k;
    report.check(
        "k",
        k_ok,
        if k_ok {
            format!("{k} item{} drawn", if k == 1 { "" } else { "s" })
        } else if !k_fits && mode == Mode::Replace {
            format!("k = {k} draws from an empty population")
        } else if !k_fits {
            format!("k = {k} is more than the {n} items, without replacement")
        } else {
            format!(
                "k = {k}, but the result holds {} indices and {} items",
                result.indices.len(),
                result.items.len()
            )
        },
    );
    k_ok
}

/// The `result` check, once `k` passed: the draws re-derived from `key`
/// are the recorded indices, and the population's items at them the
/// recorded items.
fn check_result(
    report: &mut Report,
    transcript: &Transcript,
    population: &Population,
    key: [u8; 32],
    mode: Mode,
    n: u64,
) -> Result<(), Trouble> {
    let k = transcript.k;
    let result = &transcript.result;
    // k is the number of recorded indices, bounded by the transcript's
    // size; the draws are compared as they come (stopping at the first
    // difference), never collected.
    let mut derived = crate::draw::draws(key, mode, n, k).map_err(|e| Trouble(e.to_string()))?;
    let mut first_index_diff = None;
    let mut item_differs = false;
    for (at, recorded) in result.indices.iter().enumerate() {
        let index = derived.next().expect("k draws, k recorded indices");
        if index != *recorded {
            first_index_diff = Some((at, index));
            break;
        }
        item_differs = item_differs || population.item(index) != result.items[at];
    }
    report.check(
        "result",
        first_index_diff.is_none() && !item_differs,
        match first_index_diff {
            None if !item_differs => "the drawn indices and items re-derive exactly".to_owned(),
            None => "the indices re-derive, but an item differs from the population's".to_owned(),
            Some((at, index)) => format!(
                "draw {} re-derives as index {index}, the transcript says {}",
                at + 1,
                result.indices[at]
            ),
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{RangeRecord, make_transcript};

    fn lottery(mode: Mode) -> (Transcript, Population) {
        let population = Population::range(1, 1_000_000).unwrap();
        let sources = [Source::Text("hostile".into())];
        let transcript = make_transcript(mode, &population, true, &sources, 3).unwrap();
        (transcript, population)
    }

    #[test]
    fn a_k_the_result_does_not_hold_fails_without_re_deriving() {
        for mode in [Mode::Perm, Mode::Replace] {
            let (mut transcript, population) = lottery(mode);
            // Re-deriving 2^64 - 1 draws would never end (or allocate 8 PB):
            // the k check fails first, and nothing is drawn.
            for k in [u64::MAX, 1_000_000_000_000_000, 400_000_000, 4, 2] {
                transcript.k = k;
                let report = verify(&transcript, &population).unwrap();
                assert_eq!(report.first_failure().unwrap().name, "k", "{report}");
                let result = report.checks.last().unwrap();
                assert_eq!(result.name, "result");
                assert!(!result.passed);
                assert_eq!(result.detail, "not re-derived: the k check failed");
            }
        }
    }

    #[test]
    fn a_range_too_large_to_digest_is_trouble() {
        let (mut transcript, _) = lottery(Mode::Replace);
        transcript.population.range = Some(RangeRecord {
            lo: 1,
            hi: 1_000_000_000_000,
        });
        let trouble = population_of(&transcript, None).unwrap_err();
        assert!(
            trouble.0.contains("larger than the limit of 1000000000"),
            "{trouble}"
        );
        let huge = Population::Range {
            lo: 0,
            hi: crate::limits::MAX_RANGE_ITEMS,
        };
        assert!(verify(&transcript, &huge).is_err());
    }

    #[test]
    fn many_sources_cost_time_linear_in_the_transcript() {
        // 20,000 beacon rounds and 20,000 commitments naming a round the
        // draw does not use: each failed check names a few rounds, not all
        // of them (that was 20,000 x 1.6 MB of text), and each lookup is
        // one set probe.
        let chain = crate::DRAND_MAINNET;
        let mut sources: Vec<Source> = (0..20_000)
            .map(|round| Source::drand(chain, round, vec![round as u8; 4]))
            .collect();
        sources.extend((0..20_000).map(|i| Source::Commit {
            secret: format!("s{i}"),
            commitment: [0; 32],
            beacon: format!("drand:{chain}:999999"),
        }));
        let population = Population::range(1, 10).unwrap();
        let transcript = make_transcript(Mode::Replace, &population, true, &sources, 2).unwrap();
        let started = std::time::Instant::now();
        let report = verify(&transcript, &population).unwrap();
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let named = report
            .checks
            .iter()
            .find(|c| c.name == "committed beacon")
            .unwrap();
        assert!(!named.passed);
        assert!(
            named.detail.ends_with(":1 and 19998 more"),
            "{}",
            named.detail
        );
    }

    #[test]
    fn a_faithful_transcript_still_verifies() {
        for mode in [Mode::Perm, Mode::Replace] {
            let (transcript, population) = lottery(mode);
            let report = verify(&transcript, &population).unwrap();
            assert!(report.verified(), "{report}");
            let mut changed = transcript.clone();
            changed.result.indices[2] ^= 1;
            let report = verify(&changed, &population).unwrap();
            assert_eq!(report.first_failure().unwrap().name, "result");
            assert!(
                report
                    .first_failure()
                    .unwrap()
                    .detail
                    .starts_with("draw 3 ")
            );
            let mut changed = transcript.clone();
            changed.result.items[1].push('x');
            let report = verify(&changed, &population).unwrap();
            assert!(
                report
                    .first_failure()
                    .unwrap()
                    .detail
                    .contains("an item differs"),
                "{report}"
            );
        }
    }
}
