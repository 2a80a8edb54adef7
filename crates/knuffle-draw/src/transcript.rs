//! The `knuffle-vd/1` transcript: everything needed to re-derive a draw, as
//! JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::draw::{DrawError, draw_indices};
use crate::encode::{digest_from_hex, from_hex, to_hex};
use crate::key::{Mode, Source, derive_key};
use crate::population::Population;

/// The format name, the transcript's first field.
pub const FORMAT: &str = "knuffle-vd/1";

/// A transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transcript {
    /// Always [`FORMAT`].
    pub format: String,
    /// `perm` or `replace`.
    pub mode: String,
    /// The sample size.
    pub k: u64,
    /// What was drawn from.
    pub population: PopulationRecord,
    /// The seed sources, in key order.
    pub sources: Vec<SourceRecord>,
    /// The key (hex).
    pub key: String,
    /// What was drawn.
    pub result: ResultRecord,
}

/// The population of a transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PopulationRecord {
    /// The number of items.
    pub count: u64,
    /// The population digest (hex).
    pub digest: String,
    /// The items, when embedded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<String>>,
    /// The integer range, for a population `lo..=hi`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<RangeRecord>,
}

/// An integer range `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeRecord {
    /// First integer.
    pub lo: u64,
    /// Last integer (inclusive).
    pub hi: u64,
}

/// A seed source of a transcript (binary fields in hex).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SourceRecord {
    /// Public text.
    Text {
        /// The text.
        value: String,
    },
    /// A drand round.
    Drand {
        /// Chain hash.
        chain: String,
        /// Round.
        round: u64,
        /// Signature (hex).
        signature: String,
        /// Randomness (hex).
        randomness: String,
        /// The previous round's signature (hex), for chained beacons.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous_signature: Option<String>,
    },
    /// An opened commitment.
    Commit {
        /// The secret.
        secret: String,
        /// The commitment (hex).
        commitment: String,
        /// The beacon named in the commitment.
        beacon: String,
    },
}

/// The result of a transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultRecord {
    /// The drawn indices (0-based, into the population).
    pub indices: Vec<u64>,
    /// The drawn items.
    pub items: Vec<String>,
}

impl SourceRecord {
    /// The record of `source`.
    pub fn from_source(source: &Source) -> SourceRecord {
        match source {
            Source::Text(value) => SourceRecord::Text {
                value: value.clone(),
            },
            Source::Drand {
                chain,
                round,
                signature,
                randomness,
                previous_signature,
            } => SourceRecord::Drand {
                chain: chain.clone(),
                round: *round,
                signature: to_hex(signature),
                randomness: to_hex(randomness),
                previous_signature: previous_signature.as_deref().map(to_hex),
            },
            Source::Commit {
                secret,
                commitment,
                beacon,
            } => SourceRecord::Commit {
                secret: secret.clone(),
                commitment: to_hex(commitment),
                beacon: beacon.clone(),
            },
        }
    }

    /// The source, as recorded (nothing recomputed); hex errors are trouble.
    pub fn to_source(&self) -> Result<Source, String> {
        Ok(match self {
            SourceRecord::Text { value } => Source::Text(value.clone()),
            SourceRecord::Drand {
                chain,
                round,
                signature,
                randomness,
                previous_signature,
            } => Source::Drand {
                chain: chain.clone(),
                round: *round,
                signature: from_hex(signature).map_err(|e| format!("drand signature: {e}"))?,
                randomness: digest_from_hex(randomness)
                    .map_err(|e| format!("drand randomness: {e}"))?,
                previous_signature: previous_signature
                    .as_deref()
                    .map(from_hex)
                    .transpose()
                    .map_err(|e| format!("drand previous_signature: {e}"))?,
            },
            SourceRecord::Commit {
                secret,
                commitment,
                beacon,
            } => Source::Commit {
                secret: secret.clone(),
                commitment: digest_from_hex(commitment).map_err(|e| format!("commitment: {e}"))?,
                beacon: beacon.clone(),
            },
        })
    }
}

/// Draws `k` items from `population` with `sources` and records it all.
/// With `embed_items`, the items of a list population are written into the
/// transcript (a verifier then needs nothing else); without, the verifier
/// needs the population file. A range is always recorded as its bounds.
pub fn make_transcript(
    mode: Mode,
    population: &Population,
    embed_items: bool,
    sources: &[Source],
    k: u64,
) -> Result<Transcript, DrawError> {
    population.check_size()?;
    let digest = population.digest();
    let key = derive_key(mode, &digest, sources);
    let indices = draw_indices(key, mode, population.count(), k)?;
    let items = indices.iter().map(|&i| population.item(i)).collect();
    let (items_record, range) = match population {
        Population::Items(list) => (embed_items.then(|| list.clone()), None),
        Population::Range { lo, hi } => (None, Some(RangeRecord { lo: *lo, hi: *hi })),
    };
    Ok(Transcript {
        format: FORMAT.to_owned(),
        mode: mode.as_str().to_owned(),
        k,
        population: PopulationRecord {
            count: population.count(),
            digest: to_hex(&digest),
            items: items_record,
            range,
        },
        sources: sources.iter().map(SourceRecord::from_source).collect(),
        key: to_hex(&key),
        result: ResultRecord { indices, items },
    })
}

impl Transcript {
    /// Parses a transcript. An unknown `format` is reported as such (before
    /// any other field is looked at).
    ///
    /// The text is parsed twice, never into a tree of JSON values: once for
    /// the format alone (other fields skipped without allocating), then into
    /// the transcript, so memory stays close to the transcript's own size.
    /// Nesting deeper than serde_json's limit (128) is malformed JSON.
    pub fn parse(json: &str) -> Result<Transcript, String> {
        /// Just the format field.
        #[derive(Deserialize)]
        struct Head {
            #[serde(default)]
            format: Option<Value>,
        }
        let head: Head = serde_json::from_str(json).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => {
                "not a knuffle transcript: not a JSON object with a \"format\" field".to_owned()
            }
            _ => format!("malformed transcript JSON: {e}"),
        })?;
        match head.format.as_ref().map(Value::as_str) {
            Some(Some(FORMAT)) => {}
            Some(Some(other)) => {
                return Err(format!(
                    "unknown transcript format {other:?} (this knuffle reads {FORMAT:?})"
                ));
            }
            Some(None) => {
                return Err("not a knuffle transcript: \"format\" is not a string".to_owned());
            }
            None => return Err("not a knuffle transcript: no \"format\" field".to_owned()),
        }
        serde_json::from_str(json).map_err(|e| format!("malformed {FORMAT} transcript: {e}"))
    }

    /// The transcript as pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a transcript serialises");
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_malformed_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = Transcript::parse(&deep).unwrap_err();
        assert!(err.contains("recursion limit exceeded"), "{err}");
        let skipped = format!(
            "{{\"zzz\": {}{}, \"format\": \"knuffle-vd/1\"}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let err = Transcript::parse(&skipped).unwrap_err();
        assert!(
            err.starts_with("malformed knuffle-vd/1 transcript"),
            "{err}"
        );
    }

    #[test]
    fn the_format_is_read_first() {
        assert!(
            Transcript::parse("{\"format\": \"other/2\", \"k\": []}")
                .unwrap_err()
                .starts_with("unknown transcript format \"other/2\"")
        );
        assert!(
            Transcript::parse("{\"k\": 1}")
                .unwrap_err()
                .contains("no \"format\" field")
        );
        assert!(
            Transcript::parse("[1]")
                .unwrap_err()
                .starts_with("not a knuffle transcript")
        );
        assert!(
            Transcript::parse("{")
                .unwrap_err()
                .starts_with("malformed transcript JSON")
        );
    }

    #[test]
    fn a_range_too_large_is_refused_before_hashing() {
        let huge = Population::range(1, 1_000_000_000_000).unwrap();
        let err = make_transcript(Mode::Replace, &huge, true, &[Source::Text("s".into())], 1)
            .unwrap_err();
        assert!(matches!(err, DrawError::Limit(_)), "{err}");
    }
}
